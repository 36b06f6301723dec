"""The registry item model: Qt's model tester, incremental updates keep persistent indexes, filter, sort."""
from __future__ import annotations

import shutil

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QPersistentModelIndex, Qt  # noqa: E402
from PySide6.QtTest import QAbstractItemModelTester  # noqa: E402

from skillmanager.core.demo import create_demo_workspace  # noqa: E402
from skillmanager.gui.engine import scan, skill_identity  # noqa: E402
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role  # noqa: E402
from skillmanager.gui.states import Visual  # noqa: E402


@pytest.fixture()
def demo(tmp_path):
    return create_demo_workspace(tmp_path / "demo")


def _rows(model, parent=None):
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def test_model_tester_on_populate_and_incremental_updates(qapp, demo):
    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.apply_snapshot(scan(demo))
    assert model.rowCount() > 5
    skills_dir = demo.cwd / ".claude" / "skills"
    (skills_dir / "aaa-new").mkdir()
    (skills_dir / "aaa-new" / "SKILL.md").write_text("---\ndescription: Added later.\n---\nBody\n", encoding="utf-8")
    shutil.rmtree(skills_dir / "scratchpad")
    model.apply_snapshot(scan(demo))
    names = {i.data(Role.Name) for g in _rows(model) for i in _rows(model, g)}
    assert "aaa-new" in names and "scratchpad" not in names
    del tester


def test_groups_in_precedence_order_with_counts_and_roles(qapp, demo):
    model = RegistryModel()
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    groups = _rows(model)
    labels = [g.data(Qt.ItemDataRole.DisplayRole) for g in groups]
    assert labels[0].startswith("Managed policy (1)")
    assert labels[1].startswith("User")
    assert labels[-1].startswith("Conditional")
    assert sum(model.rowCount(g) for g in groups) == len(snapshot.skills)
    states = {i.data(Role.Name): i.data(Role.State) for g in groups for i in _rows(model, g)}
    assert states["env-check"] is Visual.ACTIVE
    assert states["scaffold-component"] is Visual.HIDDEN
    assert states["db-reset"] is Visual.BLOCKED
    assert states["verbose-logger"] is Visual.NAME_ONLY
    assert states["sql-review"] is Visual.CONDITIONAL
    assert states["broken-yaml"] is Visual.INVALID
    shadowed = [i for g in groups for i in _rows(model, g) if i.data(Role.State) is Visual.SHADOWED]
    assert {i.data(Role.Name) for i in shadowed} >= {"commit-message", "team-style", "deploy", "release-notes"}
    env = next(i for g in groups for i in _rows(model, g) if i.data(Role.Name) == "env-check")
    assert env.data(Role.Tokens) > 0 and env.data(Role.Path).endswith("SKILL.md")
    assert isinstance(env.data(Role.Diagnostics), list)


def test_persistent_index_survives_an_insert_before_it(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    env = next(i for g in _rows(model) for i in _rows(model, g) if i.data(Role.Name) == "env-check")
    persistent = QPersistentModelIndex(env)
    row_before = env.row()
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    skills_dir = demo.cwd / ".claude" / "skills"
    (skills_dir / "aaa-first").mkdir()
    (skills_dir / "aaa-first" / "SKILL.md").write_text("---\ndescription: Sorts first.\n---\n", encoding="utf-8")
    model.apply_snapshot(scan(demo))
    assert not resets
    assert persistent.isValid()
    assert persistent.data(Role.Name) == "env-check"
    assert persistent.row() == row_before + 1


def test_changed_skill_emits_data_changed_not_reset(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    changed = []
    model.dataChanged.connect(lambda a, b, roles=None: changed.append(a.data(Role.Name)))
    path = demo.cwd / ".claude" / "skills" / "deploy" / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Deploy a platform", "Ship a platform"), encoding="utf-8")
    model.apply_snapshot(scan(demo))
    assert "deploy" in changed


def test_filter_is_recursive_and_sort_by_tokens(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    tester = QAbstractItemModelTester(proxy, QAbstractItemModelTester.FailureReportingMode.Fatal)
    proxy.set_text("release-notes")
    names = {i.data(Role.Name) for g in _rows(proxy) for i in _rows(proxy, g)}
    assert names == {"release-notes"}
    assert proxy.rowCount() == 2  # the project group and the add-dir group
    proxy.set_text("")
    proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)
    for group in _rows(proxy):
        tokens = [i.data(Role.Tokens) for i in _rows(proxy, group)]
        assert tokens == sorted(tokens, reverse=True)
    del tester


def test_identity_lookup(qapp, demo):
    model = RegistryModel()
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    skill = next(s for s in snapshot.skills if s.name == "deploy" and s.kind == "command")
    assert model.index_for_identity(skill_identity(skill)).data(Role.Skill) is skill
