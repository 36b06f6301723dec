"""Live refresh: one watchfiles thread behind a Qt signal (stop event, short step, debounced).

Which folders to watch and which changes matter is core's decision (`core.load.watch_targets`). When the
set of folders changes (a new skill dir, a new `.claude`), the watch list is rebuilt. If the OS runs out
of watches, the thread falls back to polling and says so.
"""
from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from skillmanager.core.load.watch_targets import is_new_watch_folder, is_relevant_change, watch_targets


class SkillWatcher(QObject):
    """Emits `changed(set_of_paths)` on the UI thread (queued) after a debounced burst of edits."""

    changed = Signal(object)
    mode_changed = Signal(str)  # "inotify" | "polling: <why>"

    def __init__(self, parent=None, debounce_ms: int = 300, step_ms: int = 15):
        super().__init__(parent)
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._stop = threading.Event()
        self._rewatch = threading.Event()
        self._thread: threading.Thread | None = None
        self._workspace = None
        self._lock = threading.Lock()
        self.force_polling = False
        self.mode = "idle"
        self.watched: list[Path] = []

    def start(self, workspace) -> None:
        """Watch `workspace`; a no-op when it is already being watched (new folders rewatch by themselves)."""
        with self._lock:
            same = workspace is self._workspace
            self._workspace = workspace
        if same and self._thread is not None and self._thread.is_alive():
            return
        if self._thread is not None and self._thread.is_alive():
            self._rewatch.set()
            self._stop.set()  # leave the current watch() so the new plan is used
            return
        self._spawn()

    def _spawn(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="skillmanager-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._rewatch.clear()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None


    def _run(self) -> None:
        from watchfiles import watch

        while True:
            with self._lock:
                workspace = self._workspace
            if workspace is None:
                return
            plan = watch_targets(workspace)
            self.watched = plan
            stop = self._stop
            structural = False
            try:
                self._set_mode("starting")
                # yield_on_timeout: the first (empty) yield tells us the OS watches are in place
                for changes in watch(*plan, stop_event=stop, debounce=self.debounce_ms, step=self.step_ms,
                                     recursive=False, force_polling=self.force_polling or None,
                                     poll_delay_ms=250, watch_filter=None, raise_interrupt=False,
                                     ignore_permission_denied=True, rust_timeout=250, yield_on_timeout=True):
                    self._set_mode("polling: " + self._polling_reason if self.force_polling else "inotify")
                    if not changes:
                        continue
                    paths = {path for _change, path in changes if is_relevant_change(path, workspace)}
                    structural = any(self._is_new_folder(change, path) for change, path in changes)
                    if paths:
                        self.changed.emit(paths)
                    if structural:
                        break  # a new folder: rebuild the plan and watch again
            except (OSError, RuntimeError) as error:
                if not self.force_polling:
                    self.force_polling = True
                    self._polling_reason = _plain_watch_error(error)
                    continue
                self._set_mode(f"stopped: {error}")
                return
            if structural:
                continue
            if self._rewatch.is_set():
                self._rewatch.clear()
                self._stop = threading.Event()
                continue
            return

    _polling_reason = "requested"

    def _set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)

    @staticmethod
    def _is_new_folder(change, path: str) -> bool:
        from watchfiles import Change

        return change == Change.added and is_new_watch_folder(path)


def _plain_watch_error(error: BaseException) -> str:
    text = str(error)
    if "limit" in text.lower() or "no space left" in text.lower() or getattr(error, "errno", None) == 28:
        return "the system ran out of file watches (fs.inotify.max_user_watches)"
    return f"file watching failed ({text})"


