"""The read side of Claude Code's settings (spec §6): which files, in which order, merged how.

Port of loadSettingsFromDisk / parseSettingsFile / loadManagedFileSettings
(src/utils/settings/settings.ts): user < project < local < managed; objects merge key by key
(lodash mergeWith), arrays are concatenated without duplicates. A file that is not valid JSON
(or not a JSON object) is ignored whole, as Claude Code ignores it; we say so with file:line:col.
"""
from __future__ import annotations

import logging
import json
import re

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from ..js.json_parse import js_json_loads
from ..model import BundledOffCause, DecisionKind, Diagnostic, Severity, SettingDecision, Skill, SourceKind
from ..versions.features import Feature
from ..versions.profiles import Profile, default_profile
from .safe_read import read_regular_bytes

_T = TypeVar("_T")

SCOPES = ("user", "project", "local", "managed")  # lowest to highest priority
OVERRIDE_RANK = {"on": 0, "name-only": 1, "user-invocable-only": 2, "off": 3}  # current `c`: how strong a value is
OVERRIDE_VALUES = ("on", "name-only", "user-invocable-only", "off")
PLUGIN_SOURCES = ("plugin-skill", "plugin-command")  # SourceKind values skillOverrides never reaches
_BOM = "\ufeff"

log = logging.getLogger(__name__)


@dataclass
class SettingsFile:
    """One settings file of one scope, as read."""

    scope: str
    path: Path
    data: dict[str, Any] | None  # None: absent or ignored
    exists: bool = False


@dataclass(frozen=True)
class DenyRule:
    """One `Skill(...)` deny rule with the file it came from."""

    text: str  # the rule as written, e.g. "Skill(review:*)"
    content: str | None  # inside the parentheses; None = the whole Skill tool
    form: str  # "tool" | "exact" | "prefix" | "word-prefix" | "glob"
    scope: str
    file: Path | None

    def matches(self, name: str, profile: Profile, also: tuple[str, ...] = ()) -> bool:
        """SkillTool.checkPermissions: 2.1.88 `ruleMatches` (exact, or `prefix:*`) on the requested name.
        2.1.332 (`sRr`/`TOe`) also takes `prefix *`, a `skill:glob` form (`*` only), and tries the resolved
        command's names too (`also`: its name and display name; fuzz-reg seeds 1006, 1017). A bare `to*` is
        an exact name there, not a glob (seed 1017: `Skill(to*)` left `tools0:review` callable)."""
        if self.content is None:
            return True
        names = (name, *also) if profile.supports(Feature.DENY_RULES_MATCH_DISPLAY_NAME) else (name,)
        body = _strip_slash(self.content)
        if self.form == "skill-glob":
            glob = _SKILL_FORM.match(self.content)  # matches: that is what made the form "skill-glob"
            return profile.supports(Feature.SKILL_RULE_GLOB_FORM) and glob is not None and any(
                _star_match(glob.group(1).strip(), n) for n in names)
        word_prefix = self.form == "word-prefix" and profile.supports(Feature.SKILL_RULE_WORD_PREFIX_FORM)
        if self.form == "prefix" or word_prefix:
            return any(n == body or n.startswith(body[:-2]) for n in names)
        return any(n == body for n in names)


_SKILL_FORM = re.compile(r"^\s*skill\s*:(.*)$", re.S)


