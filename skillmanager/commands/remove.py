"""`skillmanager remove NAME`: delete a skill folder (backed up in History, kept in the app's trash); a
linked folder loses its link only; managed, plugin and bundled skills are refused with the reason."""
from __future__ import annotations

import argparse
from typing import TextIO

from skillmanager.core.manage import operations

from .common import add_workspace_options, registry_or_exit
from .manage_common import manageable_or_refuse, run_operation

NAME = "remove"
HELP = "delete a skill (restorable: `history restore ID`); a linked folder: only the link is removed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill to remove")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, _ = registry_or_exit(args)
    skill, code = manageable_or_refuse(registry, args.name, out, args.json)
    if skill is None:
        return code
    return run_operation(operations.remove, out, args.json, skill.skill_dir)
