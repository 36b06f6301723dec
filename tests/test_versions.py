"""Claude Code releases as feature sets: the data is complete, the aliases are exact, and no code outside
skillmanager/core/versions/ asks which release it is."""
from __future__ import annotations

import ast
import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from skillmanager.core.versions.features import VALUE_NAMES, Feature
from skillmanager.cli import main
from skillmanager.core.versions.profiles import (PROFILE_NAMES, VersionError, get_profile, installed_profile,
                                                 parse_version, profile_for, resolve_profile)

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


def test_every_timeline_step_is_well_formed():
    """Each step's observed releases lie in its own range; an 'after' lies before it and, once located, right
    before it in the observed data (the previous step saw it)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for group in ("features", "values"):
        for key, entry in data[group].items():
            steps = entry["timeline"]
            for index, step in enumerate(steps):
                since = parse_version(step["since"])
                end = parse_version(steps[index + 1]["since"]) if index + 1 < len(steps) else None
                for seen in step["observed"]:
                    assert since <= parse_version(seen) and (end is None or parse_version(seen) < end), (key, step)
                if index:
                    assert "after" in step and "located" in step, (key, step)
                    after = parse_version(step["after"])
                    assert after < since and after in {parse_version(v) for v in steps[index - 1]["observed"]}, \
                        (key, step)
                    assert isinstance(step["located"], bool), (key, step)


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


def test_installed_version_text_maps_to_its_release():
    assert installed_profile("2.1.88 (Claude Code)") == (get_profile("legacy"), None)
    assert installed_profile("2.1.332 (Claude Code)") == (get_profile("current"), None)
    profile, _note = installed_profile("2.1.150 (Claude Code)")
    assert profile.version == (2, 1, 150) and profile.name == "2.1.150"
    assert installed_profile("nonsense")[0] is None
    assert installed_profile("2.1.3")[0] is None  # older than the first studied release


def test_resolve_profile_contract():
    assert resolve_profile(None, None)[0] == get_profile("current")
    assert resolve_profile("legacy", None) == (get_profile("legacy"), None)
    assert resolve_profile(None, "2.1.88")[0].features == get_profile("legacy").features
    newer, note = resolve_profile(None, "2.1.999")
    assert newer.features == get_profile("current").features and "newer than the last studied" in note
    for bad in (("legacy", "2.1.88"), (None, "2.1.87"), (None, "latest"), (None, "2.1")):
        with pytest.raises(VersionError):
            resolve_profile(*bad)


def _cli(capsys, *argv):
    import io
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue(), capsys.readouterr().err


def test_claude_version_option(tmp_path, capsys):
    proj = tmp_path / "proj"
    (proj / ".claude" / "skills" / "s").mkdir(parents=True)
    (proj / ".claude" / "skills" / "s" / "SKILL.md").write_text("---\ndescription: d\n---\nbody\n")
    base = ["listing", "--home", str(tmp_path), "--cwd", str(proj), "--no-managed"]
    code, by_alias, _ = _cli(capsys, *base, "--profile", "legacy")
    assert code == 0
    code, by_number, err = _cli(capsys, *base, "--claude-version", "2.1.88")
    assert (code, by_number, err) == (0, by_alias, "")
    code, out, err = _cli(capsys, *base, "--claude-version", "2.1.500")
    assert code == 0 and "newer than the last studied release" in err and "newer" not in out
    assert out == _cli(capsys, *base, "--profile", "current")[1]
    for bad in (["--profile", "legacy", "--claude-version", "2.1.88"], ["--claude-version", "2.1.10"]):
        code, out, err = _cli(capsys, *base, *bad)
        assert code == 2 and out == "" and "error" in err


def _oracle_module(name: str):
    import importlib
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "oracle"))
    return importlib.import_module(name)


def test_every_feature_has_a_probe():
    battery, timeline = _oracle_module("battery"), _oracle_module("timeline")
    missing = [f.value for f in Feature if f.value not in battery.PROBES and f.value not in timeline.FOLLOWS]
    assert missing == [], f"features without a probe in tests/oracle/battery.py: {missing}"
    missing = [name for name in VALUE_NAMES if name not in battery.PROBES]
    assert missing == [], f"values without a probe in tests/oracle/battery.py: {missing}"
    for name, (run, part, observe) in battery.PROBES.items():
        assert run in battery.RUNS and part and callable(observe), name
    for name, (probe, derive) in timeline.FOLLOWS.items():
        assert name in battery.PROBES and probe in battery.PROBES and callable(derive), name


TIMELINE_DIR = ROOT / "tests" / "golden" / "timeline"


def _releases() -> list[str]:
    return [v for v, _published in json.loads((TIMELINE_DIR / "releases.json").read_text(encoding="utf-8"))["releases"]]


def _observations() -> dict[str, dict]:
    return json.loads((TIMELINE_DIR / "observations.json").read_text(encoding="utf-8"))["releases"]


def test_release_list_is_the_registrys_order():
    releases = _releases()
    assert len(releases) == len(set(releases)) and releases == sorted(releases, key=parse_version)
    assert {"2.1.88", "2.1.332"} <= set(releases)


def test_timeline_steps_sit_on_registry_releases():
    """Every observed release is a published one; a located step's 'after' and 'since' are adjacent releases;
    an unlocated one says why (releases between not run, or not runnable) and its 'since' is its first
    observation, so the releases between take the earlier value."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    releases = _releases()
    observations = _observations()
    assert set(data["studied"]) == {v for v, seen in observations.items() if "error" not in seen}
    for group in ("features", "values"):
        for key, entry in data[group].items():
            for index, step in enumerate(entry["timeline"]):
                assert set(step["observed"]) <= set(data["studied"]), (key, step)
                assert step["since"] == step["observed"][0], (key, step)
                if not index:
                    continue
                between = releases[releases.index(step["after"]) + 1:releases.index(step["since"])]
                assert step["located"] == (not between), (key, step)
                if between:
                    stated = step.get("untried", 0) + len(step.get("not_runnable", [])) + len(step.get("undecided", []))
                    assert stated == len(between) and "bounded" in step["evidence"], (key, step)
                    assert all("error" in observations[v] for v in step.get("not_runnable", [])), (key, step)


