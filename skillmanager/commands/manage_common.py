"""Shared pieces of the commands that change skill folders (install, new, rename, move, remove, update)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from skillmanager.core.manage.operations import OperationError, OperationResult, manageable_reason
from skillmanager.core.manage.preview import TargetError, resolve_target

from .errors import UsageError


def add_to_option(parser: argparse.ArgumentParser, *, required: bool = False, help_extra: str = "") -> None:
    parser.add_argument("--to", metavar="personal|project|DIR", required=required,
                        help="personal (<home>/.claude/skills, $CLAUDE_CONFIG_DIR honoured), project "
                             "(<cwd>/.claude/skills), or a folder: a `skills` folder as given, else its "
                             f".claude/skills (a nested package){help_extra}")


def target_or_usage(workspace, to):
    try:
        return resolve_target(workspace, to)
    except TargetError as error:
        raise UsageError(str(error)) from None


def find_skill(registry, name: str):
    """The copy a name means: the winner, else the first copy. None when there is none."""
    skill = registry.find(name)
    if skill is None:
        copies = registry.copies(name)
        skill = copies[0] if copies else None
    return skill


def manageable_or_refuse(registry, name: str, out: TextIO, as_json: bool):
    """(skill, None) or (None, exit code) with the refusal said."""
    skill = find_skill(registry, name)
    if skill is None:
        return None, refuse(f"No skill named {name!r}.", out, as_json)
    reason = manageable_reason(skill)
    if reason:
        return None, refuse(reason, out, as_json)
    return skill, None


def refuse(message: str, out: TextIO, as_json: bool, extra: dict[str, Any] | None = None) -> int:
    if as_json:
        doc = {"done": False, "error": message}
        doc.update(extra or {})
        json.dump(doc, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"Refused: {message}", file=sys.stderr)
    return 1


def report(result: OperationResult, out: TextIO, as_json: bool, extra: dict[str, Any] | None = None) -> int:
    if as_json:
        doc = {"done": True, "error": None, "result": result.to_json()}
        doc.update(extra or {})
        json.dump(doc, out, indent=1, ensure_ascii=False)
        out.write("\n")
        return 0
    out.write(result.summary + "\n")
    for note in result.notes:
        out.write(f"note: {note}\n")
    if result.history_id:
        out.write(f"history: {result.history_id} (skillmanager history restore {result.history_id} undoes it)\n")
    return 0


def run_operation(fn, out: TextIO, as_json: bool, *args, **kwargs) -> int:
    try:
        result = fn(*args, **kwargs)
    except OperationError as error:
        return refuse(str(error), out, as_json)
    return report(result, out, as_json)
