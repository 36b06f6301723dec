"""The audit's verdict on each inline shell command a skill would run (for the preview's folded list)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..layers.expansion_view import ExpansionView, expansion_view
from ..layers.inline_shell import ShellSnippet
from .audit_base import LEVELS
from .audit_commands import command_hits


@dataclass(frozen=True)
class ShellVerdict:
    command: str
    line: int
    severity: str | None  # worst audit level when the command runs (None: no finding)
    verdict: str  # "no audit finding" or "critical: downloads code and pipes it to a shell or interpreter"


def shell_verdicts(snippets: Sequence[ShellSnippet]) -> list[ShellVerdict]:
    out = []
    for snippet in snippets:
        hits = command_hits(snippet.command)
        if not hits:
            out.append(ShellVerdict(snippet.command, snippet.line, None, "no audit finding"))
            continue
        worst = max(hits, key=lambda h: LEVELS.index(h.executed) if h.executed in LEVELS else 0)
        out.append(ShellVerdict(snippet.command, snippet.line, worst.executed, f"{worst.executed}: {worst.message}"))
    return out


def worst_level(verdicts: Sequence[ShellVerdict]) -> str | None:
    levels = [v.severity for v in verdicts if v.severity in LEVELS]
    return max(levels, key=LEVELS.index) if levels else None


def preview_expansion(registry: Any, skill: Any, args: str = "") -> ExpansionView:
    """expansion_view with each shell command's verdict (what the preview page shows)."""
    view = expansion_view(registry, skill, args)
    view.shell = shell_verdicts(view.snippets)
    return view
