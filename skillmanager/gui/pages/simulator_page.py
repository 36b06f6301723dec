"""Simulator page: the project map, a timeline of steps, and what each step told the model.

The map is a QFileSystemModel (a folder is listed only when opened) behind a proxy that draws what
core.simulator.project_map decides: skill counts on folders holding `.claude/skills`, git-ignored folders
dimmed with their rule (never opened), files that would activate a `paths:` skill. Those facts are computed
on a worker when a folder is loaded; steps run on their own worker, in order, over one session.
"""
from __future__ import annotations

import html
import json
import os
from pathlib import Path

from PySide6.QtCore import QDir, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QComboBox, QFileDialog, QFileSystemModel, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QMenu, QPushButton, QSplitter, QTabWidget,
                               QTextBrowser, QTreeView, QVBoxLayout, QWidget)

from skillmanager.core.load.watch_targets import HEAVY_DIRS
from skillmanager.core.simulator.session import OPS, TRIGGER_OPS
from skillmanager.gui.context import AppContext
from skillmanager.gui.pages.catch_up import CatchUpPage
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.plural import counted
from skillmanager.gui.tasks import TaskRunner

FACTS_ROLE = Qt.ItemDataRole.UserRole + 40  # core FolderFacts / FileFacts of a map row (None: not known yet)
STEP_ROLE = Qt.ItemDataRole.UserRole  # the StepResult of a timeline row
START_HINT = ("Double-click a file (or right-click it for Read, Edit or Write), type a path below, or pick a "
              "suggestion. Folders with a skill count hold skills; dimmed folders are ignored by git.")


class ProjectMapProxy(QSortFilterProxyModel):
    """Draws core's facts on the file tree; skipped folders (heavy, git-ignored) are closed leaves."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.facts: dict[str, object] = {}  # absolute path -> FolderFacts | FileFacts

    def facts_for(self, proxy_index: QModelIndex):
        if not proxy_index.isValid():
            return None
        return self.facts.get(self.sourceModel().filePath(self.mapToSource(proxy_index)))

    def _skipped(self, proxy_index: QModelIndex) -> bool:
        if not proxy_index.isValid():
            return False
        facts = self.facts_for(proxy_index)
        if facts is not None:
            return bool(getattr(facts, "skipped", False))
        return self.sourceModel().fileName(self.mapToSource(proxy_index)) in HEAVY_DIRS

    def hasChildren(self, parent: QModelIndex = QModelIndex()) -> bool:  # noqa: N802 - Qt API
        return False if self._skipped(parent) else super().hasChildren(parent)

    def canFetchMore(self, parent: QModelIndex) -> bool:  # noqa: N802 - Qt API
        return False if self._skipped(parent) else super().canFetchMore(parent)

    def fetchMore(self, parent: QModelIndex) -> None:  # noqa: N802 - Qt API
        if not self._skipped(parent):
            super().fetchMore(parent)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if index.column() != 0:
            return super().data(index, role)
        if role == FACTS_ROLE:
            return self.facts_for(index)
        facts = self.facts_for(index)
        if facts is not None:
            badge = getattr(facts, "badge", "")
            activates = getattr(facts, "activates", ())
            if role == Qt.ItemDataRole.DisplayRole:
                name = super().data(index, role)
                if badge:
                    return f"{name}   [{badge}]"
                if activates:
                    return f"{name}   [activates {', '.join(n for n, _ in activates)}]"
                return name
            if role == Qt.ItemDataRole.ToolTipRole:
                return facts.tooltip or super().data(index, role)
            if role == Qt.ItemDataRole.ForegroundRole and getattr(facts, "skipped", False):
                return QBrush(_dimmed())
            if role == Qt.ItemDataRole.FontRole and (badge or activates):
                font = QFont(super().data(index, role) or QApplication.font())
                font.setBold(bool(badge))
                font.setItalic(bool(activates))
                return font
        return super().data(index, role)

    def refresh_folder(self, folder: str) -> None:
        """The facts of one folder's children arrived: repaint those rows."""
        model: QFileSystemModel = self.sourceModel()
        parent = self.mapFromSource(model.index(folder))
        rows = self.rowCount(parent)
        if rows:
            self.dataChanged.emit(self.index(0, 0, parent), self.index(rows - 1, 0, parent))


def _dimmed() -> QColor:
    return QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


