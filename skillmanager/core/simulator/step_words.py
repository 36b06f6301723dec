"""A simulated step in plain sentences: what was discovered, skipped (and by which rule), activated, clashed.

The simulator page shows these under each step and a one-line headline in its timeline; the wording
lives here so that the page only renders it. Every fact comes from a session.StepResult.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .session import TRIGGER_OPS


@dataclass(frozen=True)
class Sentence:
    kind: str  # discovered | skipped | activated | clashed | nothing | assumed | diagnostic
    text: str


def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def step_sentences(result: Any) -> list[Sentence]:
    out: list[Sentence] = []
    if result.assumed:
        out.append(Sentence("assumed", f"Assumed: {result.assumed}."))
    offered: dict[str, list[str]] = {}
    for new in result.new_skills:
        if new.how == "discovered" and new.rel_dir is not None:
            offered.setdefault(new.rel_dir, []).append(new.name)
    for skills_dir in result.discovered_dirs:
        holder = skills_dir[:-len("/.claude/skills")] if skills_dir.endswith("/.claude/skills") else skills_dir
        names = offered.get(holder, [])
        if names:
            verb = "is" if len(names) == 1 else "are"
            out.append(Sentence("discovered", f"Discovered {skills_dir}: {_names(names)} {verb} now offered to "
                                              "the model."))
        else:
            out.append(Sentence("discovered", f"Discovered {skills_dir}, but it adds nothing the model is told "
                                              "about (see the clashes below, or its skills are hidden)."))
    for ignored in result.ignored_dirs:
        rule = (f"{ignored.source_file}:{ignored.line_no} (`{ignored.pattern}`)" if ignored.source_file
                else "an ignore rule")
        out.append(Sentence("skipped", f"Skipped {ignored.rel_dir}/.claude/skills: git ignores {ignored.rel_dir} "
                                       f"by {rule}, so Claude Code does not load its skills."))
    for activation in result.activated:
        again = " again" if activation.repeat else ""
        how = (f", offered as {activation.listed_as}" if activation.listed_as and
               activation.listed_as != activation.skill.name else "")
        tail = "" if activation.listed_as else " It is not offered: a skill of that name is already there."
        out.append(Sentence("activated", f"Activated{again} {activation.skill.name}{how}: its paths: pattern "
                                         f"`{activation.pattern}` matches {activation.rel_path}.{tail}"))
    for clash in result.clashes:
        out.append(Sentence("clashed", f"Name clash on {clash.name}: {clash.text}."))
    for diagnostic in result.diagnostics:
        out.append(Sentence("diagnostic", f"{diagnostic.severity.value.capitalize()}: {diagnostic.message}"))
    if not any(s.kind in ("discovered", "skipped", "activated", "clashed") for s in out):
        if result.triggers_nothing_reason:
            out.append(Sentence("nothing", f"Nothing new: {result.triggers_nothing_reason}."))
        elif result.step.op in TRIGGER_OPS:
            out.append(Sentence("nothing", "Nothing new: no new .claude/skills folder between this file and the "
                                           "project folder, and no waiting paths: pattern matches it."))
    return out


def step_headline(result: Any, relative: Callable[[str], str] | None = None) -> str:
    """One timeline line: "2. Read vendor/x.js — skipped 1 ignored folder (.gitignore:4)"."""
    path = result.rel_path or result.step.path
    if relative is not None and result.abs_path:
        path = relative(result.abs_path)
    parts = []
    discovered = [n for n in result.new_skills if n.how == "discovered"]
    if discovered:
        parts.append(f"{len(discovered)} skill{'' if len(discovered) == 1 else 's'} discovered")
    elif result.discovered_dirs:
        parts.append(f"{len(result.discovered_dirs)} skills folder{'' if len(result.discovered_dirs) == 1 else 's'} "
                     "found")
    if result.ignored_dirs:
        first = result.ignored_dirs[0]
        where = f" ({first.source_file}:{first.line_no})" if first.source_file else ""
        count = len(result.ignored_dirs)
        parts.append(f"skipped {count} ignored folder{'' if count == 1 else 's'}{where}")
    if result.activated:
        parts.append(f"{len(result.activated)} activated")
    if result.clashes:
        parts.append(f"{len(result.clashes)} clash{'' if len(result.clashes) == 1 else 'es'}")
    if not parts:
        parts.append("nothing new" + (" (" + result.triggers_nothing_reason.split(":")[0].split(" (")[0] + ")"
                                      if result.triggers_nothing_reason else ""))
    return f"{result.index}. {result.step.op} {path} — {', '.join(parts)}"


@dataclass(frozen=True)
class ListingPart:
    text: str
    step: int | None  # None: the start-up listing; else the step whose tool result carried it


def listing_before_after(startup_text: str, results: Any) -> list[ListingPart]:
    """The listing as the model has it after the session: the start-up text, then what each step added (the
    exact text each step's tool result or system messages carried)."""
    parts = [ListingPart(startup_text, None)]
    for result in results:
        if result.model_text:
            parts.append(ListingPart(result.model_text if result.model_text.startswith("\n")
                                     else "\n\n" + result.model_text, result.index))
    return parts
