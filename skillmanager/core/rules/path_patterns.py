"""The ``paths:`` front matter of conditional skills (spec §2 ``paths``, §5).

Parsing mirrors legacy 2.1.88 ``cli.js`` exactly (search ``function Doz(`` and ``function fn6(``)::

    function Doz(q){if(!q.paths)return;let K=fn6(q.paths).map((_)=>{return _.endsWith("/**")?_.slice(0,-3):_})
      .filter((_)=>_.length>0);if(K.length===0||K.every((_)=>_==="**"))return;return K}
    function fn6(q){if(Array.isArray(q))return q.flatMap(fn6);if(typeof q!=="string")return[];
      ... split on "," at brace depth 0, trim, drop empties ... .flatMap(($)=>t44($))}
    function t44(q){let K=q.match(/^([^{]*)\\{([^}]+)\\}(.*)$/);if(!K)return[q]; ... split inner on ",", trim,
      recurse on prefix+item+suffix}

Consequences worth knowing: list items are comma-split too; nested lists flatten; non-strings
(numbers, booleans, maps) contribute nothing; a falsy value (``""``, ``0``, ``false``, null) or a
list that yields no pattern means "unconditional" (None). Brace expansion is the naive regex one:
``{a,{b,c}}`` gives ``a}``, ``b``, ``c}`` — not a real nested expansion — and ``{}`` is left as is.

Matching (``function UL6(`` in cli.js) uses the bundled npm ``ignore`` package — version 7.0.5
(identified by diffing the bundled module ``n$6`` against the published 7.0.x sources)::

    let $=BYK.default().add(Y.paths);
    for(let A of q){let O=pYK(A)?Xoz(K,A):A;                 // path.relative(cwd, file)
      if(!O||O.startsWith("..")||pYK(O))continue;if($.ignores(O)){ ...activate... }}

so the touched file's path **relative to the cwd** is tested, with ``ignore``'s defaults:
case-INSENSITIVE, and a file matches when any of its parent directories matches.
:class:`PathMatcher` is a line-by-line port of ignore 7.0.5's pattern→RegExp translation and its
``ignores()`` walk, with the generated JavaScript regex translated to Python ``re``.

npm ``ignore`` vs git (pathspec / :mod:`ignore_rules`): ``ignore`` is case-insensitive by default;
it has no directory knowledge — ``foo/`` matches only paths *under* ``foo`` (``foo`` itself, a file
or dir given without a slash, does not match); as in git, a negation cannot re-include a file whose
parent directory is ignored (parents are tested first); ``..a.ts`` is a valid path to ``ignore``
but Claude Code never tests it (``startsWith("..")``); its regexes also
treat ``\\d``/``\\w``-style escapes in patterns as regex classes (``a\\d`` matches ``a1``), while git
treats ``\\d`` as a literal ``d``. Known residual difference of the port: Python's case folding
differs from JavaScript's for a few non-ASCII letters (``ſ``, Kelvin sign, dotted I).
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any, Union

from ..js.strings import JS_DOT, JS_WHITESPACE, js_trim
from ..js.lazy_pattern import lazy_re

__all__ = ["parse_paths", "split_paths", "expand_braces", "PathMatcher", "relative_to_cwd"]

# ---------------------------------------------------------------------------------------------
# JavaScript helpers

# String.prototype.trim() and the regex \s class (ECMAScript WhiteSpace + LineTerminator).
_JS_WS = JS_WHITESPACE
_JS_WS_CLASS = "[" + re.escape(_JS_WS) + "]"
_JS_NOT_WS_CLASS = "[^" + re.escape(_JS_WS) + "]"
_JS_DOT = JS_DOT




# ---------------------------------------------------------------------------------------------
# parse_paths — cli.js Doz / fn6 / t44

_BRACE = lazy_re(r"\A([^{]*)\{([^}]+)\}(" + _JS_DOT + r"*)\Z")


def expand_braces(pattern: str) -> list[str]:
    """cli.js t44(): expand the first ``{...}`` group, recursively."""
    m = _BRACE.match(pattern)
    if not m:
        return [pattern]
    prefix, inner, suffix = m.group(1), m.group(2), m.group(3)
    out: list[str] = []
    for item in inner.split(","):
        out.extend(expand_braces(prefix + js_trim(item) + suffix))
    return out


def split_paths(value: Any) -> list[str]:
    """cli.js fn6(): comma split outside braces, trim, drop empties, brace-expand."""
    if isinstance(value, (list, tuple)):
        return [p for item in value for p in split_paths(item)]
    if not isinstance(value, str):
        return []
    parts: list[str] = []
    current = ""
    depth = 0
    for ch in value:
        if ch == "{":
            depth += 1
            current += ch
        elif ch == "}":
            depth -= 1
            current += ch
        elif ch == "," and depth == 0:
            piece = js_trim(current)
            if piece:
                parts.append(piece)
            current = ""
        else:
            current += ch
    last = js_trim(current)
    if last:
        parts.append(last)
    return [e for p in parts if p for e in expand_braces(p)]


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and value == value  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True  # lists, dicts (even empty) are objects: truthy


def parse_paths(value: Any) -> list[str] | None:
    """cli.js Doz(): the patterns of a ``paths:`` value, or None when the skill is unconditional."""
    if not _js_truthy(value):
        return None
    patterns = [p[:-3] if p.endswith("/**") else p for p in split_paths(value)]
    patterns = [p for p in patterns if p]
    if not patterns or all(p == "**" for p in patterns):
        return None
    return patterns


# ---------------------------------------------------------------------------------------------
# npm ignore 7.0.5 — pattern → JavaScript RegExp source (REPLACERS, verbatim order)


def _sanitize_range(rng: str) -> str:
    return re.sub(r"([0-z])-([0-z])", lambda m: m.group(0) if ord(m.group(1)) <= ord(m.group(2)) else "", rng)


def _clean_range_backslash(slashes: str) -> str:
    return slashes[: len(slashes) - len(slashes) % 2]


def _double_star_replacer(m: re.Match[str]) -> str:
    return r"(?:\/[^\/]+)*" if m.start() + 6 < len(m.string) else r"\/.+"


def _range_replacer(m: re.Match[str]) -> str:
    lead, rng, end_escape, close = m.group(1), m.group(2), m.group(3), m.group(4)
    if lead == "\\":
        return f"\\[{rng}{_clean_range_backslash(end_escape)}{close}"
    if close == "]":
        return f"[{_sanitize_range(rng)}{end_escape}]" if len(end_escape) % 2 == 0 else "[]"
    return "[]"


def _make_regex_prefix(pattern: str) -> str:
    s = pattern
    s = re.sub(r"\A\ufeff", "", s, count=1)
    s = re.sub(r"((?:\\\\)*?)(\\?" + _JS_WS_CLASS + r"+)\Z",
               lambda m: m.group(1) + (" " if m.group(2).startswith("\\") else ""), s, count=1)
    s = re.sub(r"(\\+?)" + _JS_WS_CLASS, lambda m: _clean_range_backslash(m.group(1)) + " ", s)
    s = re.sub(r"[\\$.|*+(){^]", lambda m: "\\" + m.group(0), s)
    s = re.sub(r"(?!\\)\?", "[^/]", s)
    s = re.sub(r"\A/", "^", s, count=1)
    s = s.replace("/", "\\/")
    s = re.sub(r"\A\^*\\\*\\\*\\/", lambda m: r"^(?:.*\/)?", s, count=1)
    if s and s[0] != "^":  # /^(?=[^^])/ with startingReplacer bound to the original pattern
        s = ("^" if re.search(r"/(?!\Z)", pattern) else r"(?:^|\/)") + s
    s = re.sub(r"\\/\\\*\\\*(?=\\/|\Z)", _double_star_replacer, s)
    s = re.sub(r"(\A|[^\\]+)(\\\*)+(?=" + _JS_DOT + r"+)",
               lambda m: m.group(1) + m.group(2).replace("\\*", r"[^\/]*"), s)
    s = re.sub(r"\\\\\\(?=[$.|*+(){^])", lambda m: "\\", s)
    s = s.replace("\\\\", "\\")
    s = re.sub(r"(\\)?\[([^\]/]*?)(\\*)(\Z|\])", _range_replacer, s)
    s = re.sub(r"(?:[^*])\Z", lambda m: m.group(0) + "$" if m.group(0).endswith("/")
               else m.group(0) + r"(?=$|\/$)", s, count=1)
    return s


def _make_regex_source(prefix: str) -> str:
    """IgnoreRule._make for MODE_IGNORE: the trailing-wildcard replacement."""
    def trailing(m: re.Match[str]) -> str:
        p1 = m.group(1)
        return (f"{p1}[^/]+" if p1 else "[^/]*") + r"(?=$|\/$)"
    return re.sub(r"(\A|\\/)?\\\*\Z", trailing, prefix, count=1)


# ---------------------------------------------------------------------------------------------
# JavaScript RegExp source (non-unicode mode) → Python re

_CLASS_ESCAPES = {
    "d": "0-9", "w": "A-Za-z0-9_", "s": re.escape(_JS_WS),
}
_CLASS_ESCAPES_NEG = {"D": "[^0-9]", "W": "[^A-Za-z0-9_]", "S": _JS_NOT_WS_CLASS}
_CONTROL = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_WORD = "[A-Za-z0-9_]"


# an escape is a literal character or a class/regex snippet: (char, None, next i) or (None, snippet, next i)
_Escape = Union[tuple[str, None, int], tuple[None, str, int]]


def _escape_char(src: str, i: int, in_class: bool) -> _Escape:
    """Decode the escape at src[i] == '\\'. Returns (literal char, class/regex snippet, next i)."""
    if i + 1 >= len(src):
        raise ValueError("\\ at end of pattern")
    c = src[i + 1]
    j = i + 2
    if c in _CONTROL:
        return _CONTROL[c], None, j
    if c == "b":
        if in_class:
            return "\b", None, j
        return None, f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))", j
    if c == "B" and not in_class:
        return None, f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))", j
    if c in _CLASS_ESCAPES:
        return None, ("" if in_class else "[") + _CLASS_ESCAPES[c] + ("" if in_class else "]"), j
    if c in _CLASS_ESCAPES_NEG:
        if in_class:
            raise ValueError("negated class escape inside a class is not supported")
        return None, _CLASS_ESCAPES_NEG[c], j
    if c == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", src[j:j + 2]):
        return chr(int(src[j:j + 2], 16)), None, j + 2
    if c == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", src[j:j + 4]):
        return chr(int(src[j:j + 4], 16)), None, j + 4
    if c == "c":
        if j < len(src) and src[j].isascii() and src[j].isalpha():
            return chr(ord(src[j]) % 32), None, j + 1
        return "\\", None, i + 1  # Annex B: "\c" is a literal backslash
    if c in "01234567":  # no capturing groups are ever generated: legacy octal escape
        m = re.match(r"[0-7]{1,3}", src[i + 1:])
        digits = m.group(0) if m else c
        if int(digits, 8) > 0o377:
            digits = digits[:2]
        return chr(int(digits, 8)), None, i + 1 + len(digits)
    return c, None, j  # identity escape


def _js_regex_to_python(src: str) -> str:
    out: list[str] = []
    i = 0
    n = len(src)
    while i < n:
        ch = src[i]
        if ch == "\\":
            escape = _escape_char(src, i, False)
            out.append(re.escape(escape[0]) if escape[0] is not None else escape[1])
            i = escape[2]
        elif ch == "[":
            i = _translate_class(src, i, out)
        elif ch == ".":
            out.append(_JS_DOT)
            i += 1
        elif ch == "$":
            out.append(r"\Z")
            i += 1
        elif ch == "^":
            out.append(r"\A")
            i += 1
        elif ch in "()|*+?":
            out.append(ch)
            i += 1
        elif ch == "{":
            m = re.match(r"\{\d+(,\d*)?\}", src[i:])
            if m:
                out.append(m.group(0))
                i += len(m.group(0))
            else:
                out.append(r"\{")
                i += 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _translate_class(src: str, i: int, out: list[str]) -> int:
    i += 1
    negate = i < len(src) and src[i] == "^"
    if negate:
        i += 1
    items: list[str] = []
    while True:
        if i >= len(src):
            raise ValueError("unterminated character class")
        ch = src[i]
        if ch == "]":
            i += 1
            break
        if ch == "\\":
            escape = _escape_char(src, i, True)
            items.append(_class_lit(escape[0]) if escape[0] is not None else escape[1])
            i = escape[2]
        else:
            items.append("-" if ch == "-" else _class_lit(ch))
            i += 1
    body = "".join(items)
    if not body:
        out.append("(?s:.)" if negate else "(?!)")  # [^] is any char, [] is nothing
    else:
        out.append(("[^" if negate else "[") + _fix_class_dashes(items) + "]")
    return i


def _class_lit(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[&~|" else ch


def _fix_class_dashes(items: list[str]) -> str:
    """A '-' is a range only between two single chars (JS Annex B); elsewhere it is literal."""
    res: list[str] = []
    for k, it in enumerate(items):
        if it == "-":
            prev_single = k > 0 and _is_single(items[k - 1]) and (k < 2 or items[k - 2] != "-")
            next_single = k + 1 < len(items) and _is_single(items[k + 1])
            res.append("-" if prev_single and next_single else "\\-")
        else:
            res.append(it)
    return "".join(res)


def _is_single(item: str) -> bool:
    return len(item) == 1 or (len(item) == 2 and item[0] == "\\")


# ---------------------------------------------------------------------------------------------
# The matcher


def _check_pattern(p: Any) -> bool:
    """ignore's checkPattern: non-blank strings, no odd trailing backslash, not a # comment."""
    return (isinstance(p, str) and p != "" and not re.fullmatch(_JS_WS_CLASS + "+", p)
            and not re.search(r"(?:[^\\]|\A)\\\Z", p) and not p.startswith("#"))


