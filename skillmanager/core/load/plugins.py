"""Plugin skills and commands: `--plugin-dir` roots and installed marketplace plugins.

Ports createPluginFromPath (src/utils/plugins/pluginLoader.ts: default `skills/` and `commands/`
dirs unless the manifest names its own), loadPluginsFromMarketplaces (enabledPlugins →
known_marketplaces.json → marketplace.json entry → path, or installed_plugins.json's installPath),
getPluginCommands / getPluginSkills (src/utils/plugins/loadPluginCommands.ts: `plugin:name`).
Session (--plugin-dir) plugins come first; a marketplace plugin with the same name is dropped.
"""
from __future__ import annotations

import json
import os
import re
import stat
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..js.json_parse import js_int
from ..model import Diagnostic, Severity, Skill, SourceKind, SkillKind
from ..versions.profiles import Profile
from .safe_read import read_regular_bytes
from .skill_file import load_skill_file, skill_read_ahead
from .sources import scandir_sorted, sorted_entries
from ..versions.features import Feature


_PLUGIN_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass
class Plugin:
    """A plugin folder, its manifest and whether it is enabled (and by which setting)."""

    name: str
    root: Path
    plugin_id: str  # `name@marketplace` or `name@inline`
    manifest: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    origin: str = "plugin-dir"  # "plugin-dir" | "marketplace"
    decided_by: tuple[str, Path | None] | None = None  # (scope, settings file) of enabledPlugins


def _read_json(path: Path, diagnostics: list[Diagnostic], what: str) -> Any:
    try:
        text = read_regular_bytes(path).decode("utf-8", errors="replace")  # FIFO/device: an error, no hang
    except FileNotFoundError:
        return None
    except OSError as error:
        diagnostics.append(Diagnostic(Severity.ERROR, "plugin-unreadable",
                                      f"Cannot read the {what} ({error.strerror or error}).", path))
        return None
    try:
        return json.loads(text.lstrip("\ufeff"), parse_int=js_int)
    except (ValueError, RecursionError) as error:  # RecursionError: nesting deeper than the parser's stack
        diagnostics.append(Diagnostic(Severity.ERROR, "plugin-invalid-json",
                                      f"{path}:{getattr(error, 'lineno', '?')}:{getattr(error, 'colno', '?')}: "
                                      f"the {what} is not valid JSON; Claude Code cannot use it.", path,
                                      getattr(error, "lineno", None)))
        return None


def _object_or_empty(value: Any, path: Path, what: str, diagnostics: list[Diagnostic]) -> dict[str, Any]:
    """A JSON file that parsed but is a list, string or number where an object belongs: say so, use {}."""
    if isinstance(value, dict):
        return value
    if value is not None:
        diagnostics.append(Diagnostic(Severity.ERROR, "plugin-bad-shape",
                                      f"The {what} must be a JSON object, not {type(value).__name__}; "
                                      "it is ignored.", path))
    return {}


def plugin_from_path(root: Path, fallback_name: str, diagnostics: list[Diagnostic]) -> Plugin:
    manifest_path = root / ".claude-plugin" / "plugin.json"
    manifest = _object_or_empty(_read_json(manifest_path, diagnostics, "plugin manifest"), manifest_path,
                                "plugin manifest", diagnostics)
    given = manifest.get("name")
    name = given if isinstance(given, str) and given else fallback_name
    return Plugin(name=name, root=root, plugin_id=f"{name}@inline", manifest=manifest)


def _manifest_paths(plugin: Plugin, key: str) -> list[Path] | None:
    value = plugin.manifest.get(key)
    if not value:
        return None
    if isinstance(value, dict):  # commands metadata form {name: {source|content}}
        return [plugin.root / v["source"] for v in value.values() if isinstance(v, dict) and isinstance(v.get("source"), str)]
    items = value if isinstance(value, list) else [value]
    return [plugin.root / v for v in items if isinstance(v, str)]


