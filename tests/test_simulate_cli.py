"""`skillmanager simulate`: step order across options, the text layout, scenarios, JSON, errors."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from skillmanager.cli import main


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    proj = root / "home" / "proj"
    (proj / ".git").mkdir(parents=True)
    write(proj, ".gitignore", "packages/ignored/\n")
    write(proj, ".claude/skills/cond/SKILL.md", "---\ndescription: conditional.\npaths: packages/**\n---\nc\n")
    write(proj, "packages/api/.claude/skills/api-skill/SKILL.md", "---\ndescription: api skill.\n---\na\n")
    write(proj, "packages/ignored/.claude/skills/ign/SKILL.md", "---\ndescription: ignored.\n---\ni\n")
    return proj


def run(proj: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["simulate", "--home", str(proj.parent), "--cwd", str(proj), "--no-managed", *args], out)
    return code, out.getvalue()


def test_steps_keep_command_line_order_and_text_layout(proj: Path) -> None:
    code, text = run(proj, "--profile", "legacy", "--grep", "api", "--read", "packages/api/a.ts",
                     "--bash", "ls", "--read", str(proj / "packages/ignored/y.ts"))
    assert code == 0
    headers = [line for line in text.splitlines() if line.startswith("## ")]
    assert headers == ["## step 1: Grep api", "## step 2: Read packages/api/a.ts", "## step 3: Bash ls",
                       f"## step 4: Read {proj / 'packages/ignored/y.ts'}"]
    step2 = text.split("## step 2: Read packages/api/a.ts\n", 1)[1].split("## step 3", 1)[0]
    model_part = "".join(l for l in step2.splitlines(keepends=True) if not l.startswith("# "))
    assert model_part == ("\n\n<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"
                          "- cond: conditional.\n- api-skill: api skill.\n</system-reminder>\n")
    summary = [l for l in step2.splitlines() if l.startswith("# ")]
    assert "# discovered packages/api/.claude/skills" in summary
    assert any(l.startswith("# activated cond: paths pattern 'packages'") for l in summary)
    step4 = text.split("## step 4:", 1)[1]
    assert all(l.startswith("# ") for l in step4.splitlines()[1:])
    assert "# skipped packages/ignored/.claude/skills: git ignores packages/ignored (.gitignore:1:packages/ignored/)" in step4
    step1 = text.split("## step 2", 1)[0]
    assert "# nothing triggered: Grep does not trigger" in step1


def test_current_profile_system_messages(proj: Path) -> None:
    code, text = run(proj, "--read", "packages/api/a.ts")
    assert code == 0
    assert ("New skills discovered in packages/api/.claude/skills, now available via the Skill tool:\n- api-skill\n\n"
            "The following skills are available for use with the Skill tool:\n\n- api-skill: api skill. (from "
            "packages/api/.claude/skills \u2014 applies when working on files under packages/api/)\n- cond: conditional.\n"
            "# model text above: 2 system message(s)\n") in text


def test_save_and_replay_scenario_json(proj: Path, tmp_path: Path) -> None:
    saved = tmp_path / "scenario.json"
    code, first = run(proj, "--profile", "legacy", "--write", "packages/api/n.ts", "--edit", "packages/api/n.ts",
                      "--save-scenario", str(saved))
    assert code == 0
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["profile"] == "legacy" and data["cwd"] == str(proj)
    assert data["steps"] == [{"op": "Write", "path": "packages/api/n.ts"},
                             {"op": "Edit", "path": "packages/api/n.ts", "read_first": True}]  # --edit: a real edit
    out = io.StringIO()
    assert main(["simulate", "--home", str(proj.parent), "--no-managed", "--scenario", str(saved)], out) == 0
    assert out.getvalue() == first
    out = io.StringIO()
    assert main(["simulate", "--home", str(proj.parent), "--no-managed", "--scenario", str(saved), "--json"], out) == 0
    report = json.loads(out.getvalue())
    assert report["profile"] == "legacy" and [s["step"]["op"] for s in report["steps"]] == ["Write", "Edit"]
    assert report["steps"][0]["discovered_dirs"] == ["packages/api/.claude/skills"]
    assert "api-skill" in {s["name"] for s in report["available_skills"]}


def test_bad_scenario_exits_2(proj: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "steps": [{"op": "Delete", "path": "x"}]}', encoding="utf-8")
    code, _ = run(proj, "--scenario", str(bad))
    assert code == 2
    assert "unknown step op" in capsys.readouterr().err


def test_no_steps(proj: Path) -> None:
    code, text = run(proj)
    assert code == 0 and text.startswith("# no steps")
