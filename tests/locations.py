"""Where tests find material outside the repository.

`shared/` (spec, oracle harness, corpus) sits beside the checkout, as it does for developers and CI.
The real Claude Code CLIs, when installed with `shared/oracle/install_clis.sh ../oracle-clis`, sit beside it
too. Environment variables override both. A test that needs material from outside calls `missing(reason)`:
a skip on a developer's machine, a failure under SKILLMANAGER_REQUIRE_ORACLE=1 (set by .ci/run), so that
CI never passes by skipping what it was meant to check.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKILLMANAGER_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "oracle"
ORACLE_CLIS = Path(os.environ.get("SKILLMANAGER_ORACLE_CLIS", REPO.parent / "oracle-clis"))
LEGACY_CLI_JS = Path(os.environ.get(
    "CLAUDE_LEGACY_BIN", ORACLE_CLIS / "legacy/node_modules/@anthropic-ai/claude-code/cli.js"))
LEGACY_CLI_MAP = LEGACY_CLI_JS.with_name("cli.js.map")
CURRENT_CLI = Path(os.environ.get(
    "CLAUDE_CURRENT_BIN", ORACLE_CLIS / "current/node_modules/@anthropic-ai/claude-code/bin/claude.exe"))


REQUIRE_EXTERNAL = os.environ.get("SKILLMANAGER_REQUIRE_ORACLE") == "1"


def missing(reason: str) -> None:
    """Skip for want of outside material (shared/, the real CLIs, node), or fail where it is required."""
    if REQUIRE_EXTERNAL:
        pytest.fail(f"SKILLMANAGER_REQUIRE_ORACLE=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def build_fixture(script: Path, root: Path) -> Path:
    """Run an oracle fixture builder (`script WORK`, the run_oracle.sh contract) in this process."""
    import runpy
    import sys

    argv = sys.argv
    try:
        sys.argv = [str(script), str(root)]
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
    return root
