"""The exact text a simulated step sends to the model (spec §3 "later turns", §5).

A thin adapter over listing.py: legacy goes through `render_delta` unchanged; current builds its
"New skills discovered" blocks here because render_delta orders a block's names scoped-first, while
the real CLI lists them in readdir order (sim-subdir-cwd: `pkg-skill` before `pkg:sub-clash`), and
because a re-scoped earlier skill (sim-symlink) has no DiscoveredDir of this step to live in.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ..layers.listing import REMINDER, SYSTEM, SettingsLike, budget_facts, entry_from_skill, format_listing, nested_entry, render_delta
from ..load.session_env import EnvValue
from ..model import Skill
from ..versions.profiles import Profile

TOOL_RESULT = "tool_result"  # appended to the tool_result text as `\n\n<system-reminder>…</system-reminder>`
SYSTEM_MESSAGES = "system"  # one role=system message per block


@dataclass
class ModelText:
    text: str = ""  # what the model receives; "" = nothing
    placement: str | None = None
    messages: list[str] = field(default_factory=list)  # the blocks, unwrapped (system-message placement)


def render_legacy(new_skills: Sequence[Skill], profile: Profile, *, model: str | None, context_window: int | None,
                  budget: int | None, settings: SettingsLike, variable: EnvValue | None = None) -> ModelText:
    """2.1.88: the `skill_listing` attachment of the not-yet-sent names, formatted within the budget
    (src/utils/attachments.ts getSkillListingAttachments), as a reminder appended to the tool result."""
    if not new_skills:
        return ModelText()
    delta = render_delta(profile, new_entries=[entry_from_skill(s) for s in new_skills], model=model,
                         context_window=context_window, budget=budget, settings=settings, variable=variable)
    if not delta.tool_result_suffix:
        return ModelText()
    return ModelText(delta.tool_result_suffix, TOOL_RESULT, [b for b in delta.blocks])


def render_current(blocks: Sequence[tuple[str, list[str]]], offers: Sequence[Any], profile: Profile, *,
                   model: str | None, context_window: int | None, budget: int | None, settings: SettingsLike,
                   variable: EnvValue | None = None) -> ModelText:
    """2.1.3xx: a `dynamic_skill` block per dir found now, then one listing of the new entries.

    `blocks`: (dir relative to the cwd, names as offered) deepest first. `offers`: the new entries in
    listing order, each with .name, .skill, .rel_dir, .scoped, .unscoped_exists (session._Offer)."""
    inner = [f"New skills discovered in {rel}/.claude/skills, now available via the Skill tool:\n"
             + "\n".join(f"- {n}" for n in names) for rel, names in blocks if names]
    facts = budget_facts(profile, model=model, context_window=context_window, budget=budget, settings=settings,
                         variable=variable)
    entries = []
    for offer in offers:
        if offer.skill.disable_model_invocation:
            continue  # offered to the user, but not listed for the model
        entry = entry_from_skill(offer.skill)
        if offer.rel_dir is not None:
            entry = nested_entry(entry, offer.rel_dir, offer.unscoped_exists)
            if offer.scoped and not offer.unscoped_exists:  # nested-vs-nested clash: scoped name, `from` suffix
                entry = replace(entry, name=offer.name, display_name=offer.name)
        entries.append(entry)
    if entries:
        listing = format_listing(entries, profile, facts, settings=settings, model=model, placement=SYSTEM)
        inner.append(listing.text)
    if not inner:
        return ModelText()
    if facts.placement == REMINDER:
        text = "".join(f"\n\n<system-reminder>\n{b}\n</system-reminder>" for b in inner)
        return ModelText(text, TOOL_RESULT, list(inner))
    return ModelText("\n\n".join(inner), SYSTEM_MESSAGES, list(inner))
