"""What the preview shows for a skill: its body as invoking it would inject it, with a plain banner when
Claude Code would refuse the model's call or ask first, and the inline shell commands it holds (their audit
verdicts are added by checks.shell_verdicts, which may import this module).

`skillmanager expand` keeps printing Claude Code's own answer (expansion.expand); this view is for people
reading a skill: the body is always there, and the exact refusal text stays one click away (`refusal`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import expansion
from .arguments import ArgumentsTooLong
from ..model import Skill
from ..versions.profiles import Profile
from .inline_shell import ShellSnippet, find_inline_shell

if TYPE_CHECKING:
    from ..rules.registry import Registry


@dataclass
class ExpansionView:
    name: str
    body: str = ""  # the injected text (or the raw body when nobody may invoke the skill)
    banner: str | None = None  # plain words: refused / asks first / never reaches the model
    refusal: str | None = None  # Claude Code's exact answer to the model's call, when it is not the body
    launch_line: str | None = None
    notes: list[str] = field(default_factory=list)
    snippets: list[ShellSnippet] = field(default_factory=list)  # inline shell in the body, in order
    shell: list[Any] = field(default_factory=list)  # checks.shell_verdicts.ShellVerdict per snippet
    argument_hint: str = ""
    result: expansion.ExpansionResult | None = None  # what the body came from
    reaches_model: bool = True
    call: str = "model"  # how the body was expanded: model | allowed (after the permission question) | user | none


def _kind(refusal: str, name: str, profile: Profile) -> str:
    if refusal == expansion.DENY_TEXT:
        return "deny"
    if refusal == expansion.OVERRIDE_TEXT.format(name=name):
        return "override"
    if refusal == expansion._dmi_text(name, profile):
        return "hidden"
    if refusal.startswith("Execute skill:"):
        return "ask"
    return "other"


_BANNERS = {
    "deny": "Claude cannot run this skill: a permission rule (permissions.deny) refuses the model's call. Below is "
            "what typing /{name} yourself injects.",
    "override": "Turned off for Claude in skillOverrides: the model's call is refused. Below is what typing "
                "/{name} yourself injects.",
    "hidden": "Hidden from Claude (disable-model-invocation): the model's call is refused. Below is what typing "
              "/{name} yourself injects.",
    "ask": "Claude Code asks you first: this skill pre-approves tools or sets hooks, so the model's call waits for "
           "your permission. Below is what it injects once you allow it.",
    "other": "Claude Code refuses the model's call. Below is what typing /{name} yourself injects.",
}


def expansion_view(registry: Registry, skill: Skill, args: str = "") -> ExpansionView:
    """The preview of `skill` (a registry Skill) called by the model with `args`."""
    name = skill.name
    profile = registry.profile
    view = ExpansionView(name, argument_hint=str((skill.front_matter or {}).get("argument-hint") or ""))
    model_call = expansion.expand(registry, name, args=args)
    chosen = model_call
    if model_call.refusal:
        view.refusal = model_call.refusal
        kind = _kind(model_call.refusal, name, profile)
        if kind == "ask":
            chosen = expansion.expand(registry, name, args=args, assume_allowed=True)
            view.call = "allowed"
        else:
            chosen = expansion.expand(registry, name, args=args, as_user=True)
            view.call = "user"
        if chosen.refusal and skill.state.conditional and skill.paths:
            return _waiting(view, registry, skill, args)
        if chosen.refusal:  # nobody may invoke it: the raw body, which never reaches the model
            view.banner = ("Nobody can invoke this skill (Claude's call and /{name} are both refused), so this text "
                           "never reaches the model. It is shown raw, as written in the file.").format(name=name)
            view.body = skill.body or ""
            view.reaches_model = False
            view.call = "none"
            view.result = chosen
            return view
        view.banner = _BANNERS[kind].format(name=name)
    view.result = chosen
    view.launch_line = chosen.launch_line
    view.notes = list(chosen.notes)
    if chosen.block is None and chosen.refusal is None:  # bundled: Anthropic's text is not reproduced
        view.body = ""
    else:
        view.body = chosen.block or ""
    view.snippets = list(chosen.shell_snippets)
    return view


def _waiting(view: ExpansionView, registry: Registry, skill: Skill, args: str) -> ExpansionView:
    """A `paths:` skill no file has activated yet: unknown to Claude Code until then; this is what it injects after."""
    import uuid

    patterns = ", ".join(f"`{p}`" for p in skill.paths or [])
    view.call = "none"
    view.banner = (f"Waiting: Claude Code does not know {skill.name} until a file matching {patterns} is read, "
                   "edited or written in the session. Below is what it injects once that happens.")
    notes: list[str] = []
    try:
        view.body = expansion.expansion_text(skill, args, registry.profile, session_id=str(uuid.uuid4()),
                                             project_dir=str(registry.workspace.cwd), notes=notes)
    except ArgumentsTooLong as error:
        view.body = str(error)
    view.notes = notes
    view.snippets = find_inline_shell(view.body)
    return view