def _star_match(pattern: str, text: str) -> bool:
    """current `pM`: `*` matches any run of characters; nothing else is special."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern == text
    first, last = parts[0], parts[-1]
    if len(text) - len(last) < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    position, end = len(first), len(text) - len(last)
    for middle in (p for p in parts[1:-1] if p):
        found = text.find(middle, position, end)
        if found == -1:
            return False
        position = found + len(middle)
    return True


def display_names(skill: Skill) -> tuple[str, ...]:
    """A skill's display name, which current's permission rules also match (`J` in checkPermissions)."""
    return (skill.display_name,) if skill.display_name else ()


def _strip_slash(text: str) -> str:
    return text[1:] if text.startswith("/") else text


def rule_form(content: str | None) -> str:
    if content is None:
        return "tool"
    if _SKILL_FORM.match(content):
        return "skill-glob"
    body = _strip_slash(content)
    if body.endswith(":*"):
        return "prefix"
    if body.endswith(" *"):
        return "word-prefix"
    return "exact"


def parse_skill_rule(rule: str) -> tuple[bool, str | None]:
    """`permissionRuleValueFromString` (src/utils/permissions/permissionRuleParser.ts) for Skill rules:
    (is a Skill rule, content or None for the whole tool)."""
    open_at = rule.find("(")
    if open_at == -1:
        return rule == "Skill", None
    if not rule.endswith(")") or open_at == 0:
        return rule == "Skill", None
    if rule[:open_at] != "Skill":
        return False, None
    content = rule[open_at + 1:-1]
    if content in ("", "*"):
        return True, None
    return True, content.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")


def read_settings_json(path: Path) -> tuple[dict[str, Any] | None, bool, list[Diagnostic]]:
    """(data or None, file exists, diagnostics). Empty file = {}; BOM stripped; JSON.parse rules."""
    try:
        raw = read_regular_bytes(path)  # a FIFO or /dev/zero here must not hang the scan
    except FileNotFoundError:
        return None, False, []
    except NotADirectoryError:
        return None, False, []
    except IsADirectoryError:
        return None, True, [Diagnostic(Severity.ERROR, "settings-unreadable",
                                       "This settings path is a directory; Claude Code ignores it.", path)]
    except OSError as error:
        return None, True, [Diagnostic(Severity.ERROR, "settings-unreadable",
                                       f"Cannot read this settings file ({error.strerror or error}); "
                                       "Claude Code ignores it.", path)]
    text = raw.decode("utf-8", errors="replace")
    if text.strip() == "":
        return {}, True, []
    if text.startswith(_BOM):
        text = text[1:]
    try:
        data = js_json_loads(text)
    except (ValueError, RecursionError) as error:
        line = getattr(error, "lineno", None)
        col = getattr(error, "colno", None)
        where = f"{path}:{line}:{col}" if line else str(path)
        msg = getattr(error, "msg", None) or str(error)
        return None, True, [Diagnostic(Severity.ERROR, "settings-invalid-json",
                                       f"{where}: not valid JSON ({msg}); Claude Code ignores this whole file.",
                                       path, line)]
    if not isinstance(data, dict):
        return None, True, [Diagnostic(Severity.ERROR, "settings-not-object",
                                       f"{path}: the settings must be a JSON object; Claude Code ignores this file.",
                                       path, 1)]
    return data, True, []


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"Unexpected token {name}")  # JSON.parse has no NaN / Infinity


def _uniq_concat(a: list[_T], b: list[_T]) -> list[_T]:
    out: list[_T] = []
    for item in a + b:
        if item not in out:
            out.append(item)
    return out


def merge_settings(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """lodash mergeWith + settingsMergeCustomizer: deep object merge, arrays uniq-concatenated."""
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        if isinstance(old, list) and isinstance(value, list):
            out[key] = _uniq_concat(old, value)
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge_settings(old, value)
        elif value is not None or key not in out:
            out[key] = value
    return out


@dataclass
class EffectiveSettings:
    """Every settings file merged as Claude Code merges them, with the rules a skill's state depends on."""

    files: list[SettingsFile] = field(default_factory=list)
    merged: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skill_overrides: dict[str, tuple[str, str, Path | None]] = field(default_factory=dict)  # name -> (value, scope, file)
    policy_overrides: dict[str, tuple[str, str, Path | None]] = field(default_factory=dict)  # the managed scope's alone
    deny_rules: list[DenyRule] = field(default_factory=list)
    allow_rules: list[DenyRule] = field(default_factory=list)  # `Skill(...)` allow rules (same matching)
    disable_bundled_skills: tuple[bool, str, Path | None] | None = None
    enabled_plugins: dict[str, tuple[Any, str, Path | None]] = field(default_factory=dict)
    profile: Profile = field(default_factory=default_profile)

    # --- convenience views -------------------------------------------------------------------
    @property
    def skillOverrides(self) -> dict[str, str]:  # noqa: N802 - Claude Code's own key name
        return {k: v[0] for k, v in self.skill_overrides.items()}

    @property
    def disableBundledSkills(self) -> bool:  # noqa: N802
        return bool(self.disable_bundled_skills and self.disable_bundled_skills[0])

    @property
    def enabledPlugins(self) -> dict[str, Any]:  # noqa: N802
        return {k: v[0] for k, v in self.enabled_plugins.items()}

    @property
    def model(self) -> str | None:
        value = self.merged.get("model")
        return value if isinstance(value, str) and value else None

    @property
    def skillListingBudgetFraction(self) -> float | None:  # noqa: N802
        value = self.merged.get("skillListingBudgetFraction")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            return float(value)
        return None

    @property
    def skillListingMaxDescChars(self) -> int | None:  # noqa: N802
        value = self.merged.get("skillListingMaxDescChars")
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    def deny_rule_for(self, name: str, also: tuple[str, ...] = ()) -> DenyRule | None:
        """The first deny rule that blocks a Skill call on `name` (`also`: the resolved skill's own names)."""
        for rule in self.deny_rules:
            if rule.matches(name, self.profile, also):
                return rule
        return None

    def allow_rule_for(self, name: str, also: tuple[str, ...] = ()) -> DenyRule | None:
        """The first `Skill` allow rule that pre-approves `name` (SkillTool.ts checkPermissions allowRules).
        2.1.332 does not take Skill allow rules from the project's .claude/settings.json (probe-perm-scopes:
        Skill(proj-t) there still asks; user and local rules allow); 2.1.88 takes every scope."""
        for rule in self.allow_rules:
            if self.profile.supports(Feature.PROJECT_SKILL_ALLOW_RULES_IGNORED) and rule.scope == "project":
                continue
            if rule.matches(name, self.profile, also):
                return rule
        return None

    def override_for(self, name: str) -> tuple[str, str, Path | None] | None:
        if not self.profile.supports(Feature.SKILL_OVERRIDES):
            return None
        return self.skill_overrides.get(name)

    def override_for_skill(self, skill: Skill) -> tuple[str, str, Path | None] | None:
        """skillOverrides as they apply to one skill. Plugin skills and commands are not keyed by
        skillOverrides in 2.1.332 (`A$e`: `source==="plugin"` takes another path); observed: neither a bare
        (`plug-a`) nor a namespaced (`myplug:plug-b`) key changed a --plugin-dir plugin in any scope
        (tests/golden/overrides-*/current.json). Marketplace plugins were not recorded; treated the same."""
        if skill.source.value in PLUGIN_SOURCES:
            return None
        found = self.override_for(skill.name)
        bare = skill.scoped_from  # a clashing --add-dir skill renamed `extra2:x_y` (registry.py)
        if found is None and bare:  # fuzz-reg seed 30: `"x_y": "off"` also removed `extra2:x_y` from the listing
            found = self.override_for(bare)
        aliases = skill.aliases
        if aliases and self.profile.supports(Feature.BUNDLED_ALIASES_IN_POLICY_OVERRIDES) \
                and skill.name not in self.policy_overrides:
            # `W`: a bundled skill's aliases count in policy (managed) settings only, and only to make the value
            # stronger (fuzz-reg seed 1030: managed `"review": "off"` hid code-review; seed 26: a user
            # `"review": "name-only"` left it in full)
            by_alias = [self.policy_overrides[a] for a in aliases if a in self.policy_overrides]
            strongest = max(by_alias, key=lambda v: OVERRIDE_RANK[v[0]], default=None)
            if strongest is not None and (found is None or OVERRIDE_RANK[strongest[0]] > OVERRIDE_RANK[found[0]]):
                found = strongest
        return found

    def decide(self, skill: Skill) -> list[SettingDecision]:
        """Every setting that changes this skill's state, with the file it came from."""
        return self.decisions(skill, self.deny_rule_for(skill.name, display_names(skill)), self.override_for_skill(skill))

    def decisions(self, skill: Skill, rule: DenyRule | None,
                  override: tuple[str, str, Path | None] | None) -> list[SettingDecision]:
        """`decide` for a caller that already has the skill's deny rule and override (the registry needs them
        for its other decisions too)."""
        decisions: list[SettingDecision] = []
        if rule is not None:
            decisions.append(SettingDecision(DecisionKind.DENY, "deny", rule.scope, rule.file, rule.text))
        if override is not None:
            decisions.append(SettingDecision(DecisionKind.SKILL_OVERRIDES, override[0], override[1], override[2]))
        off = skill.state.bundled_off  # decided first by the registry (rules/registry.py bundled_off)
        if off is not None and off.cause is BundledOffCause.SETTING and skill.source is SourceKind.BUNDLED:
            decisions.append(SettingDecision(DecisionKind.DISABLE_BUNDLED_SKILLS, "true", off.scope, off.file))
        if skill.plugin and skill.plugin_id:
            entry = self.enabled_plugins.get(skill.plugin_id)
            if entry is not None:
                decisions.append(SettingDecision(DecisionKind.ENABLED_PLUGINS, json.dumps(entry[0]), entry[1], entry[2]))
        return decisions


