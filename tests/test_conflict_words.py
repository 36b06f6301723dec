"""Conflicts in words (both folders, relative to the project), the comparison and the one-copy switch."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillmanager.core.demo import create_demo_workspace
from skillmanager.core.edit.copy_switch import plan_turn_off_copy
from skillmanager.core.rules.conflict_words import compare_copies, conflict_words, folder_words


@pytest.fixture()
def registry(tmp_path):
    from skillmanager.core.rules.registry import load_registry

    return load_registry(create_demo_workspace(tmp_path / "demo"))


def test_reasons_name_both_folders_relative_to_the_project(registry):
    by_name = {c.name: c for c in conflict_words(registry)}
    commit = by_name["commit-message"]
    sentences = [loser.sentence for loser in commit.losers]
    assert any(s.startswith("~/.claude/skills/commit-message (user) loses to ") for s in sentences)
    assert any(s.startswith("../.claude/skills/commit-message (project) loses to") for s in sentences)
    assert all("managed/.claude/skills/commit-message (managed policy)" in s for s in sentences)
    same = by_name["team-style"].losers[0]
    assert same.same_file and same.sentence.startswith("The same file reached twice: ")
    assert folder_words(Path(registry.workspace.cwd) / "a" / "SKILL.md", registry.workspace.cwd) == "a"


def test_compare_shows_front_matter_and_body_diff(registry):
    commit = next(c for c in conflict_words(registry) if c.name == "commit-message")
    loser = next(l for l in commit.losers if l.folder.startswith("~"))
    comparison = compare_copies(commit.winner, loser.skill, registry.workspace.cwd, registry.workspace.home)
    rows = {r.key: r for r in comparison.front_matter}
    assert rows["description"].loser == "My own commit message habits (short subjects, emoji-free)."
    assert not rows["description"].same
    assert "+Keep the subject short. Explain the why in the body." in comparison.body_diff
    assert comparison.body_diff[0].endswith("(wins)") and comparison.body_diff[1].endswith("(loses)")
    same = next(c for c in conflict_words(registry) if c.name == "team-style")
    assert "nothing to compare" in compare_copies(same.winner, same.losers[0].skill, registry.workspace.cwd).summary


def test_turning_the_loser_off_writes_only_its_own_front_matter_and_undoes(registry):
    from skillmanager.core.edit.toggle import apply_plan, undo

    commit = next(c for c in conflict_words(registry) if c.name == "commit-message")
    loser = next(l for l in commit.losers if l.folder.startswith("~")).skill
    before_loser, before_winner = loser.path.read_bytes(), commit.winner.path.read_bytes()
    turn_off = plan_turn_off_copy(registry, loser)
    assert "keyed by the skill's name" in turn_off.explanation
    assert [e.path for e in turn_off.plan.edits] == [loser.path]
    change = apply_plan(turn_off.plan, app_data_dir=registry.workspace.home / "data")
    assert b"disable-model-invocation: true" in loser.path.read_bytes()
    assert commit.winner.path.read_bytes() == before_winner
    undo(change)
    assert loser.path.read_bytes() == before_loser
    same = next(c for c in conflict_words(registry) if c.name == "team-style").losers[0].skill
    refused = plan_turn_off_copy(registry, same)
    assert refused.plan is None and "the same file reached twice" in refused.explanation
