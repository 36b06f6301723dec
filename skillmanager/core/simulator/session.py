"""A simulated Claude Code session: file operations in order, and what each one reveals (spec §5).

A `Session` is an explicit, replayable list of steps over a loaded Registry. Each Read / Edit / Write
walks up from the file to the cwd for nested `.claude/skills` dirs (discovery.py, a port of
discoverSkillDirsForPaths) and activates `paths:` skills (activateConditionalSkillsForPaths), both from
src/skills/loadSkillsDir.ts as called by tools/FileReadTool, FileEditTool and FileWriteTool. The result
of a step says what was found, what was skipped and why, and the exact text the model receives.

Not modelled on purpose: the delivery lag. Both CLIs load nested dirs without awaiting them (2.1.88
`addSkillDirectories(...).catch()`), so a listing entry can arrive one tool call late (current: the listing
block, never its "New skills discovered" block; see tests/oracle/FINDINGS-simulator.md). The simulator
always shows it on the step that caused it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..js.json_parse import js_int
from .discovery import IgnoreCheck, IgnoredDir, SkillDirDiscovery, expand_path
from ..js.collation import CollationKey, locale_compare_key
from ..model import Diagnostic, Listed, Skill, SourceKind
from ..versions.features import Feature
from ..load.safe_read import read_regular_bytes
from .session_text import ModelText, render_current, render_legacy
from ..layers.listing import budget_variable
from ..load.sources import load_skills_dir
from ..rules.path_patterns import path_chain

if TYPE_CHECKING:
    from ..rules.registry import Registry

TRIGGER_OPS = ("Read", "Edit", "Write")
QUIET_OPS = ("Bash", "Grep", "Glob")
OPS = TRIGGER_OPS + QUIET_OPS
SCENARIO_VERSION = 1


@dataclass(frozen=True)
class Step:
    op: str  # Read | Edit | Write | Bash | Grep | Glob
    path: str  # file path (absolute or relative to the cwd); the command / pattern for Bash, Grep, Glob
    # Edit: the model reads a file with content before it edits it (what a real edit does); False = the bare
    # tool call as given
    read_first: bool = False
    # Edit: the call's old_string; None = an edit of the content there, or a create ("") of a file that is
    # missing or holds only whitespace
    old_string: str | None = None

    def to_json(self) -> dict[str, Any]:
        key = {"Bash": "command", "Grep": "pattern", "Glob": "pattern"}.get(self.op, "path")
        out: dict[str, Any] = {"op": self.op, key: self.path}
        if self.read_first:
            out["read_first"] = True
        if self.old_string is not None:
            out["old_string"] = self.old_string
        return out

    @classmethod
    def from_json(cls, data: Any) -> "Step":
        if not isinstance(data, dict):
            raise ValueError(f"a step must be an object, not {type(data).__name__}")
        op = data.get("op")
        if op not in OPS:
            raise ValueError(f"unknown step op {op!r}; use one of {', '.join(OPS)}")
        value = data.get("path", data.get("command", data.get("pattern")))
        if not isinstance(value, str):
            raise ValueError(f"step {op} needs a string path/command/pattern")
        old_string = data.get("old_string")
        if old_string is not None and not isinstance(old_string, str):
            raise ValueError(f"step {op}: old_string must be a string")
        return cls(op, value, read_first=data.get("read_first") is True, old_string=old_string)


@dataclass
class Activation:
    skill: Skill
    pattern: str  # the `paths:` pattern that matched
    rel_path: str  # the touched file relative to the cwd
    listed_as: str | None  # the name it is offered under; None when a same-named skill blocks it
    repeat: bool = False  # legacy: activated again (it never leaves the conditional map for long)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.skill.name, "listed_as": self.listed_as, "pattern": self.pattern,
                "rel_path": self.rel_path, "path": str(self.skill.path) if self.skill.path else None,
                "repeat": self.repeat}


@dataclass
class NewSkill:
    """A skill a step made available (discovered in a nested dir or activated)."""

    name: str  # the name the model uses: bare or current's scoped `dir:name`
    skill: Skill
    rel_dir: str | None  # holder dir relative to the cwd; None for activated conditional skills
    how: str  # "discovered" | "activated" | "rescoped"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bare_name": self.skill.name, "dir": self.rel_dir, "how": self.how,
                "path": str(self.skill.path) if self.skill.path else None}


@dataclass
class Clash:
    name: str  # the bare name in conflict
    skill: Skill  # the copy this note is about
    outcome: str  # blocked | shadowed | replaced | scoped | rescoped | dropped
    by: Skill | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "outcome": self.outcome, "text": self.text,
                "path": str(self.skill.path) if self.skill.path else None,
                "by": str(self.by.path or self.by.name) if self.by is not None else None}


@dataclass
class StepResult:
    index: int  # 1-based
    step: Step
    abs_path: str | None = None
    rel_path: str | None = None  # relative to the cwd (may start with `..`)
    discovered_dirs: list[str] = field(default_factory=list)  # `x/.claude/skills` rel to cwd, deepest first
    ignored_dirs: list[IgnoredDir] = field(default_factory=list)
    activated: list[Activation] = field(default_factory=list)
    new_skills: list[NewSkill] = field(default_factory=list)
    clashes: list[Clash] = field(default_factory=list)
    model_text: str = ""  # exactly what the model receives ("" = nothing)
    placement: str | None = None  # "tool_result" (appended) | "system" (system messages) | None
    messages: list[str] = field(default_factory=list)  # current: one per block
    triggers_nothing_reason: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    assumed: str | None = None  # what the step took for granted (the model's Read before an Edit)

    def summary_lines(self) -> list[str]:
        out = [f"assumed: {self.assumed}"] if self.assumed else []
        if self.triggers_nothing_reason:
            out.append(f"nothing triggered: {self.triggers_nothing_reason}")
        for d in self.discovered_dirs:
            out.append(f"discovered {d}")
        for ig in self.ignored_dirs:
            out.append(f"skipped {ig.rel_dir}/.claude/skills: git ignores {ig.rel_dir} ({ig.rule})")
        for a in self.activated:
            tail = f" as {a.listed_as}" if a.listed_as and a.listed_as != a.skill.name else ""
            blocked = "" if a.listed_as else " (not offered: the name is taken)"
            again = " again" if a.repeat else ""
            out.append(f"activated{again} {a.skill.name}{tail}: paths pattern {a.pattern!r} matched {a.rel_path}{blocked}")
        for c in self.clashes:
            out.append(f"clash {c.name}: {c.text}")
        if not out and self.step.op in TRIGGER_OPS:
            out.append("nothing new")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index, "step": self.step.to_json(), "abs_path": self.abs_path, "rel_path": self.rel_path,
            "discovered_dirs": self.discovered_dirs, "ignored_dirs": [i.to_json() for i in self.ignored_dirs],
            "activated": [a.to_json() for a in self.activated], "new_skills": [n.to_json() for n in self.new_skills],
            "clashes": [c.to_json() for c in self.clashes], "model_text": self.model_text,
            "placement": self.placement, "messages": self.messages,
            "triggers_nothing_reason": self.triggers_nothing_reason, "assumed": self.assumed,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


@dataclass
class _Dynamic:
    """One nested skill found by discovery (session state)."""

    skill: Skill
    rel_dir: str  # holder dir relative to the cwd, posix
    depth: int
    order: int  # discovery order (dir order deepest-first per step, then entry order)


class Session:
    """Replayable steps over a Registry. The registry itself is never mutated."""

    def __init__(self, registry: Registry, *, model: str | None = None, context_window: int | None = None,
                 budget: int | None = None,
                 ignore_factory: Callable[[str], IgnoreCheck] | None = None) -> None:
        self.registry = registry
        self.profile = registry.profile
        workspace = registry.workspace
        self.cwd = os.path.normpath(os.path.abspath(str(workspace.cwd)))
        self.model = model or registry.model or workspace.model or self.profile.default_model
        self.context_window = context_window if context_window is not None else workspace.context_window
        self.budget = budget if budget is not None else workspace.budget
        # SLASH_COMMAND_TOOL_CHAR_BUDGET as the session holds it, when no explicit budget takes its place
        self.budget_variable = budget_variable(registry) if self.budget is None else None
        self._ignore_factory = ignore_factory or _default_ignore_factory()
        self._ignore_cache: dict[str, IgnoreCheck] = {}  # parsed rules survive replays
        # loaded dirs survive replays: (skills in byte order, readdir order of names, diagnostics)
        self._dir_cache: dict[str, tuple[list[Skill], list[str], list[Diagnostic]]] = {}
        self._startup()
        self._steps: list[Step] = []
        self._results: list[StepResult] = []
        self._reset_state()

    # -- start-up facts (computed once) --------------------------------------------------------------

    def _startup(self) -> None:
        skills = self.registry.skills
        loaded = [s for s in skills if s.state.duplicate_of is None]
        # getCommands' baseCommandNames: every loaded start-up command, listed or not
        self.base_names: set[str] = {s.name for s in loaded if not s.state.conditional}
        # what the start-up listing already sent (legacy: by name; current: by name + text)
        self.initial_sent: dict[str, str | None] = {
            s.name: None for s in loaded
            if not s.state.conditional and s.state.listed is not Listed.NO
            and (s.state.shadowed_by is None or self.profile.supports(Feature.LISTING_KEEPS_EVERY_COPY))}
        # conditionalSkills Map: keyed by name, later copies overwrite in place (load order)
        pending: dict[str, Skill] = {}
        for s in loaded:
            if s.state.conditional and s.paths:
                pending[s.name] = s
        self.initial_pending = pending
        self._matchers: dict[str, Callable[[list[str]], str | None]] = {
            name: _make_matcher(s.paths or []) for name, s in pending.items()}

    def _reset_state(self) -> None:
        ignore_checks = self._ignore_cache

        def factory(root: str) -> IgnoreCheck:
            if root not in ignore_checks:
                ignore_checks[root] = self._ignore_factory(root)
            return ignore_checks[root]

        self._discovery = SkillDirDiscovery(self.cwd, ignore_factory=factory)
        self._pending: dict[str, Skill] = dict(self.initial_pending)
        self._activated: dict[str, Skill] = {}  # activatedConditionalSkillNames + their skills, in order
        self._dynamic: list[_Dynamic] = []  # nested skills, discovery order
        self._dynamic_dir: dict[int, str] = {}  # id(skill) -> holder dir relative to the cwd
        self._dynamic_by_name: dict[str, list[_Dynamic]] = {}
        self._offers: dict[str, list[_Offer]] = {}  # current: bare name -> how its copies are offered
        self._groups: dict[str, _GroupState] = {}  # current: where each name's offering stands (_offer_group)
        self._sort_keys: dict[int, _OfferSortKey] = {}  # id(skill) -> its offer sort key, computed once
        self._legacy_map: dict[str, Skill] = {}  # legacy dynamicSkills Map (insertion-ordered)
        self._legacy_sent: set[str] = set(self.initial_sent)
        self._current_sent: dict[str, _EntryKey] = {}  # name -> entry_key sent in a later turn
        self._current_offered: dict[str, Skill] = {}  # current: offered dynamic names -> skill
        self._read_files: set[str] = set()  # legacy readFileState (Edit/Write need a prior Read)

    # -- public API ---------------------------------------------------------------------------------

    @property
    def steps(self) -> list[Step]:
        return list(self._steps)

    @property
    def results(self) -> list[StepResult]:
        return list(self._results)

    def add_step(self, op: str, path: str, *, read_first: bool = False, old_string: str | None = None) -> StepResult:
        """One tool call. Edit: `read_first` assumes the model read the file before editing it; `old_string` is
        the call's (None: an edit of the content there, or a create of a missing or whitespace-only file)."""
        if op not in OPS:
            raise ValueError(f"unknown step op {op!r}; use one of {', '.join(OPS)}")
        step = Step(op, path, read_first=read_first, old_string=old_string)
        result = self._run(step, len(self._steps) + 1)
        self._steps.append(step)
        self._results.append(result)
        return result

    def undo(self) -> Step | None:
        """Drop the last step: replay the rest from a fresh state (the simplest way to stay exact)."""
        if not self._steps:
            return None
        last = self._steps[-1]
        self.replay(self._steps[:-1])
        return last

    def replay(self, steps: list[Step]) -> list[StepResult]:
        self._steps, self._results = [], []
        self._reset_state()
        for step in steps:
            self.add_step(step.op, step.path, read_first=step.read_first, old_string=step.old_string)
        return self.results

    def available_skills(self) -> dict[str, Skill]:
        """Name → skill the Skill tool would resolve now: start-up winners, then what the session added."""
        out: dict[str, Skill] = {}
        for s in self.registry.skills:
            if s.state.is_winner and s.state.active and s.name not in out:
                out[s.name] = s
        if not self.profile.supports(Feature.NEW_SKILLS_DISCOVERED_MESSAGE):
            for name, s in self._legacy_map.items():
                out.setdefault(name, s)  # getCommands: a start-up name blocks the dynamic one
        else:
            for name, s in self._current_offered.items():
                out.setdefault(name, s)
        return out


    def to_json(self) -> dict[str, Any]:
        return {"version": SCENARIO_VERSION, "profile": self.profile.name, "cwd": self.cwd,
                "model": self.model, "steps": [s.to_json() for s in self._steps]}

    @classmethod
    def from_json(cls, data: Any, registry: Registry, **kwargs: Any) -> "Session":
        scenario = Scenario.from_json(data)
        session = cls(registry, **kwargs)
        session.replay(scenario.steps)
        return session

    # -- one step -----------------------------------------------------------------------------------

    def _run(self, step: Step, index: int) -> StepResult:
        result = StepResult(index=index, step=step)
        if step.op in QUIET_OPS:
            result.triggers_nothing_reason = (f"{step.op} does not trigger skill discovery or activation "
                                              "(only Read, Edit and Write do)")
            return result
        abs_path = expand_path(step.path, self.cwd)
        result.abs_path = abs_path
        rel = os.path.relpath(abs_path, self.cwd)
        result.rel_path = rel.replace(os.sep, "/")
        outside = rel == os.curdir or rel.startswith(os.pardir) or os.path.isabs(rel)
        if step.op == "Edit":
            reason = self._edit_refusal(step, abs_path, result)
            if reason:
                result.triggers_nothing_reason = reason
                return result
        if step.op == "Write" and self.profile.supports(Feature.WRITE_TOOLS_NEED_PRIOR_READ) \
                and abs_path not in self._read_files and os.path.isfile(abs_path):
            result.triggers_nothing_reason = ("Write over an existing file not read first fails (\"File has not been "
                                              "read yet\") before discovery runs")
            return result
        if step.op in ("Read", "Edit", "Write"):
            self._read_files.add(abs_path)  # a successful Read/Edit/Write updates readFileState
        if outside:
            result.triggers_nothing_reason = ("the file is outside the working directory: nothing is discovered "
                                              "and no paths: pattern can match")
            return result
        found = self._discovery.discover(abs_path)
        result.ignored_dirs = found.ignored
        result.discovered_dirs = [os.path.relpath(d, self.cwd).replace(os.sep, "/") for d in found.new_dirs]
        activations = self._activate(result.rel_path)
        result.activated = activations
        new_dirs = self._load_dirs(found.new_dirs, result)
        if not self.profile.supports(Feature.NEW_SKILLS_DISCOVERED_MESSAGE):
            self._legacy_step(result, activations, new_dirs)
        else:
            self._current_step(result, activations, new_dirs)
        return result

    def _edit_refusal(self, step: Step, abs_path: str, result: StepResult) -> str | None:
        """FileEditTool validateInput runs before discovery: a refused Edit discovers nothing (sim-edit-write,
        edit-create). An empty old_string creates a file that is missing or holds only whitespace, needing
        no Read, and is refused over other content (both versions). Otherwise 2.1.88 needs a prior Read
        (`File has not been read yet`); 2.1.332 does not. Staleness checks are not modelled."""
        content = _file_text(abs_path)
        blank = content is None or not content.strip()
        creates = step.old_string == "" or (step.old_string is None and blank)
        if creates and not blank:
            return "Edit with an empty old_string of a file with content fails (\"Cannot create new file - file " \
                   "already exists\") before discovery runs"
        needs_read = self.profile.supports(Feature.WRITE_TOOLS_NEED_PRIOR_READ)
        if creates or not needs_read or abs_path in self._read_files:
            return None
        if content is None:
            return "Edit of a file that does not exist fails before discovery runs"
        if step.read_first:
            self._read_files.add(abs_path)
            result.assumed = (f"the model read {step.path} before this Edit (this Claude Code refuses an Edit of a "
                              "file not read first); --literal-edits replays the bare Edit call")
            return None
        return "Edit of a file not read first fails (\"File has not been read yet\") before discovery runs"

    def _activate(self, rel_path: str) -> list[Activation]:
        """activateConditionalSkillsForPaths: every pending skill whose patterns match, in Map order."""
        out: list[Activation] = []
        chain = path_chain(rel_path)  # validated and split once for every pending skill
        if chain is None:
            return out
        for name, skill in list(self._pending.items()):
            pattern = self._matchers[name](chain)
            if pattern is None:
                continue
            repeat = name in self._activated
            if not self.profile.supports(Feature.CONDITIONAL_REACTIVATES):
                del self._pending[name]
            # 2.1.88: every activation (and every dir load) emits skillsLoaded, after which the skill dirs are
            # reloaded and each `paths:` skill is stored as conditional again (the debug log shows "1 conditional
            # skills stored" after "Activated conditional skill"); so a matching touch re-activates it and its
            # Map.set puts it back over a same-named nested copy loaded meanwhile (fuzz-sim-201, step 4)
            self._activated[name] = skill
            out.append(Activation(skill, pattern, rel_path, None, repeat=repeat))
        return out

    def _load_dirs(self, dirs: list[str], result: StepResult) -> list[tuple[str, list[Skill], list[str]]]:
        """(rel_dir, skills in byte order, readdir order of names) per new skills dir, deepest first."""
        out = []
        for skills_dir in dirs:
            if skills_dir not in self._dir_cache:
                diagnostics: list[Diagnostic] = []
                holder = Path(os.path.dirname(os.path.dirname(skills_dir)))
                skills = load_skills_dir(Path(skills_dir), SourceKind.DYNAMIC, self.profile, diagnostics,
                                         scope_dir=holder)
                self._dir_cache[skills_dir] = (skills, _readdir_order(skills_dir), diagnostics)
            skills, order, diagnostics = self._dir_cache[skills_dir]
            result.diagnostics.extend(diagnostics)
            rel_dir = os.path.relpath(os.path.dirname(os.path.dirname(skills_dir)), self.cwd).replace(os.sep, "/")
            out.append((rel_dir, skills, order))
        return out

    # -- legacy (2.1.88) ------------------------------------------------------------------------------

    def _legacy_step(self, result: StepResult, activations: list[Activation],
                     new_dirs: list[tuple[str, list[Skill], list[str]]]) -> None:
        dyn = self._legacy_map
        # activation is synchronous; the dir loading is not awaited, so activated skills go in first
        for a in activations:
            before = dyn.get(a.skill.name)
            dyn[a.skill.name] = a.skill
            a.listed_as = None if a.skill.name in self.base_names else a.skill.name
            if a.repeat and before is not a.skill and before is not None and a.listed_as is not None:
                result.clashes.append(Clash(a.skill.name, before, "replaced", a.skill,
                                            "activated again: the paths: skill takes the name back from the "
                                            "nested copy loaded since"))
            if a.repeat and before is a.skill:
                continue
            if a.listed_as is None:
                result.clashes.append(Clash(a.skill.name, a.skill, "blocked", self._base_skill(a.skill.name),
                                            "activated, but a start-up skill of that name keeps it hidden "
                                            "(getCommands drops dynamic skills whose name exists)"))
        # addSkillDirectories: shallowest dir first into one Map, so the deepest copy wins in place
        step_owner: dict[str, tuple[Skill, str]] = {}
        for rel_dir, skills, _order in reversed(new_dirs):
            for s in skills:
                previous = dyn.get(s.name)
                if s.name in step_owner:
                    loser, loser_dir = step_owner[s.name]
                    result.clashes.append(Clash(s.name, loser, "shadowed", s,
                                                f"{loser_dir}/.claude/skills loses to the nearer {rel_dir}/.claude/skills "
                                                "(the deepest dir wins)"))
                elif previous is not None and s.name not in self.base_names:
                    result.clashes.append(Clash(s.name, previous, "replaced", s,
                                                f"{rel_dir}/.claude/skills replaces the copy found earlier; the model "
                                                "is not told again (the name was already sent)"))
                dyn[s.name] = s
                step_owner[s.name] = (s, rel_dir)
                self._dynamic.append(_Dynamic(s, rel_dir, rel_dir.count("/") + 1, len(self._dynamic)))
                self._dynamic_dir[id(s)] = rel_dir
        for name, (s, rel_dir) in step_owner.items():
            if name in self.base_names:
                result.clashes.append(Clash(name, s, "blocked", self._base_skill(name),
                                            f"{rel_dir}/.claude/skills/{name} is hidden: a start-up skill of that "
                                            "name already exists and keeps resolving"))
        # the listing delta: dynamic skills (Map order) not known at start-up, listable, not yet sent
        new = [s for name, s in dyn.items() if name not in self.base_names and name not in self._legacy_sent
               and _listable(s)]
        for s in new:
            self._legacy_sent.add(s.name)
            holder = self._dynamic_dir.get(id(s))
            result.new_skills.append(NewSkill(s.name, s, holder, "activated" if holder is None else "discovered"))
        text = render_legacy(new, self.profile, model=self.model, context_window=self.context_window,
                             budget=self.budget, settings=self.registry.settings, variable=self.budget_variable)
        self._apply_text(result, text)

    def _base_skill(self, name: str) -> Skill | None:
        return next((s for s in self.registry.skills if s.name == name and s.state.is_winner), None)

    # -- current (2.1.3xx) ----------------------------------------------------------------------------

    def _current_step(self, result: StepResult, activations: list[Activation],
                      new_dirs: list[tuple[str, list[Skill], list[str]]]) -> None:
        if not activations and not any(skills for _, skills, _ in new_dirs):
            return  # nothing new: the offered set cannot change (keeps quiet steps cheap)
        affected: set[str] = {a.skill.name for a in activations}
        for rel_dir, skills, _order in new_dirs:
            for s in skills:
                d = _Dynamic(s, rel_dir, rel_dir.count("/") + 1, len(self._dynamic))
                self._dynamic.append(d)
                self._dynamic_by_name.setdefault(s.name, []).append(d)
                affected.add(s.name)
        # only the name groups touched now can change how they are offered; a group whose copies are all
        # scoped already only gains the new copies (its earlier offers cannot change): those are merged in
        activated_names = {a.skill.name for a in activations}
        previous: list[_Offer] = []
        offered: list[_Offer] = []
        notes: dict[int, list[Clash]] = {}
        for name in affected:
            more = None if name in activated_names else self._offer_more(name, notes)
            if more is not None:
                self._offers[name].extend(more)
                offered.extend(more)
                continue
            previous.extend(self._offers.get(name, []))
            group = self._offer_group(name, notes)
            self._offers[name] = group
            offered.extend(group)
        for o in previous:
            self._current_offered.pop(o.name, None)
        for o in offered:
            self._current_offered[o.name] = o.skill
        # by bare name (locale order); ties by the skill's own path, so the copy in a containing dir comes first
        # (`src:both` < `src/api:both`, sim-two-levels; cwd-level `shared` < `core:shared`, fuzz-sim-112), then
        # plain path order: `libs:alpha` < `services:alpha`, `apps/web/web:gamma` < `services:gamma`, and an
        # --add-dir copy `WORK/extra` < `WORK/home/proj/apps/cli` (fuzz-sim-218/220: `extra:beta` < `apps/cli:beta`)
        offered.sort(key=self._offer_sort_key)
        offered_name = {id(o.skill): o.name for o in offered}
        for a in activations:
            a.listed_as = offered_name.get(id(a.skill))
        found_now = {id(s) for _, skills, _ in new_dirs for s in skills}
        activated_now = {id(a.skill) for a in activations}
        this_step = found_now | activated_now
        rescoped = set()
        previous_name = {id(o.skill): o.name for o in previous}
        for o in offered:
            was = previous_name.get(id(o.skill))
            if was is not None and was != o.name:
                rescoped.add(id(o.skill))
                result.clashes.append(Clash(o.skill.name, o.skill, "rescoped", None,
                                            f"{was} ({o.rel_dir}/.claude/skills) is now offered as {o.name}: "
                                            "another copy of the name appeared"))
        for key, items in notes.items():
            if key in this_step and key not in rescoped:
                result.clashes.extend(items)
        # the listing delta: offered entries whose name + text were not sent before
        delta = [o for o in offered
                 if o.name not in self.initial_sent and self._current_sent.get(o.name) != o.entry_key()]
        for o in delta:
            self._current_sent[o.name] = o.entry_key()
            how = ("activated" if id(o.skill) in activated_now or (o.rel_dir is None and o.skill.state.conditional)
                   else "discovered" if id(o.skill) in found_now else "rescoped")
            result.new_skills.append(NewSkill(o.name, o.skill, o.rel_dir, how))
        # one "New skills discovered" block per dir found now, deepest first, names in readdir order
        blocks = []
        for rel_dir, skills, order in new_dirs:
            by_name = {s.name: s for s in skills}
            # disable-model-invocation skills are left out of the block too (fuzz-sim-3)
            names = [offered_name[id(by_name[n])] for n in order
                     if n in by_name and id(by_name[n]) in offered_name and _listable(by_name[n])]
            if names:
                blocks.append((rel_dir, names))
        text = render_current(blocks, delta, self.profile, model=self.model, context_window=self.context_window,
                              budget=self.budget, settings=self.registry.settings, variable=self.budget_variable)
        self._apply_text(result, text)

    def _offer_group(self, name: str, notes: dict[int, list[Clash]]) -> list["_Offer"]:
        """How every copy of one bare name is offered (current `KXs`/`YXs`, read from the binary): a nested
        skill whose name exists at start-up or in another nested dir is offered as `{dir}:{name}`; an
        activated `paths:` skill whose name is taken is not offered."""
        copies = self._dynamic_by_name.get(name, [])
        startup_clash = name in self.base_names
        # an activated `paths:` skill holds the bare name like a start-up skill: nested copies found before
        # or after it are scoped `{dir}:{name}` "instead of the unscoped" one (fuzz-sim-4: project `gamma`
        # activated after libs/lib's `gamma` was offered bare → `gamma` + re-scoped `lib:gamma`)
        activated = self._activated.get(name)
        label = self._activation_label(activated) if activated is not None else None
        if activated is not None and label is not None:  # an --add-dir skill is offered like a nested one found in `label` (fuzz-sim-129)
            copies = [_Dynamic(activated, label, label.count("/") + 1, -1), *copies]
            activated = None
        owner = self._base_skill(name) if startup_clash else activated
        unscoped_exists = startup_clash or activated is not None
        out: list[_Offer] = []
        emitted: set[str] = set()
        if activated is not None:
            if startup_clash:
                notes.setdefault(id(activated), []).append(Clash(name, activated, "dropped", owner,
                                                                 "activated, but not offered: the name is taken"))
            else:
                out.append(_Offer(name, activated, None, 0, scoped=False, unscoped_exists=False))
                emitted.add(name)
        group = _GroupState(self._activated.get(name), len(self._dynamic_by_name.get(name, [])),
                            emitted, unscoped_exists, startup_clash, owner,
                            stable=unscoped_exists or len(copies) > 1)
        for d in copies:
            if not unscoped_exists and len(copies) <= 1:
                out.append(_Offer(name, d.skill, d.rel_dir, d.depth, scoped=False, unscoped_exists=False))
                emitted.add(name)
                continue
            self._offer_scoped(name, d, group, notes, out)
        self._groups[name] = group
        return out

    def _offer_more(self, name: str, notes: dict[int, list[Clash]]) -> list["_Offer"] | None:
        """The offers of the copies of `name` found since its group was last worked out, when its earlier
        offers cannot change (every copy is scoped and nothing was activated since); else None."""
        group = self._groups.get(name)
        copies = self._dynamic_by_name.get(name, [])
        if group is None or not group.stable or group.activated is not self._activated.get(name):
            return None
        out: list[_Offer] = []
        for d in copies[group.done:]:
            self._offer_scoped(name, d, group, notes, out)
        group.done = len(copies)
        return out

    def _offer_scoped(self, name: str, d: "_Dynamic", group: "_GroupState", notes: dict[int, list[Clash]],
                      out: list["_Offer"]) -> None:
        s = d.skill
        scoped = f"{d.rel_dir}:{name}"
        if scoped in self.base_names or scoped in group.emitted:
            notes.setdefault(id(s), []).append(Clash(name, s, "dropped", None,
                                                     f"{scoped} is not offered: another skill has that name"))
            return
        out.append(_Offer(scoped, s, d.rel_dir, d.depth, scoped=True, unscoped_exists=group.unscoped_exists))
        group.emitted.add(scoped)
        why = ("a start-up skill has the name; the bare name keeps resolving to it" if group.startup_clash
               else "an activated paths: skill has the name; the bare name resolves to it" if group.unscoped_exists
               else "another nested dir has a skill of that name; every copy is scoped")
        notes.setdefault(id(s), []).append(Clash(name, s, "scoped", group.owner, f"offered as {scoped}: {why}"))

    def _offer_sort_key(self, offer: "_Offer") -> _OfferSortKey:
        key = self._sort_keys.get(id(offer.skill))
        if key is None:
            key = (locale_compare_key(offer.skill.name), locale_compare_key(str(offer.skill.path or "")))
            self._sort_keys[id(offer.skill)] = key
        return key

    def _activation_label(self, skill: Skill) -> str | None:
        """The dir label current gives an activated `paths:` skill (binary `VXs`/`HDn`): None (offered bare,
        holding the name) when its holder dir is the cwd or lies outside every working folder (user, managed,
        the repo root above a subdirectory cwd); else the holder relative to the cwd, or, outside the cwd,
        `{folder basename}[/{rest}]` of the --add-dir folder holding it (fuzz-sim-131: `omega (from extra/…)`)."""
        if skill.path is None:
            return None
        root = os.path.normpath(os.path.abspath(str(skill.path.parent)))
        marker = os.sep + ".claude" + os.sep
        cut = root.rfind(marker)
        if cut < 0:
            return None
        holder = root[:cut]
        rel = os.path.relpath(holder, self.cwd)
        if rel == os.curdir:
            return None
        if not rel.startswith(os.pardir) and not os.path.isabs(rel):
            return rel.replace(os.sep, "/")
        folders = [self.cwd] + [os.path.normpath(os.path.abspath(str(d)))
                                for d in self.registry.workspace.add_dirs]
        best = None
        for folder in folders:
            if holder == folder or holder.startswith(folder.rstrip(os.sep) + os.sep):
                if best is None or len(folder) > len(best):
                    best = folder
        if best is None:
            return None
        base = os.path.basename(best)
        if not base:
            return None
        if any(f != best and os.path.basename(f) == base for f in folders):  # two folders share a name
            parent = os.path.basename(os.path.dirname(best))
            base = f"{parent}/{base}" if parent else base
        rest = os.path.relpath(holder, best)
        return base if rest == os.curdir else f"{base}/{rest.replace(os.sep, '/')}"

    def _apply_text(self, result: StepResult, text: ModelText) -> None:
        result.model_text = text.text
        result.placement = text.placement
        result.messages = text.messages


