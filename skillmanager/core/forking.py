"""Work a command hands to a forked copy of itself, on a second core (a first scan's parse-ahead child): when a
process may fork, and how the child starts and ends.

A fork copies the process as it is, locks included, so it is safe only while one thread runs: a command-line
run on its main thread, never the desktop app (Qt's own threads are not Python's to count). Only on Linux:
macOS system libraries are not safe after a fork without exec, and Windows has no fork. A child writes
nothing to stdout and ends with os._exit; the process that forked it reaps it.

SKILLMANAGER_FORK: "0" never forks, "always" forks whenever it can (however few cores or files: for tests),
anything else when it is likely to pay.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Mapping

from .cores import usable_cores

SETTING = "SKILLMANAGER_FORK"


def setting(env: Mapping[str, str] | None = None) -> str:
    """"0", "always" or "auto" (see the module's docstring)."""
    value = (os.environ if env is None else env).get(SETTING, "")
    return value if value in ("0", "always") else "auto"


def _main_thread_only() -> bool:
    """Called on the main thread, no other Python thread running, in a process without Qt."""
    import threading
    return (threading.current_thread() is threading.main_thread() and threading.active_count() == 1
            and "PySide6.QtCore" not in sys.modules)


def allowed(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process may fork work onto a second core now: Linux, the main thread alone, a second usable
    core (unless "always"), not turned off."""
    mode = setting(env)
    return (mode != "0" and sys.platform.startswith("linux") and hasattr(os, "fork") and _main_thread_only()
            and (mode == "always" or usable_cores() >= 2))


def fork(work: Callable[[], None]) -> int | None:
    """Run `work` in a forked child; its pid (this process reaps it), or None when there is none. The child
    never re-walks the inherited heap (its collector is off, so its pages stay shared), notes nothing in this
    process's input trace, runs no exit handler, flushes nothing of this process's, and ends with code 1
    when `work` raises. Call only where allowed() says so."""
    sys.stdout.flush()  # nothing buffered is written twice
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        code = 1
        try:
            import gc
            gc.disable()
            from .load import input_trace
            input_trace.stop_recording()  # the parent notes what it uses of the child's work itself
            work()
            code = 0
        finally:
            os._exit(code)
    return pid
