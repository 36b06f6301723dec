"""The simulator against recorded fuzz captures (tests/golden/fuzz-sim-*/{legacy,current}.json).

Each capture is a random monorepo + Read/Edit/Write sequence from tests/oracle/fuzz_simulator.py (seed in
`fixture_env.FUZZ_SEED`), run through the real CLI by tests/oracle/record.py. The tree is rebuilt in
tmp_path from the seed, the file-op calls are replayed in a Session, and the skill blocks of every step
are compared (same normalisation as test_session_golden.py; see fuzz_simulator.diff_steps for the one
tolerance: listing entries that both CLIs may deliver one call late because skill dirs load unawaited).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
GOLDEN = ROOT / "golden"
sys.path.insert(0, str(ROOT / "oracle"))
import fuzz_simulator  # noqa: E402


def _cases():
    for d in sorted(GOLDEN.glob("fuzz-sim-*")):
        for profile in ("legacy", "current"):
            if (d / f"{profile}.json").exists():
                yield pytest.param(d.name, profile, id=f"{d.name}-{profile}")


def _build(seed: int, tmp_path: Path) -> str:
    work = Path(os.path.realpath(tmp_path)) / "w"  # run_oracle.sh resolves WORK with `pwd -P`
    work.mkdir()
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", FUZZ_SEED=str(seed))
    subprocess.run([sys.executable, str(ROOT / "oracle" / "fixtures" / "fuzz-sim.py"), str(work)],
                   check=True, capture_output=True, env=env)
    return str(work)


@pytest.mark.parametrize("name, profile", list(_cases()))
def test_fuzz_golden(name: str, profile: str, tmp_path: Path) -> None:
    golden = json.loads((GOLDEN / name / f"{profile}.json").read_text(encoding="utf-8"))
    seed = int(golden["fixture_env"]["FUZZ_SEED"])
    assert golden["spec_sha1"] == fuzz_simulator.spec_fingerprint(seed), (
        "generate() changed what this seed builds: re-record with " + golden["produced_by"])
    ours, theirs, steps, _ = fuzz_simulator.replay(golden, _build(seed, tmp_path))
    assert len(steps) >= 10 and any(theirs), "the capture should exercise discovery"
    bad = fuzz_simulator.diff_steps(ours, theirs)
    detail = [f"step {i + 1} {steps[i]}:\n ours   {ours[i]}\n theirs {theirs[i]}" for i in bad]
    assert not bad, "\n".join(detail)


def test_diff_steps_tolerates_only_a_one_call_lag() -> None:
    header = fuzz_simulator.LISTING_HEADER
    a, b = header + "- a: A.", header + "- b: B."
    both = header + "- a: A.\n- b: B."
    assert fuzz_simulator.diff_steps([[a], [b]], [[a], [b]]) == []
    assert fuzz_simulator.diff_steps([[a], [b]], [[], [both]]) == []  # a arrived one call late
    assert fuzz_simulator.diff_steps([[a], [], []], [[], [], [a]]) == [1, 2]  # two calls late: mismatches
    assert fuzz_simulator.diff_steps([[a]], [[b]]) == [0]
    assert fuzz_simulator.diff_steps([[a], []], [[], []]) == [1]  # never delivered
    assert fuzz_simulator.diff_steps([[a], [b], []], [[], [a], [b]]) == []  # a chain of one-call lags
    assert fuzz_simulator.diff_steps([[a]], [[]]) == []  # late after the last call: cannot be checked
    assert fuzz_simulator.diff_steps([[], [b]], [[], [both]]) == [1]  # an entry we never sent
