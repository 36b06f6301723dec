"""Turning one losing copy of a contested name off, leaving the winner alone.

Claude Code's settings switches (skillOverrides, permissions.deny) are keyed by the name, so they reach every
copy; the one switch a single copy carries is `disable-model-invocation` in its own SKILL.md. The plan goes
through toggle.plan_toggle ("hidden"), so it is previewed, written atomically, undoable and in History.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model import Skill
from ..rules.conflict_words import SAME_FILE
from .toggle import TogglePlan, plan_toggle

if TYPE_CHECKING:
    from ..rules.registry import Registry

OFF_BY_FRONT_MATTER = (
    "Claude Code's settings switches (skillOverrides, permissions.deny) are keyed by the skill's name, so they "
    "would turn the winning copy off too. The one switch that reaches this copy alone is "
    "disable-model-invocation: true in its own SKILL.md: this writes that line there (Undo removes it). The copy "
    "is then hidden from the model; /{name} still reaches the winner.")


@dataclass(frozen=True)
class TurnOff:
    plan: TogglePlan | None  # None when there is nothing to turn off
    explanation: str  # what the action writes and why that file (shown before it is pressed)


def plan_turn_off_copy(registry: Registry, loser: Skill) -> TurnOff:
    if loser.state.duplicate_of is not None:
        return TurnOff(None, f"This is {SAME_FILE}: there is no separate copy to turn off. Remove the link or "
                             "the folder that reaches it a second time.")
    if loser.disable_model_invocation:
        return TurnOff(None, f"This copy is already hidden from the model (disable-model-invocation: true in "
                             f"{loser.path}).")
    plan = plan_toggle(registry, loser, "hidden")
    explanation = OFF_BY_FRONT_MATTER.format(name=loser.name)
    if not plan.ok:
        explanation = plan.refusal or explanation
    return TurnOff(plan, explanation)
