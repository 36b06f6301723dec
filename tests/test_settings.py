"""Settings read side (spec §6, src/utils/settings/settings.ts)."""
from pathlib import Path

from skillmanager.core.load.settings import load_settings, merge_settings, parse_skill_rule, read_settings_json
from skillmanager.core.versions.profiles import get_profile

LEGACY_P, CURRENT_P = get_profile("legacy"), get_profile("current")


def _w(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_malformed_settings_give_file_line_col_and_are_ignored(tmp_path):
    bad = _w(tmp_path / "home" / ".claude" / "settings.json", '{\n  "skillOverrides": {"a": "off",}\n}\n')
    s = load_settings(tmp_path / "home" / ".claude", tmp_path, None)
    assert s.skillOverrides == {}
    assert len(s.diagnostics) == 1 and f"{bad}:2:" in s.diagnostics[0].message


def test_empty_bom_and_non_object(tmp_path):
    assert read_settings_json(_w(tmp_path / "a.json", "  \n"))[0] == {}
    assert read_settings_json(_w(tmp_path / "b.json", '\ufeff{"model": "x"}'))[0] == {"model": "x"}
    data, exists, diags = read_settings_json(_w(tmp_path / "c.json", "[1]"))
    assert data is None and exists and diags[0].code == "settings-not-object"
    data, _, diags = read_settings_json(_w(tmp_path / "d.json", '{"a": NaN}'))
    assert data is None and diags[0].code == "settings-invalid-json"


def test_precedence_managed_beats_local_beats_project_beats_user(tmp_path):
    home, cwd, managed = tmp_path / "h", tmp_path / "p", tmp_path / "m"
    _w(home / "settings.json", '{"skillOverrides": {"a": "off", "b": "off", "c": "off", "d": "off"}}')
    _w(cwd / ".claude" / "settings.json", '{"skillOverrides": {"b": "name-only", "c": "name-only", "d": "name-only"}}')
    _w(cwd / ".claude" / "settings.local.json", '{"skillOverrides": {"c": "on", "d": "on"}}')
    _w(managed / "managed-settings.json", '{"skillOverrides": {"d": "user-invocable-only"}}')
    _w(managed / "managed-settings.d" / "10-x.json", '{"permissions": {"deny": ["Skill(x:*)"]}}')
    s = load_settings(home, cwd, managed)
    assert s.skillOverrides == {"a": "off", "b": "name-only", "c": "on", "d": "user-invocable-only"}
    assert [v[1] for v in s.skill_overrides.values()] == ["user", "project", "local", "managed"]
    assert s.deny_rules[0].scope == "managed" and s.deny_rule_for("x:y") is not None


def test_deny_rule_forms():
    assert parse_skill_rule("Skill(foo)") == (True, "foo")
    assert parse_skill_rule("Skill") == (True, None)
    assert parse_skill_rule("Skill(*)") == (True, None)
    assert parse_skill_rule("Bash(ls)") == (False, None)
    from skillmanager.core.load.settings import DenyRule, rule_form
    def rule(c):
        return DenyRule(f"Skill({c})", c, rule_form(c), "user", None)
    assert rule("/foo").matches("foo", LEGACY_P)
    assert rule("review:*").matches("review-pr", LEGACY_P)
    assert not rule("review *").matches("review-pr", LEGACY_P)
    assert rule("review *").matches("review-pr", CURRENT_P)
    # current globs only in its `skill:` form; a bare `to*` is an exact name (fuzz-reg seed 1017)
    assert not rule("re*ew").matches("review", CURRENT_P) and rule("re*ew").matches("re*ew", CURRENT_P)
    assert rule("skill:re*ew").matches("review", CURRENT_P) and not rule("skill:re*ew").matches("review", LEGACY_P)
    assert rule(" skill : *view").matches("review", CURRENT_P) and not rule("skill:r*x").matches("review", CURRENT_P)
    assert rule("cafe").matches("Bad Name!", CURRENT_P, also=("cafe",))  # the resolved skill's name (seed 1006)
    assert not rule("cafe").matches("Bad Name!", LEGACY_P, also=("cafe",))


def test_merge_arrays_union_and_objects_deep():
    assert merge_settings({"p": {"deny": ["a"], "x": 1}}, {"p": {"deny": ["a", "b"]}}) == {"p": {"deny": ["a", "b"], "x": 1}}
