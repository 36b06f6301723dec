"""The checks a new skill's SKILL.md gets before it is written (shared by `skillmanager new` and the app)."""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

from ..checks.validate import AGENTSKILLS, CLAUDE_CODE, validate_paths
from ..model import Diagnostic, Severity
from ..versions.profiles import Profile


def template_findings(name: str, text: str, profile: Profile) -> list[Diagnostic]:
    """Validate the SKILL.md text in a scratch folder named like the skill."""
    scratch = Path(tempfile.mkdtemp(prefix="skillmanager-new-check-"))
    try:
        folder = scratch / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        out = []
        for standard in (AGENTSKILLS, CLAUDE_CODE):
            for report in validate_paths([folder], standard=standard, profile=profile).reports:
                out += [dataclasses.replace(d, code=f"{standard}:{d.code}") for d in report.findings]
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def blocking_findings(findings: list[Diagnostic]) -> list[Diagnostic]:
    """The findings that stop the skill from being created: Claude Code's own errors. The Agent Skills
    standard has no `when_to_use`/`paths:`; its findings are shown, never blocking."""
    return [d for d in findings if d.severity is Severity.ERROR and d.code.startswith(CLAUDE_CODE + ":")]


def is_portability_finding(finding: Diagnostic) -> bool:
    """A finding of the Agent Skills standard (portability), not of Claude Code."""
    return finding.code.startswith(AGENTSKILLS + ":")
