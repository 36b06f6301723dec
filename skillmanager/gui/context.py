"""The one object every widget receives (git-cola style): workspace, snapshot, selection, signals.

Scans run on a QThreadPool worker; results come back through queued signals and are tagged
with a generation number so a slow, stale scan never overwrites a newer one. A file change
takes the incremental path (core.incremental): the rows update first, the listing follows.
"""
from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Hashable

from PySide6.QtCore import QObject, QRunnable, QSettings, QThreadPool, Signal

from skillmanager.core.collector import keep_frozen, release_frozen
from skillmanager.core.model import Skill
from skillmanager.core.versions.profiles import DEFAULT_PROFILE, default_profile
from skillmanager.gui.engine import Snapshot, WorkspaceSpec, refresh_incremental, scan, skill_identity
from skillmanager.gui.tasks import TaskRunner


class Cancelled(Exception):
    """Raised inside a worker (from its progress callback) when the app is shutting down."""


class _ScanSignals(QObject):
    progress = Signal(int, object)  # generation, whatever the engine reported
    rows = Signal(int, object, object)  # generation, Snapshot (rows current, listing not yet), RegistryDelta
    finished = Signal(int, object)  # generation, Snapshot
    failed = Signal(int, str)  # generation, message
    unchanged = Signal(int)  # generation: nothing the registry reads changed


class ScanWorker(QRunnable):
    def __init__(self, target, generation: int, cancel: threading.Event):
        super().__init__()
        self.target = target
        self.generation = generation
        self.cancel = cancel
        self.signals = _ScanSignals()
        self.setAutoDelete(True)

    def emit(self, signal_name: str, *args) -> None:
        """Emit unless the app is shutting down (the receiver may already be gone)."""
        if self.cancel.is_set():
            return
        try:
            getattr(self.signals, signal_name).emit(*args)
        except RuntimeError:  # the signal holder was deleted under us: nobody is listening any more
            pass

    def _progress(self, *args, **kwargs) -> None:
        if self.cancel.is_set():
            raise Cancelled()
        self.emit("progress", self.generation, (args, kwargs))

    def run(self) -> None:  # worker thread: no widget access here
        try:
            snapshot = scan(self.target, progress=self._progress, generation=self.generation)
        except Cancelled:
            return
        except Exception as error:  # noqa: BLE001 - reported in the status bar, the app keeps running
            self.emit("failed", self.generation, f"{error}\n{traceback.format_exc(limit=4)}")
            return
        self.emit("finished", self.generation, snapshot)


class RefreshWorker(ScanWorker):
    """Re-reads the changed files (core.incremental); a full reload happens there when needed."""

    ROWS_WAIT_S = 0.25  # longest wait for the UI thread to show the rows before the listing is rebuilt

    def __init__(self, snapshot: Snapshot, paths, target, generation: int, cancel: threading.Event):
        super().__init__(target, generation, cancel)
        self.snapshot, self.paths = snapshot, paths
        self.rows_shown = threading.Event()  # set by the context once the rows are applied

    def _rows(self, partial: Snapshot, delta) -> None:
        """The rows first: the listing waits until the UI thread has applied them (else both compete for the
        GIL and the rows appear only when the listing is done)."""
        self.emit("rows", self.generation, partial, delta)
        if not self.cancel.is_set():
            self.rows_shown.wait(self.ROWS_WAIT_S)

    def run(self) -> None:
        snapshot, self.snapshot = self.snapshot, None  # a finished worker the context still lists keeps no skills
        try:
            result = refresh_incremental(snapshot, self.paths, self.generation, on_rows=self._rows)
        except Exception:  # noqa: BLE001 - an incremental refresh that fails falls back to a full scan
            super().run()
            return
        if result is None:
            self.emit("unchanged", self.generation)
            return
        self.emit("finished", self.generation, result)


class _ChecksSignals(QObject):
    done = Signal(int, object)  # generation, {identity: SkillChecks}
    progress = Signal(int, int, int)  # generation, skill files checked, skill files in all


