"""Display width as Claude Code 2.1.3xx measures the skill listing budget.

The current CLI is a Bun executable. Its width function (``re`` in the bundle's chunk-b4hgyr1n.js) is
``Bun.stringWidth(text)`` (default options: ambiguous characters narrow, ANSI escapes not counted) plus
an ``extra`` that only strings holding certain characters get: for each terminal cell (grapheme) one
column per Indic spacing vowel sign (at most 8), and one more when a one-column cell holds a
text-presentation emoji such as U+261D or a lone regional indicator. The terminal-measured part of that
extra is set only in the interactive UI (stdout a TTY), never in ``-p`` runs, so it is not modelled.

Per code point widths come from Bun itself (resources/data/bun_string_width.json, measured by
tests/oracle/measure_bun_width.py); the grapheme rules (flags, keycaps, variation selectors, emoji with
skin tones or ZWJ) and the ANSI state machine follow Bun's ``visibleUTF16WidthFn`` and are checked
against Bun's own answers (tests/golden/bun-width).
"""
from __future__ import annotations

import bisect
import json
import re
from functools import lru_cache

from .lazy_pattern import DOTALL, LazyPattern, lazy_re

from ..resources import resource_path

__all__ = ["bun_string_width", "current_width", "current_cell_extra", "strip_escape_sequences"]

_GRAPHEME_RE = LazyPattern(r"\X", DOTALL)
_EMOJI_RE = LazyPattern(r"\p{Emoji}")
_MODIFIER_BASE_RE = LazyPattern(r"\p{Emoji_Modifier_Base}")
# What Claude Code tests before it segments (`B` = spacing marks `m` + `o2r`), verbatim ranges.
_SPACING_MARKS = ("\u093b\u093e-\u0940\u0949-\u094c\u0982\u09be-\u09c0\u09c7\u09c8\u09cb\u09cc\u09d7"
                  "\u0a3e-\u0a40\u0abe-\u0ac0\u0ac9\u0acb\u0acc\u0b02\u0b3e\u0b40\u0b47\u0b48\u0b4b\u0b4c\u0b57"
                  "\u0bbe\u0bbf\u0bc1\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcc\u0bd7\u0c01\u0c02\u0c41-\u0c44\u0c82\u0cbe"
                  "\u0cc0-\u0cc4\u0cc7\u0cc8\u0cca\u0ccb\u0cd5\u0cd6\u0d02\u0d3e-\u0d40\u0d46-\u0d48\u0d4a-\u0d4c")
_NARROW_EMOJI = ("\u17a4\u17d8\u261d\u26f9\u270c\u270d\u2e3a\u2e3b\u3248-\u324f\U0001f1e6-\U0001f1ff"
                 "\U0001f3cb\U0001f3cc\U0001f574\U0001f575\U0001f590\U0001f93b\U0001f946")
_SPACING_MARK_RE = lazy_re(f"[{_SPACING_MARKS}]")
_NARROW_EMOJI_RE = lazy_re(f"[{_NARROW_EMOJI}]")
_NEEDS_EXTRA_RE = lazy_re(f"[{_SPACING_MARKS}{_NARROW_EMOJI}]")
_MAX_MARKS_PER_CELL = 8
_KEYCAP = 0x20E3
_ZWJ = 0x200D
_VS15, _VS16 = 0xFE0E, 0xFE0F


@lru_cache(maxsize=1)
def _table() -> tuple[list[int], list[int], list[int]]:
    data = json.loads(resource_path("data", "bun_string_width.json").read_text(encoding="utf-8"))
    starts, ends, widths = [], [], []
    for start, end, width in data["ranges"]:
        starts.append(start)
        ends.append(end)
        widths.append(width)
    return starts, ends, widths


def _cp_width(cp: int) -> int:
    """Width Bun gives one code point on its own (0, 1 or 2); the keycap mark counts 0 inside a cluster."""
    if 0x20 <= cp < 0x7F:
        return 1
    if cp < 0x20 or 0xD800 <= cp <= 0xDFFF or cp == _KEYCAP:
        return 0
    starts, ends, widths = _table()
    i = bisect.bisect_right(starts, cp) - 1
    if i >= 0 and cp <= ends[i]:
        return widths[i]
    return 1


