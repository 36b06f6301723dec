"""`skillmanager list`: every skill in load order, with its state."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from skillmanager.core.layers.listing_outcome import listing_outcomes
from skillmanager.core.load.usage_window import DEFAULT_DAYS

from .common import add_workspace_options, registry_or_exit, skill_to_json

NAME = "list"
HELP = "list every skill Claude Code would load, with source, state and shadowing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON array (schema: docs/cli-json.md)")
    parser.add_argument("--usage", action="store_true",
                        help=f"add how often each skill was used in the last {DEFAULT_DAYS} days (from Claude Code's "
                             "session logs under the config dir's projects/)")
    add_workspace_options(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    registry, code = registry_or_exit(args)
    if registry is None:
        return code
    outcomes = listing_outcomes(registry)
    usage = None
    if args.usage:
        # imported here: reading transcripts is --usage's job, a plain list need not pay for the module
        from skillmanager.core.load.usage_log import read_usage, usage_by_key, usage_detail, usage_words
        log = read_usage(registry.workspace.config_home, days=DEFAULT_DAYS)
        usage = usage_by_key(registry.skills, log)
        for problem in log.problems:  # a folder of logs that cannot be read: said, the counts still come
            print(f"skillmanager: warning: {problem}", file=sys.stderr)
    if args.json:
        entries = []
        for s in registry.skills:
            data = skill_to_json(s, outcomes[s.key])
            if usage is not None:
                data["usage"] = {**usage[s.key].to_json(), "days": DEFAULT_DAYS,
                                 "words": usage_words(usage[s.key], DEFAULT_DAYS),
                                 "reason": usage_detail(usage[s.key], DEFAULT_DAYS)}
            entries.append(data)
        # one write: json.dump would hand the stream (and its surrogate check) one call per token
        out.write(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
        # stdout stays one JSON array; problems that belong to no skill (unreadable files, bad settings) go to
        # stderr after it, with exit 1 for an error (cli.py: errors.settle)
        return 0
    for _key, label, skills in registry.by_source():
        out.write(f"{label}\n")
        width = max(len(s.name) for s in skills)
        for s in skills:
            flags = []
            if s.state.duplicate_of is not None:
                flags.append("duplicate")
            if s.state.shadowed_by is not None:
                flags.append(f"shadowed by {s.state.shadowed_by.source.value}")
            if s.state.conditional:
                flags.append("conditional (pending)")
            if s.diagnostics:
                flags.append(f"{len(s.diagnostics)} diagnostic(s)")
            used = f"  {usage_words(usage[s.key], DEFAULT_DAYS):<20}" if usage is not None else ""
            out.write(f"  {s.name.ljust(width)}  listed={s.state.listed.value:<9} "
                      f"outcome={outcomes[s.key].outcome.value:<10} invocable={s.state.invocable_by.value:<5}"
                      f"{used}  {', '.join(flags)}".rstrip() + "\n")
    return 0  # workspace diagnostics: on stderr (errors.settle)
