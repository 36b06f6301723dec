"""Simulator tab: pick project files and a tool, see what each step discovers or activates.

The project tree is a QFileSystemModel (it lists a folder only when it is expanded) behind a proxy
that refuses to open heavy dirs (node_modules, .git, …) and dirs git ignores, so they are never
scanned; the ignore decision and its rule come from the engine.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from PySide6.QtCore import QDir, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QFileSystemModel, QHBoxLayout, QLabel,
                               QListWidget, QListWidgetItem, QPushButton, QSplitter, QTextBrowser, QTreeView,
                               QVBoxLayout, QWidget)

from skillmanager.gui.context import AppContext
from skillmanager.core.load.watch_targets import HEAVY_DIRS
from skillmanager.core.simulator.session import StepResult
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.tasks import TaskRunner
from skillmanager.gui.plural import counted

OPERATIONS = ("Read", "Edit", "Write", "Bash", "Grep", "Glob")


class LazyProjectProxy(QSortFilterProxyModel):
    """Heavy and ignored dirs show as closed leaves (never fetched); the reason is in the tooltip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.ignore_reason = None  # callable(Path) -> str | None, from the engine when available
        self._reasons: dict[str, str | None] = {}

    def reset_reasons(self) -> None:
        self._reasons.clear()

    def _path(self, proxy_index: QModelIndex) -> Path:
        source = self.mapToSource(proxy_index)
        return Path(self.sourceModel().filePath(source))

    def skipped_reason(self, proxy_index: QModelIndex) -> str | None:
        if not proxy_index.isValid():
            return None
        source = self.mapToSource(proxy_index)
        model: QFileSystemModel = self.sourceModel()
        if not model.isDir(source):
            return None
        path = Path(model.filePath(source))
        key = str(path)
        if key not in self._reasons:
            reason = None
            if path.name in HEAVY_DIRS:
                reason = f"{path.name}: heavy folder, not scanned"
            if self.ignore_reason is not None:
                try:
                    rule = self.ignore_reason(path)
                except Exception:  # noqa: BLE001 - fail open, like git check-ignore outside a repo
                    rule = None
                if rule:
                    reason = f"ignored by {rule}" + (" — not scanned" if reason is None else f"; {reason}")
            self._reasons[key] = reason
        return self._reasons[key]

    def hasChildren(self, parent: QModelIndex = QModelIndex()) -> bool:
        if self.skipped_reason(parent):
            return False
        return super().hasChildren(parent)

    def canFetchMore(self, parent: QModelIndex) -> bool:
        if self.skipped_reason(parent):
            return False
        return super().canFetchMore(parent)

    def fetchMore(self, parent: QModelIndex) -> None:
        if self.skipped_reason(parent):
            return
        super().fetchMore(parent)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if role in (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole) and index.column() == 0:
            reason = self.skipped_reason(index)
            if reason:
                return QBrush(QColor("#8a8f98")) if role == Qt.ItemDataRole.ForegroundRole else reason
        return super().data(index, role)