def marketplace_plugins(config_home: Path, enabled_plugins: dict[str, tuple[Any, str, Path | None]],
                        diagnostics: list[Diagnostic], env: dict[str, str] | None = None) -> list[Plugin]:
    """Plugins named in `enabledPlugins` (`name@marketplace`), located as Claude Code locates them."""
    plugins_dir = Path((env or {}).get("CLAUDE_CODE_PLUGIN_CACHE_DIR") or config_home / "plugins").expanduser()
    known_path, installed_path = plugins_dir / "known_marketplaces.json", plugins_dir / "installed_plugins.json"
    known = _object_or_empty(_read_json(known_path, diagnostics, "known marketplaces file"), known_path,
                             "known marketplaces file", diagnostics)
    installed = _object_or_empty(_read_json(installed_path, diagnostics, "installed plugins file"), installed_path,
                                 "installed plugins file", diagnostics)
    installed_map = installed.get("plugins", {}) if isinstance(installed, dict) else {}
    if not isinstance(installed_map, dict):  # `{"plugins": 5}`: JSON, but not the shape Claude Code writes
        diagnostics.append(Diagnostic(Severity.WARNING, "plugin-bad-shape",
                                      "`plugins` in the installed plugins file is not an object; it is ignored.",
                                      plugins_dir / "installed_plugins.json"))
        installed_map = {}
    out: list[Plugin] = []
    for plugin_id, (value, scope, file) in enabled_plugins.items():
        if not isinstance(plugin_id, str) or "@" not in plugin_id or value is None:
            continue
        name, marketplace = plugin_id.rsplit("@", 1)
        if not name or not marketplace or marketplace == "builtin":
            continue
        root = _locate(name, marketplace, known, installed_map.get(plugin_id), diagnostics)
        if root is None:
            diagnostics.append(Diagnostic(Severity.WARNING, "plugin-not-found",
                                          f"Plugin {plugin_id} is enabled in {file} but is not installed; "
                                          "Claude Code skips it.", file))
            continue
        plugin = plugin_from_path(root, name, diagnostics)
        plugin.plugin_id = plugin_id
        plugin.origin = "marketplace"
        plugin.enabled = value is True
        plugin.decided_by = (scope, file)
        out.append(plugin)
    return out


def _locate(name: str, marketplace: str, known: Any, install_entries: Any, diagnostics: list[Diagnostic]) -> Path | None:
    config = known.get(marketplace) if isinstance(known, dict) else None
    if isinstance(config, dict) and isinstance(config.get("installLocation"), str):
        location = Path(config["installLocation"])
        market_dir = location if location.is_dir() else location.parent
        catalog = _read_json(market_dir / ".claude-plugin" / "marketplace.json", diagnostics, "marketplace catalog")
        entries = catalog.get("plugins", []) if isinstance(catalog, dict) else []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("name") == name:
                if isinstance(entry.get("source"), str):  # relative path inside the marketplace
                    return _existing(market_dir / entry["source"])
                break
    if isinstance(install_entries, list) and install_entries and isinstance(install_entries[0], dict):
        path = install_entries[0].get("installPath")
        if isinstance(path, str):
            return _existing(Path(path))
    return None


def _existing(path: Path) -> Path | None:
    return path if path.is_dir() else None


def load_plugin_skills(plugins: list[Plugin], profile: Profile, diagnostics: list[Diagnostic]) -> list[Skill]:
    """All plugin commands first, then all plugin skills (getPluginCommands before getPluginSkills)."""
    enabled = [p for p in plugins if p.enabled]
    commands: list[Skill] = []
    skills: list[Skill] = []
    for plugin in enabled:
        commands += _plugin_commands(plugin, profile, diagnostics)
    for plugin in enabled:
        skills += _plugin_skills(plugin, profile, diagnostics)
    return commands + skills


def _tag(skill: Skill, plugin: Plugin, profile: Profile | None = None) -> Skill:
    if profile is not None and profile.supports(Feature.PLUGIN_NAME_ALIAS) and skill.display_name \
            and ":" not in skill.display_name and skill.display_name != skill.name:
        # current: `name: writing-plans` without `:` is a name the Skill tool accepts for `plug:writing-plans`
        # (claude.exe `We`: a plugin prompt's aliases; expand-plugin-alias)
        skill.aliases = (*skill.aliases, skill.display_name)
    if profile is not None and profile.supports(Feature.PLUGIN_DISPLAY_NAME_PREFIXED) and skill.display_name:
        # current lists `fzp0:s34-28 (fzp0:simplify)` for `name: simplify` (fuzz-reg seeds 28, 33, 34, 36, 37)
        # (a nested plugin command `shared0:pre:x` shows `(shared0:pre:disp.v2)`: its namespace, seed 27)
        skill.display_name = f"{skill.name.rsplit(':', 1)[0]}:{skill.display_name}"
    skill.plugin = plugin.name
    skill.plugin_id = plugin.plugin_id
    skill.scope_dir = plugin.root
    skill.group = f"plugin:{plugin.plugin_id}"
    return skill


def _plugin_commands(plugin: Plugin, profile: Profile, diagnostics: list[Diagnostic]) -> list[Skill]:
    from .sources import is_skill_md, find_markdown_files, transform_skill_files

    seen: set[str] = set()
    out: list[Skill] = []
    roots = _manifest_paths(plugin, "commands")
    if roots is None:
        roots = [plugin.root / "commands"]
    for root in roots:
        if root.is_file() and root.name.endswith(".md"):
            files, base = [root], root.parent
        elif root.is_dir():
            files, base = transform_skill_files(find_markdown_files(root, diagnostics)), root
        else:
            if plugin.manifest.get("commands"):
                diagnostics.append(Diagnostic(Severity.WARNING, "plugin-path-missing",
                                              f"Plugin {plugin.name} names {root} in its manifest, but it does not exist.",
                                              root))
            continue
        for path in files:
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            is_skill = is_skill_md(path.name)
            from .sources import command_name
            name = f"{plugin.name}:{command_name(path, base)}"
            skill = load_skill_file(path, name=name, kind=SkillKind.COMMAND, source=SourceKind.PLUGIN_COMMAND,
                                    profile=profile, source_root=base, skill_dir=None,
                                    fallback_label="Plugin skill" if is_skill else "Plugin command",
                                    allow_paths=False, skipped=diagnostics)
            if skill is not None:
                out.append(_tag(skill, plugin, profile))
    return out