def _is_emoji_base(cp: int) -> bool:
    """What lets a ZWJ sequence count as one emoji (Bun skips everything below U+203C and U+2C00–U+1EFFF)."""
    if cp < 0x203C or 0x2C00 <= cp < 0x1F000 or cp in (_VS15, _VS16, _ZWJ):
        return False
    return _EMOJI_RE.match(chr(cp)) is not None


def _is_modifier(cp: int) -> bool:
    return 0x1F3FB <= cp <= 0x1F3FF


# Grapheme classes for Bun's segmentation (UAX #29 as Bun applies it; see _clusters).
_CR, _LF, _CONTROL, _EXTEND, _ZWJ_CLASS, _SPACING, _RI, _L, _V, _T, _LV, _LVT, _PICT, _MOD, _OTHER = range(15)
_CLASS_RES = [
    (_CONTROL, LazyPattern(r"\p{GCB=Control}")),
    (_EXTEND, LazyPattern(r"\p{GCB=Extend}")),
    (_SPACING, LazyPattern(r"\p{GCB=SpacingMark}")),
    (_PICT, LazyPattern(r"\p{Extended_Pictographic}")),
]
# Indic conjuncts (GB9c) as of Unicode 15.1: six scripts; later versions added more (e.g. Khmer), Bun did not.
_CONJUNCT_BLOCKS = ((0x0900, 0x097F), (0x0980, 0x09FF), (0x0A80, 0x0AFF), (0x0B00, 0x0B7F), (0x0C00, 0x0C7F),
                    (0x0D00, 0x0D7F))
_CONSONANT_RE = LazyPattern(r"\p{InCB=Consonant}")
_LINKERS = frozenset((0x094D, 0x09CD, 0x0ACD, 0x0B4D, 0x0C4D, 0x0D4D))


@lru_cache(maxsize=4096)
def _class(ch: str) -> int:
    cp = ord(ch)
    if cp == 0x0D:
        return _CR
    if cp == 0x0A:
        return _LF
    if cp == _ZWJ:
        return _ZWJ_CLASS
    if _is_modifier(cp):
        return _MOD
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return _RI
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return _L
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return _V
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return _T
    if 0xAC00 <= cp <= 0xD7A3:
        return _LV if (cp - 0xAC00) % 28 == 0 else _LVT
    for cls, pattern in _CLASS_RES:
        if pattern.match(ch):
            return cls
    return _OTHER


@lru_cache(maxsize=4096)
def _is_consonant(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CONJUNCT_BLOCKS) and _CONSONANT_RE.match(ch) is not None


def _clusters(visible: str) -> list[str]:
    """Grapheme clusters as Bun cuts them (checked against Bun's answers): UAX #29, except that marks
    (Extend, ZWJ, SpacingMark) also join a control before them, there is no Prepend rule, a Hangul
    leading jamo does not join a precomposed syllable, and a skin-tone modifier joins only an Emoji_Modifier_Base right
    before it (the Unicode 10 rule)."""
    out: list[str] = []
    start = 0
    prev_class = None
    pict_run = False  # the text so far ends in ExtPict Extend* (GB11)
    zwj_after_pict = False  # … followed by a ZWJ
    conjunct = 0  # 0: none, 1: consonant [Extend]*, 2: … with a linker (GB9c)
    ri_run = 0
    for i, ch in enumerate(visible):
        cls = _class(ch)
        if prev_class is None:
            join = False
        elif prev_class == _CR and cls == _LF:
            join = True
        elif cls in (_CONTROL, _CR, _LF):
            join = False
        elif cls == _MOD:
            join = _MODIFIER_BASE_RE.match(visible[i - 1]) is not None
        elif cls in (_EXTEND, _ZWJ_CLASS, _SPACING):
            join = True
        elif prev_class in (_CONTROL, _CR, _LF):
            join = False
        elif prev_class == _L and cls in (_L, _V) or prev_class in (_V, _LV) and cls in (_V, _T) or \
                prev_class in (_T, _LVT) and cls == _T:
            join = True
        elif conjunct == 2 and _is_consonant(ch):
            join = True
        elif cls == _PICT and prev_class == _ZWJ_CLASS and zwj_after_pict:
            join = True
        elif cls == _RI and prev_class == _RI and ri_run % 2 == 1:
            join = True
        else:
            join = False
        if not join and i > 0:
            out.append(visible[start:i])
            start = i
        # state for the next code point
        zwj_after_pict = cls == _ZWJ_CLASS and pict_run
        pict_run = cls == _PICT or (pict_run and join and cls in (_EXTEND, _MOD))
        if _is_consonant(ch):
            conjunct = 1
        elif ord(ch) in _LINKERS and conjunct:
            conjunct = 2
        elif cls not in (_EXTEND, _ZWJ_CLASS):
            conjunct = 0
        ri_run = ri_run + 1 if cls == _RI else 0
        prev_class = cls
    if visible:
        out.append(visible[start:])
    return out


