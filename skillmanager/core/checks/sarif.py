"""SARIF 2.1.0 output for `skillmanager audit --sarif` (what CI code-scanning tools read)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from skillmanager import __version__

from .audit import RULE_BY_NAME, RULES, SkillAudit

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# SARIF has three result levels; GitHub ranks security results by `security-severity` (0–10).
_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "0.0"}


def _uri(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
    return path.resolve().as_uri()


def to_sarif(audits: Iterable[SkillAudit], *, base: Path | None = None) -> dict[str, Any]:
    rules = list(RULES.values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for audit in audits:
        for finding in audit.findings:
            rule = RULE_BY_NAME[finding.rule]
            results.append({
                "ruleId": rule.id,
                "ruleIndex": index[rule.id],
                "level": _LEVEL[finding.severity],
                "message": {"text": f"{finding.message} [{finding.severity}]"
                                    + (f" — {finding.evidence}" if finding.evidence else "")},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding.file, base)},
                    "region": {"startLine": max(finding.line, 1)}}}],
                "properties": {"severity": finding.severity, "skill": audit.name, "context": finding.context,
                               "security-severity": _SECURITY_SEVERITY[finding.severity]},
            })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "skillmanager",
                "version": __version__,
                "informationUri": "https://github.com/anthropics/claude-code",
                "rules": [{
                    "id": rule.id, "name": rule.name,
                    "shortDescription": {"text": rule.summary},
                    "fullDescription": {"text": rule.help},
                    "properties": {"tags": ["security", "claude-code-skill"]},
                } for rule in rules],
            }},
            "results": results,
        }],
    }
