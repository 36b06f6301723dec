"""`skillmanager show NAME`: everything about one skill name, every copy."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO


from .common import add_workspace_options, registry_or_exit, skill_to_json

NAME = "show"
HELP = "show everything about one skill (all copies, states, reasons, front matter)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="skill name as typed after / (a leading / is ignored)")
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/cli-json.md)")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    copies = registry.copies(args.name)
    if not copies:
        if args.json:  # stdout stays the documented JSON shape: no copies
            json.dump({"name": args.name.lstrip("/"), "copies": []}, out, indent=1, ensure_ascii=False)
            out.write("\n")
            print(f"skillmanager: error: no skill named {args.name!r}", file=sys.stderr)
        else:
            out.write(f"No skill named {args.name!r}.\n")
        return 1
    winner = registry.find(args.name)
    if args.json:
        items = []
        for s in copies:
            item = skill_to_json(s)
            item["front_matter"] = json.loads(json.dumps(s.front_matter, default=str))
            item["resolves_here"] = s is winner
            items.append(item)
        json.dump({"name": args.name.lstrip("/"), "copies": items}, out, indent=1, ensure_ascii=False)
        out.write("\n")
        return 0
    for s in copies:
        mark = "  <- /name and the Skill tool resolve here" if s is winner else ""
        out.write(f"{s.name} [{s.source.value}] {s.path or ''}{mark}\n")
        if s.display_name:
            out.write(f"  display name: {s.display_name}\n")
        out.write(f"  description: {s.description}\n")
        if s.when_to_use:
            out.write(f"  when_to_use: {s.when_to_use}\n")
        if s.paths:
            out.write(f"  paths: {', '.join(s.paths)} (conditional, pending)\n")
        out.write(f"  listed: {s.state.listed.value} - {s.state.listed_reason}\n")
        out.write(f"  invocable by: {s.state.invocable_by.value} - {s.state.invocable_reason}\n")
        if s.state.shadowed_by is not None:
            out.write(f"  shadowed: {s.state.shadow_reason}\n")
        if s.state.duplicate_of is not None:
            out.write(f"  duplicate of: {s.state.duplicate_of.path}\n")
        for d in s.state.decided_by:
            out.write(f"  decided by: {d.kind}={d.value} in {d.scope} ({d.file or '-'})\n")
        for d in s.diagnostics:
            out.write(f"  {d.severity.value}: {d.message}\n")
    return 0
