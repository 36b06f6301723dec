"""Turning skills on and off through the mechanisms Claude Code really reads (spec §6).

Three steps, each safe to show in a UI before the next:

    state = effective_toggle_state(registry, skill)   # what is in force, which file decides, controls
    plan  = plan_toggle(registry, skill, "name-only") # which file, which key/line, a preview diff — or a refusal
    done  = apply_plan(plan)                          # re-check, back up, write atomically
    undo(done)                                        # session undo (refused if the file changed since)

Mechanisms per profile:
- current (2.1.3xx): `skillOverrides` {name: on|name-only|user-invocable-only|off} in user / project / local
  settings; `permissions.deny` `Skill(name)` rules; `disable-model-invocation: true` in the front matter;
  `disableBundledSkills`.
- legacy (2.1.88): no skillOverrides. Only "hidden" (front matter) and "blocked" (deny rule) exist.

Settled with the oracle (tests/oracle/FINDINGS-toggle.md, tests/golden/toggle-*): the key is the skill's
invocation name; a scoped nested skill (`packages/api:x`) also answers to its bare name; bundled skills
and built-in prompt commands use their bare name; plugin skills and commands loaded from a plugin dir
ignore skillOverrides under both `plugin:name` and the bare name.

Files are edited at the text level (json_text_edit / frontmatter_edit) and written with atomic_write:
only the intended key or line changes, through symlinks, with a backup in the app's data dir.
"""
from __future__ import annotations

import contextvars
import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from . import atomic_write
from . import frontmatter_edit
from . import history
from . import json_text_edit
from .file_lock import locked
from ..app_dirs import app_data_dir as default_app_data_dir
from ..model import BundledOff, BundledOffCause, DecisionKind, SettingDecision, Skill, SourceKind
from ..load.settings import DenyRule, display_names, parse_skill_rule, read_settings_json, rule_form, settings_paths
from ..load.sources import find_git_root
from ..versions.features import Feature
from ..versions.profiles import Profile

if TYPE_CHECKING:  # rules/ imports this module (remedy): the registry is only named in annotations
    from ..rules.registry import Registry

__all__ = [
    "STATES", "OVERRIDE_STATES", "ToggleChoice", "WRITABLE_SCOPES", "ToggleError", "Control", "ToggleState", "FileEdit",
    "TogglePlan", "AppliedChange", "override_keys", "default_scope", "effective_toggle_state", "plan_toggle",
    "plan_disable_bundled", "apply_plan", "undo",
]

class ToggleChoice(StrEnum):
    """What a caller may ask for: a skillOverrides value, or hidden/blocked and the actions that undo them."""

    ON = "on"
    NAME_ONLY = "name-only"
    USER_INVOCABLE_ONLY = "user-invocable-only"
    OFF = "off"
    HIDDEN = "hidden"
    UNHIDE = "unhide"  # removes what "hidden" adds
    BLOCKED = "blocked"
    UNBLOCK = "unblock"  # removes what "blocked" adds


OVERRIDE_STATES: tuple[ToggleChoice, ...] = (ToggleChoice.ON, ToggleChoice.NAME_ONLY, ToggleChoice.USER_INVOCABLE_ONLY,
                                             ToggleChoice.OFF)
STATES: tuple[ToggleChoice, ...] = tuple(ToggleChoice)
WRITABLE_SCOPES = ("user", "project", "local")  # lowest to highest priority; managed is never written
_SCOPE_RANK = {"user": 0, "project": 1, "local": 2, "managed": 3}
_DMI = "disable-model-invocation"

LEGACY_NO_OVERRIDES = (
    "Claude Code 2.1.88 (legacy profile) has no skillOverrides setting: \"{state}\" does not exist there. "
    "What it can express is \"hidden\" (disable-model-invocation: true in the skill's front matter: hidden from "
    "the model, /name still works) and \"blocked\" (a permissions.deny rule Skill(name): the model's Skill calls "
    "are refused, but the skill stays listed).")
PLUGIN_IGNORES_OVERRIDES = (
    "Claude Code 2.1.332 ignores skillOverrides for skills and commands of a plugin (tried with both "
    "\"{name}\" and the bare name, see tests/oracle/FINDINGS-toggle.md). Turn the whole plugin off in /plugin "
    "(enabledPlugins), or block the skill with a deny rule.")
BLOCKED_EXPLAINED = ("blocked but still listed: the deny rule {rule} in {scope} settings ({file}) refuses the "
                     "model's Skill calls; the skill stays in the listing the model sees")


class ToggleError(RuntimeError):
    """A write or undo was refused; nothing was changed. The message is one plain paragraph."""


# --------------------------------------------------------------------------- results


@dataclass
class Control:
    """One toggle the UI can offer for a skill (a button / menu entry)."""

    state: str  # what it asks for: one of STATES
    mechanism: str  # "skillOverrides" | "deny" | "front-matter"
    enabled: bool
    reason: str  # why it is disabled, or what it will do
    active: bool = False  # this is the state in force now
    scope: str | None = None  # the scope it would write by default
    offered: bool = True  # False: a state this release cannot express at all (no choice to show, not a refusal)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "offered"}


