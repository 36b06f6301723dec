"""A toggle has the effect skillmanager predicts on the real Claude Code.

tests/golden/toggle-<state>/<profile>.json were recorded with tests/oracle/record.py: the harness built
tests/oracle/fixtures/toggle-base.py, ran `skillmanager toggle …` as ORACLE_PRE_HOOK, then the real CLI
listed the skills and the fake model called each project skill once. Here the same fixture is built in
tmp_path, the same toggle command (read from the recording's pre_hook) is run, and skillmanager's predicted
listing (core/listing.py) and Skill-call results (core/expansion.py) are compared with the recording.
tests/golden/toggle-keys settles which skillOverrides key reaches which skill (FINDINGS-toggle.md).
"""
from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from skillmanager.cli import main
from skillmanager.core.layers.expansion import expand
from skillmanager.core.layers.listing import build_listing
from skillmanager.core.model import Skill, SourceKind
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.edit.toggle import effective_toggle_state, override_keys
from skillmanager.core.load.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
FIXTURES = REPO / "tests" / "oracle" / "fixtures"
_PLACEHOLDER = re.compile(r"^- (\S+) \[bundled entry: width (\d+), length (\d+)\]$")

# Skill-call refusals where core/expansion.py (not the toggle) still models the text differently from the
# real 2.1.332: skillOverrides "off" and "user-invocable-only" both answer
# "Skill NAME is disabled for model invocation in skillOverrides settings".
EXPANSION_GAPS = {("toggle-off", "current", "p-off"), ("toggle-user-invocable-only", "current", "p-uio")}


