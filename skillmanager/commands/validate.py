"""`skillmanager validate [PATH…] [--standard agentskills|claude-code] [--json]`."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from skillmanager.core.model import Severity
from skillmanager.commands.audit import check_paths_exist, unreadable_reason
from skillmanager.core.checks.validate import AGENTSKILLS, CLAUDE_CODE, STANDARDS, ValidationReport, validate_paths

NAME = "validate"
HELP = ("check skills against the Agent Skills standard or lint them for Claude Code "
        "(PATH: a skill dir, a SKILL.md or a skills dir; none: every skill of the workspace)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", type=Path)
    parser.add_argument("--standard", choices=STANDARDS, default=AGENTSKILLS,
                        help="agentskills: the open standard (default); claude-code: what Claude Code will do with it")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    try:
        from skillmanager.commands.common import add_workspace_options
    except ImportError:  # the workspace mode is optional; PATH mode works without it
        return
    add_workspace_options(parser)


def _workspace_report(args: argparse.Namespace) -> ValidationReport:
    from skillmanager.commands.common import registry_or_exit
    from skillmanager.core.checks.validate import validate_registry

    registry, _ = registry_or_exit(args)  # an unreadable skill folder: on stderr, exit 1 (errors.settle)
    return validate_registry(registry, registry.workspace, standard=args.standard)


def run(args: argparse.Namespace, out: TextIO) -> int:
    check_paths_exist(args.paths)
    profile = getattr(args, "profile", None) or "current"
    unreadable: list[str] = []
    if args.paths:
        readable = []
        for path in args.paths:
            reason = unreadable_reason(path)
            (unreadable.append(reason) if reason else readable.append(path))
        try:
            report = validate_paths(readable, standard=args.standard, profile=profile)
        except OSError as error:  # a folder inside that cannot be read
            unreadable.append(f"cannot read {error.filename}: {error.strerror or error}; it was not checked")
            report = ValidationReport(args.standard)
    else:
        report = _workspace_report(args)
    for line in unreadable:
        print(f"skillmanager: error: {line}", file=sys.stderr)
    if args.json:
        out.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        _write_text(report, out)
    return 1 if (report.error_count or unreadable) else 0


def _write_text(report: ValidationReport, out: TextIO) -> None:
    label = "Agent Skills standard" if report.standard == AGENTSKILLS else "Claude Code lint"
    for skill in report.reports:
        mark = "ok" if skill.valid and not skill.findings else ("ok*" if skill.valid else "INVALID")
        out.write(f"{mark:8} {skill.name}  ({skill.target})\n")
        for finding in skill.findings:
            where = finding.path.name if finding.path else ""
            if finding.line:
                where += f":{finding.line}"
            out.write(f"    {finding.severity.value:7} {finding.code:26} {where:18} {finding.message}\n")
    for note in report.notes:
        out.write(f"note: {note}\n")
    counts = report.counts()
    invalid = sum(not r.valid for r in report.reports)
    out.write(f"{label}: {len(report.reports)} checked, {invalid} invalid; "
              f"{counts[Severity.ERROR.value]} errors, {counts[Severity.WARNING.value]} warnings, "
              f"{counts[Severity.INFO.value]} notes\n")
