"""Live refresh without a full rescan: re-read only the changed skill files, re-decide only the
names they touch, and say what changed.

    delta = refresh_paths(registry, changed_paths)
    delta.registry            # the registry after the change (a new object; `registry` is not modified)
    delta.changed / added / removed

What is handled in place (everything else falls back to a full `load_registry`, which is always right):
- a SKILL.md edited, added or deleted, a skill folder added, removed or renamed, in one of the skills
  dirs `collect_file_sources` reads (managed, user, each project level, --add-dir);
- user / project / local / managed settings files: settings re-read, every skill re-decided (the
  files and their order are unchanged). A change to `enabledPlugins` reloads everything (plugins).

Why a name is enough: shadowing (first copy of a name wins), current's --add-dir clash rename and the
settings decisions only depend on the skill and the other copies of its name. The new load order comes
from the scan order through the registry's own `arrange_load_order`, as in a full load. Realpath
de-duplication links skills across names, so a change that touches a duplicate (or the first copy of
one) takes the full reload.

Skill objects of the old registry are never mutated, except `load_index` of the skills after an
added or removed one (it is renumbered so that the new registry matches a full load exactly).
"""
from __future__ import annotations

import bisect
import dataclasses
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..edit.atomic_write import TEMP_PREFIX
from ..model import Diagnostic, Skill, SourceKind, SkillKind
from ..versions.features import Feature
from .registry import Registry, arrange_load_order, decide_states, load_registry
from ..load.settings import load_settings, settings_paths
from ..load.skill_file import load_skill_file
from ..load.sources import env_truthy, entry_order_key, project_dirs_up_to_home
from ..load.workspace import Workspace

__all__ = ["RegistryDelta", "refresh_paths", "skill_identity", "skills_dirs"]

_FILE_SKILL_KINDS = (SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR)


@dataclass
class RegistryDelta:
    registry: Registry
    changed: list[Skill] = field(default_factory=list)  # new objects replacing rows with the same identity
    added: list[Skill] = field(default_factory=list)
    removed: list[Skill] = field(default_factory=list)  # objects of the old registry
    full_reload: bool = False  # load_registry ran: every object is new
    settings_reloaded: bool = False  # every skill was re-decided: every object is new
    reason: str = ""  # why a full reload was needed, or what was done

    @property
    def structural(self) -> bool:
        """Rows appear or disappear (or every object was replaced): the caller re-groups."""
        return bool(self.added or self.removed or self.full_reload or self.settings_reloaded)

    @property
    def empty(self) -> bool:
        return not (self.changed or self.structural)


def skill_identity(skill: Skill) -> tuple[str, str, str]:
    """A key that survives a reload (load_index shifts when a skill is added before this one)."""
    return (skill.source.value, str(skill.path) if skill.path else "", skill.name)


@dataclass(frozen=True)
class _SkillsDir:
    base: Path
    source: SourceKind
    scope_dir: Path
    rank: int  # position in the load order of the file sources


def skills_dirs(workspace: Workspace) -> list[_SkillsDir]:
    """The skills dirs collect_file_sources reads, in its order (keep the two in step)."""
    out: list[tuple[Path, SourceKind, Path]] = []
    if workspace.managed_root is not None and not env_truthy(workspace.env.get("CLAUDE_CODE_DISABLE_POLICY_SKILLS")):
        out.append((workspace.managed_root / ".claude" / "skills", SourceKind.MANAGED, workspace.managed_root))
    out.append((workspace.config_home / "skills", SourceKind.USER, workspace.config_home))
    for skills_dir in project_dirs_up_to_home("skills", workspace.cwd, workspace.home):
        out.append((skills_dir, SourceKind.PROJECT, skills_dir.parent.parent))
    for add_dir in workspace.add_dirs:
        out.append((add_dir / ".claude" / "skills", SourceKind.ADD_DIR, add_dir))
    return [_SkillsDir(Path(base), source, Path(scope), rank) for rank, (base, source, scope) in enumerate(out)]


class _NeedsFullReload(Exception):
    pass


