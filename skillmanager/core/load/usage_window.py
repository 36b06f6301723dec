"""How far back skill usage is counted by default; apart from usage_log so a plain listing need not import it."""
from __future__ import annotations

DEFAULT_DAYS = 30
