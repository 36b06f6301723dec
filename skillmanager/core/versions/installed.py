"""The Claude Code installed on this machine: its `--version` and the release's features the engine uses."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from .profiles import Profile, installed_profile


@dataclass(frozen=True)
class InstalledClaude:
    exe: str | None  # None: not found
    version_text: str = ""  # what `claude --version` printed
    profile: Profile | None = None  # the features and values of that release
    note: str = ""  # a plain sentence: not found, could not run, or how well that release is known
    error: str | None = None


def detect_installed_claude(exe: str | None = None, timeout: float = 20) -> InstalledClaude:
    """Run `exe --version` (default: `claude` on PATH); never raises. Slow: keep it off a UI thread."""
    exe = exe or shutil.which("claude")
    if not exe:
        return InstalledClaude(None, note="Claude Code was not found on PATH")
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return InstalledClaude(exe, note=f"{exe} could not be run ({error})", error=str(error))
    text = (done.stdout or done.stderr).strip()
    profile, note = installed_profile(text)
    return InstalledClaude(exe, text, profile, note or "")


LOOKING = "Looking for Claude Code on this computer…"


def shown_sentence(found: InstalledClaude | None, shown: Profile | None) -> str:
    """One plain sentence: which Claude Code is installed and whose behaviour the app shows.

    `found` None: detection still running. `shown`: the release whose rules the workspace applies."""
    if found is None:
        return LOOKING
    what = f"Claude Code {shown.version_text}" if shown is not None else "the default Claude Code"
    if found.exe is None:
        return f"Claude Code was not found on this computer — showing what {what} does"
    if found.error is not None:
        return f"Claude Code was found but could not be run — showing what {what} does"
    if found.profile is None:
        return f"Claude Code was found but its version could not be read — showing what {what} does"
    installed = found.profile.version_text
    if shown is None or shown.version == found.profile.version:
        return f"Claude Code {installed} found — showing what it does"
    return f"Claude Code {installed} found — showing what {what} does (change it under Advanced)"
