"""The GUI's single doorway into skillmanager.core: build a workspace, scan, list, expand, audit.

Everything here runs without Qt (scans run in a worker thread). The GUI applies no rule of its
own: it calls the engine and shows what comes back. When an engine module is missing (being
written, or failing to import), the matching panel shows "not available" with the reason.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from skillmanager.core.model import Skill, SourceKind
from skillmanager.core.versions.profiles import DEFAULT_PROFILE, PROFILE_NAMES
from skillmanager.gui.plural import counted




def skill_identity(skill: Skill) -> tuple[str, str, str]:
    """A key that survives a rescan (load_index changes when skills are added before this one)."""
    return (skill.source.value, str(skill.path) if skill.path else "", skill.name)


@dataclass
class WorkspaceSpec:
    """What the user chose in the workspace bar (plain values, persisted in QSettings)."""

    cwd: Path
    home: Path | None = None
    managed_root: Path | None | bool = True
    add_dirs: list[Path] = field(default_factory=list)
    plugin_dirs: list[Path] = field(default_factory=list)
    mcp_skills_file: Path | None = None
    profile: str = DEFAULT_PROFILE  # a profile name (the workspace bar's choice)
    claude_version: str | None = None  # a release by number instead (the installed claude's); wins over profile
    model: str | None = None
    env: dict[str, str] | None = None

    def build(self):
        from skillmanager.core.load.workspace import Workspace

        return Workspace.create(home=self.home, cwd=self.cwd, managed_root=self.managed_root,
                                add_dirs=list(self.add_dirs), plugin_dirs=list(self.plugin_dirs),
                                mcp_skills_file=self.mcp_skills_file,
                                profile=None if self.claude_version else self.profile,
                                claude_version=self.claude_version, model=self.model, env=self.env)

    @classmethod
    def from_workspace(cls, workspace) -> "WorkspaceSpec":
        profile = workspace.profile.name
        version = profile if profile not in PROFILE_NAMES else None
        return cls(cwd=workspace.cwd, home=workspace.home, managed_root=workspace.managed_root or False,
                   add_dirs=list(workspace.add_dirs), plugin_dirs=list(workspace.plugin_dirs),
                   mcp_skills_file=workspace.mcp_skills_file, profile=DEFAULT_PROFILE if version else profile,
                   claude_version=version, model=workspace.model,
                   env=dict(workspace.env) if getattr(workspace, "env", None) is not None else None)


@dataclass
class Snapshot:
    """One consistent view of the workspace, computed off the UI thread."""

    workspace: Any
    registry: Any = None
    listing: Any = None
    entries: dict[tuple, Any] = field(default_factory=dict)  # skill identity -> listing entry
    tokens: dict[tuple, int] = field(default_factory=dict)  # skill identity -> tokens of its listing entry
    problems: dict[str, str] = field(default_factory=dict)  # panel -> why it is not available
    outcomes: dict[tuple, Any] = field(default_factory=dict)  # skill identity -> core ListingOutcome
    remedy: Any = None  # core.rules.remedy.BudgetRemedy when the budget cuts descriptions
    switches: dict[tuple, Any] = field(default_factory=dict)  # skill identity -> core.edit.switch.SwitchFacts
    contested: frozenset = frozenset()  # names more than one skill claims (core.rules.buckets.contested_names)
    conflict_count: int | None = None  # len(registry.conflicts()), counted off the UI thread (None: not counted)
    usage: dict[tuple, Any] = field(default_factory=dict)  # skill identity -> core SkillUsage (session logs)
    usage_days: int = 30
    generation: int = 0
    partial: bool = False  # rows are current, the listing and the panels that read it follow shortly
    # after an incremental refresh that kept every row in its group: the rows whose skill, listing entry, token
    # count, outcome, switch or usage differ from the partial snapshot of the same generation (None: any row)
    changed_rows: frozenset | None = None
    outcome_reuse: Any = None  # core OutcomeReuse: what the next incremental refresh's outcomes reuse
    _by_identity: dict[tuple, Skill] | None = None  # built on first use
    _by_folder: dict[str, list[tuple]] | None = None  # built off the UI thread (_index_entries) or on first use

    @property
    def skills(self) -> list[Skill]:
        return list(getattr(self.registry, "skills", []) or [])

    def rows_by_folder(self) -> dict[str, list[tuple]]:
        """What the audit of each row reads -> the rows: a skill's folder (every file in it), a command's file."""
        if self._by_folder is None:
            by_folder: dict[str, list[tuple]] = {}
            for skill in self.skills:
                where = skill.skill_dir if skill.kind == "skill" else skill.path
                if where is not None and skill.path is not None:
                    by_folder.setdefault(str(where), []).append(skill_identity(skill))
            self._by_folder = by_folder
        return self._by_folder

    def find(self, identity: tuple) -> Skill | None:
        if self._by_identity is None:
            self._by_identity = {skill_identity(s): s for s in self.skills}
        return self._by_identity.get(tuple(identity))


def scan(spec_or_workspace, progress: Callable[..., None] | None = None, generation: int = 0) -> Snapshot:
    """Build the workspace, load the registry, build the listing and count tokens per entry."""
    workspace = spec_or_workspace.build() if isinstance(spec_or_workspace, WorkspaceSpec) else spec_or_workspace
    snapshot = Snapshot(workspace=workspace, generation=generation)
    from skillmanager.core.rules import registry as registry_module

    snapshot.registry = registry_module.load_registry(workspace, progress=progress)
    from skillmanager.core.layers import listing as listing_module

    try:
        snapshot.listing = build_listing(listing_module, snapshot.registry, workspace)
    except Exception as error:  # noqa: BLE001 - shown in the preview instead of breaking the scan
        snapshot.problems["listing"] = f"the listing could not be built: {error!r}"
        _name_clashes(snapshot)
        return snapshot
    _index_entries(snapshot)  # builds the identity index too, off the UI thread
    return snapshot


def build_listing(listing_module, registry, workspace, previous=None):
    # the registry carries the profile, the resolved model and the settings; the engine reads them. The
    # listing keeps what the next refresh reuses (`previous`: only what changed is measured again)
    return listing_module.build_listing(registry, reusable=True, previous=previous)


_TOKEN_CACHE: dict[str, int] = {}


def _cached_tokens(text: str) -> int:
    """Token counts by entry text: a rescan re-counts only entries whose text changed."""
    count = _TOKEN_CACHE.get(text)
    if count is None:
        from skillmanager.core.layers.tokens import count_tokens

        if len(_TOKEN_CACHE) > 200_000:
            _TOKEN_CACHE.clear()
        count = _TOKEN_CACHE[text] = count_tokens(text)
    return count


def _index_entries(snapshot: Snapshot, previous: Snapshot | None = None,
                   same_names: Snapshot | None = None) -> None:
    """Outcomes, row switches, usage, the budget remedy and token counts of `snapshot`. With `previous` (an
    incremental refresh), what belongs to a skill object or listing entry both snapshots share is reused:
    core's switch facts read only the skill and the settings (new settings make every skill a new object),
    a token count only the entry's shown text, and a skill whose copies were re-decided is a new object.
    `same_names`: a snapshot with the same rows (a refresh that kept every row: no skill name came or went),
    whose contested names and conflict count hold."""
    from skillmanager.core.layers.listing_outcome import OutcomeReuse, listing_outcomes
    from skillmanager.core.rules.remedy import budget_remedy

    skills = snapshot.skills
    identities = [skill_identity(skill) for skill in skills]  # once per refresh: 5,000 tuples per pass
    keys = [skill.key for skill in skills]
    identity_by_key = dict(zip(keys, identities))
    snapshot._by_identity = dict(zip(identities, skills))
    snapshot.outcome_reuse = OutcomeReuse()
    outcomes = listing_outcomes(snapshot.registry, snapshot.listing, keep=snapshot.outcome_reuse,
                                previous=previous.outcome_reuse if previous is not None else None)
    snapshot.outcomes = {identity: outcomes[key] for identity, key in zip(identities, keys)}
    from skillmanager.core.edit.switch import switch_facts

    earlier_skills: dict[tuple, Skill] = {}
    if previous is not None:
        previous.find(("", "", ""))  # its identity index
        earlier_skills = previous._by_identity or {}
    earlier_switches = previous.switches if previous is not None else {}
    switches = snapshot.switches
    own = (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)
    for skill, identity in zip(skills, identities):
        if skill.source in own or not skill.state.is_winner:
            continue  # Claude Code's own entries and losing copies get no row switch
        if earlier_skills.get(identity) is skill:
            facts = earlier_switches.get(identity)
            if facts is not None:
                switches[identity] = facts
                continue
        try:
            switches[identity] = switch_facts(snapshot.registry, skill)
        except Exception:  # noqa: BLE001 - no switch for this row; More options still explains
            pass
    uses = _usage_by_key(snapshot)
    snapshot.usage = {identity_by_key[k]: u for k, u in uses.items() if k in identity_by_key}
    _name_clashes(snapshot, same_names)
    try:
        counts = {k: u.total for k, u in uses.items()}
        snapshot.remedy = budget_remedy(snapshot.registry, snapshot.listing, outcomes,
                                        usage=counts if any(counts.values()) else None)  # no logs: by size only
    except Exception as error:  # noqa: BLE001 - the banner is missing, the rest of the window works
        snapshot.problems["remedy"] = f"the budget remedy could not be computed: {error!r}"
    earlier_entries = previous.entries if previous is not None else {}
    earlier_tokens = previous.tokens if previous is not None else {}
    for entry in snapshot.listing.entries:
        identity = identity_by_key.get(entry.key) if entry.key is not None else None
        if identity is None:
            continue
        snapshot.entries[identity] = entry
        if earlier_entries.get(identity) is entry and identity in earlier_tokens:
            snapshot.tokens[identity] = earlier_tokens[identity]  # the same entry: the same shown text
            continue
        shown = entry.shown_text
        snapshot.tokens[identity] = _cached_tokens(shown) if shown else 0
    snapshot.rows_by_folder()  # here, off the UI thread: a watcher event looks rows up in it


def _name_clashes(snapshot: Snapshot, same_names: Snapshot | None = None) -> None:
    """The contested names and the conflict count (Registry.conflicts), or those of `same_names`."""
    if same_names is not None:
        snapshot.contested, snapshot.conflict_count = same_names.contested, same_names.conflict_count
        return
    from skillmanager.core.rules.buckets import contested_names

    conflicts = snapshot.registry.conflicts() if hasattr(snapshot.registry, "conflicts") else []
    snapshot.contested = contested_names(snapshot.registry, conflicts)
    snapshot.conflict_count = len(conflicts)


_USAGE_CACHE: dict[str, tuple[float, Any]] = {}
USAGE_REREAD_SECONDS = 120.0  # session logs grow while Claude Code runs; rescans within this reuse the counts


def _usage_by_key(snapshot: Snapshot) -> dict[str, Any]:
    """Skill.key -> SkillUsage from Claude Code's session logs (read here, off the UI thread)."""
    from skillmanager.core.load.usage_log import read_usage, usage_by_key

    try:
        home = str(snapshot.workspace.config_home)
        cached = _USAGE_CACHE.get(home)
        if cached is None or time.monotonic() - cached[0] > USAGE_REREAD_SECONDS:
            _USAGE_CACHE.clear()  # one workspace at a time: the cache never grows
            cached = _USAGE_CACHE[home] = (time.monotonic(), read_usage(home, days=snapshot.usage_days))
        return usage_by_key(snapshot.skills, cached[1])
    except Exception as error:  # noqa: BLE001 - the Used column stays empty, the rest of the window works
        snapshot.problems["usage"] = f"usage counts could not be read: {error!r}"
        return {}


