"""`skillmanager verify`: run the installed Claude Code against a loopback fake API and compare what it sends
with the engine's prediction (start-up listing, then the discovery/activation after each --read)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from skillmanager.core.js.textwidth import safe_for_output
from skillmanager.core.verify.runner import DEFAULT_TIMEOUT, VerifyOptions, run_verify

NAME = "verify"
HELP = ("check the engine against your own Claude Code: run it sandboxed against a loopback fake API and compare "
        "the listing and the skills revealed after --read files, line by line (exit 0 matches, 1 differs, "
        "2 cannot run safely)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude", metavar="PATH", help="the Claude Code to run: the native binary or a cli.js "
                                                         "(default: `claude` on PATH)")
    parser.add_argument("--read", metavar="FILE", action="append", default=[],
                        help="a file the fake model Reads, in order (repeatable; relative to --cwd)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time limit for the CLI run (default {DEFAULT_TIMEOUT:.0f})")
    parser.add_argument("--no-namespaces", action="store_true",
                        help="do not use private namespaces even where the OS has them (verify then refuses what "
                             "it cannot protect otherwise)")
    parser.add_argument("--keep-sandbox", action="store_true", help="keep the throwaway directory and print its path")
    group = parser.add_argument_group("workspace (each reaches the real CLI)")
    group.add_argument("--home", metavar="DIR", help="the home whose .claude/ is copied for the CLI (default: $HOME)")
    group.add_argument("--cwd", metavar="DIR", help="the directory the CLI runs in (default: current dir)")
    managed = group.add_mutually_exclusive_group()
    managed.add_argument("--managed-dir", metavar="ROOT",
                         help="shown to the CLI as /etc/claude-code (needs a private mount namespace)")
    managed.add_argument("--no-managed", action="store_true", help="hide /etc/claude-code from the CLI")
    group.add_argument("--add-dir", metavar="DIR", action="append", default=[], help="passed as --add-dir (repeatable)")
    group.add_argument("--plugin-dir", metavar="DIR", action="append", default=[],
                       help="passed as --plugin-dir (repeatable)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    options = VerifyOptions(claude=args.claude, reads=list(args.read), home=args.home, cwd=args.cwd,
                            managed_dir=args.managed_dir, no_managed=args.no_managed, add_dirs=list(args.add_dir),
                            plugin_dirs=list(args.plugin_dir), timeout=args.timeout,
                            use_namespaces=not args.no_namespaces, keep_sandbox=args.keep_sandbox)
    report = run_verify(options, progress=None if args.json else (lambda m: print(f"verify: {m}…", file=sys.stderr)))
    if report.bad_options and not args.json:  # a usage error: nothing ran, nothing to report on stdout
        from skillmanager.commands.errors import UsageError

        raise UsageError(f"verify cannot run: {report.reason}")
    if args.json:
        json.dump(report.to_json(), out, indent=1, ensure_ascii=False)
        out.write("\n")
    else:
        for line in report.lines():
            out.write(safe_for_output(line) + "\n")
        if report.sandbox:
            out.write(f"sandbox kept: {report.sandbox}\n")
    if report.exit_code == 2:
        print(f"skillmanager: error: verify cannot run: {report.reason}", file=sys.stderr)
    return report.exit_code
