"""The current profile's width function against Bun itself.

tests/golden/bun-width/cases.json holds seeded random strings built from the pieces where width rules
meet (emoji sequences, marks, ANSI escapes, controls, lone surrogates) with the width
``Bun.stringWidth`` returned for each (tests/oracle/measure_bun_width.py, Bun 1.4.5 from npm). What
Claude Code 2.1.332 adds on top of Bun is checked end to end by the listing-text recordings at budgets
one either side of the full listing (test_registry_scenarios.py); the examples below pin its parts.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from skillmanager.core.js.bun_width import bun_string_width, current_cell_extra, current_width
from skillmanager.core.layers.listing import entry_width
from skillmanager.core.versions.profiles import get_profile

GOLDEN = Path(__file__).resolve().parent / "golden" / "bun-width" / "cases.json"


def _cases() -> list[tuple[str, int]]:
    return [tuple(case) for case in json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]]


def test_golden_has_enough_cases():
    assert len(_cases()) >= 1000


def test_every_measured_string_has_buns_width():
    wrong = [(text, width, bun_string_width(text)) for text, width in _cases() if bun_string_width(text) != width]
    assert not wrong, f"{len(wrong)} of {len(_cases())} differ, first: {wrong[:3]!r}"


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)))
def test_printable_ascii_is_one_column_each(text):
    assert bun_string_width(text) == current_width(text) == len(text)


@pytest.mark.parametrize(("text", "bun", "extra"), [
    ("\u0915\u093f", 1, 1),                          # क + spacing vowel sign ि: one more column
    ("\u0915\u093f\u0924\u093e\u092c\u0947\u0902", 3, 2),  # किताबें: two spacing marks
    ("\u0915" + "\u093e" * 10, 1, 8),                # at most 8 per cell (listing-text: t-marks)
    ("\u261d", 1, 1),                                # text-style emoji in a one-column cell
    ("\u261d\ufe0f", 2, 0),                          # ...made wide by VS16: no extra
    ("\U0001f1e6", 1, 1),                            # a lone regional indicator
    ("\U0001f1ef\U0001f1f5", 2, 0),                  # a flag
    ("\U0001f44d", 2, 0),
    ("\U0001f468\u200d\U0001f469\u200d\U0001f467", 2, 0),  # ZWJ family: one cluster
    ("1\ufe0f\u20e3", 2, 0),                         # keycap
    ("\u4e2d\u6587", 4, 0),
    ("\x1b[31mred\x1b[0m", 3, 0),                    # escapes are not counted
])
def test_width_parts(text, bun, extra):
    assert bun_string_width(text) == bun
    assert current_cell_extra(text) == extra
    assert current_width(text) == bun + extra


def test_listing_uses_current_width_only_for_current_profile():
    hindi = "- t-hindi: \u0915\u093f\u0924\u093e\u092c\u0947\u0902"
    assert entry_width(hindi, get_profile("current")) == current_width(hindi)
    assert entry_width(hindi, get_profile("legacy")) != entry_width(hindi, get_profile("current"))
