"""`skillmanager history [--json]` and `skillmanager history restore ID [--force]`: the changes skillmanager
made to your files (core/edit/history.py), and putting one back."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from skillmanager.core.edit import history

from .errors import UsageError

NAME = "history"
HELP = "list the changes skillmanager made to your files (toggles, restores), or restore one: history restore ID"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("list", "restore"), default="list",
                        help="list (default) or restore")
    parser.add_argument("entry_id", nargs="?", metavar="ID", help="the change to restore (from `history`)")
    parser.add_argument("--force", action="store_true",
                        help="restore even if the file changed since (that later change is lost; it is backed up)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.action == "restore":
        return _restore(args, out)
    if args.entry_id is not None:
        raise UsageError("history: an ID is only taken by `history restore ID`")
    journal = history.load_journal()
    for problem in journal.diagnostics:
        print(f"skillmanager: error: {problem}", file=sys.stderr)
    entries = list(reversed(journal.entries))  # newest first
    if args.json:
        json.dump({"entries": [e.to_json() for e in entries]}, out, indent=1, ensure_ascii=False)
        out.write("\n")
    else:
        if not entries:
            out.write("No changes recorded.\n")
        for entry in entries:
            state = "" if entry.restorable else "  (no longer restorable)"
            out.write(f"{entry.id}  {entry.time}  {entry.action}: {entry.summary}{state}\n")
            for change in entry.files:
                out.write(f"    {change.path}\n")
    return 1 if journal.diagnostics else 0


def _restore(args: argparse.Namespace, out: TextIO) -> int:
    if not args.entry_id:
        raise UsageError("history restore: give the ID of the change (see `skillmanager history`)")
    try:
        entry = history.restore(args.entry_id, force=args.force)
    except history.HistoryError as error:
        if args.json:
            json.dump({"restored": False, "error": str(error), "entry": None}, out, indent=1, ensure_ascii=False)
            out.write("\n")
        print(f"Refused: {error}", file=sys.stderr)
        return 1
    if args.json:
        json.dump({"restored": True, "error": None, "entry": entry.to_json()}, out, indent=1, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"restored the files of {args.entry_id}:\n")
        for change in entry.files:
            out.write(f"    {change.path}\n")
        out.write(f"history: {entry.id}\n")
    return 0
