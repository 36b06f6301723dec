"""Several toggles as one change: one write per file, one History entry, one undo.

Each skill is planned by `toggle.plan_toggle` exactly as alone; a settings file several plans touch is read
once and each plan edits the text the previous one produced (`toggle.pending_texts`). Skills whose toggle
is refused are left out and named in the notes; the rest still form one plan.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..model import Skill
from .atomic_write import Snapshot
from .toggle import FileEdit, TogglePlan, file_diff, pending_texts, plan_toggle

if TYPE_CHECKING:
    from ..rules.registry import Registry

__all__ = ["plan_batch"]


def plan_batch(registry: Registry, items: Sequence[tuple[Skill, str]], scope: str | None = None, *,
               label: str | None = None) -> TogglePlan:
    """One plan for `(skill, state)` pairs. `label` names the change in History and the notice
    (default: the skill's name for one item, "N skills" for more)."""
    states = {state for _skill, state in items}
    plan = TogglePlan(name=label or (items[0][0].name if len(items) == 1 else f"{len(items)} skills"),
                      state=states.pop() if len(states) == 1 else "mixed", profile=registry.profile,
                      scope=scope, mechanism=None)
    merged: dict[Path, FileEdit] = {}
    first_text: dict[Path, str] = {}
    pending: dict[Path, tuple[Snapshot, str]] = {}
    messages, refused, mechanisms, scopes = [], [], set(), set()
    token = pending_texts.set(pending)
    try:
        for skill, state in items:
            one = plan_toggle(registry, skill, state, scope)
            if not one.ok:
                refused.append(f"{skill.name}: {one.refusal}")
                continue
            mechanisms.add(one.mechanism)
            scopes.add(one.scope)
            plan.notes += [n for n in one.notes if n not in plan.notes]
            if not one.edits:
                continue
            messages.append(f"{skill.name}: {one.message}")
            for edit in one.edits:
                earlier = merged.get(edit.path)
                if earlier is None:
                    first_text[edit.path] = edit.snapshot.data.decode("utf-8") if edit.snapshot.exists else ""
                    merged[edit.path] = edit
                else:
                    merged[edit.path] = FileEdit(edit.path, edit.target, edit.scope, f"{earlier.change}; {edit.change}",
                                                 earlier.snapshot, edit.new_data, "")
                pending[edit.path] = (merged[edit.path].snapshot, edit.new_data.decode("utf-8"))
    finally:
        pending_texts.reset(token)
    for path, edit in merged.items():
        edit.diff = file_diff(path, first_text[path], edit.new_data.decode("utf-8"), not edit.snapshot.exists)
        plan.edits.append(edit)
    plan.mechanism = mechanisms.pop() if len(mechanisms) == 1 else ("+".join(sorted(m for m in mechanisms if m)) or None)
    plan.scope = scopes.pop() if len(scopes) == 1 else plan.scope
    if refused:
        plan.notes.append(f"{len(refused)} left as they are: " + " | ".join(refused))
    if not plan.edits and refused and len(refused) == len(items):
        plan.refusal = " | ".join(refused)
    plan.message = "; ".join(messages) if messages else "Nothing to write: every skill is already in that state."
    return plan