def _cluster_width(cluster: str) -> int:
    cps = [ord(c) for c in cluster]
    first = cps[0]
    regional = any(0x1F1E6 <= c <= 0x1F1FF for c in cps)
    if regional and len(cps) >= 2:
        return 2  # a flag (or an indicator with anything joined to it)
    if _KEYCAP in cps:
        return 2
    if regional:
        return 1
    rest = cps[1:]
    if _is_emoji_base(first) and (_ZWJ in rest or any(_is_modifier(c) for c in cps)):
        return 2
    base_width = _cp_width(first)
    if _VS15 in rest or _VS16 in rest:
        if base_width == 2:
            return 2
        if _VS16 in rest and first >= 0x80 and _EMOJI_RE.match(chr(first)):
            return 2
        return base_width
    return sum(_cp_width(c) for c in cps)


# ECMA-48 escape sequences: ESC [ and C1 CSI run to a final byte 0x40–0x7E; ESC ] / C1 OSC to BEL or ST;
# ESC P X ^ _ and their C1 forms (DCS, SOS, PM, APC) to ST; ESC, intermediates 0x20–0x2F, a final 0x30–0x7E.
_STRING_STARTS = {"]": "osc", "P": "str", "X": "str", "^": "str", "_": "str"}
_C1_STARTS = {0x9B: "csi", 0x9D: "osc", 0x90: "str", 0x98: "str", 0x9E: "str", 0x9F: "str"}


_ESCAPE_OR_SURROGATE_RE = lazy_re("[\x1b\x90\x98\x9b\x9d-\x9f\ud800-\udfff]")


def _visible_text(text: str) -> str:
    """Text without escape sequences and lone surrogates: what Bun measures."""
    if not _ESCAPE_OR_SURROGATE_RE.search(text):
        return text
    out: list[str] = []
    state = None  # None, "esc", "esc-int", "csi", "osc", "str"
    prev = ""
    for ch in text:
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:  # a lone surrogate (pairs were joined by the caller): no width
            if state == "esc":
                state = None
            continue
        last, prev = prev, ch
        if state in ("osc", "str"):
            if cp == 0x9C or (ch == "\\" and last == "\x1b") or (state == "osc" and cp == 0x07):
                state = None
            continue
        if state == "csi":
            if 0x40 <= cp <= 0x7E or cp == 0x9C:
                state = None
            elif cp == 0x1B:
                state = "esc"
            continue
        if state == "esc-int":
            if not 0x20 <= cp <= 0x2F:
                state = None  # the final byte, or whatever ends the sequence, is dropped
            continue
        if state == "esc":
            if cp < 0x80:
                if ch == "[":
                    state = "csi"
                elif ch in _STRING_STARTS:
                    state = _STRING_STARTS[ch]
                elif 0x20 <= cp <= 0x2F:
                    state = "esc-int"
                elif cp != 0x1B:
                    state = None
                continue
            state = None  # ESC before a non-ASCII character: dropped, the character is read as usual
        if cp == 0x1B:
            state = "esc"
            continue
        if cp in _C1_STARTS:
            state = _C1_STARTS[cp]
            continue
        out.append(ch)
    return "".join(out)


_SURROGATE_RE = lazy_re("[\ud800-\udfff]")


def strip_escape_sequences(text: str) -> str:
    """Text without ECMA-48 escape sequences as Bun removes them (ESC + one final byte, CSI, OSC, DCS…):
    what current's listing keeps of `\x1b[1mbold` (`bold`) and of `q\x1bvalue` (`qalue`) — probe-yaml-controls.
    Lone surrogates are dropped too (the listing cleaning turns them into U+200B first)."""
    return _visible_text(_join_surrogates(text))


def _join_surrogates(text: str) -> str:
    if not _SURROGATE_RE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