@dataclass
class ToggleState:
    """What is in force for one skill and which file decides it."""

    name: str
    profile: Profile
    state: str  # "on" | "name-only" | "user-invocable-only" | "off" | "hidden"
    summary: str  # one plain sentence for the detail pane
    decided_by: SettingDecision | None  # the skillOverrides / disableBundledSkills / front-matter decision
    override_key: str | None  # the skillOverrides key that matched
    hidden: bool  # disable-model-invocation in force
    blocked: bool
    deny_rule: DenyRule | None
    blocked_summary: str | None  # "blocked but still listed: …"
    locked: bool  # managed policy decides: the user's choice has no effect
    locked_reason: str | None
    editable_files: bool  # the skill's own files may be edited (front matter controls)
    editable_reason: str
    default_scope: str
    controls: list[Control] = field(default_factory=list)
    overrides_ignored: str | None = None  # why no skillOverrides value reaches this skill (plugins), else None

    @property
    def offered_controls(self) -> list[Control]:
        """The controls a UI shows as choices (enabled or with their reason), in order."""
        return [c for c in self.controls if c.offered]

    def to_json(self) -> dict[str, Any]:
        rule = self.deny_rule
        return {
            "name": self.name, "profile": self.profile.name, "state": self.state, "summary": self.summary,
            "decided_by": self.decided_by.to_json() if self.decided_by else None,
            "override_key": self.override_key, "hidden": self.hidden, "blocked": self.blocked,
            "deny_rule": None if rule is None else {"rule": rule.text, "scope": rule.scope,
                                                     "file": str(rule.file) if rule.file else None},
            "blocked_summary": self.blocked_summary, "locked": self.locked, "locked_reason": self.locked_reason,
            "editable_files": self.editable_files, "editable_reason": self.editable_reason,
            "default_scope": self.default_scope, "controls": [c.to_json() for c in self.controls],
        }


@dataclass
class FileEdit:
    """One file a plan changes: the bytes it had when planned and the bytes it will get."""

    path: Path  # as Claude Code reads it (may be a symlink)
    target: Path  # the file really written (symlinks followed)
    scope: str  # "user" | "project" | "local" | "front-matter"
    change: str  # the exact key/line, e.g. 'skillOverrides["x"]: (absent) → "off"'
    snapshot: atomic_write.Snapshot  # what was read when planning (exists == False: will be created)
    new_data: bytes
    diff: str  # unified diff of the text

    @property
    def creates(self) -> bool:
        return not self.snapshot.exists

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "target": str(self.target), "scope": self.scope, "change": self.change,
                "creates": self.creates, "diff": self.diff}


@dataclass
class TogglePlan:
    """What a toggle would write. `refusal` set → nothing may be written and `edits` is empty;
    `edits` empty without a refusal → nothing to do (`message` says why)."""

    name: str
    state: str
    profile: Profile
    scope: str | None
    mechanism: str | None
    edits: list[FileEdit] = field(default_factory=list)
    refusal: str | None = None
    message: str = ""  # what the plan does, or why there is nothing to do
    notes: list[str] = field(default_factory=list)  # effects worth knowing that the plan does not change
    allow_outside_link: bool = field(default=False, repr=False)  # the user confirmed a link leaving home/project

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def diff(self) -> str:
        return "".join(e.diff for e in self.edits)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "profile": self.profile.name, "scope": self.scope,
                "mechanism": self.mechanism, "ok": self.ok, "refusal": self.refusal, "message": self.message,
                "notes": self.notes, "edits": [e.to_json() for e in self.edits]}


@dataclass
class AppliedEdit:
    path: Path
    target: Path
    before: bytes
    existed: bool
    after: bytes
    backup: Path | None  # copy of `before` in the app data dir (None when the file was created)

    @property
    def after_sha256(self) -> str:
        """For a file watcher: a change event whose content has this hash is our own write."""
        return hashlib.sha256(self.after).hexdigest()


@dataclass
class AppliedChange:
    """A plan that was written. Keep it for `undo` (session undo)."""

    plan: TogglePlan
    edits: list[AppliedEdit]
    undone: bool = False
    history_id: str | None = None  # its entry in the History journal (None: the journal could not be written)

    @property
    def written_paths(self) -> list[Path]:
        return [e.target for e in self.edits]

    def to_json(self) -> dict[str, Any]:
        return {"plan": self.plan.to_json(), "written": [str(e.target) for e in self.edits],
                "backups": [str(e.backup) if e.backup else None for e in self.edits], "undone": self.undone}


# Texts a batch has already planned for a settings file (path → (snapshot read first, text so far)): the next
# plan of the same batch edits that text, so several toggles become one write (core.edit.batch).
pending_texts: contextvars.ContextVar[dict[Path, tuple[atomic_write.Snapshot, str]] | None] = contextvars.ContextVar(
    "pending_texts", default=None)

# --------------------------------------------------------------------------- facts about a skill


def _has_overrides(registry: Registry) -> bool:
    return registry.profile.supports(Feature.SKILL_OVERRIDES)


def _under(path: Path | None, root: Path | None) -> bool:
    if path is None or root is None:
        return False
    try:
        Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
        return True
    except ValueError:
        return False


def _files_editable(registry: Registry, skill: Skill) -> tuple[bool, str]:
    """Whether skillmanager may edit the skill's own file, with the reason when not."""
    ws = registry.workspace
    if not skill.source.user_editable:
        why = {
            SourceKind.MANAGED: "it is installed by managed policy (an administrator's file)",
            SourceKind.PLUGIN_SKILL: "it belongs to a plugin; a plugin update would overwrite the change",
            SourceKind.PLUGIN_COMMAND: "it belongs to a plugin; a plugin update would overwrite the change",
            SourceKind.BUNDLED: "it is compiled into Claude Code",
            SourceKind.BUILTIN_COMMAND: "it is compiled into Claude Code",
            SourceKind.MCP: "it is served by an MCP server",
        }.get(skill.source, f"it comes from {skill.source.label}")
        return False, f"Its files are not yours to edit ({why}): only settings-level controls are offered."
    if _under(skill.path, ws.managed_root):
        return False, ("Its file is installed by managed policy (an administrator's file): "
                       "only settings-level controls are offered.")
    if skill.path is None:
        return False, "It has no file on disk: only settings-level controls are offered."
    return True, f"Its front matter can be edited ({skill.path})."


def default_scope(registry: Registry, skill: Skill) -> str:
    """Where a settings-level toggle goes when the user does not pick a scope.

    - skills of this project (project levels, nested dirs, project legacy commands, --add-dir, MCP):
      `local` — personal and uncommitted, affects only this working directory (issue 6: default for
      project skills); `project` would change it for the whole team.
    - user and managed skills, legacy commands under ~/.claude, plugins and bundled skills: `user` —
      they follow the user into every project, so the choice should too.
    """
    ws = registry.workspace
    if skill.source in (SourceKind.USER, SourceKind.MANAGED, SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND,
                        SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND):
        return "user"
    if skill.source is SourceKind.COMMAND and (_under(skill.path, ws.config_home) or
                                               _under(skill.path, ws.managed_root)):
        return "user"
    return "local"