# --------------------------------------------------------------------------- classifying paths


@dataclass
class _Work:
    entries: dict[tuple[Path, str], _SkillsDir] = field(default_factory=dict)  # (skills dir, entry name)
    settings: bool = False


def _classify(registry: Registry, paths: Iterable[str | os.PathLike[str]]) -> _Work:
    workspace = registry.workspace
    dirs = {d.base: d for d in skills_dirs(workspace)}
    settings_files = {Path(p) for _scope, p in settings_paths(workspace.config_home, workspace.cwd,
                                                              workspace.managed_root)}
    drop_in = workspace.managed_root / "managed-settings.d" if workspace.managed_root is not None else None
    work = _Work()
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if path.name.startswith(TEMP_PREFIX) and path.name.endswith(".tmp"):
            continue  # atomic_write's own temp file: never read by Claude Code
        if path in settings_files or (drop_in is not None and path.parent == drop_in) or path == drop_in:
            work.settings = True
            continue
        if path in dirs:
            raise _NeedsFullReload(f"a skills dir itself changed ({path})")
        if path.name == "SKILL.md" and path.parent.parent in dirs:
            work.entries[(path.parent.parent, path.parent.name)] = dirs[path.parent.parent]
            continue
        if path.parent in dirs:  # a skill folder (or a stray file) added, removed or renamed
            work.entries[(path.parent, path.name)] = dirs[path.parent]
            continue
        if any(ancestor in dirs for ancestor in path.parents[1:]):
            continue  # another file inside a skill folder: the registry reads only SKILL.md
        raise _NeedsFullReload(f"{path} is not a skill file or a settings file")
    return work


# --------------------------------------------------------------------------- entry point


def refresh_paths(registry: Registry, changed_paths: Iterable[str | os.PathLike[str]]) -> RegistryDelta:
    """Bring `registry` up to date with the files in `changed_paths` (as a file watcher reports them).

    Returns a RegistryDelta whose `registry` equals what `load_registry(registry.workspace)` would
    return now. Never raises on odd input: anything it cannot handle in place takes the full reload."""
    try:
        work = _classify(registry, changed_paths)
        skills = list(registry.skills)
        delta = RegistryDelta(registry=registry)
        if work.entries:
            scanned = _apply_entries(registry, _scan_order(registry), work.entries, delta)
            skills = _arrange(registry, scanned, delta)
        if work.settings:
            return _reload_settings(registry, skills, delta)
        if not work.entries:
            delta.reason = "nothing that the registry reads changed"
            return delta
        clones = _redecide(registry, skills, delta)
        _remember_scan_order(delta.registry.skills, [clones.get(id(s), s) for s in scanned])
        return delta
    except _NeedsFullReload as why:
        return _full_reload(registry, str(why))


def _full_reload(registry: Registry, reason: str) -> RegistryDelta:
    new = load_registry(registry.workspace)
    old_by_id = {skill_identity(s): s for s in registry.skills}
    new_ids = set()
    delta = RegistryDelta(registry=new, full_reload=True, reason=reason)
    for skill in new.skills:
        identity = skill_identity(skill)
        new_ids.add(identity)
        (delta.changed if identity in old_by_id else delta.added).append(skill)
    delta.removed = [s for s in registry.skills if skill_identity(s) not in new_ids]
    return delta


# --------------------------------------------------------------------------- skill files


def _is_entry_dir(path: Path) -> tuple[bool, bool]:
    """(exists as a dir or link, is a link) — load_skills_dir's _is_dir_or_link on one entry."""
    try:
        st = os.lstat(path)
    except OSError:
        return False, False
    link = stat.S_ISLNK(st.st_mode)
    return stat.S_ISDIR(st.st_mode) or link, link


