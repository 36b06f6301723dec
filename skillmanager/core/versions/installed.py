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
