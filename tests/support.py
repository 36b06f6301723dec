"""Helpers several test modules share."""
from __future__ import annotations

import threading
from pathlib import Path


def with_timeout(fn, seconds: float = 20):
    """Run fn in a thread; fail (instead of hanging the suite) when it blocks."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box["error"] = exc
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"blocked for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill_md(description: str, extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\nBody of the skill.\n"


def four_source_tree(root: Path, names: list[str], words: int) -> tuple[Path, Path, list[Path], dict[str, Path]]:
    """A home, a git repo as cwd and two --add-dir folders, each skills dir holding `names` (every source shares
    them, so each refresh re-decides which copy wins). Returns (home, cwd, add_dirs, skills dir by source)."""
    home, cwd, extra, extra2 = root / "home", root / "repo", root / "extra", root / "extra2"
    (cwd / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    bases = {"user": home / ".claude/skills", "project": cwd / ".claude/skills",
             "add-dir": extra / ".claude/skills", "add-dir-2": extra2 / ".claude/skills"}
    for where, base in bases.items():
        for name in names:
            write(base / name / "SKILL.md", skill_md(f"{where} {name} " + "words " * words))
    return home, cwd, [extra, extra2], bases
