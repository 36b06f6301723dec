"""`skillmanager audit [PATH…] [--json|--sarif] [--fail-on LEVEL]`: what a skill would do to this machine."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from skillmanager.core.checks.audit import LEVELS, SkillAudit, audit_paths, audit_skill, level_index, summarize

from .errors import UsageError

NAME = "audit"
HELP = ("security audit of skills: inline shell, download-and-execute, hidden Unicode, prompt injection, "
        "secrets… (exit 1 when a finding at or above --fail-on exists)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", type=Path,
                        help="a skill dir, a SKILL.md or a skills dir (none: every skill of the workspace)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="machine-readable output")
    output.add_argument("--sarif", action="store_true", help="SARIF 2.1.0 output for CI code scanning")
    parser.add_argument("--fail-on", choices=LEVELS, default="high", metavar="LEVEL",
                        help=f"exit 1 when a finding at or above LEVEL exists ({' < '.join(LEVELS)}; default high)")
    try:
        from skillmanager.commands.common import add_workspace_options
    except ImportError:
        return
    add_workspace_options(parser)


def _workspace_audits(args: argparse.Namespace) -> list[SkillAudit]:
    from skillmanager.commands.common import registry_or_exit

    registry, _ = registry_or_exit(args)  # an unreadable skill folder: on stderr, exit 1 (errors.settle)
    skills = getattr(registry, "skills", registry)
    audits, seen = [], set()
    for skill in skills:
        path = getattr(skill, "path", None)
        if path is None or path in seen:  # bundled / MCP: nothing on disk
            continue
        seen.add(path)
        audits.append(audit_skill(Path(path), name=skill.name))
    return audits


def run(args: argparse.Namespace, out: TextIO) -> int:
    check_paths_exist(args.paths)
    unreadable: list[str] = []
    if args.paths:
        audits = audit_readable_paths(args.paths, unreadable)
    else:
        audits = _workspace_audits(args)
    for line in unreadable:
        print(f"skillmanager: error: {line}", file=sys.stderr)
    if args.sarif:
        from skillmanager.core.checks.sarif import to_sarif
        out.write(json.dumps(to_sarif(audits, base=Path.cwd()), indent=2, ensure_ascii=False) + "\n")
    elif args.json:
        out.write(json.dumps({"fail_on": args.fail_on, "summary": summarize(audits),
                              "skills": [a.to_json() for a in audits]}, indent=2, ensure_ascii=False) + "\n")
    else:
        _write_text(audits, out)
    threshold = level_index(args.fail_on)
    if unreadable:
        return 1
    return 1 if any(level_index(f.severity) >= threshold for a in audits for f in a.findings) else 0


def check_paths_exist(paths: list[Path]) -> None:
    """A PATH that does not exist (or that the OS refuses, e.g. a name too long) is a usage error."""
    for path in paths:
        try:
            os.stat(path)
        except FileNotFoundError:
            raise UsageError(f"no such file or directory: {path}") from None
        except OSError as error:
            raise UsageError(f"{path}: {error.strerror or error}") from None


def unreadable_reason(path: Path) -> str | None:
    """Why a directory cannot be listed (None when it can, or is not a directory)."""
    if not path.is_dir():
        return None
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as error:
        return f"cannot read {path}: {error.strerror or error}; it was not checked"
    return None


def audit_readable_paths(paths: list[Path], unreadable: list[str]) -> list[SkillAudit]:
    """audit_paths per PATH, one level down into a skills dir, so one folder it cannot read is reported
    (in `unreadable`) and skipped instead of ending the run."""
    audits: list[SkillAudit] = []
    for path in paths:
        reason = unreadable_reason(path)
        if reason is not None:
            unreadable.append(reason)
            continue
        try:
            audits += audit_paths([path])
            continue
        except OSError:
            pass
        for child in sorted(path.iterdir()) if path.is_dir() else []:
            reason = unreadable_reason(child)
            if reason is not None:
                unreadable.append(reason)
                continue
            try:
                audits += audit_paths([child])
            except OSError as error:
                unreadable.append(f"cannot read {child}: {error.strerror or error}; it was not checked")
    return audits


def _write_text(audits: list[SkillAudit], out: TextIO) -> None:
    for audit in audits:
        out.write(f"{(audit.max_severity or 'clean').upper():9} {audit.name}  ({audit.target})\n")
        for finding in audit.findings:
            out.write(f"    {finding.severity:8} {finding.rule:20} {finding.file.name}:{finding.line}  {finding.message}\n")
            if finding.evidence:
                out.write(f"{'':14}{finding.evidence}\n")
        for note in audit.notes:
            out.write(f"    note: {note}\n")
    total = sum(len(a.findings) for a in audits)
    flagged = sum(bool(a.findings) for a in audits)
    out.write(f"{len(audits)} skills audited, {flagged} with findings, {total} findings\n")