def _skill_md_texts(candidates: list[tuple[str, Path, bool]]) -> list[str]:
    return [os.path.join(skill_dir, "SKILL.md") for _name, skill_dir, _linked in candidates]


def _entry_realpath(path: Path, real_root: str | None) -> str:
    """os.path.realpath of `<root>/<entry>/SKILL.md`; `real_root`: the resolved root with its separator, when
    the entry is no link: then one lstat of the file stands for realpath's one per part of the path."""
    if real_root is not None:
        try:
            if not stat.S_ISLNK(os.lstat(os.fspath(path)).st_mode):  # (a text: the quick way through a trace)
                return real_root + path.parent.name + os.sep + path.name
        except OSError:
            pass
    return os.path.realpath(path)


def _skills_roots(plugin: Plugin, profile: Profile) -> list[Path]:
    """The skills paths of a plugin, in the order its skills load."""
    roots = _manifest_paths(plugin, "skills")
    if roots is None:
        return [plugin.root / "skills"]
    if profile.supports(Feature.PLUGIN_DEFAULT_SKILLS_DIR_KEPT) and plugin.root / "skills" not in roots:
        # current also loads the default `skills/` dir, first, beside the manifest's `"skills": "./custom-skills"`
        # (fuzz-reg seeds 20, 30, 32: `kit0:ignored-0` listed between the plugin's commands and its custom skills)
        return [plugin.root / "skills"] + roots
    return roots


def skill_file_listers(plugins: list[Plugin], profile: Profile) -> list[Callable[[], list[str]]]:
    """For a reader that parses ahead (core/load/parse_ahead.py): per skills path of the enabled plugins, what
    gives the SKILL.md files load_plugin_skills reads there (a path that is one skill: its own; else one per
    folder or link in it), named as it names them, in any order. Nothing is read until one is called."""
    def lister(root: Path) -> Callable[[], list[str]]:
        def files() -> list[str]:
            direct = os.path.join(root, "SKILL.md")
            if os.path.isfile(direct):
                return [direct]
            from .sources import skills_dirs_files
            return list(skills_dirs_files([(root, None)], profile, ordered=False))
        return files
    return [lister(root) for plugin in plugins if plugin.enabled for root in _skills_roots(plugin, profile)]


def _plugin_skills(plugin: Plugin, profile: Profile, diagnostics: list[Diagnostic]) -> list[Skill]:
    seen: set[str] = set()
    out: list[Skill] = []
    for root in _skills_roots(plugin, profile):
        direct = root / "SKILL.md"
        if direct.is_file():  # a skills path that is itself one skill
            candidates = [(root.name, root, True)]
        else:
            read_order = profile.supports(Feature.SKILL_DIRS_IN_READ_ORDER)
            entries = scandir_sorted(root, diagnostics, sort=not read_order) or []
            # current, `localeCompare` (fuzz-reg seed 20: `dup` < `Kappa`)
            if profile.supports(Feature.SKILL_DIRS_CASE_INSENSITIVE_ORDER) and not read_order:
                entries = sorted_entries(entries, profile)
            candidates = [(e.name, root / e.name, e.is_symlink()) for e in entries
                          if e.is_symlink() or e.is_dir(follow_symlinks=False)]
        ahead = skill_read_ahead(partial(_skill_md_texts, candidates))
        real_root: str | None = None
        for name, skill_dir, linked in candidates:
            path = skill_dir / "SKILL.md"
            if real_root is None and not linked:
                real_root = os.path.join(os.path.realpath(root), "")
            real = _entry_realpath(path, real_root if not linked else None)
            if real in seen:
                continue
            # current: dir `pre:x` → `shared0:pre-x`, `café` → `kit0:caf-`
            if profile.supports(Feature.PLUGIN_SKILL_COLON_TO_DASH):
                name = _PLUGIN_NAME_UNSAFE.sub("-", name)  # (fuzz-reg seeds 1, 25)
            skill = load_skill_file(path, name=f"{plugin.name}:{name}", kind=SkillKind.SKILL,
                                    source=SourceKind.PLUGIN_SKILL, profile=profile, source_root=root,
                                    skill_dir=skill_dir, fallback_label="Plugin skill", allow_paths=False,
                                    skipped=diagnostics, ahead=ahead)
            if skill is not None:
                seen.add(real)
                out.append(_tag(skill, plugin, profile))
    return out
