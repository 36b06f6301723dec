"""What a simulated session has added so far, for a registry view (discovered and activated skills).

Read from the session's public step results only: the name each skill is offered under is the one
its latest step reported (a later discovery can re-scope an earlier skill to `dir:name`, current
profile); an activation whose name is taken (`listed_as` None) adds nothing the model can use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import Skill

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class SessionAddition:
    skill: Skill
    name: str  # the name the model uses now
    step: int  # 1-based index of the step that first added it
    how: str  # "discovered" | "activated"
    detail: str  # plain words: which step, which file or pattern


@dataclass
class SessionAdditions:
    discovered: list[SessionAddition] = field(default_factory=list)  # nested skills, discovery order
    activated: list[SessionAddition] = field(default_factory=list)  # conditional skills now active
    steps: int = 0

    @property
    def empty(self) -> bool:
        return not self.discovered and not self.activated


def session_additions(session: Session) -> SessionAdditions:
    results = list(session.results)
    out = SessionAdditions(steps=len(results))
    discovered: dict[int, SessionAddition] = {}  # id(skill) -> addition (kept in first-seen order)
    activated: dict[int, SessionAddition] = {}
    for result in results:
        step = result.step
        where = f"step {result.index}: {step.op} {result.rel_path or step.path}"
        for new in result.new_skills:
            if new.how == "activated":
                continue  # reported through result.activated, with its pattern
            key = id(new.skill)
            first = discovered.get(key)
            rel = f" in {new.rel_dir}/.claude/skills" if new.rel_dir else ""
            if first is None:
                discovered[key] = SessionAddition(new.skill, new.name, result.index, "discovered",
                                                  f"discovered{rel} by {where}")
            else:  # re-scoped by a later step: same skill, new name
                discovered[key] = SessionAddition(new.skill, new.name, first.step, "discovered",
                                                  f"{first.detail}; offered as {new.name} since {where}")
        for activation in result.activated:
            if not activation.listed_as or id(activation.skill) in activated:
                continue
            activated[id(activation.skill)] = SessionAddition(
                activation.skill, activation.listed_as, result.index, "activated",
                f"activated by {where} (matches `{activation.pattern}`)")
    out.discovered = list(discovered.values())
    out.activated = list(activated.values())
    return out
