"""Session unit tests: discovery, ignore rules, activation patterns, clashes, undo and scenario files.

Expected behaviour is the one settled with the real CLIs (tests/oracle/FINDINGS-simulator.md); the
fixtures here are small variants built directly (a `.git` dir marks the repo: the engine never runs git).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillmanager.core.simulator import session as session_mod
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.simulator.session import Scenario, Session, Step
from skillmanager.core.load.workspace import Workspace


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill(root: Path, rel_dir: str, front: str, body: str = "body\n") -> None:
    write(root, f"{rel_dir}/SKILL.md", f"---\n{front}\n---\n{body}")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "home" / ".claude").mkdir(parents=True)
    proj = root / "home" / "proj"
    (proj / ".git" / "info").mkdir(parents=True)
    return proj


def session_for(proj: Path, profile: str = "current", cwd: Path | None = None, **kwargs) -> Session:
    home = proj.parent
    workspace = Workspace.create(home=home, cwd=cwd or proj, managed_root=None, profile=profile,
                                 env={"HOME": str(home)})
    return Session(load_registry(workspace), **kwargs)


# --- triggers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Bash", "Grep", "Glob"])
def test_bash_grep_glob_trigger_nothing(repo: Path, op: str) -> None:
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    s = session_for(repo)
    result = s.add_step(op, "packages/api/a.ts")
    assert result.model_text == "" and result.discovered_dirs == []
    assert op in result.triggers_nothing_reason
    assert s.add_step("Read", "packages/api/a.ts").discovered_dirs == ["packages/api/.claude/skills"]


def test_legacy_edit_of_unread_file_triggers_nothing_current_discovers(repo: Path) -> None:
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    write(repo, "packages/api/a.ts", "a = 1\n")
    legacy = session_for(repo, "legacy")
    refused = legacy.add_step("Edit", "packages/api/a.ts")
    assert refused.discovered_dirs == [] and "not read first" in refused.triggers_nothing_reason
    legacy.add_step("Read", "packages/api/b.ts")  # another file: the Edit of a.ts still needs a Read of a.ts
    assert "not read first" in legacy.add_step("Edit", "packages/api/a.ts").triggers_nothing_reason
    current = session_for(repo, "current")
    assert current.add_step("Edit", "packages/api/a.ts").discovered_dirs == ["packages/api/.claude/skills"]


def test_write_into_new_dirs_finds_nothing_existing_package_discovers(repo: Path) -> None:
    skill(repo, "packages/web/.claude/skills/web-skill", "description: web.")
    s = session_for(repo, "legacy")
    assert s.add_step("Write", "packages/fresh/deep/new.ts").model_text == ""
    result = s.add_step("Write", "packages/web/src/new.ts")
    assert result.discovered_dirs == ["packages/web/.claude/skills"]
    assert "- web-skill: web." in result.model_text


def test_same_file_twice_and_same_package_again(repo: Path) -> None:
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    s = session_for(repo, "legacy")
    assert s.add_step("Read", "packages/api/a.ts").model_text
    again = s.add_step("Read", "packages/api/a.ts")
    assert again.model_text == "" and again.discovered_dirs == [] and again.summary_lines() == ["nothing new"]
    assert s.add_step("Read", "packages/api/b.ts").model_text == ""


def test_outside_cwd_discovers_and_activates_nothing(repo: Path) -> None:
    app = repo / "app"
    skill(repo, "app/.claude/skills/any-ts", 'description: any.\npaths: "**/*.ts"')
    skill(repo, "lib/.claude/skills/lib-skill", "description: lib.")
    s = session_for(repo, cwd=app)
    result = s.add_step("Read", str(repo / "lib" / "l.ts"))
    assert result.rel_path == "../lib/l.ts"
    assert "outside the working directory" in result.triggers_nothing_reason
    assert result.model_text == "" and result.activated == []
    inside = s.add_step("Read", "src/s.ts")
    assert [a.skill.name for a in inside.activated] == ["any-ts"]


# --- ignore rules ------------------------------------------------------------------------------------

def test_negated_ignore_rule(repo: Path) -> None:
    write(repo, ".gitignore", "packages/*\n!packages/keep\n")
    skill(repo, "packages/drop/.claude/skills/drop-skill", "description: drop.")
    skill(repo, "packages/keep/.claude/skills/keep-skill", "description: keep.")
    s = session_for(repo)
    dropped = s.add_step("Read", "packages/drop/f.ts")
    assert dropped.model_text == "" and dropped.discovered_dirs == []
    assert [(i.rel_dir, i.rule) for i in dropped.ignored_dirs] == [("packages/drop", ".gitignore:1:packages/*")]
    kept = s.add_step("Read", "packages/keep/f.ts")
    assert kept.discovered_dirs == ["packages/keep/.claude/skills"] and kept.ignored_dirs == []


def test_nested_gitignore_applies_to_the_dir_holding_claude(repo: Path) -> None:
    write(repo, "packages/api/.gitignore", "generated/\n")
    write(repo, "packages/b/.gitignore", ".claude/\n")  # ignores .claude itself: does not stop discovery
    write(repo, "packages/c/.gitignore", "skills/\n")
    skill(repo, "packages/api/generated/.claude/skills/gen", "description: gen.")
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    skill(repo, "packages/b/.claude/skills/b-skill", "description: b.")
    skill(repo, "packages/c/.claude/skills/c-skill", "description: c.")
    s = session_for(repo)
    first = s.add_step("Read", "packages/api/generated/g.ts")
    assert first.discovered_dirs == ["packages/api/.claude/skills"]
    assert [(i.rel_dir, i.rule) for i in first.ignored_dirs] == [
        ("packages/api/generated", "packages/api/.gitignore:1:generated/")]
    assert s.add_step("Read", "packages/b/f.ts").discovered_dirs == ["packages/b/.claude/skills"]
    assert s.add_step("Read", "packages/c/f.ts").discovered_dirs == ["packages/c/.claude/skills"]


def test_git_info_exclude(repo: Path) -> None:
    write(repo, ".git/info/exclude", "# comment\nvendor/\n")
    skill(repo, "vendor/lib/.claude/skills/v", "description: v.")
    skill(repo, "vendor/.claude/skills/v2", "description: v2.")
    result = session_for(repo).add_step("Read", "vendor/lib/v.ts")
    assert result.discovered_dirs == []
    assert sorted((i.rel_dir, i.rule) for i in result.ignored_dirs) == [
        ("vendor", ".git/info/exclude:2:vendor/"), ("vendor/lib", ".git/info/exclude:2:vendor/")]


def test_node_modules_is_not_special(repo: Path, tmp_path: Path) -> None:
    skill(repo, "node_modules/pkg/.claude/skills/nm-skill", "description: nm.")
    skill(repo, "node_modules/.claude/skills/nm-top-skill", "description: top.")
    plain = session_for(repo, "legacy").add_step("Read", "node_modules/pkg/index.js")
    assert plain.discovered_dirs == ["node_modules/pkg/.claude/skills", "node_modules/.claude/skills"]
    # legacy lists the shallower dir first (one Map filled shallowest → deepest)
    assert plain.model_text.endswith("- nm-top-skill: top.\n- nm-skill: nm.\n</system-reminder>")
    write(repo, ".gitignore", "node_modules/\n")
    ignored = session_for(repo, "legacy").add_step("Read", "node_modules/pkg/index.js")
    assert ignored.discovered_dirs == [] and ignored.model_text == ""
    assert {i.rel_dir for i in ignored.ignored_dirs} == {"node_modules", "node_modules/pkg"}


def test_outside_a_git_repo_nothing_is_ignored(repo: Path) -> None:
    (repo / ".git" / "info").rmdir()
    (repo / ".git").rmdir()
    write(repo, ".gitignore", "packages/\n")
    skill(repo, "packages/a/.claude/skills/a-skill", "description: a.")
    assert session_for(repo).add_step("Read", "packages/a/f.ts").discovered_dirs == ["packages/a/.claude/skills"]


def test_ignored_dir_is_checked_once(repo: Path) -> None:
    write(repo, ".gitignore", "packages/drop/\n")
    skill(repo, "packages/drop/.claude/skills/d", "description: d.")
    calls = []
    real_factory = session_mod._default_ignore_factory()

    def counting_factory(root: str):
        check = real_factory(root)

        def wrapped(rel: str, is_dir: bool):
            calls.append(rel)
            return check(rel, is_dir)
        return wrapped

    s = session_for(repo, ignore_factory=counting_factory)
    for _ in range(3):
        assert s.add_step("Read", "packages/drop/f.ts").model_text == ""
    assert calls == ["packages/drop"]
    assert s.add_step("Read", "packages/drop/g.ts").ignored_dirs == []  # remembered, not re-reported


def test_ignore_rules_parsed_once_across_replays(repo: Path, monkeypatch) -> None:
    write(repo, ".gitignore", "packages/drop/\n")
    skill(repo, "packages/drop/.claude/skills/d", "description: d.")
    built = []
    real_factory = session_mod._default_ignore_factory()
    s = session_for(repo, ignore_factory=lambda root: built.append(root) or real_factory(root))
    s.add_step("Read", "packages/drop/f.ts")
    s.undo()
    s.add_step("Read", "packages/drop/f.ts")
    assert built == [str(repo)]


# --- conditional activation ---------------------------------------------------------------------------

def conditional_repo(repo: Path) -> None:
    R = ".claude/skills/"
    skill(repo, R + "brace", "description: brace.\npaths: src/**/*.{ts,tsx}")
    skill(repo, R + "starstar", 'description: only **.\npaths: "**"')
    skill(repo, R + "trailing", "description: trailing.\npaths: docs/**")
    skill(repo, R + "md-any", 'description: md.\npaths: "*.md"')
    skill(repo, R + "dot-slash", "description: dot.\npaths: ./lib/**")
    skill(repo, R + "comma", 'description: comma.\npaths: "tools/*.py, scripts/**"')


@pytest.mark.parametrize("rel, expected", [
    ("src/c.js", []),
    ("src/a/b.tsx", ["brace"]),
    ("src/a/b.ts", ["brace"]),
    ("docs/x/y.txt", ["trailing"]),
    ("docs", ["trailing"]),
    ("sub/README.md", ["md-any"]),
    ("lib/l.js", []),  # `./lib/**` never matches
    ("scripts/deep/s.sh", ["comma"]),
    ("tools/t.py", ["comma"]),
])
def test_paths_patterns(repo: Path, rel: str, expected: list[str]) -> None:
    conditional_repo(repo)
    result = session_for(repo, "legacy").add_step("Read", rel)
    assert [a.skill.name for a in result.activated] == expected


def test_double_star_alone_is_not_conditional(repo: Path) -> None:
    conditional_repo(repo)
    s = session_for(repo)
    assert "starstar" in s.available_skills()  # listed at start-up
    assert all(a.skill.name != "starstar" for a in s.add_step("Read", "anything.txt").activated)


def test_activation_reports_pattern_and_persists(repo: Path) -> None:
    conditional_repo(repo)
    s = session_for(repo, "legacy")
    first = s.add_step("Read", "src/a/b.tsx")
    (activation,) = first.activated
    assert activation.pattern in ("src/**/*.tsx", "src/**/*.{ts,tsx}") and activation.rel_path == "src/a/b.tsx"
    assert "brace" in s.available_skills()
    # 2.1.88 re-stores a `paths:` skill as conditional after every skillsLoaded (debug log, fuzz-sim-201):
    # the next match activates it again, but the name was sent already, so the model is told nothing new
    again = s.add_step("Read", "src/a/c.ts")
    assert [(a.skill.name, a.repeat) for a in again.activated] == [("brace", True)] and again.model_text == ""
    current = session_for(repo, "current")
    assert [a.skill.name for a in current.add_step("Read", "src/a/b.tsx").activated] == ["brace"]
    assert current.add_step("Read", "src/a/c.ts").activated == []  # current: activates once, stays


def test_paths_skill_activates_through_an_ignored_dir(repo: Path) -> None:
    write(repo, ".gitignore", "generated/\n")
    skill(repo, ".claude/skills/gen-paths", "description: gen.\npaths: generated/**")
    skill(repo, "generated/.claude/skills/gen-nested", "description: nested.")
    for profile in ("legacy", "current"):
        result = session_for(repo, profile).add_step("Read", "generated/out.ts")
        assert [a.skill.name for a in result.activated] == ["gen-paths"]
        assert [i.rel_dir for i in result.ignored_dirs] == ["generated"]
        assert "gen-nested" not in result.model_text and "- gen-paths: gen." in result.model_text


# --- clashes and symlinks ------------------------------------------------------------------------------

def test_symlinked_package_dir(repo: Path) -> None:
    skill(repo, "packages/real/.claude/skills/real-skill", "description: real.")
    os.symlink(repo / "packages" / "real", repo / "packages" / "link")
    legacy = session_for(repo, "legacy")
    first = legacy.add_step("Read", "packages/link/f.ts")
    assert first.discovered_dirs == ["packages/link/.claude/skills"]  # the link path, not resolved
    second = legacy.add_step("Read", "packages/real/f.ts")
    assert second.discovered_dirs == ["packages/real/.claude/skills"] and second.model_text == ""
    assert [c.outcome for c in second.clashes] == ["replaced"]
    current = session_for(repo, "current")
    current.add_step("Read", "packages/link/f.ts")
    rescoped = current.add_step("Read", "packages/real/f.ts")
    assert [n.name for n in rescoped.new_skills] == ["packages/link:real-skill", "packages/real:real-skill"]
    assert "real-skill" not in current.available_skills()
    assert {"packages/link:real-skill", "packages/real:real-skill"} <= set(current.available_skills())


def test_legacy_startup_name_blocks_and_deepest_wins(repo: Path) -> None:
    skill(repo, ".claude/skills/clash", "description: root.")
    for lvl in ("src", "src/api"):
        skill(repo, f"{lvl}/.claude/skills/clash", f"description: {lvl} clash.")
        skill(repo, f"{lvl}/.claude/skills/both", f"description: {lvl} both.")
    s = session_for(repo, "legacy")
    result = s.add_step("Read", "src/api/x.ts")
    assert result.model_text.endswith("\n\n- both: src/api both.\n</system-reminder>")
    outcomes = {(c.name, c.outcome) for c in result.clashes}
    assert ("clash", "blocked") in outcomes and ("both", "shadowed") in outcomes
    available = s.available_skills()
    assert available["clash"].source.value == "project" and available["both"].path.parts[-5] == "api"


# --- replay, undo, scenario files -----------------------------------------------------------------------

# --- rules settled by the fuzz campaign (tests/oracle/FINDINGS-simulator.md, tests/golden/fuzz-sim-*) --------

def test_current_discovery_block_leaves_out_disable_model_invocation(repo: Path) -> None:
    skill(repo, "pkg/.claude/skills/shown", "description: shown.")
    skill(repo, "pkg/.claude/skills/hidden", "description: hidden.\ndisable-model-invocation: true")
    text = session_for(repo, "current").add_step("Read", "pkg/a.ts").model_text
    assert "- shown" in text and "hidden" not in text


def test_current_activated_paths_skill_holds_the_bare_name(repo: Path) -> None:
    skill(repo, ".claude/skills/gamma", "description: root gamma.\npaths: '**/*.ts'")
    skill(repo, "lib/.claude/skills/gamma", "description: lib gamma.")
    s = session_for(repo, "current")
    first = s.add_step("Read", "lib/a.md")  # the nested copy alone: offered bare
    assert "- gamma: lib gamma." in first.model_text
    second = s.add_step("Write", "lib/b.ts")  # the root copy activates: nested one re-scoped (fuzz-sim-4)
    assert second.model_text.index("- gamma: root gamma.") < second.model_text.index("- lib:gamma: lib gamma. (scoped to lib/")
    assert s.available_skills()["gamma"].description.startswith("root gamma")


def test_current_add_dir_paths_skill_gets_a_dir_label(repo: Path, tmp_path: Path) -> None:
    extra = Path(os.path.realpath(tmp_path)) / "extra"
    skill(extra, ".claude/skills/omega", "description: extra omega.\npaths: '**/gen/**'")
    home = repo.parent
    workspace = Workspace.create(home=home, cwd=repo, managed_root=None, profile="current",
                                 env={"HOME": str(home)}, add_dirs=[extra])
    text = Session(load_registry(workspace)).add_step("Read", "gen/x.ts").model_text
    assert "- omega: extra omega. (from extra/.claude/skills \u2014 applies when working on files under extra/)" in text


def test_undo_replays_from_scratch(repo: Path) -> None:
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    s = session_for(repo)
    first = s.add_step("Read", "packages/api/a.ts")
    s.add_step("Read", "packages/web/w.ts")
    assert s.undo() == Step("Read", "packages/web/w.ts")
    assert s.steps == [Step("Read", "packages/api/a.ts")]
    assert s.undo() == Step("Read", "packages/api/a.ts") and s.steps == [] and s.undo() is None
    assert s.add_step("Read", "packages/api/a.ts").model_text == first.model_text  # state was reset


def test_scenario_json_round_trip(repo: Path) -> None:
    skill(repo, "packages/api/.claude/skills/api-skill", "description: api.")
    s = session_for(repo, "legacy")
    s.add_step("Bash", "cat packages/api/a.ts")
    s.add_step("Read", "packages/api/a.ts")
    s.add_step("Edit", str(repo / "packages/api/a.ts"))
    data = json.loads(json.dumps(s.to_json()))
    assert data["version"] == 1 and data["profile"] == "legacy" and data["cwd"] == str(repo)
    assert data["steps"][0] == {"op": "Bash", "command": "cat packages/api/a.ts"}
    assert data["steps"][1] == {"op": "Read", "path": "packages/api/a.ts"}
    again = Session.from_json(data, s.registry)
    assert again.steps == s.steps
    assert [r.model_text for r in again.results] == [r.model_text for r in s.results]
    assert Scenario.from_json(data).to_json()["steps"] == data["steps"]


@pytest.mark.parametrize("bad", [[], {"version": 2, "steps": []}, {"steps": [{"op": "Delete", "path": "x"}]},
                                 {"steps": [{"op": "Read"}]}, {"steps": "Read x"}, {"cwd": 3, "steps": []}])
def test_bad_scenarios_are_value_errors(bad) -> None:
    with pytest.raises(ValueError):
        Scenario.from_json(bad)


def test_unreadable_scenario_file(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", "{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        Scenario.load(path)
    with pytest.raises(ValueError, match="cannot read"):
        Scenario.load(tmp_path / "missing.json")
