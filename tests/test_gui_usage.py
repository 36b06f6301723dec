"""The Used column and the usage-ranked budget remedy: counts read off the UI thread in engine.scan,
shown and sorted by the registry model (docs/glossary.md "Used")."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QModelIndex, Qt  # noqa: E402

from skillmanager.core.demo import create_demo_workspace  # noqa: E402
from skillmanager.core.load.workspace import Workspace  # noqa: E402
from skillmanager.gui import engine  # noqa: E402
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_usage(monkeypatch):
    monkeypatch.setattr(engine, "_USAGE_CACHE", {})


def _write_log(config_home: Path, model_calls: dict[str, int], typed: dict[str, int]) -> None:
    """A session log in Claude Code's format (tests/golden/transcripts), dated yesterday."""
    when = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    lines, n = [], 0
    for name, count in model_calls.items():
        for _ in range(count):
            n += 1
            lines.append({"type": "assistant", "uuid": f"a{n}", "timestamp": when, "message": {
                "role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "Skill",
                                                  "input": {"skill": name}}]}})
    for name, count in typed.items():
        for _ in range(count):
            n += 1
            lines.append({"type": "user", "uuid": f"u{n}", "timestamp": when, "message": {
                "role": "user", "content": f"<command-message>{name}</command-message>\n"
                                           f"<command-name>/{name}</command-name>\n<command-args></command-args>"}})
    path = config_home / "projects" / "-home-proj" / "session.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _skill_rows(model, parent=QModelIndex()):
    out = []
    for r in range(model.rowCount(parent)):
        group = model.index(r, 0, parent)
        out += [model.index(c, 0, group) for c in range(model.rowCount(group))]
    return out


def test_used_column_words_tooltip_role_and_sort(qapp, tmp_path):
    demo = create_demo_workspace(tmp_path / "demo")
    _write_log(demo.config_home, {"env-check": 12, "release-notes": 2}, {"env-check": 2})
    snapshot = engine.scan(demo)
    model = RegistryModel()
    model.apply_snapshot(snapshot)
    rows = {i.data(Role.Name): i for i in _skill_rows(model) if not i.data(Role.IsGroup)}
    env = rows["env-check"].siblingAtColumn(Column.Used)
    assert env.data(Qt.ItemDataRole.DisplayRole) == "14×"
    assert env.data(Qt.ItemDataRole.ToolTipRole).startswith("Used 14× in 30 days: ")
    assert "called it 12×" in env.data(Qt.ItemDataRole.ToolTipRole) and "/name 2×" in env.data(Qt.ItemDataRole.ToolTipRole)
    assert rows["env-check"].data(Role.Usage).typed == 2
    assert rows["scratchpad"].siblingAtColumn(Column.Used).data(Qt.ItemDataRole.DisplayRole) == "never"
    assert model.headerData(Column.Used, Qt.Orientation.Horizontal) == "Used"
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.Used, Qt.SortOrder.DescendingOrder)
    for r in range(proxy.rowCount()):
        group = proxy.index(r, 0)
        counts = [proxy.index(c, 0, group).data(Role.Usage).total for c in range(proxy.rowCount(group))
                  if proxy.index(c, 0, group).data(Role.Usage) is not None]
        assert counts == sorted(counts, reverse=True)
    user_group = next(proxy.index(r, 0) for r in range(proxy.rowCount())
                      if any(proxy.index(c, 0, proxy.index(r, 0)).data(Role.Name) == "env-check"
                             for c in range(proxy.rowCount(proxy.index(r, 0)))))
    assert proxy.index(0, 0, user_group).data(Role.Name) == "env-check"


def test_budget_remedy_in_the_window_ranks_rarely_used_skills_first(tmp_path):
    home = tmp_path / "home"
    for i in range(12):
        folder = home / ".claude" / "skills" / f"skill-{i:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: Skill {i} {'x' * (15 * i)}.\n---\nbody\n", encoding="utf-8")
    (home / "proj").mkdir()

    def workspace(budget):
        return Workspace.create(home=home, cwd=home / "proj", managed_root=None, profile="current",
                                env={"HOME": str(home)}, budget=budget)

    full = engine.scan(workspace(1_000_000)).listing.totals.full_total
    plain = engine.scan(workspace(full - 400)).remedy
    assert plain is not None and plain.names[0] == "skill-11"  # no logs: the largest first
    assert "least used" not in plain.proposal
    _write_log(home / ".claude", {f"skill-{i:02d}": 5 for i in range(12) if i != 3}, {})
    engine._USAGE_CACHE.clear()
    ranked = engine.scan(workspace(full - 400)).remedy
    assert ranked.names[0] == "skill-03" and "least used" in ranked.proposal


def test_a_new_count_repaints_only_the_used_cells_that_changed(qapp, tmp_path):
    demo = create_demo_workspace(tmp_path / "demo")
    _write_log(demo.config_home, {"env-check": 1}, {})
    model = RegistryModel()
    model.apply_snapshot(engine.scan(demo))
    _write_log(demo.config_home, {"env-check": 3, "deploy": 1}, {})
    engine._USAGE_CACHE.clear()
    changed = []
    model.dataChanged.connect(lambda top, bottom, *_: changed.append((top.data(Role.Name), top.column())))
    model.apply_snapshot(engine.scan(demo))
    used = sorted(name for name, column in changed if column == Column.Used)
    assert used == ["deploy", "env-check"]  # the winning copies whose counts changed, nothing else
    rows = {i.data(Role.Name): i for i in _skill_rows(model) if not i.data(Role.IsGroup)}
    assert rows["env-check"].siblingAtColumn(Column.Used).data(Qt.ItemDataRole.DisplayRole) == "3×"



def test_window_least_used_sort_puts_unused_skills_first(qtbot, tmp_path):
    from gui_support import SCAN_TIMEOUT_MS, demo_window

    with demo_window(qtbot, tmp_path) as win:
        workspace = win.registry_panel.model._snapshot.workspace
        _write_log(workspace.config_home, {"env-check": 5, "broken-yaml": 2}, {"deploy": 1})
        engine._USAGE_CACHE.clear()
        before = win.registry_panel.model._snapshot
        win.context.rescan()
        qtbot.waitUntil(lambda: win.registry_panel.model._snapshot is not before and any(
            u.total for u in win.registry_panel.model._snapshot.usage.values()), timeout=SCAN_TIMEOUT_MS)
        panel = win.registry_panel
        panel.sort_combo.setCurrentText("Least used")
        proxy = panel.proxy
        group = next(proxy.index(r, 0) for r in range(proxy.rowCount())
                     if any(proxy.index(c, 0, proxy.index(r, 0)).data(Role.Name) == "env-check"
                            for c in range(proxy.rowCount(proxy.index(r, 0)))))
        names = [proxy.index(c, 0, group).data(Role.Name) for c in range(proxy.rowCount(group))]
        totals = [proxy.index(c, 0, group).data(Role.Usage).total for c in range(proxy.rowCount(group))]
        assert totals == sorted(totals) and names[-1] == "env-check" and totals[0] == 0
