"""Plain words for what the listing engine decided (its cut reasons and budget levels).

The keys are the engine's (`listing.CutReason`, `listing.ListingLevel`); every screen and command that explains a
cut or a level uses these sentences, so a new key is worded once, here.
"""
from __future__ import annotations

from typing import Iterable

from .listing import CutReason, ListingLevel, ListingTotals

CUT_REASON_WORDS: dict[str, str] = {
    CutReason.PER_ENTRY_CAP: "description cut at the per-entry limit",
    CutReason.BUDGET: "description shortened to fit the listing budget",
    CutReason.NAME_ONLY_OVERRIDE: "name only, because a setting asks for it (skillOverrides: name-only)",
    CutReason.NAMES_ONLY_LEVEL: "name only: the listing is over budget, so descriptions were dropped",
}
LEVEL_WORDS: dict[str, str] = {
    ListingLevel.FULL: "every description fits",
    ListingLevel.TRUNCATED: "descriptions shortened to fit",
    ListingLevel.NAMES_ONLY: "over budget: names only",
    ListingLevel.PRIORITY: "over budget: the least used skills keep only their names",
}


def cut_reason_words(reasons: Iterable[str]) -> str:
    """`["budget", "per-entry-cap"]` → plain words; an unknown key is shown as it is."""
    return "; ".join(CUT_REASON_WORDS.get(key, key) for key in reasons if key)


def level_words(level: str) -> str:
    return LEVEL_WORDS.get(level, level)


def budget_notes(totals: ListingTotals) -> list[str]:
    """Sentences under the budget meter: how the listing fits, where the budget comes from, and what cannot be
    dropped."""
    notes = [level_words(totals.level).capitalize()] if totals.level else []
    if totals.budget_source:  # where the number came from, in plain words (listing.budget_facts)
        notes.append(f"budget {totals.budget_source}" if totals.budget_source.startswith("set ")
                     else f"budget: {totals.budget_source}")
    if totals.undroppable:
        notes.append(f"the smallest listing Claude Code can make (names it cannot drop) costs "
                     f"{totals.undroppable_cost:,} characters")
        notes.append(f"{len(totals.undroppable)} names stay past the budget")
    return notes
