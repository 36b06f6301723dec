"""`skillmanager simulate`: replay file operations and show what each one makes Claude Code reveal.

Output per step: `## step N: Op <path>`, then exactly the text the model receives at that step (nothing
when nothing changes), then summary lines that each start with `# `.
"""
from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, TextIO

from skillmanager.core.versions.profiles import CURRENT
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.simulator.session import Scenario, Session, Step

from skillmanager.core.edit.atomic_write import write_atomic
from skillmanager.core.load.safe_read import special_file_kind

from .common import add_workspace_options, workspace_from_args
from .errors import UsageError, remember_registry

NAME = "simulate"
HELP = "replay Read/Edit/Write (and Bash/Grep/Glob) steps: discovered skill dirs, activations, the model's text"

_STEP_OPTIONS = (("--read", "Read", "FILE"), ("--edit", "Edit", "FILE"), ("--write", "Write", "FILE"),
                 ("--bash", "Bash", "CMD"), ("--grep", "Grep", "PATTERN"), ("--glob", "Glob", "PATTERN"))


class _AppendStep(argparse.Action):
    """Every step option appends (op, value) to one list, so the command-line order is kept across options."""

    def __call__(self, parser, namespace, values, option_string=None):
        steps = list(getattr(namespace, "sim_steps", None) or [])
        steps.append((self.const, values))
        namespace.sim_steps = steps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("steps (in command-line order; paths absolute or relative to --cwd)")
    for flag, op, metavar in _STEP_OPTIONS:
        group.add_argument(flag, action=_AppendStep, const=op, metavar=metavar, dest="sim_steps",
                           help=f"{'an' if op[0] in 'AEIOU' else 'a'} {op} step" + (" (triggers nothing; shown for completeness)" if op in
                                                  ("Bash", "Grep", "Glob") else ""))
    parser.add_argument("--scenario", metavar="FILE.json", help="replay a saved scenario (its steps run first)")
    parser.add_argument("--save-scenario", metavar="FILE.json", help="write the steps as a scenario file")
    parser.add_argument("--json", action="store_true", help="print the step results as JSON")
    add_workspace_options(parser)
    parser.set_defaults(sim_steps=[], profile=None)  # profile: the scenario's unless --profile is given


def run(args: argparse.Namespace, out: TextIO) -> int:
    scenario = None
    if args.scenario:
        try:
            scenario = Scenario.load(args.scenario)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if scenario is not None:
        args.profile = args.profile or scenario.profile
        args.cwd = args.cwd or scenario.cwd
        args.model = args.model or scenario.model
    args.profile = args.profile or CURRENT
    if args.save_scenario:
        _check_writable_target(args.save_scenario)  # before the replay: a FIFO here must not block
    workspace = workspace_from_args(args)
    steps = list(scenario.steps if scenario else []) + [Step(op, value) for op, value in args.sim_steps]
    registry = load_registry(workspace)
    remember_registry(registry)
    session = Session(registry, model=args.model)
    results = session.replay(steps)
    if args.save_scenario:
        data = (json.dumps(session.to_json(), indent=1, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            write_atomic(args.save_scenario, data, create=True)  # a regular file only, never half-written
        except OSError as error:
            raise UsageError(f"cannot write {args.save_scenario}: {error.strerror or error}") from None
    if args.json:
        json.dump(_as_json(session, results), out, indent=1, ensure_ascii=False)
        out.write("\n")
        return 0
    if not results:
        out.write("# no steps: give --read/--edit/--write/--bash/--grep/--glob or --scenario\n")
    for result in results:
        out.write(f"## step {result.index}: {result.step.op} {result.step.path}\n")
        if result.model_text:
            out.write(result.model_text + "\n")
            where = ("appended to the tool result" if result.placement == "tool_result"
                     else f"{len(result.messages)} system message(s)")
            out.write(f"# model text above: {where}\n")
        for line in result.summary_lines():
            out.write(f"# {line}\n")
        for d in result.diagnostics:
            out.write(f"# {d.severity.value}: {d.message}{' (' + str(d.path) + ')' if d.path else ''}\n")
    return 0


def _check_writable_target(path: str) -> None:
    """--save-scenario must name a regular file (or a new one): writing to a FIFO blocks until a reader
    comes, to a device never ends."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        kind = special_file_kind(mode) or "a directory"
        raise UsageError(f"cannot write {path}: it is {kind}, not a regular file")


def _as_json(session: Session, results) -> dict[str, Any]:
    return {
        "profile": session.profile.name,
        "cwd": session.cwd,
        "model": session.model,
        "scenario": session.to_json(),
        "steps": [r.to_json() for r in results],
        "available_skills": [{"name": name, "source": s.source.value, "path": str(s.path) if s.path else None}
                             for name, s in session.available_skills().items()],
    }
