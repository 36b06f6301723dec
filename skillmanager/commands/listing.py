"""`skillmanager listing`: exactly the skill listing text the model receives (layer 1)."""
from __future__ import annotations

import argparse
import json
from typing import TextIO

from .common import add_workspace_options

NAME = "listing"
# the answer depends only on the options, the environment and the files read: a repeat run with nothing
# changed replays it (commands/output_memo.py)
REPLAYABLE = True
HELP = ("print the skill listing exactly as Claude Code sends it (wrapper and header included); "
        "--model / --context-window / --budget set the budget")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print the text plus per-entry widths, cuts and budget totals as JSON")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from skillmanager.core.js.textwidth import safe_for_output
    from skillmanager.core.layers.listing import build_listing

    from .common import registry_or_exit

    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    result = build_listing(registry)
    if args.json:
        data = result.to_json()
        data["text"] = safe_for_output(data["text"])
        for entry in data["entries"]:
            entry["full_text"] = safe_for_output(entry["full_text"])
            entry["shown_text"] = safe_for_output(entry["shown_text"])
        out.write(json.dumps(data, indent=1, ensure_ascii=False))
        out.write("\n")
        return 0
    text = safe_for_output(result.text)
    out.write(text)
    if text and not text.endswith("\n") and getattr(out, "isatty", lambda: False)():
        out.write("\n")  # only for a terminal: piped output stays byte-exact
    return 0
