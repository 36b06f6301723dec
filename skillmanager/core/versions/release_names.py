"""The names of the two studied releases, apart from profiles.py so the CLI can offer them as choices
without importing the release data (a replayed `listing` needs no more)."""
from __future__ import annotations

LEGACY = "legacy"  # 2.1.88, the last readable cli.js
CURRENT = "current"  # 2.1.332, the native binary
PROFILE_NAMES = (LEGACY, CURRENT)
DEFAULT_PROFILE = CURRENT  # what a workspace uses when nothing names a release
