"""Every input is bounded: each limit's diagnostic fires, nothing hangs, nothing crashes.

The pathological cases run the real CLI in a subprocess with a generous hang guard (timeout) and an
address-space limit (RLIMIT_AS), so a regression fails the test instead of freezing or swapping the
machine; there are no timing assertions. Hypothesis generates alias bombs, nesting and ignore files of
random shape and checks that the diagnostic fires exactly when the limit is crossed.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from skillmanager.core.load.frontmatter import parse_document
from skillmanager.core.load.yaml12 import load_yaml12
from skillmanager.core.load.yaml12_loader import MAX_DEPTH, MAX_EXPANDED_NODES, YamlLimitError
from skillmanager.core.simulator import ignore_rules
from skillmanager.core.simulator.ignore_rules import IgnoreOracle, TooManyRulesError, parse_gitignore

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD = 120  # seconds: far above the bounded behaviour (a second or two), far below a hang
MEMORY_LIMIT = 3 * 2**30  # bytes of address space for a CLI run


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_bounded(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m skillmanager ARGV` from this checkout, under the hang guard and the memory limit."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("CLAUDE_CONFIG_DIR", None)
    try:
        return subprocess.run([sys.executable, "-m", "skillmanager", *argv], capture_output=True, text=True,
                              timeout=HANG_GUARD, cwd=REPO, env=full_env, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"skillmanager {' '.join(argv[:3])} … did not finish within {HANG_GUARD} s")


def make_workspace(root: Path) -> tuple[Path, Path, list[str]]:
    home, cwd = root / "home", root / "proj"
    (home / ".claude" / "skills").mkdir(parents=True)
    cwd.mkdir()
    (cwd / ".git").mkdir()
    return home, cwd, ["--home", str(home), "--cwd", str(cwd), "--no-managed"]


def write_skill(base: Path, name: str, text: str) -> Path:
    path = base / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def alias_bomb(levels: int, fanout: int) -> str:
    names = [f"l{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(["x"] * fanout) + "]"]
    for prev, name in zip(names, names[1:]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * fanout) + "]")
    lines.append("description: [" + ", ".join([f"*{names[-1]}"] * fanout) + "]")
    return "\n".join(lines)


def expanded_nodes(levels: int, fanout: int) -> int:
    """Values in the document once every alias is copied out (mapping keys and values included)."""
    size = 1 + fanout  # l0: the sequence and its scalars
    total_level_sizes = size
    for _ in range(levels - 1):
        size = 1 + fanout * size
        total_level_sizes += size
    description = 1 + fanout * size
    return 1 + (levels + 1) + total_level_sizes + description  # root mapping, keys, values


# --- hangs --------------------------------------------------------------------------------------------

def test_alias_bomb_front_matter_is_refused_in_bounded_time_and_memory(tmp_path):
    """The reported case: 9 aliases of 9 aliases, 8 levels deep (under 500 bytes; the issue's 344-byte one took 30 s and 2.2 GB)."""
    home, _cwd, args = make_workspace(tmp_path)
    bomb = alias_bomb(8, 9)
    assert len(bomb) < 500
    write_skill(home, "bomb", f"---\n{bomb}\n---\nbody\n")
    for argv in (["list", "--json"], ["show", "bomb"], ["listing"], ["validate"]):
        proc = run_bounded(argv + args)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1), (argv, proc.returncode, proc.stderr)
    shown = run_bounded(["show", "bomb", "--json"] + args)
    diagnostics = json.loads(shown.stdout)["copies"][0]["diagnostics"]
    assert any("alias bomb" in d["message"] for d in diagnostics), diagnostics


@settings(max_examples=40, deadline=None)
@given(levels=st.integers(1, 9), fanout=st.integers(1, 12))
def test_alias_expansion_limit_fires_exactly_past_the_limit(levels, fanout):
    text = alias_bomb(levels, fanout)
    expected = expanded_nodes(levels, fanout)
    if expected > MAX_EXPANDED_NODES:
        with pytest.raises(YamlLimitError, match="alias bomb"):
            load_yaml12(text)
        doc = parse_document(f"---\n{text}\n---\nbody\n", strip_bom=False)
        assert any("alias bomb" in d.message for d in doc.diagnostics)
    else:
        data = load_yaml12(text)
        assert len(data["description"]) == fanout


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(1, 2 * MAX_DEPTH), flow=st.booleans())
def test_nesting_limit_fires_exactly_past_the_limit(depth, flow):
    if flow:
        text = "description: " + "[" * depth + "]" * depth
    else:
        text = "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + f"{'  ' * depth}leaf"
    nodes = depth + 1  # the nested collections (or mappings and the leaf) below the root mapping, plus it
    if nodes > MAX_DEPTH:
        with pytest.raises((YamlLimitError, yaml.YAMLError)):
            load_yaml12(text)
    else:
        assert isinstance(load_yaml12(text), dict)


