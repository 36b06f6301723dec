"""Pausing Python's cyclic garbage collector around bulk work that allocates many objects and frees none.

A scan or a listing builds tens of thousands of objects that all stay alive; every collection the
allocations trigger would only re-walk a growing heap (15-20 % of a 20,000-skill listing). Reference
counting still frees everything at once; the collector runs again afterwards.

When the pause ends, what the step built goes straight to the oldest generation (gc.freeze() then
gc.unfreeze(): two list splices, no walk). Otherwise the first allocation after it starts a young
collection that walks every object the step made, only to find them all alive: ~10 % of a 5,000-skill
scan, holding the GIL (the app's window waits). They are still collected, by the next full collection.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

_freeze_bulk_results = False
# whether the app keeps a snapshot frozen (keep_frozen); kept here because gc.get_freeze_count() walks every
# frozen object to count them: asked at the end of every paused step, it cost a walk of the whole frozen heap
_snapshot_frozen = False


def freeze_bulk_results() -> None:
    """For a process that exits after one command (the CLI): what a bulk step builds lives until the exit, so it
    is frozen when the step ends. Otherwise the first collection after it walks every object the step made
    (~15 ms of a 5,000-skill `listing` process). Not for the app: a frozen cycle is only freed by gc.unfreeze()."""
    global _freeze_bulk_results
    _freeze_bulk_results = True


@contextmanager
def collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _freeze_bulk_results:
                gc.freeze()
            elif not _snapshot_frozen:  # (the app's frozen snapshot is left frozen: see keep_frozen)
                gc.freeze()
                gc.unfreeze()  # frozen objects return to the oldest generation
            gc.enable()


def keep_frozen() -> None:
    """For the app, when a new snapshot is shown: what it holds lives until a later one replaces it, so it is
    frozen and no collection walks it again (a full collection of a 5,000-skill snapshot held the GIL up to
    250 ms, in the middle of a one-file refresh). Replaced objects are still freed by reference counting; a
    snapshot forms no reference cycles (a full rescan after 15 refreshes left none to collect)."""
    global _snapshot_frozen
    gc.freeze()
    _snapshot_frozen = True


def release_frozen() -> None:
    """When a full scan starts: what was frozen may be collected again (anything of the old snapshot that only
    a collection can free is freed by the next one)."""
    global _snapshot_frozen
    gc.unfreeze()
    _snapshot_frozen = False
