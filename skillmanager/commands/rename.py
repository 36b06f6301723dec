"""`skillmanager rename OLD NEW`: rename a skill folder (and its `name:` where it equals the old name)."""
from __future__ import annotations

import argparse
from typing import TextIO

from skillmanager.core.manage import operations

from .common import add_workspace_options, registry_or_exit
from .manage_common import manageable_or_refuse, run_operation

NAME = "rename"
HELP = "rename a skill (its folder, and `name:` where it matches); undo with `history restore`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the skill's current name")
    parser.add_argument("new", metavar="NEW", help="the new name")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, _ = registry_or_exit(args)
    skill, code = manageable_or_refuse(registry, args.old, out, args.json)
    if skill is None:
        return code
    return run_operation(operations.rename, out, args.json, skill.skill_dir, args.new)
