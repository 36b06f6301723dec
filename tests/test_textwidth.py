"""textwidth must agree with Claude Code 2.1.88's own stringWidth/truncate as run by Node.

Golden answers (tests/data/string_width_golden.json) were produced by node running the shipped code; see
tests/textwidth_compare.py. The live test re-runs that comparison over the whole corpus when node and the
legacy CLI are present.
"""

import json
from pathlib import Path

import pytest

from locations import missing
from skillmanager.core.js.textwidth import (
    cut_to_width,
    display_width,
    js_json_stringify,
    safe_for_output,
    utf16_len,
    utf16_slice,
)

GOLDEN = Path(__file__).parent / "data" / "string_width_golden.json"
CASES = json.loads(GOLDEN.read_text(encoding="ascii"))["cases"]


def test_golden_has_a_few_hundred_diverse_cases():
    assert len(CASES) >= 300
    assert any(c["width"] == 0 for c in CASES) and any(c["width"] > 100 for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_matches_node_golden(case):
    s = case["s"]
    assert display_width(s) == case["width"]
    for width, expected in case["cuts"].items():
        assert cut_to_width(s, int(width)) == expected, f"cut at {width}"
    assert js_json_stringify(s) == case["json"]
    assert safe_for_output(s) == case["utf8"]


@pytest.mark.parametrize(
    "text, width",
    [
        ("日本語", 6),  # East Asian Wide = 2
        ("⚠", 1),  # text-presentation symbol: Claude Code says 1 where npm string-width 7 says 2
        ("⚠️", 2),  # with VS16 it is an emoji
        ("👨\u200d👩\u200d👧", 2),  # ZWJ family is one grapheme
        ("🇯🇵", 2),
        ("🇯", 1),  # lone regional indicator
        ("e\u0301", 1),  # combining mark
        ("a\u200bb", 2),  # zero-width space
        ("\x1b[31mred\x1b[0m", 3),  # ANSI stripped
        ("α→β", 3),  # ambiguous width counts 1
        ("tab\t", 3),  # control chars count 0
    ],
)
def test_documented_rules(text, width):
    assert display_width(text) == width


def test_cut_drops_a_wide_char_that_would_straddle_the_limit():
    # Clusters are kept while their widths sum to <= max_width - 1 (room for the ellipsis).
    assert cut_to_width("ab漢字cd", 5) == "ab漢…"
    assert cut_to_width("ab漢字cd", 4) == "ab…"  # 漢 would end at column 4 > 3
    assert display_width(cut_to_width("ab漢字cd", 4)) == 3
    assert cut_to_width("short", 5) == "short"
    assert cut_to_width("longer", 1) == "…"


def test_utf16_len_counts_code_units():
    assert utf16_len("abc") == 3
    assert utf16_len("😀") == 2
    assert utf16_len("日本") == 2
    assert utf16_len("") == 0


def test_utf16_slice_like_js_slice():
    assert utf16_slice("ab😀cd", 4) == "ab😀"
    assert utf16_slice("ab😀cd", 3) == "ab\ud83d"  # JS leaves the lone high surrogate
    assert utf16_slice("abc", 10) == "abc"
    assert utf16_slice("abcd", -1) == "abc"
    assert utf16_slice("abc", 0) == ""


def test_lone_surrogate_is_printable_after_safe_for_output():
    cut = utf16_slice("x😀", 2)
    with pytest.raises(UnicodeEncodeError):
        cut.encode("utf-8")
    assert safe_for_output(cut) == "x\ufffd"
    assert safe_for_output(cut).encode("utf-8") == b"x\xef\xbf\xbd"
    assert js_json_stringify(cut) == '"x\\ud83d"'
    assert json.loads(js_json_stringify(cut)) == cut


def test_bad_input_does_not_crash():
    assert display_width(None) == 0  # type: ignore[arg-type]
    assert display_width("\ud800") == 0  # lone surrogate: zero width, as in JS
    assert display_width("\ud83d" + "\ude00") == 2  # split pair re-joins into 😀, as a JS string would
    assert cut_to_width("", 0) == ""


@pytest.mark.oracle
def test_live_against_node_over_corpus():
    import textwidth_compare as cmp

    if not cmp.node_available():
        missing("node or the legacy Claude Code cli.js.map is not available")
    if not cmp.CORPUS.is_dir():
        missing("skill corpus not available")
    strings = list(dict.fromkeys(cmp.corpus_strings() + cmp.unicode_sample()))
    diffs = cmp.differences(strings, cmp.run_node(strings))
    assert diffs == [], diffs[:10]
