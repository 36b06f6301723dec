"""`audit` and `validate` PATH arguments that are FIFOs or devices are usage errors (exit 2) with a diagnostic,
never a silent "0 skills audited" with exit 0, and never a blocking read."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]  # run this checkout's skillmanager, whatever the cwd

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")


def _run(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skillmanager", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("command", ["audit", "validate"])
def test_fifo_path_is_a_usage_error(tmp_path, command):
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    result = _run(command, str(fifo), cwd=tmp_path)
    assert result.returncode == 2
    assert "FIFO" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["audit", "validate"])
def test_device_path_is_a_usage_error(tmp_path, command):
    result = _run(command, os.devnull, cwd=tmp_path)
    assert result.returncode == 2
    assert "device" in result.stderr and "Traceback" not in result.stderr


def test_audit_json_keeps_a_valid_document_for_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = _run("audit", "--json", str(fifo), cwd=tmp_path)
    assert result.returncode == 2
    assert json.loads(result.stdout)["skills"] == []
