"""The environment a Claude Code session runs with: the process environment, with the `env` blocks of its
configuration assigned over it.

At start-up Claude Code copies `env` from the global config (~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json),
then `env` from the merged settings (user < project < local < managed) into `process.env`, each over the last
(2.1.88 `jUK`/`xd`, 2.1.332 `applyConfigEnvironmentVariables`). So a variable set in any of those files beats
the same variable in the shell, and the highest settings scope wins. A settings value that is not a string is
turned into one (zod `coerce.string()`: `6483` → "6483"); a settings file whose `env` is not an object is rejected
whole (settings.schema_problem). The engine reads SLASH_COMMAND_TOOL_CHAR_BUDGET (listing.budget_variable) and
ANTHROPIC_MODEL (Workspace.resolved_model) through here. Observed in both releases: tests/golden/budget-env-*
(tests/oracle/record_budget_env.py; ANTHROPIC_MODEL: budget-env-model-in-settings-env).

Not modelled: a Claude Desktop host keeps the variables it launched Claude Code with (2.1.88 with
CLAUDE_CODE_ENTRYPOINT=claude-desktop; 2.1.332 `hostOrchestrated`), and `--settings` flag settings.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..js.json_parse import js_json_loads
from ..js.numbers import js_string
from .safe_read import read_regular_bytes

if TYPE_CHECKING:
    from .settings import EffectiveSettings

ENVIRONMENT = "environment"  # EnvValue.scope of a value from the process environment
GLOBAL_CONFIG = "global-config"  # … from ~/.claude.json
GLOBAL_CONFIG_MAX_BYTES = 64 * 1024 * 1024  # ~/.claude.json grows with history; past this it is not read
# `\u0020`-`\u007f`: how JSON could spell a variable name in escapes (Claude Code itself escapes only controls)
_PRINTABLE_ESCAPE = re.compile(rb"\\u00[2-7][0-9a-fA-F]")


@dataclass(frozen=True)
class EnvValue:
    """One variable as the session's `process.env` holds it, and where it was set."""

    name: str
    text: str
    scope: str  # ENVIRONMENT, GLOBAL_CONFIG or a settings scope (user, project, local, managed)
    path: Path | None = None  # the file that set it (None for the process environment)

    @property
    def where(self) -> str:
        """Plain words for where the value comes from: "your environment" or "the env block of <file>"."""
        return "your environment" if self.path is None else f"the env block of {self.path}"


def global_config_file(home: Path, env: Mapping[str, str]) -> Path:
    """getGlobalClaudeFile (2.1.88): `.claude.json` in $CLAUDE_CONFIG_DIR, else in the home directory."""
    override = env.get("CLAUDE_CONFIG_DIR")
    return Path(override) / ".claude.json" if override else Path(home) / ".claude.json"


_GLOBAL_ENV_CACHE: dict[tuple[str, str | None], tuple[tuple[int, int, int, int], dict[str, Any] | None]] = {}


def global_config_env(path: Path, wanted: str | None = None) -> dict[str, Any] | None:
    """The `env` object of the global config, or None (absent, unreadable, not JSON, no object `env`).

    The file is also Claude Code's store of per-project history and can be megabytes: when `wanted` (a variable
    name) is given and the bytes hold neither the name nor an escaped printable character (the only way JSON could
    spell it otherwise), it cannot be set there and the file is not parsed (None). Answers are kept until the file's size or times change."""
    key = (os.fspath(path), wanted)
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    cached = _GLOBAL_ENV_CACHE.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found: dict[str, Any] | None = None
    try:
        raw = read_regular_bytes(path, max_bytes=GLOBAL_CONFIG_MAX_BYTES)
    except OSError:
        raw = b""
    if raw and (wanted is None or wanted.encode() in raw or _PRINTABLE_ESCAPE.search(raw)):
        try:
            data = js_json_loads(raw.decode("utf-8", errors="replace").lstrip("\ufeff"))
        except (ValueError, RecursionError):
            data = None
        env = data.get("env") if isinstance(data, dict) else None
        found = env if isinstance(env, dict) else None
    if len(_GLOBAL_ENV_CACHE) > 8:  # a session looks at one or two files; a long-lived app keeps a few
        _GLOBAL_ENV_CACHE.clear()
    _GLOBAL_ENV_CACHE[key] = (stamp, found)
    return found


def session_env_value(name: str, env: Mapping[str, str], settings: "EffectiveSettings | None",
                      global_config: Path | None) -> EnvValue | None:
    """`process.env[name]` once Claude Code has applied its configuration's `env` blocks, or None when unset."""
    found = EnvValue(name, env[name], ENVIRONMENT) if name in env else None
    if global_config is not None:
        block = global_config_env(global_config, name)
        if block is not None and name in block:
            found = EnvValue(name, js_string(block[name]), GLOBAL_CONFIG, global_config)
    for file in settings.files if settings is not None else ():
        block = file.data.get("env") if file.data else None
        if isinstance(block, dict) and name in block:
            found = EnvValue(name, js_string(block[name]), file.scope, file.path)
    return found
