"""`skillmanager toggle`: prints the file and the change, writes nothing on --dry-run, exit 1 on refusal."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from skillmanager.cli import main


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    skill = tmp_path / "home" / "proj" / ".claude" / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: Demo.\n---\nbody\n")
    (tmp_path / "managed").mkdir()
    return tmp_path


def run(work: Path, *argv: str) -> tuple[int, str]:
    code, out, _err = run_with_stderr(work, *argv)
    return code, out


def run_with_stderr(work: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["toggle", *argv, "--home", str(work / "home"), "--cwd", str(work / "home" / "proj"),
                     "--managed-dir", str(work / "managed")], out=out)
    return code, out.getvalue(), err.getvalue()


def test_dry_run_shows_the_file_and_change_and_writes_nothing(work):
    code, text = run(work, "demo", "--state", "name-only", "--dry-run")
    local = work / "home" / "proj" / ".claude" / "settings.local.json"
    assert code == 0
    assert f"would write {local} (new file)" in text
    assert 'skillOverrides["demo"]: (absent) → "name-only"' in text and '+    "demo": "name-only"' in text
    assert not local.exists()


def test_write_then_json_plan(work):
    code, text = run(work, "demo", "--state", "off", "--scope", "project")
    path = work / "home" / "proj" / ".claude" / "settings.json"
    assert code == 0 and text.startswith(f"wrote {path}")
    assert json.loads(path.read_text()) == {"skillOverrides": {"demo": "off"}}
    code, text = run(work, "demo", "--state", "blocked", "--scope", "project", "--json")
    doc = json.loads(text)
    assert code == 0 and doc["written"] and doc["plan"]["mechanism"] == "deny"
    assert doc["plan"]["edits"][0]["change"] == 'permissions.deny: + "Skill(demo)"'
    assert doc["backups"][0] and Path(doc["backups"][0]).parent == work / "appdata" / "backups"
    assert json.loads(path.read_text()) == {"skillOverrides": {"demo": "off"}, "permissions": {"deny": ["Skill(demo)"]}}
    code, text = run(work, "demo", "--state", "unblocked")
    assert code == 0 and json.loads(path.read_text())["permissions"] == {"deny": []}


def test_refusals_exit_1_with_the_reason_on_stderr(work):
    code, out, err = run_with_stderr(work, "demo", "--state", "off", "--profile", "legacy")
    assert code == 1 and out == ""
    assert err.startswith("Refused: Claude Code 2.1.88 (legacy profile) has no skillOverrides")
    local = work / "home" / "proj" / ".claude" / "settings.local.json"
    local.write_bytes(b'{"skillOverrides": {"demo": "on",}}')
    code, out, err = run_with_stderr(work, "demo", "--state", "off")
    assert code == 1 and f"{local}:1:" in err and "trailing comma" in err
    assert local.read_bytes() == b'{"skillOverrides": {"demo": "on",}}'
    code, out, err = run_with_stderr(work, "nope", "--state", "off")
    assert code == 1 and "No skill named 'nope'" in err and out == ""


def test_json_stays_one_document_on_refusal_and_unknown_name(work):
    code, out, err = run_with_stderr(work, "demo", "--state", "off", "--profile", "legacy", "--json")
    assert code == 1 and json.loads(out)["plan"]["refusal"].startswith("Claude Code 2.1.88") and "Refused:" in err
    code, out, err = run_with_stderr(work, "nope", "--state", "off", "--json")
    assert code == 1 and json.loads(out) == {"plan": None, "dry_run": False, "written": False,
                                             "error": "No skill named 'nope'."}
    assert "No skill named 'nope'" in err


def test_hidden_in_legacy_edits_the_front_matter(work):
    code, text = run(work, "demo", "--state", "hidden", "--profile", "legacy")
    skill = work / "home" / "proj" / ".claude" / "skills" / "demo" / "SKILL.md"
    assert code == 0 and "disable-model-invocation: true (added to the front matter)" in text
    assert skill.read_text() == "---\ndescription: Demo.\ndisable-model-invocation: true\n---\nbody\n"
    code, _ = run(work, "demo", "--state", "unhidden", "--profile", "legacy")
    assert code == 0 and skill.read_text() == "---\ndescription: Demo.\n---\nbody\n"


def test_disable_bundled_skills_and_usage(work):
    code, text = run(work, "--disable-bundled-skills", "true")
    assert code == 0
    assert json.loads((work / "home" / ".claude" / "settings.json").read_text()) == {"disableBundledSkills": True}
    code, out, err = run_with_stderr(work, "demo")
    assert code == 2 and out == "" and "give NAME and --state" in err
