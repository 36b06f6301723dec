"""The app freezes each shown snapshot (no garbage collection walks it again) and releases it when a full scan
starts; that is safe only because a snapshot forms no reference cycles, which this checks."""
from __future__ import annotations

import gc

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings  # noqa: E402

from test_incremental_listing import make_workspace, skill_md, write  # noqa: E402


def _ours(objects) -> list:
    from skillmanager.core.layers.listing import EntryResult, ListingResult
    from skillmanager.core.model import Skill
    from skillmanager.gui.engine import Snapshot
    return [o for o in objects if isinstance(o, (Skill, Snapshot, ListingResult, EntryResult))]


def test_snapshots_form_no_reference_cycles(tmp_path):
    """Everything a scan and its one-file refreshes made is freed by reference counting alone: a frozen
    snapshot that is replaced never waits for a collection that does not walk it."""
    from skillmanager.gui.engine import refresh_incremental, scan

    workspace, bases, _settings = make_workspace(tmp_path / "ws", "current", "7000")
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable stays in gc.garbage to look at
    try:
        snapshot = scan(workspace)
        for step, (where, name) in enumerate([("user", "alpha"), ("add-dir", "beta"), ("project", "gamma")]):
            path = write(bases[where] / name / "SKILL.md", skill_md(f"{where} {name} edited {step}"))
            snapshot = refresh_incremental(snapshot, [path]) or snapshot
        snapshot = scan(workspace)  # a full rescan replaces every object
        del snapshot
        gc.collect()
        assert _ours(gc.garbage) == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_the_shown_snapshot_is_frozen_until_a_full_scan_starts(qtbot, tmp_path):
    from skillmanager.gui.context import AppContext

    workspace, _bases, _settings = make_workspace(tmp_path / "ws", "current", "7000")
    context = AppContext(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    gc.unfreeze()
    try:
        with qtbot.waitSignal(context.snapshot_changed, timeout=30000):
            context.set_workspace(workspace)
        qtbot.waitUntil(lambda: not context.scanning, timeout=30000)
        shown = context.snapshot
        assert all(o is not shown for o in gc.get_objects())  # frozen: in no generation a collection walks
        context.rescan()
        assert gc.get_freeze_count() == 0  # the old snapshot can be collected while the new scan runs
        qtbot.waitUntil(lambda: not context.scanning, timeout=30000)
        assert gc.get_freeze_count() > 0
    finally:
        context.shutdown()
        gc.unfreeze()
