"""The whole words a regex's matches must contain, derived from the regex itself: a rule whose words are
not among a block's words (audit_base.block_tokens) cannot match there, and is skipped without searching
the text (set operations in C instead of a substring search per needle).

A word is a run of ASCII letters and digits that the regex bounds on both sides by something that cannot
be one (`\\b`, a space, `.`, a lookaround such as `(?<![\\w.])`, `^`/`$`): in any text it matches, that run
is a whole word of the text, lowercased as block_tokens lowers it. The derivation only ever drops
knowledge when unsure (a class that may hold a letter, an unbounded repeat), so the condition it gives is
necessary: `WordGate.possible(tokens)` is True whenever the regex matches the text the tokens come from.
Valid only for text without the characters re.IGNORECASE matches to an ASCII letter (İ ı ſ K): there a
word may be spelled with a letter block_tokens does not see (the callers fall back to searching).
"""
from __future__ import annotations

import re
from re import _casefix, _compiler as sre_compile, _constants as sre, _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, NamedTuple

ASCII_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# re.IGNORECASE matches these to an ASCII letter: a text holding one gets no word gate
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
# Atom kinds between the letters of an expansion: a character that is never an ASCII letter or digit
# (or a zero-width assertion saying the neighbour is none), a `\b`, anything else.
_GUARD, _BOUNDARY, _UNKNOWN = "G", "B", "U"
_MAX_SHAPES = 256  # distinct expansions kept per sub-pattern before they are merged into one
_MAX_GROUPS = 6  # groups kept per condition (dropping a group only weakens it)

# A condition is a CNF: a frozenset of groups, each a frozenset of words one of which must occur;
# the empty CNF is "always". A shape is ("P", letters) for a run of letters only, or
# ("M", leading letters, first atom kind, last atom kind, trailing letters).
Cnf = frozenset[frozenset[str]]
Shape = tuple[str, ...]
Shapes = list[tuple[Shape, Cnf]]
_ALWAYS: Cnf = frozenset()


def _simplify(cnf: Cnf) -> Cnf:
    kept: list[frozenset[str]] = []
    for group in sorted(cnf, key=lambda g: (len(g), sorted(g))):
        if not any(k <= group for k in kept):
            kept.append(group)
    return frozenset(kept[:_MAX_GROUPS])


def _both(a: Cnf, b: Cnf) -> Cnf:
    return _simplify(a | b) if a and b else (a or b)


def _either(a: Cnf, b: Cnf) -> Cnf:
    if not a or not b:
        return _ALWAYS
    return _simplify(frozenset(x | y for x in a for y in b))


def _join(x: tuple[Shape, Cnf], y: tuple[Shape, Cnf]) -> tuple[Shape, Cnf]:
    (sx, cx), (sy, cy) = x, y
    cnf = _both(cx, cy)
    if sx[0] == "P" and sy[0] == "P":
        return ("P", sx[1] + sy[1]), cnf
    if sx[0] == "P":
        return ("M", sx[1] + sy[1], sy[2], sy[3], sy[4]), cnf
    if sy[0] == "P":
        return ("M", sx[1], sx[2], sx[3], sx[4] + sy[1]), cnf
    run = sx[4] + sy[1]
    if run and sx[3] in (_GUARD, _BOUNDARY) and sy[2] in (_GUARD, _BOUNDARY):
        cnf = _both(cnf, frozenset({frozenset({run})}))
    return ("M", sx[1], sx[2], sy[3], sy[4]), cnf


def _merge(shapes: Shapes) -> Shapes:
    merged: dict[Shape, Cnf] = {}
    for shape, cnf in shapes:
        merged[shape] = _either(merged[shape], cnf) if shape in merged else cnf
    if len(merged) > _MAX_SHAPES:
        conditions = list(merged.values())
        cnf = conditions[0]
        for other in conditions[1:]:
            cnf = _either(cnf, other)
        return [(("M", "", _UNKNOWN, _UNKNOWN, ""), cnf)]
    return list(merged.items())


