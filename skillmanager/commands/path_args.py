"""PATH arguments of `audit` and `validate`: missing paths are usage errors, unreadable folders are said."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import UsageError


def check_paths_exist(paths: list[Path], *, denied_ok: bool = False) -> None:
    """A PATH that does not exist (or that the OS refuses, e.g. a name too long) is a usage error, and so is
    one that is neither a folder nor a regular file: reading a FIFO or a device (/dev/zero) blocks or never ends.
    `denied_ok`: a PATH the OS refuses to look at (permission denied) is left to the command, which reports
    it and goes on with the other PATHs."""
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise UsageError(f"no such file or directory: {path}") from None
        except PermissionError:
            if denied_ok:
                continue
            raise UsageError(f"{path}: permission denied") from None
        except OSError as error:
            raise UsageError(f"{path}: {error.strerror or error}") from None
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device or socket"
            raise UsageError(f"{path}: {kind}, not a file or folder; it is not read")


def unreadable_reason(path: Path) -> str | None:
    """Why a directory cannot be listed (None when it can, or is not a directory)."""
    if not path.is_dir():
        return None
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as error:
        return f"cannot read {path}: {error.strerror or error}; it was not checked"
    return None


def readable_targets(paths: list[Path], unreadable: list[str]) -> list[Path]:
    """The PATHs to check, minus folders that cannot be read (each said in `unreadable`). A skills dir
    with an unreadable skill folder inside is replaced by its readable entries, so the others are still
    checked (a folder without read/search permission would otherwise be skipped without a word)."""
    targets: list[Path] = []
    for path in paths:
        reason = unreadable_reason(path)
        if reason is not None:
            unreadable.append(reason)
            continue
        if not path.is_dir() or _has_skill_file(path):
            targets.append(path)
            continue
        children = sorted(path.iterdir())
        bad = [child for child in children
               if child.is_dir() and (unreadable_reason(child) is not None or _search_denied(child))]
        if not bad:
            targets.append(path)
            continue
        unreadable.extend(unreadable_reason(child) or f"cannot read {child}: permission denied; it was not checked"
                          for child in bad)
        targets += [child for child in children if child not in bad and (child.is_dir() or child.suffix == ".md")]
    return targets


def _has_skill_file(path: Path) -> bool:
    try:
        return (path / "SKILL.md").is_file()
    except OSError:
        return False


def _search_denied(path: Path) -> bool:
    """A folder whose entries cannot be looked up (no x permission): SKILL.md inside looks absent."""
    try:
        os.stat(path / "SKILL.md")
    except PermissionError:
        return True
    except OSError:
        return False
    return False
