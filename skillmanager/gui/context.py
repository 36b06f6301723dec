"""The one object every widget receives (git-cola style): workspace, snapshot, selection, signals.

Scans run on a QThreadPool worker; results come back through queued signals and are tagged
with a generation number so a slow, stale scan never overwrites a newer one.
"""
from __future__ import annotations

import traceback
from typing import Hashable

from PySide6.QtCore import QObject, QRunnable, QSettings, QThreadPool, Signal

from skillmanager.core.model import Skill
from skillmanager.gui.engine import (Snapshot, WorkspaceSpec, refresh_skill_files, reloadable_paths, scan,
                                     skill_identity)


class _ScanSignals(QObject):
    progress = Signal(int, object)  # generation, whatever the engine reported
    partial = Signal(int, object)  # generation, Snapshot whose rows are current but listing is not yet
    finished = Signal(int, object)  # generation, Snapshot
    failed = Signal(int, str)  # generation, message


class ScanWorker(QRunnable):
    def __init__(self, target, generation: int):
        super().__init__()
        self.target = target
        self.generation = generation
        self.signals = _ScanSignals()
        self.setAutoDelete(True)

    def run(self) -> None:  # worker thread: no widget access here
        signals = self.signals
        try:
            snapshot = scan(self.target, progress=lambda *a, **k: signals.progress.emit(self.generation, (a, k)),
                            generation=self.generation)
        except Exception as error:  # noqa: BLE001 - reported in the status bar, the app keeps running
            signals.failed.emit(self.generation, f"{error}\n{traceback.format_exc(limit=4)}")
            return
        signals.finished.emit(self.generation, snapshot)


class RefreshWorker(ScanWorker):
    """Re-reads a few edited SKILL.md files; falls back to a full scan when the engine says so."""

    def __init__(self, snapshot: Snapshot, paths, target, generation: int):
        super().__init__(target, generation)
        self.snapshot, self.paths = snapshot, paths

    def run(self) -> None:
        signals = self.signals
        try:
            result = refresh_skill_files(self.snapshot, self.paths, self.generation,
                                         on_partial=lambda snap: signals.partial.emit(self.generation, snap))
        except Exception:  # noqa: BLE001 - an in-place reload that fails falls back to a full scan
            result = None
        if result is None:
            super().run()
            return
        signals.finished.emit(self.generation, result)


class AppContext(QObject):
    snapshot_changed = Signal(object)  # Snapshot
    selection_changed = Signal(object)  # Skill | None
    scan_started = Signal()
    scan_progress = Signal(str)
    scan_failed = Signal(str)
    status_message = Signal(str)
    spec_changed = Signal(object)  # WorkspaceSpec

    def __init__(self, settings: QSettings | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.settings = settings or QSettings()
        self.spec: WorkspaceSpec | None = None
        self.workspace = None  # a prebuilt core Workspace (e.g. the demo), used until the spec changes
        self.snapshot: Snapshot | None = None
        self.selected: Hashable | None = None
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # scans are serialised; the generation drops stale ones
        self._generation = 0
        self._workers: dict[int, ScanWorker] = {}
        self.scanning = False

    # --- workspace -----------------------------------------------------------------------------
    def set_workspace(self, workspace) -> None:
        self.workspace = workspace
        self.spec = WorkspaceSpec.from_workspace(workspace)
        self.spec_changed.emit(self.spec)
        self.rescan()

    def set_spec(self, spec: WorkspaceSpec) -> None:
        self.spec = spec
        self.workspace = None
        self.spec_changed.emit(spec)
        self.rescan()

    @property
    def registry(self):
        return self.snapshot.registry if self.snapshot else None

    @property
    def profile_name(self) -> str:
        return self.spec.profile if self.spec else "current"

    # --- scanning ------------------------------------------------------------------------------
    def rescan(self) -> int:
        target = self.workspace if self.workspace is not None else self.spec
        if target is None:
            return self._generation
        self._generation += 1
        self._start(ScanWorker(target, self._generation))  # the dict keeps the signal holder alive
        return self._generation

    def refresh(self, paths) -> int:
        """Files changed on disk: reload just those skills when possible, else rescan (off the UI thread)."""
        target = self.workspace if self.workspace is not None else self.spec
        reloadable = None if self.scanning else reloadable_paths(self.snapshot, paths)
        if target is None or not reloadable:
            return self.rescan()
        self._generation += 1
        worker = RefreshWorker(self.snapshot, reloadable, target, self._generation)
        self._start(worker)
        return self._generation

    def _start(self, worker: ScanWorker) -> None:
        worker.signals.finished.connect(self._on_finished)
        worker.signals.failed.connect(self._on_failed)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.partial.connect(self._on_partial)
        self._workers[worker.generation] = worker
        self.scanning = True
        self.scan_started.emit()
        self.pool.start(worker)

    def _on_partial(self, generation: int, snapshot: Snapshot) -> None:
        if generation != self._generation:
            return
        self.snapshot = snapshot
        self.snapshot_changed.emit(snapshot)

    def _on_progress(self, generation: int, payload) -> None:
        if generation != self._generation:
            return
        args, kwargs = payload
        text = " ".join(str(a) for a in args if a is not None) or " ".join(f"{v}" for v in kwargs.values())
        self.scan_progress.emit(text)

    def _on_finished(self, generation: int, snapshot: Snapshot) -> None:
        self._workers.pop(generation, None)
        if generation != self._generation:
            return  # a newer scan is on its way
        self.scanning = False
        if self.workspace is None:
            self.workspace = snapshot.workspace
        self.snapshot = snapshot
        self.snapshot_changed.emit(snapshot)
        if self.selected is not None:
            self.selection_changed.emit(self.selected_skill())

    def _on_failed(self, generation: int, message: str) -> None:
        self._workers.pop(generation, None)
        if generation != self._generation:
            return
        self.scanning = False
        self.scan_failed.emit(message)

    def wait_for_scans(self, msecs: int = 10000) -> bool:
        return self.pool.waitForDone(msecs)

    # --- selection -----------------------------------------------------------------------------
    def select(self, skill: Skill | None) -> None:
        identity = skill_identity(skill) if skill is not None else None
        if identity == self.selected:
            return
        self.selected = identity
        self.selection_changed.emit(skill)

    def selected_skill(self) -> Skill | None:
        if self.selected is None or self.snapshot is None:
            return None
        return self.snapshot.find(self.selected)
