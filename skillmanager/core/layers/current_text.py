"""How Claude Code 2.1.3xx cleans a skill's description and when_to_use before listing them.

Read from the binary (chunk with ``Yv``: ``D(e) = RW(Yv(e, " ", {keepSpelledJoiners: true}))``) and checked
with oracle captures (tests/golden/listing-clean, listing-text): lone surrogates become U+200B, escape sequences are
stripped (as Bun strips them: ESC + one byte, CSI, OSC…), and every run of invisible or control characters (C0/C1 controls, format characters, private
use, unassigned, line/paragraph separators, default-ignorables such as variation selectors and U+2800)
becomes one space -- except joiners and selectors that belong to an RGI emoji or spell an Indic, Sinhala
or Arabic conjunct. Then ``<`` and ``>`` become ``&lt;`` and ``&gt;``.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..js.lazy_pattern import LazyPattern

from ..resources import resource_path
from ..js.bun_width import strip_escape_sequences
from ..js.textwidth import utf16_len

if TYPE_CHECKING:  # imported on first use (start-up time)
    import regex

__all__ = ["clean_listing_text"]

# Default-ignorable ranges Claude Code adds to Cc/Cf/Cs/Co/Cn (its M5s table) and U+2800.
_IGNORABLE_RANGES = ((0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x1107F, 0x1107F),
                     (0x13430, 0x1343F), (0x16FE4, 0x16FE4), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                     (0xE0000, 0xE0FFF), (0x2800, 0x2800))
_INVISIBLE_CLASS = ("\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\u2028\\u2029"
                    + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _IGNORABLE_RANGES))
_INVISIBLE_RUN = LazyPattern(f"[{_INVISIBLE_CLASS}]+")
# str.isprintable() is False for Cc Cf Cs Co Cn Zl Zp (and Zs but space); these are the printable rest
_IGNORABLE = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _IGNORABLE_RANGES) + "]")
_JOINER_HINT = LazyPattern("[\u200c\u200d\ufe0f\U000e007f]")
_MAX_PROTECTED_LENGTH = 4096  # UTF-16 units; longer texts lose all joiners
_LONE_SURROGATE = LazyPattern("[\ud800-\udfff]")


def _indic(block: int) -> str:
    consonants = f"[{chr(block + 21)}-{chr(block + 57)}]"
    nukta = "" if block == 0x0D00 else f"{chr(block + 60)}?"
    virama = chr(block + 77)
    return f"[\\u200c\\u200d](?<={consonants}{nukta}{virama}.)(?={consonants})"


_ARABIC_BEFORE = ("\u0620\u0626\u0628\u062a-\u062e\u0633-\u063f\u0641-\u0647\u0649\u064a\u066e\u066f\u0678-\u0687"
                  "\u069a-\u06bf\u06c1\u06c2\u06cc\u06ce\u06d0\u06d1\u06fa-\u06fc\u06ff\u0750-\u0758\u075c-\u076a"
                  "\u076d-\u0770\u0772\u0775-\u0777\u077a-\u077f\u0886\u0889-\u088d\u088f\u08a0-\u08a9\u08af\u08b0"
                  "\u08b3-\u08b8\u08ba-\u08c8")
_ARABIC_AFTER = ("\u0620\u0622-\u063f\u0641-\u064a\u066e\u066f\u0671-\u0673\u0675-\u06d3\u06d5\u06ee\u06ef"
                 "\u06fa-\u06fc\u06ff\u0750-\u077f\u0870-\u0882\u0886\u0889-\u088f\u08a0-\u08ac\u08ae-\u08c8")
_SINHALA = "[\u0d9a-\u0dc6]"
_SPELLED_JOINER = LazyPattern("|".join(
    [_indic(b) for b in (0x0900, 0x0980, 0x0A80, 0x0B00, 0x0C00, 0x0C80, 0x0D00)]
    + [f"\\u200d(?<={_SINHALA}\\u0dca.)(?={_SINHALA})",
       f"\\u200c(?<=[{_ARABIC_BEFORE}](?:(?=[\\p{{sc=Arabic}}\\p{{sc=Inherited}}])"
       f"(?!\\p{{Default_Ignorable_Code_Point}})\\p{{Mn}}){{0,8}}.)(?=[{_ARABIC_AFTER}])"]))


# a trie of characters: each key is one character ("" marks the end of a word)
_Trie = dict[str, "_Trie"]


def _trie_pattern(words: list[str]) -> str:
    """One regex for a set of literal strings that matches the longest of them at each position.

    Children of a trie node start with distinct characters, so at most one branch can go on; a greedy
    optional group for the longer continuations makes the longest string win (what a property of
    strings such as /\\p{RGI_Emoji}/v does). Much faster than 3,953 alternatives tried one by one."""
    import regex
    trie: _Trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        children = sorted(ch for ch in node if ch)
        if not children:
            return ""
        branches = [regex.escape(ch) + emit(node[ch]) for ch in children]
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


@lru_cache(maxsize=1)
def _rgi_emoji() -> regex.Pattern[str]:
    import regex
    data = json.loads(resource_path("data", "rgi_emoji.json").read_text(encoding="utf-8"))
    return regex.compile(_trie_pattern(data["emoji"]))


def _protected(text: str) -> set[int]:
    if utf16_len(text) > _MAX_PROTECTED_LENGTH or not _JOINER_HINT.search(text):
        return set()
    kept: set[int] = set()
    for pattern in (_rgi_emoji(), _SPELLED_JOINER):
        for match in pattern.finditer(text):
            kept.update(range(match.start(), match.end()))
    return kept


def _collapse_invisible(text: str, replacement: str = " ") -> str:
    kept = _protected(text)

    def run(match: re.Match[str]) -> str:  # a `regex` match (LazyPattern is typed with re's)
        out = ""
        for offset, ch in enumerate(match.group(0)):
            if match.start() + offset in kept:
                out += ch
            elif not out.endswith(replacement):
                out += replacement
        return out

    return _INVISIBLE_RUN.sub(run, text)


_OTHER_CHAR = re.compile("[^\x20-\x7e]")  # any character but printable ASCII
_VISIBLE, _ASCII_CONTROL, _OTHER = 0, 1, 2
# C0 controls but ESC, and DEL: invisible (Cc), never part of an escape sequence, never a joiner
_ASCII_CONTROL_RUN = re.compile("[\x00-\x1a\x1c-\x1f\x7f]+")


class _Kinds(dict[str, int]):
    """Character -> _VISIBLE when it is printable and not default-ignorable (text made only of printable
    ASCII and such characters has no run to collapse, no escape sequence and no surrogate: tests/
    test_fast_paths.py checks every code point), _ASCII_CONTROL for _ASCII_CONTROL_RUN's characters, else
    _OTHER. Decided once per character; a text costs one search for its characters beyond printable ASCII."""

    def __missing__(self, ch: str) -> int:
        if ch.isprintable() and _IGNORABLE.match(ch) is None:
            kind = _VISIBLE
        else:
            kind = _ASCII_CONTROL if _ASCII_CONTROL_RUN.fullmatch(ch) else _OTHER
        self[ch] = kind
        return kind


_KINDS = _Kinds()


@lru_cache(maxsize=16384)  # descriptions rarely change between listings: rebuilds reuse the result
def clean_listing_text(text: str) -> str:
    """A description or when_to_use as current Claude Code lists it."""
    if text.isascii() and text.isprintable() and "<" not in text and ">" not in text:
        return text
    kinds = _KINDS
    worst = max((kinds[ch] for ch in _OTHER_CHAR.findall(text)), default=_VISIBLE)
    if worst == _VISIBLE:
        return text.replace("<", "&lt;").replace(">", "&gt;")
    if worst == _ASCII_CONTROL:  # the only invisible runs are of these (a multi-line description): one space each
        return _ASCII_CONTROL_RUN.sub(" ", text).replace("<", "&lt;").replace(">", "&gt;")
    return clean_fully(text)


def clean_fully(text: str) -> str:
    """clean_listing_text without its shortcuts (what the shortcuts are checked against)."""
    cleaned = strip_escape_sequences(_LONE_SURROGATE.sub("\u200b", text))
    cleaned = _collapse_invisible(cleaned)
    return cleaned.replace("<", "&lt;").replace(">", "&gt;")
