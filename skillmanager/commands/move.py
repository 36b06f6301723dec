"""`skillmanager move NAME --to personal|project|DIR [--copy]`: move or copy a skill folder."""
from __future__ import annotations

import argparse
from typing import TextIO

from skillmanager.core.manage import operations

from .common import add_workspace_options, registry_or_exit
from .manage_common import add_to_option, manageable_or_refuse, run_operation, target_or_usage

NAME = "move"
HELP = "move (or --copy) a skill between personal, project and nested packages; undo with `history restore`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill to move")
    add_to_option(parser, required=True)
    parser.add_argument("--copy", action="store_true", help="copy instead of moving")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, _ = registry_or_exit(args)
    target = target_or_usage(registry.workspace, args.to)
    skill, code = manageable_or_refuse(registry, args.name, out, args.json)
    if skill is None:
        return code
    return run_operation(operations.move, out, args.json, skill.skill_dir, target.skills_dir, copy=args.copy)
