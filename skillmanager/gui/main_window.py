"""The main window: workspace bar on top, then pages: Skills (registry tree | selected skill), Listing &
expansion, Conflicts and Simulator, each with the full width."""
from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QLabel, QMainWindow, QMenu, QProgressBar, QPushButton, QSplitter, QTabWidget,
                               QGridLayout, QHBoxLayout, QVBoxLayout, QWidget, QFrame)

from skillmanager.core.glossary import WELCOME_CHOICES, WELCOME_RECENT, WELCOME_SKIP, WELCOME_TEXT, WELCOME_TITLE
from skillmanager.core.model import SourceKind
from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.core.versions.installed import detect_installed_claude
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.managing import ManageController
from skillmanager.gui.toggling import NOTICE_MS, ToggleController
from skillmanager.gui.watcher import SkillWatcher
from skillmanager.gui.widgets.about_dialog import AboutDialog
from skillmanager.gui.widgets.detail_pane import DetailPane
from skillmanager.gui.widgets.message_bar import MessageBar
from skillmanager.gui.pages.conflicts_page import ConflictsPage
from skillmanager.gui.pages.simulator_page import SimulatorPage
from skillmanager.gui.widgets.preview_panel import PreviewPanel
from skillmanager.gui.widgets.registry_panel import RegistryPanel
from skillmanager.gui.widgets.workspace_bar import WorkspaceBar

RECENT_KEY = "workspace/recent"