def override_keys(skill: Skill) -> list[str]:
    """skillOverrides keys Claude Code 2.1.332 looks up for this skill, first match wins ([] = it ignores
    skillOverrides). Oracle: tests/golden/toggle-keys (full name first; a scoped nested `dir:name` also
    answers to `name`, as a clashing --add-dir skill renamed `extra:name` does (the registry's scoped_from,
    settings.override_for_skill); plugin entries answer to neither `plugin:name` nor the bare name)."""
    if skill.source in (SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND):
        return []
    keys = [skill.name]
    if skill.scoped_from:
        keys.append(skill.scoped_from)
    if skill.source is SourceKind.DYNAMIC and ":" in skill.name:
        prefix, _, bare = skill.name.rpartition(":")
        if "/" in prefix or bare:  # `packages/api:x` → also `x`
            keys.append(bare)
    return keys


@dataclass
class _FileValue:
    scope: str
    path: Path
    value: str


def _settings_files(registry: Registry) -> list[Any]:
    return list(registry.settings.files)


def _override_sources(registry: Registry, key: str) -> list[_FileValue]:
    """Every settings file that sets skillOverrides[key] to a valid value, lowest priority first."""
    out = []
    for sf in _settings_files(registry):
        data = sf.data
        if not isinstance(data, dict):
            continue
        overrides = data.get("skillOverrides")
        if isinstance(overrides, dict) and overrides.get(key) in OVERRIDE_STATES:
            out.append(_FileValue(sf.scope, Path(sf.path), overrides[key]))
    return out


def _effective_override(registry: Registry, skill: Skill) -> tuple[str | None, _FileValue | None, list[_FileValue]]:
    """(key, deciding file, all files setting that key): the first key with a value in the merged
    settings wins; within a key the highest-priority file wins (lodash merge, settings.ts)."""
    for key in override_keys(skill):
        sources = _override_sources(registry, key)
        if sources:
            return key, sources[-1], sources
    return None, None, []


def _policy_alias_override(registry: Registry, skill: Skill) -> tuple[str, _FileValue] | None:
    """(alias, managed file) when the registry turned a bundled skill's state by one of its aliases in managed
    policy (settings.override_for_skill: fuzz-reg seed 1030, managed `"review": "off"` hid code-review); the
    toggle never writes an alias, so the state is read from the registry's decision."""
    decided = next((d for d in skill.state.decided_by if d.kind is DecisionKind.SKILL_OVERRIDES), None)
    if decided is None or decided.scope != "managed" or not skill.aliases:
        return None
    policy = registry.settings.policy_overrides
    if skill.name in policy and policy[skill.name][0] == decided.value:
        return None
    alias = next((a for a in skill.aliases if a in policy and policy[a][0] == decided.value), None)
    if alias is None:
        return None
    return alias, _FileValue("managed", Path(decided.file) if decided.file else Path(), decided.value)


def _deny_rules(registry: Registry) -> list[DenyRule]:
    """Every Skill deny rule of every file (settings.py de-duplicates by text across files; an unblock
    must see each copy)."""
    out = []
    for sf in _settings_files(registry):
        perms = sf.data.get("permissions") if isinstance(sf.data, dict) else None
        deny = perms.get("deny") if isinstance(perms, dict) else None
        if not isinstance(deny, list):
            continue
        for rule in deny:
            if not isinstance(rule, str):
                continue
            is_skill, content = parse_skill_rule(rule)
            if is_skill:
                out.append(DenyRule(rule, content, rule_form(content), sf.scope, Path(sf.path)))
    return out


def _matching_rules(registry: Registry, skill: Skill) -> list[DenyRule]:
    return [r for r in _deny_rules(registry) if r.matches(skill.name, registry.profile, display_names(skill))]


def _bundled_off_decision(skill: Skill, off: BundledOff) -> SettingDecision:
    if off.cause is BundledOffCause.ENVIRONMENT:
        return SettingDecision(DecisionKind.DISABLE_BUNDLED_SKILLS_ENV, "set", "environment")
    return SettingDecision(DecisionKind.DISABLE_BUNDLED_SKILLS, "true", off.scope, off.file)


def _bundled_off_text(off: BundledOff) -> str:
    if off.cause is BundledOffCause.ENVIRONMENT:
        return "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS is set in Claude Code's environment"
    return f"disableBundledSkills is true in {off.where}"


def _bundled_off_refusal(off: BundledOff) -> str:
    """Why no skillOverrides value can turn a bundled skill back on, and who can."""
    if off.cause is BundledOffCause.ENVIRONMENT:
        return ("CLAUDE_CODE_DISABLE_BUNDLED_SKILLS is set in Claude Code's environment: every bundled skill is off "
                "whatever the settings say. skillmanager does not change environment variables; unset it where "
                "Claude Code is started.")
    if off.outside_the_app:
        return (f"Managed policy sets disableBundledSkills = true in {off.file}: every bundled skill is off whatever "
                "skillOverrides says. Only an administrator can change it.")
    return (f"disableBundledSkills is true in {off.where}: every bundled skill is off whatever skillOverrides says. "
            "Turn that setting off first.")


def scope_path(registry: Registry, scope: str) -> Path:
    ws = registry.workspace
    for name, path in settings_paths(ws.config_home, ws.cwd, None):
        if name == scope:
            return Path(path)
    raise ValueError(f"unknown scope {scope!r}; choose one of {', '.join(WRITABLE_SCOPES)}")


def _where(scope: str, path: Path | None) -> str:
    label = "managed policy" if scope == "managed" else f"{scope} settings"
    return f"{label} ({path})" if path else label


# --------------------------------------------------------------------------- effective state


