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


def readable_targets(paths: list[Path], unreadable: list[str]) -> list[Path]:
    """The PATHs to check, minus folders that cannot be read (each said in `unreadable`). A skills dir
    with an unreadable skill folder inside is replaced by its readable entries, so the others are still
    checked (a folder without read/search permission would otherwise be skipped without a word)."""
    targets: list[Path] = []
    for path in paths:
        reason = unreadable_reason(path)
        if reason is not None:
            unreadable.append(reason)
            continue
        if not path.is_dir() or _has_skill_file(path):
            targets.append(path)
            continue
        children = sorted(path.iterdir())
        bad = [child for child in children
               if child.is_dir() and (unreadable_reason(child) is not None or _search_denied(child))]
        if not bad:
            targets.append(path)
            continue
        unreadable.extend(unreadable_reason(child) or f"cannot read {child}: permission denied; it was not checked"
                          for child in bad)
        targets += [child for child in children if child not in bad and (child.is_dir() or child.suffix == ".md")]
    return targets


def _has_skill_file(path: Path) -> bool:
    try:
        return (path / "SKILL.md").is_file()
    except OSError:
        return False


def _search_denied(path: Path) -> bool:
    """A folder whose entries cannot be looked up (no x permission): SKILL.md inside looks absent."""
    try:
        os.stat(path / "SKILL.md")
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def audit_readable_paths(paths: list[Path], unreadable: list[str]) -> list[SkillAudit]:
    """audit_paths over the readable targets; a folder that fails while being read is reported too."""
    audits: list[SkillAudit] = []
    for target in readable_targets(paths, unreadable):
        try:
            audits += audit_paths([target])
        except OSError as error:
            unreadable.append(f"cannot read {error.filename or target}: {error.strerror or error}; it was not checked")
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
