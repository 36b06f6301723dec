"""Which quick filters ("On", "Off", "Shortened", "Conflicts", "Needs review", "Waiting") a skill belongs to.

The app's filter chips and their counts read these sets; nothing about them is decided in the UI.
A skill can be in several buckets (a waiting skill is also on; a shadowed copy is in Conflicts only).
"""
from __future__ import annotations

import enum
from collections import Counter
from typing import Any, Iterable

from ..layers.listing_outcome import CAUSE_BUDGET, CAUSE_PER_ENTRY_CAP, ListingOutcome
from ..model import Invoker, Severity, Skill, SourceKind


class Bucket(enum.Enum):
    ON = "on"
    OFF = "off"
    SHORTENED = "shortened"
    CONFLICTS = "conflicts"
    NEEDS_REVIEW = "needs-review"
    WAITING = "waiting"

    @property
    def word(self) -> str:
        return BUCKET_WORDS[self]

    @property
    def meaning(self) -> str:
        return BUCKET_MEANINGS[self]


BUCKET_WORDS = {
    Bucket.ON: "On",
    Bucket.OFF: "Off",
    Bucket.SHORTENED: "Shortened",
    Bucket.CONFLICTS: "Conflicts",
    Bucket.NEEDS_REVIEW: "Needs review",
    Bucket.WAITING: "Waiting",
}

BUCKET_MEANINGS = {
    Bucket.ON: "Skills Claude can use (the row switch is on)",
    Bucket.OFF: "Skills turned off or blocked: Claude cannot use them",
    Bucket.SHORTENED: "Skills whose description the listing budget or the per-entry limit cut",
    Bucket.CONFLICTS: "Every copy of a name that more than one skill uses (the winner and the shadowed copies)",
    Bucket.NEEDS_REVIEW: "Skills with a critical or high audit finding, or an error (front matter that does "
                         "not parse…)",
    Bucket.WAITING: "Skills that activate only when a matching file is touched",
}

# audit / lint badge levels (core.checks.skill_checks) that put a skill under "Needs review"
REVIEW_BADGES = frozenset({"danger", "error"})
_INVOLUNTARY_CUTS = frozenset({CAUSE_BUDGET, CAUSE_PER_ENTRY_CAP})  # a cut the user did not ask for


def contested_names(registry: Any, conflicts: Iterable[Any] | None = None) -> frozenset[str]:
    """Names more than one skill claims (Registry.conflicts decides what a clash is). `conflicts`: the
    registry's conflicts when the caller already has them."""
    if conflicts is None:
        find = getattr(registry, "conflicts", None)
        if find is None:
            return frozenset()
        conflicts = find()
    return frozenset(c.name for c in conflicts)


def skill_buckets(skill: Skill, *, is_on: bool | None = None, outcome: ListingOutcome | None = None,
                  badge: str | None = None, contested: frozenset[str] = frozenset()) -> frozenset[Bucket]:
    """The buckets of one skill. `is_on`: its row switch (core.edit.switch), None where it has none;
    `outcome`: its listing outcome; `badge`: its checks badge level, None until checked."""
    state = skill.state
    found: set[Bucket] = set()
    if state.is_winner:
        if is_on is None:  # Claude Code's own entries: on when anything can call them
            is_on = state.invocable_by is not Invoker.NONE
        found.add(Bucket.ON if is_on else Bucket.OFF)
        if state.conditional and not state.active:
            found.add(Bucket.WAITING)
    if (skill.scoped_from or skill.name) in contested:
        found.add(Bucket.CONFLICTS)
    if outcome is not None and outcome.cut and outcome.cause in _INVOLUNTARY_CUTS:
        found.add(Bucket.SHORTENED)
    if badge in REVIEW_BADGES or (skill.source not in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)
                                  and any(d.severity is Severity.ERROR for d in skill.diagnostics)):
        found.add(Bucket.NEEDS_REVIEW)
    return frozenset(found)


def bucket_counts(buckets: Iterable[frozenset[Bucket]]) -> dict[Bucket, int]:
    """How many skills each bucket holds (every bucket present, zero included)."""
    counts = Counter(b for found in buckets for b in found)
    return {bucket: counts.get(bucket, 0) for bucket in Bucket}
