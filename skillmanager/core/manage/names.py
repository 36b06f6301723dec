"""Which folder names a skill can be given (the folder name is the name Claude Code invokes it by)."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_NAME_BYTES = 255


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a skill folder name, or None. Style rules (lower case, hyphens, 64
    characters) are the validator's business: Claude Code loads other names too."""
    if not name or not name.strip():
        return "an empty name"
    if name in (".", "..") or name.startswith("."):
        return "a name starting with `.` (a hidden folder; Claude Code would not show it as intended)"
    if "/" in name or "\\" in name:
        return "a name with a `/` or `\\` (it would be a path, not a folder name)"
    if ":" in name:
        return "a name with `:` (Claude Code uses `:` for plugin and nested-command names)"
    if _CONTROL.search(name):
        return "a name with control characters"
    if name != name.strip():
        return "a name with leading or trailing spaces"
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        return f"a name longer than {MAX_NAME_BYTES} bytes"
    return None
