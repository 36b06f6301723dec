"""Claude Code releases as feature sets: the data is complete, the aliases are exact, and no code outside
skillmanager/core/versions/ asks which release it is."""
from __future__ import annotations

import ast
import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from skillmanager.core.versions.features import VALUE_NAMES, Feature
from skillmanager.core.versions.profiles import (PROFILE_NAMES, get_profile, parse_version, profile_for,
                                                 profile_for_version)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "skillmanager"
VERSIONS_DIR = PACKAGE / "core" / "versions"
DATA = ROOT / "resources" / "data" / "claude_versions.json"
RELEASE_WORDS = {"legacy", "current"}


def _sources_outside_versions() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if VERSIONS_DIR not in p.parents]


def _names_a_profile(node: ast.AST) -> bool:
    """`profile.name`, `registry.profile.name`, `profile_name`, LEGACY/CURRENT."""
    if isinstance(node, ast.Attribute) and node.attr == "name":
        inner = node.value
        return (isinstance(inner, ast.Name) and "profile" in inner.id) or \
            (isinstance(inner, ast.Attribute) and "profile" in inner.attr)
    if isinstance(node, ast.Name):
        return node.id in ("LEGACY", "CURRENT", "profile_name")
    return isinstance(node, ast.Attribute) and node.attr in ("profile_name",)


def release_checks(path: Path) -> list[str]:
    """Every place in one source file that compares a profile's name or spells a release word."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    problems = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names_a_profile(s) for s in sides):
                problems.append(f"{where}: compares a profile's name")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RELEASE_WORDS:
            problems.append(f"{where}: the literal {node.value!r}")
        elif isinstance(node, ast.arg) and node.arg == "current" and isinstance(node.annotation, ast.Name) \
                and node.annotation.id == "bool":
            problems.append(f"{where}: a `current: bool` parameter")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value).startswith("supports_"):
            problems.append(f"{where}: getattr of a profile switch")
    return problems


def test_no_code_outside_versions_names_a_release():
    problems = [p for path in _sources_outside_versions() for p in release_checks(path)]
    assert problems == [], "ask profile.supports(Feature.X) or read a value:\n" + "\n".join(problems)


@pytest.mark.parametrize("snippet, found", [
    ("if profile.name == 'legacy':\n    pass\n", 2),
    ("x = registry.profile.name != CURRENT\n", 1),
    ("def f(a, current: bool):\n    pass\n", 1),
    ("y = getattr(p, 'supports_skill_overrides', False)\n", 1),
    ("from skillmanager.core.versions.profiles import CURRENT\nchoices = PROFILE_NAMES\n", 0),
    ("if profile.supports(Feature.STRIPS_BOM):\n    pass\n", 0),
])
def test_the_guard_catches_each_form(tmp_path, snippet, found):
    path = ROOT / "tests" / "_guard_probe.py"
    try:
        path.write_text(snippet, encoding="utf-8")
        assert len(release_checks(path)) == found
    finally:
        path.unlink(missing_ok=True)


def test_every_feature_and_value_has_a_timeline_with_evidence():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert set(data["features"]) == {f.value for f in Feature}
    assert set(data["values"]) == set(VALUE_NAMES)
    for group in ("features", "values"):
        for key, entry in data[group].items():
            steps = entry["timeline"]
            assert steps, key
            versions = [parse_version(s["since"]) for s in steps]
            assert versions == sorted(versions) and len(set(versions)) == len(versions), key
            for step in steps:
                assert step["evidence"] and step["observed"], (key, step)
                if group == "features":
                    assert isinstance(step["value"], bool), key


def test_aliases_are_exact_releases():
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert set(data["aliases"]) == set(PROFILE_NAMES)
    assert data["aliases"] == {"legacy": "2.1.88", "current": "2.1.332"}
    for alias, version in data["aliases"].items():
        named, by_version = get_profile(alias), profile_for(version)
        assert named.name == alias and by_version.name == version
        assert named.features == by_version.features and named.version == by_version.version
        assert named.bundled == by_version.bundled and named.source_order == by_version.source_order


def test_studied_releases_differ_as_recorded():
    legacy, current = get_profile("legacy"), get_profile("current")
    assert legacy.supports(Feature.LISTING_TRAILING_NEWLINE) and not current.supports(Feature.LISTING_TRAILING_NEWLINE)
    assert current.supports(Feature.SKILL_OVERRIDES) and not legacy.supports(Feature.SKILL_OVERRIDES)
    assert (legacy.per_entry_cap, current.per_entry_cap) == (250, 1536)
    assert legacy.bundled and current.bundled and legacy.bundled != current.bundled


def test_profiles_are_immutable():
    profile = get_profile("current")
    with pytest.raises(FrozenInstanceError):
        profile.per_entry_cap = 1  # type: ignore[misc]
    assert isinstance(profile.features, frozenset)


def test_unknown_names_and_versions_are_refused():
    with pytest.raises(ValueError):
        get_profile("2.1.88")
    with pytest.raises(ValueError):
        profile_for("latest")


def test_version_text_maps_to_a_profile():
    assert profile_for_version("2.1.88 (Claude Code)") == ("legacy", None)
    assert profile_for_version("2.1.332 (Claude Code)") == ("current", None)
    name, warning = profile_for_version("2.1.150")
    assert name == "legacy" and "2.1.150" in warning
    assert profile_for_version("nonsense")[0] is None
