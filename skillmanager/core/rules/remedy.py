"""What to do when the start-up listing cuts descriptions to fit its character budget.

The remedy names the skills whose descriptions to drop so that every other description is sent in full:
the least used first (usage counts when known), then the largest. The mechanism is one the detected Claude
Code reads: skillOverrides "name-only" where it exists (the name stays listed), else "hidden"
(disable-model-invocation in the skill's front matter: gone from the listing, /name still works).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ..versions.features import Feature
from ..layers.listing import BUILTIN_COMMAND, BUNDLED, ListingResult, entry_width
from ..layers.listing_outcome import CAUSE_BUDGET, ListingOutcome, Outcome
from ..model import SourceKind
from ..edit.toggle import override_keys

if TYPE_CHECKING:
    from .registry import Registry

_OWN_FILES = (SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND)


@dataclass
class BudgetRemedy:
    state: str  # the toggle state to apply to each skill: "name-only" or "hidden"
    keys: list[str]  # Skill.key of each skill it changes
    names: list[str]
    saves: int  # characters the listing shrinks by
    enough: bool  # after it, every remaining description fits
    cut_count: int  # descriptions cut now (shortened or name only because of the budget)
    needed: int  # characters the full listing needs
    budget: int
    headline: str  # one sentence: how many are cut and why
    proposal: str  # one sentence: what the one click does
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _mechanism_words(state: str) -> str:
    # plain words: the exact setting each click writes is in the change's notice and in History
    return ("keep only their names in the listing (a switch in your own settings, never the team's; Undo brings the "
            "descriptions back)" if state == "name-only"
            else "hide them from the listing (a line added to each skill's SKILL.md; you can still type /name)")


def budget_remedy(registry: Registry, listing: ListingResult, outcomes: Mapping[str, ListingOutcome],
                  usage: Mapping[str, int] | None = None) -> BudgetRemedy | None:
    """None when no description is cut by the budget. `usage`: Skill.key → invocations (fewer go first)."""
    cut = [key for key, o in outcomes.items() if o.cause == CAUSE_BUDGET and o.outcome in (Outcome.SHORTENED,
                                                                                           Outcome.NAME_ONLY)]
    if not cut:
        return None
    totals = listing.totals
    profile = registry.profile
    state = "name-only" if profile.supports(Feature.SKILL_OVERRIDES) else "hidden"
    skills = {s.key: s for s in registry.skills}
    candidates = []
    for entry in listing.entries:
        skill = skills.get(entry.key) if entry.key is not None else None
        if skill is None or entry.kind in (BUNDLED, BUILTIN_COMMAND) or entry.fixed:
            continue
        if state == "name-only":
            if not override_keys(skill):
                continue  # plugin skills: Claude Code ignores skillOverrides for them
            saving = entry.width - entry_width(f"- {entry.name}", profile)
        else:
            if skill.source not in _OWN_FILES or skill.path is None:
                continue
            saving = entry.width + 1  # the entry and its newline go
        if saving > 0:
            candidates.append((usage.get(skill.key, 0) if usage else 0, -saving, entry.name, skill.key, saving))
    candidates.sort()
    over = totals.full_total - totals.budget
    chosen, saves = [], 0
    for _used, _neg, name, key, saving in candidates:
        if saves >= over:
            break
        chosen.append((key, name))
        saves += saving
    if not chosen:
        return None
    enough = saves >= over
    headline = (f"{len(cut):,} description{'s are' if len(cut) != 1 else ' is'} cut: the listing needs "
                f"{totals.full_total:,} characters and Claude Code allows {totals.budget:,}.")
    ranked = "least used and largest" if usage else "largest"
    proposal = (f"Turn the {len(chosen):,} {ranked} skill{'s' if len(chosen) != 1 else ''} to "
                f"{'name only' if state == 'name-only' else 'hidden'} to {_mechanism_words(state)}: "
                f"saves {saves:,} characters" + (", and every other description fits." if enough else
                                                 ", not yet enough for every description to fit."))
    return BudgetRemedy(state, [k for k, _ in chosen], [n for _, n in chosen], saves, enough, len(cut),
                        totals.full_total, totals.budget, headline, proposal)
