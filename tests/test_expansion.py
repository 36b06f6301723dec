"""Expansion details not covered by the oracle goldens: shell opt-in, MCP, /name."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillmanager.core.layers.expansion import NO_OUTPUT, expand
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.load.workspace import Workspace


def _skill(root: Path, name: str, front: str, body: str) -> None:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{front}\n---\n{body}", encoding="utf-8")


@pytest.fixture()
def registry_for(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    skills = proj / ".claude" / "skills"
    home.mkdir()
    skills.mkdir(parents=True)
    _skill(skills, "sh", "description: shell", "a !`printf '\\n\\nl1\\n\\nl2\\n\\n'` b\n```!\ntrue\n```\nc !`echo out; echo err >&2`\n")
    _skill(skills, "fail", "description: fails", "x !`echo out; echo err >&2; exit 3` y\n")
    _skill(skills, "slow", "description: slow", "x !`sleep 5` y\n")
    _skill(skills, "where", "description: cwd", "!`pwd`\n")
    _skill(skills, "hidden", "description: model only\nuser-invocable: false", "hidden body\n")
    _skill(skills, "dmi", "description: user only\ndisable-model-invocation: true", "dmi body $ARGUMENTS\n")
    _skill(skills, "forked", "description: runs forked\ncontext: fork", "forked body $ARGUMENTS\n")
    _skill(skills, "sideways", "description: odd context\ncontext: sideways", "inline body\n")
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps([{"server": "srv", "name": "remote", "description": "From MCP.",
                                "body": "run !`echo never` <b>"}]), encoding="utf-8")

    def load(profile: str = "current", with_mcp: bool = False):
        ws = Workspace.create(home=home, cwd=proj, managed_root=None, profile=profile, env={"HOME": str(home)},
                              mcp_skills_file=mcp if with_mcp else None)
        return load_registry(ws)
    load.proj = proj
    return load


def test_shell_is_only_reported_by_default(registry_for):
    result = expand(registry_for(), "sh")
    assert [s.command for s in result.shell_snippets] == ["true", "printf '\\n\\nl1\\n\\nl2\\n\\n'", "echo out; echo err >&2"]
    assert "!`printf" in result.block and result.shell_ran == []


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_run_shell_output_as_claude_code_inserts_it(registry_for, profile):
    result = expand(registry_for(profile), "sh", run_shell=True)
    assert result.block.endswith(f"a l1\n\nl2 b\n{NO_OUTPUT}\nc out\nerr\n")
    where = expand(registry_for(profile), "where", run_shell=True)
    assert where.block.endswith(f"{registry_for.proj}\n")  # the session's cwd, not the skill dir


def test_run_shell_failure_and_timeout(registry_for):
    failed = expand(registry_for(), "fail", run_shell=True)
    assert failed.is_error and failed.launch_line is None
    assert failed.refusal == 'Shell command failed for pattern "!`echo out; echo err >&2; exit 3`": [stderr]\nout\nerr'
    slow = expand(registry_for(), "slow", run_shell=True, shell_timeout=0.5)
    assert slow.is_error and "[Command interrupted]" in slow.refusal and slow.shell_ran[0].timed_out


def test_mcp_skills_never_run_shell(registry_for):
    registry = registry_for("current", with_mcp=True)
    remote = next(s for s in registry.skills if s.name.endswith("remote"))  # the MCP skill file must load
    result = expand(registry, remote.name, run_shell=True)
    assert result.shell_snippets == [] and result.shell_ran == [] and "!`echo never`" in result.block


def test_as_user(registry_for):
    hidden = expand(registry_for(), "hidden", as_user=True)
    assert hidden.refusal == ('This skill can only be invoked by Claude, not directly by users. Ask Claude to use the '
                              '"hidden" skill for you.')
    assert not expand(registry_for(), "hidden").is_error  # the model may call it
    dmi = expand(registry_for(), "dmi", args="go", as_user=True)
    assert not dmi.is_error and dmi.launch_line is None and dmi.block.endswith("dmi body go\n")
    assert expand(registry_for("legacy"), "dmi").refusal == \
        "<tool_use_error>Skill dmi cannot be used with Skill tool due to disable-model-invocation</tool_use_error>"
    assert expand(registry_for(), " ").refusal == "<tool_use_error>Invalid skill format:  </tool_use_error>"


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_context_fork_gives_the_sub_agent_the_block(registry_for, profile):
    # probe-fork-0/-3 (both CLIs): the conversation gets only the result line; the sub-agent the usual block
    result = expand(registry_for(profile), "forked", args="a b")
    assert result.forked and not result.is_error and result.launch_line is None
    assert result.tool_result == 'Skill "forked" completed (forked execution).\n\nResult:\n'
    assert result.block.startswith("Base directory for this skill: ") and result.block.endswith("forked body a b\n")
    inline = expand(registry_for(profile), "sideways")
    assert not inline.forked and inline.launch_line == "Launching skill: sideways"


def test_bundled_code_review_runs_forked_by_its_alias(registry_for):
    result = expand(registry_for("current"), "review")  # fuzz-reg seed 1037
    assert result.forked and result.skill.name == "code-review" and result.block is None
    assert result.tool_result.startswith('Skill "review" completed (forked execution).')

