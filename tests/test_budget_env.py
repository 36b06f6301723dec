"""Where the listing budget comes from: SLASH_COMMAND_TOOL_CHAR_BUDGET in the environment Claude Code runs with.

Golden data: tests/golden/budget-env-*/<profile>.json, recorded from the real 2.1.88 and 2.1.332 CLIs with
tests/oracle/record_budget_env.py (each file's `produced_by`). Each case sets the variable in the CLI's process
environment (`env`) and/or in the `env` block of settings scopes (`fixture_env` BUDGET_SETTINGS). The engine gets
the same environment — never `--budget` — and must send the same listing; so these fail if it ignores the
environment, a settings scope, the precedence between them, or reads a value Claude Code would not.
"""
from __future__ import annotations

import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from locations import REPO, missing
from skillmanager.cli import main
from skillmanager.core.js.numbers import js_number, js_number_grouped, js_string
from skillmanager.core.layers.listing import BUDGET_VARIABLE, build_listing
from skillmanager.core.layers.listing_words import budget_notes
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.simulator.session import Session
from support import skill_md, write

GOLDEN = REPO / "tests" / "golden"
FIXTURE = REPO / "tests" / "oracle" / "fixtures" / "budget-env.py"
CASES = sorted(GOLDEN.glob("budget-env-*/*.json"))


def _build(tmp_path: Path, golden: dict) -> Path:
    """The golden's fixture tree, built as record.py built it (a fresh process: _fixturelib reads its argv once)."""
    work = tmp_path / "work"
    env = {k: v for k, v in os.environ.items() if k != "BUDGET_SETTINGS"}
    env.update(golden["fixture_env"])
    subprocess.run([sys.executable, str(FIXTURE), str(work)], env=env, check=True, capture_output=True, timeout=60)
    return work


def _listing(work: Path, profile: str, *extra: str) -> dict:
    out = io.StringIO()
    managed = work / "managed" / "claude-code"
    code = main(["listing", "--json", "--no-cache", "--profile", profile, "--home", str(work / "home"),
                 "--cwd", str(work / "home" / "proj"),
                 *(["--managed-dir", str(managed)] if managed.is_dir() else ["--no-managed"]), *extra], out=out)
    assert code in (0, 1)  # 1: a settings file Claude Code rejects (budget-env-env-not-object)
    return json.loads(out.getvalue())


def test_every_case_was_recorded_for_both_releases():
    cases = {path.parent.name for path in CASES}
    assert len(cases) >= 25
    for case in cases:
        assert {p.name for p in (GOLDEN / case).glob("*.json")} == {"legacy.json", "current.json"}, case


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}-{p.stem}" for p in CASES])
def test_the_listing_takes_the_budget_claude_code_took(tmp_path, monkeypatch, path):
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert golden["produced_by"].startswith("python3 tests/oracle/record.py budget-env ")
    work = _build(tmp_path, golden)
    monkeypatch.delenv(BUDGET_VARIABLE, raising=False)
    for name, value in golden["env"].items():  # the process environment the CLI ran with
        monkeypatch.setenv(name, value)
    ours = _listing(work, golden["profile"])
    assert ours["text"] == golden["listing"]["text"]  # bundled entries print as the same placeholders
    assert ours["model"] == golden["model"]  # a settings file whose `env` is not an object is rejected whole


def _words(work: Path, profile: str, *extra: str) -> tuple[int, str, str]:
    totals = _listing(work, profile, *extra)["totals"]
    return totals["budget"], totals["budget_origin"], totals["budget_source"]