def effective_toggle_state(registry: Registry, skill: Skill, *, with_controls: bool = True) -> ToggleState:
    """What is in force for `skill`, which file decides it, and the controls to offer (each enabled or
    disabled with its reason). Reads the settings the registry loaded; the controls re-read the files.
    `with_controls=False`: the decision only (a row's switch), without planning every control (which reads and
    diffs the files each would write: ~2 ms a skill, 10 s for the rows of a 5,000-skill workspace)."""
    editable, editable_reason = _files_editable(registry, skill)
    key, decider, _all = _effective_override(registry, skill) if _has_overrides(registry) else (None, None, [])
    by_alias = _policy_alias_override(registry, skill) if _has_overrides(registry) else None
    if by_alias is not None:
        key, decider = by_alias
    hidden = bool(skill.disable_model_invocation)
    bundled_off = skill.state.bundled_off  # the registry's decision (rules/registry.py bundled_off)
    rules = _matching_rules(registry, skill)
    rule = rules[0] if rules else None

    decided_by: SettingDecision | None = None
    state = "on"
    # a built-in command is only hidden from the model by disableBundledSkills: an "off" override still counts
    builtin_turned_off = skill.source is SourceKind.BUILTIN_COMMAND and decider is not None and decider.value == "off"
    if bundled_off is not None and not builtin_turned_off:
        state = "off" if skill.source is SourceKind.BUNDLED else "user-invocable-only"
        decided_by = _bundled_off_decision(skill, bundled_off)
    elif decider is not None and decider.value != "on":
        state = decider.value
        decided_by = SettingDecision(DecisionKind.SKILL_OVERRIDES, decider.value, decider.scope, decider.path)
    elif hidden:
        state = "hidden"
        decided_by = SettingDecision(DecisionKind.FRONT_MATTER, "disable-model-invocation: true", "front-matter", skill.path)
    elif decider is not None:
        decided_by = SettingDecision(DecisionKind.SKILL_OVERRIDES, "on", decider.scope, decider.path)

    if decided_by is None:
        # "on" only means no setting turns it off; say what still limits it (conditional, deny rule)
        # what the listing then carries (in full, shortened, name only) is the listing outcome's sentence
        summary = ("On: no setting turns it off; the model can call it and you can type /" + skill.name + ".")
        if skill.state.conditional and not skill.state.active:
            summary = ("On (this setting), but still waiting: not listed and not callable until a file matching "
                       f"{', '.join(skill.paths or [])} is read, edited or written.")
        elif rule is not None:
            summary = (f"On (this setting), but blocked: the deny rule {rule.text} refuses the model's Skill calls; "
                       "it stays listed.")
    elif decided_by.kind is DecisionKind.FRONT_MATTER:
        summary = f"Hidden from the model by disable-model-invocation: true in {skill.path}; /{skill.name} still works."
    elif decided_by.kind in (DecisionKind.DISABLE_BUNDLED_SKILLS, DecisionKind.DISABLE_BUNDLED_SKILLS_ENV) \
            and bundled_off is not None:
        summary = f"{state}: {_bundled_off_text(bundled_off)}."
    else:
        summary = (f"{state}: skillOverrides[{json.dumps(key, ensure_ascii=False)}] in "
                   f"{_where(decided_by.scope, decided_by.file)}.")
    if hidden and decided_by is not None and decided_by.kind is not DecisionKind.FRONT_MATTER:
        summary += " Its front matter also has disable-model-invocation: true."

    locked_reason = None
    if decider is not None and decider.scope == "managed":
        locked_reason = (f"Managed policy sets skillOverrides[{json.dumps(key, ensure_ascii=False)}] = "
                         f"\"{decider.value}\" in {decider.path}; it takes priority over user, project and local "
                         "settings, so this choice is not yours to change.")
    blocked_summary = None
    if rule is not None:
        blocked_summary = BLOCKED_EXPLAINED.format(rule=rule.text, scope=rule.scope, file=rule.file)
        blocked_summary = blocked_summary[0].upper() + blocked_summary[1:] + "."

    result = ToggleState(
        name=skill.name, profile=registry.profile, state=state, summary=summary, decided_by=decided_by,
        override_key=key, hidden=hidden, blocked=rule is not None, deny_rule=rule, blocked_summary=blocked_summary,
        locked=locked_reason is not None, locked_reason=locked_reason, editable_files=editable,
        editable_reason=editable_reason, default_scope=default_scope(registry, skill))
    if _has_overrides(registry) and not override_keys(skill):
        result.overrides_ignored = PLUGIN_IGNORES_OVERRIDES.format(name=skill.name)
    if not with_controls:
        return result
    offered = list(OVERRIDE_STATES) + ["unhide" if hidden else "hidden", "unblock" if rule else "blocked"]
    for wanted in offered:
        plan = plan_toggle(registry, skill, wanted)
        mechanism = plan.mechanism or ("skillOverrides" if wanted in OVERRIDE_STATES else
                                       "front-matter" if wanted in ("hidden", "unhide") else "deny")
        active = (wanted == state) if wanted in OVERRIDE_STATES else False
        reason = plan.refusal or plan.message
        expressible = wanted == "on" or mechanism != "skillOverrides" or _has_overrides(registry)
        result.controls.append(Control(wanted, mechanism, plan.ok and (bool(plan.edits) or active), reason,
                                       active, plan.scope, offered=expressible))
    return result


# --------------------------------------------------------------------------- planning


def _refuse(plan: TogglePlan, reason: str) -> TogglePlan:
    plan.refusal = reason
    plan.edits = []
    return plan


def _read_for_edit(path: Path) -> tuple[atomic_write.Snapshot, str] | str:
    """(snapshot, text), or the refusal. A missing file is an empty snapshot (it will be created)."""
    try:
        snap = atomic_write.read_snapshot(path, missing_ok=True)
    except IsADirectoryError:
        return f"{path} is a directory, not a file; nothing was written."
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror or exc}); nothing was written."
    if snap.exists and not os.path.isfile(path):
        return f"{path} is not a regular file; nothing was written."
    read_only = atomic_write.read_only_reason(path) if snap.exists else None
    if read_only is not None:
        return read_only
    try:
        text = snap.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"{path} is not valid UTF-8 (byte {exc.start}); Claude Code could not read it either. "
                "It was left as it is.")
    return snap, text


