"""Which copy a Skill call reaches, and which expansions start with `Base directory for this skill:`.

Evidence: registry fuzz campaign against the real CLIs (tests/golden/fuzz-reg-20, -22, -38, replayed strictly by
tests/test_registry_fuzz.py; tests/oracle/FINDINGS-registry.md).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from skillmanager.core.layers.expansion import expand, resolve_skill
from skillmanager.core.model import SourceKind
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.load.workspace import Workspace


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def tree(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    commands = proj / ".claude" / "commands"
    # a SKILL.md inside a commands dir (loadSkillsFromCommandsDir's skill format) and a plain command file
    _write(commands / "gamma" / "SKILL.md", "---\ndescription: g\n---\ngamma body ${CLAUDE_SKILL_DIR} $ARGUMENTS\n")
    _write(commands / "grp" / "nested" / "SKILL.md", "---\ndescription: n\n---\nnested body\n")
    _write(commands / "plain.md", "---\ndescription: p\n---\nplain body ${CLAUDE_SKILL_DIR}\n")
    _write(proj / ".claude" / "skills" / "dirskill" / "SKILL.md", "---\ndescription: d\n---\ndir body\n")
    # the same name twice: the user copy is disable-model-invocation, the project copy is not
    _write(home / ".claude" / "skills" / "twin" / "SKILL.md",
           "---\ndescription: user twin\ndisable-model-invocation: true\n---\nuser twin body\n")
    _write(proj / ".claude" / "skills" / "twin" / "SKILL.md", "---\ndescription: project twin\n---\nproject twin body\n")
    # a user skill with dmi that reuses a bundled name (fuzz-reg seed 20: user `simplify` with dmi)
    _write(home / ".claude" / "skills" / "simplify" / "SKILL.md",
           "---\ndescription: mine\ndisable-model-invocation: true\n---\nmy simplify\n")

    def load(profile: str):
        return load_registry(Workspace.create(home=home, cwd=proj, managed_root=None, profile=profile,
                                              env={"HOME": str(home)}))
    load.commands = commands
    load.proj = proj
    return load


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_commands_dir_skill_md_starts_with_base_directory(tree, profile):
    # fuzz-reg seeds 22 (current `gamma` under extra2/.claude/commands/gamma) and 38 (both: managed
    # .claude/commands/review/SKILL.md): `Base directory for this skill: <the SKILL.md's dir>` first
    registry = tree(profile)
    gamma = expand(registry, "gamma", args="x", session_id="S")
    base = tree.commands / "gamma"
    assert gamma.block == f"Base directory for this skill: {base}\n\ngamma body {base} x\n"
    nested = expand(registry, "grp:nested", args="", session_id="S")
    assert nested.block.startswith(f"Base directory for this skill: {tree.commands / 'grp' / 'nested'}\n\n")
    dirskill = expand(registry, "dirskill", args="", session_id="S")
    assert dirskill.block.startswith("Base directory for this skill: ")


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_plain_command_has_no_base_directory(tree, profile):
    # a command .md file has no skill dir: no header, ${CLAUDE_SKILL_DIR} left as written (fuzz-reg seed 36 `mu`)
    block = expand(tree(profile), "plain", args="", session_id="S").block
    assert block.startswith("plain body ${CLAUDE_SKILL_DIR}")


def test_current_skill_tool_skips_a_dmi_copy_for_a_later_callable_one(tree):
    # fuzz-reg seeds 20, 21, 22 (current): a disable-model-invocation copy yields the name to the next copy
    registry = tree("current")
    result = expand(registry, "twin", args="", session_id="S")
    assert result.launch_line == "Launching skill: twin" and not result.is_error
    assert "project twin body" in result.block
    assert result.skill is registry.find("twin")  # one rule, shared with Registry.find
    bundled = expand(registry, "simplify", args="x", session_id="S")  # seed 20: the bundled simplify launched
    assert bundled.launch_line == "Launching skill: simplify" and bundled.skill.source is SourceKind.BUNDLED


def test_legacy_skill_tool_stops_at_the_first_copy(tree):
    registry = tree("legacy")
    result = expand(registry, "twin", args="", session_id="S")
    assert result.is_error and "cannot be used with Skill tool due to disable-model-invocation" in result.refusal
    assert result.skill is registry.find("twin") and result.skill.source is SourceKind.USER


def test_a_users_slash_command_reaches_the_first_copy(tree):
    # `/name` typed by the user goes through the slash-command lookup (commands.ts findCommand: first match),
    # not the Skill tool, so the dmi copy (user-invocable) runs
    registry = tree("current")
    result = expand(registry, "/twin", args="", session_id="S", as_user=True)
    assert not result.is_error and "user twin body" in result.block
    assert resolve_skill(registry, "twin", get_profile("current"), for_model=False).source is SourceKind.USER
