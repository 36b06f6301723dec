"""Bundled skills switched off: the registry decides once (SkillState.bundled_off) and the toggle pane, the
settings decisions and `toggle --state on` all say what the registry says, whatever switched them off."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from skillmanager.cli import main
from skillmanager.core.edit.toggle import effective_toggle_state, plan_toggle
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
