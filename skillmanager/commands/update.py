"""`skillmanager update [NAME]`: re-fetch skills installed from git, show the diff, re-audit, then apply
(a high finding needs --yes, a critical one --force; --dry-run shows the diff only)."""
from __future__ import annotations

import argparse
import json
from typing import TextIO

from skillmanager.core.manage import manifest, operations
from skillmanager.core.manage.preview_text import preview_lines
from skillmanager.core.manage.update import plan_update

from .common import add_workspace_options, registry_or_exit
from .manage_common import manageable_or_refuse

NAME = "update"
HELP = "update skills installed from git (all of this workspace, or NAME): diff, re-audit, apply"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", nargs="?", help="the skill to update (default: every skill of "
                                                                "this workspace installed from git)")
    parser.add_argument("--dry-run", action="store_true", help="show the diff and the audit only")
    parser.add_argument("--yes", action="store_true", help="confirm a high audit finding")
    parser.add_argument("--force", action="store_true", help="update despite a critical finding (recorded in History)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, _ = registry_or_exit(args)
    if args.name:
        skill, code = manageable_or_refuse(registry, args.name, out, args.json)
        if skill is None:
            return code
        dirs = [skill.skill_dir]
    else:
        records = manifest.load()
        dirs = [s.skill_dir for s in registry.skills
                if s.skill_dir is not None and str(s.skill_dir) in records and s.state.duplicate_of is None]
    results, code = [], 0
    for skill_dir in dirs:
        doc, status = _update_one(registry.workspace, skill_dir, args, out)
        results.append(doc)
        code = max(code, status)
    if args.json:
        json.dump({"updates": results}, out, indent=1, ensure_ascii=False)
        out.write("\n")
    elif not dirs:
        out.write("No skill of this workspace was installed from git.\n")
    return code


def _update_one(workspace, skill_dir, args, out: TextIO) -> tuple[dict, int]:
    import sys

    try:
        plan = plan_update(workspace, skill_dir)
    except operations.OperationError as error:
        print(f"Refused: {error}", file=sys.stderr)
        return {"skill_dir": str(skill_dir), "done": False, "error": str(error)}, 1
    try:
        doc = plan.to_json()
        text = not args.json
        if plan.up_to_date:
            if text:
                out.write(f"{skill_dir.name}: up to date ({plan.new_commit[:12]}).\n")
            return {**doc, "done": False, "error": None}, 0
        if text:
            out.write(f"{skill_dir.name}: {plan.provenance.commit[:12]} → {plan.new_commit[:12]}\n")
            for change in plan.diff:
                out.write(change.diff or f"{change.status} {change.path}\n")
            out.write("\n".join(preview_lines(plan.preview)) + "\n")
        preview = plan.preview
        allowed = preview.gate == "ok" or (preview.gate == "confirm" and (args.yes or args.force)) or \
            (preview.gate == "blocked" and args.force)
        if args.dry_run:
            return {**doc, "done": False, "error": None}, 0 if allowed else 1
        if not allowed:
            print(f"Refused: {preview.gate_reason()} Nothing was updated.", file=sys.stderr)
            return {**doc, "done": False, "error": preview.gate_reason()}, 1
        try:
            result = operations.replace_folder(preview, confirm_high=args.yes, force=args.force,
                                               commit=plan.new_commit)
        except operations.OperationError as error:
            print(f"Refused: {error}", file=sys.stderr)
            return {**doc, "done": False, "error": str(error)}, 1
        if text:
            out.write(result.summary + "\n")
            if result.history_id:
                out.write(f"history: {result.history_id} (skillmanager history restore {result.history_id} undoes it)\n")
        return {**doc, "done": True, "error": None, "result": result.to_json()}, 0
    finally:
        plan.cleanup()
