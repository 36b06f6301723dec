"""What the start-up listing actually did with each skill, after the character budget.

`Skill.state.listed` says how a skill *asks* to be listed (full, name only, not at all) before the budget;
the outcome says what the model is really sent: the description in full, a shortened description, the name
only (because of the budget, or because a setting asks for it), or nothing (and why). It is read from the
`ListingResult` that `build_listing` makes — the same code as `skillmanager listing` — never re-derived.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import Listed, Skill
from .listing import (BUILTIN_COMMAND, BUNDLED, CUT_BUDGET, CUT_NAME_ONLY_OVERRIDE, CUT_NAMES_ONLY_LEVEL,
                      CUT_PER_ENTRY_CAP, EntryResult, ListingResult, build_listing)

if TYPE_CHECKING:
    from ..rules.registry import Registry


class Outcome(enum.Enum):
    FULL = "full"
    SHORTENED = "shortened"
    NAME_ONLY = "name-only"
    NOT_LISTED = "not-listed"


class Cause(enum.StrEnum):
    """Why — stable keys (JSON `listing_outcome_cause`), each worded once in OUTCOME_WORDS / CAUSE_SENTENCES."""

    FITS = "fits"
    CLAUDE_CODE_OWN = "claude-code-own"
    PER_ENTRY_CAP = "per-entry-cap"
    BUDGET = "budget"
    SETTING = "setting"
    WAITING = "waiting"
    DUPLICATE = "duplicate"
    SHADOWED = "shadowed"
    HIDDEN = "hidden"  # state.listed is NO: its own reason says which rule


CAUSE_FITS, CAUSE_CLAUDE_CODE_OWN, CAUSE_PER_ENTRY_CAP = Cause.FITS, Cause.CLAUDE_CODE_OWN, Cause.PER_ENTRY_CAP
CAUSE_BUDGET, CAUSE_SETTING, CAUSE_WAITING = Cause.BUDGET, Cause.SETTING, Cause.WAITING
CAUSE_DUPLICATE, CAUSE_SHADOWED, CAUSE_HIDDEN = Cause.DUPLICATE, Cause.SHADOWED, Cause.HIDDEN

# One short word for a row (plain words, docs/glossary.md).
OUTCOME_WORDS = {
    Outcome.FULL: "Listed",
    Outcome.SHORTENED: "Shortened",
    Outcome.NAME_ONLY: "Name only",
    Outcome.NOT_LISTED: "Not listed",
}


@dataclass(frozen=True)
class ListingOutcome:
    outcome: Outcome
    cause: Cause
    reason: str  # one plain sentence: what the model sees and what decided it
    shown_text: str | None = None  # the line the listing carries for it (None when not listed)
    full_width: int | None = None  # characters of its full entry, as the budget counts them
    shown_width: int | None = None

    @property
    def word(self) -> str:
        return OUTCOME_WORDS[self.outcome]

    @property
    def cut(self) -> bool:
        return self.outcome in (Outcome.SHORTENED, Outcome.NAME_ONLY)

    @property
    def cut_for_room(self) -> bool:
        """Cut because the listing ran out of room (the budget or the per-entry cap), not by a setting."""
        return self.cut and self.cause in (Cause.BUDGET, Cause.PER_ENTRY_CAP)


def _listed_outcome(entry: EntryResult) -> ListingOutcome:
    def listed(outcome: Outcome, cause: Cause, reason: str) -> ListingOutcome:
        return ListingOutcome(outcome, cause, reason, shown_text=entry.shown_text, full_width=entry.width,
                              shown_width=entry.shown_width)

    if entry.placeholder or entry.kind in (BUNDLED, BUILTIN_COMMAND):
        return listed(Outcome.FULL, CAUSE_CLAUDE_CODE_OWN,
                      "Claude Code's own entry: listed as Claude Code writes it.")
    reasons = entry.reasons
    if CUT_NAME_ONLY_OVERRIDE in reasons:
        return listed(Outcome.NAME_ONLY, CAUSE_SETTING,
                      "Listed by name only, because a setting asks for it (skillOverrides: name-only).")
    name_only = entry.shown_text.rstrip() in (f"- {entry.name}", f"- {entry.shown_name}")
    if CUT_NAMES_ONLY_LEVEL in reasons or (CUT_BUDGET in reasons and name_only):
        return listed(Outcome.NAME_ONLY, CAUSE_BUDGET,
                      f"Listed by name only: the listing is over its character budget, so its "
                      f"description ({entry.width:,} characters in full) was dropped.")
    if CUT_BUDGET in reasons:
        return listed(Outcome.SHORTENED, CAUSE_BUDGET,
                      f"Description shortened to fit the listing budget: {entry.shown_width:,} of "
                      f"{entry.width:,} characters are sent.")
    if CUT_PER_ENTRY_CAP in reasons:
        return listed(Outcome.SHORTENED, CAUSE_PER_ENTRY_CAP,
                      "Description shortened: it is longer than the limit Claude Code allows one entry.")
    return listed(Outcome.FULL, CAUSE_FITS, "Listed in full: the model sees its name and description.")


def _unlisted_outcome(skill: Skill) -> ListingOutcome:
    state = skill.state
    if state.duplicate_of is not None:
        return ListingOutcome(Outcome.NOT_LISTED, CAUSE_DUPLICATE,
                              f"Not listed: the same file was already loaded as {state.duplicate_of.name}.")
    if state.listed is Listed.NO:
        if state.shadowed_by is not None:
            return ListingOutcome(Outcome.NOT_LISTED, CAUSE_SHADOWED,
                                  f"Not listed: another copy named {state.shadowed_by.name} "
                                  f"({state.shadowed_by.source.value}) wins the name.")
        return ListingOutcome(Outcome.NOT_LISTED, CAUSE_HIDDEN, f"Not listed. {state.listed_reason}".strip())
    if not state.active:
        return ListingOutcome(Outcome.NOT_LISTED, CAUSE_WAITING,
                              "Not listed yet: it waits until a file matching its paths is touched.")
    if state.shadowed_by is not None:
        return ListingOutcome(Outcome.NOT_LISTED, CAUSE_SHADOWED,
                              f"Not listed: another copy named {state.shadowed_by.name} "
                              f"({state.shadowed_by.source.value}) wins the name.")
    return ListingOutcome(Outcome.NOT_LISTED, CAUSE_HIDDEN, "Not listed in the start-up listing.")


@dataclass
class OutcomeReuse:
    """The outcomes one `listing_outcomes` call worked out, by the object each was read from: a listed skill's
    by its listing entry (EntryResult), an unlisted skill's by the skill (its state decides). Both are held,
    so an id here is never another live object's; neither object changes once made (a refresh replaces them)."""

    by_entry: dict[int, tuple[EntryResult, ListingOutcome]] = field(default_factory=dict)
    by_skill: dict[int, tuple[Skill, ListingOutcome]] = field(default_factory=dict)


