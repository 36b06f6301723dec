"""`skillmanager listing` on the oracle fixture equals what the real Claude Code sent.

Expected text comes only from the real CLI: tests/golden/base*/<profile>.json (recorded with the oracle
harness; budget/model read from the recording or its directory name) and, for the default budgets, the
raw captures in ../shared/oracle. Non-bundled entries must match byte for byte; bundled entries by name
and measured width; 2.1.88's legacy commands (unstable ripgrep order) as a set.
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from skillmanager.cli import main
from skillmanager.core.layers.listing import HEADER
from skillmanager.core.js.textwidth import display_width
from locations import ORACLE, build_fixture, missing  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
CAPTURES = ORACLE
FIXTURE = CAPTURES / "build_fixture.py"
CAPTURE_FILE = {"legacy": "captured_2.1.88.txt", "current": "captured_2.1.332.txt"}
LEGACY_COMMANDS = {"legacy-cmd", "frontend:build", "nodesc"}
_ENTRY_SPLIT = re.compile(r"\n(?=- [^\s:]+(?::| |\n|$))")
_PLACEHOLDER = re.compile(r"^- (\S+) \[bundled entry: width (\d+), length (\d+)\]$")
_OMITTED = "<bundled description omitted>"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    if not FIXTURE.exists():
        missing(f"oracle fixture builder missing: {FIXTURE}")
    return build_fixture(FIXTURE, tmp_path_factory.mktemp("oracle-base"))


def run_listing(work: Path, profile: str, *extra: str) -> str:
    out = io.StringIO()
    code = main(["listing", "--profile", profile, "--home", str(work / "home"), "--cwd", str(work / "home" / "proj"),
                 "--managed-dir", str(work / "managed" / "claude-code"), "--add-dir", str(work / "extra"),
                 "--plugin-dir", str(work / "plugin"), *extra], out=out)
    assert code == 0
    return out.getvalue()


def entries_of(text: str) -> list[str]:
    start = text.index(HEADER) + len(HEADER) + 2
    body = text[start:]
    for end in ("\n</system-reminder>", "\n\nToday's date"):
        if end in body:
            body = body[:body.index(end)]
    return _ENTRY_SPLIT.split(body.rstrip("\n")) if body.strip() else []


def entry_name(entry: str) -> str:
    return re.match(r"- ([^\s:]+)", entry).group(1)


def assert_same_listing(expected_text: str, ours: str, profile: str, bundled_names: set[str]) -> None:
    expected, mine = entries_of(expected_text), entries_of(ours)
    assert [entry_name(e) for e in expected if entry_name(e) not in LEGACY_COMMANDS] == \
        [entry_name(e) for e in mine if entry_name(e) not in LEGACY_COMMANDS]
    exp_by_name: dict[str, list[str]] = {}
    for e in expected:
        exp_by_name.setdefault(entry_name(e), []).append(e)
    mine_by_name: dict[str, list[str]] = {}
    for e in mine:
        mine_by_name.setdefault(entry_name(e), []).append(e)
    assert set(exp_by_name) == set(mine_by_name)
    for name, theirs in exp_by_name.items():
        ours_list = mine_by_name[name]
        if name in bundled_names and ours_list != theirs:
            placeholder = _PLACEHOLDER.match(ours_list[0])
            assert placeholder, f"bundled {name} must be a placeholder line: {ours_list[0]!r}"
            if theirs[0].endswith(_OMITTED):
                continue  # stop-gap goldens kept only the name
            golden = _PLACEHOLDER.match(theirs[0])
            width = int(golden.group(2)) if golden else display_width(theirs[0])
            assert int(placeholder.group(2)) == width, name
        else:
            assert ours_list == theirs, name
    if profile == "legacy":  # the wrapper: a <system-reminder> text block
        assert ours.startswith(f"<system-reminder>\n{HEADER}\n\n") and ours.endswith("\n</system-reminder>\n")


def _bundled_names() -> set[str]:
    data = json.loads((REPO / "resources" / "data" / "bundled_skills.json").read_text())
    return {e["name"] for p in data.values() for e in p["entries"]}


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_default_listing_equals_capture(work, profile):
    capture = CAPTURES / CAPTURE_FILE[profile]
    if not capture.exists():
        missing(f"raw capture missing: {capture}")
    raw = capture.read_text(encoding="utf-8")
    ours = run_listing(work, profile)
    assert_same_listing(raw, ours, profile, _bundled_names())
    if profile == "current":  # default model claude-opus-5-5: a system-message section, no wrapper
        assert ours.startswith(HEADER + "\n\n") and "<system-reminder>" not in ours


def _golden_cases() -> list:
    cases = []
    for directory in sorted(GOLDEN.glob("base*")):
        for profile in ("legacy", "current"):
            path = directory / f"{profile}.json"
            if path.exists():
                cases.append(pytest.param(path, profile, id=f"{directory.name}-{profile}"))
    return cases


def _golden_options(data: dict) -> list[str]:
    """CLI options equivalent to the recording's environment and arguments (tests/oracle/record.py)."""
    options: list[str] = []
    budget = (data.get("env") or {}).get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    if budget:
        options += ["--budget", str(budget)]
    args = list(data.get("args") or [])
    for i, arg in enumerate(args):
        if arg == "--model" and i + 1 < len(args):
            options += ["--model", args[i + 1]]
        elif arg.startswith("--model="):
            options += ["--model", arg.split("=", 1)[1]]
    return options


@pytest.mark.parametrize(("path", "profile"), _golden_cases() or [pytest.param(None, None, id="no-base-goldens")])
def test_listing_equals_golden(work, path, profile):
    if path is None:
        pytest.skip("tests/golden/base*/ not recorded yet (the oracle helper records the forced-budget 1900/1200 "
                    "legacy, 3000 current and --model claude-sonnet-4-6 runs); default budgets are covered by "
                    "test_default_listing_equals_capture")
    data = json.loads(path.read_text(encoding="utf-8"))
    listing = data.get("listing") or {}
    expected = listing.get("text", "") if isinstance(listing, dict) else listing
    if HEADER not in expected:
        pytest.skip(f"{path} holds no listing")
    ours = run_listing(work, profile, *_golden_options(data))
    assert_same_listing(expected, ours, profile, _bundled_names())
    if isinstance(listing, dict) and listing.get("placement") == "system-reminder":
        assert ours.startswith("<system-reminder>\n") and ours.rstrip("\n").endswith("</system-reminder>")
    elif isinstance(listing, dict) and listing.get("placement"):
        assert ours.startswith(HEADER)
    if profile == "current" and isinstance(listing, dict) and listing.get("placement") == "system":
        assert ours == expected  # no ripgrep-order problem: the whole text, byte for byte
