"""The demo workspace: copied safely, and it really has every kind of skill and conflict (per the engine)."""
from __future__ import annotations

import os

import pytest

from skillmanager.core.demo import copy_demo, create_demo_workspace
from skillmanager.core.model import Listed, SourceKind


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return create_demo_workspace(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def registry(demo):
    from skillmanager.core.rules.registry import load_registry

    return load_registry(demo)


def test_copy_is_a_git_repo_with_symlink_and_ignore_file(tmp_path):
    paths = copy_demo(tmp_path / "copy")
    assert (paths.repo / ".git").is_dir() or not __import__("shutil").which("git")
    assert (paths.repo / ".gitignore").read_text().count("platform/vendor/") == 1
    assert not (paths.repo / "dot-gitignore").exists()
    link = paths.home / ".claude" / "skills" / "team-style"
    assert link.is_symlink()
    assert os.path.realpath(link) == os.path.realpath(paths.repo / ".claude" / "skills" / "team-style")
    assert (paths.cwd / "node_modules" / "left-pad" / "index.js").is_file()


def test_two_copies_are_independent(tmp_path):
    first, second = copy_demo(tmp_path / "a"), copy_demo(tmp_path / "b")
    target = first.cwd / ".claude" / "skills" / "deploy" / "SKILL.md"
    target.write_text("changed", encoding="utf-8")
    assert (second.cwd / ".claude" / "skills" / "deploy" / "SKILL.md").read_text(encoding="utf-8") != "changed"


def test_the_demo_listing_does_not_follow_the_machines_budget_variable(tmp_path, monkeypatch):
    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.core.layers.listing import build_listing
    from skillmanager.core.rules.registry import load_registry

    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "-5")
    workspace = create_demo_workspace(tmp_path / "copy")
    assert "SLASH_COMMAND_TOOL_CHAR_BUDGET" not in workspace.env
    assert build_listing(load_registry(workspace)).totals.budget_origin == "window"


def test_workspace_points_into_the_copy(demo):
    paths = demo.demo_paths
    assert demo.cwd == paths.cwd and demo.home == paths.home
    assert paths.add_dir in demo.add_dirs and paths.plugin_dir in demo.plugin_dirs
    assert "CLAUDE_CONFIG_DIR" not in demo.env and demo.env["HOME"] == str(paths.home)


def test_every_source_kind_is_present(registry):
    kinds = {s.source for s in registry.skills}
    for kind in (SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND,
                 SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL, SourceKind.MCP):
        assert kind in kinds, kind
    project_levels = {s.source_root for s in registry.skills if s.source is SourceKind.PROJECT}
    assert len(project_levels) == 2  # the cwd and the repo root (walk-up)


@pytest.fixture(scope="module", params=["legacy", "current"])
def registry_by_profile(request, tmp_path_factory):
    from skillmanager.core.rules.registry import load_registry

    return load_registry(create_demo_workspace(tmp_path_factory.mktemp(f"demo-{request.param}"),
                                               profile=request.param))


def test_every_conflict_kind_is_present(registry_by_profile):
    registry = registry_by_profile
    conflicts = {c.name: c for c in registry.conflicts()}
    # managed > user > project for the same name
    assert [l.source for l, _ in conflicts["commit-message"].losers] == [SourceKind.USER, SourceKind.PROJECT]
    assert conflicts["commit-message"].winner.source is SourceKind.MANAGED
    # the symlinked copy collapses by realpath
    team = conflicts["team-style"]
    assert any(l.state.duplicate_of is not None for l, _ in team.losers)
    # a skill beats a legacy command of the same name
    assert conflicts["deploy"].winner.kind == "skill"
    assert any(l.kind == "command" for l, _ in conflicts["deploy"].losers)
    # project beats --add-dir for the name `release-notes`
    clash = conflicts["release-notes"]
    assert clash.winner.source is SourceKind.PROJECT and clash.winner.name == "release-notes"
    assert registry.find("release-notes") is clash.winner
    [(extra, reason)] = clash.losers
    assert extra.source is SourceKind.ADD_DIR
    if registry.profile.name == "legacy":  # shadowed: first match wins
        assert extra.name == "release-notes" and extra.state.shadowed_by is clash.winner
        assert "project beats --add-dir" in reason
    else:  # 2.1.332 renames the clashing --add-dir copy `extra:release-notes` (FINDINGS-registry.md, seeds 1, 22,
        # 30, 35, 38, 39): a separate skill, listed and callable under that name, not shadowed
        assert extra.name == "extra:release-notes" and extra.state.shadowed_by is None
        assert extra.state.listed is Listed.FULL and registry.find("extra:release-notes") is extra
        assert "listed as extra:release-notes" in reason and "scoped to extra/" in extra.description