def _then(xs: Shapes, ys: Shapes) -> Shapes:
    return _merge([_join(x, y) for x in xs for y in ys])


_LETTERS: dict[tuple[Any, str, int], str] = {}  # (op, argument, flags) -> the ASCII letters and digits it matches
_EMPTY: Shapes = [(("P", ""), _ALWAYS)]
_ATOM: dict[str, Shapes] = {kind: [(("M", "", kind, kind, ""), _ALWAYS)] for kind in (_GUARD, _BOUNDARY, _UNKNOWN)}
_SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY)
_EDGES = (sre.AT_BEGINNING, sre.AT_BEGINNING_LINE, sre.AT_BEGINNING_STRING, sre.AT_END, sre.AT_END_LINE,
          sre.AT_END_STRING)


class _Deriver:
    def __init__(self, regex: re.Pattern[str]) -> None:
        self.parsed = sre_parse.parse(regex.pattern, regex.flags)
        self.state = self.parsed.state
        self.flags = self.state.flags

    def letters_matched(self, item: Any, add: int, remove: int) -> set[str]:
        """The ASCII letters and digits one single-character element matches (lowercased)."""
        op, av = item
        flags = (self.flags | add) & ~remove
        if op is sre.LITERAL:
            char = chr(av)
            if char in ASCII_ALNUM:
                return {char.lower()}
            if char in FOLDS_TO_ASCII and flags & re.IGNORECASE:
                return set(ASCII_ALNUM.lower())  # some ASCII letter: unknown which, treated as any
            return set()
        if op is sre.IN and all(o is sre.LITERAL for o, _ in av):
            return set().union(*(self.letters_matched(one, add, remove) for one in av))
        return {char.lower() for char in self.compiled_letters(item, add, remove)}

    def char_forms(self, char: str, add: int, remove: int) -> set[str]:
        """The lowercased characters a literal non-ASCII character matches (its own, and under IGNORECASE the
        ones re folds to it), each marked with a leading NUL to tell it from a word."""
        low = char.lower()
        forms = {low}
        if (self.flags | add) & ~remove & re.IGNORECASE:
            forms |= {chr(code) for code in _casefix._EXTRA_CASES.get(ord(low), ())}
        return {"\0" + form for form in forms}

    def matches_every_letter(self, item: Any, add: int, remove: int) -> bool:
        return item[0] is not sre.LITERAL and len(self.compiled_letters(item, add, remove)) == len(ASCII_ALNUM)

    def compiled_letters(self, item: Any, add: int, remove: int) -> str:
        """The ASCII letters and digits (as they are, not lowercased) the element matches, asked of re itself."""
        key = (item[0], str(item[1]), (self.flags | add) & ~remove)
        found = _LETTERS.get(key)
        if found is None:
            inner = sre_parse.SubPattern(self.state, [item])
            wrapped = sre_parse.SubPattern(self.state, [(sre.SUBPATTERN, (None, add, remove, inner))])
            compiled = sre_compile.compile(wrapped, 0)
            found = _LETTERS[key] = "".join(char for char in ASCII_ALNUM if compiled.fullmatch(char))
        return found

    def single(self, item: Any, add: int, remove: int) -> Shapes:
        letters = self.letters_matched(item, add, remove)
        if not letters:
            op, av = item
            if op is sre.LITERAL and not chr(av).isascii() and chr(av) not in FOLDS_TO_ASCII:
                return [(("M", "", _GUARD, _GUARD, ""), frozenset({frozenset(self.char_forms(chr(av), add, remove))}))]
            return _ATOM[_GUARD]
        if len(letters) > 3:
            return _ATOM[_UNKNOWN]
        op, av = item
        shapes: Shapes = [(("P", letter), _ALWAYS) for letter in sorted(letters)]
        only_letters = op is sre.LITERAL or (op is sre.IN and all(
            o is sre.LITERAL and chr(v) in ASCII_ALNUM for o, v in av))
        return shapes if only_letters else _merge(shapes + _ATOM[_GUARD])

    def sequence(self, items: Any, add: int, remove: int) -> Shapes:
        shapes = _EMPTY
        for item in items:
            shapes = _then(shapes, self.element(item, add, remove))
        return shapes

    def element(self, item: Any, add: int, remove: int) -> Shapes:
        op, av = item
        if op in _SINGLE:
            return self.single(item, add, remove)
        if op is sre.AT:
            return _ATOM[_BOUNDARY] if av is sre.AT_BOUNDARY else _ATOM[_GUARD] if av in _EDGES else _EMPTY
        if op is sre.BRANCH:
            return _merge([shape for branch in av[1] for shape in self.sequence(branch, add, remove)])
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
            if high == 1:
                return _merge(inner + (_EMPTY if low == 0 else []))
            if all(shape == ("M", "", _GUARD, _GUARD, "") and not cnf for shape, cnf in inner):
                return _ATOM[_GUARD] if low >= 1 else _merge(_EMPTY + _ATOM[_GUARD])
            return _ATOM[_UNKNOWN] if low == 0 else _then(inner, _ATOM[_UNKNOWN])
        if op is sre.ASSERT_NOT:
            direction, items = av
            if len(items) == 1 and items[0][0] in _SINGLE and self.matches_every_letter(items[0], add, remove):
                return _ATOM[_GUARD]  # the neighbour is no letter or digit (or there is none)
            return _EMPTY
        if op is sre.ASSERT:
            direction, items = av
            inner = self.sequence(items, add, remove)
            if direction == 1 and all(s[0] == "M" and s[1] == "" and s[2] == _GUARD for s, _ in inner):
                return _ATOM[_GUARD]
            if direction == -1 and all(s[0] == "M" and s[4] == "" and s[3] == _GUARD for s, _ in inner):
                return _ATOM[_GUARD]
            return _EMPTY
        return _ATOM[_UNKNOWN]

    def branches(self) -> Dnf:
        """One CNF per top-level branch of the parsed regex (an empty one: the branch requires nothing)."""
        top = list(self.parsed)
        while len(top) == 1 and top[0][0] is sre.SUBPATTERN and not top[0][1][1] and not top[0][1][2]:
            top = list(top[0][1][3])
        branches = top[0][1][1] if len(top) == 1 and top[0][0] is sre.BRANCH else [top]
        found = []
        for branch in branches:
            shapes = self.sequence(branch, 0, 0)
            cnf = shapes[0][1]
            for _, other in shapes[1:]:
                cnf = _either(cnf, other)
            groups = (Group(frozenset(w.encode() for w in g if w[0] != "\0"), frozenset(w[1:] for w in g if w[0] == "\0"))
                      for g in cnf)
            # groups of words first (a set operation), characters after
            found.append(tuple(sorted(groups, key=lambda g: (bool(g.chars), sorted(g.words), sorted(g.chars)))))
        return tuple(found)