class MainWindow(QMainWindow):
    def __init__(self, context: AppContext, watch: bool = True):
        super().__init__()
        self.context = context
        self.setWindowTitle("skillmanager")
        self.setWindowIcon(states.app_icon())

        self.workspace_bar = WorkspaceBar(self)
        self.workspace_bar.apply_requested.connect(self._on_spec_requested)

        # the welcome page: where a new user's skills can be, each one click away; it stands in for the pages
        # until the user picks one (or skills of their own appear)
        self.banner = QFrame(self)
        self.banner.setObjectName("welcome")
        self.banner.setAccessibleName(WELCOME_TITLE)
        page = QVBoxLayout(self.banner)
        page.addStretch(1)
        column = QVBoxLayout()
        title = QLabel(WELCOME_TITLE, self.banner)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        title.setFont(font)
        column.addWidget(title)
        self.banner_text = QLabel(WELCOME_TEXT, self.banner)
        self.banner_text.setWordWrap(True)
        column.addWidget(self.banner_text)
        column.addSpacing(12)
        choices = QGridLayout()
        choices.setHorizontalSpacing(16)
        self.banner_personal = QPushButton(WELCOME_CHOICES["personal"][0], self.banner)
        self.banner_personal.clicked.connect(self.open_personal)
        self.banner_open = QPushButton(WELCOME_CHOICES["open"][0], self.banner)
        self.banner_open.clicked.connect(lambda: self.open_project())
        self.banner_button = QPushButton(WELCOME_CHOICES["demo"][0], self.banner)
        self.banner_button.clicked.connect(self.open_demo)
        for row, (key, button) in enumerate((("personal", self.banner_personal), ("open", self.banner_open),
                                             ("demo", self.banner_button))):
            button.setMinimumHeight(int(button.sizeHint().height() * 1.4))
            button.setToolTip(WELCOME_CHOICES[key][1])
            hint = QLabel(WELCOME_CHOICES[key][1], self.banner)
            hint.setWordWrap(True)
            choices.addWidget(button, row, 0)
            choices.addWidget(hint, row, 1)
        choices.setColumnStretch(1, 1)
        column.addLayout(choices)
        column.addSpacing(12)
        self.banner_recent_title = QLabel(f"<b>{WELCOME_RECENT}</b>", self.banner)
        column.addWidget(self.banner_recent_title)
        self.banner_recent_list = QVBoxLayout()  # one flat button per recent folder (_fill_recent_menu)
        column.addLayout(self.banner_recent_list)
        self.banner_recent = QPushButton(WELCOME_RECENT, self.banner)  # the same folders, as a menu
        self.banner_recent.setMenu(QMenu(self.banner_recent))
        self.banner_recent.hide()
        column.addSpacing(12)
        self.banner_close = QPushButton(WELCOME_SKIP, self.banner)
        self.banner_close.clicked.connect(self.banner.hide)
        column.addWidget(self.banner_close, 0, Qt.AlignmentFlag.AlignLeft)
        centred = QHBoxLayout()
        centred.addStretch(1)
        holder = QWidget(self.banner)
        holder.setLayout(column)
        holder.setMaximumWidth(720)
        centred.addWidget(holder, 3)
        centred.addStretch(1)
        page.addLayout(centred)
        page.addStretch(2)
        self.banner.hide()
        self.banner.installEventFilter(self)
        self._demo_offered = False

        self.message_bar = MessageBar(self)
        self.toggles = ToggleController(context, self)
        self.toggles.failed.connect(lambda text: self.message_bar.show_message(text, "error"))
        self.toggles.applied.connect(self._on_toggled)
        self.manage = ManageController(context, self)
        self.manage.failed.connect(lambda text: self.message_bar.show_message(text, "error"))
        self.manage.applied.connect(lambda text: self.message_bar.show_message(text, "info"))
        self.registry_panel = RegistryPanel(context, self)
        self.detail = DetailPane(context, self, controller=self.toggles)
        self.registry_panel.problem_activated.connect(self.detail.show_problem)
        self.registry_panel.model.buckets_changed.connect(self.detail.set_counts)
        self.detail.set_counts(self.registry_panel.model.bucket_counts())
        self.registry_panel.switch_requested.connect(self.toggles.switch)
        self.registry_panel.remedy_requested.connect(self.toggles.apply_remedy)
        self.registry_panel.show_in_listing.connect(self._show_in_listing)
        self.toggles.changed.connect(self._show_notice)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.setInterval(NOTICE_MS)  # a configured duration (toggling.NOTICE_MS)
        self._notice_timer.timeout.connect(lambda: self.message_bar.retract("notice"))
        self.notice_change = None  # the AppliedChange the notice's Undo undoes
        self._notice_workspace_cwd = ""
        self._problems_noted: tuple | None = None  # (workspace, count) the message bar last spoke about
        self.preview = PreviewPanel(context, self)
        self.preview.listing.skill_clicked.connect(self.registry_panel.select_skill)
        self.preview.expansion.pick_requested.connect(self.registry_panel.select_skill)
        self.conflicts = ConflictsPage(context, self, controller=self.toggles)
        self.conflicts.identity_clicked.connect(self.select_identity)
        self.conflicts.reveal_requested.connect(self.reveal_identity)
        self.simulator = SimulatorPage(context, self)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.registry_panel)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.detail.setMinimumWidth(220)
        # pages, each with the full width: the simulator and the preview need it more than a third column
        self.skills_page = self.splitter
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.splitter, "Skills")
        self.tabs.addTab(self.preview, "Listing && expansion")
        self.tabs.addTab(self.conflicts, "Conflicts")
        self.tabs.addTab(self.simulator, "Simulator")
        self._sized_once = False
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.workspace_bar)
        layout.addWidget(self.banner)
        layout.addWidget(self.message_bar)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.watch_label = QLabel(self)
        self.statusBar().addPermanentWidget(self.watch_label)
        self.statusBar().addPermanentWidget(self.progress)

        self._build_actions()
        context.scan_started.connect(self._on_scan_started)
        context.scan_progress.connect(lambda text: self.statusBar().showMessage(f"Scanning… {text}"))
        context.scan_failed.connect(self._on_scan_failed)
        context.snapshot_changed.connect(self._on_snapshot)
        context.rows_changed.connect(lambda _snapshot, _delta: self.progress.show())
        context.status_message.connect(lambda text: self._set_status(text))
        context.checks_progress.connect(self._on_checks_progress)
        context.spec_changed.connect(self.workspace_bar.set_spec)

        self.watcher = SkillWatcher(self) if watch else None
        if self.watcher is not None:
            self.watcher.changed.connect(self._on_files_changed)
            self.watcher.mode_changed.connect(self._on_watch_mode)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self._refresh_now)
        self._pending_paths: set[str] = set()
        self.workspace_bar.set_recent(self._recent())
        self.message_bar.close_button.setAccessibleName("Dismiss the message")
        from skillmanager.gui.accessible import name_unnamed

        name_unnamed(self)
        QTimer.singleShot(0, self._preset_profile_note)

    # --- actions -------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        self.open_action = QAction("&Open project folder…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self.open_project)
        file_menu.addAction(self.open_action)
        self.personal_action = QAction("My &personal skills", self)
        self.personal_action.triggered.connect(self.open_personal)
        file_menu.addAction(self.personal_action)
        self.demo_action = QAction("Open &demo workspace", self)
        self.demo_action.triggered.connect(self.open_demo)
        file_menu.addAction(self.demo_action)
        rescan = QAction("&Rescan", self)
        rescan.setShortcut(QKeySequence(Qt.Key.Key_F5))
        rescan.triggered.connect(self.context.rescan)
        file_menu.addAction(rescan)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        if quit_action.shortcut().isEmpty():
            quit_action.setShortcut(QKeySequence("Ctrl+Q"))

        edit_menu = menu.addMenu("&Edit")
        self.undo_action = QAction("&Undo toggle", self)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setEnabled(False)
        self.undo_action.setToolTip("Put back what the last toggle replaced")
        self.undo_action.triggered.connect(self.toggles.undo)
        self.toggles.undo_changed.connect(self.undo_action.setEnabled)
        self.toggles.undo_changed.connect(lambda _on: self.undo_action.setText(self.toggles.undo_label()))
        edit_menu.addAction(self.undo_action)
        self.addAction(self.undo_action)
        find = QAction("&Find skill", self)
        find.setShortcut(QKeySequence.StandardKey.Find)
        find.triggered.connect(self.registry_panel.focus_filter)
        edit_menu.addAction(find)
        self.addAction(find)

        skills_menu = menu.addMenu("&Skills")
        self.install_action = QAction("&Install…", self)
        self.install_action.setShortcut(QKeySequence("Ctrl+I"))
        self.install_action.triggered.connect(lambda: self.open_install())
        self.new_action = QAction("&New skill…", self)
        self.new_action.setShortcut(QKeySequence.StandardKey.New)
        self.new_action.triggered.connect(self.open_new_skill)
        self.rename_action = QAction("&Rename…", self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.rename_action.triggered.connect(self.rename_selected)
        self.move_action = QAction("&Move to…", self)
        self.move_action.triggered.connect(self.move_selected)
        self.delete_action = QAction("&Delete", self)
        self.delete_action.setShortcut(QKeySequence.StandardKey.Delete)
        self.delete_action.triggered.connect(self.delete_selected)
        self.update_action = QAction("&Update from its repository", self)
        self.update_action.triggered.connect(self.update_selected)
        self.history_action = QAction("&History…", self)
        self.history_action.setShortcut(QKeySequence("Ctrl+H"))
        self.history_action.triggered.connect(self.open_history)
        for action in (self.install_action, self.new_action):
            skills_menu.addAction(action)
        skills_menu.addSeparator()
        self.row_actions = (self.rename_action, self.move_action, self.delete_action, self.update_action)
        for action in self.row_actions:
            skills_menu.addAction(action)
        skills_menu.addSeparator()
        skills_menu.addAction(self.history_action)
        edit_menu.addAction(self.history_action)  # where people look for undo and history too
        for action in (self.install_action, self.new_action, self.history_action):
            self.addAction(action)
        self.registry_panel.extra_row_actions = list(self.row_actions)  # under the row menu's own entries
        self.setAcceptDrops(True)

        view_menu = menu.addMenu("&View")
        for index, title in enumerate(("S&kills", "&Listing and expansion", "&Conflicts", "&Simulator")):
            action = QAction(title, self)
            action.setShortcut(QKeySequence(f"Alt+{index + 1}"))
            action.triggered.connect(lambda _c=False, i=index: self.tabs.setCurrentIndex(i))
            view_menu.addAction(action)

        tools_menu = menu.addMenu("&Tools")
        verify = QAction("&Check with my Claude Code…", self)
        verify.setToolTip("Run your installed Claude Code, sandboxed, and compare what it sends with the prediction")
        verify.triggered.connect(self.show_verify)
        tools_menu.addAction(verify)

        help_menu = menu.addMenu("&Help")
        guide = QAction("&Guide and legend of states", self)
        guide.triggered.connect(self.show_guide)
        help_menu.addAction(guide)
        about = QAction("&About skillmanager", self)
        about.setShortcut(QKeySequence(Qt.Key.Key_F1))
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)

    def show_guide(self):
        from skillmanager.gui.widgets.guide_dialog import GuideDialog

        dialog = GuideDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # --- managing skills (core/manage through gui/managing) -------------------------------------------
    def open_install(self, source: str = ""):
        from skillmanager.gui.widgets.install_dialog import InstallDialog

        dialog = InstallDialog(self.context, self.manage, self, source=source)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        if source:
            dialog.start_preview()
        return dialog

    def open_new_skill(self):
        from skillmanager.gui.widgets.new_skill_dialog import NewSkillDialog

        dialog = NewSkillDialog(self.context, self.manage, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def open_history(self):
        from skillmanager.gui.widgets.history_dialog import HistoryDialog

        dialog = HistoryDialog(self.context, self.manage, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # non-modal
        self.history_dialog = dialog
        return dialog

    def _selected_manageable(self):
        skill = self.context.selected_skill()
        reason = self.manage.refusal(skill)
        if reason:
            self.message_bar.show_message(reason, "error")
            return None
        return skill

    def rename_selected(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        skill = self._selected_manageable()
        if skill is None:
            return
        name, ok = QInputDialog.getText(self, "Rename skill", f"New name for {skill.name}:", text=skill.name)
        if ok and name.strip() and name.strip() != skill.name:
            self.manage.rename(skill, name.strip())

    def move_selected(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QInputDialog

        skill = self._selected_manageable()
        if skill is None:
            return
        choices = ["Personal (~/.claude/skills)", "This project (.claude/skills)", "Another folder or package…"]
        choice, ok = QInputDialog.getItem(self, "Move skill", f"Move {skill.name} to:", choices, 0, False)
        if not ok:
            return
        to = {choices[0]: "personal", choices[1]: "project"}.get(choice)
        if to is None:
            to = QFileDialog.getExistingDirectory(self, "Package or skills folder")
            if not to:
                return
        self.manage.move(skill, to)

    def delete_selected(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        skill = self._selected_manageable()
        if skill is None:
            return
        answer = QMessageBox.question(self, "Delete skill",
                                      f"Delete {skill.name} ({skill.skill_dir})?\n\nIts files are kept in History "
                                      "(Skills ▸ History… restores them).")
        if answer == QMessageBox.StandardButton.Yes:
            self.manage.remove(skill)

    def update_selected(self) -> None:
        from skillmanager.gui.widgets.update_dialog import UpdateDialog

        skill = self._selected_manageable()
        if skill is None:
            return
        self.message_bar.show_message(f"Fetching {skill.name}'s repository…", "info")

        def show(plan) -> None:
            dialog = UpdateDialog(self.manage, plan, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.show()
            self.update_dialog = dialog

        self.manage.plan_update(skill, show)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt API
        local = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if local:
            event.acceptProposedAction()
            self.open_install(local[0])

    def open_project(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        start = str(self.context.spec.cwd) if self.context.spec is not None else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open a project folder", start)
        if folder:
            self.open_folder(folder)

    def open_personal(self) -> None:
        """The home folder as the project: what Claude Code sees of your own skills anywhere."""
        home = getattr(self.context.workspace, "home", None) or (self.context.spec.home if self.context.spec else None)
        self.open_folder(str(home or Path.home()))

    def open_folder(self, folder: str) -> None:
        spec = self.context.spec
        if spec is None:
            from skillmanager.gui.engine import WorkspaceSpec

            spec = WorkspaceSpec(cwd=Path(folder))
        else:
            import dataclasses

            spec = dataclasses.replace(spec, cwd=Path(folder))
        self._on_spec_requested(spec)

    def _show_notice(self, change, sentence: str) -> None:
        """What changed and where, with an Undo that names its target; it stays NOTICE_MS."""
        self.notice_change = change
        action = None
        if change is not None:
            action = (f"Undo {change.plan.name}", lambda c=change: self.toggles.undo_change(c))
        self.message_bar.show_message(sentence, "info", action=action, topic="notice")
        self._notice_timer.start()

    def _show_in_listing(self, skill) -> None:
        self.registry_panel.select_skill(skill)
        self.tabs.setCurrentWidget(self.preview)
        self.preview.listing.reveal_skill(skill)  # also when it was selected already
        if self.preview.listing.current_key is None:  # not in the listing: say why, in core's words
            from skillmanager.gui.engine import skill_identity

            outcome = self.context.snapshot.outcomes.get(skill_identity(skill)) if self.context.snapshot else None
            self.message_bar.show_message(f"{skill.name} is not in the listing"
                                          + (f": {outcome.reason}" if outcome is not None else "."), "info")

    def show_about(self) -> AboutDialog:
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # non-modal
        return dialog

    def show_verify(self):
        from skillmanager.gui.widgets.verify_dialog import VerifyDialog

        registry = self.context.registry
        if registry is None:
            self.message_bar.show_message("no workspace is loaded yet", "error")
            return None
        dialog = VerifyDialog(registry.workspace, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()  # non-modal: the check takes a while
        return dialog

    # --- workspace -----------------------------------------------------------------------------
    def _on_spec_requested(self, spec) -> None:
        """A workspace-bar change: a project folder that does not exist is refused with its reason, and
        the bar goes back to the workspace still shown (no scan that would fail and leave stale rows)."""
        if not Path(spec.cwd).is_dir():
            shown = self.context.spec.cwd if self.context.spec is not None else None
            self.message_bar.show_message(
                f"the project folder {spec.cwd} does not exist"
                + (f" — still showing {shown}." if shown else "."), "error")
            if self.context.spec is not None:
                self.workspace_bar.set_spec(self.context.spec)
            return
        self.message_bar.hide()
        self.context.set_spec(spec)

    def open_demo(self) -> None:
        from skillmanager.gui.app import open_new_demo

        self.banner.hide()
        open_new_demo(self.context, profile=self.context.profile_name)

    def _preset_profile_note(self) -> None:
        self.context.tasks.run("claude-version", detect_installed_claude, self._show_installed_claude)

    def _show_installed_claude(self, found) -> None:
        self.workspace_bar.set_installed(found)  # core words the sentence (versions.installed.shown_sentence)

    def _fill_recent_menu(self) -> None:
        menu = self.banner_recent.menu()
        menu.clear()
        while self.banner_recent_list.count():
            old = self.banner_recent_list.takeAt(0).widget()
            if old is not None:
                old.deleteLater()
        shown = str(self.context.spec.cwd) if self.context.spec is not None else None
        for folder in [f for f in self._recent() if f != shown][:5]:  # the folder on screen is no offer
            menu.addAction(folder).triggered.connect(lambda _c=False, f=folder: self.open_folder(f))
            button = QPushButton(folder, self.banner)
            button.setFlat(True)
            button.setAccessibleName(f"Open {folder}")
            button.setToolTip(folder)
            button.clicked.connect(lambda _c=False, f=folder: self.open_folder(f))
            self.banner_recent_list.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        self.banner_recent_title.setVisible(bool(menu.actions()))

    def eventFilter(self, watched, event) -> bool:
        # the welcome page stands in for the pages: showing one hides the other
        if watched is getattr(self, "banner", None) and event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            welcoming = event.type() == QEvent.Type.Show
            if hasattr(self, "tabs"):
                self.tabs.setVisible(not welcoming)
            if welcoming:
                self.banner_personal.setFocus(Qt.FocusReason.OtherFocusReason)
        return super().eventFilter(watched, event)

    def _recent(self) -> list[str]:
        value = self.context.settings.value(RECENT_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember(self, folder: str) -> None:
        recent = [folder] + [f for f in self._recent() if f != folder]
        self.context.settings.setValue(RECENT_KEY, recent[:10])
        self.workspace_bar.set_recent(recent[:10])

    # --- scanning ------------------------------------------------------------------------------
    def _set_status(self, text: str) -> None:
        """The status bar says what the scanner and the watcher are doing (the counts live under the tree)."""
        self._status_text = text
        self.statusBar().showMessage(text)

    _status_text = ""
    CHECKS_SHOWN_FROM = 200  # skill files: below this the checks finish before anyone could read a count

    def _on_checks_progress(self, checked: int, total: int) -> None:
        """'Checking 1,200 of 5,000 skills…' while the audit and lint run; the scan's line comes back after."""
        if checked < total and total >= self.CHECKS_SHOWN_FROM:
            self.statusBar().showMessage(f"Checking {checked:,} of {total:,} skills for risky commands and "
                                         f"mistakes…")
        elif checked >= total and self.statusBar().currentMessage().startswith("Checking "):
            self.statusBar().showMessage(self._status_text)

    def _on_scan_started(self) -> None:
        self.progress.show()
        self._set_status("Scanning skills…")

    def _on_scan_failed(self, message: str) -> None:
        self.progress.hide()
        self._set_status(f"Scan failed: {message.splitlines()[0] if message else ''}")

    def _on_toggled(self, text: str) -> None:
        self.message_bar.hide()
        self.statusBar().showMessage(text, 15000)

    def _on_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.partial:
            return  # the listing follows: keep the progress indicator
        self.progress.hide()
        if self._notice_workspace_cwd != str(getattr(snapshot.workspace, "cwd", "")):
            self.message_bar.retract("notice")  # another project: the last change's notice is not about it
        self._notice_workspace_cwd = str(getattr(snapshot.workspace, "cwd", ""))
        cwd = str(getattr(snapshot.workspace, "cwd", ""))
        self.setWindowTitle(f"skillmanager — {cwd}")
        demo = getattr(snapshot.workspace, "demo_paths", None)
        when = time.strftime("%H:%M:%S")
        if demo is not None:
            self._set_status(f"Demo workspace (a temporary copy in {demo.root}, removed when you quit) — "
                             f"scanned at {when}")
        else:
            self._set_status(f"Scanned at {when}")
        if cwd and not getattr(snapshot.workspace, "demo_paths", None):
            self._remember(cwd)
        own = [s for s in snapshot.skills if s.source not in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)]
        if own and self.banner.isVisible():
            self.banner.hide()  # skills appeared (another folder, or files created): the offer is moot
        if not own and not self._demo_offered and snapshot.registry is not None and demo is None:
            # Claude Code's bundled skills are always there: "no skills" means none of the user's own
            self._demo_offered = True
            self._fill_recent_menu()
            self.banner.show()
        self.workspace_bar.set_shown_profile(getattr(snapshot.registry, "profile", None))
        self._note_problems(snapshot)
        if self.watcher is not None:
            self.watcher.start(snapshot.workspace)

    def _note_problems(self, snapshot: Snapshot) -> None:
        """One non-modal line when a scan finds workspace problems; it goes away once they are fixed.
        The same count in the same workspace is not announced again (the user may have dismissed it)."""
        from skillmanager.gui.problems import summary_note, workspace_problems

        found = workspace_problems(snapshot)
        key = (id(snapshot.workspace), len(found))
        if not found:
            self.message_bar.retract("problems")
            self._problems_noted = key
            return
        if key == self._problems_noted:
            return
        self._problems_noted = key
        if self.message_bar.isVisible() and self.message_bar.kind == "error" and self.message_bar.topic != "problems":
            return  # an error the user has not read yet stays; the tree and the summary still say it
        self.message_bar.show_message(summary_note(found), "info", action=("Show", self.show_problems),
                                      topic="problems")

    def show_problems(self) -> None:
        self.registry_panel.select_problems()

    def _on_files_changed(self, paths: set) -> None:
        self.context.drop_own_writes(paths, self._on_outside_changes)  # our own toggle writes are applied

    def _on_outside_changes(self, outside: set) -> None:
        if not outside:
            return
        self._pending_paths |= outside
        self._refresh_timer.start()  # coalesce bursts into one off-thread refresh

    def _refresh_now(self) -> None:
        paths, self._pending_paths = self._pending_paths, set()
        self.context.refresh(paths)

    def _on_watch_mode(self, mode: str) -> None:
        if mode.startswith("polling"):
            self.watch_label.setText("Watching by polling")
            self.watch_label.setToolTip(mode)
            self.statusBar().showMessage(f"File watching fell back to polling: {mode[len('polling: '):]}", 10000)
        elif mode == "starting":
            self.watch_label.setText("Starting to watch…")
        elif mode == "inotify":
            self.watch_label.setText("Watching for changes")
            self.watch_label.setToolTip("Skill, command and settings folders are watched")
        else:
            self.watch_label.setText("Not watching")
            self.watch_label.setToolTip(mode)

    # --- selection -----------------------------------------------------------------------------
    def select_identity(self, identity) -> None:
        self.registry_panel.select_identity(tuple(identity))

    def reveal_identity(self, identity) -> None:
        """Show the Skills page with this copy selected in the tree."""
        self.tabs.setCurrentWidget(self.skills_page)
        self.registry_panel.select_identity(tuple(identity))

    # --- state ---------------------------------------------------------------------------------
    def restore_state(self) -> None:
        settings = self.context.settings
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 860)
        state = settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        splitter = settings.value("window/skills_splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def save_state(self) -> None:
        settings = self.context.settings
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        settings.setValue("window/skills_splitter", self.splitter.saveState())
        spec = self.context.spec
        if spec is not None and not getattr(self.context.workspace, "demo_paths", None):
            settings.setValue("workspace/cwd", str(spec.cwd))
            settings.setValue("workspace/home", str(spec.home) if spec.home else "")
            settings.setValue("workspace/profile", spec.profile)
            settings.setValue("workspace/claude_version", spec.claude_version or "")
            settings.setValue("workspace/model", spec.model or "")
            settings.setValue("workspace/add_dirs", [str(p) for p in spec.add_dirs])
            settings.setValue("workspace/plugin_dirs", [str(p) for p in spec.plugin_dirs])

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._sized_once:
            self._sized_once = True
            self.registry_panel.view.setFocus(Qt.FocusReason.OtherFocusReason)  # not a path field
            if not isinstance(self.context.settings.value("window/skills_splitter"), QByteArray):
                # proportions rather than fixed pixels: the tree keeps room for names at any window size
                total = max(self.splitter.width(), 600)
                self.splitter.setSizes([total * 55 // 100, total - total * 55 // 100])

    def closeEvent(self, event) -> None:
        self.save_state()
        if self.watcher is not None:
            self.watcher.stop()
        self.context.shutdown(5000)  # running scans stop and emit nothing more
        super().closeEvent(event)
