"""`skillmanager listing`: exactly the skill listing text the model receives (layer 1)."""
from __future__ import annotations

import argparse
import json
from typing import TextIO

from skillmanager.core.layers.listing import build_listing
from skillmanager.core.js.textwidth import safe_for_output

from .common import add_workspace_options, registry_or_exit

NAME = "listing"
HELP = ("print the skill listing exactly as Claude Code sends it (wrapper and header included); "
        "--model / --context-window / --budget set the budget")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print the text plus per-entry widths, cuts and budget totals as JSON")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
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
