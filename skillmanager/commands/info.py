"""`skillmanager info`: the installed Claude Code's version and the profile it maps to."""
from __future__ import annotations

import argparse
import shutil
import subprocess
from typing import TextIO

from skillmanager.core.versions.profiles import get_profile, profile_for_version

from .common import add_workspace_options, workspace_from_args

NAME = "info"
HELP = "show the installed Claude Code version (if `claude` is on PATH) and the profile it maps to"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude", metavar="PATH", help="the claude executable to ask (default: `claude` on PATH)")
    add_workspace_options(parser)  # accepted (and checked) like every command; the answer does not use them


def run(args: argparse.Namespace, out: TextIO) -> int:
    workspace_from_args(args)  # a missing or unreadable --home / --cwd is a usage error here too
    exe = args.claude or shutil.which("claude")
    if not exe:
        out.write("Claude Code: not found on PATH; use --profile legacy|current explicitly (default: current).\n")
        return 0
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20)
        text = (done.stdout or done.stderr).strip()
    except (OSError, subprocess.SubprocessError) as error:
        out.write(f"Claude Code: {exe} could not be run ({error}).\n")
        return 0
    name, warning = profile_for_version(text)
    out.write(f"Claude Code: {text} ({exe})\n")
    if name:
        out.write(f"Profile: {name} — {get_profile(name).family}\n")
    if warning:
        out.write(f"Warning: {warning}\n")
    return 0