def expand_skill(registry, name: str, args: str = "", run_shell: bool = False, session_id: str | None = None,
                 as_user: bool = False, assume_allowed: bool = False):
    from skillmanager.core.layers import expansion as module

    kwargs: dict[str, Any] = {"args": args, "run_shell": run_shell, "as_user": as_user,
                              "assume_allowed": assume_allowed}
    if session_id:
        kwargs["session_id"] = session_id
    return module.expand(registry, name, **kwargs)


def audit_skill(skill: Skill):
    """(findings, None) or (None, why not available)."""
    from skillmanager.core.checks import audit as module

    if skill.path is None or skill.kind != "skill":
        target = skill.path
        if target is None:
            return [], None  # bundled / built-in: no file of ours to audit
    else:
        target = skill.path
    try:
        result = module.audit_skill(target, name=skill.name)
        return list(getattr(result, "findings", result) or []), None
    except Exception as error:  # noqa: BLE001 - a bad skill must not break the detail pane
        return None, f"the audit failed on this skill: {error!r}"


SOURCE_ORDER_FALLBACK = tuple(SourceKind)


@dataclass
class SkillGroup:
    """One top-level row of the tree: a source (a project level, a plugin…) and its skills."""

    key: str
    label: str
    skills: list[Skill]
    tooltip: str = ""


