"""`skillmanager audit [PATH…] [--json|--sarif] [--fail-on LEVEL]`: what a skill would do to this machine."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from skillmanager.core.checks.audit import LEVELS, SkillAudit, audit_paths, level_index, summarize
from skillmanager.core.checks.audit_cache import AuditCache, audit_many

from .errors import UsageError
from .path_args import check_paths_exist

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
    targets, seen = [], set()
    for skill in skills:
        path = getattr(skill, "path", None)
        if path is None or path in seen:  # bundled / MCP: nothing on disk
            continue
        seen.add(path)
        targets.append((Path(path), skill.name))
    return audit_many(targets, cache=_cache(args))


def _cache(args: argparse.Namespace) -> AuditCache | None:
    """The persistent audit cache, unless --no-cache."""
    return None if getattr(args, "no_cache", False) else AuditCache.open_for_audit()


def usage_error_document(args: argparse.Namespace, message: str) -> str | None:
    """`--json` / `--sarif` stdout is a valid document whatever the exit code: on a usage error, an empty
    answer carrying the error (the message itself is on stderr)."""
    if getattr(args, "sarif", False):
        from skillmanager.core.checks.sarif import to_sarif
        return json.dumps(to_sarif([], base=Path.cwd()), indent=2) + "\n"
    if getattr(args, "json", False):
        return json.dumps({"fail_on": args.fail_on, "summary": {}, "skills": [], "error": message}, indent=2) + "\n"
    return None


def run(args: argparse.Namespace, out: TextIO) -> int:
    check_paths_exist(args.paths, denied_ok=True)  # an unreadable PATH is reported; the others are audited
    unreadable: list[str] = []
    if args.paths:  # an unreadable skill folder becomes an audit with `error` and an unscanned-content finding
        try:
            audits = audit_paths(args.paths, cache=_cache(args))
        except OSError as error:
            unreadable.append(f"cannot read {error.filename or args.paths[0]}: {error.strerror or error}; "
                              "it was not checked")
            audits = []
    else:
        try:
            audits = _workspace_audits(args)
        except ValueError as error:  # a bad option value found while reading the workspace
            raise UsageError(str(error)) from None
    for line in unreadable:
        print(f"skillmanager: error: {line}", file=sys.stderr)
    for audit in audits:
        if audit.error:
            print(f"skillmanager: error: {audit.error}", file=sys.stderr)
    if args.sarif:
        from skillmanager.core.checks.sarif import to_sarif
        out.write(json.dumps(to_sarif(audits, base=Path.cwd()), indent=2, ensure_ascii=False) + "\n")
    elif args.json:
        out.write(json.dumps({"fail_on": args.fail_on, "summary": summarize(audits),
                              "skills": [a.to_json() for a in audits]}, indent=2, ensure_ascii=False) + "\n")
    else:
        _write_text(audits, out)
    threshold = level_index(args.fail_on)
    if unreadable or any(a.error for a in audits):
        return 1
    return 1 if any(level_index(f.severity) >= threshold for a in audits for f in a.findings) else 0


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