def test_recursive_alias_is_a_yaml_error_not_a_crash():
    with pytest.raises(YamlLimitError, match="recursive"):
        load_yaml12("a: &a [1, *a]\n")


def test_toggle_of_a_large_settings_file_finishes(tmp_path):
    """2.7 MB of settings (100k members): the style detector copied the text per member (quadratic, 23 s
    for 2.5 MB); a 5.5 MB file would take minutes that way and must now finish well inside the guard."""
    home, _cwd, args = make_workspace(tmp_path)
    write_skill(home, "a", "---\ndescription: hi\n---\nbody\n")
    settings_file = home / ".claude" / "settings.json"
    big = {f"k{i}": {"a": i, "b": [1, 2, 3], "c": "x" * 20} for i in range(50_000)}
    settings_file.write_text(json.dumps(big, indent=2), encoding="utf-8")
    assert settings_file.stat().st_size > 5_000_000
    proc = run_bounded(["toggle", "a", "--state", "off", "--scope", "user"] + args,
                       env={"SKILLMANAGER_DATA_DIR": str(tmp_path / "data")})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(settings_file.read_text(encoding="utf-8"))
    assert data["skillOverrides"] == {"a": "off"} and data["k49999"]["a"] == 49999


def test_save_scenario_to_a_fifo_is_refused_not_blocking(tmp_path):
    _home, _cwd, args = make_workspace(tmp_path)
    fifo = tmp_path / "scenario.fifo"
    os.mkfifo(fifo)
    proc = run_bounded(["simulate", "--read", "x.py", "--save-scenario", str(fifo), "--json"] + args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "FIFO" in proc.stderr and str(fifo) in proc.stderr


@pytest.mark.parametrize("option", ["--scenario", "--mcp-skills"])
def test_fifo_input_files_are_refused_not_blocking(tmp_path, option):
    _home, _cwd, args = make_workspace(tmp_path)
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    command = ["simulate", "--read", "x.py"] if option == "--scenario" else ["list"]
    proc = run_bounded(command + [option, str(fifo)] + args)
    assert proc.returncode == 2 and "skillmanager: error:" in proc.stderr and "Traceback" not in proc.stderr


def test_fifo_settings_file_is_a_diagnostic(tmp_path):
    home, _cwd, args = make_workspace(tmp_path)
    os.mkfifo(home / ".claude" / "settings.json")
    proc = run_bounded(["list", "--json"] + args)
    assert proc.returncode == 1 and json.loads(proc.stdout) is not None
    assert "settings.json" in proc.stderr and "FIFO" in proc.stderr


def test_200k_line_gitignore_is_read_in_bounded_time(tmp_path):
    """200,000 lines: literal lines are string comparisons, and a file of more wildcard lines than the cap
    is set aside with a diagnostic (each regex costs ~0.1 ms to compile: 20 s before)."""
    _home, cwd, args = make_workspace(tmp_path)
    literal = "".join(f"file{i}.txt\n!keep{i}\nbuild{i}/\n/x{i}/y\n" for i in range(50_000))
    (cwd / ".gitignore").write_text(literal + "generated/\n", encoding="utf-8")
    nested = cwd / "generated" / "pkg"
    write_skill(nested, "hidden-one", "---\ndescription: in an ignored dir\n---\nbody\n")
    proc = run_bounded(["simulate", "--read", str(nested / "src.py"), "--json"] + args)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["steps"] and "hidden-one" not in {s["name"] for s in doc["available_skills"]}
    oracle = IgnoreOracle(cwd)
    assert oracle.check(nested, is_dir=True).ignored and not oracle.check(cwd / "src", is_dir=True).ignored

    wild = "".join(f"dir{i}/*.log\n" for i in range(ignore_rules.MAX_WILDCARD_RULES + 10))
    (cwd / ".gitignore").write_text(wild, encoding="utf-8")
    oracle = IgnoreOracle(cwd)
    assert not oracle.check(cwd / "dir5" / "a.log").ignored  # the file was not read: fail open
    assert any("wildcard patterns" in d for d in oracle.diagnostics)


@settings(max_examples=25, deadline=None)
@given(count=st.integers(0, 40), cap=st.integers(0, 30))
def test_wildcard_cap_fires_exactly_past_the_cap(count, cap):
    data = "".join(f"a{i}/*.x\nliteral{i}\n" for i in range(count)).encode()
    if count > cap:
        with pytest.raises(TooManyRulesError):
            parse_gitignore(data, max_wildcard_rules=cap)
    else:
        assert len(parse_gitignore(data, max_wildcard_rules=cap)) == 2 * count


_SEGMENT = st.sampled_from(["a", "b", "build", "x.y", "node_modules", "src"])


@settings(max_examples=200, deadline=None)
@given(segments=st.lists(_SEGMENT, min_size=1, max_size=3), lead=st.booleans(), trail=st.booleans(),
       negated=st.booleans(), path=st.lists(_SEGMENT, min_size=1, max_size=4), is_dir=st.booleans())
def test_literal_rules_match_exactly_as_the_wildcard_matcher(segments, lead, trail, negated, path, is_dir):
    """The string-comparison fast path gives the verdict the pathspec-regex path gives (which the git
    comparison tests in test_ignore_rules.py pin down)."""
    body = ("/" if lead else "") + "/".join(segments) + ("/" if trail else "")
    text = ("!" if negated else "") + body
    fast = ignore_rules._compile_rule(text, 1)
    assert fast is not None and fast.is_literal
    original = ignore_rules._literal_rule
    try:
        ignore_rules._literal_rule = lambda *a: None
        slow = ignore_rules._compile_rule(text, 1)
    finally:
        ignore_rules._literal_rule = original
    rel = "/".join(path) + ("/" if is_dir else "")
    assert fast.matches(rel) == slow.matches(rel), (text, rel)


# --- tracebacks ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["--cwd", "--home", "--add-dir", "--mcp-skills", "audit-path", "validate-path"])
def test_path_longer_than_the_os_allows_is_a_usage_error(tmp_path, where):
    _home, _cwd, args = make_workspace(tmp_path)
    long_path = str(tmp_path / ("a" * 300))
    if where == "audit-path":
        argv = ["audit", long_path, "--sarif"] + args
    elif where == "validate-path":
        argv = ["validate", long_path, "--json"] + args
    else:
        argv = ["list", "--json"] + args + [where, long_path]
    proc = run_bounded(argv)
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:200])
    if where == "audit-path":  # --sarif keeps a valid (empty) log on stdout
        assert json.loads(proc.stdout)["runs"][0]["results"] == []
    else:
        assert proc.stdout == "", proc.stdout[:200]
    assert "Traceback" not in proc.stderr and "skillmanager: error:" in proc.stderr
    assert "too long" in proc.stderr


