"""The registry on the oracle fixture reproduces what the real Claude Code listed.

Expected names/order come from the real CLI's listing text: tests/golden/base/<profile>.json when
recorded, else the raw captures in ../shared/oracle (both made by the oracle, never by us).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skillmanager.cli import main
from locations import ORACLE, build_fixture, missing  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
CAPTURES = ORACLE
FIXTURE = REPO / "tests" / "oracle" / "fixtures" / "base.py"
BUNDLED = {"update-config", "simplify", "loop", "claude-api", "dataviz", "keybindings-help", "code-review",
           "fewer-permission-prompts", "workflow-authoring", "run", "plugin-authoring", "init", "security-review"}
CAPTURE_FILE = {"legacy": "captured_2.1.88.txt", "current": "captured_2.1.332.txt"}


def _listing_names(profile: str) -> list[str]:
    golden = GOLDEN / "base" / f"{profile}.json"
    if golden.exists():
        listing = json.loads(golden.read_text())["listing"]
        text = listing["text"] if isinstance(listing, dict) else listing
    else:
        capture = CAPTURES / CAPTURE_FILE[profile]
        if not capture.exists():
            missing("no oracle golden or capture for the base fixture")
        raw = capture.read_text()
        start = raw.index("The following skills are available for use with the Skill tool:")
        lines = []
        for line in raw[start:].split("\n")[1:]:
            if line.startswith(("</system-reminder>", "===", "--- message", "# ")):
                break
            lines.append(line)
        text = "\n".join(lines)
    return [m.group(1) for m in re.finditer(r"^- (.+?)(?:: | \(|:?$| \[)", text, re.M)]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return build_fixture(FIXTURE, tmp_path_factory.mktemp("oracle"))


def _list_json(work: Path, profile: str, capsys) -> list[dict]:
    capsys.readouterr()
    code = main(["list", "--json", "--profile", profile, "--home", str(work / "home"), "--cwd",
                 str(work / "home" / "proj"), "--managed-dir", str(work / "managed" / "claude-code"),
                 "--add-dir", str(work / "extra"), "--plugin-dir", str(work / "plugin")])
    assert code == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_listing_matches_oracle(work, profile, capsys):
    expected = [n for n in _listing_names(profile) if n not in BUNDLED]
    items = _list_json(work, profile, capsys)
    listed = [i["name"] for i in items if i["listed"] != "no" and i["source"] not in ("bundled", "builtin-command")]
    if profile == "legacy":
        # 2.1.88 lists legacy commands in ripgrep's unstable order: compare them as a set
        commands = {"legacy-cmd", "frontend:build", "nodesc"}
        assert [n for n in listed if n not in commands] == [n for n in expected if n not in commands]
        assert {n for n in listed if n in commands} == {n for n in expected if n in commands}
    else:
        assert listed == expected
    bundled = [i["name"] for i in items if i["source"] in ("bundled", "builtin-command")]
    recorded = [n for n in _listing_names(profile) if n in BUNDLED]
    assert recorded, "the recording lists Claude Code's bundled skills"
    assert bundled == recorded  # an empty bundled list (a lost data file) must fail, not pass


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_shadowing_dedupe_and_states(work, profile, capsys):
    items = _list_json(work, profile, capsys)
    by = {}
    for i in items:
        by.setdefault(i["name"], []).append(i)
    dups = by["dup-skill"]
    assert [d["source"] for d in dups] == ["managed", "user", "project"]
    assert [d["shadowed_by"] is None for d in dups] == [True, False, False]
    assert all(d["shadowed_by"]["source"] == "managed" for d in dups[1:])
    assert [d["listed"] for d in dups] == (["full"] * 3 if profile == "legacy" else ["full", "no", "no"])
    alias = by["sym-alias"][0]
    assert alias["duplicate_of"]["name"] == "sym-skill" and alias["listed"] == "no"
    assert by["hidden-skill"][0]["listed"] == "no" and by["hidden-skill"][0]["invocable_by"] == "user"
    assert by["not-user-invocable"][0]["listed"] == "full" and by["not-user-invocable"][0]["invocable_by"] == "model"
    denied = by["denied-skill"][0]
    assert denied["listed"] == "full" and denied["invocable_by"] == "user"
    assert denied["decided_by"][0]["rule"] == "Skill(denied-skill)" and denied["decided_by"][0]["scope"] == "project"
    for name in ("ts-skill", "list-paths"):
        assert by[name][0]["conditional"] and not by[name][0]["active"] and by[name][0]["listed"] == "no"
    assert by["Bad_Name"][0]["display_name"] == "Bad Name!"
    assert by["no-frontmatter"][0]["description"] == "Heading line"
    assert by["myplug:plug-skill"][0]["plugin"] == "myplug"


@pytest.mark.parametrize("scenario", ["deep-cwd", "deep-cwd-nogit", "marketplace-plugin", "overrides-user",
                                      "overrides-project", "overrides-local", "overrides-managed",
                                      "overrides-precedence", "parse-edges"])
def test_recorded_scenarios_are_checked(scenario):
    """Each recorded registry scenario is rebuilt and compared (listing + Skill turns) in
    tests/test_registry_scenarios.py; this guards that none drops out of that list."""
    from test_registry_scenarios import SCENARIOS  # tests/ is on sys.path (pytest prepend import mode)

    assert (GOLDEN / scenario).is_dir(), f"tests/golden/{scenario} is missing: re-record it (tests/oracle/README.md)"
    assert scenario in SCENARIOS
