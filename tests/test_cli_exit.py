"""A `skillmanager` command's process ends without the interpreter's teardown (cli._end_without_teardown), and
loses nothing by it: all of stdout and stderr arrive, exit handlers run, the exit code is the command's."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from skillmanager import cli

ROOT = Path(__file__).resolve().parents[1]

# a finalizer a teardown runs and os._exit does not; an exit handler both run
PROBE = r"""
import atexit, os, sys
class Freed:
    def __del__(self, write=os.write):  # (bound now: a teardown clears the module's names first)
        write(2, b"freed at teardown\n")
kept = Freed()
atexit.register(lambda: sys.stderr.write("exit handler ran\n"))
import gc
atexit.register(gc.unfreeze)  # (entry() freezes what start-up made: a teardown does not free frozen objects)
from skillmanager.cli import entry
sys.argv = ["skillmanager", *sys.argv[1:]]
raise SystemExit(entry())
"""


def _tree(tmp: Path, skills: int) -> list[str]:
    home = tmp / "home"
    for i in range(skills):
        folder = home / ".claude" / "skills" / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: Skill number {i} does a thing {'x' * 60}.\n---\nbody\n",
                                         encoding="utf-8")
    return ["--home", str(home), "--cwd", str(home), "--no-managed"]


def _probe(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKILLMANAGER_CACHE_DIR": str(tmp / "cache")}
    return subprocess.run([sys.executable, "-c", PROBE, *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_a_command_ends_without_teardown_and_loses_no_output(tmp_path):
    args = ["list", "--json", "--no-cache", *_tree(tmp_path, 400)]
    proc = _probe(args, tmp_path)
    expected = io.StringIO()
    code = cli.main(args, out=expected)
    assert proc.returncode == code == 0, proc.stderr
    assert len(proc.stdout) > 65536  # more than a pipe holds: written and flushed before the process ended
    assert proc.stdout == expected.getvalue()
    assert "exit handler ran" in proc.stderr
    assert "freed at teardown" not in proc.stderr  # no teardown: nothing is freed object by object


def test_problems_keep_their_exit_code_and_message(tmp_path):
    proc = _probe(["list", "--home", str(tmp_path / "missing"), "--no-managed"], tmp_path)
    assert proc.returncode == 2
    assert "skillmanager: error:" in proc.stderr
    assert "exit handler ran" in proc.stderr