class _Rule:
    __slots__ = ("pattern", "negative", "source", "regex", "error")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        body = pattern
        self.negative = body.startswith("!")
        if self.negative:
            body = body[1:]
        body = re.sub(r"\A\\!", "!", body, count=1)
        body = re.sub(r"\A\\#", "#", body, count=1)
        self.source = _make_regex_source(_make_regex_prefix(body))
        self.error: str | None = None
        try:
            self.regex: re.Pattern[str] | None = re.compile(
                _js_regex_to_python(self.source), re.IGNORECASE | re.DOTALL)
        except (re.error, ValueError) as exc:  # JS would throw a SyntaxError on use
            self.regex, self.error = None, str(exc)


class PathMatcher:
    """``ignore().add(patterns).ignores(path)`` with the rule that decided it.

    ``match(rel_path)`` takes a path relative to the cwd (``/``-separated) and returns the pattern
    that ignored it, or None. Paths Claude Code never tests (empty, ``..``-prefixed, absolute) and
    paths npm ``ignore`` would reject with a RangeError (``./x``) return None.
    """

    def __init__(self, patterns: list[str] | str) -> None:
        items = patterns.replace("\r\n", "\n").split("\n") if isinstance(patterns, str) else patterns
        self.rules = [_Rule(p) for p in items if _check_pattern(p)]
        self._cache: dict[str, _Rule | None] = {}

    @property
    def diagnostics(self) -> list[str]:
        return [f"pattern {r.pattern!r}: {r.error}" for r in self.rules if r.error]

    def match(self, rel_path: str) -> str | None:
        """Claude Code's test (cli.js UL6): skip ``""``, ``..``-prefixed and absolute paths."""
        if not rel_path or rel_path.startswith("..") or posixpath.isabs(rel_path) or os.path.isabs(rel_path):
            return None
        try:
            return self.npm_ignores(rel_path)
        except ValueError:  # e.g. "./x": npm ignore throws a RangeError; Claude Code never sends it
            return None

    def npm_ignores(self, path: str) -> str | None:
        """Exactly ``ignore().add(patterns).ignores(path)`` (the pattern, or None).

        Raises ValueError where npm ``ignore`` throws (empty path, ``/x``, ``./x``, ``../x``, ``.``).
        """
        if not isinstance(path, str) or not path:
            raise ValueError("path must not be empty")
        if re.match(r"\.{0,2}/|\.{1,2}\Z", path):
            raise ValueError(f"path should be a `path.relative()`d string, but got {path!r}")
        rule = self._walk(path, None)
        return rule.pattern if rule is not None else None

    def matches(self, rel_path: str) -> bool:
        return self.match(rel_path) is not None

    def match_chain(self, chain: list[str]) -> str | None:
        """`match(path)` for a path already found testable, given as `path_chain(path)`: many matchers
        testing one path share the validation and the parent strings (the simulator's per-step check)."""
        parent: _Rule | None = None
        cache = self._cache
        for level in chain:
            if level in cache:
                result = cache[level]
            else:
                result = parent if parent is not None else self._test(level)
                cache[level] = result
            parent = result
        return parent.pattern if parent is not None else None

    def match_file(self, file_path: str, cwd: str) -> str | None:
        """cli.js UL6(): absolute paths are made relative to ``cwd`` first."""
        return self.match(relative_to_cwd(file_path, cwd))

    def _walk(self, path: str, slices: list[str] | None) -> _Rule | None:
        """ignore's Ignore._t(): a parent directory that is ignored decides for its children."""
        if path in self._cache:
            return self._cache[path]
        if slices is None:
            slices = [s for s in path.split("/") if s]
        slices = slices[:-1]
        if not slices:
            result = self._test(path)
        else:
            parent = self._walk("/".join(slices) + "/", slices)
            result = parent if parent is not None else self._test(path)
        self._cache[path] = result
        return result

    def _test(self, path: str) -> _Rule | None:
        """RuleManager.test(path, checkUnignored=False, 'regex'); returns the ignoring rule."""
        ignored = unignored = False
        matched: _Rule | None = None
        for rule in self.rules:
            neg = rule.negative
            if (unignored == neg and ignored != unignored) or (neg and not ignored and not unignored):
                continue
            if rule.regex is None or not rule.regex.search(path):
                continue
            ignored, unignored = not neg, neg
            matched = None if neg else rule
        return matched if ignored else None


def path_chain(rel_path: str) -> list[str] | None:
    """The levels `PathMatcher._walk` decides top-down (each parent dir with a trailing `/`, then the path),
    or None where `match` returns None without testing (see PathMatcher.match)."""
    if not rel_path or rel_path.startswith("..") or posixpath.isabs(rel_path) or os.path.isabs(rel_path):
        return None
    if re.match(r"\.{0,2}/|\.{1,2}\Z", rel_path):
        return None
    slices = [s for s in rel_path.split("/") if s]
    return ["/".join(slices[:i]) + "/" for i in range(1, len(slices))] + [rel_path]


def relative_to_cwd(file_path: str, cwd: str) -> str:
    """Node's ``path.isAbsolute(A) ? path.relative(cwd, A) : A`` on POSIX."""
    if not posixpath.isabs(file_path):
        return file_path
    rel = posixpath.relpath(posixpath.normpath(file_path), posixpath.normpath(posixpath.join("/", cwd)))
    return "" if rel == "." else rel
