"""Toggles write only the intended key, through the mechanisms Claude Code reads (spec §6), safely.

Settings layouts are real shapes (hooks, env, nested permissions, unicode, 2/4-space indents, CRLF, with and
without a final newline). Expected bytes are written out by hand here: each is the original text with the one
member Claude Code needs added, as a person editing the file would do it.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillmanager.core.edit import atomic_write
from skillmanager.core.layers.expansion import DENY_TEXT, expand
from skillmanager.core.model import Listed
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.edit.toggle import (ToggleError, apply_plan, default_scope, effective_toggle_state,
                                      override_keys, plan_disable_bundled, plan_toggle, undo)
from skillmanager.core.load.workspace import Workspace


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def make_skill(root: Path, name: str, front: str = "", body: str = "body\n") -> Path:
    return write(root / name / "SKILL.md", f"---\ndescription: {name} skill.\n{front}---\n{body}")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """home/.claude (user), home/proj (cwd), managed/ (policy root); app data in tmp."""
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    home = tmp_path / "home"
    proj = home / "proj"
    managed = tmp_path / "managed"
    make_skill(home / ".claude" / "skills", "u-skill")
    for name in ("p-skill", "p-other"):
        make_skill(proj / ".claude" / "skills", name)
    managed.mkdir(parents=True)
    return tmp_path


def registry_for(root: Path, profile: str = "current"):
    ws = Workspace.create(home=root / "home", cwd=root / "home" / "proj", managed_root=root / "managed",
                          profile=profile, env={"HOME": str(root / "home")})
    return load_registry(ws)


def skill_of(registry, name):
    found = registry.find(name)
    assert found is not None, name
    return found


LOCAL = Path("home/proj/.claude/settings.local.json")
PROJECT = Path("home/proj/.claude/settings.json")
USER = Path("home/.claude/settings.json")

# (id, original text, expected text after skillOverrides["p-skill"] = "name-only")
LAYOUTS = [
    ("two-space-nested",
     '{\n  "permissions": {\n    "allow": ["Read", "Bash(git log:*)"],\n    "deny": ["WebFetch"]\n  },\n'
     '  "hooks": {\n    "PostToolUse": [\n      {\n        "matcher": "Edit|Write",\n        "hooks": [\n'
     '          {"type": "command", "command": "prettier --write \\"$FILE\\""}\n        ]\n      }\n    ]\n  },\n'
     '  "env": {"LANG": "fr_FR.UTF-8", "MOTD": "h\\u00e9llo \\ud83d\\ude00"}\n}\n',
     '{\n  "permissions": {\n    "allow": ["Read", "Bash(git log:*)"],\n    "deny": ["WebFetch"]\n  },\n'
     '  "hooks": {\n    "PostToolUse": [\n      {\n        "matcher": "Edit|Write",\n        "hooks": [\n'
     '          {"type": "command", "command": "prettier --write \\"$FILE\\""}\n        ]\n      }\n    ]\n  },\n'
     '  "env": {"LANG": "fr_FR.UTF-8", "MOTD": "h\\u00e9llo \\ud83d\\ude00"},\n'
     '  "skillOverrides": {\n    "p-skill": "name-only"\n  }\n}\n'),
    ("four-space-unicode-no-final-newline",
     '{\n    "model": "claude-sonnet-4-6",\n    "env": {\n        "NAME": "Zoë — 名前"\n    },\n'
     '    "skillOverrides": {\n        "p-other": "off"\n    }\n}',
     '{\n    "model": "claude-sonnet-4-6",\n    "env": {\n        "NAME": "Zoë — 名前"\n    },\n'
     '    "skillOverrides": {\n        "p-other": "off",\n        "p-skill": "name-only"\n    }\n}'),
    ("crlf-existing-key",
     '{\r\n  "skillOverrides": {\r\n    "p-skill": "off",\r\n    "p-other": "on"\r\n  },\r\n  "cleanupPeriodDays": 30\r\n}\r\n',
     '{\r\n  "skillOverrides": {\r\n    "p-skill": "name-only",\r\n    "p-other": "on"\r\n  },\r\n  "cleanupPeriodDays": 30\r\n}\r\n'),
    ("one-line",
     '{"permissions":{"allow":["Read"]},"skillOverrides":{}}',
     '{"permissions":{"allow":["Read"]},"skillOverrides":{"p-skill":"name-only"}}'),
    ("bom-tabs",
     '\ufeff{\n\t"includeCoAuthoredBy": false\n}\n',
     '\ufeff{\n\t"includeCoAuthoredBy": false,\n\t"skillOverrides": {\n\t\t"p-skill": "name-only"\n\t}\n}\n'),
]


@pytest.mark.parametrize("original, expected", [pytest.param(o, e, id=i) for i, o, e in LAYOUTS])
def test_only_the_intended_key_changes_and_undo_restores_bytes(tree, original, expected):
    path = write(tree / LOCAL, original)
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "name-only")
    assert plan.ok, plan.refusal
    assert plan.scope == "local" and [e.path for e in plan.edits] == [path]
    assert 'skillOverrides["p-skill"]' in plan.edits[0].change and "+" in plan.diff
    done = apply_plan(plan)
    assert path.read_bytes() == expected.encode("utf-8")
    # What Claude Code reads now: the listing entry becomes the bare name.
    after = registry_for(tree)
    assert skill_of(after, "p-skill").state.listed is Listed.NAME_ONLY
    undo(done)
    assert path.read_bytes() == original.encode("utf-8")


def test_symlinked_settings_file_is_written_through_the_link(tree):
    real = write(tree / "dotfiles" / "claude-local.json", '{\n  "env": {"A": "1"}\n}\n')
    link = tree / LOCAL
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(real, link.parent), link)
    registry = registry_for(tree)
    # the link leaves the home dir and the project: refused until the user confirms
    refused = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    assert refused.refusal and "symbolic link" in refused.refusal and str(real.resolve()) in refused.refusal
    assert "--allow-outside-link" in refused.refusal and not refused.edits
    done = apply_plan(plan_toggle(registry, skill_of(registry, "p-skill"), "off", allow_outside_link=True))
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(real, link.parent)
    assert json.loads(real.read_text()) == {"env": {"A": "1"}, "skillOverrides": {"p-skill": "off"}}
    assert done.written_paths == [real.resolve()]
    undo(done)
    assert real.read_text() == '{\n  "env": {"A": "1"}\n}\n' and link.is_symlink()


@pytest.mark.parametrize("bad, where", [
    ('{\n  "skillOverrides": {"p-skill": "off",}\n}\n', "2:"),  # trailing comma
    ('{\n  // my settings\n  "model": "opus"\n}\n', "2:3"),  # a comment: JSON.parse rejects it
    ('{\n  "env": {"A": "1"}\n', "3:1"),  # cut short
])
def test_malformed_file_is_left_byte_identical_with_the_parse_error(tree, bad, where):
    path = write(tree / LOCAL, bad)
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    assert not plan.ok and not plan.edits
    assert f"{path}:{where}" in plan.refusal and "left as it is" in plan.refusal
    with pytest.raises(ToggleError):
        apply_plan(plan)
    assert path.read_bytes() == bad.encode("utf-8")


def test_wrong_shape_is_refused(tree):
    path = write(tree / LOCAL, '{"permissions": "none"}\n')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "blocked")
    assert not plan.ok and "'permissions' is a string, not an object" in plan.refusal
    assert path.read_text() == '{"permissions": "none"}\n'


def test_crash_between_temp_write_and_rename_leaves_the_original(tree, monkeypatch):
    original = '{\n  "env": {"A": "1"}\n}\n'
    path = write(tree / LOCAL, original)
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")

    class Crash(BaseException):
        pass

    def crash(temp_path, target):
        assert temp_path.read_bytes() == plan.edits[0].new_data  # the new content was complete
        raise Crash()

    monkeypatch.setattr(atomic_write, "_before_replace", crash)
    with pytest.raises(Crash):
        apply_plan(plan)
    assert path.read_text() == original
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.local.json", "skills"]  # no temp left


def test_external_edit_after_planning_is_detected(tree):
    path = write(tree / LOCAL, '{\n  "env": {"A": "1"}\n}\n')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    path.write_text('{\n  "env": {"A": "2"}\n}\n')  # another editor saved meanwhile
    with pytest.raises(ToggleError, match="changed by another program"):
        apply_plan(plan)
    assert path.read_text() == '{\n  "env": {"A": "2"}\n}\n'


def test_external_edit_after_loading_is_detected_when_planning(tree):
    path = write(tree / LOCAL, '{"skillOverrides": {"p-skill": "off"}}\n')
    registry = registry_for(tree)
    path.write_text('{"skillOverrides": {"p-skill": "name-only"}}\n')
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "on")
    assert not plan.ok and "changed by another program since skillmanager loaded it" in plan.refusal


def test_file_created_by_someone_else_after_planning_is_detected(tree):
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    assert plan.edits[0].creates
    write(tree / LOCAL, "{}\n")
    with pytest.raises(ToggleError, match="created"):
        apply_plan(plan)
    assert (tree / LOCAL).read_text() == "{}\n"


def test_missing_file_and_dir_are_created_and_undo_removes_the_file(tree):
    proj = tree / "home" / "proj"
    registry = registry_for(tree)
    skill = skill_of(registry, "u-skill")
    plan = plan_toggle(registry, skill, "off", scope="project")
    path = proj / ".claude" / "settings.json"
    assert plan.edits[0].creates and plan.edits[0].path == path and plan.edits[0].diff.startswith("--- /dev/null")
    done = apply_plan(plan)
    # A new file is written as Claude Code writes settings: JSON.stringify(obj, null, 2) + "\n".
    assert path.read_text() == '{\n  "skillOverrides": {\n    "u-skill": "off"\n  }\n}\n'
    assert done.edits[0].backup is None
    undo(done)
    assert not path.exists()


def test_backup_goes_to_the_app_data_dir_never_beside_the_file(tree):
    path = write(tree / LOCAL, '{"env": {}}\n')
    registry = registry_for(tree)
    done = apply_plan(plan_toggle(registry, skill_of(registry, "p-skill"), "off"))
    backup = done.edits[0].backup
    assert backup is not None and backup.parent == tree / "appdata" / "backups"
    assert backup.read_bytes() == b'{"env": {}}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.local.json", "skills"]


def test_undo_refuses_when_the_file_changed_since(tree):
    path = write(tree / LOCAL, '{}\n')
    registry = registry_for(tree)
    done = apply_plan(plan_toggle(registry, skill_of(registry, "p-skill"), "off"))
    path.write_text('{"skillOverrides": {"p-skill": "off"}, "model": "opus"}\n')
    with pytest.raises(ToggleError, match="changed after skillmanager wrote it"):
        undo(done)
    assert "opus" in path.read_text()


def test_undo_twice_is_refused(tree):
    registry = registry_for(tree)
    done = apply_plan(plan_toggle(registry, skill_of(registry, "p-skill"), "off"))
    undo(done)
    with pytest.raises(ToggleError, match="already undone"):
        undo(done)


# --------------------------------------------------------------------------- scopes and precedence


def test_default_scopes(tree):
    registry = registry_for(tree)
    assert default_scope(registry, skill_of(registry, "p-skill")) == "local"
    assert default_scope(registry, skill_of(registry, "u-skill")) == "user"
    bundled = next(s for s in registry.skills if s.source.value == "bundled")
    assert default_scope(registry, bundled) == "user"
    plan = plan_toggle(registry, skill_of(registry, "u-skill"), "name-only")
    assert plan.edits[0].path == tree / USER


def test_managed_override_disables_the_control(tree):
    write(tree / "managed" / "managed-settings.json", '{"skillOverrides": {"p-skill": "name-only"}}')
    write(tree / LOCAL, '{"skillOverrides": {"p-skill": "on"}}')
    registry = registry_for(tree)
    skill = skill_of(registry, "p-skill")
    state = effective_toggle_state(registry, skill)
    assert state.state == "name-only" and state.locked
    assert state.decided_by.scope == "managed" and "managed-settings.json" in state.locked_reason
    controls = {c.state: c for c in state.controls}
    for wanted in ("on", "off", "user-invocable-only"):
        assert not controls[wanted].enabled and "Managed policy" in controls[wanted].reason
    assert controls["blocked"].enabled  # a deny rule is still the user's to add
    for scope in ("user", "project", "local"):
        plan = plan_toggle(registry, skill, "off", scope=scope)
        assert not plan.ok and "Only an administrator" in plan.refusal


def test_higher_user_scope_decides_and_is_edited_by_default(tree):
    write(tree / PROJECT, '{"skillOverrides": {"p-skill": "off"}}\n')
    write(tree / LOCAL, '{"skillOverrides": {"p-skill": "name-only"}}\n')
    registry = registry_for(tree)
    skill = skill_of(registry, "p-skill")
    state = effective_toggle_state(registry, skill)
    assert state.state == "name-only" and state.decided_by.file == tree / LOCAL and not state.locked
    refused = plan_toggle(registry, skill, "on", scope="project")
    assert not refused.ok and "--scope local" in refused.refusal
    plan = plan_toggle(registry, skill, "on")  # no scope: the deciding file
    assert plan.scope == "local"
    apply_plan(plan)
    # project still says "off", so "on" must be written explicitly to win over it.
    assert json.loads((tree / LOCAL).read_text()) == {"skillOverrides": {"p-skill": "on"}}
    assert skill_of(registry_for(tree), "p-skill").state.listed is Listed.FULL


def test_on_removes_the_key_when_nothing_lower_says_otherwise(tree):
    write(tree / LOCAL, '{\n  "skillOverrides": {\n    "p-skill": "off",\n    "p-other": "off"\n  }\n}\n')
    registry = registry_for(tree)
    apply_plan(plan_toggle(registry, skill_of(registry, "p-skill"), "on"))
    assert (tree / LOCAL).read_text() == '{\n  "skillOverrides": {\n    "p-other": "off"\n  }\n}\n'


def test_already_in_state_plans_nothing(tree):
    write(tree / LOCAL, '{"skillOverrides": {"p-skill": "off"}}\n')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    assert plan.ok and not plan.edits and "Already off" in plan.message


# --------------------------------------------------------------------------- deny rules


def test_blocked_adds_a_deny_rule_and_the_skill_stays_listed(tree):
    write(tree / USER, '{\n "permissions": {\n  "allow": [\n   "Read"\n  ]\n }\n}\n')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "u-skill"), "blocked")
    apply_plan(plan)
    assert (tree / USER).read_text() == \
        '{\n "permissions": {\n  "allow": [\n   "Read"\n  ],\n  "deny": [\n   "Skill(u-skill)"\n  ]\n }\n}\n'
    after = registry_for(tree)
    skill = skill_of(after, "u-skill")
    assert skill.state.listed is Listed.FULL
    state = effective_toggle_state(after, skill)
    assert state.blocked and state.blocked_summary.startswith("Blocked but still listed")
    assert expand(after, "u-skill").refusal == DENY_TEXT
    unblock = plan_toggle(after, skill, "unblock")
    apply_plan(unblock)
    assert json.loads((tree / USER).read_text()) == {"permissions": {"allow": ["Read"], "deny": []}}


def test_unblock_removes_every_exact_copy_and_refuses_wide_or_managed_rules(tree):
    write(tree / USER, '{"permissions": {"deny": ["Skill(p-skill)", "Bash"]}}\n')
    write(tree / LOCAL, '{"permissions": {"deny": ["Skill(/p-skill)"]}}\n')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "unblock")
    assert {e.path for e in plan.edits} == {tree / USER, tree / LOCAL}
    apply_plan(plan)
    assert json.loads((tree / USER).read_text()) == {"permissions": {"deny": ["Bash"]}}
    assert json.loads((tree / LOCAL).read_text()) == {"permissions": {"deny": []}}

    for wide in ("Skill(p:*)", "Skill(skill:p-*)"):  # a prefix rule; current's `skill:` glob form
        write(tree / USER, json.dumps({"permissions": {"deny": [wide]}}) + "\n")
        registry = registry_for(tree)
        plan = plan_toggle(registry, skill_of(registry, "p-skill"), "unblock")
        assert not plan.ok and "also covers other skills" in plan.refusal, wide

    write(tree / USER, '{}')
    write(tree / "managed" / "managed-settings.json", '{"permissions": {"deny": ["Skill(p-skill)"]}}')
    registry = registry_for(tree)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "unblock")
    assert not plan.ok and "only an administrator" in plan.refusal


# --------------------------------------------------------------------------- legacy and front matter


@pytest.mark.parametrize("state", ["off", "name-only", "user-invocable-only"])
def test_legacy_says_plainly_that_overrides_do_not_exist(tree, state):
    registry = registry_for(tree, "legacy")
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), state)
    assert not plan.ok
    assert f'has no skillOverrides setting: "{state}" does not exist there' in plan.refusal
    assert "hidden" in plan.refusal and "blocked" in plan.refusal


HIDDEN_ORIGINAL = ("---\r\n# owner: docs team\r\nname: 'p-fm'   # display\r\ndescription: \"Edits: docs\"\r\n"
                   "allowed-tools:\r\n  - Read\r\n---\r\nBody line one\r\n\r\n## Section\r\n")
HIDDEN_EXPECTED = ("---\r\n# owner: docs team\r\nname: 'p-fm'   # display\r\ndescription: \"Edits: docs\"\r\n"
                   "allowed-tools:\r\n  - Read\r\ndisable-model-invocation: true\r\n---\r\nBody line one\r\n\r\n"
                   "## Section\r\n")


@pytest.mark.parametrize("profile, bom", [("legacy", ""), ("current", "\ufeff")])
def test_hidden_edits_one_front_matter_line_and_keeps_everything_else(tree, profile, bom):
    path = write(tree / "home/proj/.claude/skills/p-fm/SKILL.md", bom + HIDDEN_ORIGINAL)
    registry = registry_for(tree, profile)
    skill = skill_of(registry, "p-fm")
    plan = plan_toggle(registry, skill, "hidden")
    assert plan.ok and plan.mechanism == "front-matter" and plan.edits[0].path == path
    done = apply_plan(plan)
    assert path.read_bytes() == (bom + HIDDEN_EXPECTED).encode("utf-8")
    after = registry_for(tree, profile)
    assert skill_of(after, "p-fm").state.listed is Listed.NO
    assert effective_toggle_state(after, skill_of(after, "p-fm")).state == "hidden"
    unhide = plan_toggle(after, skill_of(after, "p-fm"), "unhide")
    apply_plan(unhide)
    assert path.read_bytes() == (bom + HIDDEN_ORIGINAL).encode("utf-8")
    # the session undo of the first change is now refused: the file changed since (back to the original)
    with pytest.raises(ToggleError):
        undo(done)


def test_legacy_hidden_on_a_bom_file_is_refused(tree):
    path = write(tree / "home/proj/.claude/skills/p-fm/SKILL.md", "\ufeff" + HIDDEN_ORIGINAL)
    registry = registry_for(tree, "legacy")
    plan = plan_toggle(registry, skill_of(registry, "p-fm"), "hidden")
    assert not plan.ok and "BOM" in plan.refusal
    assert path.read_bytes() == ("\ufeff" + HIDDEN_ORIGINAL).encode("utf-8")


def test_legacy_on_unhides_and_unblocks(tree):
    write(tree / "home/proj/.claude/skills/p-fm/SKILL.md",
          "---\ndescription: fm\ndisable-model-invocation: true\n---\nbody\n")
    write(tree / LOCAL, '{"permissions": {"deny": ["Skill(p-fm)"]}}\n')
    registry = registry_for(tree, "legacy")
    plan = plan_toggle(registry, skill_of(registry, "p-fm"), "on")
    assert plan.ok and len(plan.edits) == 2
    apply_plan(plan)
    after = registry_for(tree, "legacy")
    state = effective_toggle_state(after, skill_of(after, "p-fm"))
    assert state.state == "on" and not state.blocked


def test_files_the_user_should_not_edit_get_settings_controls_only(tree):
    make_skill(tree / "managed" / ".claude" / "skills", "m-skill")
    registry = registry_for(tree)
    skill = skill_of(registry, "m-skill")
    state = effective_toggle_state(registry, skill)
    assert not state.editable_files and "managed policy" in state.editable_reason
    controls = {c.state: c for c in state.controls}
    assert not controls["hidden"].enabled and "only settings-level controls" in controls["hidden"].reason
    assert controls["off"].enabled and controls["blocked"].enabled
    bundled = next(s for s in registry.skills if s.source.value == "bundled")
    plan = plan_toggle(registry, bundled, "hidden")
    assert not plan.ok and "compiled into Claude Code" in plan.refusal
    plan = plan_toggle(registry, bundled, "off")
    assert plan.ok and plan.edits[0].path == tree / USER


def test_plugin_skills_ignore_skill_overrides(tree):
    plugin = tree / "plug"
    write(plugin / ".claude-plugin" / "plugin.json", '{"name": "plug"}')
    make_skill(plugin / "skills", "pa")
    ws = Workspace.create(home=tree / "home", cwd=tree / "home" / "proj", managed_root=None,
                          plugin_dirs=[plugin], env={"HOME": str(tree / "home")})
    registry = load_registry(ws)
    skill = skill_of(registry, "plug:pa")
    assert override_keys(skill) == []
    plan = plan_toggle(registry, skill, "off")
    assert not plan.ok and "ignores skillOverrides for skills and commands of a plugin" in plan.refusal
    assert plan_toggle(registry, skill, "blocked").ok


def test_disable_bundled_skills(tree):
    registry = registry_for(tree)
    plan = plan_disable_bundled(registry, True)
    apply_plan(plan)
    assert json.loads((tree / USER).read_text()) == {"disableBundledSkills": True}
    after = registry_for(tree)
    bundled = next(s for s in after.skills if s.source.value == "bundled")
    state = effective_toggle_state(after, bundled)
    assert state.state == "off" and state.decided_by.kind == "disableBundledSkills"
    assert not plan_toggle(after, bundled, "on").ok
    assert not plan_disable_bundled(registry_for(tree, "legacy"), True).ok


def test_unknown_state_and_scope_are_refused(tree):
    registry = registry_for(tree)
    skill = skill_of(registry, "p-skill")
    assert "unknown state" in plan_toggle(registry, skill, "maybe").refusal
    assert "cannot write 'managed'" in plan_toggle(registry, skill, "off", scope="managed").refusal


def test_unreadable_settings_file_is_refused(tree, monkeypatch):
    write(tree / LOCAL, "{}\n")
    registry = registry_for(tree)
    real = atomic_write.read_snapshot

    def deny(path, **kw):
        if Path(path) == tree / LOCAL:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, **kw)

    monkeypatch.setattr(atomic_write, "read_snapshot", deny)
    plan = plan_toggle(registry, skill_of(registry, "p-skill"), "off")
    assert not plan.ok and "cannot be read (Permission denied)" in plan.refusal


def test_summary_of_on_is_true_for_waiting_and_blocked_skills(tmp_path):
    """'On' only says no setting turns the skill off: a waiting or denied skill must not read as callable."""
    from skillmanager.core.rules.registry import load_registry
    from skillmanager.core.edit.toggle import effective_toggle_state
    from skillmanager.core.load.workspace import Workspace

    home, proj = tmp_path / "home", tmp_path / "home" / "proj"
    for name, front in (("waits", "paths: src/**\n"), ("denied", "")):
        skill = proj / ".claude" / "skills" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\ndescription: {name}\n{front}---\nbody\n", encoding="utf-8")
    (proj / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Skill(denied)"]}}\n', encoding="utf-8")
    (proj / ".git").mkdir()
    registry = load_registry(Workspace.create(home=home, cwd=proj, managed_root=None, profile="current", env={}))
    waiting = effective_toggle_state(registry, registry.find("waits") or next(s for s in registry.skills if s.name == "waits"))
    denied = effective_toggle_state(registry, registry.find("denied"))
    assert waiting.state == "on" and "still waiting" in waiting.summary and "callable by the model and" not in waiting.summary
    assert denied.state == "on" and "Skill(denied)" in denied.summary and "stays listed" in denied.summary


def test_summary_of_on_claims_nothing_about_the_listing_the_budget_decides(tmp_path):
    """A skill the budget cut to its name is still "on"; the summary must not say its description is listed."""
    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.core.layers.listing import build_listing
    from skillmanager.core.layers.listing_outcome import Outcome, listing_outcomes

    registry = load_registry(create_demo_workspace(tmp_path / "demo", budget=1800))
    outcomes = listing_outcomes(registry, build_listing(registry))
    skill = next(s for s in registry.skills if s.name == "standup-notes")
    assert outcomes[skill.key].outcome is Outcome.NAME_ONLY and outcomes[skill.key].cause == "budget"
    state = effective_toggle_state(registry, skill)
    assert state.state == "on" and "description" not in state.summary
    assert state.summary == "On: no setting turns it off; the model can call it and you can type /standup-notes."


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_a_rows_switch_reads_the_same_decision_as_the_full_state(tmp_path, profile):
    """switch_facts asks for the decision without planning every control: everything but the controls is
    what the full state says, for every skill of the demo (managed, shadowed, blocked, plugin, bundled…)."""
    import dataclasses

    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.core.edit.switch import switch_facts
    from skillmanager.core.edit.toggle import effective_toggle_state
    from skillmanager.core.rules.registry import load_registry

    registry = load_registry(create_demo_workspace(tmp_path / "demo", profile=profile))
    assert len(registry.skills) > 20
    for skill in registry.skills:
        full = effective_toggle_state(registry, skill)
        lean = effective_toggle_state(registry, skill, with_controls=False)
        assert full.controls and not lean.controls
        assert dataclasses.replace(full, controls=[]) == lean, skill.name
        facts = switch_facts(registry, skill)
        assert facts.enabled == (not lean.locked and facts.target is not None)