def _relevant(data: Any) -> Any:
    """The parts of a settings object a toggle decision depends on."""
    if not isinstance(data, dict):
        return None
    perms = data.get("permissions")
    deny = perms.get("deny") if isinstance(perms, dict) else None
    deny = [r for r in deny if isinstance(r, str)] if isinstance(deny, list) else deny
    return (json.dumps(data.get("skillOverrides"), sort_keys=True), json.dumps(deny),
            json.dumps(data.get("disableBundledSkills")))


def _changed_since_load(registry: Registry, path: Path, now_exists: bool) -> str | None:
    """A refusal when the file on disk no longer says what the registry loaded."""
    loaded = None
    for sf in _settings_files(registry):
        if Path(sf.path) == path:
            loaded = sf
            break
    if loaded is None:
        return None
    if bool(loaded.exists) != bool(now_exists):
        what = "created" if now_exists else "deleted"
        return (f"{path} was {what} by another program since skillmanager loaded the settings; "
                "nothing was written. Reload and try again.")
    if loaded.data is None:
        return None  # it did not parse then; the parse check below explains
    data, _exists, _diags = read_settings_json(path)
    if _relevant(data) != _relevant(loaded.data):
        return (f"{path} was changed by another program since skillmanager loaded it; nothing was written. "
                "Reload and try again.")
    return None


def _outside_link_refusal(registry: Registry, path: Path, scope: str) -> str | None:
    """A settings path whose real file (symlinks followed, also a dangling link's target) lies outside the
    place it belongs to: the home dir (and the Claude config dir) for user settings, the project for
    project and local settings. A repository could ship `.claude/settings.local.json` pointing anywhere."""
    real = Path(os.path.realpath(path))
    ws = registry.workspace
    roots: list[Path | None]
    if scope == "user":
        roots, place = [ws.home, ws.config_home], "your home directory"
    else:
        roots, place = [ws.cwd, find_git_root(ws.cwd)], "the project"
    for root in roots:
        if root is not None and _under(real, Path(os.path.realpath(root))):
            return None
    dangling = "" if os.path.exists(path) else " (which does not exist yet)"
    return (f"{path} is a symbolic link to {real}{dangling}, outside {place}; skillmanager does not write "
            "through it unless you confirm (toggle --allow-outside-link).")


def file_diff(path: Path, old: str, new: str, created: bool) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile="/dev/null" if created else str(path), tofile=str(path))
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _json_edit(registry: Registry, plan: TogglePlan, scope: str, change: str,
               edit: Callable[[str], str]) -> FileEdit | None:
    """Read the scope's settings file, apply `edit(text) -> new text`; refuse on any problem."""
    path = scope_path(registry, scope)
    pending = (pending_texts.get() or {}).get(path)
    refusal = None if plan.allow_outside_link else _outside_link_refusal(registry, path, scope)
    if refusal is None and pending is not None:
        snap, text = pending  # already read and checked by an earlier plan of the same batch
    elif refusal is None:
        read = _read_for_edit(path)
        if isinstance(read, str):
            refusal = read
        else:
            snap, text = read
            refusal = _changed_since_load(registry, path, snap.exists)
    if refusal is not None:
        _refuse(plan, refusal)
        return None
    try:
        new_text = edit(text)
    except json_text_edit.JsonEditError as exc:
        where = f"{path}:{exc.line}:{exc.col}" if exc.line is not None else str(path)
        _refuse(plan, f"{where}: {exc.message}. The file was left as it is; fix it by hand first "
                      "(Claude Code ignores a settings file it cannot parse).")
        return None
    if new_text == text:
        return None
    return FileEdit(path, atomic_write.resolve_target(path), scope, change, snap, new_text.encode("utf-8"),
                    file_diff(path, text, new_text, not snap.exists))


def _higher_scope_block(sources: list[_FileValue], scope: str, key: str) -> str | None:
    higher = [s for s in sources if _SCOPE_RANK[s.scope] > _SCOPE_RANK[scope]]
    if not higher:
        return None
    top = higher[-1]
    if top.scope == "managed":
        return (f"Managed policy sets skillOverrides[{json.dumps(key, ensure_ascii=False)}] = \"{top.value}\" in "
                f"{top.path}; it takes priority over user, project and local settings, so a change here would have "
                "no effect. Only an administrator can change it.")
    return (f"{_where(top.scope, top.path)} sets skillOverrides[{json.dumps(key, ensure_ascii=False)}] = "
            f"\"{top.value}\", which takes priority over {scope} settings; a change in {scope} settings would "
            f"have no effect. Choose --scope {top.scope} to change it there.")