def test_states_of_the_special_skills(registry):
    def one(name, source=SourceKind.PROJECT):
        return next(s for s in registry.skills if s.name == name and s.source is source)

    assert one("scaffold-component").state.listed is Listed.NO  # disable-model-invocation
    assert one("internal-helper").user_invocable is False
    assert any(d.kind == "deny" for d in one("db-reset").state.decided_by)
    assert one("verbose-logger").state.listed is Listed.NAME_ONLY  # skillOverrides name-only (current)
    assert one("sql-review").state.conditional and not one("sql-review").state.active
    assert one("typescript-style").state.conditional
    assert one("broken-yaml").has_errors
    assert any(d.code == "yaml-recovered" for d in one("ticket-triage").diagnostics)
    assert one("frontend:build", SourceKind.COMMAND).kind == "command"


def test_inline_shell_and_cjk_and_long_description(registry):
    from skillmanager.core.layers.inline_shell import find_inline_shell

    env_check = next(s for s in registry.skills if s.name == "env-check")
    commands = [snippet.command for snippet in find_inline_shell(env_check.body)]
    assert "git branch --show-current" in commands and any("git status" in c for c in commands)
    assert any("\u4e00" <= ch <= "\u9fff" for s in registry.skills for ch in s.description)
    assert len(next(s for s in registry.skills if s.name == "incident-runbook").description) > 250


def test_nested_packages_for_discovery(demo):
    cwd = demo.cwd
    assert (cwd / "packages" / "api" / ".claude" / "skills" / "api-conventions" / "SKILL.md").is_file()
    assert (cwd / "packages" / "web" / ".claude" / "skills" / "api-conventions" / "SKILL.md").is_file()
    assert (cwd / "vendor" / "old-sdk" / ".claude" / "skills" / "sdk-helper" / "SKILL.md").is_file()


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_conflicts_command_shows_the_add_dir_clash(tmp_path, profile):
    """`skillmanager conflicts`: the winner, then the --add-dir copy as shadowed (legacy) or renamed (current)."""
    import io
    import json

    from skillmanager.cli import main

    paths = copy_demo(tmp_path / "demo")
    argv = ["conflicts", "--profile", profile, "--cwd", str(paths.cwd), "--home", str(paths.home),
            "--managed-dir", str(paths.managed_root), "--add-dir", str(paths.add_dir),
            "--plugin-dir", str(paths.plugin_dir)]
    out = io.StringIO()
    assert main(argv, out) == 0
    text = out.getvalue()
    block = text[text.index("release-notes\n  wins:  project"):]
    extra = paths.add_dir / ".claude" / "skills" / "release-notes" / "SKILL.md"
    if profile == "legacy":
        assert f"  loses: add-dir  {extra}\n         Source precedence: project beats --add-dir" in block
    else:
        assert f"  renamed to extra:release-notes: add-dir  {extra}\n         The name release-notes is taken" in block
    out = io.StringIO()
    assert main(argv + ["--json"], out) == 0
    [clash] = [c for c in json.loads(out.getvalue()) if c["name"] == "release-notes"]
    assert clash["winner"]["name"] == "release-notes" and clash["winner"]["source"] == "project"
    assert [l["name"] for l in clash["losers"]] == ["release-notes" if profile == "legacy" else "extra:release-notes"]
