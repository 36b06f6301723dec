"""What an install would do, computed before anything is written.

The workspace is loaded twice with the same registry and listing code the rest of the app uses: as it is,
and with the staged skill folders standing in the target skills dir as the entries they would become
(`Workspace.staged_skills`). The difference is the preview: validation (Agent Skills + Claude Code lint),
the audit findings, the start-up listing before/after (new entries, shortened descriptions, budget), and
every name clash the new skills create or lose.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..checks.audit import SkillAudit, audit_skill, level_index
from ..checks.validate import AGENTSKILLS, CLAUDE_CODE, validate_paths
from ..layers.listing import ListingResult, build_listing
from ..load.sources import project_levels_up_to_home
from ..load.workspace import Workspace
from ..model import Diagnostic
from ..rules.registry import Registry, load_registry
from ..versions.profiles import Profile
from .names import name_problem

PERSONAL, PROJECT = "personal", "project"
BLOCKING, CONFIRMING = "critical", "high"  # audit severities that block / need a confirmation


class TargetError(ValueError):
    """A `--to` that cannot be used, in one line."""


@dataclass(frozen=True)
class Target:
    skills_dir: Path
    label: str  # "personal" | "project" | "nested package" | "add-dir" | "folder"
    at_startup: bool  # Claude Code loads this skills dir when the session starts (cwd and upward, home, …)

    def to_json(self) -> dict[str, Any]:
        return {"skills_dir": str(self.skills_dir), "label": self.label, "at_startup": self.at_startup}


def startup_skill_dirs(workspace: Workspace) -> dict[str, str]:
    """normalised skills dir -> label, for every skills dir read when a session starts."""
    dirs = {os.path.normpath(workspace.config_home / "skills"): PERSONAL}
    for level in project_levels_up_to_home(workspace.cwd, workspace.home):
        dirs.setdefault(os.path.normpath(level / ".claude" / "skills"), PROJECT)
    for add_dir in workspace.add_dirs:
        dirs.setdefault(os.path.normpath(add_dir / ".claude" / "skills"), "add-dir")
    return dirs


def resolve_target(workspace: Workspace, to: str | os.PathLike[str] | None) -> Target:
    """`personal` (<config home>/skills, CLAUDE_CONFIG_DIR honoured), `project` (<cwd>/.claude/skills), or a
    directory: a `skills` folder as given, anything else is a package whose `.claude/skills` is used."""
    to = PERSONAL if to is None else to
    if to == PERSONAL:
        skills_dir = workspace.config_home / "skills"
    elif to == PROJECT:
        skills_dir = workspace.cwd / ".claude" / "skills"
    else:
        path = Path(to).expanduser()
        path = path if path.is_absolute() else workspace.cwd / path
        path = Path(os.path.normpath(path))
        if path.exists() and not path.is_dir():
            raise TargetError(f"--to {to}: not a directory")
        skills_dir = path if path.name == "skills" else path / ".claude" / "skills"
    skills_dir = Path(os.path.normpath(skills_dir))
    known = startup_skill_dirs(workspace)
    label = known.get(str(skills_dir))
    if label is not None:
        return Target(skills_dir, label, True)
    inside_project = str(skills_dir).startswith(str(workspace.cwd).rstrip(os.sep) + os.sep)
    return Target(skills_dir, "nested package" if inside_project else "folder", False)


@dataclass
class PlannedSkill:
    name: str
    staged_dir: Path
    dest: Path
    source_rel: str = "."
    replaces: bool = False  # an update: the folder exists and is replaced
    validation: list[Diagnostic] = field(default_factory=list)
    audit: SkillAudit | None = None

    @property
    def worst(self) -> str | None:
        return self.audit.max_severity if self.audit else None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "dest": str(self.dest), "source": self.source_rel, "replaces": self.replaces,
                "validation": [d.to_json() for d in self.validation],
                "audit": self.audit.to_json() if self.audit else None}


@dataclass
class ListingDelta:
    before: ListingResult
    after: ListingResult
    added: list[str]  # names newly in the listing
    removed: list[str]  # names no longer in it (pushed out or shadowed)
    shortened: list[tuple[str, str, str]]  # (name, shown before, shown after) for entries cut shorter
    changed: list[tuple[str, str, str]]  # other entries whose shown text changed

    def to_json(self) -> dict[str, Any]:
        b, a = self.before.totals, self.after.totals
        return {"added": self.added, "removed": self.removed,
                "shortened": [{"name": n, "before": x, "after": y} for n, x, y in self.shortened],
                "changed": [{"name": n, "before": x, "after": y} for n, x, y in self.changed],
                "budget": a.budget, "used_before": b.used, "used_after": a.used,
                "level_before": b.level, "level_after": a.level,
                "text_before": self.before.text, "text_after": self.after.text}


@dataclass
class InstallPreview:
    target: Target
    skills: list[PlannedSkill]
    delta: ListingDelta | None  # None when the target is not read at start-up
    clashes: list[str]
    refusals: list[str]  # reasons the install cannot go ahead at all (name taken, bad name)
    notes: list[str] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)  # kind, location, commit

    @property
    def worst(self) -> str | None:
        levels = [s.worst for s in self.skills if s.worst]
        return max(levels, key=level_index, default=None)

    @property
    def gate(self) -> str:
        """'refused' | 'blocked' (a critical finding: --force) | 'confirm' (a high one: --yes) | 'ok'."""
        if self.refusals:
            return "refused"
        worst = self.worst
        if worst is not None and level_index(worst) >= level_index(BLOCKING):
            return "blocked"
        if worst is not None and level_index(worst) >= level_index(CONFIRMING):
            return "confirm"
        return "ok"

    def gate_reason(self) -> str:
        gate = self.gate
        if gate == "refused":
            return " ".join(self.refusals)
        findings = [f for s in self.skills if s.audit for f in s.audit.findings
                    if level_index(f.severity) >= level_index(CONFIRMING)]
        listed = "; ".join(f"{f.severity} {f.rule} ({f.file.name}:{f.line}): {f.message}" for f in findings[:5])
        if gate == "blocked":
            return f"Blocked by a critical audit finding: {listed}. Installing anyway needs an explicit override."
        if gate == "confirm":
            return f"A high audit finding needs a confirmation: {listed}."
        return ""

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target.to_json(), "source": self.source, "gate": self.gate,
                "gate_reason": self.gate_reason(), "worst": self.worst,
                "skills": [s.to_json() for s in self.skills], "clashes": self.clashes, "refusals": self.refusals,
                "notes": self.notes, "listing": self.delta.to_json() if self.delta else None}


def _validation(skill_dir: Path, profile: Profile) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for standard in (AGENTSKILLS, CLAUDE_CODE):
        report = validate_paths([skill_dir], standard=standard, profile=profile)
        for skill_report in report.reports:
            out += [dataclasses.replace(d, code=f"{standard}:{d.code}") for d in skill_report.findings]
    return out


def _is_empty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    except OSError:
        return False


def listing_delta(before: ListingResult, after: ListingResult) -> ListingDelta:
    old = {e.name: e for e in before.entries}
    new = {e.name: e for e in after.entries}
    added = [n for n in new if n not in old]
    removed = [n for n in old if n not in new]
    shortened: list[tuple[str, str, str]] = []
    changed: list[tuple[str, str, str]] = []
    for name, entry in new.items():
        prior = old.get(name)
        if prior is None or prior.shown_text == entry.shown_text:
            continue
        bucket = shortened if len(entry.shown_text) < len(prior.shown_text) else changed
        bucket.append((name, prior.shown_text, entry.shown_text))
    return ListingDelta(before, after, added, removed, shortened, changed)


def _clash_lines(after: Registry, new_paths: set[str]) -> list[str]:
    lines = []
    for conflict in after.conflicts():
        everyone = [conflict.winner] + [s for s, _ in conflict.losers]
        if not any(str(s.path) in new_paths for s in everyone):
            continue
        winner = conflict.winner
        for loser, reason in conflict.losers:
            if str(winner.path) in new_paths:
                lines.append(f"`{conflict.name}`: the new skill ({winner.path}) shadows the {loser.source.value} "
                             f"copy {loser.path or loser.name}. {reason}".strip())
            elif str(loser.path) in new_paths:
                lines.append(f"`{conflict.name}`: the new skill ({loser.path}) is shadowed by the "
                             f"{winner.source.value} copy {winner.path or winner.name}. {reason}".strip())
    return lines


def preview_install(workspace: Workspace, target: Target, picks: Sequence[tuple[str, Path, str]], *,
                    replacing: bool = False, source: dict[str, Any] | None = None,
                    before: Registry | None = None) -> InstallPreview:
    """picks: (name, staged folder, folder in the source). `replacing`: the folders may exist (update)."""
    planned: list[PlannedSkill] = []
    refusals: list[str] = []
    for name, staged_dir, rel in picks:
        dest = target.skills_dir / name
        problem = name_problem(name)
        if problem:
            refusals.append(f"`{name}`: {problem}")
        exists = os.path.lexists(dest) and not _is_empty_dir(dest)
        if exists and not replacing:
            refusals.append(f"{dest} already exists; rename or remove it first (or pick another target).")
        plan = PlannedSkill(name, staged_dir, dest, rel, replaces=exists and replacing)
        plan.validation = _validation(staged_dir, workspace.profile)
        plan.audit = audit_skill(staged_dir / "SKILL.md", name=name)
        planned.append(plan)
    notes: list[str] = []
    delta = None
    clashes: list[str] = []
    if target.at_startup:
        before = before or load_registry(workspace)
        staged = {str(target.skills_dir): {p.name: p.staged_dir for p in planned}}
        after_ws = dataclasses.replace(workspace, staged_skills=staged)
        after = load_registry(after_ws)
        delta = listing_delta(build_listing(before), build_listing(after))
        clashes = _clash_lines(after, {str(p.dest / "SKILL.md") for p in planned})
        for plan in planned:
            skill = next((s for s in after.skills if s.path is not None and str(s.path) == str(plan.dest / "SKILL.md")),
                         None)
            if skill is not None and skill.state.listed_reason and plan.name not in delta.added:
                notes.append(f"`{plan.name}`: {skill.state.listed_reason}")
    else:
        notes.append(f"{target.skills_dir} is not read when a session starts in {workspace.cwd}: Claude Code "
                     "discovers it when a file under its package is read, so the start-up listing does not change.")
    return InstallPreview(target, planned, delta, clashes, refusals, notes, source or {})


def severity_counts(preview: InstallPreview) -> dict[str, int]:
    counts: dict[str, int] = {}
    for plan in preview.skills:
        for finding in plan.audit.findings if plan.audit else []:
            counts[finding.severity] = counts.get(finding.severity, 0) + 1
    return counts