def _dir_key(skill: Skill) -> tuple[str, str] | None:
    """(skills dir, entry name) of a file-source skill, as text: the scan's own record of the entry when it
    has one (hashing Paths or taking their basenames for thousands of skills made a one-file refresh slow)."""
    if skill.kind != "skill" or skill.source not in _FILE_SKILL_KINDS or skill.skill_dir is None \
            or skill.source_root is None:
        return None
    entry = skill.dir_entry  # (os.fspath(skills dir), entry name, file read), set by load_skills_dir
    if entry is not None:
        return entry[0], entry[1]
    return os.fspath(skill.source_root), os.path.basename(os.fspath(skill.skill_dir))


def _load_entry(registry: Registry, where: _SkillsDir, name: str) -> Skill | None:
    skill_dir = where.base / name
    skipped: list[Diagnostic] = []
    skill = load_skill_file(skill_dir / "SKILL.md", name=name, kind=SkillKind.SKILL, source=where.source,
                            profile=registry.profile, source_root=where.base, skill_dir=skill_dir,
                            fallback_label="Skill", scope_dir=where.scope_dir, skipped=skipped)
    if skipped:  # an unreadable file is a workspace diagnostic ("skill-skipped"): load_registry places it
        raise _NeedsFullReload(f"{skill_dir / 'SKILL.md'} cannot be read")
    if skill is not None:  # as load_skills_dir tags it
        skill.group = f"{where.source.value}:{where.scope_dir or where.base}"
    return skill


def _apply_entries(registry: Registry, skills: list[Skill], entries: dict[tuple[Path, str], _SkillsDir],
                   delta: RegistryDelta) -> list[Skill]:
    wanted = {(str(base), name) for base, name in entries}
    position: dict[tuple[str, str], int] = {}  # (skills dir text, entry name) -> index in `skills`
    for index, skill in enumerate(skills):
        key = _dir_key(skill)
        if key is not None and key in wanted:
            position[key] = index
    pointed_at = {id(s.state.duplicate_of) for s in skills if s.state.duplicate_of is not None}
    realpaths = {s.realpath_text for s in skills if s.realpath_text is not None}
    replace: dict[int, Skill] = {}
    remove: set[int] = set()
    add: list[tuple[_SkillsDir, Skill]] = []
    # workspace diagnostics about an entry (a skipped file, a loop) go away or change only in a full reload
    flagged = {str(d.path) for d in registry.diagnostics if d.path is not None}
    for (base, name), where in sorted(entries.items(), key=lambda kv: (kv[1].rank, kv[0][1])):
        entry = str(base / name)
        if any(f == entry or f.startswith(entry + os.sep) for f in flagged):
            raise _NeedsFullReload(f"{entry} has a workspace diagnostic")
        at = position.get((str(base), name))
        old = skills[at] if at is not None else None
        present, link = _is_entry_dir(base / name)
        fresh = _load_entry(registry, where, name) if present else None
        if old is not None and (old.state.duplicate_of is not None or id(old) in pointed_at):
            raise _NeedsFullReload(f"{old.path} takes part in realpath de-duplication")
        if fresh is None:
            if at is not None:
                remove.add(at)
            continue
        assert fresh.path is not None  # load_skill_file gives every skill its file
        via_link = link
        fresh.via_link = via_link
        if old is not None and at is not None:
            real = os.path.realpath(fresh.path) if via_link or old.via_link else None
            if real is not None and old.realpath_text is not None and real != old.realpath_text:
                raise _NeedsFullReload(f"{base / name} now points somewhere else")
            fresh.realpath = old.realpath_text
            fresh.load_index = old.load_index
            replace[at] = fresh
            continue
        if via_link:
            raise _NeedsFullReload(f"{base / name} is a symbolic link (realpath de-duplication)")
        real = os.path.realpath(fresh.path)
        if real in realpaths:
            raise _NeedsFullReload(f"{real} is already loaded under another name")
        fresh.realpath = real
        add.append((where, fresh))

    delta.removed = [skills[i] for i in sorted(remove)]
    for index, fresh in replace.items():
        delta.changed.append(fresh)
        skills[index] = fresh
    skills = [s for i, s in enumerate(skills) if i not in remove]
    if add:
        skills = _insert_in_load_order(registry, skills, [fresh for _where, fresh in add])
        delta.added = [fresh for _where, fresh in add]
    return skills


