"""Every skill Claude Code would load, in load order, with the state each one ends up in.

`load_registry(workspace)` scans all sources (sources.py, plugins.py, mcp.py), reads settings
(settings.py) and decides for each skill: realpath duplicate, shadowed (first match wins, as
findCommand in src/commands.ts), conditional/pending, listed (full / name-only / no) and who
may invoke it — each with a plain reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..collector import collector_paused
from ..load import parse_cache
from ..load.mcp import load_mcp_skills
from ..model import (BundledOff, BundledOffCause, Diagnostic, Invoker, Listed, Severity, Skill,
                     SkillKind, SkillState, SourceKind)
from ..load.plugins import Plugin, load_plugin_skills, marketplace_plugins, plugin_from_path, skill_file_listers
from ..versions.profiles import Profile
from ..load.settings import DenyRule, EffectiveSettings, display_names, load_settings
from ..load.sources import collect_file_sources
from ..load.workspace import Workspace
from ..versions.features import Feature

_SOURCE_RANK_WORDS = {
    SourceKind.MANAGED: "managed policy", SourceKind.USER: "user", SourceKind.PROJECT: "project",
    SourceKind.ADD_DIR: "--add-dir", SourceKind.COMMAND: "legacy command", SourceKind.PLUGIN_COMMAND: "plugin command",
    SourceKind.PLUGIN_SKILL: "plugin skill", SourceKind.BUNDLED: "bundled", SourceKind.BUILTIN_COMMAND: "built-in",
    SourceKind.MCP: "MCP",
}


@dataclass
class Conflict:
    """Copies of one skill name: the one that wins and the others, each with why it loses."""

    name: str
    winner: Skill
    losers: list[tuple[Skill, str]]


@dataclass
class Registry:
    """Every skill of a workspace with its decided state, and what decided it."""

    skills: list[Skill]
    diagnostics: list[Diagnostic]
    settings: EffectiveSettings
    profile: Profile
    workspace: Workspace
    plugins: list[Plugin] = field(default_factory=list)
    model: str = ""
    model_source: str = ""

    def find(self, name: str) -> Skill | None:
        """As the Skill tool resolves a name: leading `/` stripped, case-sensitive, first active match.
        A `name:` display name resolves too, in both versions (parse-edges: `Skill other-display-name` ran
        name-differs): legacy `findCommand` takes the first skill matching either; current `$s` an exact
        name first, then a display name."""
        name = name.strip()
        if name.startswith("/"):
            name = name[1:]
        return resolve_name(self.skills, name, self.profile)

    def copies(self, name: str) -> list[Skill]:
        name = name[1:] if name.startswith("/") else name
        return [s for s in self.skills if s.name == name]

    def winners(self) -> list[Skill]:
        return [s for s in self.skills if s.state.is_winner]

    def conflicts(self) -> list[Conflict]:
        by_name: dict[str, list[Skill]] = {}
        for skill in self.skills:  # a clashing --add-dir skill renamed `extra:x` (current) still clashes on `x`
            by_name.setdefault(skill.scoped_from or skill.name, []).append(skill)
        out: list[Conflict] = []
        for name, copies in by_name.items():
            if len(copies) < 2:
                continue
            winner = next((s for s in copies if s.state.is_winner and s.name == name), copies[0])
            losers = [(s, s.state.shadow_reason or _dup_reason(s) or _scoped_reason(s)) for s in copies
                      if s is not winner]
            out.append(Conflict(name, winner, losers))
        for skill in self.skills:  # the same file loaded under another name (e.g. a symlinked alias)
            first = skill.state.duplicate_of
            if first is not None and first.name != skill.name and len(by_name.get(skill.name, ())) < 2:
                out.append(Conflict(skill.name, first, [(skill, _dup_reason(skill))]))
        return out

    def by_source(self) -> list[tuple[str, str, list[Skill]]]:
        """(group key, label, skills) in precedence order: managed, user, each project level, add-dirs,
        legacy commands, plugins, bundled, MCP."""
        order = [SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND,
                 SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL, SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND,
                 SourceKind.MCP, SourceKind.DYNAMIC]
        groups: dict[str, tuple[SourceKind, str, list[Skill]]] = {}
        for skill in self.skills:
            key = skill.group or skill.source.value
            if key not in groups:
                groups[key] = (skill.source, _group_label(skill), [])
            groups[key][2].append(skill)
        ranked = sorted(groups.items(), key=lambda kv: order.index(kv[1][0]))  # stable within a kind
        return [(key, label, skills) for key, (_, label, skills) in ranked]


def resolve_name(skills: list[Skill], name: str, profile: Profile, *, for_model: bool = True) -> Skill | None:
    """The copy a name reaches among loaded, active skills (name already stripped of `/`): legacy `findCommand`
    takes the first matching name or display name; current `$s` an exact name first, then a display name, and
    for the model (Skill tool) a copy it may call comes first (dmi_yields_name, decide_states; fuzz-reg seeds 20,
    21, 22). Shared by Registry.find and expansion.resolve_skill."""
    candidates = [s for s in skills if s.state.duplicate_of is None and s.state.active]
    if profile.supports(Feature.EXACT_NAME_BEFORE_DISPLAY_NAME):
        if for_model and profile.supports(Feature.DMI_YIELDS_NAME):
            candidates = model_command_list(candidates)
        for skill in candidates:
            if skill.name == name:
                return skill
    for skill in candidates:  # `$s`: then a display name or an alias
        if skill.name == name or skill.display_name == name or name in skill.aliases:
            if _by_plugin_alias(skill, name) and len(alias_candidates(candidates, name)) > 1:
                return None  # claude.exe `ue`: a bare name two listed entries answer to is ambiguous
            return skill
    return None


def _by_plugin_alias(skill: Skill, name: str) -> bool:
    return skill.source in (SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND) and skill.name != name \
        and name in skill.aliases


def alias_candidates(skills: list[Skill], name: str) -> list[Skill]:
    """The listed entries a bare name could mean (claude.exe `ue` over `Te`): plugin entries carrying it as an
    alias and entries whose name ends in `:name`, in load order (expand-plugin-alias: `plug:twin2, plug:twin`)."""
    return [s for s in skills if not s.disable_model_invocation and s.state.listed is not Listed.NO
            and (_by_plugin_alias(s, name) or s.name.endswith(":" + name))]


def model_command_list(candidates: list[Skill]) -> list[Skill]:
    """current `dn`: the Skill tool looks names up in a list with one command per name -- the first copy,
    unless the model may not call it (disable-model-invocation) and a later copy may. A displaced copy is
    gone, display name included (fuzz-reg seed 1000: `Skill disp.v2` unknown, its dmi skill displaced by a
    same-named command)."""
    kept: dict[str, Skill] = {}
    for skill in candidates:
        first = kept.get(skill.name)
        if first is None or (first.disable_model_invocation and not skill.disable_model_invocation):
            kept[skill.name] = skill  # a dict keeps the first copy's position, as a JS Map does
    return list(kept.values())


def _group_label(skill: Skill) -> str:
    if skill.source in (SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND) and skill.source_root:
        return f"{skill.source.label}: {skill.source_root}"
    if skill.plugin:
        return f"Plugin {skill.plugin}"
    if skill.mcp_server:
        return f"MCP server {skill.mcp_server}"
    return skill.source.label


def _scoped_reason(skill: Skill) -> str:
    bare = skill.scoped_from
    if not bare:
        return ""
    return (f"The name {bare} is taken, so this --add-dir skill is listed as {skill.name} with a \"scoped to\" note "
            f"(Claude Code 2.1.3xx); /{bare} and the Skill tool reach the earlier copy.")


def _dup_reason(skill: Skill) -> str:
    first = skill.state.duplicate_of
    if first is None:
        return ""
    return skill.duplicate_reason or (
        f"same file as the {first.source.value} copy at {first.path} (realpath de-duplication: first loaded wins)")


def _bundled_skills(profile: Profile) -> list[Skill]:
    out = []
    for entry in profile.bundled:
        kind = SourceKind.BUILTIN_COMMAND if entry.kind == "builtin-command" else SourceKind.BUNDLED
        skill = Skill(name=entry.name, kind=SkillKind.SKILL, source=kind, source_root=None, path=None, skill_dir=None,
                      description="<bundled with Claude Code>", bundled_width=entry.width,
                      bundled_length=entry.length, aliases=entry.aliases)
        skill.group = kind.value
        skill.context = entry.context
        out.append(skill)
    return out


def load_registry(workspace: Workspace, progress: Callable[[str], None] | None = None) -> Registry:
    with collector_paused():  # ~8 % of a 5,000-skill scan otherwise (core/collector.py)
        if workspace.use_parse_cache and parse_cache.active() is None:
            cache = parse_cache.ParseCache.open(workspace.profile, parse_cache.app_cache_dir(workspace.env))
            with parse_cache.using(cache):
                return _load_registry(workspace, progress)
        return _load_registry(workspace, progress)


def _load_registry(workspace: Workspace, progress: Callable[[str], None] | None) -> Registry:
    profile = workspace.profile
    report = progress or (lambda _m: None)
    report("settings")
    settings = load_settings(workspace.config_home, workspace.cwd, workspace.managed_root, profile)
    diagnostics: list[Diagnostic] = list(settings.diagnostics)
    if profile.bundled_problem is not None:
        diagnostics.append(Diagnostic(Severity.ERROR, "bundled-data-unreadable", profile.bundled_problem))

    # the plugins are found first (their diagnostics still come after the scan's), so that a first scan's
    # parse-ahead child parses their skills too
    plugin_diagnostics: list[Diagnostic] = []
    plugins = [plugin_from_path(p, p.name, plugin_diagnostics) for p in workspace.plugin_dirs]
    session_names = {p.name for p in plugins}
    plugins += [p for p in marketplace_plugins(workspace.config_home, settings.enabled_plugins, plugin_diagnostics,
                                               dict(workspace.env)) if p.name not in session_names]
    scan = collect_file_sources(workspace, progress, also_parse=skill_file_listers(plugins, profile))
    diagnostics += scan.diagnostics
    diagnostics += plugin_diagnostics
    report("plugins")
    plugin_skills = load_plugin_skills(plugins, profile, diagnostics)
    report("MCP skills")
    mcp_skills = load_mcp_skills(workspace.mcp_skills_file, profile, diagnostics)
    bundled = _bundled_skills(profile)

    by_kind: dict[SourceKind, list[Skill]] = {}
    for skill in scan.skills + plugin_skills + bundled + mcp_skills:
        by_kind.setdefault(skill.source, []).append(skill)
    skills: list[Skill] = []
    for kind in profile.source_order:
        skills += by_kind.pop(kind, [])
    for rest in by_kind.values():
        skills += rest
    skills = arrange_load_order(skills, profile)
    for index, skill in enumerate(skills):
        skill.load_index = index

    model, model_source = workspace.resolved_model(settings.model, settings)
    registry = Registry(skills, diagnostics, settings, profile, workspace, plugins, model, model_source)
    decide_states(registry)
    return registry


def arrange_load_order(scanned: list[Skill], profile: Profile,
                       reuse: Callable[[Skill], Skill | None] | None = None) -> list[Skill]:
    """The load order Claude Code ends with, from the skills in scan order. current renames an --add-dir skill
    whose name an earlier managed/user/project/add-dir skill already has to `{add-dir basename}:{name}`, gives it
    the nested-skill `(scoped to …)` note and lists it after the bundled skills, before `init`/`security-review`
    (fuzz-reg seeds 1, 22, 30, 35, 38, 39: `extra:clash: … (scoped to extra/ — use this instead of the unscoped
    "clash" skill when the files being changed are under extra/)`).

    The renamed skill is a copy (its `scoped_original` is the scanned skill), so a full load and an incremental
    refresh (rules/incremental.py) both start from the scan order and make the same decision. `reuse(original)`
    may return the copy an earlier pass made, when nothing it depends on changed."""
    if not profile.supports(Feature.ADD_DIR_CLASH_SCOPED):
        return list(scanned)
    file_kinds = (SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR)
    taken: set[str] = set()
    folder_names: dict[Any, str] = {}  # scope dir -> its last part, worked out once per package
    moved: list[Skill] = []
    kept: list[Skill] = []
    for skill in scanned:
        if skill.source not in file_kinds or skill.state.duplicate_of is not None or skill.paths:
            kept.append(skill)
            continue
        if skill.source is SourceKind.ADD_DIR and skill.name in taken and skill.scope_dir is not None:
            base = folder_names.get(skill.scope_dir)
            if base is None:
                base = folder_names[skill.scope_dir] = Path(skill.scope_dir).name
            copy = reuse(skill) if reuse is not None else None
            moved.append(copy if copy is not None else _scoped_copy(skill, base))
            continue
        taken.add(skill.name)
        kept.append(skill)
    if not moved:
        return kept
    copies = {id(c.scoped_original): c for c in moved}
    for skill in kept:  # a later copy of the same file is a duplicate of the renamed skill
        first = skill.state.duplicate_of
        if first is not None and id(first) in copies:
            skill.state.duplicate_of = copies[id(first)]
    at = next((i for i, s in enumerate(kept) if s.source in (SourceKind.BUILTIN_COMMAND, SourceKind.MCP)), len(kept))
    return kept[:at] + moved + kept[at:]


def _scoped_copy(skill: Skill, base: str) -> Skill:
    copy = skill.shallow_copy()  # a FileBodySkill keeps reading its body on demand
    if getattr(skill, "_key", None) is not None:
        del copy._key  # the key cache of the scanned skill
    bare = skill.name
    copy.state = SkillState()
    copy.name = f"{base}:{bare}"
    copy.description = (f"{skill.description} (scoped to {base}/ \u2014 use this instead of the unscoped "
                        f"\"{bare}\" skill when the files being changed are under {base}/)")
    copy.display_name = None
    copy.scoped_from = bare
    copy.scoped_original = skill
    return copy


def decide_states(registry: Registry) -> None:
    profile, settings = registry.profile, registry.settings
    env = registry.workspace.env if registry.workspace is not None else None
    winners: dict[str, Skill] = {}
    for skill in registry.skills:
        state = skill.state
        state.bundled_off = bundled_off(skill, settings, profile, env)
        rule = settings.deny_rule_for(skill.name, display_names(skill))  # looked up once for every decision
        override = settings.override_for_skill(skill)
        state.decided_by = settings.decisions(skill, rule, override)
        state.conditional = bool(skill.paths)
        state.active = not state.conditional
        if state.duplicate_of is not None:
            state.listed, state.listed_reason = Listed.NO, "Not loaded: " + _dup_reason(skill) + "."
            state.invocable_by, state.invocable_reason = Invoker.NONE, "Not loaded: a duplicate of an earlier copy."
            continue
        if state.conditional:
            state.listed = Listed.NO
            state.listed_reason = (f"Conditional: held back until a file matching {', '.join(skill.paths or [])} "
                                   "is read, edited or written (paths are relative to the working directory).")
            state.invocable_by = Invoker.NONE
            state.invocable_reason = "Pending: not available until a matching file is touched."
            continue
        winner = winners.get(skill.name)
        if winner is None:
            # current: a disable-model-invocation copy does not claim the name for the model: the next copy is
            # listed and is what the Skill tool runs (fuzz-reg seeds 20, 21, 22: user `simplify` with dmi left
            # the bundled `simplify` listed and `Skill simplify` launched it)
            if not (profile.supports(Feature.DMI_YIELDS_NAME) and skill.disable_model_invocation):
                winners[skill.name] = skill
        else:
            state.shadowed_by = winner
            state.shadow_reason = _shadow_reason(skill, winner)
        _decide_invocation(skill, rule, override)
        _decide_listing(skill, settings, profile, rule, override)


def _shadow_reason(loser: Skill, winner: Skill) -> str:
    if winner.kind == "skill" and loser.kind == "command" and loser.source in (SourceKind.COMMAND,):
        return f"A skill beats a legacy command of the same name: {winner.source.value} skill {winner.path} wins."
    if winner.source is loser.source and winner.source is SourceKind.PROJECT:
        return (f"Project levels are searched from the working directory upward: {winner.source_root} "
                f"is nearer and wins.")
    if winner.source is loser.source:
        return f"Loaded earlier from the same kind of source ({winner.source_root}); the first match wins."
    return (f"Source precedence: {_SOURCE_RANK_WORDS.get(winner.source, winner.source.value)} beats "
            f"{_SOURCE_RANK_WORDS.get(loser.source, loser.source.value)} (the first match wins).")


def bundled_off(skill: Skill, settings: EffectiveSettings, profile: Profile,
                env: Mapping[str, str] | None) -> BundledOff | None:
    """claude.exe `f7`: `CLAUDE_CODE_DISABLE_BUNDLED_SKILLS || settings.disableBundledSkills === true` drops
    the bundled skills and hides the built-in prompt commands from the model; the built-in plugin skills
    (profile.bundled_kept_when_disabled, fuzz-reg seed 4) are not bundled skills. The variable is named
    first: turning the setting off would not bring the skills back while it is set."""
    if skill.source not in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND) \
            or not profile.supports(Feature.DISABLE_BUNDLED_SKILLS) or skill.name in profile.bundled_kept_when_disabled:
        return None
    if (env or {}).get("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"):
        return BundledOff(BundledOffCause.ENVIRONMENT, "environment")
    entry = settings.disable_bundled_skills
    if entry is not None and entry[0]:
        return BundledOff(BundledOffCause.SETTING, entry[1], entry[2])
    return None


def _bundled_off_words(off: BundledOff) -> str:
    return "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS" if off.cause is BundledOffCause.ENVIRONMENT else "disableBundledSkills"


def _decide_invocation(skill: Skill, rule: DenyRule | None, override: tuple[str, str, Path | None] | None) -> None:
    state = skill.state
    if state.shadowed_by is not None:
        state.invocable_by = Invoker.NONE
        state.invocable_reason = f"Shadowed: /{skill.name} and the Skill tool reach the {state.shadowed_by.source.value} copy."
        return
    model_ok, user_ok = True, skill.user_invocable
    reasons: list[str] = []
    if not skill.user_invocable:
        reasons.append("user-invocable: false hides it from the / menu")
    if skill.disable_model_invocation:
        model_ok = False
        reasons.append("disable-model-invocation: true keeps the model from calling it")
    if rule is not None:
        model_ok = False
        reasons.append(f"the deny rule {rule.text} in {rule.scope} settings ({rule.file}) blocks the Skill tool")
    if override is not None:  # None for plugin skills (settings.py, overrides-* goldens)
        value, scope, file = override
        if value == "off":
            model_ok = user_ok = False
            reasons.append(f"skillOverrides \"off\" in {scope} settings ({file}) turns it off")
        elif value == "user-invocable-only":
            model_ok = False
            reasons.append(f"skillOverrides \"user-invocable-only\" in {scope} settings ({file}) hides it from the model")
    off = state.bundled_off
    if off is not None and skill.source is SourceKind.BUNDLED:
        model_ok = user_ok = False
        reasons.append(f"{_bundled_off_words(off)} removes bundled skills")
    if off is not None and skill.source is SourceKind.BUILTIN_COMMAND:
        model_ok = False
        reasons.append(f"{_bundled_off_words(off)} hides built-in commands from the model")
    state.invocable_by = {(True, True): Invoker.BOTH, (True, False): Invoker.MODEL,
                          (False, True): Invoker.USER, (False, False): Invoker.NONE}[(model_ok, user_ok)]
    state.invocable_reason = ("; ".join(reasons) + ".") if reasons else "Callable by the model and as /" + skill.name + "."
    if reasons:
        state.invocable_reason = state.invocable_reason[0].upper() + state.invocable_reason[1:]


def _decide_listing(skill: Skill, settings: EffectiveSettings, profile: Profile, rule: DenyRule | None,
                    override: tuple[str, str, Path | None] | None) -> None:
    state = skill.state
    if state.shadowed_by is not None and not profile.supports(Feature.LISTING_KEEPS_EVERY_COPY):
        state.listed, state.listed_reason = Listed.NO, "Shadowed: this version lists only the first copy of a name."
        return
    if skill.disable_model_invocation:
        state.listed, state.listed_reason = Listed.NO, "disable-model-invocation hides it from the listing."
        return
    if skill.source in (SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL, SourceKind.MCP) and \
            skill.description_from_body and not skill.when_to_use:
        state.listed = Listed.NO
        state.listed_reason = "Plugin and MCP entries need a description or when_to_use to be listed."
        return
    off = state.bundled_off
    if off is not None and skill.source is SourceKind.BUNDLED:
        state.listed, state.listed_reason = Listed.NO, f"{_bundled_off_words(off)} removes bundled skills."
        return
    if off is not None and skill.source is SourceKind.BUILTIN_COMMAND:
        state.listed = Listed.NO
        state.listed_reason = f"{_bundled_off_words(off)} hides built-in commands from the listing."
        return
    if override is not None and override[0] != "on":
        value, scope, file = override
        if value == "name-only":
            state.listed = Listed.NAME_ONLY
            state.listed_reason = f"skillOverrides \"name-only\" in {scope} settings ({file}): listed by name only."
        else:
            state.listed = Listed.NO
            state.listed_reason = f"skillOverrides \"{value}\" in {scope} settings ({file}) removes it from the listing."
        return
    state.listed = Listed.FULL
    if state.shadowed_by is not None:
        state.listed_reason = "Listed although shadowed: this version lists every copy of a name."
    elif rule is not None:
        state.listed_reason = "Listed: a deny rule blocks invocation but does not hide the skill."
    elif profile.supports(Feature.SKILL_OVERRIDES) and _ignored_plugin_override(skill, settings):
        state.listed_reason = ("Listed in full: its skillOverrides key has no effect on plugin skills (Claude Code "
                               "2.1.332 ignored both the bare and the plugin:name key for a --plugin-dir plugin).")
    else:
        state.listed_reason = "Listed with its description (before the listing budget is applied)."


def _ignored_plugin_override(skill: Skill, settings: EffectiveSettings) -> bool:
    """A skillOverrides key naming a plugin skill (bare or plugin:name): present but not applied."""
    if skill.source not in (SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND):
        return False
    bare = skill.name.split(":", 1)[-1]
    return settings.override_for(skill.name) is not None or settings.override_for(bare) is not None
