"""Frozen-app entry point: no arguments opens the desktop app; `--smoke-test` and every CLI command work too.

Measuring start-up: with SKILLMANAGER_FIRST_PAINT_PROBE=1 the app prints `first-paint-epoch: <time.time()>` to
stderr when its first window first paints (the launcher subtracts its own launch time); with
SKILLMANAGER_FIRST_PAINT_PROBE=exit it also quits right there. Unset, nothing changes.
"""

import os
import sys
import time

PROBE = "SKILLMANAGER_FIRST_PAINT_PROBE"


def restore_child_library_path() -> None:
    """Give programs we start (git, claude --version) the user's own LD_LIBRARY_PATH.

    PyInstaller's Linux bootloader points LD_LIBRARY_PATH at the bundle and keeps the original in
    LD_LIBRARY_PATH_ORIG; a child such as the system git must not load our bundled libz/pcre2/libstdc++.
    This process is unaffected: the dynamic loader read the variable when the process started.
    """
    if not getattr(sys, "frozen", False):
        return
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)


def install_first_paint_probe(mode: str) -> None:
    """Report the first paint of a top-level window. Hooks QApplication.exec, so the app's code is untouched."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    class FirstPaint(QObject):
        def eventFilter(self, watched, event):  # noqa: N802 (Qt API name)
            if event.type() == QEvent.Type.Paint and getattr(watched, "isWindow", lambda: False)():
                sys.stderr.write(f"first-paint-epoch: {time.time():.6f}\n")
                sys.stderr.flush()
                QApplication.instance().removeEventFilter(self)
                if mode == "exit":
                    QApplication.instance().exit(0)
            return False

    original_exec = QApplication.exec  # static in PySide6: called as app.exec() or QApplication.exec()

    def exec_with_probe(*_ignored):
        app = QApplication.instance()
        app.installEventFilter(FirstPaint(app))
        return original_exec()

    QApplication.exec = exec_with_probe


if __name__ == "__main__":
    restore_child_library_path()
    opens_window = not sys.argv[1:] or sys.argv[1] in ("--demo", "--smoke-test")
    if os.environ.get(PROBE) and opens_window:  # the probe imports Qt: keep CLI commands free of it
        install_first_paint_probe(os.environ[PROBE])
    from skillmanager.cli import entry  # as the `skillmanager` command: collector paused for start-up, no teardown

    sys.exit(entry())
