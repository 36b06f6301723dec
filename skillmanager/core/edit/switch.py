"""The one-click switch of a row: is a skill on, and what turning it on or off writes.

One click uses the mechanism the detected Claude Code reads without touching the skill's own SKILL.md or a
team-shared file: with skillOverrides (2.1.332) "off" / absent, in `default_scope` (personal files only);
without it (2.1.88) a deny rule `Skill(name)` — the model's calls are refused, the name stays listed. The
other mechanisms (name-only, user-invocable-only, hidden, another scope) stay under "More options".
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..versions.features import Feature
from ..model import Skill
from .batch import plan_batch
from .toggle import TogglePlan, ToggleState, scope_path, default_scope, effective_toggle_state

if TYPE_CHECKING:
    from ..rules.registry import Registry

__all__ = ["SwitchFacts", "switch_facts", "switch_state_for", "plan_switch"]

PERSONAL_SCOPES = ("user", "local")  # project settings.json is shared with the team: never written by one click


@dataclass(frozen=True)
class SwitchFacts:
    is_on: bool
    enabled: bool
    target: Path | None  # the file a click writes
    tooltip: str  # names the file, or says why the switch is not available


def switch_state_for(registry: Registry, turn_on: bool) -> str:
    """The toggle state one click asks for (a version difference, read from the profile)."""
    if registry.profile.supports(Feature.SKILL_OVERRIDES):
        return "on" if turn_on else "off"
    return "unblock" if turn_on else "blocked"


def _is_on(registry: Registry, skill: Skill, toggle_state: ToggleState) -> bool:
    if registry.profile.supports(Feature.SKILL_OVERRIDES):
        return toggle_state.state not in ("off",) and not toggle_state.blocked
    return not toggle_state.blocked


def switch_facts(registry: Registry, skill: Skill) -> SwitchFacts:
    state = effective_toggle_state(registry, skill, with_controls=False)  # the decision, not every control
    is_on = _is_on(registry, skill, state)
    if state.locked:
        return SwitchFacts(is_on, False, None, state.locked_reason or "Managed policy decides this skill.")
    scope = default_scope(registry, skill)
    if scope not in PERSONAL_SCOPES:
        return SwitchFacts(is_on, False, None, "Use More options: this would change a file shared with the team.")
    target = scope_path(registry, scope)
    verb = "Turn on" if not is_on else "Turn off"
    how = ("" if registry.profile.supports(Feature.SKILL_OVERRIDES) else
           " (Claude Code 2.1.88 has no off setting: a deny rule refuses the model's calls; the name stays listed)")
    return SwitchFacts(is_on, True, target, f"{verb}: writes {target}{how}")


def plan_switch(registry: Registry, skills: Sequence[Skill], turn_on: bool) -> TogglePlan:
    """One plan (one write per file, one History entry) turning `skills` on or off by one click."""
    state = switch_state_for(registry, turn_on)
    items = [(s, state) for s in skills]
    plan = plan_batch(registry, items, label=skills[0].name if len(skills) == 1 else f"{len(skills)} skills")
    shared = [e for e in plan.edits if e.scope not in PERSONAL_SCOPES]
    if shared:
        plan.refusal = (f"{shared[0].path} is shared with the team; one click never writes it. "
                        "Use More options to choose a scope.")
        plan.edits = []
    return plan
