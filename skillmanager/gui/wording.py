"""Plain-words sentences for what the engine decided (presentation only: no rule is decided here)."""
from __future__ import annotations

from pathlib import Path

from skillmanager.core.layers.listing_words import cut_reason_words
from skillmanager.core.model import Invoker, Listed, Severity, Skill
from skillmanager.gui import states


def short_path(path: Path | None, home: Path | None = None) -> str:
    if path is None:
        return ""
    if home is not None:
        try:
            return "~/" + str(Path(path).relative_to(home))
        except ValueError:
            pass
    return str(path)


def state_sentence(skill: Skill, entry=None, tokens: int = 0, home: Path | None = None, outcome=None) -> str:
    """The first line of the detail pane: what Claude sees of this skill, and why (`outcome`: core's
    ListingOutcome, whose sentence says what the listing really carries)."""
    state = skill.state
    visual = states.visual_state(skill, entry, outcome)
    if visual is states.Visual.INVALID:
        first = next((d.message for d in skill.diagnostics if d.severity is Severity.ERROR), "")
        return f"Invalid — {first}" if first else "Invalid — the file could not be read as a skill"
    if visual is states.Visual.SHADOWED:
        winner = state.shadowed_by or state.duplicate_of
        if state.duplicate_of is not None and state.shadowed_by is None:
            return (f"Duplicate — the same file was already loaded as the {winner.source.label.lower()} skill "
                    f"“{winner.name}”{_where(winner, home)}")
        reason = f" ({state.shadow_reason})" if state.shadow_reason else ""
        return (f"Shadowed by the {winner.source.label.lower()} {winner.kind} “{winner.name}”"
                f"{_where(winner, home)}{reason}")
    if visual is states.Visual.CONDITIONAL:
        patterns = ", ".join(f"`{p}`" for p in (skill.paths or []))
        return f"Waiting: activates when a file matching {patterns} is touched"
    parts = []
    if visual is states.Visual.BLOCKED:
        rule = state.deny_decision
        where = f" ({rule.rule} in {short_path(rule.file, home)})" if rule and rule.file else ""
        parts.append(f"Blocked — Claude cannot invoke it because of a deny rule{where}, but it is still listed"
                     if state.listed is not Listed.NO else f"Blocked{where}")
    elif visual is states.Visual.OFF:
        parts.append("Off — neither listed to Claude nor callable"
                     + (f" ({state.invocable_reason.rstrip('.')})" if state.invocable_reason else ""))
    elif visual is states.Visual.HIDDEN:
        parts.append("Hidden from Claude — not listed to the model"
                     + (f" ({state.listed_reason})" if state.listed_reason else ""))
        if state.invocable_by in (Invoker.USER, Invoker.BOTH):
            parts.append(f"you can still run /{skill.name}")
    elif outcome is not None and visual in (states.Visual.ACTIVE, states.Visual.SHORTENED, states.Visual.NAME_ONLY):
        parts.append(outcome.reason.rstrip("."))
    elif visual is states.Visual.NAME_ONLY:
        parts.append("Name only — Claude sees just its name"
                     + (f" ({state.listed_reason})" if state.listed_reason else ""))
    else:
        parts.append("Listed — the model sees its name and description")
    if entry is not None and visual is not states.Visual.HIDDEN:
        if tokens:
            parts.append(f"≈{tokens} tokens in the listing")
        if entry.cut and entry.reasons and outcome is None:
            parts.append(cut_reason_words(entry.reasons))
    if state.activated_by:
        pattern, path = state.activated_by
        parts.append(f"activated by {path} (matches `{pattern}`)")
    if not skill.user_invocable or state.invocable_by is Invoker.MODEL:
        parts.append("not offered to you as a /command")
    sentence = ", ".join(parts)
    error = next((d.message for d in skill.diagnostics if d.severity is Severity.ERROR), "")
    if error:  # still in play despite the error (e.g. front matter that does not parse)
        sentence += f". But: {error}"
    return sentence


def _where(skill: Skill, home: Path | None) -> str:
    root = skill.source_root or (skill.path.parent if skill.path else None)
    return f" in {short_path(root, home)}" if root else ""


def source_sentence(skill: Skill, home: Path | None = None) -> str:
    text = skill.source.label
    if skill.plugin:
        text += f" “{skill.plugin}”"
    if skill.mcp_server:
        text += f" (server {skill.mcp_server})"
    if skill.source_root is not None:
        text += f" — {short_path(skill.source_root, home)}"
    return text
