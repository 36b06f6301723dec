"""Claude Code releases as data: which named features a release has and its values.

`profile_for(version)` reads resources/data/claude_versions.json (per feature and value: the release it
holds from, the releases it was observed on, the evidence) and returns an immutable Profile. `legacy` and
`current` are exact aliases of the two studied releases, 2.1.88 (last readable cli.js) and 2.1.332
(native binary). This package is the only place in the code that names a release.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..model import SourceKind
from ..resources import resource_path
from .features import VALUE_NAMES, Feature
from .release_names import CURRENT as CURRENT, DEFAULT_PROFILE as DEFAULT_PROFILE  # their home; named here too
from .release_names import LEGACY as LEGACY, PROFILE_NAMES as PROFILE_NAMES

log = logging.getLogger(__name__)



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
    """One Claude Code release as the engine sees it: its features and values."""

    name: str  # an alias ("legacy"/"current") or the release ("2.1.150")
    version: tuple[int, int, int]
    features: frozenset[Feature]
    family: str  # human label
    default_model: str
    per_entry_cap: int  # description(+when_to_use) cap, UTF-16 code units
    bundled: tuple[BundledEntry, ...]
    bundled_kept_when_disabled: frozenset[str]  # bundled names disableBundledSkills leaves alone
    source_order: tuple[SourceKind, ...]
    effort_levels: tuple[str, ...]
    bundled_problem: str | None = None  # why the bundled entries could not be read (none are loaded then)

    def supports(self, feature: Feature) -> bool:
        return feature in self.features

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def alias(self) -> str | None:
        """`legacy` / `current` when this is a studied release named by its alias."""
        return self.name if self.name in PROFILE_NAMES else None


_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION_RE.search(text or "")
    if match is None:
        return None
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def _data_version(text: str) -> tuple[int, int, int]:
    """A release named in claude_versions.json (always X.Y.Z; a typo there is a bug, not bad input)."""
    parsed = parse_version(text)
    if parsed is None:
        raise ValueError(f"claude_versions.json: {text!r} is not a release")
    return parsed


@lru_cache(maxsize=1)
def _timeline() -> dict[str, Any]:
    timeline: dict[str, Any] = json.loads(resource_path("data", "claude_versions.json").read_text(encoding="utf-8"))
    return timeline


def _value_at(timeline: list[dict[str, Any]], version: tuple[int, int, int]) -> Any:
    """The value of the last step that starts at or before `version` (the first step before the first)."""
    value = timeline[0]["value"]
    for step in timeline:
        if _data_version(step["since"]) <= version:
            value = step["value"]
    return value


BUNDLED_DATA = ("data", "bundled_skills.json")


@lru_cache(maxsize=None)
def _load_bundled(key: str) -> tuple[tuple[BundledEntry, ...], str | None]:
    """Bundled names and measured entry sizes, taken from real-CLI captures (see the data file), and the
    problem when the file cannot be used: without it Claude Code's own skills would silently vanish."""
    path = resource_path(*BUNDLED_DATA)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        raw = data[key]["entries"]
        entries = tuple(
            BundledEntry(str(e["name"]), int(e["width"]), int(e["length"]), str(e.get("kind", "bundled")),
                         tuple(str(a) for a in e.get("aliases", ())), e.get("context"))
            for e in raw)
    except OSError as error:
        problem = f"{path} cannot be read ({error.strerror or error})"
    except ValueError as error:
        problem = f"{path} is not valid JSON ({error})"
    except (KeyError, TypeError, AttributeError) as error:
        problem = f"{path} has no usable entries for {key!r} (missing or malformed: {error})"
    else:
        return entries, None
    problem += ": the skills bundled with Claude Code are left out of the registry and the listing."
    log.info("%s", problem)  # shown as a registry diagnostic (stderr, the GUI's Problems), so not a warning twice
    return (), problem


