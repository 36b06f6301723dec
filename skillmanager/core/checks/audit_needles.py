"""The substrings a regex's matches must contain, derived from the regex itself: the rule families run a
rule's regex only on the lines that hold them (one C substring search per needle and block, instead of a
regex step at every character).

For each top-level alternative of a regex (in the order of audit_words.top_level_alternatives, so the word
gates of the alternatives pick which are searched) `alternative_clauses` gives a clause: groups of
needles, a needle of each group in every match of that alternative. The first group is the one searched
(few, long needles); the others are checked on the lines it selects. An alternative with no needle
has the empty clause: it is searched in the whole text.

Needles are folded (`fold`): lowercased, and the characters re.IGNORECASE matches to one another
(ſ and s, ı and i, ς and σ, ᲂ and о…) mapped to one of them. They are searched in the block folded the
same way (audit_base.fold_lower), so a match in any case, with or without IGNORECASE, holds them there.
The derivation only ever drops knowledge when unsure (a class of many characters, an unbounded or
optional repeat, a back-reference), so a needle it keeps is in every match: skipping the lines without
it changes nothing.
"""
from __future__ import annotations

import re
from re import _constants as sre, _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from .audit_words import COMMON_WORDS, SPECIAL_FOLDS, fold, fold_specials, top_level_alternatives
from .audit_words import WordDeriver

__all__ = ["Clause", "SPECIAL_FOLDS", "Spec", "alternative_clauses", "fold", "fold_specials", "plan", "regex_clause"]

# --- derivation ------------------------------------------------------------------------------------

_MAX_EXACT = 64  # strings kept while a sub-pattern's every match is known exactly
_MAX_SET = 64  # strings kept in a prefix, suffix or needle group before it is shortened or dropped
_MAX_GROUPS = 12  # groups kept per condition (dropping one only weakens it)
_MAX_CLASS = 6  # a character class of more characters than this matches "anything"

_MARKS_SET = "\0\1\2"  # the marks of derived strings (see _EDGE, _GAP, _SPACE below)
Cnf = frozenset[frozenset[str]]  # every group holds: one of its strings is in the match
# A needle, the whole words a block holds where it is in a match, its non-ASCII characters, and the pieces of
# words the block's joined words hold there (audit_base.NeedleGate): b" ab" a word starting with ab, b"ab " one
# ending with it, b"ab" one holding it.
Spec = tuple[str, frozenset[bytes], frozenset[str], tuple[bytes, ...]]
# the needles searched (with their words), and groups of needles a line they select must also hold one of
Clause = tuple[tuple[Spec, ...], tuple[tuple[str, ...], ...]] | tuple[()]
_NONE: Cnf = frozenset()


class _Info(NamedTuple):
    """What a sub-pattern's matches hold: exactly one of `exact` (None when unknown), else they start with
    one of `prefix` and end with one of `suffix` ("" among them: nothing known), and hold a string of each
    group of `match`."""

    exact: frozenset[str] | None
    prefix: frozenset[str]
    suffix: frozenset[str]
    match: Cnf


_EMPTY = _Info(frozenset({""}), frozenset({""}), frozenset({""}), _NONE)
_SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY)
_ANYTHING = _Info(None, frozenset({""}), frozenset({""}), _NONE)


def _shorten(strings: frozenset[str], keep_start: bool) -> frozenset[str]:
    """The strings cut to at most _MAX_SET (their starts or their ends): first at a mark (whole words kept), then
    to a length."""
    if len(strings) > _MAX_SET:
        strings = frozenset(map(_first_segment if keep_start else _last_segment, strings))
    length = max(map(len, strings), default=0)
    while len(strings) > _MAX_SET and length > 0:
        length -= 1
        strings = frozenset(s[:length] if keep_start else s[len(s) - length:] for s in strings)
    return strings


_INNER_MARK = re.compile(f"(?<=.)[{_MARKS_SET}](?=.)", re.S)


def _first_segment(string: str) -> str:
    """The string up to its first mark inside (the mark kept, and after a space the character after it)."""
    mark = _INNER_MARK.search(string)
    if mark is None:
        return string
    return string[:mark.end() + (mark.group(0) == _SPACE_MARK)]