WAITING_KEY = "conditional"


def _scope_label(workspace, scope: Path | None) -> str:
    """A folder as the user thinks of it: relative to the cwd (up to three `..`), else `~/…`, else absolute."""
    if scope is None:
        return ""
    scope = Path(scope)
    cwd, home = getattr(workspace, "cwd", None), getattr(workspace, "home", None)
    for base, prefix in ((cwd, "."), (home, "~")):
        if base is None:
            continue
        try:
            relative = scope.relative_to(base)
        except ValueError:
            continue
        return prefix if str(relative) == "." else f"{prefix}/{relative.as_posix()}"
    if cwd is not None:
        relative = os.path.relpath(scope, cwd)
        if relative.split(os.sep).count("..") <= 3:
            return relative
    return str(scope)


def group_skills(snapshot: Snapshot) -> list[SkillGroup]:
    """Sources in the profile's precedence order; project levels and plugins apart; waiting skills last.

    Uses the registry's own `by_source()` when it has one (the engine owns the grouping rule).
    """
    registry, workspace = snapshot.registry, snapshot.workspace
    if registry is None:
        return []
    waiting = [s for s in snapshot.skills if s.state.conditional and not s.state.active]
    groups: list[SkillGroup] = []
    by_source = getattr(registry, "by_source", None)
    raw = by_source() if callable(by_source) else None
    if raw is not None:
        items = raw.items() if isinstance(raw, dict) else raw
        for item in items:
            key, label, skills = _unpack_group(item, workspace)
            skills = [s for s in skills if s not in waiting]
            if skills:
                groups.append(SkillGroup(key, label, skills))
    else:
        order = workspace.profile.source_order
        order = tuple(order) + tuple(k for k in SourceKind if k not in order)
        buckets: dict[tuple, list[Skill]] = {}
        for skill in snapshot.skills:
            if skill in waiting:
                continue
            scope = skill.scope_dir if skill.source in (SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.DYNAMIC,
                                                         SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND) else None
            buckets.setdefault((skill.source, str(scope) if scope else ""), []).append(skill)
        for (source, scope), skills in sorted(buckets.items(), key=lambda kv: order.index(kv[0][0])):
            where = _scope_label(workspace, Path(scope)) if scope else ""
            label = f"{source.label} — {where}" if where else source.label
            groups.append(SkillGroup(f"{source.value}:{scope}", label, skills, scope))
    if waiting:
        groups.append(SkillGroup(WAITING_KEY, "Conditional — waiting for a matching file", waiting))
    return groups