_OfferSortKey = tuple[CollationKey, CollationKey]  # (name, path)
_EntryKey = tuple[str, bool, int]  # (name, unscoped copy exists, id of the skill)


@dataclass
class _Offer:
    name: str
    skill: Skill
    rel_dir: str | None
    depth: int
    scoped: bool
    unscoped_exists: bool

    def entry_key(self) -> _EntryKey:
        """Stands for current's per-name digest: same name, same suffix, same skill = already sent."""
        return (self.name, self.unscoped_exists, id(self.skill))


@dataclass
class Scenario:
    """The JSON a session is saved as: {"version":1, "profile":…, "cwd":…, "steps":[{"op":"Read","path":…}]}."""

    profile: str | None
    cwd: str | None
    steps: list[Step]
    model: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> "Scenario":
        if not isinstance(data, dict):
            raise ValueError("a scenario must be a JSON object")
        version = data.get("version", SCENARIO_VERSION)
        if version != SCENARIO_VERSION:
            raise ValueError(f"unsupported scenario version {version!r} (this build reads version {SCENARIO_VERSION})")
        steps = data.get("steps", [])
        if not isinstance(steps, list):
            raise ValueError("scenario `steps` must be a list")
        profile, cwd, model = data.get("profile"), data.get("cwd"), data.get("model")
        for key, value in (("profile", profile), ("cwd", cwd), ("model", model)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"scenario `{key}` must be a string")
        return cls(profile, cwd, [Step.from_json(s) for s in steps], model)

    @classmethod
    def load(cls, path: str | Path) -> "Scenario":
        try:
            data = json.loads(read_regular_bytes(path).decode("utf-8"), parse_int=js_int)  # a FIFO or device: an error, no hang
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read scenario {path}: {error}") from error
        except (json.JSONDecodeError, RecursionError) as error:  # RecursionError: absurdly deep nesting
            raise ValueError(f"scenario {path} is not valid JSON: {error or 'nested too deeply'}") from error
        return cls.from_json(data)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": SCENARIO_VERSION, "profile": self.profile, "cwd": self.cwd}
        if self.model:
            out["model"] = self.model
        out["steps"] = [s.to_json() for s in self.steps]
        return out