def _any_branch(branches: Dnf) -> Dnf:
    """The branches' CNFs as one condition (any may hold), those needing only words first; () when a branch
    requires nothing."""
    if not all(branches):
        return ()
    return tuple(sorted(dict.fromkeys(branches), key=lambda cnf: (any(g.chars for g in cnf), len(cnf))))


def _holds(cnf: tuple[Group, ...], tokens: frozenset[bytes], chars: frozenset[str]) -> bool:
    for group in cnf:
        if tokens.isdisjoint(group.words) and chars.isdisjoint(group.chars):
            return False
    return True


class Group(NamedTuple):
    """One of these words is a whole word of the block, or one of these characters (lowercased) is in it."""

    words: frozenset[bytes]
    chars: frozenset[str]


Dnf = tuple[tuple[Group, ...], ...]  # one of these CNFs (each: every group) holds


def top_level_alternatives(pattern: str) -> list[str]:
    """The pattern's source split at its top-level `|` (outside groups and classes; inside the one
    non-capturing group that makes up a whole pattern)."""
    closes = _group_ends(pattern)
    if pattern.startswith("(?:") and closes.get(0) == len(pattern) - 1:
        return top_level_alternatives(pattern[3:-1])
    parts, depth, start, i, class_at = [], 0, 0, 0, -1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if class_at >= 0:  # a `]` first in a class (after `[` or `[^`) is a character of it
            if char == "]" and i != class_at + 1 and not (i == class_at + 2 and pattern[class_at + 1] == "^"):
                class_at = -1
        elif char == "[":
            class_at = i
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return parts + [pattern[start:]]