def listing_outcomes(registry: Registry, listing: ListingResult | None = None, *,
                     previous: OutcomeReuse | None = None, keep: OutcomeReuse | None = None
                     ) -> dict[str, ListingOutcome]:
    """Skill.key → its outcome in the start-up listing, for every skill of the registry (shadowed copies,
    duplicates, bundled skills and built-in commands included). `listing` defaults to build_listing(registry).
    `keep` is filled with what a later call may reuse; `previous` (an earlier call's `keep`) gives the
    outcome of every listing entry and unlisted skill object it already saw (an incremental refresh)."""
    listing = listing if listing is not None else build_listing(registry)
    by_key = {e.key: e for e in listing.entries if e.key is not None}
    if previous is None and keep is None:
        return {skill.key: (_listed_outcome(by_key[skill.key]) if skill.key in by_key else _unlisted_outcome(skill))
                for skill in registry.skills}
    old_entries = previous.by_entry if previous is not None else {}
    old_skills = previous.by_skill if previous is not None else {}
    new_entries = keep.by_entry if keep is not None else {}
    new_skills = keep.by_skill if keep is not None else {}
    out: dict[str, ListingOutcome] = {}
    for skill in registry.skills:
        key = skill.key
        entry = by_key.get(key)
        if entry is not None:
            known = old_entries.get(id(entry))
            outcome = known[1] if known is not None else _listed_outcome(entry)
            new_entries[id(entry)] = (entry, outcome)
        else:
            held = old_skills.get(id(skill))
            outcome = held[1] if held is not None else _unlisted_outcome(skill)
            new_skills[id(skill)] = (skill, outcome)
        out[key] = outcome
    return out