class SimulatorPage(CatchUpPage):
    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.session = None
        self.project_map = None
        self.last_result = None  # the newest step's result (core.session.StepResult)
        self.steps_runner = TaskRunner(self, threads=1)  # one worker: steps run in order on one session
        self.map_runner = TaskRunner(self, threads=1)  # map facts and suggestions, off the UI thread
        self._pending = 0
        self._serial = 0
        self._startup_listing = ""
        self.fs_model = QFileSystemModel(self)
        self.fs_model.setFilter(QDir.Filter.AllEntries | QDir.Filter.NoDotAndDotDot | QDir.Filter.Hidden)
        self.fs_model.setReadOnly(True)
        self.fs_model.directoryLoaded.connect(self._load_facts)
        self.proxy = ProjectMapProxy(self)
        self.proxy.setSourceModel(self.fs_model)
        self.files = QTreeView(self)
        self.files.setModel(self.proxy)
        self.files.setAccessibleName("Project files")
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for column in (1, 2, 3):
            self.files.hideColumn(column)
        self.files.setHeaderHidden(True)
        self.files.setToolTip("Double-click or Enter: add a step with the chosen tool; right-click: Read, Edit or "
                              "Write")
        self.files.activated.connect(self._on_file_activated)
        self.files.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.files.customContextMenuRequested.connect(self._map_menu)
        self.operation = QComboBox(self)
        self.operation.addItems(OPS)
        self.operation.setToolTip("Read, Edit and Write trigger discovery; Bash, Grep and Glob do not")
        self.path_edit = QLineEdit(self)
        self.path_edit.setPlaceholderText("Or type a path (relative to the project), then Enter")
        self.path_edit.returnPressed.connect(self._add_typed)
        self.add_button = QPushButton("&Add step", self)
        self.add_button.setToolTip("Simulate the tool on the typed path, or on the files selected in the map")
        self.add_button.clicked.connect(self._add_clicked)
        self.suggestions = QListWidget(self)
        self.suggestions.setAccessibleName("Suggested next steps")
        self.suggestions.setWordWrap(True)
        self.suggestions.setMaximumHeight(84)
        self.suggestions.setToolTip("Steps that would change something now; double-click to add one")
        self.suggestions.itemActivated.connect(self._run_suggestion)
        self.back_button = QPushButton("Step &back", self)
        self.back_button.setToolTip("Take back the last step")
        self.back_button.clicked.connect(self.step_back)
        self.reset_button = QPushButton("&Reset", self)
        self.reset_button.setToolTip("Start the session again with no steps")
        self.reset_button.clicked.connect(self.reset)
        self.save_button = QPushButton("Save…", self)
        self.save_button.setToolTip("Save the steps as a scenario (JSON) that skillmanager simulate can replay")
        self.save_button.clicked.connect(self._save)
        self.load_button = QPushButton("Load…", self)
        self.load_button.setToolTip("Load a saved scenario and replay its steps")
        self.load_button.clicked.connect(self._load)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.timeline = QListWidget(self)
        self.timeline.setAccessibleName("Simulated steps")
        self.timeline.setWordWrap(True)
        self.timeline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.timeline.currentRowChanged.connect(self._show_step)
        self.step_view = QTextBrowser(self)
        self.listing_view = QTextBrowser(self)
        self.details = QTabWidget(self)
        self.details.setDocumentMode(True)
        self.details.addTab(self.step_view, "What happened")
        self.details.addTab(self.listing_view, "Listing before / after")

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Project map</b>", left))
        legend = QLabel("[n skills]: the folder holds skills · dimmed: git ignores it (hover for the rule) · "
                        "italic: touching the file activates a skill", left)
        legend.setWordWrap(True)
        left_layout.addWidget(legend)
        left_layout.addWidget(self.files, 1)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.operation)
        row.addWidget(self.add_button)
        left_layout.addLayout(row)
        left_layout.addWidget(QLabel("<b>Suggested next steps</b>", left))
        left_layout.addWidget(self.suggestions)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("<b>Timeline</b>", right))
        buttons.addStretch(1)
        for button in (self.back_button, self.reset_button, self.save_button, self.load_button):
            buttons.addWidget(button)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.status)
        steps_split = QSplitter(Qt.Orientation.Vertical, right)
        steps_split.addWidget(self.timeline)
        steps_split.addWidget(self.details)
        steps_split.setStretchFactor(0, 1)
        steps_split.setStretchFactor(1, 3)
        steps_split.setSizes([140, 420])  # a timeline line per step; the details get the room
        steps_split.setChildrenCollapsible(False)
        right_layout.addWidget(steps_split, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)
        self._root: str | None = None
        context.snapshot_changed.connect(self.apply_snapshot)
        self._update_buttons()

    # --- workspace -----------------------------------------------------------------------------
    def apply_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.partial:
            return  # only rows changed; the full snapshot follows
        idle = self._stale is not None if self.session is None else not self.session.steps
        if snapshot.changed_rows is not None and not self.isVisible() and idle and not self.busy:
            self._stale = snapshot  # a file edit while another page is shown and nothing simulated: on show
            self.session = None  # it holds the old registry; a new one is made on show
            return
        self._stale = None
        listing = snapshot.listing
        self._startup_listing = listing.text if listing is not None else ""
        cwd = str(getattr(snapshot.workspace, "cwd", "") or "")
        if cwd and cwd != self._root:
            self._root = cwd
            self.proxy.facts.clear()
            self.session = None
            self.timeline.clear()
            self.step_view.clear()
            root = self.fs_model.setRootPath(cwd)
            self.files.setRootIndex(self.proxy.mapFromSource(root))
        if snapshot.registry is not None:
            from skillmanager.core.simulator.project_map import ProjectMap

            registry = snapshot.registry
            self.map_runner.run("map", lambda: ProjectMap(registry), self._map_ready)
        if self.session is None:
            self._new_session(snapshot)
            self._publish()
        elif getattr(self.session, "registry", None) is not snapshot.registry:
            self._replay_on(snapshot)  # files changed: the same steps over the new registry
            self._publish()
        if not self.busy:
            self._show_listing()  # the start-up listing may have changed too
        self._update_buttons()

    def _map_ready(self, project_map) -> None:
        self.project_map = project_map  # the facts shown stay until the new map's replace them (no flicker)
        if self._root:
            self._load_facts(self._root)
        self._load_open_folders(self.files.rootIndex())
        self._suggest()

    def _load_open_folders(self, parent: QModelIndex) -> None:
        """Facts for every folder the map shows open (after a rescan)."""
        for row in range(self.proxy.rowCount(parent)):
            index = self.proxy.index(row, 0, parent)
            if self.files.isExpanded(index):
                self._load_facts(self.fs_model.filePath(self.proxy.mapToSource(index)))
                self._load_open_folders(index)

    def _load_facts(self, folder: str) -> None:
        project_map = self.project_map
        if project_map is None:
            return

        def store(facts) -> None:
            if project_map is not self.project_map:
                return  # a newer map (rescan) is on its way
            self.proxy.facts.update(facts)
            self.proxy.refresh_folder(folder)

        self.map_runner.run(("facts", folder), lambda: project_map.children(folder), store)

    def _suggest(self) -> None:
        project_map = self.project_map
        if project_map is None or self.session is None:
            return
        results = self.session.results if not self.busy else []

        def show(suggestions) -> None:
            self.suggestions.clear()
            for suggestion in suggestions:
                item = QListWidgetItem(suggestion.text)
                item.setData(STEP_ROLE, (suggestion.op, suggestion.path))
                self.suggestions.addItem(item)
            if not suggestions:
                self.suggestions.addItem("Nothing left to discover or activate from here.")

        self.map_runner.run("suggest", lambda: project_map.suggestions(results), show)

    def _replay_on(self, snapshot: Snapshot) -> None:
        steps = list(self.session.steps) if self.session is not None else []
        self._new_session(snapshot)
        if self.session is None or not steps:
            self.timeline.clear()
            return
        row = self.timeline.currentRow()
        session = self.session

        def replayed(results) -> None:
            self._fill_timeline(results)
            self.timeline.setCurrentRow(min(row, self.timeline.count() - 1))
            self._publish()

        self._in_background(lambda: session.replay(steps), replayed,
                            "Could not replay the steps on the changed files")

    # --- engine work runs on one worker thread, in order (the session is not shared with the UI) ----
    @property
    def busy(self) -> bool:
        return self._pending > 0

    def _in_background(self, work, done, failure: str) -> None:
        self._pending += 1
        self._serial += 1

        def finished(result) -> None:
            self._pending -= 1
            done(result)
            self._update_buttons()
            if not self.busy:
                self._suggest()
                self._show_listing()

        def failed(error: BaseException) -> None:
            self._pending -= 1
            self.status.setText(f"{failure}: {error}")
            self._update_buttons()

        self.steps_runner.run(("simulator", self._serial), work, finished, failed)
        self._update_buttons()

    def wait_idle(self, msecs: int = 20000) -> bool:
        """Spin the event loop until every queued step has been delivered (screenshots; tests use waitUntil)."""
        from PySide6.QtCore import QCoreApplication, QElapsedTimer

        clock = QElapsedTimer()
        clock.start()
        while self.busy and clock.elapsed() < msecs:
            self.steps_runner.wait(50)
            QCoreApplication.processEvents()
        return not self.busy

    def _new_session(self, snapshot: Snapshot) -> None:
        from skillmanager.core.simulator import session as module

        if snapshot.registry is None:
            self.session = None
            self.status.setText(f"Simulator not available: {snapshot.problems.get('registry', '')}")
            return
        try:
            self.session = module.Session(snapshot.registry)
        except Exception as error:  # noqa: BLE001
            self.session = None
            self.status.setText(f"Simulator not available: {error}")
            return
        self.status.setText(START_HINT)

    def _publish(self) -> None:
        """Tell the registry tree what the session has added so far (None: nothing simulated)."""
        additions = None
        if self.session is not None and self.session.results and not self.busy:
            from skillmanager.core.simulator.session_view import session_additions

            try:
                additions = session_additions(self.session)
            except Exception as error:  # noqa: BLE001 - the timeline still works without the tree overlay
                self.status.setText(f"Could not show the session in the tree: {error}")
        self.context.simulation_changed.emit(additions)

    def _update_buttons(self) -> None:
        enabled = self.session is not None and not self.busy
        steps = self.timeline.count() > 0
        self.add_button.setEnabled(enabled)
        self.save_button.setEnabled(enabled and steps)
        self.load_button.setEnabled(enabled)
        self.back_button.setEnabled(enabled and steps)
        self.reset_button.setEnabled(enabled and steps)

    # --- adding steps --------------------------------------------------------------------------
    def _selected_paths(self) -> list[Path]:
        return [Path(self.fs_model.filePath(self.proxy.mapToSource(index)))
                for index in self.files.selectionModel().selectedRows(0)]

    def _on_file_activated(self, index: QModelIndex) -> None:
        if not self.fs_model.isDir(self.proxy.mapToSource(index)):
            for path in self._selected_paths() or [Path(self.fs_model.filePath(self.proxy.mapToSource(index)))]:
                self.add_step(self.operation.currentText(), path)

    def _map_menu(self, position) -> None:
        index = self.files.indexAt(position)
        if not index.isValid() or self.fs_model.isDir(self.proxy.mapToSource(index)):
            return
        path = Path(self.fs_model.filePath(self.proxy.mapToSource(index)))
        menu = QMenu(self)
        for op in TRIGGER_OPS:
            action = QAction(f"{op} {path.name}", menu)
            action.triggered.connect(lambda _c=False, o=op: self.add_step(o, path))
            menu.addAction(action)
        menu.popup(self.files.viewport().mapToGlobal(position))
        self.context_menu = menu  # kept for tests and so that it is not collected while open

    def _add_typed(self) -> None:
        text = self.path_edit.text().strip()
        if not text:
            return
        op = self.operation.currentText()
        path = text if op not in TRIGGER_OPS or os.path.isabs(text) or not self._root else str(Path(self._root) / text)
        self.add_step(op, path)
        self.path_edit.clear()

    def _add_clicked(self) -> None:
        if self.path_edit.text().strip():
            self._add_typed()
            return
        paths = self._selected_paths()
        if not paths:
            self.status.setText("Select one or more files in the map, or type a path, first.")
            return
        for path in paths:
            self.add_step(self.operation.currentText(), path)

    def _run_suggestion(self, item: QListWidgetItem) -> None:
        data = item.data(STEP_ROLE)
        if data:
            self.add_step(data[0], Path(data[1]))

    def add_step(self, operation: str, path) -> None:
        """Queue one step; it runs on the simulator's worker thread and lands in the timeline in order."""
        if self.session is None:
            return
        session = self.session

        def added(result) -> None:
            self.last_result = result
            self._append(result)
            self.status.setText(f"{counted(self.timeline.count(), 'step')}. The registry shows what the session "
                                "added under its own “simulated” group.")
            self._publish()

        self._in_background(lambda: session.add_step(operation, str(path)), added,
                            "That step could not be simulated")

    def _append(self, result) -> None:
        from skillmanager.core.simulator.step_words import step_headline

        item = QListWidgetItem(step_headline(result, self._relative))
        item.setData(STEP_ROLE, result)
        self.timeline.addItem(item)
        self.timeline.setCurrentRow(self.timeline.count() - 1)

    def _fill_timeline(self, results) -> None:
        self.timeline.clear()
        for result in results:
            self._append(result)

    def _relative(self, path) -> str:
        try:
            return Path(path).relative_to(self._root).as_posix() if self._root else str(path)
        except ValueError:
            return str(path)

    def _show_step(self, row: int) -> None:
        item = self.timeline.item(row) if row >= 0 else None
        if item is None:
            self.step_view.setHtml(f"<p>{html.escape(START_HINT)}</p>")
            return
        self.step_view.setHtml(step_html(item.data(STEP_ROLE)))

    def _show_listing(self) -> None:
        from skillmanager.core.simulator.step_words import listing_before_after

        results = self.session.results if self.session is not None else []
        parts = listing_before_after(self._startup_listing, results)
        self.listing_parts = parts
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        shade = f"rgba({highlight.red()},{highlight.green()},{highlight.blue()},0.28)"
        out = ["<p>The start-up listing, then what each step added (highlighted), as the model has it now.</p>"]
        for part in parts:
            text = html.escape(part.text)
            if part.step is None:
                out.append(f"<pre style='white-space: pre-wrap'>{text}</pre>")
            else:
                out.append(f"<p><b>Added by step {part.step}</b></p><pre style='white-space: pre-wrap; "
                           f"background-color: {shade}'>{text}</pre>")
        self.listing_view.setHtml("".join(out))

    # --- the timeline --------------------------------------------------------------------------
    def step_back(self) -> None:
        if self.session is None or self.timeline.count() == 0:
            return
        self._in_background(self.session.undo, self._stepped_back, "Could not step back")

    def _stepped_back(self, _result) -> None:
        self.timeline.takeItem(self.timeline.count() - 1)
        self.timeline.setCurrentRow(self.timeline.count() - 1)
        self._update_buttons()
        self._publish()
        left = self.timeline.count()
        self.status.setText("Stepped back to a fresh start: nothing simulated." if left == 0 else
                            f"Stepped back: {counted(left, 'step')} left; the tree shows the session "
                            "as it is now.")

    def reset(self) -> None:
        if self.session is None:
            return
        session = self.session

        def done(_results) -> None:
            self.timeline.clear()
            self.last_result = None
            self._publish()
            self.status.setText("Reset: a fresh session with no steps. " + START_HINT)

        self._in_background(lambda: session.replay([]), done, "Could not reset")

    # --- scenarios -----------------------------------------------------------------------------
    def _save(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Save scenario", "scenario.json", "Scenario (*.json)")
        if name:
            self.save_scenario(Path(name))

    def save_scenario(self, path: Path) -> None:
        from skillmanager.core.edit.atomic_write import write_atomic

        data = json.dumps(self.session.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            write_atomic(path, data.encode("utf-8"), create=True)
        except OSError as error:
            self.status.setText(f"Could not save the scenario: {error}")
            return
        self.status.setText(f"Saved {counted(self.timeline.count(), 'step')} to {path}")

    def _load(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Load scenario", "", "Scenario (*.json)")
        if name:
            self.load_scenario(Path(name))

    def load_scenario(self, path: Path) -> None:
        from skillmanager.core.simulator import session as module

        if self.context.registry is None:
            self.status.setText("Simulator not available: no workspace is loaded")
            return
        registry = self.context.registry

        def load():
            scenario = module.Scenario.load(path)
            session = module.Session(registry)
            session.replay(scenario.steps)
            return session

        def loaded(session) -> None:
            self.session = session
            self._fill_timeline(session.results)
            self.status.setText(f"Loaded and replayed {counted(self.timeline.count(), 'step')} from {path.name}")
            self._publish()

        self._in_background(load, loaded, f"Could not load {path.name}")


def step_html(result) -> str:
    """Core's sentences for a step (step_words.step_sentences), then the exact text the model received."""
    from skillmanager.core.simulator.step_words import step_sentences

    parts = ["<h3>What happened</h3><ul>"]
    parts += [f"<li>{html.escape(s.text)}</li>" for s in step_sentences(result)]
    parts.append("</ul>")
    where = {"tool_result": " (appended to the tool result)", "system": " (as system messages)"}.get(
        result.placement or "", "")
    parts.append(f"<h3>What the model received{where}</h3>")
    parts.append(f"<pre style='white-space: pre-wrap'>{html.escape(result.model_text)}</pre>" if result.model_text
                 else "<p>Nothing: this step added no text to the conversation.</p>")
    return "".join(parts)
