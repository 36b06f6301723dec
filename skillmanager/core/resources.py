"""Locate files shipped in the repo-root ``resources/`` folder, from a checkout or a PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_root() -> Path:
    """``sys._MEIPASS/resources`` when frozen by PyInstaller, else ``<repo>/resources``."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    # skillmanager/core/resources.py -> repo root is three levels up
    return Path(__file__).resolve().parent.parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    """Path of a shipped resource, e.g. ``resource_path("tokenizers", "claude.json")`` (existence not checked)."""
    return resources_root().joinpath(*parts)