def _unpack_group(item, workspace) -> tuple[str, str, list[Skill]]:
    if isinstance(item, tuple) and len(item) == 3:  # registry.by_source(): (key, label, skills)
        key, label, skills = item
        skills = list(skills)
        first = skills[0] if skills else None
        if first is not None and first.source_root is not None and str(first.source_root) in str(label):
            # keep the engine's label but name the folder the way the user thinks of it: the dir that
            # holds `.claude/`, relative to the working directory
            root = Path(first.source_root)
            base = root.parent.parent if root.parent.name == ".claude" else root
            where = _scope_label(workspace, base)
            where = {".": "this folder", "~": "home"}.get(where, where)
            if where and set(where.split("/")) == {".."}:  # "../.." reads as punctuation: name the folder
                where = f"{base.name} (a folder above)"
            label = f"{first.source.label} — {where}"
        return str(key), str(label), skills
    key, skills = item if isinstance(item, tuple) and len(item) == 2 else (getattr(item, "key", None), None)
    if skills is None:
        skills = list(getattr(item, "skills", []))
        label = getattr(item, "label", None) or str(key)
        return str(key), label, skills
    skills = list(skills)
    if isinstance(key, SourceKind):
        return key.value, key.label, skills
    return str(key), str(key), skills


# --- incremental refresh -------------------------------------------------------------------------
def refresh_incremental(snapshot: Snapshot, paths, generation: int = 0,
                        on_rows: Callable[[Snapshot, Any], None] | None = None) -> Snapshot | None:
    """Files changed on disk: core.incremental re-reads just those, `on_rows(partial, delta)` lets the
    rows update at once, then the listing and token counts are rebuilt (all off the UI thread).
    None = nothing the registry reads changed."""
    from skillmanager.core.rules.incremental import refresh_paths

    delta = refresh_paths(snapshot.registry, [str(p) for p in paths])
    if delta.empty:
        return None
    registry = delta.registry
    partial = Snapshot(workspace=snapshot.workspace, registry=registry, listing=snapshot.listing,
                       problems=dict(snapshot.problems), generation=generation, partial=True)
    gone = {skill_identity(s) for s in delta.changed + delta.removed}
    partial.entries = {k: v for k, v in snapshot.entries.items() if k not in gone}
    partial.outcomes = {k: v for k, v in snapshot.outcomes.items() if k not in gone}
    partial.switches = {k: v for k, v in snapshot.switches.items() if k not in gone}
    partial.tokens = dict(snapshot.tokens)
    partial.usage, partial.usage_days, partial.remedy = snapshot.usage, snapshot.usage_days, snapshot.remedy
    partial.contested, partial.conflict_count = snapshot.contested, snapshot.conflict_count
    if on_rows is not None:
        on_rows(partial, delta)  # the rows update now; the listing follows
    final = Snapshot(workspace=snapshot.workspace, registry=registry, problems=dict(snapshot.problems),
                     generation=generation)
    final.problems.pop("listing", None)
    from skillmanager.core.layers import listing as listing_module

    try:
        final.listing = build_listing(listing_module, registry, snapshot.workspace, previous=snapshot.listing)
    except Exception as error:  # noqa: BLE001
        final.problems["listing"] = f"the listing could not be built: {error!r}"
        _name_clashes(final)
        return final
    # reuse is by object: after a full reload or new settings every object is new, and nothing is reused.
    # A refresh that kept every row replaced skills by others of the same identity (source, file, name): the
    # names that clash are the same
    _index_entries(final, previous=snapshot, same_names=None if delta.structural else snapshot)
    final.changed_rows = _keep_equal_values(final, partial, delta)
    return final