def settings_paths(config_home: Path, cwd: Path, managed_root: Path | None) -> list[tuple[str, Path]]:
    """getSettingsFilePathForSource: user, project, local (from the cwd only), managed base + drop-ins."""
    paths = [("user", config_home / "settings.json"),
             ("project", cwd / ".claude" / "settings.json"),
             ("local", cwd / ".claude" / "settings.local.json")]
    if managed_root is not None:
        paths.append(("managed", managed_root / "managed-settings.json"))
        drop_in = managed_root / "managed-settings.d"
        try:
            # loadManagedFileSettings (settings.ts): JS `.sort()` = UTF-16 code-unit order (big-endian bytes)
            names = sorted((e.name for e in drop_in.iterdir()
                            if e.name.endswith(".json") and not e.name.startswith(".")
                            and (e.is_file() or e.is_symlink())),
                           key=lambda n: n.encode("utf-16-be", "surrogatepass"))
        except OSError:
            names = []
        paths.extend(("managed", drop_in / n) for n in names)
    return paths


def _skipped_drop_ins(managed_root: Path | None) -> list[Diagnostic]:
    """Drop-ins named `*.json` that are neither regular files nor symlinks (FIFO, socket, directory):
    loadManagedFileSettings lists only `isFile() || isSymbolicLink()` entries, so they are skipped."""
    if managed_root is None:
        return []
    out = []
    try:
        entries = list((managed_root / "managed-settings.d").iterdir())
    except FileNotFoundError:
        return []
    except OSError as error:  # Claude Code skips it too; say so
        log.warning("%s cannot be listed (%s); its drop-ins are not checked", managed_root / "managed-settings.d",
                    error.strerror or error)
        return []
    for entry in entries:
        try:
            if entry.name.endswith(".json") and not entry.name.startswith(".") and \
                    not (entry.is_symlink() or entry.is_file()):
                out.append(Diagnostic(Severity.WARNING, "settings-not-regular",
                                      f"{entry}: not a regular file; Claude Code skips this managed drop-in.", entry))
        except OSError:
            continue
    return out