def _plan_override(registry: Registry, skill: Skill, plan: TogglePlan, scope: str | None) -> TogglePlan:
    plan.mechanism = "skillOverrides"
    state = plan.state
    if not _has_overrides(registry):
        return _refuse(plan, LEGACY_NO_OVERRIDES.format(state=state))
    keys = override_keys(skill)
    if not keys:
        return _refuse(plan, PLUGIN_IGNORES_OVERRIDES.format(name=skill.name))
    if skill.source is SourceKind.MCP:
        plan.notes.append("MCP skills: Claude Code also matches other names of the server's skill; "
                          "only the full name is written.")
    bundled_off = skill.state.bundled_off
    if bundled_off is not None and state != "off":
        return _refuse(plan, _bundled_off_refusal(bundled_off))
    by_alias = _policy_alias_override(registry, skill)
    if by_alias is not None and by_alias[1].value != state:
        alias, policy = by_alias
        return _refuse(plan, f"Managed policy sets skillOverrides[{json.dumps(alias, ensure_ascii=False)}] = "
                             f"\"{policy.value}\" in {policy.path} (\"{alias}\" is another name of {skill.name}); it "
                             "takes priority over user, project and local settings. Only an administrator can "
                             "change it.")
    key, decider, _ = _effective_override(registry, skill)
    key = key or keys[0]
    bare_decides = decider is not None and key != skill.name and decider.value != state
    if bare_decides:
        # Only the bare key matched (scoped nested skill): changing it would also change the root skill.
        plan.notes.append(f"skillOverrides[\"{key}\"] also applies to other skills named {key}; the full name "
                          f"\"{skill.name}\" is written, which Claude Code looks up first.")
        key = skill.name
    sources = _override_sources(registry, key)
    if scope is None:
        writable = [s for s in sources if s.scope in WRITABLE_SCOPES]
        # Edit the file that decides now, so the effective state really changes; else the default.
        scope = writable[-1].scope if writable and writable[-1] is sources[-1] else default_scope(registry, skill)
    plan.scope = scope
    block = _higher_scope_block(sources, scope, key)
    if block is not None:
        return _refuse(plan, block)
    lower = [s for s in sources if _SCOPE_RANK[s.scope] < _SCOPE_RANK[scope]]
    jkey = json.dumps(key, ensure_ascii=False)
    same_scope = [s for s in sources if s.scope == scope]
    old = f"\"{same_scope[-1].value}\"" if same_scope else "(absent)"
    if state == "on" and not bare_decides and not (lower and lower[-1].value != "on"):
        # Absent means on: remove the key rather than write a value nobody needs.
        change = f"skillOverrides[{jkey}]: {old} → (removed; absent means on)"
        edit = _json_edit(registry, plan, scope, change, lambda t: json_text_edit.delete_key(t, ["skillOverrides", key]))
    else:
        change = f"skillOverrides[{jkey}]: {old} → \"{state}\""
        edit = _json_edit(registry, plan, scope, change,
                          lambda t: json_text_edit.set_key(t, ["skillOverrides", key], str(state)))  # a plain JSON string
    if plan.refusal:
        return plan
    if edit is not None:
        plan.edits.append(edit)
        plan.message = f"{change} in {_where(scope, edit.path)}"
    else:
        plan.message = f"Already {state}: nothing to write in {scope} settings."
    if skill.disable_model_invocation and state in ("on", "name-only"):
        plan.notes.append("Its front matter has disable-model-invocation: true, so it stays hidden from the model "
                          "(use \"unhide\").")
    if _matching_rules(registry, skill):
        plan.notes.append("A deny rule still blocks the model's Skill calls (use \"unblock\").")
    return plan


def _plan_front_matter(registry: Registry, skill: Skill, plan: TogglePlan) -> TogglePlan:
    plan.mechanism = "front-matter"
    plan.scope = "front-matter"
    editable, reason = _files_editable(registry, skill)
    if not editable:
        alt = ("user-invocable-only (skillOverrides) or blocked (a deny rule)"
               if _has_overrides(registry) and override_keys(skill) else "blocked (a deny rule)")
        return _refuse(plan, f"{reason} Use {alt} instead.")
    if skill.path is None:  # _files_editable refuses it first
        return _refuse(plan, "It has no file on disk.")
    path = Path(skill.path)
    read = _read_for_edit(path)
    if isinstance(read, str):
        return _refuse(plan, read)
    snap, text = read
    if not snap.exists:
        return _refuse(plan, f"{path} no longer exists; reload and try again.")
    if snap.size != skill.size_bytes and skill.size_bytes:
        return _refuse(plan, f"{path} was changed by another program since skillmanager loaded it; nothing was "
                             "written. Reload and try again.")
    value = True if plan.state == "hidden" else None
    if value and text.startswith("\ufeff") and not registry.profile.supports(Feature.STRIPS_BOM):
        # 2.1.88 does not see front matter after a BOM (spec §2): the new line would change nothing.
        return _refuse(plan, f"{path} starts with a UTF-8 BOM, and Claude Code 2.1.88 does not see the front "
                             "matter of such a file: disable-model-invocation would have no effect there. Use "
                             "blocked (a deny rule), or remove the BOM first.")
    if plan.state == "unhide" and not skill.disable_model_invocation:
        plan.message = "Not hidden: nothing to write."
        return plan
    try:
        new_text = frontmatter_edit.set_front_matter_bool(text, _DMI, value)
    except frontmatter_edit.FrontMatterEditError as exc:
        return _refuse(plan, f"{path}: {exc}. The file was left as it is.")
    if new_text == text:
        plan.message = "Already " + ("hidden" if value else "not hidden") + ": nothing to write."
        return plan
    change = (f"{_DMI}: true (added to the front matter)" if value else f"{_DMI}: line removed from the front matter")
    plan.edits.append(FileEdit(path, atomic_write.resolve_target(path), "front-matter", change, snap,
                               new_text.encode("utf-8"), file_diff(path, text, new_text, False)))
    plan.message = f"{change} in {path}"
    if value:
        plan.notes.append(f"Hidden from the model's listing and Skill tool; /{skill.name} still works.")
    return plan


def _plan_block(registry: Registry, skill: Skill, plan: TogglePlan, scope: str | None) -> TogglePlan:
    plan.mechanism = "deny"
    rules = _matching_rules(registry, skill)
    if rules:
        plan.scope = rules[0].scope
        plan.message = f"Already blocked by {rules[0].text} in {_where(rules[0].scope, rules[0].file)}."
        return plan
    scope = scope or default_scope(registry, skill)
    plan.scope = scope
    rule = f"Skill({skill.name})"
    change = f"permissions.deny: + {json.dumps(rule, ensure_ascii=False)}"
    edit = _json_edit(registry, plan, scope, change, lambda t: json_text_edit.array_add(t, ["permissions", "deny"], rule))
    if plan.refusal:
        return plan
    if edit is not None:
        plan.edits.append(edit)
        plan.message = f"{change} in {_where(scope, edit.path)}"
        plan.notes.append("Blocked but still listed: the model still sees the skill in its listing, and its Skill "
                          "calls are refused.")
    return plan