def _keep_equal_values(final: Snapshot, partial: Snapshot, delta) -> frozenset | None:
    """Give `final` the partial snapshot's objects wherever they are equal (the window compares by identity,
    so an unchanged row costs nothing to apply), and say which rows differ. None when rows came or went."""
    changed = {skill_identity(s) for s in delta.changed}
    for name in ("entries", "outcomes", "switches", "tokens"):
        before, after = getattr(partial, name), getattr(final, name)
        for identity, value in after.items():
            old = before.get(identity)
            if old is value:
                continue
            if old is not None and old == value:
                after[identity] = old
            else:
                changed.add(identity)
        changed.update(identity for identity in before if identity not in after)
    if final.usage == partial.usage:
        final.usage = partial.usage
    else:
        changed.update(k for k in set(final.usage) | set(partial.usage)
                       if final.usage.get(k) != partial.usage.get(k))
    if final.remedy == partial.remedy:
        final.remedy = partial.remedy
    return None if delta.structural else frozenset(changed)


# --- the simulator's session shown in the tree -----------------------------------------------------
SESSION_DISCOVERED_KEY = "session:discovered"
SESSION_ACTIVATED_KEY = "session:activated"


@dataclass(frozen=True)
class SimulatedMark:
    how: str  # "discovered" | "activated"
    name: str  # the name the model uses in the session (may be scoped `dir:name`)
    detail: str  # plain words: which step did it


def overlay_session(groups: list[SkillGroup], additions) -> tuple[list[SkillGroup], dict[tuple, SimulatedMark]]:
    """Groups with the simulated session applied (core.session_view decides what it added): discovered
    skills in their own group, activated conditional skills moved out of the waiting group."""
    if additions is None or additions.empty:
        return groups, {}
    marks: dict[tuple, SimulatedMark] = {}
    for added in additions.discovered + additions.activated:
        marks[skill_identity(added.skill)] = SimulatedMark(added.how, added.name, added.detail)
    activated = {skill_identity(a.skill) for a in additions.activated}
    out: list[SkillGroup] = []
    for group in groups:
        if group.key == WAITING_KEY:
            remaining = [s for s in group.skills if skill_identity(s) not in activated]
            if remaining:
                out.append(SkillGroup(group.key, group.label, remaining, group.tooltip))
            continue
        out.append(group)
    steps = additions.steps
    where = f"after {counted(steps, 'simulated step')}"
    insert_at = next((i for i, g in enumerate(out) if g.key == WAITING_KEY), len(out))
    extra = []
    if additions.discovered:
        extra.append(SkillGroup(SESSION_DISCOVERED_KEY, "Discovered in session (simulated)",
                                [a.skill for a in additions.discovered],
                                f"Nested skills the simulated session found {where}; not part of a fresh start"))
    if additions.activated:
        extra.append(SkillGroup(SESSION_ACTIVATED_KEY, "Activated in session (simulated)",
                                [a.skill for a in additions.activated],
                                f"Conditional skills a touched file activated {where}; they wait again in a "
                                "fresh session"))
    out[insert_at:insert_at] = extra
    return out, marks
