"""Replays the seeded fuzz captures (tests/golden/fuzz-expand-<seed>/, made by tests/oracle/fuzz_expansion.py
through record.py) against `expand`: every Skill call, byte for byte (tool_result line and injected block).

Run as a script to list every difference instead of stopping at the first:
    python tests/test_expansion_fuzz.py tests/golden/fuzz-expand-*/legacy.json ...
Current's "already loaded" short form (session memory) is skipped, as in test_expansion_oracle.py.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from skillmanager.core.layers.expansion import expand  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.core.load.workspace import Workspace  # noqa: E402

GOLDEN = REPO / "tests" / "golden"
VARIANTS = "<system-reminder>\nDirectory-scoped variants of"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def build(data: dict, work: Path) -> None:
    env = dict(os.environ, **(data.get("fixture_env") or {}))
    subprocess.run([sys.executable, str(REPO / data["fixture"]), str(work)], check=True, capture_output=True, env=env)


def compare(data: dict, work: Path) -> tuple[int, int, list[dict]]:
    """(compared, skipped, mismatches) for every Skill turn of one capture."""
    profile = data["profile"]
    registry = load_registry(Workspace.create(home=work / "home", cwd=work / (data.get("cwd") or "home/proj"),
                                              plugin_dirs=[work / "plugin"] if (work / "plugin").is_dir() else [],
                                              profile=profile, env={"HOME": str(work / "home")}))
    compared = skipped = 0
    mismatches = []
    for call in data["turns"]:
        if call.get("tool") != "Skill":
            continue
        expected_result = call["tool_result"].replace("<WORK>", str(work)).split("\n\n<system-reminder>")[0]
        texts = [t.replace("<WORK>", str(work)) for t in call.get("extra_texts") or []]
        if any(t.startswith("Skill /") and "is already loaded above" in t for t in texts):
            skipped += 1
            continue
        blocks = [t for t in texts if not t.startswith("(Re-invocation of") and not t.startswith(VARIANTS)
                  and not t.startswith("<system-reminder>")]
        expected_block = blocks[0] if blocks and not call.get("is_error") else None
        blob = expected_result + "".join(texts)
        session = "<SESSION_ID>" if "<SESSION_ID>" in blob else (UUID.search(blob).group(0) if UUID.search(blob) else None)
        result = expand(registry, call["input"]["skill"], args=call["input"].get("args"), session_id=session,
                        run_shell=True, shell_timeout=20)
        got_result = result.refusal if result.is_error else result.launch_line
        got_block = None if result.is_error else result.block
        compared += 1
        if got_result != expected_result or (expected_block is not None and got_block != expected_block):
            mismatches.append({"input": call["input"], "want_result": expected_result, "got_result": got_result,
                               "want_block": expected_block, "got_block": got_block})
    return compared, skipped, mismatches


def _cases() -> list:
    return [pytest.param(p, id=f"{p.parent.name}-{p.stem}") for p in sorted(GOLDEN.glob("fuzz-expand-*/*.json"))]


@pytest.mark.parametrize("path", _cases())
def test_fuzz_capture_replays(path, tmp_path):
    data = json.loads(path.read_text(encoding="utf-8"))
    work = tmp_path / "work"
    work.mkdir()
    build(data, work)
    compared, skipped, mismatches = compare(data, work)
    assert compared > 0
    assert mismatches == [], json.dumps(mismatches[:3], ensure_ascii=False, indent=1)


if __name__ == "__main__":
    total = bad = 0
    for arg in sys.argv[1:]:
        data = json.loads(Path(arg).read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            build(data, work)
            compared, skipped, mismatches = compare(data, work)
        total += compared
        bad += len(mismatches)
        print(f"{arg}: compared {compared}, skipped {skipped}, mismatches {len(mismatches)}")
        for m in mismatches:
            print(json.dumps(m, ensure_ascii=False))
    print(f"TOTAL compared {total}, mismatches {bad}")