def test_integer_of_thousands_of_digits_in_settings_is_a_number(tmp_path):
    """JSON.parse reads it as a number (Infinity); Python's int() refuses more than 4,300 digits."""
    home, _cwd, args = make_workspace(tmp_path)
    write_skill(home, "a", "---\ndescription: hi\nversion: " + "7" * 5000 + "\n---\nbody\n")
    (home / ".claude" / "settings.json").write_text('{"x": ' + "1" * 5000 + ', "skillOverrides": {"a": "name-only"}}')
    listed = run_bounded(["list", "--json"] + args)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    skill = next(s for s in json.loads(listed.stdout) if s["name"] == "a")
    assert skill["listed"] == "name-only" and skill["description"] == "hi"
    toggled = run_bounded(["toggle", "a", "--state", "off", "--json"] + args,
                          env={"SKILLMANAGER_DATA_DIR": str(tmp_path / "data")})
    assert toggled.returncode == 0 and json.loads(toggled.stdout)["written"], toggled.stderr
    assert ('"x": ' + "1" * 5000) in (home / ".claude" / "settings.json").read_text()


# --- the caps of concurrent reading stay per call --------------------------------------------------------

def test_limits_hold_under_threads():
    """The expansion check keeps no shared state: two threads parsing bombs and plain YAML both get theirs."""
    results: dict[str, object] = {}

    def bomb():
        try:
            load_yaml12(alias_bomb(8, 9))
        except YamlLimitError as error:
            results["bomb"] = error

    def plain():
        results["plain"] = load_yaml12("a: [1, 2]\nb: &x {c: d}\ne: *x\n")

    threads = [threading.Thread(target=bomb), threading.Thread(target=plain)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert isinstance(results["bomb"], YamlLimitError)
    assert results["plain"] == {"a": [1, 2], "b": {"c": "d"}, "e": {"c": "d"}}
