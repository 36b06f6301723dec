"""core.incremental: after any edit, refresh_paths(...) gives exactly what a full load_registry gives."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from skillmanager.core.demo import create_demo_workspace
from skillmanager.core.rules.incremental import refresh_paths, skill_identity
from skillmanager.core.rules.registry import load_registry
from support import four_source_tree, skill_md, write


def _ident(skill):
    return skill_identity(skill) if skill is not None else None


def normal(registry) -> dict:
    """Everything the registry decided, in load order, with object links replaced by identities."""
    rows = []
    for s in registry.skills:
        state = s.state
        rows.append((
            s.name, s.kind, s.source.value, str(s.path), str(s.source_root), str(s.skill_dir), str(s.scope_dir),
            s.description, s.description_from_body, s.when_to_use, s.paths, s.disable_model_invocation,
            s.user_invocable, s.load_index, str(s.realpath), s.group, s.size_bytes, s.body,
            json.dumps(s.front_matter, sort_keys=True, default=str),
            [(d.severity.value, d.code, d.message) for d in s.diagnostics],
            state.listed.value, state.listed_reason, state.invocable_by.value, state.invocable_reason,
            _ident(state.shadowed_by), state.shadow_reason, _ident(state.duplicate_of), state.conditional,
            state.active, [d.to_json() for d in state.decided_by],
        ))
    return {"skills": rows, "diagnostics": [(d.code, d.message) for d in registry.diagnostics],
            "model": (registry.model, registry.model_source), "merged": registry.settings.merged,
            "overrides": registry.settings.skillOverrides}


def rows_after(before, delta) -> set:
    """The rows a view holding `before` has after applying the delta (what the GUI's model does)."""
    if delta.full_reload:
        return {skill_identity(s) for s in delta.registry.skills}
    rows = {skill_identity(s) for s in before.skills}
    rows -= {skill_identity(s) for s in delta.removed}
    rows |= {skill_identity(s) for s in delta.added + delta.changed}
    return rows




# Each edit changes the demo tree and returns the paths a watcher would report, plus the delta kind
# expected: "in-place" (re-read files), "settings" (settings re-read) or "full".
def edit_description(p):
    path = p.cwd / ".claude/skills/db-reset/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("description:", "description: Edited —", 1),
                    encoding="utf-8")
    return [path], "in-place"


def hide_project_skill(p):
    path = p.cwd / ".claude/skills/env-check/SKILL.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", "---\ndisable-model-invocation: true\n", 1), encoding="utf-8")
    return [path], "in-place"


def add_skill(p):
    path = write(p.cwd / ".claude/skills/aaa-new-skill/SKILL.md", skill_md("A brand new skill"))
    return [path.parent, path], "in-place"


def add_shadowing_skill(p):  # a project copy of a user skill: the project copy now wins (or loses)
    path = write(p.cwd / ".claude/skills/standup-notes/SKILL.md", skill_md("Project standup notes"))
    return [path.parent, path], "in-place"


def add_user_skill(p):
    path = write(p.home / ".claude/skills/zzz-user-skill/SKILL.md", skill_md("A user skill", "paths: src/**\n"))
    return [path], "in-place"


def delete_winner(p):  # the managed commit-message wins over user and project copies
    folder = p.managed_root / ".claude/skills/commit-message"
    shutil.rmtree(folder)
    return [folder / "SKILL.md", folder], "in-place"


def delete_user_skill(p):
    folder = p.home / ".claude/skills/translate-notes"
    shutil.rmtree(folder)
    return [folder], "in-place"


def rename_dir(p):
    old = p.cwd / ".claude/skills/ticket-triage"
    new = old.with_name("triage-tickets")
    old.rename(new)
    return [old, new], "in-place"


def break_yaml(p):
    path = p.cwd / ".claude/skills/sql-review/SKILL.md"
    path.write_text("---\ndescription: [unclosed\n---\nbody\n", encoding="utf-8")
    return [path], "in-place"


def add_dir_skill(p):
    path = write(p.add_dir / ".claude/skills/extra-helper/SKILL.md", skill_md("Extra helper"))
    return [path], "in-place"


def nested_level_skill(p):  # packages/api is a project level only when it is the cwd: here a full reload
    path = write(p.cwd / "packages/api/.claude/skills/new-api-skill/SKILL.md", skill_md("API thing"))
    return [path], "full"


def other_file_in_skill(p):
    path = write(p.cwd / ".claude/skills/db-reset/notes.txt", "not read by the registry\n")
    return [path], "none"


def deny_rule(p):
    path = p.cwd / ".claude/settings.local.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data.setdefault("permissions", {}).setdefault("deny", []).append("Skill(db-reset)")
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [path], "settings"