def _plan_unblock(registry: Registry, skill: Skill, plan: TogglePlan, scope: str | None) -> TogglePlan:
    plan.mechanism = "deny"
    rules = _matching_rules(registry, skill)
    if scope is not None:
        plan.scope = scope
    if not rules:
        plan.message = "Not blocked: no deny rule matches it."
        return plan
    for rule in rules:
        if rule.scope == "managed":
            return _refuse(plan, f"Managed policy blocks it with {rule.text} in {rule.file}; only an administrator "
                                 "can remove that rule.")
        if rule.form != "exact":
            return _refuse(plan, f"It is blocked by {rule.text} in {_where(rule.scope, rule.file)}, a rule that also "
                                 "covers other skills; removing it would unblock them too. Edit that rule by hand.")
    by_file: dict[Path, list[DenyRule]] = {}
    for rule in rules:
        if rule.file is None:
            return _refuse(plan, f"It is blocked by {rule.text}, which is in no settings file skillmanager can edit.")
        by_file.setdefault(Path(rule.file), []).append(rule)
    for path, file_rules in by_file.items():
        texts = [r.text for r in file_rules]
        change = "permissions.deny: − " + ", ".join(json.dumps(t, ensure_ascii=False) for t in texts)

        def remove(text: str, texts: list[str] = texts) -> str:
            for t in texts:
                text = json_text_edit.array_remove(text, ["permissions", "deny"], t)
            return text

        edit = _json_edit(registry, plan, file_rules[0].scope, change, remove)
        if plan.refusal:
            return plan
        if edit is not None:
            plan.edits.append(edit)
    plan.scope = plan.scope or rules[0].scope
    plan.message = "; ".join(f"{e.change} in {_where(e.scope, e.path)}" for e in plan.edits)
    return plan


def plan_toggle(registry: Registry, skill: Skill, state: str, scope: str | None = None, *,
                allow_outside_link: bool = False) -> TogglePlan:
    """Plan one toggle; never writes. `state` is one of STATES; `scope` one of WRITABLE_SCOPES or None
    (None: the file that decides now if the user may write it, else `default_scope`).

    Returns a TogglePlan: `refusal` (a plain reason) or `edits` (file, exact key/line, preview diff) or
    neither (`message` says there is nothing to do). Legacy "on" = unhide + unblock."""
    plan = TogglePlan(name=skill.name, state=state, profile=registry.profile, scope=scope, mechanism=None,
                      allow_outside_link=allow_outside_link)
    if state not in STATES:
        return _refuse(plan, f"unknown state {state!r}; choose one of {', '.join(STATES)}")
    state = plan.state = ToggleChoice(state)
    if scope is not None and scope not in WRITABLE_SCOPES:
        return _refuse(plan, f"cannot write {scope!r} settings; choose one of {', '.join(WRITABLE_SCOPES)}")
    if state == "on" and not _has_overrides(registry):
        return _plan_legacy_on(registry, skill, plan, scope)
    if state in OVERRIDE_STATES:
        return _plan_override(registry, skill, plan, scope)
    if state in ("hidden", "unhide"):
        if scope is not None:
            plan.notes.append("--scope is ignored: hidden is written into the skill's own front matter.")
        return _plan_front_matter(registry, skill, plan)
    if state == "blocked":
        return _plan_block(registry, skill, plan, scope)
    return _plan_unblock(registry, skill, plan, scope)


def _plan_legacy_on(registry: Registry, skill: Skill, plan: TogglePlan, scope: str | None) -> TogglePlan:
    parts = []
    for sub in ("unhide", "unblock"):
        sub_plan = plan_toggle(registry, skill, sub, scope, allow_outside_link=plan.allow_outside_link)
        if not sub_plan.ok:
            plan.mechanism = sub_plan.mechanism
            return _refuse(plan, sub_plan.refusal or "")
        plan.edits += sub_plan.edits
        plan.notes += sub_plan.notes
        if sub_plan.edits:
            parts.append(sub_plan.message)
    plan.mechanism = "front-matter+deny"
    plan.message = "; ".join(parts) if parts else "Already on: not hidden and not blocked."
    return plan


def plan_disable_bundled(registry: Registry, disabled: bool, scope: str = "user", *,
                         allow_outside_link: bool = False) -> TogglePlan:
    """`disableBundledSkills` (current only): true removes every bundled skill (and hides the built-in
    prompt commands from the model); false removes the key (absent = false) unless a lower scope sets true."""
    plan = TogglePlan(name="(all bundled skills)", state="off" if disabled else "on", profile=registry.profile,
                      scope=scope, mechanism="disableBundledSkills", allow_outside_link=allow_outside_link)
    if not registry.profile.supports(Feature.DISABLE_BUNDLED_SKILLS):
        return _refuse(plan, "Claude Code 2.1.88 (legacy profile) has no disableBundledSkills setting.")
    if scope not in WRITABLE_SCOPES:
        return _refuse(plan, f"cannot write {scope!r} settings; choose one of {', '.join(WRITABLE_SCOPES)}")
    sources = [(sf.scope, Path(sf.path), sf.data["disableBundledSkills"]) for sf in _settings_files(registry)
               if isinstance(sf.data, dict) and isinstance(sf.data.get("disableBundledSkills"), bool)]
    higher = [s for s in sources if _SCOPE_RANK[s[0]] > _SCOPE_RANK[scope] and s[2] != disabled]
    if higher:
        return _refuse(plan, f"{_where(higher[-1][0], higher[-1][1])} sets disableBundledSkills = "
                             f"{json.dumps(higher[-1][2])}, which takes priority over {scope} settings.")
    lower_true = any(s[2] for s in sources if _SCOPE_RANK[s[0]] < _SCOPE_RANK[scope])
    if disabled or lower_true:
        change = f"disableBundledSkills → {json.dumps(disabled)}"
        edit = _json_edit(registry, plan, scope, change,
                          lambda t: json_text_edit.set_key(t, ["disableBundledSkills"], disabled))
    else:
        change = "disableBundledSkills removed (absent means false)"
        edit = _json_edit(registry, plan, scope, change, lambda t: json_text_edit.delete_key(t, ["disableBundledSkills"]))
    if plan.refusal:
        return plan
    if edit is not None:
        plan.edits.append(edit)
        plan.message = f"{change} in {_where(scope, edit.path)}"
    else:
        plan.message = "Nothing to write."
    return plan


