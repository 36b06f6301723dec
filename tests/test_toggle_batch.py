"""Several toggles planned as one change (core/edit/batch.py) describe themselves like a single toggle."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillmanager.core.edit.batch import plan_batch
from skillmanager.core.edit.toggle import apply_plan, plan_toggle, undo
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry


def _registry(tmp_path: Path, profile: str):
    home = tmp_path / "home"
    for name in ("alpha", "beta"):
        skill_md = home / "proj" / ".claude" / "skills" / name / "SKILL.md"
        skill_md.parent.mkdir(parents=True)
        skill_md.write_text(f"---\ndescription: {name} skill.\n---\nbody\n", encoding="utf-8")
    (tmp_path / "managed").mkdir()
    workspace = Workspace.create(home=home, cwd=home / "proj", managed_root=tmp_path / "managed", profile=profile,
                                 env={"HOME": str(home)})
    return load_registry(workspace)


@pytest.mark.parametrize(("profile", "state"), [("current", "off"), ("legacy", "blocked")])
def test_a_batch_plan_and_its_undo_serialise_like_one_toggle(tmp_path, monkeypatch, profile, state):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    registry = _registry(tmp_path, profile)
    skills = [registry.find("alpha"), registry.find("beta")]
    plan = plan_batch(registry, [(skill, state) for skill in skills])
    single = plan_toggle(registry, skills[0], state)
    assert plan.ok and plan.edits
    doc = plan.to_json()
    assert doc["profile"] == single.to_json()["profile"] == registry.profile.name
    assert doc["state"] == state and doc["name"] == "2 skills"
    json.dumps(doc)
    reverse = undo(apply_plan(plan))
    assert reverse.plan.to_json()["profile"] == registry.profile.name
