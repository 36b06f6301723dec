"""The engine type-checks: `mypy` (configured in pyproject.toml: strict, on skillmanager/core) reports nothing."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "skillmanager" / "core"


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_core_passes_mypy_strict():
    result = _mypy()
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert result.returncode == 0 and not errors, (
        f"mypy --strict found {len(errors)} error(s) in skillmanager/core:\n{result.stdout}{result.stderr}")
    # the configured files are the whole engine, not a part of it
    checked = re.search(r"no issues found in (\d+) source files", result.stdout)
    assert checked, result.stdout
    assert int(checked.group(1)) == len(list(CORE.rglob("*.py")))


def test_the_configuration_is_strict(tmp_path):
    """An untyped function and an implicit Any generic must be errors under the project's configuration."""
    sample = tmp_path / "sample.py"
    sample.write_text("def untyped(x):\n    return x\n\n\ndef bare(items: list) -> None:\n    pass\n")
    result = _mypy("--cache-dir", str(tmp_path / "cache"), str(sample))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[no-untyped-def]" in result.stdout and "[type-arg]" in result.stdout, result.stdout