class WordGate:
    """`possible(tokens)`: whether the regex can match a block with these words (False only when it cannot)."""

    __slots__ = ("regex", "_branches", "_conditions")

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self._branches: tuple[Dnf, ...] | None = None
        self._conditions: Dnf | None = None

    @property
    def branches(self) -> tuple[Dnf, ...]:
        """Per top-level alternative of the regex's source, in its order, what a match of it holds: one of these
        CNFs (() when it requires nothing)."""
        if self._branches is None:  # derived on first use: importing the audit stays cheap
            parts = top_level_alternatives(self.regex.pattern)
            regexes = [self.regex] if len(parts) == 1 else [re.compile(part, self.regex.flags) for part in parts]
            self._branches = tuple(_any_branch(_Deriver(regex).branches()) for regex in regexes)
        return self._branches

    @property
    def conditions(self) -> Dnf:
        """What any match holds: one of these CNFs (() when nothing is required)."""
        if self._conditions is None:
            self._conditions = _any_branch(tuple(cnf for dnf in self.branches for cnf in dnf)) \
                if all(self.branches) else ()
        return self._conditions

    def possible(self, words: "BlockWords | None") -> bool:
        conditions = self._conditions if self._conditions is not None else self.conditions
        if words is None or not conditions:
            return True
        tokens, chars = words
        for cnf in conditions:  # inline: called for every rule of every block
            for group_words, group_chars in cnf:
                if tokens.isdisjoint(group_words) and (not group_chars or chars.isdisjoint(group_chars)):
                    break
            else:
                return True
        return False

    def possible_branches(self, words: "BlockWords | None") -> tuple[bool, ...]:
        """For each top-level alternative, in the regex's order, whether it may match (all True without words)."""
        if words is None:
            return (True,) * len(self.branches)
        tokens, chars = words
        return tuple(not dnf or any(_holds(cnf, tokens, chars) for cnf in dnf) for dnf in self.branches)


def _group_ends(pattern: str) -> dict[int, int]:
    """Where each group of the pattern's source opens -> where it closes."""
    ends, stack, i, class_at = {}, [], 0, -1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if class_at >= 0:
            if char == "]" and i != class_at + 1 and not (i == class_at + 2 and pattern[class_at + 1] == "^"):
                class_at = -1
        elif char == "[":
            class_at = i
        elif char == "(":
            stack.append(i)
        elif char == ")" and stack:
            ends[stack.pop()] = i
        i += 1
    return ends


class BlockWords(NamedTuple):
    """What word gates look at in a block: its ASCII words (block_tokens) and its non-ASCII characters,
    lowercased one by one."""

    tokens: frozenset[bytes]
    chars: frozenset[str]


_ASCII_BYTES = bytes(range(128))


def non_ascii_chars(data: bytes) -> frozenset[str]:
    """The non-ASCII characters of UTF-8 `data`, lowercased (a superset where the bytes are not valid
    UTF-8: a character whose bytes are intact decodes to itself whatever precedes it)."""
    rest = data.translate(None, _ASCII_BYTES)
    return frozenset(char.lower() for char in set(rest.decode("utf-8", "replace"))) if rest else frozenset()