def test_the_budget_says_where_it_came_from(tmp_path, monkeypatch):
    work = _build(tmp_path, {"fixture_env": {"BUDGET_SETTINGS": json.dumps({"project": "1159"})}})
    monkeypatch.setenv(BUDGET_VARIABLE, "99999")
    project = work / "home" / "proj" / ".claude" / "settings.json"
    assert _words(work, "legacy") == (
        1159, "project", f"set by SLASH_COMMAND_TOOL_CHAR_BUDGET=1159 in the env block of {project}")
    assert _words(work, "legacy", "--budget", "700") == (700, "option", "set with --budget")  # the what-if wins
    project.unlink()
    assert _words(work, "legacy") == (99999, "environment", "set by SLASH_COMMAND_TOOL_CHAR_BUDGET=99999 in your "
                                                            "environment")
    monkeypatch.setenv(BUDGET_VARIABLE, " 6,483 ")
    assert _words(work, "current") == (6483, "environment", 'set by SLASH_COMMAND_TOOL_CHAR_BUDGET=" 6,483 " in '
                                                            'your environment')
    assert _words(work, "legacy") == (8000, "window", "1% of claude-sonnet-4-6's 200,000-token context window at 4 "
                                      'characters per token; SLASH_COMMAND_TOOL_CHAR_BUDGET=" 6,483 " in your '
                                      "environment is ignored: not a number")
    monkeypatch.setenv(BUDGET_VARIABLE, "0")
    assert _words(work, "current")[1:] == ("window", "1% of claude-opus-5-5's 1,000,000-token context window at 3 "
                                           "characters per token; SLASH_COMMAND_TOOL_CHAR_BUDGET=0 in your "
                                           "environment is ignored: 0 means no budget of its own")
    global_config = work / "home" / ".claude.json"
    config = json.loads(global_config.read_text(encoding="utf-8"))
    global_config.write_text(json.dumps({**config, "env": {BUDGET_VARIABLE: 1500.5}}), encoding="utf-8")
    assert _words(work, "legacy") == (1500, "global-config", f"set by SLASH_COMMAND_TOOL_CHAR_BUDGET=1500.5 in the "
                                                             f"env block of {global_config}")


def test_the_workspace_env_is_the_environment_not_the_process(tmp_path, monkeypatch):
    """A workspace made for another environment (the app's, a test's) uses its own `env`, not os.environ."""
    monkeypatch.setenv(BUDGET_VARIABLE, "-5")
    work = _build(tmp_path, {"fixture_env": {}})
    ws = Workspace.create(home=work / "home", cwd=work / "home" / "proj", managed_root=False,
                          env={"HOME": str(work / "home"), BUDGET_VARIABLE: "1159"}, profile="legacy")
    assert ws.env[BUDGET_VARIABLE] == "1159"
    listing = build_listing(load_registry(ws))
    assert (listing.totals.budget, listing.totals.level) == (1159, "truncated")
    plain = Workspace.create(home=work / "home", cwd=work / "home" / "proj", managed_root=False, profile="legacy")
    assert plain.env[BUDGET_VARIABLE] == "-5"  # Workspace.create takes os.environ, as Claude Code would
    assert build_listing(load_registry(plain)).totals.level == "names-only"
    notes = budget_notes(build_listing(load_registry(plain)).totals)
    assert "budget set by SLASH_COMMAND_TOOL_CHAR_BUDGET=-5 in your environment" in notes


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_mid_session_listings_use_the_same_budget(tmp_path, profile):
    """The simulator's later-turn listings (a `paths:` skill activated by a Read) are held to the budget too."""
    home, cwd = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    (cwd / ".git").mkdir(parents=True)
    write(cwd / ".claude" / "skills" / "lint" / "SKILL.md", skill_md("Lints the source files " * 8, "paths: src/**\n"))
    write(cwd / "src" / "a.py", "x = 1\n")
    shown = {}
    for value in ("-5", None):
        env = {"HOME": str(home), **({BUDGET_VARIABLE: value} if value else {})}
        ws = Workspace.create(home=home, cwd=cwd, managed_root=False, env=env, profile=profile)
        step = Session(load_registry(ws)).add_step("Read", str(cwd / "src" / "a.py"))
        shown[value] = step.model_text
    assert "Lints the source files" in shown[None]
    assert "- lint" in shown["-5"] and "Lints the source files" not in shown["-5"]


def test_settings_env_must_be_an_object(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "repo"
    cwd.mkdir(parents=True)
    write(cwd / ".claude" / "settings.json", json.dumps({"env": "SLASH_COMMAND_TOOL_CHAR_BUDGET=300",
                                                         "model": "claude-opus-4-6"}))
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=False, env={}, profile="current",
                                              check_dirs=False))
    (problem,) = [d for d in registry.diagnostics if d.code == "settings-schema"]
    assert "env must be an object" in problem.message and "rejects this whole settings file" in problem.message
    assert registry.model == "claude-opus-5-5"


