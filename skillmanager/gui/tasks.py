"""One background-task runner for the whole app (in the spirit of git-cola's qtutils tasks).

`TaskRunner.run(key, work, done)` calls `work()` on a worker thread and `done(result)` (or `failed(error)`) on
the UI thread. A newer task with the same key supersedes an older one: the older result is dropped, so a
keystroke's expansion or a quick change of selection never shows stale work. The UI thread never calls into
the engine for anything that reads files; widgets hand that work to the runner.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Hashable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives on the UI thread: queued signals from workers land here."""

    finished = Signal(object, int, object, object)  # key, serial, result, error


class _Task(QRunnable):
    def __init__(self, relay: _Relay, key: Hashable, serial: int, work: Callable[[], Any],
                 cancel: threading.Event) -> None:
        super().__init__()
        self.relay, self.key, self.serial, self.work, self.cancel = relay, key, serial, work, cancel
        self.setAutoDelete(True)

    def run(self) -> None:  # worker thread: no widget access here
        if self.cancel.is_set():
            return
        result, error = None, None
        try:
            result = self.work()
        except Exception as exc:  # noqa: BLE001 - handed to the caller's `failed`, never lost
            error = exc
        if self.cancel.is_set():
            return
        try:
            self.relay.finished.emit(self.key, self.serial, result, error)
        except RuntimeError:  # the relay is gone: the app is closing
            pass


class TaskRunner(QObject):
    """Runs engine work off the UI thread; the newest task per key wins."""

    def __init__(self, parent: QObject | None = None, threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._deliver)
        self._serial = 0
        self._latest: dict[Hashable, int] = {}
        self._callbacks: dict[int, tuple[Callable[[Any], None], Callable[[BaseException], None] | None]] = {}
        self._cancel = threading.Event()
        self.worker_threads: set[str] = set()  # names of the threads that ran work (tests assert on it)

    def run(self, key: Hashable, work: Callable[[], Any], done: Callable[[Any], None],
            failed: Callable[[BaseException], None] | None = None) -> int:
        """Start `work` in the background; `done(result)` runs on the UI thread unless superseded."""
        if self._cancel.is_set():
            return 0
        self._serial += 1
        serial = self._serial
        self._latest[key] = serial
        self._callbacks[serial] = (done, failed)

        def tracked() -> Any:
            self.worker_threads.add(threading.current_thread().name)
            return work()

        self.pool.start(_Task(self._relay, key, serial, tracked, self._cancel))
        return serial

    def busy(self, key: Hashable) -> bool:
        """A task with this key has not delivered yet."""
        serial = self._latest.get(key)
        return serial is not None and serial in self._callbacks

    @Slot(object, int, object, object)
    def _deliver(self, key: Hashable, serial: int, result: Any, error: BaseException | None) -> None:
        done, failed = self._callbacks.pop(serial, (None, None))
        if done is None or self._latest.get(key) != serial:
            return  # superseded by a newer task with the same key
        if error is None:
            done(result)
        elif failed is not None:
            failed(error)
        else:
            log.error("background task %r failed: %s", key, error, exc_info=error)

    def wait(self, msecs: int = 10000) -> bool:
        return self.pool.waitForDone(msecs)

    def shutdown(self, msecs: int = 5000) -> bool:
        self._cancel.set()
        self._callbacks.clear()
        return self.pool.waitForDone(msecs)