def _insert_in_load_order(registry: Registry, skills: list[Skill], add: list[Skill]) -> list[Skill]:
    """Place skills where the scan puts them: by source kind, then skills dir, then entry (sources.py)."""
    profile = registry.profile
    order = list(profile.source_order)
    kind_rank = {kind: order.index(kind) if kind in order else len(order) for kind in SourceKind}
    dir_rank = {str(d.base): d.rank for d in skills_dirs(registry.workspace)}

    order_keys = _ENTRY_ORDER_KEYS.setdefault(profile.features, {})
    if len(order_keys) > _ENTRY_ORDER_KEYS_LIMIT:
        order_keys.clear()

    def rank(skill: Skill) -> tuple[object, ...]:
        key = _dir_key(skill)
        if key is None:
            return (kind_rank[skill.source],)
        base = key[0]
        if base not in dir_rank:
            raise _NeedsFullReload(f"the skills dir {base} is no longer read")
        entry = key[1]
        order = order_keys.get(entry)
        if order is None:
            order = order_keys[entry] = entry_order_key(entry, profile)
        return (kind_rank[skill.source], dir_rank[base], order)

    # every rank once (a bisect with key= recomputes it at each probe: 50,000 collation keys per refresh when
    # most skills are renamed --add-dir copies); the same probes on the same keys, so the same places
    out = list(skills)
    ranks = [rank(skill) for skill in out]
    for fresh in sorted(add, key=rank):  # the scan order is sorted by rank: after the last equal or lower one
        fresh_rank = rank(fresh)
        at = bisect.bisect_right(ranks, fresh_rank)
        out.insert(at, fresh)
        ranks.insert(at, fresh_rank)
    return out


# entry name -> entry_order_key, per feature set (the key reads only the name and the profile's features)
_ENTRY_ORDER_KEYS: dict[frozenset[Feature], dict[str, tuple[object, ...]]] = {}
_ENTRY_ORDER_KEYS_LIMIT = 100_000


# (skills list of the newest registry refresh_paths made, that registry's scan order): the next refresh of
# that registry starts from it instead of ranking every skill again (15 ms of a one-file edit at 5,000 skills)
_LAST_SCAN_ORDER: list[tuple[list[Skill], list[Skill]]] = []


def _remember_scan_order(skills: list[Skill], scanned: list[Skill]) -> None:
    _LAST_SCAN_ORDER[:] = [(skills, scanned)]


def _scan_order(registry: Registry) -> list[Skill]:
    """The skills in the order the scan gave them: each renamed --add-dir copy (current's `extra:clash`)
    replaced by the skill as scanned, back in its place."""
    skills = registry.skills
    for known_skills, scanned in _LAST_SCAN_ORDER:
        if known_skills is skills:  # the list is held: it is this registry's own, never changed since
            return list(scanned)
    originals = [s.scoped_original for s in skills if s.scoped_original is not None]
    if not originals:
        return list(skills)
    if any(s.state.duplicate_of is not None and s.state.duplicate_of.scoped_original is not None for s in skills):
        raise _NeedsFullReload("a renamed --add-dir skill takes part in realpath de-duplication")
    return _insert_in_load_order(registry, [s for s in skills if s.scoped_original is None], originals)


def _arrange(registry: Registry, scanned: list[Skill], delta: RegistryDelta) -> list[Skill]:
    """The new load order from the new scan order, by the registry's own arrange_load_order; a renamed copy
    is kept unless its bare name was touched. Fills `delta` from what came and went (by identity)."""
    touched = {s.name for s in delta.changed + delta.added + delta.removed}
    old_copies = {_dir_key(s): s for s in registry.skills if s.scoped_original is not None}

    def reuse(original: Skill) -> Skill | None:
        copy = old_copies.get(_dir_key(original))
        if copy is None or copy.scoped_original is not original or original.name in touched:
            return None
        return copy

    skills = arrange_load_order(scanned, registry.profile, reuse)
    for index, skill in enumerate(skills):
        if skill.load_index != index:
            skill.load_index = index  # the one field shared objects get written (see module doc)
    old_ids = {id(s) for s in registry.skills}
    new_ids = {id(s) for s in skills}
    gone = {skill_identity(s): s for s in registry.skills if id(s) not in new_ids}
    came = [s for s in skills if id(s) not in old_ids]
    delta.changed = [s for s in came if skill_identity(s) in gone]
    delta.added = [s for s in came if skill_identity(s) not in gone]
    replaced = {skill_identity(s) for s in delta.changed}
    delta.removed = [s for identity, s in gone.items() if identity not in replaced]
    return skills