class SimulatorPanel(QWidget):
    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.session = None
        self.last_result = None  # the newest step's result (core.session.StepResult)
        self.steps_runner = TaskRunner(self, threads=1)  # one worker: steps run in order on one session
        self._pending = 0
        self._serial = 0
        self.fs_model = QFileSystemModel(self)
        self.fs_model.setFilter(QDir.Filter.AllEntries | QDir.Filter.NoDotAndDotDot | QDir.Filter.Hidden)
        self.fs_model.setReadOnly(True)
        self.proxy = LazyProjectProxy(self)
        self.proxy.setSourceModel(self.fs_model)
        self.files = QTreeView(self)
        self.files.setModel(self.proxy)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for column in (1, 2, 3):
            self.files.hideColumn(column)
        self.files.setHeaderHidden(True)
        self.files.setToolTip("Enter or double-click a file adds a step with the chosen tool")
        self.files.setAccessibleName("Project files")
        self.files.activated.connect(self._on_file_activated)
        self.operation = QComboBox(self)
        self.operation.addItems(OPERATIONS)
        self.operation.setToolTip("Read, Edit and Write trigger discovery; Bash, Grep and Glob do not")
        self.add_button = QPushButton("&Add step", self)
        self.add_button.setToolTip("Simulate the tool on the selected files (Enter in the file tree)")
        self.add_button.clicked.connect(self._add_selected)
        self.back_button = QPushButton("Step &back", self)
        self.back_button.setToolTip("Undo the last simulated step")
        self.back_button.clicked.connect(self.step_back)
        self.save_button = QPushButton("Save…", self)
        self.save_button.clicked.connect(self._save)
        self.load_button = QPushButton("Load…", self)
        self.load_button.clicked.connect(self._load)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.timeline = QListWidget(self)
        self.timeline.setAccessibleName("Simulated steps")
        self.timeline.setWordWrap(True)  # long paths wrap instead of hiding what the step did
        self.timeline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.timeline.currentRowChanged.connect(self._show_step)
        self.step_view = QTextBrowser(self)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Project files</b> — pick files, then a tool", left))
        left_layout.addWidget(self.files, 1)
        row = QHBoxLayout()
        row.addWidget(self.operation)
        row.addWidget(self.add_button)
        left_layout.addLayout(row)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("<b>Timeline</b>", right))
        buttons.addStretch(1)
        for button in (self.back_button, self.save_button, self.load_button):
            buttons.addWidget(button)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.status)
        steps_split = QSplitter(Qt.Orientation.Vertical, right)
        steps_split.addWidget(self.timeline)
        steps_split.addWidget(self.step_view)
        steps_split.setStretchFactor(1, 3)
        right_layout.addWidget(steps_split, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._root: str | None = None
        context.snapshot_changed.connect(self.apply_snapshot)
        self._update_buttons()

    # --- workspace -----------------------------------------------------------------------------
    def apply_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.partial:
            return  # only rows changed; the full snapshot follows
        cwd = str(getattr(snapshot.workspace, "cwd", "") or "")
        if cwd and cwd != self._root:
            self._root = cwd
            self.proxy.reset_reasons()
            self.proxy.ignore_reason = _ignore_reason_function(snapshot.workspace)
            root = self.fs_model.setRootPath(cwd)
            self.files.setRootIndex(self.proxy.mapFromSource(root))
            self.session = None
            self.timeline.clear()
            self.step_view.clear()
        if self.session is None:
            self._new_session(snapshot)
            self._publish()
        elif getattr(self.session, "registry", None) is not snapshot.registry:
            self._replay_on(snapshot)  # files changed: the same steps over the new registry
            self._publish()
        self._update_buttons()

    def _replay_on(self, snapshot: Snapshot) -> None:
        steps = list(self.session.steps) if self.session is not None else []
        self._new_session(snapshot)
        if self.session is None or not steps:
            self.timeline.clear()
            return
        row = self.timeline.currentRow()
        session = self.session

        def replayed(results) -> None:
            self.timeline.clear()
            for result in results:
                self._append(result.step.op, Path(result.step.path), result)
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
        self.status.setText("Pick a file and a tool, then Add step. Steps build on each other, like one session.")

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

    def _on_file_activated(self, index: QModelIndex) -> None:
        if not self.fs_model.isDir(self.proxy.mapToSource(index)):
            self._add_selected()

    def _update_buttons(self) -> None:
        enabled = self.session is not None and not self.busy
        self.add_button.setEnabled(enabled)
        self.save_button.setEnabled(enabled and self.timeline.count() > 0)
        self.load_button.setEnabled(enabled)
        self.back_button.setEnabled(enabled and self.timeline.count() > 0)

    # --- steps ---------------------------------------------------------------------------------
    def _add_selected(self) -> None:
        paths = []
        for index in self.files.selectionModel().selectedRows(0):
            paths.append(Path(self.fs_model.filePath(self.proxy.mapToSource(index))))
        if not paths:
            self.status.setText("Select one or more files in the project tree first.")
            return
        for path in paths:
            self.add_step(self.operation.currentText(), path)

    def add_step(self, operation: str, path: Path) -> None:
        """Queue one step; it runs on the simulator's worker thread and lands in the timeline in order."""
        if self.session is None:
            return
        session = self.session

        def added(result) -> None:
            self.last_result = result
            self._append(operation, Path(path), result)
            self._publish()

        self._in_background(lambda: session.add_step(operation, str(path)), added,
                            "That step could not be simulated")

    def _append(self, operation: str, path: Path, result) -> None:
        new = [n for n in result.new_skills if n.how == "discovered"]
        discovered, activated = result.discovered_dirs, result.activated
        summary = []
        if new:
            summary.append(f"{counted(len(new), 'skill')} discovered")
        elif discovered:
            summary.append(f"{counted(len(discovered), 'skills folder')} found")
        if activated:
            summary.append(f"{len(activated)} activated")
        label = f"{self.timeline.count() + 1}. {operation} {self._relative(path)}"
        label += f" — {', '.join(summary)}" if summary else " — nothing new"
        item = QListWidgetItem(label)
        item.setData(Qt.ItemDataRole.UserRole, result)
        self.timeline.addItem(item)
        self.timeline.setCurrentRow(self.timeline.count() - 1)

    def _relative(self, path: Path) -> str:
        try:
            return str(Path(path).relative_to(self._root)) if self._root else str(path)
        except ValueError:
            return str(path)

    def _show_step(self, row: int) -> None:
        item = self.timeline.item(row) if row >= 0 else None
        if item is None:
            self.step_view.clear()
            return
        self.step_view.setHtml(step_html(item.data(Qt.ItemDataRole.UserRole), self._relative))

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

    # --- scenarios -----------------------------------------------------------------------------
    def _save(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Save scenario", "scenario.json", "Scenario (*.json)")
        if name:
            self.save_scenario(Path(name))

    def save_scenario(self, path: Path) -> None:
        data = self.session.to_json()
        Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False) if not isinstance(data, str) else data,
                              encoding="utf-8")
        self.status.setText(f"Saved {self.timeline.count()} steps to {path}")

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
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return module.Session.from_json(data, registry)

        def loaded(session) -> None:
            self.session = session
            self.timeline.clear()
            for result in session.results:
                self._append(result.step.op, Path(result.step.path), result)
            self.status.setText(f"Loaded {self.timeline.count()} steps from {path.name}")
            self._publish()

        self._in_background(load, loaded, f"Could not load {path.name}")
        self._publish()


