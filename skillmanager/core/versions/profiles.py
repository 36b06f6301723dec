"""Claude Code version families as data: the rules that differ between them.

`legacy` is the 2.1.88 family (last readable cli.js), `current` the 2.1.3xx family (native
binary). Everything version-specific the engine needs is a field here, so a new family is a
new instance rather than new branches across modules.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..model import SourceKind
from ..resources import resource_path

LEGACY = "legacy"
CURRENT = "current"
PROFILE_NAMES = (LEGACY, CURRENT)


@dataclass(frozen=True)
class BundledEntry:
    """A skill compiled into Claude Code: its name and the measured size of its listing entry."""

    name: str
    width: int  # display width of the whole `- name: …` entry as sent
    length: int  # UTF-16 length of the same text
    kind: str = "bundled"  # "bundled" | "builtin-command" (current's init / security-review)
    aliases: tuple[str, ...] = ()  # names it is registered with besides `name` (read from the binary)
    context: str | None = None  # "fork": a model's call runs it in a sub-agent


@dataclass(frozen=True)
class Profile:
    name: str
    family: str  # human label of the version family
    versions: tuple[int, int, int, int]  # (major, minor, patch_from, patch_to) studied range
    default_model: str
    per_entry_cap: int  # description(+when_to_use) cap, UTF-16 code units
    strips_bom: bool
    lenient_booleans: bool  # yes/no/on/off/1/0 accepted by current
    when_to_use_newlines_to_spaces: bool
    listing_keeps_every_copy: bool  # legacy lists every same-named skill
    add_dir_commands: bool  # current lists an add-dir's .claude/commands
    commands_sorted_by_name: bool
    bundled_first: bool  # legacy lists bundled skills first; current after plugin skills
    supports_skill_overrides: bool
    supports_disable_bundled: bool
    missing_argument_stays_literal: bool  # `$9` with too few args: "" (legacy) or literal (current)
    scoped_nested_names: bool  # current: `dir:name` for clashing nested skills
    yaml_last_key_wins: bool = False  # current (Bun.YAML): repeated keys keep the last value, `<<` merges
    plugin_skill_colon_to_dash: bool = False  # current: plugin skill dir `pre:x` is listed as `plug:pre-x`
    # current: bundled names that disableBundledSkills leaves alone (built-in plugin skills, not bundled ones)
    bundled_kept_when_disabled: frozenset = frozenset()
    skill_dirs_case_insensitive: bool = False  # current: skill dirs listed in case-insensitive name order
    plugin_display_name_prefixed: bool = False  # current: a plugin skill's `name:` shows as `plugin:name`
    plugin_default_skills_dir_kept: bool = False  # current: `skills/` loads even when the manifest names others
    add_dir_clash_scoped: bool = False  # current: a clashing --add-dir skill becomes `{dir}:{name}` (scoped)
    dmi_yields_name: bool = False  # current: a disable-model-invocation copy does not hide a later copy from the model
    # legacy: `.claude/commands` files come in ripgrep order and plugin entries as concurrent reads finish, so
    # their order in the listing varies from run to run (compared as sets by verify and the oracle tests)
    unstable_command_and_plugin_order: bool = False
    bundled: tuple[BundledEntry, ...] = field(default_factory=tuple)


def _load_bundled(profile: str) -> tuple[BundledEntry, ...]:
    """Bundled names and measured entry sizes, taken from real-CLI captures (see the data file)."""
    path = resource_path("data", "bundled_skills.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    return tuple(
        BundledEntry(e["name"], int(e["width"]), int(e["length"]), e.get("kind", "bundled"),
                     tuple(str(a) for a in e.get("aliases", ())), e.get("context"))
        for e in data.get(profile, {}).get("entries", [])
    )


@lru_cache(maxsize=None)
def get_profile(name: str) -> Profile:
    if name == LEGACY:
        return Profile(
            name=LEGACY,
            family="Claude Code 2.1.88 family (readable cli.js)",
            versions=(2, 1, 0, 199),
            default_model="claude-sonnet-4-6",
            per_entry_cap=250,
            strips_bom=False,
            lenient_booleans=False,
            when_to_use_newlines_to_spaces=False,
            listing_keeps_every_copy=True,
            add_dir_commands=False,
            commands_sorted_by_name=False,
            bundled_first=True,
            supports_skill_overrides=False,
            supports_disable_bundled=False,
            missing_argument_stays_literal=False,
            scoped_nested_names=False,
            unstable_command_and_plugin_order=True,
            bundled=_load_bundled(LEGACY),
        )
    if name == CURRENT:
        return Profile(
            name=CURRENT,
            family="Claude Code 2.1.3xx family (native binary)",
            versions=(2, 1, 200, 999),
            default_model="claude-opus-5-5",
            per_entry_cap=1536,
            strips_bom=True,
            lenient_booleans=True,
            when_to_use_newlines_to_spaces=True,
            listing_keeps_every_copy=False,
            add_dir_commands=True,
            commands_sorted_by_name=True,
            bundled_first=False,
            supports_skill_overrides=True,
            supports_disable_bundled=True,
            missing_argument_stays_literal=True,
            scoped_nested_names=True,
            yaml_last_key_wins=True,
            plugin_skill_colon_to_dash=True,
            # fuzz-reg seed 4 (current): with disableBundledSkills true only `plugin-authoring` stayed listed;
            # claude.exe maps it to `cc-plugin-plugin-authoring` (a built-in plugin, not a bundled skill)
            bundled_kept_when_disabled=frozenset({"plugin-authoring"}),
            skill_dirs_case_insensitive=True,
            plugin_display_name_prefixed=True,
            dmi_yields_name=True,
            plugin_default_skills_dir_kept=True,
            add_dir_clash_scoped=True,
            bundled=_load_bundled(CURRENT),
        )
    raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILE_NAMES)}")


_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def profile_for_version(version_text: str) -> tuple[str | None, str | None]:
    """Map `claude --version` output to a profile name, with a warning when outside the studied families."""
    match = _VERSION_RE.search(version_text or "")
    if not match:
        return None, f"could not read a version from {version_text!r}"
    major, minor, patch = (int(g) for g in match.groups())
    for name in PROFILE_NAMES:
        lo_major, lo_minor, patch_from, patch_to = get_profile(name).versions
        if (major, minor) == (lo_major, lo_minor) and patch_from <= patch <= patch_to:
            warning = None
            studied = {LEGACY: 88, CURRENT: 332}[name]
            if patch != studied:
                warning = (f"Claude Code {major}.{minor}.{patch} was not studied directly; "
                           f"using the {name} profile (studied on 2.1.{studied})")
            return name, warning
    nearest = LEGACY if (major, minor) < (2, 1) else CURRENT
    return nearest, (f"Claude Code {major}.{minor}.{patch} is outside the studied families "
                     f"(2.1.88, 2.1.332); using the {nearest} profile, results may differ")


SOURCE_ORDER = {
    LEGACY: (SourceKind.BUNDLED, SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR,
             SourceKind.COMMAND, SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL, SourceKind.MCP),
    CURRENT: (SourceKind.MANAGED, SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND,
              SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL, SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND,
              SourceKind.MCP),
}
