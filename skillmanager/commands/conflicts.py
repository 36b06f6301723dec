"""`skillmanager conflicts`: every name defined more than once, who wins and why."""
from __future__ import annotations

import argparse
import json
from typing import TextIO


from .common import add_workspace_options, registry_or_exit

NAME = "conflicts"
HELP = "show every skill name defined more than once, the winner, the losers and why"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/cli-json.md)")
    add_workspace_options(parser)


def _ref(skill) -> dict:
    # `name` differs from the conflict's name for a clashing --add-dir copy current renames `{dir}:{name}`
    return {"name": skill.name, "source": skill.source.value, "path": str(skill.path) if skill.path else None}


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    conflicts = registry.conflicts()
    if args.json:
        data = [{"name": c.name, "winner": _ref(c.winner),
                 "losers": [{**_ref(s), "reason": why} for s, why in c.losers]} for c in conflicts]
        out.write(json.dumps(data, indent=1, ensure_ascii=False))
        out.write("\n")
        return 0
    if not conflicts:
        out.write("No conflicts: every skill name is defined once.\n")
    for c in conflicts:
        out.write(f"{c.name}\n  wins:  {c.winner.source.value}  {c.winner.path or ''}\n")
        for skill, why in c.losers:
            if skill.scoped_from:  # current: kept as a separate skill under a scoped name
                out.write(f"  renamed to {skill.name}: {skill.source.value}  {skill.path or ''}\n         {why}\n")
            else:
                out.write(f"  loses: {skill.source.value}  {skill.path or ''}\n         {why}\n")
    return 0
