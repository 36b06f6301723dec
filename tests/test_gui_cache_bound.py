"""A watched workspace that churns for a long time must not keep every old Skill object alive through the
registry model's caches (filter text, hidden-row pool): live Skill objects stay within the current snapshot's
size plus a constant, however many rescans happened."""
from __future__ import annotations

import gc

import pytest

pytest.importorskip("PySide6")
from skillmanager.core.demo import create_demo_workspace  # noqa: E402
from skillmanager.core.model import Skill  # noqa: E402
from skillmanager.gui.engine import scan  # noqa: E402
from skillmanager.gui.models.registry_model import Role, RegistryModel  # noqa: E402

CHURN_ROUNDS = 40
SLACK = 8  # objects a rescan may legitimately hold for a moment (the snapshot being replaced, session additions)


def _skills_alive() -> list[Skill]:
    gc.collect()
    return [obj for obj in gc.get_objects() if isinstance(obj, Skill)]


def _live_skills_made_since(earlier: list[Skill]) -> int:
    """Skills alive now that were not alive before the test: earlier tests' windows may still hold theirs.
    `earlier` keeps those objects alive, so no new Skill can reuse one of their ids."""
    earlier_ids = {id(obj) for obj in earlier}
    return sum(1 for obj in _skills_alive() if id(obj) not in earlier_ids)


def _touch_every_row(model) -> None:
    """Reading each row's data fills the filter-text cache, as the filter box and the view do."""
    from PySide6.QtCore import QModelIndex

    for g in range(model.rowCount(QModelIndex())):
        group = model.index(g, 0, QModelIndex())
        for r in range(model.rowCount(group)):
            model.index(r, 0, group).data(Role.Name)


def test_live_skill_objects_stay_bounded_by_the_snapshot_after_churn(qapp, tmp_path):
    earlier = _skills_alive()
    demo = create_demo_workspace(tmp_path / "demo")
    skills_dir = demo.cwd / ".claude" / "skills"
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    for round_ in range(CHURN_ROUNDS):
        folder = skills_dir / f"churn-{round_ % 5}"
        folder.mkdir(exist_ok=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: Churn round {round_}.\n---\nBody\n", encoding="utf-8")
        snapshot = scan(demo)
        model.apply_snapshot(snapshot)
        for needle in ("churn", "e", ""):  # every filter text searches (and caches) every skill
            model.set_filter(needle)
            _touch_every_row(model)
        del snapshot
    snapshot_size = len(model._snapshot.skills)
    live = _live_skills_made_since(earlier)
    # Unbounded caches would hold CHURN_ROUNDS x snapshot_size objects here (thousands).
    assert live <= snapshot_size + SLACK, (live, snapshot_size)
    assert len(model._haystacks) <= snapshot_size + SLACK
