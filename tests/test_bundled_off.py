"""Bundled skills switched off: the registry decides once (SkillState.bundled_off) and the toggle pane, the
settings decisions and `toggle --state on` all say what the registry says, whatever switched them off."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from skillmanager.cli import main
from skillmanager.core.edit.toggle import apply_plan, effective_toggle_state, plan_toggle
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.model import BundledOffCause, Invoker, Listed, SourceKind
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.versions.profiles import get_profile

ENV_VAR = "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"

# how the registry must see a skill whose toggle pane shows this state (nothing else sets it in these trees)
REGISTRY_FOR_TOGGLE_STATE = {
    "on": (Listed.FULL, Invoker.BOTH),
    "off": (Listed.NO, Invoker.NONE),
    "user-invocable-only": (Listed.NO, Invoker.USER),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tree(root: Path, mechanism: str) -> tuple[Path, Path, Path, dict[str, str]]:
    home, cwd, managed = root / "home", root / "home" / "proj", root / "managed"
    _write(cwd / ".claude" / "skills" / "mine" / "SKILL.md", "---\ndescription: Mine.\n---\nbody\n")
    managed.mkdir(parents=True)
    env = {"HOME": str(home)}
    if mechanism == "setting":
        _write(home / ".claude" / "settings.json", json.dumps({"disableBundledSkills": True}))
    elif mechanism == "environment":
        env[ENV_VAR] = "1"
    elif mechanism == "managed":
        _write(managed / "managed-settings.json", json.dumps({"disableBundledSkills": True}))
    return home, cwd, managed, env


MECHANISMS = ["none", "setting", "environment", "managed"]


@pytest.mark.parametrize("profile", ["current", "legacy"])
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_toggle_pane_and_registry_agree_for_every_bundled_skill(tmp_path, profile, mechanism):
    home, cwd, managed, env = _tree(tmp_path, mechanism)
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=managed, profile=profile, env=env))
    own = [s for s in registry.skills if s.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)]
    assert own, "the profile has bundled entries"
    kept = get_profile(profile).bundled_kept_when_disabled
    switched_off = 0
    for skill in own:
        pane = effective_toggle_state(registry, skill)
        assert (skill.state.listed, skill.state.invocable_by) == REGISTRY_FOR_TOGGLE_STATE[pane.state], \
            (skill.name, pane.state, skill.state.listed_reason, skill.state.invocable_reason)
        off = skill.state.bundled_off
        assert (pane.state != "on") == (off is not None), skill.name
        if off is None:
            continue
        switched_off += 1
        assert skill.name not in kept
        words = ENV_VAR if mechanism == "environment" else "disableBundledSkills"
        assert words in skill.state.listed_reason and words in pane.summary
        setting_decisions = [d for d in skill.state.decided_by if d.kind == "disableBundledSkills"]
        assert bool(setting_decisions) == (mechanism != "environment" and skill.source is SourceKind.BUNDLED)
    may_switch_off = profile == "current" and mechanism != "none"
    assert (switched_off > 0) == may_switch_off
    if may_switch_off:  # every bundled entry but the built-in plugin skills
        assert switched_off == len([s for s in own if s.name not in kept])


def test_the_variable_is_named_before_the_setting(tmp_path):
    home, cwd, managed, env = _tree(tmp_path, "setting")
    env[ENV_VAR] = "1"
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=managed, profile="current", env=env))
    simplify = registry.find("simplify")
    assert simplify is not None and simplify.state.bundled_off is not None
    assert simplify.state.bundled_off.cause is BundledOffCause.ENVIRONMENT


def _toggle(root: Path, monkeypatch, env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(root / "appdata"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv(ENV_VAR, raising=False)
    for key, value in env.items():
        if key != "HOME":
            monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["toggle", *argv, "--home", str(root / "home"), "--cwd", str(root / "home" / "proj"),
                     "--managed-dir", str(root / "managed")], out=out)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("mechanism,cause", [("environment", ENV_VAR), ("managed", "Managed policy")])
def test_toggle_on_never_says_already_on_when_something_outside_keeps_it_off(tmp_path, monkeypatch, mechanism,
                                                                            cause):
    _home, _cwd, _managed, env = _tree(tmp_path, mechanism)
    code, out, err = _toggle(tmp_path, monkeypatch, env, "simplify", "--state", "on", "--profile", "current")
    assert code == 1, (out, err)
    assert "Already on" not in out + err
    assert cause in err
    assert not (tmp_path / "home" / ".claude" / "settings.json").exists()  # nothing written


def test_toggle_on_refusal_under_the_user_setting_says_how_to_undo_it(tmp_path):
    home, cwd, managed, env = _tree(tmp_path, "setting")
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=managed, profile="current", env=env))
    plan = plan_toggle(registry, registry.find("simplify"), "on")
    assert plan.refusal is not None and "Turn that setting off first" in plan.refusal


def test_toggle_on_under_a_managed_override_names_the_policy(tmp_path, monkeypatch):
    """Not only bundled skills: a skill managed policy turns off is never "Already on" either."""
    _home, _cwd, managed, env = _tree(tmp_path, "none")
    _write(managed / "managed-settings.json", json.dumps({"skillOverrides": {"mine": "off"}}))
    code, out, err = _toggle(tmp_path, monkeypatch, env, "mine", "--state", "on", "--profile", "current")
    assert code == 1 and "Already on" not in out + err
    assert "Managed policy" in err and str(managed / "managed-settings.json") in err


def test_a_renamed_add_dir_skill_answers_to_its_bare_key_in_the_pane_as_in_the_registry(tmp_path, monkeypatch):
    """current renames a clashing --add-dir `clash` to `extra:clash`; `"clash": "off"` turns both off
    (fuzz-reg seed 30), and the toggle pane says so for the renamed copy too."""
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    home, cwd, extra = tmp_path / "home", tmp_path / "home" / "proj", tmp_path / "extra"
    for root in (cwd, extra):
        _write(root / ".claude" / "skills" / "clash" / "SKILL.md", "---\ndescription: Clash.\n---\nbody\n")
    _write(home / ".claude" / "settings.json", json.dumps({"skillOverrides": {"clash": "off"}}))
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=False, add_dirs=[extra], profile="current",
                                 env={"HOME": str(home)})
    registry = load_registry(workspace)
    renamed = next(s for s in registry.skills if s.name == "extra:clash")
    assert (renamed.state.listed, renamed.state.invocable_by) == (Listed.NO, Invoker.NONE)
    pane = effective_toggle_state(registry, renamed)
    assert pane.state == "off" and pane.override_key == "clash"
    plan = plan_toggle(registry, renamed, "on")  # the full name is written: Claude Code looks it up first
    assert plan.ok and any('"extra:clash"' in e.change for e in plan.edits), plan
    apply_plan(plan)
    after = load_registry(workspace)
    on = next(s for s in after.skills if s.name == "extra:clash")
    assert (on.state.listed, on.state.invocable_by) == (Listed.FULL, Invoker.BOTH)
    assert effective_toggle_state(after, on).state == "on"
    project = next(s for s in after.skills if s.name == "clash")
    assert project.state.listed is Listed.NO  # the project copy keeps its own "clash": "off"


def test_a_managed_override_by_a_bundled_skills_other_name_is_shown_and_refused(tmp_path, monkeypatch):
    """Managed `"review": "off"` hides code-review (fuzz-reg seed 1030); a user `"review"` does not (seed 26).
    The pane says what the registry says, and `--state on` names the policy instead of "Already on"."""
    home, cwd, managed, env = _tree(tmp_path, "none")
    _write(managed / "managed-settings.json", json.dumps({"skillOverrides": {"review": "off"}}))
    _write(home / ".claude" / "settings.json", json.dumps({"skillOverrides": {"review": "name-only"}}))
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=managed, profile="current", env=env))
    review = registry.find("code-review")
    assert review is not None and "review" in review.aliases
    pane = effective_toggle_state(registry, review)
    assert (review.state.listed, review.state.invocable_by) == REGISTRY_FOR_TOGGLE_STATE[pane.state] == \
        (Listed.NO, Invoker.NONE)
    assert pane.locked and pane.override_key == "review"
    code, out, err = _toggle(tmp_path, monkeypatch, env, "code-review", "--state", "on", "--profile", "current")
    assert code == 1 and "Already on" not in out + err and "Managed policy" in err and '"review"' in err


_KEYS = ["alpha", "beta", "extra:beta", "simplify", "code-review", "review", "init"]
_VALUES = ["on", "name-only", "user-invocable-only", "off"]
_SCOPE_FILES = {"user": "home/.claude/settings.json", "project": "home/proj/.claude/settings.json",
                "local": "home/proj/.claude/settings.local.json", "managed": "managed/managed-settings.json"}


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(overrides=st.dictionaries(st.sampled_from(sorted(_SCOPE_FILES)),
                                 st.dictionaries(st.sampled_from(_KEYS), st.sampled_from(_VALUES), max_size=4),
                                 max_size=4),
       bundled_off=st.sampled_from([None, "user", "managed", "environment"]))
def test_any_overrides_the_pane_says_what_the_registry_says(tmp_path_factory, overrides, bundled_off):
    """skillOverrides in any scope, by name, bare name or a bundled skill's other name, with bundled skills
    switched off or not: for every skill that holds its name, the pane's state is the registry's."""
    root = tmp_path_factory.mktemp("agree")
    home, cwd, managed, extra = root / "home", root / "home" / "proj", root / "managed", root / "extra"
    _write(home / ".claude" / "skills" / "alpha" / "SKILL.md", "---\ndescription: A.\n---\nbody\n")
    for base in (cwd, extra):
        _write(base / ".claude" / "skills" / "beta" / "SKILL.md", "---\ndescription: B.\n---\nbody\n")
    managed.mkdir(parents=True)
    files: dict[str, dict[str, object]] = {scope: {"skillOverrides": values} for scope, values in overrides.items()}
    env = {"HOME": str(home)}
    if bundled_off == "environment":
        env[ENV_VAR] = "1"
    elif bundled_off is not None:
        files.setdefault(bundled_off, {})["disableBundledSkills"] = True
    for scope, data in files.items():
        _write(root / _SCOPE_FILES[scope], json.dumps(data))
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=managed, add_dirs=[extra],
                                              profile="current", env=env))
    expected = dict(REGISTRY_FOR_TOGGLE_STATE, **{"name-only": (Listed.NAME_ONLY, Invoker.BOTH)})
    for skill in registry.skills:
        if not skill.state.is_winner:
            continue  # a shadowed copy: the registry speaks of the winner, the pane of the name's setting
        pane = effective_toggle_state(registry, skill)
        assert (skill.state.listed, skill.state.invocable_by) == expected[pane.state], \
            (skill.name, pane.state, pane.summary, skill.state.listed_reason, skill.state.invocable_reason)
