"""clean_listing_text: how the current CLI cleans a description before listing it.

End-to-end, every case of tests/oracle/fixtures/listing-clean.py and listing-text.py is compared with the
real CLI's listing (test_registry_scenarios.py). Here: the same rules one at a time, with the outputs
those recordings showed, and properties that must hold for any text.
"""
from __future__ import annotations

import pytest
import regex
from hypothesis import given, strategies as st

from skillmanager.core.layers.current_text import clean_listing_text

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


@pytest.mark.parametrize(("raw", "listed"), [
    ("a\tb\t\tc", "a b c"),                      # a run of controls is one space
    ("a\u00a0b", "a\u00a0b"),                    # NBSP is visible: kept
    ("soft\u00adhyphen", "soft hyphen"),
    ("a\u2800b", "a b"),                         # braille blank counts as invisible
    ("a\ue000b", "a b"),                         # private use
    ("a\u0378b", "a b"),                         # unassigned
    ("a\u200db", "a b"),                         # a joiner between letters is not a conjunct
    ("\u4e2d\ufe0f\u6587", "\u4e2d \u6587"),     # VS16 after a non-emoji
    ("\u2764\ufe0f love", "\u2764\ufe0f love"),  # VS16 inside an RGI emoji: kept
    (FAMILY + " family", FAMILY + " family"),
    ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u200d\u0937"),  # Devanagari conjunct spelled with ZWJ
    ("\u0628\u200c\u062a", "\u0628\u200c\u062a"),  # Arabic ZWNJ between joining letters
    ("\x1b[31mred\x1b[0m plain", "red plain"),
    ("a <b> c -> d", "a &lt;b&gt; c -&gt; d"),
    ("fish & chips", "fish & chips"),            # only < and > are escaped
    ("When\n\nasked\u200b\u200bto", "When asked to"),
])
def test_recorded_cleaning(raw, listed):
    assert clean_listing_text(raw) == listed


def test_long_text_loses_emoji_joiners():
    # over 4,096 UTF-16 units no joiner is protected (listing-clean: c-long-family)
    cleaned = clean_listing_text(FAMILY + "x" * 4100)
    assert cleaned.startswith("\U0001f468 \U0001f469 \U0001f467x")


_INVISIBLE = regex.compile(r"[\p{Cc}\p{Cs}\p{Co}\p{Cn}]")


@given(st.text())
def test_cleaned_text_has_no_controls_or_raw_angles(text):
    cleaned = clean_listing_text(text)
    assert "<" not in cleaned and ">" not in cleaned
    assert not _INVISIBLE.search(cleaned)


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E).filter(lambda c: c not in "<>")))
def test_plain_ascii_is_unchanged(text):
    assert clean_listing_text(text) == text