# JavaScript `Number(s)` and 2.1.332's `Qle(s)` (the grouped-digits reader), as node prints them
NUMBER_CASES = [
    ("", "0", "0"), ("  ", "0", "0"), ("300", "300", "300"), ("-5", "-5", "-5"), ("abc", "NaN", "NaN"),
    ("500.7", "500.7", "500.7"), (" 400 ", "400", "400"), ("\t400\n", "400", "400"), ("\u00a0400\ufeff", "400", "400"),
    ("0x10", "16", "16"), ("-0x10", "NaN", "NaN"), ("0o17", "15", "15"), ("0b101", "5", "5"), ("1e3", "1000", "1000"),
    (".5", "0.5", "0.5"), ("5.", "5", "5"), (".", "NaN", "NaN"), ("Infinity", "Infinity", "Infinity"),
    ("-Infinity", "-Infinity", "-Infinity"), ("inf", "NaN", "NaN"), ("1_000", "NaN", "1000"),
    ("6,483", "NaN", "6483"), ("1 000", "NaN", "1000"), ("1\u202f000", "NaN", "1000"), ("1,000,000", "NaN", "1000000"),
    ("1,000_000", "NaN", "NaN"), ("12,34", "NaN", "NaN"), ("-6,483", "NaN", "-6483"), (" 1,000 ", "NaN", "1000"),
    ("1e999", "Infinity", "Infinity"), ("\uff11\uff12", "NaN", "NaN"), ("1,000" + ",000" * 8, "NaN", "NaN"),
    ("1,000" + ",000" * 6, "NaN", "1e+21"), ("\u00855", "NaN", "NaN"),
]


def _js_text(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return "0" if number == 0 else js_string(number)


@pytest.mark.parametrize(("text", "number", "grouped"), NUMBER_CASES)
def test_numbers_are_read_as_javascript_reads_them(text, number, grouped):
    assert (_js_text(js_number(text)), _js_text(js_number_grouped(text))) == (number, grouped)


def test_the_number_table_is_what_node_says():
    node = shutil.which("node")
    if node is None:
        missing("node is not installed")
    script = ("const E=/^[+-]?\\d{1,3}([_,\\u00A0\\u202F ])\\d{3}(?:\\1\\d{3})*$/;"
              "function Qle(e){let n=Number(e);if(!Number.isNaN(n))return n;let r=String(e).trim();"
              "return r.length<=32&&E.test(r)?parseInt(r.replace(/[_,\\u00A0\\u202F ]/g,''),10):NaN}"
              "const c=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "console.log(JSON.stringify(c.map(s=>[String(Number(s)),String(Qle(s))])))")
    answer = subprocess.run([node, "-e", script], input=json.dumps([c[0] for c in NUMBER_CASES]),
                            capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(answer.stdout) == [[c[1], c[2]] for c in NUMBER_CASES]


def test_settings_values_become_strings_as_zod_coerces_them():
    assert [js_string(v) for v in (6483, 1159.0, 1500.5, True, None, [1159], [1, None, 2], {"a": 1})] == \
        ["6483", "1159", "1500.5", "true", "null", "1159", "1,,2", "[object Object]"]


def test_anthropic_model_in_an_env_block_beats_the_shell_and_the_model_setting(tmp_path, monkeypatch):
    golden = json.loads((GOLDEN / "budget-env-model-in-settings-env" / "current.json").read_text(encoding="utf-8"))
    work = _build(tmp_path, golden)
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-sonnet-4-6")  # the shell's: the user settings' env block wins
    registry = load_registry(Workspace.create(home=work / "home", cwd=work / "home" / "proj", managed_root=False,
                                              profile="current"))
    user_settings = work / "home" / ".claude" / "settings.json"
    assert (registry.model, registry.model_source) == (
        golden["model"], f"ANTHROPIC_MODEL in the env block of {user_settings}")
    assert build_listing(registry).totals.budget == 8000  # claude-opus-4-6: 200,000 tokens × 4 × 1 %


def test_a_name_spelled_with_json_escapes_in_the_global_config_still_counts(tmp_path):
    """~/.claude.json is only parsed when it can hold the variable: a key written with `\\u` escapes can."""
    home = tmp_path / "home"
    home.mkdir()
    escaped = BUDGET_VARIABLE.replace("_", "\\u005F").replace("S", "\\u0053", 1)
    (home / ".claude.json").write_text('{"history": "\\u001b[0m", "env": {"%s": "-5"}}' % escaped, encoding="utf-8")
    ws = Workspace.create(home=home, cwd=tmp_path, managed_root=False, env={"HOME": str(home)}, profile="legacy")
    totals = build_listing(load_registry(ws)).totals
    assert (totals.budget, totals.budget_origin) == (-5, "global-config")
    (home / ".claude.json").write_text('{"history": "\\u001b[0m", "env": {"OTHER": "-5"}}', encoding="utf-8")
    assert build_listing(load_registry(ws)).totals.budget_origin == "window"
