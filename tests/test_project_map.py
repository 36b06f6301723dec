"""The simulator page's project map and step sentences, decided in core (demo workspace)."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillmanager.core.demo import create_demo_workspace
from skillmanager.core.simulator.project_map import ProjectMap
from skillmanager.core.simulator.session import Session
from skillmanager.core.simulator.step_words import listing_before_after, step_headline, step_sentences


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    from skillmanager.core.rules.registry import load_registry

    return load_registry(create_demo_workspace(tmp_path_factory.mktemp("demo")))


def test_folders_carry_skill_counts_and_ignore_rules(registry):
    cwd = Path(registry.workspace.cwd)
    project_map = ProjectMap(registry)
    api = project_map.folder(cwd / "packages" / "api")
    assert api.skill_count == 2 and api.badge == "2 skills" and "discovers them" in api.tooltip
    vendor = project_map.folder(cwd / "vendor")
    # the demo's .gitignore: line 4 is `platform/vendor/`
    assert vendor.ignored_rule == ".gitignore:4 (platform/vendor/)" and vendor.skipped
    assert "Claude Code skips its skills" in vendor.tooltip
    assert project_map.folder(cwd / "node_modules").heavy
    plain = project_map.folder(cwd / "db")
    assert plain.skill_count == 0 and not plain.skipped and plain.badge == ""
    children = project_map.children(cwd / "packages")
    assert {Path(p).name for p in children} >= {"api", "web"}


def test_files_that_activate_a_paths_skill_are_marked(registry):
    cwd = Path(registry.workspace.cwd)
    project_map = ProjectMap(registry)
    facts = project_map.file(cwd / "db" / "migrations" / "001_init.sql")
    assert facts.activates == (("sql-review", "db/migrations/*.sql"),)
    assert "activates sql-review" in facts.tooltip
    assert project_map.file(cwd / "README.md").activates == ()
    assert project_map.file(cwd.parent / "README.md").activates == ()  # outside the project: nothing matches


def test_suggestions_follow_the_session(registry):
    cwd = Path(registry.workspace.cwd)
    project_map = ProjectMap(registry)
    texts = [s.text for s in project_map.suggestions()]
    assert "Read a file in packages/api — 2 skills would be discovered" in texts
    assert any(t.startswith("Edit db/migrations/001_init.sql — activates sql-review") for t in texts)
    assert not any("vendor" in t for t in texts)  # git ignores it: reading there discovers nothing
    session = Session(registry)
    session.add_step("Read", str(cwd / "packages" / "api" / "src" / "server.ts"))
    session.add_step("Edit", str(cwd / "db" / "migrations" / "001_init.sql"))
    after = [s.text for s in project_map.suggestions(session.results)]
    assert not any("packages/api —" in t or "sql-review" in t for t in after)
    assert "Read a file in packages/web — 2 skills would be discovered" in after


def test_step_sentences_say_what_happened_and_why(registry):
    cwd = Path(registry.workspace.cwd)
    session = Session(registry)
    read = session.add_step("Read", str(cwd / "packages" / "api" / "src" / "server.ts"))
    kinds = {s.kind: s.text for s in step_sentences(read)}
    assert kinds["discovered"] == ("Discovered packages/api/.claude/skills: api-conventions and db-migrations are "
                                   "now offered to the model.") or "packages/api:" in kinds["discovered"]
    assert "`packages/**/*.ts` matches packages/api/src/server.ts" in kinds["activated"]
    ignored = session.add_step("Read", str(cwd / "vendor" / "old-sdk" / "index.js"))
    sentences = step_sentences(ignored)
    assert [s.kind for s in sentences] == ["skipped"]
    assert "git ignores vendor/old-sdk by .gitignore:4 (`platform/vendor/`)" in sentences[0].text
    assert step_headline(ignored) == "2. Read vendor/old-sdk/index.js — skipped 1 ignored folder (.gitignore:4)"
    quiet = session.add_step("Bash", "ls")
    assert step_sentences(quiet)[0].text.startswith("Nothing new: Bash does not trigger skill discovery")
    parts = listing_before_after("START", session.results)
    assert parts[0].step is None and parts[0].text == "START"
    assert [p.step for p in parts[1:]] == [1]  # only the first step sent the model something
    assert parts[1].text.strip() == read.model_text.strip() and "api-conventions" in parts[1].text