def _ignore_reason_function(workspace):
    """Path -> "file:line (pattern)" when git would ignore it, using the engine's ignore rules."""
    from skillmanager.core.simulator import ignore_rules as module

    from skillmanager.core.load import sources

    cwd = Path(workspace.cwd)
    root = sources.find_git_root(cwd) or cwd
    try:
        oracle = module.IgnoreOracle(Path(root))
    except Exception:  # noqa: BLE001
        return None

    def reason(path: Path) -> str | None:
        decision = oracle.check(str(path), True)
        if not decision.ignored:
            return None
        where = f"{decision.source_file}:{decision.line_no}" if decision.source_file else "an ignore rule"
        return where + (f" ({decision.pattern})" if decision.pattern else "")

    return reason


def step_html(result: StepResult, relative) -> str:
    """The engine's own plain account of a step (core.session.StepResult.summary_lines) and the model's text."""
    parts = ["<h3>What happened</h3><ul>"]
    parts += [f"<li>{html.escape(line)}</li>" for line in result.summary_lines()]
    parts.append("</ul>")
    for diagnostic in result.diagnostics:
        parts.append(f"<p><b>{diagnostic.severity.value}</b>: {html.escape(diagnostic.message)}</p>")
    where = {"tool_result": " (appended to the tool result)", "system": " (as system messages)"}.get(
        result.placement or "", "")
    parts.append(f"<h3>What the model received{where}</h3>")
    parts.append(f"<pre style='white-space: pre-wrap'>{html.escape(result.model_text)}</pre>" if result.model_text
                 else "<p>Nothing new.</p>")
    return "".join(parts)
