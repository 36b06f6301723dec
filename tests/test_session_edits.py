"""Edits of files not read first, against the real CLIs (tests/golden/edit-create/{legacy,current}.json,
recorded with `python3 tests/oracle/record.py edit-create --profile both --args "--permission-mode acceptEdits"`).

2.1.88: an Edit with an empty old_string of a missing or whitespace-only file needs no Read and discovers;
an Edit of an unread file with content is refused before discovery; both versions refuse an empty old_string
over content. 2.1.332 needs no prior Read. Each recorded call is replayed literally (its old_string); legacy's
one-call delivery lag is tolerated as in test_session_fuzz.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillmanager.cli import main

ROOT = Path(__file__).resolve().parent
GOLDEN = ROOT / "golden" / "edit-create"
sys.path.insert(0, str(ROOT / "oracle"))
import fuzz_simulator  # noqa: E402


def _build(tmp_path: Path) -> str:
    work = Path(os.path.realpath(tmp_path)) / "w"  # run_oracle.sh resolves WORK with `pwd -P`
    work.mkdir()
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run([sys.executable, str(ROOT / "oracle" / "fixtures" / "edit-create.py"), str(work)],
                   check=True, capture_output=True, env=env)
    return str(work)


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_literal_edits_match_the_cli(profile: str, tmp_path: Path) -> None:
    golden = json.loads((GOLDEN / f"{profile}.json").read_text(encoding="utf-8"))
    ours, theirs, steps, _ = fuzz_simulator.replay(golden, _build(tmp_path))
    assert len(steps) == 5 and sum(bool(t) for t in theirs) >= 3
    bad = fuzz_simulator.diff_steps(ours, theirs)
    assert not bad, "\n".join(f"step {i + 1} {steps[i]}:\n ours   {ours[i]}\n theirs {theirs[i]}" for i in bad)


def _simulate(*argv: str) -> str:
    out = io.StringIO()
    assert main(["simulate", *argv], out=out) == 0
    return out.getvalue()


def test_edit_assumes_the_read_a_model_makes_and_literal_edits_do_not(tmp_path: Path) -> None:
    work = Path(_build(tmp_path))
    common = ["--home", str(work / "home"), "--cwd", str(work / "home" / "proj"), "--no-managed", "--profile", "legacy"]
    real = _simulate(*common, "--edit", "packages/lib/src/a.ts", "--edit", "packages/api/src/new.ts")
    assert real.count("## step ") == 2
    first = real.split("## step 2")[0]
    assert "lib-skill" in first and "# assumed: the model read packages/lib/src/a.ts before this Edit" in first
    assert "api-skill" in real.split("## step 2")[1]  # a create needs no Read
    literal = _simulate(*common, "--literal-edits", "--edit", "packages/lib/src/a.ts", "--edit", "packages/api/src/new.ts")
    assert literal.count("## step ") == 2
    first = literal.split("## step 2")[0]
    assert "lib-skill" not in first and "File has not been read yet" in first and "assumed" not in literal
    assert "api-skill" in literal.split("## step 2")[1]
