"""Plain words for what the listing engine decided (its cut reasons and budget levels).

The keys are the engine's (`listing.CUT_*`, `ListingTotals.level`); every screen and command that explains a
cut or a level uses these sentences, so a new key is worded once, here.
"""
from __future__ import annotations

from typing import Iterable

from .listing import (CUT_BUDGET, CUT_NAME_ONLY_OVERRIDE, CUT_NAMES_ONLY_LEVEL, CUT_PER_ENTRY_CAP, ListingTotals)

CUT_REASON_WORDS = {
    CUT_PER_ENTRY_CAP: "description cut at the per-entry limit",
    CUT_BUDGET: "description shortened to fit the listing budget",
    CUT_NAME_ONLY_OVERRIDE: "name only, because a setting asks for it (skillOverrides: name-only)",
    CUT_NAMES_ONLY_LEVEL: "name only: the listing is over budget, so descriptions were dropped",
}
LEVEL_WORDS = {
    "full": "every description fits",
    "truncated": "descriptions shortened to fit",
    "names-only": "over budget: names only",
    "priority": "over budget: the least used skills keep only their names",
}


def cut_reason_words(reasons: Iterable[str]) -> str:
    """`["budget", "per-entry-cap"]` → plain words; an unknown key is shown as it is."""
    return "; ".join(CUT_REASON_WORDS.get(key, key) for key in reasons if key)


def level_words(level: str) -> str:
    return LEVEL_WORDS.get(level, level)


def budget_notes(totals: ListingTotals) -> list[str]:
    """Sentences under the budget meter: how the listing fits, and what cannot be dropped."""
    notes = [level_words(totals.level).capitalize()] if totals.level else []
    if totals.undroppable:
        notes.append(f"the smallest listing Claude Code can make (names it cannot drop) costs "
                     f"{totals.undroppable_cost:,} characters")
        notes.append(f"{len(totals.undroppable)} names stay past the budget")
    return notes
