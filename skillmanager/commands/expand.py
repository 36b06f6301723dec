"""`skillmanager expand NAME`: what a Skill call injects (layer 2), or Claude Code's refusal."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from skillmanager.core.layers.expansion import expand
from skillmanager.core.js.textwidth import safe_for_output

from .common import add_workspace_options, registry_or_exit

NAME = "expand"
HELP = ("print `Launching skill: NAME` and exactly the text a Skill call injects (or the refusal); "
        "inline shell is listed, not run, unless --run-shell")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the skill name as the model would pass it (dir:name for scoped)")
    parser.add_argument("--args", dest="skill_args", default=None, metavar="TEXT", help="the Skill call's args string")
    parser.add_argument("--session-id", metavar="ID", help="value for ${CLAUDE_SESSION_ID} (default: a new UUID)")
    parser.add_argument("--as-user", action="store_true", help="model the user's /NAME instead of the model's call")
    parser.add_argument("--run-shell", action="store_true",
                        help="run the skill's inline shell commands (in --cwd, with a timeout); never for MCP skills")
    parser.add_argument("--shell-timeout", type=float, default=10, metavar="SECONDS", help="per command (default 10)")
    parser.add_argument("--json", action="store_true", help="print launch line, block, refusal and shell commands as JSON")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    result = expand(registry, args.name, args=args.skill_args, session_id=args.session_id, as_user=args.as_user,
                    run_shell=args.run_shell, shell_timeout=args.shell_timeout)
    if args.json:
        data = result.to_json()
        for key in ("block", "refusal"):
            if data[key] is not None:
                data[key] = safe_for_output(data[key])
        out.write(json.dumps(data, indent=1, ensure_ascii=False))
        out.write("\n")
        return 1 if result.is_error else 0
    if result.is_error:
        out.write(safe_for_output(result.refusal or "") + "\n")
        return 1
    if result.forked:  # the conversation gets the result line and the sub-agent's answer; the block is its prompt
        out.write((result.tool_result or "") + "<the sub-agent's final answer>\n")
        if result.block is not None:
            out.write("\n--- what the sub-agent is given ---\n" + safe_for_output(result.block))
    elif result.launch_line:
        out.write(result.launch_line + "\n")
    if result.block is not None and not result.forked:
        out.write(safe_for_output(result.block))
    if result.shell_snippets and not args.run_shell:
        commands = ", ".join(repr(s.command) for s in result.shell_snippets)
        print(f"skillmanager: inline shell not run (use --run-shell): {commands}", file=sys.stderr)
    for note in result.notes:
        print(f"skillmanager: note: {note}", file=sys.stderr)
    return 0
