"""`skillmanager info`: the installed Claude Code's version and the profile it maps to."""
from __future__ import annotations

import argparse
import shutil
import subprocess
from typing import TextIO

from skillmanager.core.versions.profiles import DEFAULT_PROFILE, installed_profile

NAME = "info"
HELP = "show the installed Claude Code version (if `claude` is on PATH) and the profile it maps to"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude", metavar="PATH", help="the claude executable to ask (default: `claude` on PATH)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    exe = args.claude or shutil.which("claude")
    if not exe:
        out.write(f"Claude Code: not found on PATH; use --profile legacy|current or --claude-version X.Y.Z (default: {DEFAULT_PROFILE}).\n")
        return 0
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20)
        text = (done.stdout or done.stderr).strip()
    except (OSError, subprocess.SubprocessError) as error:
        out.write(f"Claude Code: {exe} could not be run ({error}).\n")
        return 0
    profile, note = installed_profile(text)
    out.write(f"Claude Code: {text} ({exe})\n")
    if profile is not None:
        alias = f" (--profile {profile.alias})" if profile.alias else ""
        out.write(f"Profile: Claude Code {profile.version_text}{alias} — {profile.family}; "
                  f"{len(profile.features)} named features; other commands: --claude-version {profile.version_text}\n")
    if note:
        out.write(f"Note: {note}\n")
    return 0
