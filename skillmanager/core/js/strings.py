"""JavaScript string semantics the engine needs in many places: whitespace, trim, split, the `.` class.

One home for them: `String.prototype.trim()` and the regex classes `\\s` and `.` (without the `s` flag) are
defined by ECMAScript, not by Python's `str.strip()`/`\\s` (which add U+001C–U+001F and U+0085, and lack U+FEFF).
"""
from __future__ import annotations

from .lazy_pattern import lazy_re

# ECMAScript WhiteSpace + LineTerminator: what trim() removes and what `\s` matches
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                 "\u2028\u2029\u202f\u205f\u3000\ufeff")
JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)
JS_WS_CLASS_BODY = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # inside [...]
JS_DOT = "[^\n\r\u2028\u2029]"  # `.` without the s flag

_JS_WS_RUN = lazy_re(f"[{JS_WS_CLASS_BODY}]+")


def js_trim(text: str) -> str:
    """String.prototype.trim()."""
    return text.strip(JS_WHITESPACE)


def js_split_whitespace(text: str) -> list[str]:
    """`text.split(/\\s+/).filter(Boolean)`: words between runs of JS whitespace."""
    return [word for word in _JS_WS_RUN.split(text) if word]
