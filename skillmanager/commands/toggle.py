"""`skillmanager toggle NAME --state …`: turn a skill on or off the way Claude Code reads it (spec §6).

Prints the file it will write (--dry-run) or wrote, the exact change and a diff; exit 1 with the reason
when the toggle is refused (legacy has no skillOverrides, managed policy decides, a file does not parse,
a file changed since it was read, …).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from skillmanager.core.edit.toggle import (WRITABLE_SCOPES, ToggleError, apply_plan, effective_toggle_state,
                                      plan_disable_bundled, plan_toggle)

from .common import add_workspace_options, registry_or_exit
from .errors import UsageError

NAME = "toggle"
HELP = "turn a skill on/off (skillOverrides, a deny rule, or disable-model-invocation) and show what changed"

# CLI words → core states (the core speaks of unhide/unblock as actions).
CLI_STATES = {"on": "on", "off": "off", "name-only": "name-only", "user-invocable-only": "user-invocable-only",
              "hidden": "hidden", "unhidden": "unhide", "blocked": "blocked", "unblocked": "unblock"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="skill name as typed after / (a leading / is ignored)")
    parser.add_argument("--state", choices=list(CLI_STATES),
                        help="on | off | name-only | user-invocable-only (current: skillOverrides); hidden | unhidden "
                             "(disable-model-invocation in the front matter); blocked | unblocked (a deny rule "
                             "Skill(name): refused, but still listed)")
    parser.add_argument("--scope", choices=WRITABLE_SCOPES,
                        help="settings file to write: user (~/.claude/settings.json), project "
                             "(<cwd>/.claude/settings.json, shared) or local (<cwd>/.claude/settings.local.json). "
                             "Default: the file that decides now, else local for project skills, user otherwise")
    parser.add_argument("--disable-bundled-skills", choices=("true", "false"), dest="disable_bundled",
                        help="current: set disableBundledSkills (no NAME needed)")
    parser.add_argument("--dry-run", action="store_true", help="show what would be written; write nothing")
    parser.add_argument("--allow-outside-link", action="store_true",
                        help="write through a settings file that is a symbolic link to a place outside the home "
                             "directory and the project (refused otherwise)")
    parser.add_argument("--json", action="store_true", help="print the plan (and result) as JSON")
    add_workspace_options(parser)


def _emit_plan_text(plan, out: TextIO, dry_run: bool) -> None:
    if plan.edits:
        verb = "would write" if dry_run else "wrote"
        for edit in plan.edits:
            target = f" (→ {edit.target})" if edit.target != edit.path else ""
            created = " (new file)" if edit.creates else ""
            out.write(f"{verb} {edit.path}{target}{created}\n  {edit.change}\n")
        out.write(plan.diff)
    else:
        out.write(plan.message + "\n")
    for note in plan.notes:
        out.write(f"note: {note}\n")


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.disable_bundled is None and (args.name is None or args.state is None):
        raise UsageError("toggle: give NAME and --state, or --disable-bundled-skills true|false")
    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    if args.disable_bundled is not None:
        plan = plan_disable_bundled(registry, args.disable_bundled == "true", args.scope or "user",
                                    allow_outside_link=args.allow_outside_link)
        skill = None
    else:
        skill = registry.find(args.name) or next(
            (s for s in registry.copies(args.name) if s.state.duplicate_of is None), None)
        if skill is None:
            if args.json:  # stdout stays one JSON document
                json.dump({"plan": None, "dry_run": args.dry_run, "written": False,
                           "error": f"No skill named {args.name!r}."}, out, indent=1, ensure_ascii=False)
                out.write("\n")
            print(f"No skill named {args.name!r}.", file=sys.stderr)
            return 1
        plan = plan_toggle(registry, skill, CLI_STATES[args.state], args.scope,
                           allow_outside_link=args.allow_outside_link)
    result = None
    error = None
    if plan.ok and plan.edits and not args.dry_run:
        try:
            result = apply_plan(plan)
        except ToggleError as exc:
            error = str(exc)
    if args.json:
        doc = {"plan": plan.to_json(), "dry_run": args.dry_run, "written": bool(result), "error": error}
        if result is not None:
            doc["backups"] = [str(e.backup) if e.backup else None for e in result.edits]
            doc["history_id"] = result.history_id
        if skill is not None:
            doc["state_before"] = effective_toggle_state(registry, skill).to_json() if args.dry_run else None
        json.dump(doc, out, indent=1, ensure_ascii=False)
        out.write("\n")
        if plan.refusal or error:
            print(f"Refused: {plan.refusal or error}", file=sys.stderr)
        return 1 if (plan.refusal or error) else 0
    if plan.refusal or error:
        print(f"Refused: {plan.refusal or error}", file=sys.stderr)
        return 1
    _emit_plan_text(plan, out, args.dry_run or not plan.edits)
    if result is not None:
        for edit in result.edits:
            if edit.backup:
                out.write(f"backup of the previous content: {edit.backup}\n")
        if result.history_id:
            out.write(f"history: {result.history_id} (skillmanager history restore {result.history_id} puts it back)\n")
    return 0
