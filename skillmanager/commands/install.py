"""`skillmanager install SRC`: a skill from a folder, an archive or a git repository, previewed and audited
before anything is written (core/manage). Exit 1 when a finding blocks it (high: --yes, critical: --force),
when the source is refused (an unsafe archive member, a link out of the source, caps) or the name is taken."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from skillmanager.core.manage import operations
from skillmanager.core.manage.preview import preview_install
from skillmanager.core.manage.preview_text import preview_lines
from skillmanager.core.manage.sources import SourceError, is_git_url, stage

from .common import add_workspace_options, workspace_from_args
from .errors import UsageError
from .manage_common import add_to_option, refuse, report, target_or_usage

NAME = "install"
HELP = ("install skills from a folder, a .zip/.skill/.tar.gz or a git repository, after a preview of what "
        "changes (validation, audit, listing budget, name clashes)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SRC", help="a folder, a .zip/.skill/.tar.gz file, or a git repository "
                                                      "(https://…, ssh://…, git@host:path, or a local path with --git)")
    add_to_option(parser, help_extra=" (default: personal)")
    parser.add_argument("--pick", metavar="NAME", nargs="+", action="extend", default=[],
                        help="the skills to install when the source holds several")
    parser.add_argument("--git", action="store_true", help="treat a local folder as a git repository (clone it; "
                                                           "the commit is recorded so `update` works)")
    parser.add_argument("--dry-run", action="store_true", help="show the preview only; write nothing")
    parser.add_argument("--yes", action="store_true", help="confirm a high audit finding")
    parser.add_argument("--force", action="store_true",
                        help="install despite a critical audit finding (recorded in History)")
    parser.add_argument("--json", action="store_true", help="the preview (and result) as JSON")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    workspace = workspace_from_args(args)
    target = target_or_usage(workspace, args.to)
    source = args.source
    if not (args.git or is_git_url(source) or source.endswith(".git")) and not os.path.exists(source):
        raise UsageError(f"install: no such file or folder: {source}")
    try:
        staged = stage(source, git=args.git)
    except SourceError as error:
        return refuse(str(error), out, args.json)
    try:
        try:
            picks = staged.pick(args.pick)
        except SourceError as error:
            if not args.pick and args.json:
                json.dump({"done": False, "error": str(error), "candidates": [
                    {"name": c.name, "folder": c.rel} for c in staged.candidates]}, out, indent=1)
                out.write("\n")
            if args.pick:
                return refuse(str(error), out, args.json)
            print(f"skillmanager: error: {error} Use --pick NAME… ({' '.join(c.name for c in staged.candidates)})",
                  file=sys.stderr)
            return 2
        src = {"kind": staged.kind, "location": staged.location, "commit": staged.commit}
        preview = preview_install(workspace, target, [(c.name, c.staged_dir, c.rel) for c in picks], source=src)
        allowed = preview.gate == "ok" or (preview.gate == "confirm" and (args.yes or args.force)) or \
            (preview.gate == "blocked" and args.force)
        if args.dry_run or not allowed:
            if args.json:
                json.dump({"done": False, "dry_run": args.dry_run, "preview": preview.to_json(),
                           "error": None if allowed else preview.gate_reason()}, out, indent=1, ensure_ascii=False)
                out.write("\n")
            else:
                out.write("\n".join(preview_lines(preview)) + "\n")
            if not allowed:
                hint = {"confirm": "a high audit finding needs --yes",
                        "blocked": "a critical audit finding blocks it; --force overrides"}.get(preview.gate)
                print(f"Refused: {hint or preview.gate_reason()}. Nothing was installed.", file=sys.stderr)
                return 1
            return 0
        try:
            result = operations.install(preview, confirm_high=args.yes, force=args.force)
        except operations.OperationError as error:
            return refuse(str(error), out, args.json, {"preview": preview.to_json()})
        if not args.json:
            out.write("\n".join(preview_lines(preview)) + "\n")
        return report(result, out, args.json, {"preview": preview.to_json()})
    finally:
        staged.cleanup()
