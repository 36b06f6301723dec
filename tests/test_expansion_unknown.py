"""Refusals for names that resolve to nothing (current's SkillTool validateInput hints, legacy's bare text).

Rules from the 2.1.332 binary (`SCl`, `Mje`/`$6`, `xfi`) and pinned by captures: toggle-keys (`pb` →
`plug:pb`), expand-refuse (`OK` → `ok`), sim-two-levels (scoped variants), fuzz-expand-* (`hlep` → `help`,
`compat` → `compact`, `cost2` → `cost`, `FZ1-S17` → no hint, typos of skill and command names,
`ps0` → the plugin skill, `fzshared` → plugin and project command).
"""
from __future__ import annotations

from types import SimpleNamespace

from skillmanager.core.layers.expansion import _closest_name, _osa_distance, expand
from skillmanager.core.model import Skill, SourceKind
from skillmanager.core.versions.profiles import get_profile


def _skill(name: str, source: SourceKind = SourceKind.PROJECT, **kw) -> Skill:
    return Skill(name=name, kind="skill", source=source, source_root=None, path=None, skill_dir=None,
                 body="body\n", description="d", **kw)


def _registry(*skills: Skill, profile: str = "current"):
    return SimpleNamespace(skills=list(skills), profile=get_profile(profile), settings=None, workspace=None)


def _refusal(registry, name: str, profile: str = "current") -> str:
    result = expand(registry, name, args="a b", profile=get_profile(profile), session_id="s")
    assert result.is_error
    return result.refusal


def test_osa_distance_counts_adjacent_swaps_once_and_caps():
    assert _osa_distance("hlep", "help", 2) == 1
    assert _osa_distance("OK", "ok", 2) == 2
    assert _osa_distance("abcdef", "ghijkl", 2) == 3  # capped at limit + 1
    assert _osa_distance("😀a", "😀b", 2) == 1


def test_closest_name_prefers_the_first_of_equal_distance():
    assert _closest_name("ab", ["ax", "ay"]) == "ax"
    assert _closest_name("ab", ["xyz-long"]) is None


def test_edit_distance_hint_covers_skills_and_builtin_commands():
    registry = _registry(_skill("fz1-u0"), _skill("ok"), _skill("deploy-app"))
    assert _refusal(registry, "fz1-c0") == "<tool_use_error>Unknown skill: fz1-c0. Did you mean fz1-u0?</tool_use_error>"
    assert _refusal(registry, "OK") == "<tool_use_error>Unknown skill: OK. Did you mean ok?</tool_use_error>"
    assert _refusal(registry, "hlep") == "<tool_use_error>Unknown skill: hlep. Did you mean help?</tool_use_error>"
    assert _refusal(registry, "cost2") == "<tool_use_error>Unknown skill: cost2. Did you mean cost?</tool_use_error>"
    # upper-casing a long name is more than two edits: no hint
    assert _refusal(registry, "DEPLOY-APP") == "<tool_use_error>Unknown skill: DEPLOY-APP</tool_use_error>"


def test_bare_name_of_a_single_plugin_skill_is_suggested_by_full_name():
    registry = _registry(_skill("plug:pb", SourceKind.PLUGIN_SKILL), _skill("plug:pa", SourceKind.PLUGIN_SKILL))
    assert _refusal(registry, "pb") == ("<tool_use_error>Unknown skill: pb. Did you mean plug:pb? Invoke it by that "
                                        "full name.</tool_use_error>")


def test_bare_name_of_a_nested_command_only_gets_the_distance_hint():
    registry = _registry(_skill("grp:deploy", SourceKind.COMMAND))
    assert _refusal(registry, "deploy") == "<tool_use_error>Unknown skill: deploy</tool_use_error>"


def test_several_suffix_matches_are_listed():
    registry = _registry(_skill("g1x:fzshared", SourceKind.COMMAND), _skill("fzp1:fzshared", SourceKind.PLUGIN_COMMAND))
    assert _refusal(registry, "fzshared") == ("<tool_use_error>Unknown skill: fzshared. Several skills match that name: "
                                              "g1x:fzshared, fzp1:fzshared — invoke one by its full name."
                                              "</tool_use_error>")


def test_scoped_variants_come_first():
    registry = _registry(_skill("src:both", SourceKind.DYNAMIC), _skill("src/api:both", SourceKind.DYNAMIC))
    assert _refusal(registry, "both") == (
        "<tool_use_error>Unknown skill: both. Directory-scoped variants exist: src:both, src/api:both — invoke the "
        "variant whose directory contains the files you are working on.</tool_use_error>")


def test_legacy_never_hints():
    registry = _registry(_skill("ok"), _skill("plug:pb", SourceKind.PLUGIN_SKILL), profile="legacy")
    for name in ("OK", "pb", "hlep"):
        assert _refusal(registry, name, "legacy") == f"<tool_use_error>Unknown skill: {name}</tool_use_error>"
