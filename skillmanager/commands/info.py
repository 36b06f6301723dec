"""`skillmanager info`: the installed Claude Code's version and the profile it maps to."""
from __future__ import annotations

import argparse
from typing import TextIO

from skillmanager.core.versions.installed import detect_installed_claude
from skillmanager.core.versions.profiles import get_profile

from .common import add_workspace_options, workspace_from_args

NAME = "info"
HELP = "show the installed Claude Code version (if `claude` is on PATH) and the profile it maps to"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude", metavar="PATH", help="the claude executable to ask (default: `claude` on PATH)")
    add_workspace_options(parser)  # accepted (and checked) like every command; the answer does not use them


def run(args: argparse.Namespace, out: TextIO) -> int:
    workspace_from_args(args)  # a missing or unreadable --home / --cwd is a usage error here too
    found = detect_installed_claude(args.claude)
    if found.exe is None:
        out.write("Claude Code: not found on PATH; use --profile legacy|current explicitly (default: current).\n")
        return 0
    if found.error is not None:
        out.write(f"Claude Code: {found.note}.\n")
        return 0
    out.write(f"Claude Code: {found.version_text} ({found.exe})\n")
    if found.profile:
        out.write(f"Profile: {found.profile} — {get_profile(found.profile).family}\n")
    if found.note and not found.note.startswith("preset from"):
        out.write(f"Warning: {found.note}\n")
    return 0