def _last_segment(string: str) -> str:
    """The string from its last mark inside (the mark kept, and before a space the character before it)."""
    marks = list(_INNER_MARK.finditer(string))
    if not marks:
        return string
    return string[marks[-1].start() - (marks[-1].group(0) == _SPACE_MARK):]


_SPACE_MARK = "\2"  # `\s*`: may be nothing, so the character beyond it says what bounds a word (see _SPACE)


def _group(strings: frozenset[str]) -> Cnf:
    """The condition "one of these strings" (none when one holds no character: it is everywhere)."""
    if not strings or any(not s.strip(_MARKS) for s in strings):
        return _NONE
    strings = frozenset(s for s in strings if not any(t != s and t in s for t in strings))  # shorter ones suffice
    if len(strings) > _MAX_SET:
        strings = _shorten(strings, True)
        if "" in strings:
            return _NONE
    return frozenset({strings})


def _simplify(cnf: Cnf) -> Cnf:
    """Groups implied by another dropped (each string of the other holds one of theirs); at most _MAX_GROUPS."""
    groups = sorted(cnf, key=lambda g: (len(g), sorted(g)))
    kept: list[frozenset[str]] = []
    for group in groups:
        if not any(all(any(s in t for s in group) for t in other) for other in kept):
            kept = [other for other in kept if not all(any(s in t for s in other) for t in group)] + [group]
    return frozenset(kept[:_MAX_GROUPS])


def _both(a: Cnf, b: Cnf) -> Cnf:
    return _simplify(a | b) if a and b else (a or b)


def _either(a: Cnf, b: Cnf) -> Cnf:
    """Both conditions as one that holds when either does (groups joined pairwise)."""
    if not a or not b:
        return _NONE
    joined: set[frozenset[str]] = set()
    for x in a:
        for y in b:
            joined |= _group(x | y)
    return _simplify(frozenset(joined))


def _full(info: _Info) -> Cnf:
    """Everything known about the matches as a condition."""
    if info.exact is not None:
        return _both(info.match, _group(info.exact))
    return _both(info.match, _both(_group(info.prefix), _group(info.suffix)))


