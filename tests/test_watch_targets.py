"""core.load.watch_targets: the folders the app watches, decided in core (the GUI's watcher only asks)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from skillmanager.core.load.sources import project_levels_up_to_home
from skillmanager.core.load.watch_targets import is_relevant_change, watch_targets
from skillmanager.core.load.workspace import Workspace


def _tree(tmp_path: Path) -> Workspace:
    home = tmp_path / "home"
    repo = home / "repo"
    cwd = repo / "apps" / "web"
    for folder in (home / ".claude" / "skills" / "mine", repo / ".claude" / "skills" / "team",
                   repo / "packages" / "api" / ".claude" / "skills" / "api-skill", repo / "node_modules" / "x",
                   repo / "build-out" / ".claude" / "skills" / "gen", cwd):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("build-out/\n")
    return Workspace.create(home=home, cwd=repo, managed_root=None)


def test_watches_every_level_and_nested_package_but_not_heavy_or_ignored(tmp_path):
    workspace = _tree(tmp_path)
    plan = {str(p.relative_to(tmp_path)) for p in watch_targets(workspace)}
    assert "home/.claude/skills/mine" in plan
    assert "home/repo/.claude/skills/team" in plan
    assert "home/repo/packages/api/.claude/skills/api-skill" in plan  # where discovery will find skills
    assert not any("node_modules" in p for p in plan)
    assert not any(p.startswith("home/repo/build-out") for p in plan)  # git ignores it: never discovered


def test_walk_up_levels_are_the_loaders(tmp_path):
    workspace = _tree(tmp_path)
    deep = Workspace.create(home=workspace.home, cwd=workspace.cwd / "apps" / "web", managed_root=None)
    plan = set(watch_targets(deep))
    levels = project_levels_up_to_home(deep.cwd, deep.home)
    assert [p.name for p in levels] == ["web", "apps", "repo"]  # stops at the git root
    assert all(level in plan for level in levels)
    assert deep.home.parent not in plan


def test_relevant_changes(tmp_path):
    workspace = _tree(tmp_path)
    assert is_relevant_change(str(workspace.cwd / ".claude" / "skills" / "team" / "SKILL.md"), workspace)
    assert is_relevant_change(str(workspace.cwd / "packages" / "api" / ".claude"), workspace)
    assert not is_relevant_change(str(workspace.cwd / "node_modules" / ".claude" / "x.md"), workspace)
    assert not is_relevant_change(str(workspace.cwd / "src" / "main.py"), workspace)
