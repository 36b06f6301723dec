"""The demo main window as GUI tests use it: real watcher, private QSettings, cleaned up afterwards."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QSettings

SCAN_TIMEOUT_MS = 20_000  # generous: latency is measured in benchmarks/gui.py, not asserted in tests


@contextmanager
def demo_window(qtbot, tmp_path: Path):
    from skillmanager.gui import temp_dirs
    from skillmanager.gui.app import build_window

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    context, win = build_window(demo=True, settings=settings, watch=True)
    qtbot.addWidget(win)
    win.resize(1500, 900)
    win.show()
    qtbot.waitUntil(lambda: context.snapshot is not None, timeout=SCAN_TIMEOUT_MS)
    try:
        yield win
    finally:
        if win.watcher is not None:
            win.watcher.stop()
        context.wait_for_scans(5000)
        temp_dirs.remove_all()  # the demo copy build_window made