def _cross(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > _MAX_SET * 4:
        return None
    return frozenset(_normal(x + y) for x in a for y in b)


def _normal(string: str) -> str:
    string = _GAP_RUN.sub(lambda run: _GAP if _GAP in run.group(0) else _SPACE, string)
    return _REDUNDANT_EDGE.sub("", string)


def _demote(info: _Info) -> _Info:
    """An exact set too large to keep: what it says as prefix, suffix and condition."""
    assert info.exact is not None
    return _Info(None, _shorten(info.exact, True), _shorten(info.exact, False), _full(info))


def _ends(info: _Info) -> tuple[frozenset[str], frozenset[str]]:
    return (info.exact, info.exact) if info.exact is not None else (info.prefix, info.suffix)


def _concat(x: _Info, y: _Info) -> _Info:
    if x.exact is not None and y.exact is not None:
        exact = _cross(x.exact, y.exact)
        if exact is not None and len(exact) <= _MAX_EXACT:
            return _Info(exact, exact, exact, _both(x.match, y.match))
    (x_start, x_end), (y_start, y_end) = _ends(x), _ends(y)
    match = _both(_full(x), _full(y))
    across = _cross(x_end, y_start)  # the strings spanning the boundary
    if across is not None:
        match = _both(match, _group(across))
    # a match starts with x's start, and where x is known exactly with it followed by y's start
    prefix = (_cross(x.exact, y_start) or x.exact) if x.exact is not None else x_start
    suffix = (_cross(x_end, y.exact) or y.exact) if y.exact is not None else y_end
    return _Info(None, _shorten(prefix, True), _shorten(suffix, False), match)


def _alternate(x: _Info, y: _Info) -> _Info:
    if x.exact is not None and y.exact is not None:
        exact = x.exact | y.exact
        merged = _Info(exact, exact, exact, _either(x.match, y.match))
        return merged if len(exact) <= _MAX_EXACT else _demote(merged)
    (x_start, x_end), (y_start, y_end) = _ends(x), _ends(y)
    return _Info(None, _shorten(x_start | y_start, True), _shorten(x_end | y_end, False), _either(_full(x), _full(y)))


# In a derived string: _EDGE, no ASCII letter or digit on this side (\b, ^, a lookaround); _GAP, one or more
# characters that are no ASCII letters or digits (spaces, quotes…), _SPACE none or more (`\s*`). An edge or a gap
# bounds a word next to it; a word next to _SPACE is bounded by what is on its other side.
_EDGE, _GAP, _SPACE = "\0", "\1", "\2"
_MARKS = _EDGE + _GAP + _SPACE
_REDUNDANT_EDGE = re.compile("\0(?=[^a-z0-9\2])|(?<=[^a-z0-9\2])\0")  # an edge next to a non-letter says nothing
_GAP_RUN = re.compile("[\1\2]*\1[\1\2]*|\2\2+")  # gaps and spaces in a row: a gap (spaces only: a space)
_EDGES = (sre.AT_BEGINNING, sre.AT_BEGINNING_LINE, sre.AT_BEGINNING_STRING, sre.AT_END, sre.AT_END_LINE,
          sre.AT_END_STRING, sre.AT_BOUNDARY)
_EDGE_INFO = _Info(frozenset({_EDGE}), frozenset({_EDGE}), frozenset({_EDGE}), _NONE)
_GAP_INFO = _Info(frozenset({_GAP}), frozenset({_GAP}), frozenset({_GAP}), _NONE)
_SPACE_INFO = _Info(frozenset({_SPACE}), frozenset({_SPACE}), frozenset({_SPACE}), _NONE)


class _Deriver:
    """The strings a regex's matches hold, with _EDGE and _GAP where the regex says no ASCII letter or digit is (so a
    run of letters between two of them is a whole word of the block, see audit_words)."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.words = WordDeriver(regex)  # asks re which letters an element matches under the flags in force
        self.parsed = self.words.parsed

    def chars(self, item: Any) -> frozenset[str] | None:
        """The folded characters a one-character element matches (None: too many to list)."""
        op, av = item
        if op is sre.LITERAL:
            return frozenset({fold(chr(av))}) if av else None
        if op is sre.IN:
            found: set[str] = set()
            for member_op, member in av:
                if member_op is sre.LITERAL and member:
                    found.add(fold(chr(member)))
                elif member_op is sre.RANGE and 0 < member[0] and member[1] - member[0] < _MAX_CLASS:
                    found |= {fold(chr(code)) for code in range(member[0], member[1] + 1)}
                else:  # NEGATE, CATEGORY, a wide range
                    return None
            return frozenset(found) if len(found) <= _MAX_CLASS else None
        return None  # ANY, NOT_LITERAL, CATEGORY

    def sequence(self, items: Any, add: int, remove: int) -> _Info:
        info = _EMPTY
        for item in items:
            info = _concat(info, self.element(item, add, remove))
        return info

    def element(self, item: Any, add: int, remove: int) -> _Info:
        op, av = item
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY):
            chars = self.chars(item)
            if chars:
                return _Info(chars, chars, chars, _NONE)
            return _ANYTHING if self.words.letters_matched(item, add, remove) else _GAP_INFO
        if op is sre.AT:
            return _EDGE_INFO if av in _EDGES else _EMPTY  # \b next to a letter: the other side is no letter
        if op is sre.ASSERT_NOT:
            direction, items = av
            if len(items) == 1 and items[0][0] in _SINGLE and self.words.matches_every_letter(items[0], add, remove):
                return _EDGE_INFO  # the neighbour is no letter or digit (or there is none)
            return _EMPTY
        if op is sre.ASSERT:
            direction, items = av
            if len(items) == 1 and items[0][0] in _SINGLE and not self.words.letters_matched(items[0], add, remove):
                return _EDGE_INFO  # the neighbour is some character that is no letter or digit
            return _EMPTY
        if op is sre.BRANCH:
            branches = [self.sequence(branch, add, remove) for branch in av[1]]
            info = branches[0]
            for other in branches[1:]:
                info = _alternate(info, other)
            return info
        if op is sre.SUBPATTERN:
            _, more, less, items = av
            return self.sequence(items, (add | more) & ~less, (remove | less) & ~more)
        if op is sre.ATOMIC_GROUP:
            return self.sequence(av, add, remove)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, items = av
            if high == 0:
                return _EMPTY
            inner = self.sequence(items, add, remove)
            if inner.exact == _GAP_INFO.exact:
                return _GAP_INFO if low else _SPACE_INFO  # a run of spaces is one gap
            if high > 1 and inner.exact is not None and not any(map(_HAS_LETTER.search, inner.exact)):
                # a run of characters that are no letters or digits (`#{1,4}`, `-*`): its first, then maybe more
                run = frozenset(_normal(s + _SPACE) for s in inner.exact) if low else frozenset({_SPACE})
                return _Info(run, run, run, _NONE)
            if low == 0:
                return _alternate(_EMPTY, inner) if high == 1 else _Info(None, frozenset({""}), frozenset({""}), _NONE)
            if low == high == 1:
                return inner
            if inner.exact is not None and low == high:
                info = inner
                for _ in range(low - 1):
                    info = _concat(info, inner)
                return info
            # at least once: what one repetition holds, starts and ends with
            start, end = _ends(inner)
            return _Info(None, start, end, _full(inner))
        return _ANYTHING  # back-references, conditionals: nothing known

    def clause(self) -> Clause:
        return plan(_full(self.sequence(self.parsed, 0, 0)))

def _common_substring(strings: frozenset[str]) -> str:
    """The longest string without a mark (a contiguous piece of the match) inside every one of `strings`."""
    shortest = min(strings, key=len)
    for length in range(len(shortest), 0, -1):
        for start in range(len(shortest) - length + 1):
            piece = shortest[start:start + length]
            if not any(mark in piece for mark in _MARKS) and all(piece in s for s in strings):
                return piece
    return ""


_COMMON_CHARS = frozenset(" \n\t.,:;-_/()[]{}'\"`*#|=<>!?")  # in most lines of Markdown or code
# Words in most skill files: a poor needle to search first, found on many lines.
_COMMON_WORDS = frozenset(word.decode() for word in COMMON_WORDS)
_COMMON_NEEDLES = frozenset({"https://", "http://"})  # links: on many lines of most Markdown
_ALNUM_RUN = re.compile(r"[a-z0-9]+")
_HAS_LETTER = re.compile(r"[a-z0-9]")


def _search_cost(needle: Spec) -> int:
    """Roughly what deciding whether a needle is in a block costs: a set operation when it has an uncommon word
    the block must hold or a non-ASCII character (1), a one-character search (1), else a substring search (5)."""
    text, words, _, _ = needle
    if len(text) == 1 or not text.isascii() or any(word.decode() not in _COMMON_WORDS for word in words):
        return 1
    return 5


def _line_cost(needle: Spec) -> int:
    """Roughly how many lines a needle selects in a block that holds it: a single character (the block's
    characters already tell whether it is there at all) or a common word many, a short needle a few."""
    text, words, _, _ = needle
    if len(text) == 1:
        return 30
    if words and any(word.decode() not in _COMMON_WORDS for word in words) or not text.isascii():
        return 0
    if text.strip() in _COMMON_WORDS or text in _COMMON_NEEDLES:
        return 20
    return 30 if len(text) == 2 else 3 if len(text) == 3 else 0  # `th`, `-i`: on most lines


def _spec(marked: str) -> Spec:
    """A derived string as a needle: its longest piece without a mark, and what any block it is in holds (_needle)."""
    piece = max(_PIECE.finditer(marked), key=lambda m: len(m.group(0)), default=None)
    if piece is None:
        return "", frozenset(), frozenset(), ()
    return _needle(piece.group(0), _bounded(marked, piece.start() - 1, -1), _bounded(marked, piece.end(), 1))


def _common_spec(common: str, group: frozenset[str]) -> Spec:
    """A string inside each string of a group as a needle, bounded on a side where every occurrence in each is."""
    at = [(s, i) for s in group for i in range(len(s)) if s.startswith(common, i)]
    return _needle(common, all(_bounded(s, i - 1, -1) for s, i in at),
                   all(_bounded(s, i + len(common), 1) for s, i in at))


def _needle(needle: str, left: bool, right: bool) -> Spec:
    """A needle whose edges are known to be next to no ASCII letter or digit (left, right) or not: the words a
    block it is in holds, its non-ASCII characters, and its letter runs bounded on one side or none (steps)."""
    words, steps = [], []
    for run in _ALNUM_RUN.finditer(needle):
        before = run.start() > 0 or left
        after = run.end() < len(needle) or right
        if before and after:
            words.append(run.group(0).encode())
        else:
            steps.append((b" " if before else b"") + run.group(0).encode() + (b" " if after else b""))
    return (needle, frozenset(words), frozenset(char for char in needle if not char.isascii()),
            tuple(sorted(steps, key=lambda step: (-len(step), step))))


_PIECE = re.compile(f"[^{_MARKS}]+")


def _bounded(marked: str, at: int, step: int) -> bool:
    """Whether the character at `at` (or on, in the direction of `step`, past spaces that may be empty) is known to
    be no ASCII letter or digit: a mark, or another such character of the string (not beyond its ends)."""
    while 0 <= at < len(marked) and marked[at] == _SPACE:
        at += step
    return 0 <= at < len(marked) and not ("a" <= marked[at] <= "z" or "0" <= marked[at] <= "9")


def _fewest(group: frozenset[Spec]) -> frozenset[Spec]:
    """The group without the needles another one implies (its needle inside theirs, its words among theirs)."""
    return frozenset(spec for spec in group if not any(
        other != spec and other[0] in spec[0] and other[1] <= spec[1] and other[2] <= spec[2]
        and set(other[3]) <= set(spec[3]) for other in group))


def _piece_groups(group: frozenset[str]) -> list[frozenset[Spec]]:
    """Where every string of a group has several pieces (the runs between its marks: words, `don't`, `.ssh/`…),
    the k-th piece from the start of each string, and the k-th from the end, are groups too: a match holds one
    of the strings, so each of its pieces (`do not show th` and `never print th` give {do, never}, {show, print}…)."""
    pieces = [[_needle(piece.group(0), _bounded(marked, piece.start() - 1, -1), _bounded(marked, piece.end(), 1))
               for piece in _PIECE.finditer(marked)] for marked in group]
    fewest = min(map(len, pieces), default=0)
    if fewest < 2:
        return []
    return [frozenset(each[at] for each in pieces) for k in range(fewest) for at in (k, -1 - k)]


def plan(cnf: Cnf) -> Clause:
    """The group searched, as needles with the words they need, then up to three small groups checked on the
    lines it selects: the choice that costs least, roughly (a search per needle, on each line selected a look
    at the line and a check per needle of the other groups)."""
    groups = {_fewest(frozenset(map(_spec, group))) for group in cnf}
    for group in cnf:
        common = _common_substring(group) if len(group) > 1 else ""
        if len(common) >= 5 or (len(common) >= 3 and len(group) >= 3):
            groups.add(frozenset({_common_spec(common, group)}))  # one search instead of several
        groups.update(map(_fewest, _piece_groups(group)))
    if not groups:
        return ()
    best: tuple[int, frozenset[Spec], list[frozenset[str]]] | None = None
    for first in sorted(groups, key=sorted):
        # the groups that rule out the most lines: the lines a group holds are those of its commonest needle
        checks = [frozenset(text for text, _, _, _ in group) for group in sorted(
            (group for group in groups if group is not first and len(group) <= _MAX_CHECKED),
            key=lambda g: (max(map(_line_cost, g)), len(g), sorted(g)))[:3]]
        cost = sum(map(_search_cost, first)) + sum(map(_line_cost, first)) * (5 + sum(map(len, checks)))
        if best is None or cost < best[0]:
            best = (cost, first, checks)
    assert best is not None
    _, first, checks = best
    return (tuple(sorted(first, key=lambda spec: (-len(spec[0]), spec))),
            tuple(tuple(sorted(check, key=lambda text: (-len(text), text))) for check in checks))


_MAX_CHECKED = 40  # needles of a group checked on each line the searched group selects, at most


def alternative_clauses(regex: re.Pattern[str]) -> tuple[Clause, ...]:
    """One clause per top-level alternative of the regex's source, in its order (see the module doc)."""
    parts = top_level_alternatives(regex.pattern)
    regexes = [regex] if len(parts) == 1 else [re.compile(part, regex.flags) for part in parts]
    return tuple(_Deriver(each).clause() for each in regexes)


def regex_clause(regex: re.Pattern[str]) -> Clause:
    """The clause of the whole regex (every match holds a needle of each group)."""
    return _Deriver(regex).clause()