def _recordings() -> list:
    out = []
    for path in sorted(GOLDEN.glob("toggle-*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("pre_hook"):
            out.append(pytest.param(path, id=f"{path.parent.name}-{path.stem}"))
    return out


def build_fixture(name: str, root: Path) -> Path:
    subprocess.run([sys.executable, str(FIXTURES / f"{name}.py"), str(root)], check=True, capture_output=True)
    return root


def workspace_for(root: Path, profile: str) -> Workspace:
    return Workspace.create(home=root / "home", cwd=root / "home" / "proj",
                            managed_root=root / "managed" / "claude-code", add_dirs=[root / "extra"],
                            plugin_dirs=[root / "plugin"], profile=profile, env={"HOME": str(root / "home")})


def toggle_argv(pre_hook: str, root: Path) -> list[str]:
    """The `skillmanager toggle …` arguments of a recording's pre-hook, with $WORK made concrete."""
    words = shlex.split(pre_hook.replace("$WORK", str(root)))
    return words[words.index("toggle"):]


@pytest.fixture
def recorded(request, tmp_path, monkeypatch):
    path: Path = request.param
    data = json.loads(path.read_text(encoding="utf-8"))
    root = build_fixture(Path(data["fixture"]).stem, tmp_path / "work")
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    out = io.StringIO()
    assert main(toggle_argv(data["pre_hook"], root), out=out) == 0, out.getvalue()
    registry = load_registry(workspace_for(root, data["profile"]))
    return path.parent.name, data, registry


def listing_lines(text: str) -> list[str]:
    header = "The following skills are available for use with the Skill tool:\n\n"
    body = text[text.index(header) + len(header):]
    body = body.split("\n</system-reminder>")[0]
    return [line for line in body.split("\n") if line]


@pytest.mark.parametrize("recorded", _recordings(), indirect=True)
def test_predicted_listing_equals_the_real_cli(recorded):
    _name, data, registry = recorded
    ours = build_listing(registry)
    expected = listing_lines(data["listing"]["text"])
    mine = listing_lines(ours.text)
    assert len(mine) == len(expected), (mine, expected)
    widths = {e.name: e.width for e in ours.entries}
    for theirs, line in zip(expected, mine):
        placeholder = _PLACEHOLDER.match(theirs)
        if placeholder:  # Claude Code's own text is not stored: same name, same measured width
            assert line.startswith(f"- {placeholder.group(1)}")
            assert widths[placeholder.group(1)] == int(placeholder.group(2))
        else:
            assert line == theirs


def _skill_calls(data: dict) -> list[tuple[str, str]]:
    return [(t["input"]["skill"], t["tool_result"] or "") for t in data["turns"] if t["tool"] == "Skill"]


@pytest.mark.parametrize("recorded", _recordings(), indirect=True)
def test_predicted_skill_calls_equal_the_real_cli(recorded):
    name, data, registry = recorded
    for skill, result in _skill_calls(data):
        if (name, data["profile"], skill) in EXPANSION_GAPS:
            continue  # see test_expansion_gap_for_overrides
        ours = expand(registry, skill)
        if result.startswith("Launching skill: "):
            assert ours.launch_line == result and not ours.is_error, skill
        else:
            assert ours.refusal == result, skill


# Was a strict xfail: 2.1.332 answers 'Skill NAME is disabled for model invocation in skillOverrides settings'
# for both off and user-invocable-only (FINDINGS-toggle.md); core/expansion.py now does the same.
@pytest.mark.parametrize("recorded", [p for p in _recordings()
                                      if any(p.id == f"{n}-{prof}" for n, prof, _ in EXPANSION_GAPS)],
                         indirect=True)
def test_expansion_gap_for_overrides(recorded):
    name, data, registry = recorded
    for skill, result in _skill_calls(data):
        if (name, data["profile"], skill) in EXPANSION_GAPS:
            assert expand(registry, skill).refusal == result


@pytest.mark.parametrize("recorded", _recordings(), indirect=True)
def test_effective_state_says_what_the_real_cli_did(recorded):
    """The toggled skill's effective state (what the detail pane shows) matches the recording."""
    name, data, registry = recorded
    argv = toggle_argv(data["pre_hook"], Path("/w"))
    skill_name, state = argv[1], argv[argv.index("--state") + 1]
    skill = registry.find(skill_name)
    toggle = effective_toggle_state(registry, skill)
    lines = listing_lines(data["listing"]["text"])
    calls = dict(_skill_calls(data))
    if state == "blocked":
        assert toggle.blocked and toggle.blocked_summary.startswith("Blocked but still listed")
        assert any(line.startswith(f"- {skill_name}: ") for line in lines)  # still listed
        assert calls[skill_name] == "Skill execution blocked by permission rules"
    else:
        assert toggle.state == state
        present = [line for line in lines if line == f"- {skill_name}" or line.startswith(f"- {skill_name}: ")]
        if state == "name-only":
            assert present == [f"- {skill_name}"]
        else:  # off, user-invocable-only, hidden: gone from the listing, the model's call refused
            assert present == []
            assert calls[skill_name].startswith("<tool_use_error>")
    # p-locked: managed policy says name-only over a local "on" — locked in skillmanager, name-only in the CLI.
    if data["profile"] == "current":
        locked = effective_toggle_state(registry, registry.find("p-locked"))
        assert locked.locked and locked.state == "name-only" and "- p-locked" in lines


# --------------------------------------------------------------------------- which key reaches which skill


@pytest.fixture(scope="module")
def keys_case(tmp_path_factory):
    data = json.loads((GOLDEN / "toggle-keys" / "current.json").read_text(encoding="utf-8"))
    root = build_fixture("toggle-keys", tmp_path_factory.mktemp("toggle-keys"))
    ws = Workspace.create(home=root / "home", cwd=root / "home" / "proj", managed_root=None,
                          plugin_dirs=[root / "plugin"], env={"HOME": str(root / "home")})
    return data, root, load_registry(ws)


def _shown(lines: list[str], name: str) -> str:
    for line in lines:
        if line == f"- {name}":
            return "name-only"
        if line.startswith(f"- {name}: ") or line.startswith(f"- {name} ["):
            return "on"
    return "absent"


_EXPECT_SHOWN = {"on": "on", "name-only": "name-only", "off": "absent", "user-invocable-only": "absent"}


def test_override_keys_at_start_up_match_the_real_cli(keys_case):
    data, _root, registry = keys_case
    lines = listing_lines(data["listing"]["text"])
    checked = set()
    for skill in registry.skills:
        if skill.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND, SourceKind.USER,
                            SourceKind.PROJECT, SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND):
            state = effective_toggle_state(registry, skill).state
            assert _EXPECT_SHOWN[state] == _shown(lines, skill.name), skill.name
            checked.add(skill.name)
    # the interesting ones: plugin entries ignore both keys; bundled and built-in use the bare name
    assert {"plug:pa", "plug:pb", "plug:pcmd", "simplify", "update-config", "init", "alpha", "y"} <= checked


def test_plugin_entries_ignore_both_keys(keys_case):
    data, _root, registry = keys_case
    calls = dict(_skill_calls(data))
    assert calls["plug:pa"] == "Launching skill: plug:pa" and calls["plug:pb"] == "Launching skill: plug:pb"
    for name in ("plug:pa", "plug:pb", "plug:pcmd"):
        assert override_keys(registry.find(name)) == []


def test_scoped_nested_skill_answers_to_both_keys(keys_case):
    """After the Read, 2.1.332 announced `packages/api:y` (bare key "y": name-only) and `nested-one` by name
    only, and refused `packages/api:x` (scoped key "packages/api:x": off)."""
    data, root, registry = keys_case
    read = next(t for t in data["turns"] if t["tool"] == "Read")
    delta = "\n".join(read["extra_texts"] + read["system_texts"])
    nested = root / "home" / "proj" / "packages" / "api" / ".claude" / "skills"
    expected = {"packages/api:y": "name-only", "nested-one": "name-only", "packages/api:x": "off"}
    for name, state in expected.items():
        bare = name.rpartition(":")[2]
        skill = Skill(name=name, kind="skill", source=SourceKind.DYNAMIC, source_root=nested,
                      path=nested / bare / "SKILL.md", skill_dir=nested / bare)
        assert effective_toggle_state(registry, skill).state == state, name
        shown = _shown(listing_lines(delta[delta.index("The following skills"):]), name)
        assert shown == _EXPECT_SHOWN[state], name
    assert override_keys(Skill(name="packages/api:y", kind="skill", source=SourceKind.DYNAMIC, source_root=None,
                               path=None, skill_dir=None)) == ["packages/api:y", "y"]
    calls = dict(_skill_calls(data))
    assert calls["packages/api:x"].endswith("is disabled for model invocation in skillOverrides settings</tool_use_error>")
