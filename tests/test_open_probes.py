"""Targeted oracle probes for items the fuzz campaigns left open (tests/oracle/FINDINGS-registry.md).

probe-perm / probe-perm-scopes: when the Skill tool asks (in -p an ask is an is_error result) and which
settings scopes' `Skill(...)` allow rules count; a managed drop-in with an invalid skillOverrides value.
probe-text: a BOM in SKILL.md (before `---`, without front matter, after the front matter) and body-fallback
descriptions cut at 97 UTF-16 units around a surrogate pair. Same replay as tests/test_registry_scenarios.py.
"""
from __future__ import annotations

import pytest

from skillmanager.core.rules.registry import load_registry
from tests.test_registry_scenarios import (GOLDEN, _golden, _skill_turns, assert_listing_matches, build_fixture,
                                           replay_turn, workspace_for)

PROBES = ["probe-perm", "probe-perm-scopes", "probe-text"]
CASES = [pytest.param(s, p, id=f"{s}-{p}") for s in PROBES for p in ("legacy", "current")
         if (GOLDEN / s / f"{p}.json").exists()]


@pytest.mark.parametrize(("scenario", "profile"), CASES)
def test_probe_listing(scenario, profile, tmp_path):
    data = _golden(scenario, profile)
    work = build_fixture(data, tmp_path)
    assert_listing_matches(data, load_registry(workspace_for(work, data, profile)), profile)


@pytest.mark.parametrize(("scenario", "profile"), CASES)
def test_probe_turns(scenario, profile, tmp_path):
    data = _golden(scenario, profile)
    assert data["cli_exit"] == "cli exit: 0"
    work = build_fixture(data, tmp_path)
    registry = load_registry(workspace_for(work, data, profile))
    turns = list(_skill_turns(data))
    assert turns
    managed = str(work / "managed" / "claude-code")  # the CLI saw WORK/managed/claude-code mounted at /etc
    for _, turn in turns:
        turn = dict(turn, extra_texts=[t.replace("/etc/claude-code/", managed + "/")
                                       for t in turn.get("extra_texts") or []])
        assert replay_turn(registry, work, turn) is None


def test_every_probe_is_recorded():
    assert len(CASES) == 2 * len(PROBES)


@pytest.mark.parametrize(("tools", "asks"), [("Read", True), ("", False), ([], False), (["", " "], False),
                                             ([5], False), (" , ", False), (["Bash(x:*)"], True), (None, False)])
def test_allowed_tools_forms_that_ask(tools, asks):
    """parseToolListString: only a real tool name makes the command object carry allowedTools."""
    from skillmanager.core.layers.expansion import needs_permission
    from skillmanager.core.model import Skill, SourceKind
    skill = Skill(name="s", kind="skill", source=SourceKind.PROJECT, source_root=None, path=None, skill_dir=None,
                  front_matter={"allowed-tools": tools} if tools is not None else {})
    assert needs_permission(skill) is asks


def test_ask_text_per_profile():
    from skillmanager.core.layers.expansion import ask_text
    from skillmanager.core.versions.profiles import get_profile
    assert ask_text("a:b", "a:b", get_profile("legacy")) == "Execute skill: a:b"
    assert ask_text("a:b", "a:b", get_profile("current")).endswith(
        "allow rule Skill(a:b) to .claude/settings.local.json to let it run without asking.")
    assert ask_text("caf\u00e9", "caf\u00e9", get_profile("current")) == "Execute skill: caf\u00e9"