# Without these, clusters cannot change the sum of code point widths: no flags, keycaps, ZWJ sequences,
# skin tones, variation selectors, escape sequences or lone surrogates.
_NEEDS_CLUSTERS_RE = lazy_re("[\U0001F1E6-\U0001F1FF\u20e3\u200d\U0001F3FB-\U0001F3FF\ufe0e\ufe0f"
                                "\x1b\x90\x98\x9b\x9d-\x9f\ud800-\udfff]")


@lru_cache(maxsize=None)
def _char_width(ch: str) -> int:
    return _cp_width(ord(ch))


# A space is a cluster boundary before it, and after it the segmentation state is back at its start (no
# emoji, flag, conjunct or Hangul run continues across it), so text cut before each space measures the same
# piece by piece. Pieces (words) recur across descriptions: their widths are cached.
_BEFORE_SPACE = lazy_re("(?= )")


def _pieces(visible: str) -> list[str]:
    return _BEFORE_SPACE.split(visible) if " " in visible else [visible]


_NOT_PRINTABLE_ASCII = lazy_re("[^\x20-\x7e]+")


def _sum_of_chars(text: str) -> int:
    """Sum of code point widths; printable ASCII is one column each, so only the rest is looked up."""
    others = "".join(_NOT_PRINTABLE_ASCII.findall(text))
    return len(text) - len(others) + sum(map(_char_width, others))


@lru_cache(maxsize=65536)
def _piece_width(piece: str) -> int:
    if not _NEEDS_CLUSTERS_RE.search(piece):
        return _sum_of_chars(piece)
    return sum(_cluster_width(c) for c in _clusters(piece))


@lru_cache(maxsize=65536)
def _piece_extra(piece: str) -> int:
    if not _NEEDS_EXTRA_RE.search(piece):
        return 0
    extra = 0
    for cell in _clusters(piece):
        marks = min(len(_SPACING_MARK_RE.findall(cell)), _MAX_MARKS_PER_CELL)
        narrow = 1 if _NARROW_EMOJI_RE.search(cell) and _piece_width(cell) == 1 else 0
        extra += marks + narrow
    return extra


def bun_string_width(text: str) -> int:
    """``Bun.stringWidth(text)`` with Bun's default options."""
    if text.isascii() and text.isprintable():
        return len(text)
    text = _join_surrogates(text)
    if not _NEEDS_CLUSTERS_RE.search(text):
        return _sum_of_chars(text)
    return sum(map(_piece_width, _pieces(_visible_text(text))))


def current_cell_extra(text: str) -> int:
    """Columns Claude Code 2.1.3xx adds to Bun's width for spacing marks and narrow emoji cells."""
    if not _NEEDS_EXTRA_RE.search(text):
        return 0
    return sum(map(_piece_extra, _pieces(_visible_text(_join_surrogates(text)))))


_OTHER_CHAR = re.compile("[^\x20-\x7e]")  # any character but printable ASCII (stdlib: compiles at once)


class _PlainWidths(dict[str, int]):
    """Character -> its code point width when it takes part in no cluster rule and adds no extra column,
    else -1. Text whose characters are all printable ASCII or such characters measures as the sum of its
    code point widths (what bun_string_width gives it without segmenting, with no extra): each character
    is decided once per process, a text costs one search for its non-ASCII characters."""

    def __missing__(self, ch: str) -> int:
        width = -1 if _NEEDS_CLUSTERS_RE.search(ch) or _NEEDS_EXTRA_RE.search(ch) else _char_width(ch)
        self[ch] = width
        return width


_PLAIN_WIDTHS = _PlainWidths()


@lru_cache(maxsize=8192)  # a listing rebuild measures the same entries again (the preview, live refresh)
def current_width(text: str) -> int:
    """The width the current profile's listing budget counts for ``text``."""
    if text.isascii() and text.isprintable():
        return len(text)
    others = _OTHER_CHAR.findall(text)
    total = len(text) - len(others)
    for ch in others:  # most listing text is ASCII with a dash or quote (scoped copies add an em dash)
        width = _PLAIN_WIDTHS[ch]
        if width < 0:
            return measure_fully(text)
        total += width
    return total


def measure_fully(text: str) -> int:
    """current_width without its shortcuts (what they are checked against)."""
    return bun_string_width(text) + current_cell_extra(text)
