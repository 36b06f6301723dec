"""`paths:` parsing and matching against the real tools.

Golden data: tests/data/ignore_npm_golden.json, produced by tests/data/ignore_npm_golden.mjs from
the table in tests/data/ignore_make_cases.py (instructions in that file):
* "ignore": npm ignore@7.0.5 (the version bundled in Claude Code 2.1.88) — regex source of every
  rule and `ignores(path)` / the deciding rule for 2,500 (patterns, path) pairs;
* "paths": the output of cli.js's own Doz()/fn6()/t44() functions, lifted out of the bundle.
The live tests redo this with node + npm when they are available.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager.core.rules.path_patterns import (
    PathMatcher,
    expand_braces,
    parse_paths,
    relative_to_cwd,
    split_paths,
)

DATA = Path(__file__).parent / "data"
GOLDEN = json.loads((DATA / "ignore_npm_golden.json").read_text(encoding="utf-8"))
from locations import LEGACY_CLI_JS as CLI_JS, missing  # noqa: E402


def check_case(case: dict) -> list[str]:
    """Compare PathMatcher with one npm result block; returns human-readable mismatches."""
    problems = []
    m = PathMatcher(case["patterns"])
    sources = [r.source for r in m.rules]
    if sources != case["sources"]:
        problems.append(f"regex sources {case['patterns']!r}: {sources} != {case['sources']}")
    for path, res in zip(case["paths"], case["results"]):
        if "error" in res:
            with pytest.raises(ValueError):
                m.npm_ignores(path)
            assert m.match(path) is None
            continue
        expected = res["rule"] if res["ignores"] else None
        got = m.npm_ignores(path)
        if got != expected:
            problems.append(f"{case['patterns']!r} {path!r}: {got!r} != {expected!r}")
        # Claude Code additionally never tests a path starting with ".."
        assert m.match(path) == (None if path.startswith("..") else expected)
    return problems


def test_golden_was_made_with_the_bundled_version():
    assert GOLDEN["ignore_version"] == "7.0.5"
    assert sum(len(c["paths"]) for c in GOLDEN["ignore"]) > 2000


def test_matches_npm_ignore_golden():
    problems = [p for case in GOLDEN["ignore"] for p in check_case(case)]
    assert problems == []


@pytest.mark.parametrize("entry", GOLDEN["paths"], ids=lambda e: repr(e["value"])[:40])
def test_parse_paths_matches_cli_js_golden(entry):
    assert parse_paths(entry["value"]) == entry["result"]


# --- readable examples (all also present in the golden data) -----------------------------------
def test_parse_paths_examples():
    assert parse_paths("src/**/*.ts, docs/*.md") == ["src/**/*.ts", "docs/*.md"]
    assert parse_paths(["a", "b,c"]) == ["a", "b", "c"]  # list items are comma-split too
    assert parse_paths("x/{a,b}/{c,d}") == ["x/a/c", "x/a/d", "x/b/c", "x/b/d"]
    assert parse_paths("{a,{b,c}}") == ["a}", "b", "c}"]  # cli.js's naive nested expansion
    assert parse_paths("src/**") == ["src"]
    assert parse_paths("**, src/**") == ["**", "src"]
    assert parse_paths(["**", "**/**"]) is None
    assert parse_paths("") is None and parse_paths(0) is None and parse_paths([]) is None
    assert parse_paths([1, "a", True, None]) == ["a"]
    assert split_paths("{a,b}\nc") == ["{a,b}\nc"]  # JS "." stops at a newline
    assert expand_braces("a{,b}") == ["a", "ab"]


def test_matcher_examples():
    m = PathMatcher(parse_paths("src/**/*.ts, docs/"))
    assert m.match("src/x/y.ts") == "src/**/*.ts"
    assert m.match("SRC/A.TS") == "src/**/*.ts"  # npm ignore is case-insensitive by default
    assert m.match("docs/a.md") == "docs/"
    assert m.match("docs") is None  # "docs/" needs something under docs
    assert m.match("lib/a.ts") is None
    assert m.match("../src/a.ts") is None and m.match("/src/a.ts") is None
    assert m.match("./src/a.ts") is None  # npm would throw; Claude Code never sends it


def test_match_file_is_relative_to_cwd():
    m = PathMatcher(["packages/api/**"])
    assert m.match_file("/repo/packages/api/x.py", "/repo") == "packages/api/**"
    assert m.match_file("/repo/packages/api/x.py", "/repo/packages") is None
    assert m.match_file("/elsewhere/packages/api/x.py", "/repo") is None
    assert relative_to_cwd("/repo", "/repo") == ""


def test_invalid_regex_is_a_diagnostic():
    m = PathMatcher(["\\\\(", "ok"])
    assert m.match("ok") == "ok"
    assert m.match("(") is None


# --- live comparisons -------------------------------------------------------------------------
@pytest.fixture(scope="session")
def npm_ignore_dir(tmp_path_factory):
    if not (shutil.which("node") and shutil.which("npm")):
        missing("node/npm not installed")
    d = tmp_path_factory.mktemp("npm_ignore")
    proc = subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "ignore@7.0.5"],
                          cwd=d, capture_output=True, text=True, timeout=180)
    if proc.returncode != 0:
        missing(f"npm install ignore@7.0.5 failed: {proc.stderr[-300:]}")
    return d


def run_node(npm_dir: Path, cases: dict, cli: str = "-") -> dict:
    inp = npm_dir / "cases.json"
    inp.write_text(json.dumps(cases), encoding="utf-8")
    proc = subprocess.run(["node", str(DATA / "ignore_npm_golden.mjs"), str(inp), cli],
                          cwd=npm_dir, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def test_golden_file_is_reproducible_live(npm_ignore_dir):
    cases = {"ignore": [{"patterns": c["patterns"], "paths": c["paths"]} for c in GOLDEN["ignore"]],
             "paths_values": [e["value"] for e in GOLDEN["paths"]]}
    live = run_node(npm_ignore_dir, cases, str(CLI_JS) if CLI_JS.exists() else "-")
    assert live["ignore"] == GOLDEN["ignore"]
    if live["paths"] is not None:
        assert live["paths"] == GOLDEN["paths"]


SEG = st.sampled_from(["a", "b", "src", "*", "**", "?", "*.ts", "[ab]", "[!a]", "[a-c]", "x.*",
                       "\\*", "\\#c", "#c", "!n", "a b", "A", "é", "{x,y}", "(p)", "q+", "\\d"])
PATTERN = st.builds(
    lambda neg, lead, segs, trail: ("!" if neg else "") + ("/" if lead else "") + "/".join(segs)
    + ("/" if trail else ""),
    st.booleans(), st.booleans(), st.lists(SEG, min_size=1, max_size=3), st.booleans())
NAME = st.sampled_from(["a", "b", "src", "x.ts", "A.TS", "ab", "c", "#c", "!n", "a b", "É", "x", "p", "q+"])
PATH = st.lists(NAME, min_size=1, max_size=4).map("/".join)
CASE = st.fixed_dictionaries({"patterns": st.lists(PATTERN, min_size=1, max_size=4),
                              "paths": st.lists(PATH, min_size=1, max_size=6, unique=True)})


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases=st.lists(CASE, min_size=40, max_size=40))
def test_hypothesis_sample_against_live_npm(npm_ignore_dir, cases):
    live = run_node(npm_ignore_dir, {"ignore": cases})
    problems = [p for case in live["ignore"] for p in check_case(case)]
    assert problems == []