def skill_override(p):
    path = p.home / ".claude/settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["skillOverrides"] = {"env-check": "name-only", "sql-review": "off"}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [path], "settings"


def settings_and_skill(p):
    paths, _ = skill_override(p)
    more, _ = add_skill(p)
    return paths + more, "settings"


def enable_plugin(p):
    path = p.home / ".claude/settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["enabledPlugins"] = {"something@market": True}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [path], "full"


def edit_command(p):
    path = p.cwd / ".claude/commands/deploy.md"
    path.write_text("---\ndescription: Deploy, edited\n---\nDeploy it.\n", encoding="utf-8")
    return [path], "full"


def symlinked_skill(p):  # realpath de-duplication links names: the full reload handles it
    link = p.cwd / ".claude/skills/linked-skill"
    os.symlink(p.home / ".claude/skills/standup-notes", link)
    return [link], "full"


def edit_our_temp_file(p):
    path = write(p.cwd / ".claude/.skillmanager-abc123.tmp", "{}")
    return [path], "none"


EDITS = [edit_description, hide_project_skill, add_skill, add_shadowing_skill, add_user_skill, delete_winner,
         delete_user_skill, rename_dir, break_yaml, add_dir_skill, nested_level_skill, other_file_in_skill,
         deny_rule, skill_override, settings_and_skill, enable_plugin, edit_command, symlinked_skill,
         edit_our_temp_file]


@pytest.mark.parametrize("profile", ["current", "legacy"])
@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_incremental_equals_full_reload(tmp_path, profile, edit):
    workspace = create_demo_workspace(tmp_path / "demo", profile=profile)
    before = load_registry(workspace)
    snapshot_before = normal(before)
    paths, kind = edit(workspace.demo_paths)
    delta = refresh_paths(before, [str(p) for p in paths])
    assert normal(delta.registry) == normal(load_registry(workspace))
    assert normal(before) == snapshot_before or kind != "none"  # the old registry is left alone
    expected = {"in-place": (False, False), "settings": (False, True), "full": (True, False),
                "none": (False, False)}[kind]
    assert (delta.full_reload, delta.settings_reloaded) == expected, delta.reason
    if kind == "none":
        assert delta.empty


def test_delta_reports_what_changed(tmp_path):
    workspace = create_demo_workspace(tmp_path / "demo")
    before = load_registry(workspace)
    paths, _ = rename_dir(workspace.demo_paths)
    delta = refresh_paths(before, paths)
    assert [s.name for s in delta.removed] == ["ticket-triage"]
    assert [s.name for s in delta.added] == ["triage-tickets"]
    assert not delta.full_reload and delta.structural
    paths, _ = edit_description(workspace.demo_paths)
    second = refresh_paths(delta.registry, paths)
    assert [s.name for s in second.changed] == ["db-reset"]
    assert not second.structural
    old = next(s for s in delta.registry.skills if s.name == "db-reset")
    assert "Edited" not in old.description  # objects of the previous registry are not mutated
    assert "Edited" in second.changed[0].description


@pytest.mark.parametrize("profile", ["current", "legacy"])
def test_a_project_skill_that_clashes_with_an_add_dir_skill(tmp_path, profile):
    """current renames a clashing --add-dir skill `extra:clash` (listed); the refresh must agree with F5."""
    from skillmanager.core.load.workspace import Workspace

    home, cwd, extra = tmp_path / "home", tmp_path / "repo", tmp_path / "extra"
    (cwd / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    write(extra / ".claude/skills/clash/SKILL.md", skill_md("add-dir clash"))
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=False, add_dirs=[extra], profile=profile,
                                 env={"HOME": str(home), "PATH": os.environ.get("PATH", "")})
    before = load_registry(workspace)
    snapshot_before = normal(before)
    added = write(cwd / ".claude/skills/clash/SKILL.md", skill_md("project clash"))
    delta = refresh_paths(before, [str(added), str(added.parent)])
    full = load_registry(workspace)
    assert normal(delta.registry) == normal(full)
    assert not delta.full_reload, delta.reason  # the rename is decided in place, by the same code
    assert rows_after(before, delta) == {skill_identity(s) for s in full.skills}
    renamed = next(s for s in delta.registry.skills if s.source.value == "add-dir")
    if profile == "current":
        assert renamed.name == "extra:clash" and renamed.state.listed.value != "no"
        assert renamed.state.shadowed_by is None
        assert {s.name for s in delta.removed} == {"clash"} and {s.name for s in delta.added} == {"clash", "extra:clash"}
    else:
        assert renamed.name == "clash" and renamed.state.shadowed_by is not None
    # and back: the project copy goes, the --add-dir skill is `clash` again
    added.unlink()
    added.parent.rmdir()
    back = refresh_paths(delta.registry, [str(added), str(added.parent)])
    assert not back.full_reload and normal(back.registry) == normal(load_registry(workspace)) == snapshot_before
    assert rows_after(delta.registry, back) == {skill_identity(s) for s in before.skills}


