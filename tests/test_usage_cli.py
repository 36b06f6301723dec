"""`skillmanager list --usage`: how often each skill was used, from the real CLIs' golden transcripts."""
from __future__ import annotations

import contextlib
import io
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from skillmanager import cli

GOLDEN = Path(__file__).resolve().parent / "golden" / "transcripts"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home, cwd = tmp_path / "home", tmp_path / "home" / "proj"
    for base, name in ((home, "user-skill"), (cwd, "proj-skill"), (cwd, "idle-skill")):
        folder = base / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: The {name}.\n---\nbody\n", encoding="utf-8")
    return tmp_path


def _log_from(version: str, home: Path) -> None:
    """The golden transcript, moved to yesterday (the CLI counts the last 30 days from now)."""
    yesterday = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y-%m-%d")
    text = re.sub(r'"timestamp":"\d{4}-\d\d-\d\d', f'"timestamp":"{yesterday}',
                  (GOLDEN / f"{version}.jsonl").read_text(encoding="utf-8"))
    target = home / ".claude" / "projects" / "-WORK-home-proj" / "session.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(argv, out=out)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("version", ["legacy", "current"])
def test_list_usage_json_and_text(tree, version):
    _log_from(version, tree / "home")
    argv = ["list", "--usage", "--home", str(tree / "home"), "--cwd", str(tree / "home" / "proj"), "--no-managed"]
    code, out, err = _run(argv + ["--json"])
    assert code == 0, err
    by_name = {e["name"]: e for e in json.loads(out)}
    assert by_name["user-skill"]["usage"]["by_model"] == 1 and by_name["user-skill"]["usage"]["typed"] == 0
    assert by_name["proj-skill"]["usage"]["typed"] == 1 and by_name["proj-skill"]["usage"]["total"] == 1
    assert by_name["proj-skill"]["usage"]["words"] == "used 1× in 30 days"
    assert by_name["idle-skill"]["usage"] == {"by_model": 0, "typed": 0, "total": 0, "last_used": None,
                                              "days": 30, "words": "never", "reason": by_name["idle-skill"]
                                              ["usage"]["reason"]}
    assert all("usage" in e for e in by_name.values())
    code, text, _ = _run(argv)
    assert code == 0
    line = next(row for row in text.splitlines() if row.strip().startswith("idle-skill"))
    assert "never" in line
    assert "used 1× in 30 days" in next(row for row in text.splitlines() if row.strip().startswith("proj-skill"))


def test_without_usage_flag_no_usage_key(tree):
    code, out, _ = _run(["list", "--json", "--home", str(tree / "home"), "--cwd", str(tree / "home" / "proj")])
    assert code == 0 and all("usage" not in e for e in json.loads(out))


def test_unreadable_logs_warn_on_stderr_and_json_stays_valid(tree):
    (tree / "home" / ".claude" / "projects").write_text("not a folder")
    code, out, err = _run(["list", "--usage", "--json", "--home", str(tree / "home"),
                           "--cwd", str(tree / "home" / "proj"), "--no-managed"])
    assert code == 0
    assert all(e["usage"]["total"] == 0 for e in json.loads(out))
    assert "warning" in err and "session logs cannot be read" in err and "projects" in err
