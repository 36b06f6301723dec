"""§8: what Claude Code re-injects about invoked skills after a compaction.

Port of services/compact/compact.ts `createSkillAttachmentIfNeeded` / `truncateToTokens` and the
`invoked_skills` case of utils/messages.ts (2.1.88): most recent first, each cut to 5,000 tokens
(estimated as round(UTF-16 length / 4)) keeping the head, 25,000 tokens in all; wrapped in a
`<system-reminder>` user message.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..js.textwidth import utf16_len, utf16_slice
from .tokens import estimate_compaction_tokens

MAX_TOKENS_PER_SKILL = 5_000  # POST_COMPACT_MAX_TOKENS_PER_SKILL
SKILLS_TOKEN_BUDGET = 25_000  # POST_COMPACT_SKILLS_TOKEN_BUDGET
TRUNCATION_MARKER = ("\n\n[... skill content truncated for compaction; use Read on the skill path if you need "
                     "the full text]")
HEADER = "The following skills were invoked in this session. Continue to follow these guidelines:"


@dataclass(frozen=True)
class InvokedSkill:
    name: str
    path: str  # the skill's path as Claude Code recorded it (SKILL.md / command file)
    content: str  # the expanded text that was injected
    invoked_at: float = 0.0  # larger = more recent


@dataclass(frozen=True)
class RestoredSkill:
    name: str
    path: str
    content: str  # possibly cut
    tokens: int
    truncated: bool


@dataclass(frozen=True)
class CompactionRestore:
    text: str  # "" when nothing is restored
    restored: list[RestoredSkill]
    dropped: list[str]  # names left out because the 25,000-token budget was used up
    tokens: int


def rough_tokens(text: str) -> int:
    """roughTokenCountEstimation: Math.round(UTF-16 length / 4), halves up (tokens.estimate_compaction_tokens)."""
    return estimate_compaction_tokens(text)


def truncate_to_tokens(content: str, max_tokens: int = MAX_TOKENS_PER_SKILL) -> str:
    if rough_tokens(content) <= max_tokens:
        return content
    budget = max_tokens * 4 - utf16_len(TRUNCATION_MARKER)
    return utf16_slice(content, budget) + TRUNCATION_MARKER


def compaction_restore(invoked: Sequence[InvokedSkill]) -> CompactionRestore:
    ordered = sorted(invoked, key=lambda s: -s.invoked_at)  # stable: equal times keep the given order
    used = 0
    restored: list[RestoredSkill] = []
    dropped: list[str] = []
    for skill in ordered:
        content = truncate_to_tokens(skill.content)
        tokens = rough_tokens(content)
        if used + tokens > SKILLS_TOKEN_BUDGET:
            dropped.append(skill.name)
            continue
        used += tokens
        restored.append(RestoredSkill(skill.name, skill.path, content, tokens, content != skill.content))
    if not restored:
        return CompactionRestore("", [], dropped, 0)
    body = "\n\n---\n\n".join(f"### Skill: {s.name}\nPath: {s.path}\n\n{s.content}" for s in restored)
    text = f"<system-reminder>\n{HEADER}\n\n{body}\n</system-reminder>"
    return CompactionRestore(text, restored, dropped, used)