# --------------------------------------------------------------------------- writing


def _data_dir(app_data_dir: str | os.PathLike[str] | None) -> Path:
    return Path(app_data_dir) if app_data_dir is not None else default_app_data_dir()


def _write_all(items: list[tuple[Path, bytes, atomic_write.Snapshot, bool]], data_dir: Path,
               ) -> list[AppliedEdit]:
    """Write (path, data, expected snapshot, create) in order, holding every file's lock from the re-read
    check to the last rename (another skillmanager process cannot slip a write in between and lose it);
    on a failure put back what was written."""
    with locked([atomic_write.resolve_target(p) for p, _d, _s, _c in items], data_dir):
        return _write_all_locked(items, data_dir)


def _write_all_locked(items: list[tuple[Path, bytes, atomic_write.Snapshot, bool]], data_dir: Path,
                      ) -> list[AppliedEdit]:
    for _path, _data, snap, _create in items:
        atomic_write.ensure_unchanged(snap)  # all files checked before the first write
    done: list[AppliedEdit] = []
    try:
        for path, data, snap, create in items:
            backup = atomic_write.backup_previous(path, snap.data, data_dir) if snap.exists else None
            target = atomic_write.write_atomic(path, data, create=create, expect=snap)
            done.append(AppliedEdit(path, target, snap.data, snap.exists, data, backup))
    except BaseException:
        for edit in reversed(done):
            try:
                _restore(edit)
            except Exception:  # noqa: BLE001 - best effort; the backup is in the data dir
                pass
        raise
    return done


def _restore(edit: AppliedEdit) -> None:
    if edit.existed:
        atomic_write.write_atomic(edit.path, edit.before)
    else:
        os.unlink(edit.target)


def apply_plan(plan: TogglePlan, app_data_dir: str | os.PathLike[str] | None = None) -> AppliedChange:
    """Write a plan. Each file is re-read first and must still be what was planned (else ToggleError,
    nothing written); its previous content is copied to `<app data dir>/backups/` (never beside the file);
    the write is atomic and goes through symlinks; a missing file and its directory are created.
    `app_data_dir` defaults to app_dirs.app_data_dir() ($SKILLMANAGER_DATA_DIR in tests)."""
    if not plan.ok:
        raise ToggleError(plan.refusal or "refused")
    data_dir = _data_dir(app_data_dir)
    items = [(e.path, e.new_data, e.snapshot, e.creates) for e in plan.edits]
    try:
        edits = _write_all(items, data_dir)
    except atomic_write.ExternalChangeError as exc:
        raise ToggleError(str(exc)) from exc
    except OSError as exc:
        raise ToggleError(f"{exc.filename or 'a file'}: {exc.strerror or exc}; nothing was changed.") from exc
    applied = AppliedChange(plan, edits)
    applied.history_id = _journal(applied, "toggle", f"{plan.name} → {plan.state}: {plan.message}", data_dir)
    return applied


def _journal(applied: AppliedChange, action: str, summary: str, data_dir: Path) -> str | None:
    """Record a written change in the History journal. The user's files are already written: a journal
    that cannot be written is logged (the CLI shows it on stderr), not raised."""
    files = [history.FileChange(str(e.path), str(e.target), str(e.backup) if e.backup else None,
                                history.sha256(e.before) if e.existed else None,
                                history.sha256(e.after) if os.path.lexists(e.path) else None)
             for e in applied.edits]
    try:
        return history.record(history.new_entry(action, summary, files), data_dir).id
    except (OSError, history.HistoryError) as error:
        history.log.warning("the change was written, but the history journal could not be updated: %s", error)
        return None


def undo(applied: AppliedChange, app_data_dir: str | os.PathLike[str] | None = None) -> AppliedChange:
    """Put back the bytes a toggle replaced (a file it created is removed). Refused (ToggleError) when any
    of the files changed since the toggle wrote it. Returns the reverse change (what undo wrote)."""
    if applied.undone:
        raise ToggleError("This change was already undone.")
    data_dir = _data_dir(app_data_dir)
    with locked([e.target for e in applied.edits], data_dir):
        reverse = _undo_locked(applied, data_dir)
    summary = f"undo of {applied.plan.name} → {applied.plan.state}: {applied.plan.message}"
    reverse.history_id = _journal(reverse, "undo", summary, data_dir)
    return reverse


def _undo_locked(applied: AppliedChange, data_dir: Path) -> AppliedChange:
    for edit in applied.edits:
        snap = atomic_write.read_snapshot(edit.path, missing_ok=True)
        if not snap.exists or snap.data != edit.after:
            raise ToggleError(f"{edit.path} was changed after skillmanager wrote it, so undo would lose that "
                              "change; nothing was undone. Its previous content is kept in "
                              f"{edit.backup or data_dir}.")
    reverse_plan = TogglePlan(name=applied.plan.name, state="undo " + applied.plan.state, profile=applied.plan.profile,
                              scope=applied.plan.scope, mechanism=applied.plan.mechanism,
                              message="undo: " + applied.plan.message)
    done: list[AppliedEdit] = []
    try:
        for edit in reversed(applied.edits):
            snap = atomic_write.read_snapshot(edit.path, missing_ok=True)
            backup = atomic_write.backup_previous(edit.path, snap.data, data_dir)
            if edit.existed:
                target = atomic_write.write_atomic(edit.path, edit.before, expect=snap)
            else:
                atomic_write.ensure_unchanged(snap)
                os.unlink(edit.target)
                target = edit.target
            done.append(AppliedEdit(edit.path, target, snap.data, True, edit.before, backup))
    except atomic_write.ExternalChangeError as exc:
        raise ToggleError(str(exc)) from exc
    except OSError as exc:
        raise ToggleError(f"{exc.filename or 'a file'}: {exc.strerror or exc}; undo stopped.") from exc
    applied.undone = True
    return AppliedChange(reverse_plan, done)
