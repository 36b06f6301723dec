"""Every cut reason and budget level the listing engine can produce has plain words (one home: core)."""
from __future__ import annotations

import pytest

from skillmanager.core.layers import listing
from skillmanager.core.layers.listing_words import CUT_REASON_WORDS, LEVEL_WORDS, cut_reason_words, level_words


def test_every_cut_reason_and_level_has_words():
    assert set(listing.CutReason) == set(CUT_REASON_WORDS)
    assert set(listing.ListingLevel) == set(LEVEL_WORDS)


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_every_level_the_engine_reaches_has_words(tmp_path, profile):
    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.core.rules.registry import load_registry

    registry = load_registry(create_demo_workspace(tmp_path / "demo", profile=profile))
    full = listing.build_listing(registry).totals.full_total
    levels = {listing.build_listing(registry, budget=budget).totals.level
              for budget in (full + 10, full - 40, full // 2, full // 4, 1)}
    assert len(levels) >= 2  # the demo reaches at least one cut level in each profile
    for level in levels:
        assert level in LEVEL_WORDS and level_words(level) != level


def test_unknown_keys_are_shown_as_they_are():
    assert cut_reason_words(["budget", "new-reason"]) == "description shortened to fit the listing budget; new-reason"