def load_settings(config_home: Path, cwd: Path, managed_root: Path | None,
                  profile: Profile | None = None) -> EffectiveSettings:
    profile = profile or default_profile()
    result = EffectiveSettings(profile=profile)
    result.diagnostics.extend(_skipped_drop_ins(managed_root))
    seen: set[Path] = set()
    for scope, path in settings_paths(config_home, cwd, managed_root):
        resolved = Path(path).absolute()
        if scope != "managed" and resolved in seen:  # loadSettingsFromDisk skips a file seen twice
            continue
        seen.add(resolved)
        data, exists, diags = read_settings_json(path)
        if scope == "managed" and profile.supports(Feature.MANAGED_INVALID_JSON_REFUSES_START) and any(
                d.code == "settings-invalid-json" for d in diags):
            # 2.1.332 does not start at all (fuzz-reg seeds 7, 9, 16: stderr "…: Managed settings document could
            # not be parsed as a JSON object; none of its settings are in effect. Fix or remove it.", no request)
            diags = [d if d.code != "settings-invalid-json" else Diagnostic(
                d.severity, d.code, d.message + " Claude Code 2.1.3xx refuses to start with this managed file.",
                d.path, d.line) for d in diags]
        result.diagnostics.extend(diags)
        if data is not None:
            data = _filter_rules(data, path, result.diagnostics)
            problem = schema_problem(data, profile)
            if problem is not None and scope == "managed" and problem.startswith("skillOverrides") \
                    and profile.supports(Feature.MANAGED_BAD_OVERRIDES_DROPPED_ALONE):
                # 2.1.332 drops only a managed file's bad skillOverrides: its permissions still apply and its valid
                # overrides do not (probe-perm: drop-in {"skillOverrides": {"plain": true, "mo": "off"},
                # "permissions": {"deny": [...]}} denies, `mo` stays listed; fuzz-reg seed 28).
                result.diagnostics.append(Diagnostic(
                    Severity.WARNING, "settings-schema",
                    f"{path}: {problem}; Claude Code ignores this managed file's skillOverrides.", path))
                data = {k: v for k, v in data.items() if k != "skillOverrides"}
                problem = schema_problem(data, profile)
            if problem is not None:  # parseSettingsFile: a schema failure rejects the whole file
                result.diagnostics.append(Diagnostic(
                    Severity.ERROR, "settings-schema",
                    f"{path}: {problem}; Claude Code rejects this whole settings file.", path))
                data = None
        result.files.append(SettingsFile(scope, path, data, exists))
        if not data:
            continue
        result.merged = merge_settings(result.merged, data)
        _record_keys(result, scope, path, data)
    return result


