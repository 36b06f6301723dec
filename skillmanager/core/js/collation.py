"""Sort keys that order names the way JavaScript's ``a.localeCompare(b)`` does in Claude Code 2.1.3xx.

The current CLI (a Bun executable, ICU root collation) sorts each skills and commands directory with
``localeCompare`` on the skill name. Its order differs from a byte or lowercase sort: punctuation comes before
digits and letters (`_ - , ; : ! ? .` …), letters compare case-blind first and lowercase wins a tie (`kappa`
< `Kappa` < `lambda`), and an accented letter sorts with its base letter (`cafe` < `café` < `cafg`).

The key follows the Unicode Collation Algorithm's three levels (base letters, then accents, then case and
variants) with weights measured from Bun (tests/oracle/measure_collation.py, tests/test_collation.py):
exact for printable ASCII, Latin letters with combining marks (precomposed or not), `ß ø æ œ đ ł` and
ligatures. Approximated: other punctuation and symbols (placed by category among ASCII's) and other
scripts (after Latin, by lowercase code point; ICU's script order Latin, Greek, Cyrillic … Han is nearly
the code point order).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["CollationKey", "locale_compare_key"]

# Printable ASCII in ICU root order (`[...].sort((a, b) => a.localeCompare(b))` under Bun 1.4.5); a letter's
# upper and lower case share a place (they differ at the third level only).
_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {ch: i + 1 for i, ch in enumerate(_ASCII_ORDER)}
_PRIMARY.update({ch.upper(): weight for ch, weight in _PRIMARY.items() if ch.isalpha()})
_AFTER_ASCII = len(_ASCII_ORDER) + 1

# Second level: combining marks in the order Bun sorts `e` + mark (U+0300–U+036F, measured); a base letter's
# own weight (_COMMON) is below every mark, so `e` < `é` and `ea` < `éa`.
_MARK_ORDER = [0x332, 0x313, 0x343, 0x314, 0x301, 0x341, 0x300, 0x340, 0x306, 0x302, 0x30C, 0x30A, 0x342, 0x308,
               0x344, 0x30B, 0x303, 0x307, 0x338, 0x327, 0x328, 0x304, 0x30D, 0x30E, 0x312, 0x315, 0x31A, 0x33D,
               0x33E, 0x33F, 0x346, 0x34A, 0x34B, 0x34C, 0x350, 0x351, 0x352, 0x357, 0x35B, 0x35D, 0x35E, 0x316,
               0x317, 0x318, 0x319, 0x31C, 0x31D, 0x31E, 0x31F, 0x320, 0x329, 0x32A, 0x32B, 0x32C, 0x32F, 0x333,
               0x33A, 0x33B, 0x33C, 0x347, 0x348, 0x349, 0x34D, 0x34E, 0x353, 0x354, 0x355, 0x356, 0x359, 0x35A,
               0x35C, 0x35F, 0x362, 0x336, 0x337, 0x335, 0x305, 0x309, 0x30F, 0x310, 0x311, 0x31B, 0x321, 0x322,
               0x323, 0x324, 0x325, 0x326, 0x32D, 0x32E, 0x330, 0x331, 0x334, 0x339, 0x345, 0x358, 0x360, 0x361,
               0x363, 0x368, 0x369, 0x364, 0x36A, 0x365, 0x36B, 0x366, 0x36C, 0x36D, 0x367, 0x36E, 0x36F]
_COMMON = 0x20
_MARK_WEIGHT = {cp: _COMMON + 1 + rank for rank, cp in enumerate(_MARK_ORDER)}
_OTHER_MARK = _COMMON + 1 + len(_MARK_ORDER)
_EXPANSION = 0x400  # the second-level element of æ, œ, ß: above every mark (aé < æ, oê < œ, measured)
_STROKE = _MARK_WEIGHT[0x338]  # ø đ ł ħ ŧ: the base letter with a stroke (ö < ø < ǫ, measured)

# Third level: lowercase < variant (ligature, æ) < uppercase.
_LOWER, _VARIANT, _UPPER = 2, 4, 8

# Letters ICU sorts through a base letter although Unicode gives them no canonical decomposition.
_STROKED = {"ø": "o", "đ": "d", "ł": "l", "ħ": "h", "ŧ": "t", "ı": "i"}
_EXPANDED = {"æ": ("a", "e"), "œ": ("o", "e"), "ß": ("s", "s")}

# Non-ASCII punctuation and symbols sit among ASCII's (approximation by category, measured positions:
# - < – < — < , …; … ¡ « § ¶ before ` ^; © → ° ± × ÷ before +; $ < € < 0).
_GROUP_WEIGHT = {"Pd": _PRIMARY["-"] + 0.5, "P": _PRIMARY["`"] - 0.5, "Sc": _PRIMARY["$"] + 0.5,
                 "S": _PRIMARY["+"] - 0.5}

Elements = tuple[tuple[float, ...], tuple[int, ...], tuple[int, ...]]
CollationKey = Elements  # the three levels' weights of a whole string


@lru_cache(maxsize=4096)
def _elements(ch: str) -> Elements:
    """(primary, secondary, tertiary) weights one character of NFD text contributes."""
    if ch in _PRIMARY:
        return (_PRIMARY[ch],), (_COMMON,), (_UPPER if ch.isupper() else _LOWER,)
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf") or ch == "\u034f":  # ignorable (CGJ too)
        return (), (), ()
    if category in ("Mn", "Me"):  # a mark: a second-level element only
        return (), (_MARK_WEIGHT.get(ord(ch), _OTHER_MARK),), (_LOWER,)
    lower = ch.lower()
    case = _UPPER if ch != lower else _LOWER
    if lower in _STROKED:
        return (_PRIMARY[_STROKED[lower]],), (_COMMON, _STROKE), (case, _LOWER)
    if lower in _EXPANDED or ch == "ẞ":
        first, second = _EXPANDED.get(lower, ("s", "s"))
        variant = _UPPER if case == _UPPER else _VARIANT
        return (_PRIMARY[first], _PRIMARY[second]), (_COMMON, _EXPANSION, _COMMON), (variant,) * 3
    compatible = unicodedata.normalize("NFKD", ch)
    if compatible != ch:  # ligatures and other variants sort as what they stand for, a third-level variant: ﬁ → fi
        parts = [_elements(c) for c in compatible]
        return (tuple(w for p, _, _ in parts for w in p), tuple(w for _, s, _ in parts for w in s),
                tuple(_VARIANT if w == _LOWER else w for _, _, t in parts for w in t))
    if category[0] in "PS":
        group = _GROUP_WEIGHT.get(category, _GROUP_WEIGHT[category[0]])
        return (group + ord(ch) / 0x220000,), (_COMMON,), (_LOWER,)
    return (_AFTER_ASCII + ord(lower[0]),), (_COMMON,), (case,)  # α < Ω as in ICU, not by code point


def locale_compare_key(text: str) -> CollationKey:
    """A key such that sorting by it orders strings as ``localeCompare`` does (ties keep input order)."""
    if text.isascii() and text.isprintable():  # names: one table look-up per byte (same key, tested)
        data = text.encode("ascii")
        return (tuple(map(_ASCII_PRIMARY.__getitem__, data)), (_COMMON,) * len(data),
                tuple(map(_ASCII_TERTIARY.__getitem__, data)))
    return locale_compare_key_general(text)


def locale_compare_key_general(text: str) -> CollationKey:
    """locale_compare_key for any text (the reference the ASCII path is tested against)."""
    primary: list[float] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        p, s, t = _elements(ch)
        primary.extend(p)
        secondary.extend(s)
        tertiary.extend(t)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def _ascii_tables() -> tuple[dict[int, float], dict[int, int]]:
    primary, tertiary = {}, {}
    for code in range(0x20, 0x7F):
        (p,), (s,), (t,) = _elements(chr(code))
        assert s == _COMMON
        primary[code], tertiary[code] = p, t
    return primary, tertiary


_ASCII_PRIMARY, _ASCII_TERTIARY = _ascii_tables()


def _rank_table(weights: dict[int, float] | dict[int, int]) -> dict[int, str]:
    ranks = {w: chr(0x100 + i) for i, w in enumerate(sorted(set(weights.values())))}
    return {code: ranks[w] for code, w in weights.items()}


_ASCII_PRIMARY_RANK, _ASCII_TERTIARY_RANK = _rank_table(_ASCII_PRIMARY), _rank_table(_ASCII_TERTIARY)


def ascii_compare_key(text: str) -> tuple[str, str]:
    """For printable ASCII only: orders such strings exactly as locale_compare_key does, several times faster
    to make and compare. Each character's one primary and tertiary weight become a character of the same rank
    (the second level is the same for every printable ASCII character), so string comparison is the tuple
    comparison. Never mix with locale_compare_key keys in one sort."""
    return text.translate(_ASCII_PRIMARY_RANK), text.translate(_ASCII_TERTIARY_RANK)