def test_engine_takes_each_observed_release_exactly():
    """At every release the battery ran on, the profile has exactly the features the battery saw."""
    timeline = _oracle_module("timeline")
    for version, seen in _observations().items():
        if "error" in seen:
            continue
        profile = profile_for(version)
        for feature in Feature:
            observed = timeline.data_value(feature.value, seen)
            if observed is not None:
                assert profile.supports(feature) == observed, (version, feature)
        for value in ("default_model", "per_entry_cap", "effort_levels"):
            if seen.get(value) is not None:
                got = getattr(profile, value)
                assert (list(got) if isinstance(got, tuple) else got) == seen[value], (version, value)
        if seen.get("bundled") is not None:  # releases bisected with only some runs lack the listing run
            assert [(e.name, e.length) for e in profile.bundled] == [tuple(b) for b in seen["bundled"]], version


def test_versions_around_a_step_take_the_stated_values():
    """'after' has the old value and 'since' the new; a release between an unlocated step's 'after' and 'since'
    (not run) keeps the old value, and the note for it names the feature."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    releases = _releases()
    for feature in Feature:
        steps = data["features"][feature.value]["timeline"]
        for previous, step in zip(steps, steps[1:]):
            assert profile_for(step["after"]).supports(feature) == previous["value"], (feature, step)
            assert profile_for(step["since"]).supports(feature) == step["value"], (feature, step)
            between = releases[releases.index(step["after"]) + 1:releases.index(step["since"])]
            for version in between[:1] + between[-1:]:
                profile = profile_for(version)
                assert profile.supports(feature) == previous["value"], (feature, version)
                if version not in data["studied"]:  # run, but this probe could not tell there
                    _profile, note = resolve_profile(None, version)
                    assert note and feature.value in note, (feature, version, note)


def test_new_release_comparison_holds_on_observed_releases_and_names_a_change():
    """new_release.py's comparison: every observed release holds against the timeline; a release whose probe
    answers differ is reported with the feature and the run that showed it."""
    timeline = _oracle_module("timeline")
    observations = _observations()
    for version, seen in observations.items():
        if "error" in seen:
            continue
        held, changed, _unanswered = timeline.compare({"version": version, "found": seen, "notes": {}})
        assert changed == [] and held, (version, changed)
    version, seen = "2.1.332", dict(observations["2.1.332"])
    seen["STRIPS_BOM"] = not seen["STRIPS_BOM"]
    seen["per_entry_cap"] = 1000
    _held, changed, _unanswered = timeline.compare({"version": version, "found": seen, "notes": {}})
    assert [line.split(":")[0] for line in changed] == ["STRIPS_BOM", "per_entry_cap"]
    assert "listing run" in changed[0] and "observed false" in changed[0]


def test_installed_claude_is_named_in_one_plain_sentence(tmp_path, monkeypatch):
    from locations import CURRENT_CLI, missing
    from skillmanager.core.versions.installed import LOOKING, detect_installed_claude, shown_sentence

    current, legacy = get_profile("current"), get_profile("legacy")
    assert shown_sentence(None, current) == LOOKING
    monkeypatch.setenv("PATH", str(tmp_path))
    absent = detect_installed_claude()
    assert shown_sentence(absent, current) == ("Claude Code was not found on this computer — showing what "
                                               "Claude Code 2.1.332 does")
    broken = detect_installed_claude(str(tmp_path / "no-claude-here"))
    assert shown_sentence(broken, legacy) == ("Claude Code was found but could not be run — showing what "
                                              "Claude Code 2.1.88 does")
    if not CURRENT_CLI.exists():
        missing(f"the real Claude Code is not at {CURRENT_CLI}")
    found = detect_installed_claude(str(CURRENT_CLI))
    assert found.version_text.startswith("2.1.332")
    assert shown_sentence(found, current) == "Claude Code 2.1.332 found — showing what it does"
    assert shown_sentence(found, legacy) == ("Claude Code 2.1.332 found — showing what Claude Code 2.1.88 does "
                                             "(change it under Advanced)")