class ChecksWorker(QRunnable):
    """Audit + lint of every skill file (core.skill_checks, cached per file stamp), off the UI thread.

    Files the cache holds are stat'ed here (a hit costs a stat of the folder); the others go in batches to the
    checks processes (core.checks.check_process.CheckPool) when the pass is large or they already run: they check
    on cores of their own, so this thread mostly waits on their answers and the UI thread keeps the GIL. A batch
    whose child fails goes to another child; without any (they could not start, or they all stopped) the files are
    checked here, paced by SLICE."""

    def __init__(self, snapshot: Snapshot, cache, generation: int, cancel: threading.Event,
                 quiet_until: Callable[[], float] = lambda: 0.0, earlier: dict | None = None,
                 recheck: frozenset = frozenset(), pool=None):
        super().__init__()
        self.snapshot, self.cache, self.generation, self.cancel = snapshot, cache, generation, cancel
        self.quiet_until = quiet_until  # monotonic time until which the user is typing: the worker waits
        # the complete results of the snapshot this one refreshed (or of this same snapshot), when only its
        # `changed_rows` and `recheck` differ: every other row keeps its result (a one-file edit re-checks a
        # few files, not 5,000 folders)
        self.earlier = earlier
        self.recheck = recheck  # rows whose folders changed in files the registry does not read (scripts…)
        self.pool = pool  # core.checks.check_process.CheckPool, or None: every file is checked here
        self.stale = threading.Event()  # set when a newer pass starts: this one stops (its results are dropped)
        self.signals = _ChecksSignals()

    SLICE = 0.004  # s of work in this process, then as long a pause: the UI thread keeps the GIL most of the time
    BATCH = 400  # skills per progressive update (badges appear while a big workspace is checked)
    PROGRESS_EVERY = 100  # skill files between two progress reports
    PROCESS_FROM = 64  # files the cache does not hold from which a pass starts the processes (each takes ~0.2 s)
    SEND = 32  # files per request to a process (~20 ms of its work)
    IN_FLIGHT = 3  # requests each running process holds at once: it always has the next one

    def run(self) -> None:
        try:
            self._check_all()
        finally:
            self.snapshot = None  # the context keeps the last few workers: they must not keep old skills alive

    def _check_all(self) -> None:
        registry = self.snapshot.registry
        self._profile = getattr(registry, "profile", None) or default_profile()
        self._results: dict = {}
        skills = [skill for skill in self.snapshot.skills if skill.path is not None]
        self._total = len(skills)
        changed = (self.snapshot.changed_rows or frozenset()) | self.recheck
        if self.earlier is not None:
            earlier, every, skills = self.earlier, skills, []
            for skill in every:
                identity = skill_identity(skill)
                if identity in changed or identity not in earlier:
                    skills.append(skill)
                else:
                    self._results[identity] = earlier[identity]
        self._checked = self._shown = len(self._results)
        if not self._results:
            self._report(0, self._total)  # a few files after an edit: no "Checking 4,998 of 5,000…" flash
        self._busy = 0.0
        # the processes are started once this pass has PROCESS_FROM files the cache does not hold (until then they
        # wait in `batch`); a pass with fewer checks them here, unless the processes run already
        pool = self.pool if self.pool is not None and self.pool.failed is None else None
        started = pool is not None and pool.running > 0
        batch: list = []  # (identity, key, skill) not sent yet
        in_flight: dict = {}  # ticket -> the batch a process holds
        for skill in skills:
            if self._stopped():
                self._settle(pool if started else None, in_flight)
                return
            self._wait_while_typing()
            begun = time.perf_counter()
            identity = skill_identity(skill)
            key = self.cache.key(skill.path, kind=skill.kind, name=skill.name, profile=self._profile,
                                 known=skill.diagnostics)
            result, prepared = self.cache.lookup(key, skill.path)  # a stat of the folder when the cache holds it
            if result is not None:
                self._add(identity, result)
            elif pool is not None:
                batch.append((identity, key, skill))
                if not started and len(batch) >= self.PROCESS_FROM:
                    started = pool.start()
                    if not started:
                        pool = None
                        self._check_instead(in_flight, batch)
                        batch = []
                if started and len(batch) >= self.SEND:
                    pool, batch = self._send_all(pool, batch, in_flight), []
                    started = pool is not None
            else:
                self._check_here(identity, key, skill, prepared)
            self._pace(begun)
            while started and in_flight and len(in_flight) >= self.IN_FLIGHT * pool.running:
                pool = self._receive(pool, in_flight)
                started = pool is not None
        if batch:
            if started:
                pool = self._send_all(pool, batch, in_flight)
            else:  # a few files, or the processes failed after these were set aside for them
                self._check_instead(in_flight, batch)
        while in_flight:
            if self._stopped():
                self._settle(pool, in_flight)
                return
            self._wait_while_typing()
            pool = self._receive(pool, in_flight)
        if self._stopped():
            return
        self._emit(self._results)
        self._report(self._total, self._total)

    def _stopped(self) -> bool:
        return self.cancel.is_set() or self.stale.is_set()

    def _wait_while_typing(self) -> None:
        while time.monotonic() < self.quiet_until() and not self._stopped():
            # the UI thread is answering a keystroke: every Python call it makes through Qt would
            # otherwise wait for the GIL behind this thread (a 5,000-row filter makes thousands)
            time.sleep(0.02)

    def _pace(self, begun: float) -> None:
        """Count this thread's work since `begun`; after SLICE of it, pause as long (a cache hit is a stat; a file
        checked here reads and scans a skill folder)."""
        self._busy += time.perf_counter() - begun
        if self._busy > self.SLICE:
            time.sleep(self.SLICE)
            self._busy = 0.0

    def _send_all(self, pool, batch: list, in_flight: dict):
        """`batch` to the processes in requests of SEND files; None when none takes them any more (what they held
        is checked here)."""
        from skillmanager.core.checks.check_process import CheckProcessError

        for first in range(0, len(batch), self.SEND):
            part = batch[first:first + self.SEND]
            items = [(str(skill.path), skill.kind, skill.name, tuple(skill.diagnostics)) for _, _, skill in part]
            try:
                ticket = pool.send(self._profile, items)
            except CheckProcessError:
                self._check_instead(in_flight, batch[first:])
                return None
            in_flight[ticket] = part
        return pool

    def _receive(self, pool, in_flight: dict):
        """The next answer of any process, stored and counted; a batch its process failed to answer goes to another
        (or, without any, is checked here with the rest: None)."""
        from skillmanager.core.checks.check_process import CheckProcessError

        try:
            ticket, answer = pool.receive()
        except CheckProcessError:  # nothing is owed: not one of these batches can come back
            self._check_instead(in_flight, [])
            return None
        part = in_flight.pop(ticket, None)
        if part is None:  # a batch _check_instead already took
            return pool
        if answer is None:
            return self._send_all(pool, part, in_flight)
        for identity, result in self._store_answer(part, answer):
            self._add(identity, result)
        return pool

    def _store_answer(self, batch: list, answer: list) -> list:
        """A process's answer to `batch` stored in the cache: [(identity, SkillChecks)] in the batch's order."""
        shown = []
        for (identity, key, _skill), (stamp, result) in zip(batch, answer):
            self.cache.store(key, stamp, result)
            shown.append((identity, result))
        return shown

    def _check_instead(self, in_flight: dict, batch: list) -> None:
        """Files no process will check (every process failed while they held `in_flight`, or this pass has too few
        files to start them): checked here. An answer that still comes for one of them is dropped (_receive)."""
        pending = [entry for sent in in_flight.values() for entry in sent] + batch
        in_flight.clear()
        for identity, key, skill in pending:
            if self._stopped():
                return
            self._wait_while_typing()
            begun = time.perf_counter()
            self._check_here(identity, key, skill)
            self._pace(begun)

    def _settle(self, pool, in_flight: dict) -> None:
        """A stopped pass takes the answers the processes still owe it (the next pass must not wait behind them);
        they are cached, not shown (a lost batch is left to the next pass). At shutdown the processes are closed
        and this ends at once."""
        from skillmanager.core.checks.check_process import CheckProcessError

        while pool is not None and in_flight and not self.cancel.is_set():
            try:
                ticket, answer = pool.receive()
            except CheckProcessError:
                return
            part = in_flight.pop(ticket, None)
            if part is not None and answer is not None:
                self._store_answer(part, answer)

    def _check_here(self, identity, key, skill, prepared=None) -> None:
        """`prepared`: the walk a stale cache entry was found by (not walked again)."""
        from skillmanager.core.checks.skill_checks import checked

        try:
            stamp, result = checked(skill.path, kind=skill.kind, name=skill.name, profile=self._profile,
                                    known=skill.diagnostics, prepared=prepared)
        except Exception:  # noqa: BLE001 - check_skill never raises; a stat race must not stop the rest
            self._add(identity, None)
            return
        self.cache.store(key, stamp, result)
        self._add(identity, result)

    def _add(self, identity, result) -> None:
        """One more file checked (None: it could not be): progress every PROGRESS_EVERY, results every BATCH."""
        if result is not None:
            self._results[identity] = result
        self._checked += 1
        if self._checked % self.PROGRESS_EVERY == 0 and self._checked < self._total:
            self._report(self._checked, self._total)
        if self._checked - self._shown >= self.BATCH:
            self._shown = self._checked
            self._emit(dict(self._results))

    def _report(self, checked: int, total: int) -> None:
        try:
            self.signals.progress.emit(self.generation, checked, total)
        except RuntimeError:
            pass

    def _emit(self, results: dict) -> None:
        try:
            self.signals.done.emit(self.generation, results)
        except RuntimeError:
            pass


