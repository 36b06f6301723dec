"""Source enumeration and bad input (spec §1)."""
import os
from pathlib import Path

import pytest

from skillmanager.core.load import safe_read
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.load.sources import command_name, project_dirs_up_to_home
from skillmanager.core.load.workspace import Workspace, WorkspaceError


def _w(path: Path, text="---\ndescription: d\n---\nbody\n", data: bytes | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if data is not None:
        path.write_bytes(data)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _ws(tmp_path, cwd, **kw):
    return Workspace.create(home=tmp_path / "home", cwd=cwd, managed_root=None, env={}, **kw)


def test_walk_up_stops_at_git_root_and_below_home(tmp_path):
    home = tmp_path / "home"
    repo = home / "repo"
    deep = repo / "a" / "b"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    for d in (home, home / "repo", repo / "a", deep):
        (d / ".claude" / "skills").mkdir(parents=True, exist_ok=True)
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    assert project_dirs_up_to_home("skills", deep, home) == [
        deep / ".claude/skills", repo / "a/.claude/skills", repo / ".claude/skills"]
    os.rmdir(repo / ".git")
    assert project_dirs_up_to_home("skills", deep, home)[-1] == repo / ".claude/skills"  # home itself excluded


def test_command_names_and_skill_md_in_commands(tmp_path):
    base = tmp_path / "commands"
    assert command_name(base / "frontend" / "build.md", base) == "frontend:build"
    assert command_name(base / "a" / "tool" / "SKILL.md", base) == "a:tool"
    home = tmp_path / "home"
    _w(home / ".claude" / "commands" / "tool" / "SKILL.md")
    _w(home / ".claude" / "commands" / "tool" / "other.md")
    reg = load_registry(_ws(tmp_path, home))
    assert [s.name for s in reg.skills if s.source.value == "command"] == ["tool"]


def test_bad_inputs_become_diagnostics(tmp_path, monkeypatch):
    home = tmp_path / "home"
    skills = home / ".claude" / "skills"
    _w(skills / "binary" / "SKILL.md", data=b"\x00\x01\x02---")
    _w(skills / "huge" / "SKILL.md", data=b"---\ndescription: big\n---\n" + b"x" * 100)
    (skills / "selfloop").mkdir(parents=True)
    os.symlink(skills / "selfloop" / "SKILL.md", skills / "selfloop" / "SKILL.md.tmp")
    os.rename(skills / "selfloop" / "SKILL.md.tmp", skills / "selfloop" / "SKILL.md")  # SKILL.md -> itself
    _w(skills / "denied" / "SKILL.md")
    monkeypatch.setattr(safe_read, "MAX_SKILL_BYTES", 50)
    real_open = os.open

    def fake_open(path, *a, **k):  # tests run as root, where a chmod would not deny anything
        if str(path).endswith("denied/SKILL.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)
    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(safe_read.read_text_file, "__kwdefaults__", {"max_bytes": 50, "known": None, "ahead": None})
    reg = load_registry(_ws(tmp_path, home))
    codes = {s.name: {d.code for d in s.diagnostics} for s in reg.skills}
    assert "binary-file" in codes["binary"]  # readable: Claude Code loads it, so do we (with the warning)
    assert "huge-file" in codes["huge"]
    # unreadable files: Claude Code's readFile fails and it skips the skill (loadSkillsDir.ts returns null);
    # the reason stays visible as a workspace diagnostic naming the file
    assert "selfloop" not in codes and "denied" not in codes
    by_file = {(d.code, d.path.parent.name) for d in reg.diagnostics if d.path is not None}
    assert {("symlink-loop", "selfloop"), ("unreadable", "denied")} <= by_file
    assert {("skill-skipped", "selfloop"), ("skill-skipped", "denied")} <= by_file


def test_unreadable_dir_is_a_diagnostic(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _w(home / ".claude" / "skills" / "a" / "SKILL.md")
    real = os.scandir

    def fake(path):
        if str(path).endswith(".claude/skills"):
            raise PermissionError(13, "Permission denied")
        return real(path)
    monkeypatch.setattr(os, "scandir", fake)
    reg = load_registry(_ws(tmp_path, home))
    assert any(d.code == "dir-unreadable" for d in reg.diagnostics)


def test_workspace_errors(tmp_path):
    (tmp_path / "home").mkdir()
    with pytest.raises(WorkspaceError, match="skills folder"):
        Workspace.create(home=tmp_path / "home", cwd=tmp_path, managed_root=tmp_path / ".claude" / "skills")
    with pytest.raises(WorkspaceError, match="does not exist"):
        Workspace.create(home=tmp_path / "home", cwd=tmp_path / "nope")
    ws = Workspace.create(home=tmp_path / "home", cwd=tmp_path, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert ws.config_home == tmp_path / "cfg"
    assert ws.resolved_model("from-settings") == ("from-settings", "settings")
    ws.env = {"ANTHROPIC_MODEL": "env-model"}
    assert ws.resolved_model("from-settings")[0] == "env-model"


def test_current_skill_beats_command_and_hides_it(tmp_path):
    home = tmp_path / "home"
    _w(home / ".claude" / "skills" / "same" / "SKILL.md")
    _w(home / ".claude" / "commands" / "same.md")
    for profile, listed in (("current", "no"), ("legacy", "full")):
        reg = load_registry(_ws(tmp_path, home, profile=profile))
        cmd = [s for s in reg.skills if s.name == "same" and s.kind == "command"][0]
        assert cmd.state.shadowed_by is not None and cmd.state.listed.value == listed
        assert "skill beats a legacy command" in cmd.state.shadow_reason


def test_mcp_and_marketplace_plugin(tmp_path):
    import json
    home = tmp_path / "home"
    cfg = home / ".claude"
    market = tmp_path / "mkt"
    _w(market / ".claude-plugin" / "marketplace.json", json.dumps({"plugins": [{"name": "p1", "source": "./p1"}]}))
    _w(market / "p1" / ".claude-plugin" / "plugin.json", '{"name": "p1"}')
    _w(market / "p1" / "skills" / "s" / "SKILL.md")
    _w(cfg / "plugins" / "known_marketplaces.json", json.dumps({"m": {"installLocation": str(market)}}))
    _w(cfg / "settings.json", json.dumps({"enabledPlugins": {"p1@m": True}}))
    mcp = _w(tmp_path / "mcp.json", json.dumps([{"server": "srv", "name": "x", "description": "d", "body": "b"}]))
    reg = load_registry(_ws(tmp_path, home, mcp_skills_file=mcp))
    names = [s.name for s in reg.skills]
    assert "p1:s" in names and "srv:x" in names
    assert reg.find("/p1:s").plugin_id == "p1@m"
