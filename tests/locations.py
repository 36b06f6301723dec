"""Where tests find material outside the repository.

`shared/` (spec, oracle harness, corpus) sits beside the checkout, as it does for developers and CI.
The real Claude Code CLIs, when installed with `shared/oracle/install_clis.sh ../oracle-clis`, sit beside it
too; tests that need them skip when they are absent. Environment variables override both.
"""
from __future__ import annotations

import os
from pathlib import Path

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