class AppContext(QObject):
    simulation_changed = Signal(object)  # core.session_view.SessionAdditions | None (the simulator's session)
    checks_changed = Signal(object)  # {identity: SkillChecks} (audit + lint per skill file)
    checks_progress = Signal(int, int)  # skill files checked, skill files in all (equal: done)
    snapshot_changed = Signal(object)  # Snapshot
    rows_changed = Signal(object, object)  # Snapshot whose listing is not rebuilt yet, RegistryDelta
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
        self._cancel = threading.Event()
        self.scanning = False
        self.own_writes: dict[str, str | None] = {}  # path -> sha256 of what we wrote (None: we removed it)
        self.ignored_echoes = 0  # watcher events recognised as our own writes (tests read this)
        self._echo_checks = 0
        from skillmanager.core.checks.skill_checks import ChecksCache

        self.checks_cache = ChecksCache()
        from skillmanager.core.checks.check_process import CheckPool

        self.check_pool = CheckPool()  # started by the first large checks pass, kept until shutdown
        self.simulation = None  # the simulator's latest SessionAdditions (kept for the detail pane)
        self.simulation_changed.connect(lambda additions: setattr(self, "simulation", additions))
        self.checks: dict = {}  # identity -> SkillChecks of the current snapshot (filled off the UI thread)
        self.checks_pool = QThreadPool(self)
        self.checks_pool.setMaxThreadCount(1)
        self._checks_generation = 0
        self._checks_workers: dict[int, ChecksWorker] = {}
        self.tasks = TaskRunner(self)  # expansion, toggle planning, simulator steps, `claude --version`

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
        return self.spec.profile if self.spec else DEFAULT_PROFILE

    # --- scanning ------------------------------------------------------------------------------
    def rescan(self) -> int:
        target = self.workspace if self.workspace is not None else self.spec
        if target is None or self._cancel.is_set():
            return self._generation
        self._generation += 1
        release_frozen()  # the snapshot this scan replaces may be collected again
        self._start(ScanWorker(target, self._generation, self._cancel))  # the dict keeps the signals alive
        return self._generation

    def refresh(self, paths) -> int:
        """Files changed on disk: reload just those (core.incremental), else rescan — off the UI thread."""
        target = self.workspace if self.workspace is not None else self.spec
        if target is None or self.snapshot is None or self.snapshot.registry is None or self.scanning:
            return self.rescan()  # a scan in flight may predate the change: start over
        if self._cancel.is_set():
            return self._generation
        # the audit reads every file of a skill folder: a script edited beside SKILL.md is checked again even
        # when nothing the registry reads changed
        self._recheck |= self._rows_with_files_in(paths)
        self._generation += 1
        self._start(RefreshWorker(self.snapshot, sorted(str(p) for p in paths), target, self._generation,
                                  self._cancel))
        return self._generation

    def _start(self, worker: ScanWorker) -> None:
        signals = worker.signals
        signals.finished.connect(self._on_finished)
        signals.failed.connect(self._on_failed)
        signals.progress.connect(self._on_progress)
        signals.rows.connect(self._on_rows)
        signals.unchanged.connect(self._on_unchanged)
        self._workers[worker.generation] = worker
        self.scanning = True
        self.scan_started.emit()
        self.pool.start(worker)

    def _on_rows(self, generation: int, snapshot: Snapshot, delta) -> None:
        try:
            self._apply_rows(generation, snapshot, delta)
        finally:
            worker = self._workers.get(generation)
            if isinstance(worker, RefreshWorker):
                worker.rows_shown.set()

    def _apply_rows(self, generation: int, snapshot: Snapshot, delta) -> None:
        if generation != self._generation:
            return
        self.snapshot = snapshot
        if delta.structural:
            self.snapshot_changed.emit(snapshot)  # rows come and go: the panels regroup
        else:
            self.rows_changed.emit(snapshot, delta)  # only these rows: cheap enough for every keystroke-save
        if self.selected is not None:
            changed = {skill_identity(s) for s in delta.changed}
            if self.selected in changed or delta.structural:
                self.selection_changed.emit(self.selected_skill())

    def _on_progress(self, generation: int, payload) -> None:
        if generation != self._generation:
            return
        args, kwargs = payload
        text = " ".join(str(a) for a in args if a is not None) or " ".join(f"{v}" for v in kwargs.values())
        self.scan_progress.emit(text)

    def _on_unchanged(self, generation: int) -> None:
        self._workers.pop(generation, None)
        if generation == self._generation:
            self.scanning = False
            self.status_message.emit("Up to date")
            if self._recheck and self.snapshot is not None:
                self._start_checks(self.snapshot, same_rows=True)

    _recheck: frozenset = frozenset()  # rows to audit again at the next checks pass (see refresh)

    def _rows_with_files_in(self, paths) -> frozenset:
        """The rows whose skill folder holds one of `paths` (path arithmetic on the snapshot: no file is read)."""
        snapshot = self.snapshot
        if snapshot is None:
            return frozenset()
        folders = snapshot.rows_by_folder()
        rows: set = set()
        for raw in paths:
            path = Path(raw)
            for folder in (path, *path.parents):
                found = folders.get(str(folder))
                if found:
                    rows.update(found)
                    break
        return frozenset(rows)

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
        keep_frozen()  # shown and kept until the next one: no collection walks it again
        self._start_checks(snapshot)

    def _start_checks(self, snapshot: Snapshot, same_rows: bool = False) -> None:
        """`same_rows`: the rows are those of the results held now (nothing came or went)."""
        if self._cancel.is_set() or snapshot.registry is None:
            return
        self._checks_generation += 1
        for running in self._checks_workers.values():
            running.stale.set()  # its results would be dropped: it stops, and this pass starts sooner
        for old in [g for g in self._checks_workers if g < self._checks_generation - 3]:
            del self._checks_workers[old]  # long finished or superseded (a stale one only emits into the void)
        # after a refresh that kept every row, a complete earlier pass leaves only the changed rows to check
        same = same_rows or snapshot.changed_rows is not None
        earlier = self.checks if self._checks_complete and same else None
        recheck, self._recheck = self._recheck, frozenset()
        self._checks_complete = False
        worker = ChecksWorker(snapshot, self.checks_cache, self._checks_generation, self._cancel,
                              lambda: self._quiet_until, earlier, recheck, self.check_pool)
        worker.signals.done.connect(self._on_checks)
        worker.signals.progress.connect(self._on_checks_progress)
        self._checks_workers[self._checks_generation] = worker
        self.checks_pool.start(worker)

    QUIET_S = 0.6  # how long the checks pause after a keystroke or a filter change

    _quiet_until = 0.0

    def note_typing(self) -> None:
        """The user is filtering: the background checks hold off for a moment so the UI thread has the GIL."""
        self._quiet_until = max(self._quiet_until, time.monotonic() + self.QUIET_S)

    @contextlib.contextmanager
    def typing(self):
        """Around the UI work a keystroke causes: the checks wait all through it, and QUIET_S after."""
        self._quiet_until = float("inf")
        try:
            yield
        finally:
            self._quiet_until = time.monotonic() + self.QUIET_S

    _checks_complete = False  # self.checks holds a result for every skill file of the current snapshot

    def _on_checks_progress(self, generation: int, checked: int, total: int) -> None:
        if generation == self._checks_generation:
            self._checks_complete = checked >= total  # the last report follows the last results
            self.checks_progress.emit(checked, total)

    def _on_checks(self, generation: int, results: dict) -> None:
        if generation != self._checks_generation:
            return
        self.checks = results
        self.checks_changed.emit(results)

    def simulated_addition(self, skill: Skill | None):
        """How the simulated session added this skill (core.session_view.SessionAddition), or None."""
        if skill is None or self.simulation is None:
            return None
        identity = skill_identity(skill)
        return next((a for a in self.simulation.discovered + self.simulation.activated
                     if skill_identity(a.skill) == identity), None)

    def checks_for(self, skill: Skill | None):
        return self.checks.get(skill_identity(skill)) if skill is not None else None

    def _on_failed(self, generation: int, message: str) -> None:
        self._workers.pop(generation, None)
        if generation != self._generation:
            return
        self.scanning = False
        self.scan_failed.emit(message)

    def wait_for_scans(self, msecs: int = 10000) -> bool:
        return self.pool.waitForDone(msecs) and self.checks_pool.waitForDone(msecs) and self.tasks.wait(msecs)

    def shutdown(self, msecs: int = 10000) -> bool:
        """Quitting: running workers stop at their next progress report and emit nothing more."""
        self._cancel.set()
        self.check_pool.close()  # a checks worker waiting for an answer gets its batches back as lost
        done = self.pool.waitForDone(msecs)
        done = self.checks_pool.waitForDone(msecs) and done
        done = self.tasks.shutdown(msecs) and done
        self._workers.clear()
        self._checks_workers.clear()
        return done

    # --- our own writes (toggles): the watcher must not bounce them back ------------------------
    def remember_write(self, path, data: bytes | None) -> None:
        digest = hashlib.sha256(data).hexdigest() if data is not None else None
        self.own_writes[str(path)] = digest

    def drop_own_writes(self, paths, done) -> None:
        """`done(paths that are not echoes of our own writes)`, counting the echoes; the files are hashed on
        the task runner (a watcher event must not make the UI thread read the file)."""
        paths = set(paths)
        own = dict(self.own_writes)

        def filtered(outside: set) -> None:
            self.ignored_echoes += len(paths) - len(outside)
            done(outside)

        if not any(str(p) in own for p in paths):  # nothing to hash: no trip through a worker thread
            filtered({p for p in paths if not is_own_write(p, own)})
            return

        self._echo_checks += 1
        self.tasks.run(("own-writes", self._echo_checks),
                       lambda: {p for p in paths if not is_own_write(p, own)}, filtered)

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


def is_own_write(path, own_writes: dict[str, str | None]) -> bool:
    """A watcher event for a file whose content is exactly what we last wrote there (or our temp file)."""
    from skillmanager.core.edit.atomic_write import TEMP_PREFIX

    name = Path(str(path)).name
    if name.startswith(TEMP_PREFIX) and name.endswith(".tmp"):
        return True
    key = str(path)
    if key not in own_writes:
        return False
    expected = own_writes[key]
    try:
        current = hashlib.sha256(Path(key).read_bytes()).hexdigest()
    except FileNotFoundError:
        current = None
    except OSError:
        return False
    return current == expected