def schema_problem(data: dict[str, Any], profile: Profile) -> str | None:
    """The first way `data` fails SettingsSchema().safeParse for the keys the registry reads, else None.

    settings.ts parseSettingsFileUncached: invalid permission rules are filtered first, then a failed
    schema check returns `settings: null` for the file (types.ts: permissions.allow/deny/ask arrays,
    model a string, env an object, enabledPlugins values boolean | string[]). 2.1.332 also types
    `skillOverrides: record(enum on|name-only|user-invocable-only|off)` and `disableBundledSkills` (boolean)
    (claude.exe strings). Oracle fuzz-reg seed 2 (current): a project settings.json whose skillOverrides
    held `"ns:s25-2": true` beside `"a:grp:a:nu-1": "off"` left a:grp:a:nu-1 listed in full."""
    perms = data.get("permissions")
    if perms is not None:
        if not isinstance(perms, dict):
            return "permissions must be an object"
        for key in ("allow", "deny", "ask"):
            if key in perms and not isinstance(perms[key], list):
                return f"permissions.{key} must be an array"
    if "model" in data and not isinstance(data["model"], str):
        return "model must be a string"
    if "env" in data and not isinstance(data["env"], dict):  # record(string, coerce.string()): any value is taken
        return "env must be an object of variable names and values"  # budget-env-env-not-object goldens
    plugins = data.get("enabledPlugins")
    if "enabledPlugins" in data:
        if not isinstance(plugins, dict):
            return "enabledPlugins must be an object"
        for key, value in plugins.items():
            if not (isinstance(value, bool) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
                return f"enabledPlugins[{key!r}] must be true, false or a list of strings"
    if "skillOverrides" in data and profile.supports(Feature.SKILL_OVERRIDES):
        overrides = data["skillOverrides"]
        if not isinstance(overrides, dict):
            return "skillOverrides must be an object"
        for key, value in overrides.items():
            if value not in OVERRIDE_VALUES or isinstance(value, bool):
                return f"skillOverrides[{key!r}] = {json.dumps(value)} is not one of {', '.join(OVERRIDE_VALUES)}"
    if "disableBundledSkills" in data and profile.supports(Feature.DISABLE_BUNDLED_SKILLS) \
            and not isinstance(data["disableBundledSkills"], bool):
        return "disableBundledSkills must be true or false"
    return None


def _filter_rules(data: dict[str, Any], path: Path, diagnostics: list[Diagnostic]) -> dict[str, Any]:
    """filterInvalidPermissionRules: non-string rules are dropped with a warning."""
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        return data
    for key in ("allow", "deny", "ask"):
        rules = perms.get(key)
        if isinstance(rules, list):
            kept = [r for r in rules if isinstance(r, str)]
            if len(kept) != len(rules):
                diagnostics.append(Diagnostic(Severity.WARNING, "settings-bad-rule",
                                              f"{path}: a non-string value in permissions.{key} is ignored.", path))
            perms[key] = kept
    return data


def _record_keys(result: EffectiveSettings, scope: str, path: Path, data: dict[str, Any]) -> None:
    overrides = data.get("skillOverrides")
    if isinstance(overrides, dict):
        for name, value in overrides.items():
            if value in OVERRIDE_VALUES:
                result.skill_overrides[name] = (value, scope, path)  # later (higher) scope wins
                if scope == "managed":
                    result.policy_overrides[name] = (value, scope, path)
            else:
                result.diagnostics.append(Diagnostic(
                    Severity.WARNING, "settings-bad-override",
                    f"{path}: skillOverrides[{name!r}] = {value!r} is not one of {', '.join(OVERRIDE_VALUES)}.", path))
    elif overrides is not None:
        result.diagnostics.append(Diagnostic(Severity.WARNING, "settings-bad-override",
                                              f"{path}: skillOverrides must be an object.", path))
    perms = data.get("permissions")
    if isinstance(perms, dict) and isinstance(perms.get("deny"), list):
        for rule in perms["deny"]:
            is_skill, content = parse_skill_rule(rule)
            if is_skill and not any(r.text == rule for r in result.deny_rules):
                result.deny_rules.append(DenyRule(rule, content, rule_form(content), scope, path))
    if isinstance(perms, dict) and isinstance(perms.get("allow"), list):
        for rule in perms["allow"]:
            is_skill, content = parse_skill_rule(rule)
            if is_skill:
                result.allow_rules.append(DenyRule(rule, content, rule_form(content), scope, path))
    if "disableBundledSkills" in data and isinstance(data["disableBundledSkills"], bool):
        result.disable_bundled_skills = (data["disableBundledSkills"], scope, path)
    plugins = data.get("enabledPlugins")
    if isinstance(plugins, dict):
        for plugin_id, value in plugins.items():
            result.enabled_plugins[plugin_id] = (value, scope, path)