# --------------------------------------------------------------------------- deciding


def _clone(skill: Skill) -> Skill:
    """A shallow copy with its own state, so deciding never mutates an object the caller shows."""
    copy = skill.shallow_copy()  # a FileBodySkill keeps reading its body on demand
    state = object.__new__(type(skill.state))
    state.__dict__.update(skill.state.__dict__)
    state.shadowed_by, state.shadow_reason = None, ""  # decide_states only sets these on losers
    state.decided_by = list(state.decided_by)
    copy.state = state
    return copy


def _redecide(registry: Registry, skills: list[Skill], delta: RegistryDelta) -> dict[int, Skill]:
    """Re-decide every copy of the touched names; other skills keep their objects and states. Returns
    id(replaced skill) -> its clone."""
    fresh_ids = {id(s) for s in delta.changed + delta.added}
    names = {s.name for s in delta.changed + delta.added + delta.removed}
    subset: list[Skill] = []
    clones: dict[int, Skill] = {}
    for index, skill in enumerate(skills):
        if skill.name not in names:
            continue
        if id(skill) not in fresh_ids:
            clone = clones[id(skill)] = skills[index] = _clone(skill)
            delta.changed.append(clone)
            skill = clone
        subset.append(skill)
    # decide_states walks the skills in load order: a subset holding every copy of a name decides it
    # exactly as the whole list would (winners are per name; settings decisions per skill)
    decide_states(dataclasses.replace(registry, skills=subset))
    delta.registry = dataclasses.replace(registry, skills=skills)
    delta.reason = f"re-read {len(fresh_ids)} skill file(s), re-decided {len(names)} name(s)"
    return clones


def _reload_settings(registry: Registry, skills: list[Skill], delta: RegistryDelta) -> RegistryDelta:
    workspace, old = registry.workspace, registry.settings
    settings = load_settings(workspace.config_home, workspace.cwd, workspace.managed_root, registry.profile)
    if {k: v[0] for k, v in settings.enabled_plugins.items()} != {k: v[0] for k, v in old.enabled_plugins.items()}:
        raise _NeedsFullReload("enabledPlugins changed: plugins are reloaded")
    clones: dict[int, Skill] = {}
    new_skills = []
    for skill in skills:
        copy = _clone(skill)
        clones[id(skill)] = copy
        new_skills.append(copy)
    for copy in new_skills:  # duplicates point at the new objects
        first = copy.state.duplicate_of
        if first is not None:
            copy.state.duplicate_of = clones.get(id(first), first)
    rest = registry.diagnostics[len(old.diagnostics):]  # settings diagnostics come first (load_registry)
    model, model_source = workspace.resolved_model(settings.model, settings)
    new = dataclasses.replace(registry, skills=new_skills, settings=settings,
                              diagnostics=list(settings.diagnostics) + list(rest), model=model,
                              model_source=model_source)
    decide_states(new)
    fresh = {id(s) for s in delta.changed + delta.added}
    delta.changed = [clones[id(s)] if id(s) in clones else s for s in delta.changed]
    delta.added = [clones[id(s)] if id(s) in clones else s for s in delta.added]
    seen = {id(s) for s in delta.changed + delta.added}
    delta.changed += [c for old_id, c in clones.items() if old_id not in fresh and id(c) not in seen]
    delta.registry = new
    delta.settings_reloaded = True
    delta.reason = "settings re-read; every skill re-decided"
    return delta
