"""Temporary folders the app made (demo copies, smoke-test settings): removed when the app exits."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

_MADE: list[Path] = []


def register(path) -> Path:
    """Remember a folder we created under the temp dir; only such folders are ever removed."""
    path = Path(path)
    if path not in _MADE:
        _MADE.append(path)
    return path



def remove_all() -> list[Path]:
    """Delete every registered folder (best effort: a file still open elsewhere is simply left)."""
    removed = []
    temp_root = Path(tempfile.gettempdir()).resolve()
    while _MADE:
        path = _MADE.pop()
        try:
            inside = path.resolve().is_relative_to(temp_root)
        except OSError:
            inside = False
        if inside and path.exists():  # never anything outside the temp dir, whatever was registered
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
