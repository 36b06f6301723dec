"""Raw control characters in front matter: read as both CLIs read them (probe-yaml-controls, both versions:
kept verbatim by 2.1.88; NUL refused by 2.1.332's Bun.YAML), reported by the Agent Skills validator."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import given, strategies as st

from skillmanager.core.checks.validate import validate_paths
from skillmanager.core.load.yaml12 import load_yaml12

CONTROLS = "\x01\x07\x0b\x0c\x1b\x7f\x85\x9b\u2028\u2029\ufffe"


@pytest.mark.parametrize("bun_rules", [False, True])
@pytest.mark.parametrize("ch", list(CONTROLS))
def test_control_characters_are_content(ch, bun_rules):
    text = f'plain: a{ch}b c\nquoted: "q{ch}v"\nwhen: x'
    assert load_yaml12(text, unique_keys=not bun_rules) == {"plain": f"a{ch}b c", "quoted": f"q{ch}v", "when": "x"}


def test_nul_is_refused_only_by_bun_rules():
    assert load_yaml12("d: a\x00b") == {"d": "a\x00b"}
    with pytest.raises(yaml.YAMLError):
        load_yaml12("d: a\x00b", unique_keys=False)


@given(st.text(alphabet=st.sampled_from(list(CONTROLS) + list("abc \U000f0001")), max_size=20))
def test_values_come_back_unchanged(value):
    text = "d: " + '"' + value + '"'
    assert load_yaml12(text) == {"d": value}


def test_validator_reports_a_control_character(tmp_path):
    skill = tmp_path / "esc-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: esc-skill\ndescription: a \x1b[1m b\n---\nbody\n", encoding="utf-8")
    findings = validate_paths([skill]).reports[0].findings
    assert [(f.code, f.line) for f in findings] == [("invalid-yaml", 3)]
    assert "U+001B" in findings[0].message