# -- helpers -------------------------------------------------------------------------------------------

@dataclass
class _GroupState:
    """Where the offering of one bare name stands after _offer_group (current)."""

    activated: Skill | None  # self._activated[name] when worked out
    done: int  # copies in _dynamic_by_name[name] already offered
    emitted: set[str]
    unscoped_exists: bool
    startup_clash: bool
    owner: Skill | None
    stable: bool  # every later copy is offered scoped without changing the earlier offers


def _listable(skill: Skill) -> bool:
    """getSkillToolCommands: model-invocable prompt commands (disable-model-invocation hides)."""
    return not skill.disable_model_invocation


def _readdir_order(skills_dir: str) -> list[str]:
    """The directory's own order: current (Bun) lists a new dir's names as readdir returns them (observed
    on ext4: sim-two-levels `clash, both, aa-…, zz-…`); os.listdir returns the same order."""
    try:
        return os.listdir(skills_dir)
    except OSError:
        return []


def _make_matcher(patterns: list[str]) -> Callable[[list[str]], str | None]:
    from ..rules.path_patterns import PathMatcher  # the `ignore`-package semantics (written by another module)

    matcher = PathMatcher(patterns)
    return matcher.match_chain


def _default_ignore_factory() -> Callable[[str], IgnoreCheck]:
    def factory(root: str) -> IgnoreCheck:
        from .ignore_rules import IgnoreOracle

        oracle = IgnoreOracle(Path(root))
        return oracle.check
    return factory


def _file_text(path: str) -> str | None:
    """A file's text for the Edit rules (None: missing or not a regular file; bounded read)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")
