"""Where skillmanager keeps its own files (backups of the files a toggle changed).

Never beside the user's files: a `.bak` next to a settings file would get committed.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

APP_NAME = "skillmanager"
DATA_DIR_ENV = "SKILLMANAGER_DATA_DIR"


def app_data_dir(env: Mapping[str, str] | None = None, platform: str | None = None,
                 home: Path | None = None) -> Path:
    """The per-user data dir: $SKILLMANAGER_DATA_DIR if set (tests use a tmp dir), else
    Linux/BSD `$XDG_DATA_HOME/skillmanager` (default `~/.local/share/skillmanager`),
    macOS `~/Library/Application Support/skillmanager`, Windows `%APPDATA%\\skillmanager`.
    Not created here: writers create it when they first need it."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    override = env.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    home = home or Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    if platform.startswith("win"):
        appdata = env.get("APPDATA")
        return (Path(appdata) if appdata else home / "AppData" / "Roaming") / APP_NAME
    xdg = env.get("XDG_DATA_HOME")
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share"
    return base / APP_NAME


def new_private_file(directory: str | os.PathLike[str], prefix: str, suffix: str = ".tmp") -> tuple[int, str]:
    """(descriptor, path) of a new file in `directory` only this user can read, under a random name, opened to
    write: what tempfile.mkstemp gives, without importing tempfile (with random and shutil, ~4 ms of a command
    that writes its caches)."""
    flags = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0))
    for _attempt in range(100):
        path = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")