@pytest.mark.parametrize("profile", ["current", "legacy"])
@pytest.mark.parametrize("edited", ["project", "add-dir"])
def test_editing_a_clashing_name_is_done_in_place(tmp_path, profile, edited):
    """A content edit keeps the `extra:clash` renaming as it was: no full reload, still what F5 gives
    (workspaces whose packages share skill names hit this on nearly every edit)."""
    from skillmanager.core.load.workspace import Workspace

    home, cwd, extra = tmp_path / "home", tmp_path / "repo", tmp_path / "extra"
    (cwd / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    files = {"add-dir": write(extra / ".claude/skills/clash/SKILL.md", skill_md("add-dir clash")),
             "project": write(cwd / ".claude/skills/clash/SKILL.md", skill_md("project clash"))}
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=False, add_dirs=[extra], profile=profile,
                                 env={"HOME": str(home), "PATH": os.environ.get("PATH", "")})
    before = load_registry(workspace)
    files[edited].write_text(skill_md(f"{edited} clash, edited"), encoding="utf-8")
    delta = refresh_paths(before, [str(files[edited])])
    assert not delta.full_reload, delta.reason
    assert normal(delta.registry) == normal(load_registry(workspace))
    changed = next(s for s in delta.changed if s.source.value == edited)
    assert "edited" in changed.description
    if profile == "current" and edited == "add-dir":
        assert changed.name == "extra:clash" and changed.scoped_from == "clash"


def test_shadowed_copies_are_redecided(tmp_path):
    workspace = create_demo_workspace(tmp_path / "demo")
    before = load_registry(workspace)
    user_copy = next(s for s in before.skills if s.name == "commit-message" and s.source.value == "user")
    assert user_copy.state.shadowed_by is not None
    paths, _ = delete_winner(workspace.demo_paths)
    delta = refresh_paths(before, paths)
    names = {(s.name, s.source.value) for s in delta.changed}
    assert ("commit-message", "user") in names
    user_after = next(s for s in delta.registry.skills if s.name == "commit-message" and s.source.value == "user")
    assert user_after.state.is_winner
    assert user_copy.state.shadowed_by is not None  # the old object still says what it said


_NAMES = ["alpha", "beta", "gamma", "Zed"]  # `Zed`: current sorts by localeCompare (after gamma), legacy by code point
_PLACES = ["user", "project", "add-dir", "add-dir-2", "managed", "plugin", "command"]
_OPS = st.lists(st.tuples(st.sampled_from(["add", "edit", "delete", "hide", "deny", "paths", "display"]),
                          st.sampled_from(_PLACES), st.sampled_from(_NAMES)), min_size=1, max_size=6)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, profile=st.sampled_from(["current", "legacy"]))
def test_random_edit_sequences(tmp_path_factory, ops, profile):
    """Any sequence of skill edits, applied one refresh at a time, ends where a full load ends."""
    from skillmanager.core.load.workspace import Workspace

    root = tmp_path_factory.mktemp("inc")
    home, cwd, extra, managed, plugin = (root / "home", root / "repo", root / "extra", root / "managed",
                                         root / "plug")
    extra2 = root / "extra2"
    (cwd / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    write(plugin / ".claude-plugin" / "plugin.json", json.dumps({"name": "plug"}))
    for name in _NAMES[:2]:
        write(home / ".claude/skills" / name / "SKILL.md", skill_md(f"user {name}"))
    write(cwd / ".claude/skills/beta/SKILL.md", skill_md("project beta"))
    write(extra / ".claude/skills/beta/SKILL.md", skill_md("add-dir beta"))  # a clash current renames
    write(extra2 / ".claude/skills/beta/SKILL.md", skill_md("second add-dir beta"))
    write(extra2 / ".claude/skills/gamma/SKILL.md", skill_md("second add-dir gamma"))
    write(managed / ".claude/skills/gamma/SKILL.md", skill_md("managed gamma"))
    write(plugin / "skills/alpha/SKILL.md", skill_md("plugin alpha"))
    bases = {"user": home / ".claude/skills", "project": cwd / ".claude/skills", "add-dir": extra / ".claude/skills",
             "add-dir-2": extra2 / ".claude/skills", "managed": managed / ".claude/skills", "plugin": plugin / "skills",
             "command": cwd / ".claude/commands"}
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=managed, add_dirs=[extra, extra2],
                                 plugin_dirs=[plugin], env=env, profile=profile)
    registry = load_registry(workspace)
    for step, (op, where, name) in enumerate(ops):
        base = bases[where]
        path = base / f"{name}.md" if where == "command" else base / name / "SKILL.md"
        if op == "add":
            write(path, skill_md(f"{where} {name} {step}"))
        elif op == "edit" and path.exists():
            path.write_text(skill_md(f"{where} {name} edited {step}"), encoding="utf-8")
        elif op == "delete" and where == "command" and path.exists():
            path.unlink()
        elif op == "delete" and path.parent.exists() and where != "command":
            shutil.rmtree(path.parent)
        elif op == "hide" and path.exists():
            path.write_text(skill_md(f"{where} {name}", "disable-model-invocation: true\n"), encoding="utf-8")
        elif op == "paths" and path.exists():  # conditional: takes no name and is never renamed
            path.write_text(skill_md(f"{where} {name} {step}", "paths: src/**\n"), encoding="utf-8")
        elif op == "display" and path.exists():  # a `name:` that differs from the folder
            path.write_text(skill_md(f"{where} {name} {step}", f"name: Shown {name.title()}\n"), encoding="utf-8")
        elif op == "deny":
            settings = cwd / ".claude/settings.local.json"
            write(settings, json.dumps({"permissions": {"deny": [f"Skill({name})"]}}))
            path = settings
        delta = refresh_paths(registry, [path, path.parent])
        full = load_registry(workspace)
        assert normal(delta.registry) == normal(full), (op, where, name, delta.reason)
        assert rows_after(registry, delta) == {skill_identity(s) for s in full.skills}, (op, where, name)
        registry = delta.registry