@lru_cache(maxsize=None)
def profile_for(version: str | tuple[int, int, int], name: str | None = None) -> Profile:
    """The exact feature set and values of one release ("2.1.150" or (2, 1, 150))."""
    parsed = version if isinstance(version, tuple) else parse_version(version)
    if parsed is None:
        raise ValueError(f"not a Claude Code version: {version!r}")
    data = _timeline()
    features = frozenset(f for f in Feature if _value_at(data["features"][f.value]["timeline"], parsed))
    values = {key: _value_at(data["values"][key]["timeline"], parsed) for key in VALUE_NAMES}
    bundled, bundled_problem = _load_bundled(values["bundled"])
    return Profile(
        name=name or ".".join(map(str, parsed)),
        version=parsed,
        features=features,
        family=values["family"],
        default_model=values["default_model"],
        per_entry_cap=int(values["per_entry_cap"]),
        bundled=bundled,
        bundled_kept_when_disabled=frozenset(values["bundled_kept_when_disabled"]),
        source_order=tuple(SourceKind(k) for k in values["source_order"]),
        effort_levels=tuple(values["effort_levels"]),
        bundled_problem=bundled_problem,
    )


def get_profile(name: str) -> Profile:
    """A profile by alias (`legacy` = 2.1.88, `current` = 2.1.332)."""
    aliases = _timeline()["aliases"]
    if name not in aliases:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILE_NAMES)}")
    return profile_for(aliases[name], name)


def default_profile() -> Profile:
    return get_profile(DEFAULT_PROFILE)


class VersionError(ValueError):
    """A release the timeline cannot answer for, or a contradictory request (a usage error)."""


def _text(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def version_note(profile: Profile) -> str | None:
    """What to tell the user (on stderr) about how well a release is known; None for a studied release."""
    data = _timeline()
    studied = sorted(_data_version(v) for v in data["studied"])
    if profile.version in studied:
        return None
    last = studied[-1]
    if profile.version > last:
        return (f"Claude Code {profile.version_text} is newer than the last studied release ({_text(last)}): "
                f"using the features of {_text(last)}")
    bounded = sorted(f.value for f in Feature if _only_bounded(data["features"][f.value]["timeline"], profile.version))
    if not bounded:
        return None
    return (f"Claude Code {profile.version_text} was not studied directly; {len(bounded)} feature(s) changed somewhere "
            f"around it without being located ({', '.join(bounded)}): see resources/data/claude_versions.json")


def _only_bounded(timeline: list[dict[str, Any]], version: tuple[int, int, int]) -> bool:
    """The version falls between the last release seen with the old value and the first seen with the new."""
    for step in timeline:
        after = step.get("after")
        if step.get("located", True) or after is None:
            continue
        first_seen = min(_data_version(v) for v in step["observed"])
        if _data_version(after) < version < first_seen:
            return True
    return False


def resolve_profile(name: str | None = None, version: str | None = None) -> tuple[Profile, str | None]:
    """`--profile NAME` or `--claude-version X.Y.Z` (not both) → (profile, note for stderr or None).
    Raises VersionError for both, an unreadable version, or one older than the first studied release."""
    if name is not None and version is not None:
        raise VersionError("give --profile or --claude-version, not both (--profile legacy is 2.1.88, "
                           "current is 2.1.332)")
    if version is None:
        return get_profile(name or DEFAULT_PROFILE), None
    parsed = parse_version(version)
    if parsed is None or not re.fullmatch(r"\s*v?\d+\.\d+\.\d+\s*", version):
        raise VersionError(f"--claude-version takes a release like 2.1.150, not {version!r}")
    first = min(_data_version(v) for v in _timeline()["studied"])
    if parsed < first:
        raise VersionError(f"Claude Code {_text(parsed)} is older than the first studied release ({_text(first)})")
    aliases = {_data_version(v): alias for alias, v in _timeline()["aliases"].items()}
    profile = profile_for(parsed, aliases.get(parsed))
    return profile, version_note(profile)


def installed_profile(version_text: str) -> tuple[Profile | None, str | None]:
    """`claude --version` output → (the release's profile, a note) or (None, why not)."""
    parsed = parse_version(version_text)
    if parsed is None:
        return None, f"could not read a version from {version_text!r}"
    try:
        return resolve_profile(None, _text(parsed))
    except VersionError as error:
        return None, f"{error}; choose --profile legacy or current"
