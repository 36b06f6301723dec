"""core/collector.py: what a bulk step builds with the collector paused is not walked by the young
collection that would follow the pause, yet stays collectable; the app's frozen snapshot stays frozen."""
from __future__ import annotations

import gc

import pytest

from skillmanager.core import collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def clean_collector():
    collector.release_frozen()
    gc.collect()
    enabled = gc.isenabled()
    gc.enable()
    yield
    collector.release_frozen()
    if not enabled:
        gc.disable()


def _in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


def test_results_of_a_paused_step_go_to_the_oldest_generation(clean_collector):
    with collector.collector_paused():
        assert not gc.isenabled()
        built = [Node() for _ in range(5000)]
    assert gc.isenabled()
    assert gc.get_count()[0] < 50  # no young collection pending over the step's objects
    assert not _in_generation(built[-1], 0) and not _in_generation(built[-1], 1)
    assert _in_generation(built[-1], 2)  # still tracked: a full collection walks it
    assert gc.get_freeze_count() == 0


def test_cycles_made_in_a_paused_step_are_still_collected(clean_collector):
    with collector.collector_paused():
        first, second = Node(), Node()
        first.other, second.other = second, first
    del first, second
    assert gc.collect() >= 2


def test_a_frozen_snapshot_stays_frozen_across_a_paused_step(clean_collector):
    shown = Node()
    collector.keep_frozen()  # the app froze the snapshot it shows
    frozen = gc.get_freeze_count()
    with collector.collector_paused():
        [Node() for _ in range(100)]
    assert gc.get_freeze_count() >= frozen
    assert all(o is not shown for o in gc.get_objects())  # in no generation a collection walks


def test_a_nested_pause_leaves_the_collector_paused(clean_collector):
    with collector.collector_paused():
        with collector.collector_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_end_of_a_paused_step_does_not_count_the_frozen_objects(clean_collector, monkeypatch):
    # gc.get_freeze_count() walks every frozen object: with the app's snapshot frozen, asking it at the end of every
    # paused step (each load, listing, refresh) cost a walk of the whole frozen heap
    def walks_the_frozen_heap() -> int:
        raise AssertionError("gc.get_freeze_count() called")

    monkeypatch.setattr(gc, "get_freeze_count", walks_the_frozen_heap)
    with collector.collector_paused():
        [Node() for _ in range(100)]
    collector.keep_frozen()
    with collector.collector_paused():
        kept = [Node() for _ in range(100)]
    assert _in_generation(kept[0], 0) or _in_generation(kept[0], 1) or _in_generation(kept[0], 2)  # not frozen
    collector.release_frozen()
    with collector.collector_paused():
        built = [Node() for _ in range(100)]
    assert _in_generation(built[0], 2)  # promoted again once the snapshot is released
