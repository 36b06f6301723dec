"""Targeted oracle probes for items the fuzz campaigns left open (tests/oracle/FINDINGS-registry.md).

probe-perm / probe-perm-scopes: when the Skill tool asks (in -p an ask is an is_error result) and which
settings scopes' `Skill(...)` allow rules count; a managed drop-in with an invalid skillOverrides value.
probe-text: a BOM in SKILL.md (before `---`, without front matter, after the front matter) and body-fallback
descriptions cut at 97 UTF-16 units around a surrogate pair. Same replay as tests/test_registry_scenarios.py.
"""
from __future__ import annotations

import pytest

from skillmanager.core.registry import load_registry
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
    for _, turn in turns:
        assert replay_turn(registry, work, turn) is None


def test_every_probe_is_recorded():
    assert len(CASES) == 2 * len(PROBES)