def _shown(snapshot) -> dict:
    """What the window shows of a snapshot: rows, listing entries, token counts, outcomes, switches, remedy."""
    return {
        "rows": normal(snapshot.registry),
        "listing": snapshot.listing.text if hasattr(snapshot.listing, "text") else repr(snapshot.listing),
        "entries": {k: e.shown_text for k, e in snapshot.entries.items()},
        "tokens": dict(snapshot.tokens),
        "outcomes": {k: repr(o) for k, o in snapshot.outcomes.items()},
        "switches": dict(snapshot.switches),
        "remedy": repr(snapshot.remedy),
        "problems": dict(snapshot.problems),
    }


_ENGINE_OPS = st.lists(st.tuples(st.sampled_from(["edit", "add", "delete", "paths", "off"]),
                                 st.sampled_from(["user", "project", "add-dir", "add-dir-2"]),
                                 st.sampled_from(_NAMES)), min_size=1, max_size=5)


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_ENGINE_OPS, profile=st.sampled_from(["current", "legacy"]))
def test_the_windows_refresh_equals_a_fresh_scan(tmp_path_factory, ops, profile):
    """The engine's refresh after each edit (rows first, then the listing, token counts, outcomes and row
    switches, reused where the skill object is unchanged) ends where a fresh scan ends."""
    from skillmanager.core.load.workspace import Workspace
    from skillmanager.gui.engine import refresh_incremental, scan

    root = tmp_path_factory.mktemp("engine")
    home, cwd, add_dirs, bases = four_source_tree(root, _NAMES[:2], words=40)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    # the budget is the workspace option (it takes the place of SLASH_COMMAND_TOOL_CHAR_BUDGET, which `env` leaves unset)
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=False, add_dirs=add_dirs, env=env,
                                 profile=profile, budget=2500)
    snapshot = scan(workspace)
    for step, (op, where, name) in enumerate(ops):
        path = bases[where] / name / "SKILL.md"
        if op in ("edit", "add") and (op == "add" or path.exists()):
            write(path, skill_md(f"{where} {name} {step} " + "more " * (step * 7)))
        elif op == "delete" and path.parent.exists():
            shutil.rmtree(path.parent)
        elif op == "paths" and path.exists():
            path.write_text(skill_md(f"{where} {name}", "paths: src/**\n"), encoding="utf-8")
        elif op == "off":
            path = write(home / ".claude/settings.json", json.dumps({"skillOverrides": {name: "off"}}))
        rows = []
        refreshed = refresh_incremental(snapshot, [str(path), str(path.parent)],
                                        on_rows=lambda partial, delta: rows.append(partial))
        if refreshed is not None and refreshed.changed_rows is not None:
            partial = rows[0]  # every row whose shown values differ from the partial is named for the window
            for field_name in ("entries", "outcomes", "switches", "tokens", "usage"):
                before, after = getattr(partial, field_name), getattr(refreshed, field_name)
                differ = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
                assert differ <= refreshed.changed_rows, (field_name, differ - refreshed.changed_rows)
        snapshot = refreshed if refreshed is not None else snapshot
        assert _shown(snapshot) == _shown(scan(workspace)), (op, where, name)
