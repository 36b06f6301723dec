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

import functools
import operator
import re
import _sre  # type: ignore[import-not-found]
from re import _casefix, _compiler as sre_compile, _constants as sre, _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, Callable, NamedTuple, Sequence
from . import audit_derived_cache

# --- case folding ----------------------------------------------------------------------------------

# Characters re.IGNORECASE matches to another lowercase character (beyond lower()): each mapped to the
# one that is the lowercase of its uppercase, so both fold to the same character.
_SPECIAL: dict[int, str] = {}
for _low, _others in _casefix._EXTRA_CASES.items():
    _group = {chr(_low), *map(chr, _others)}
    _plain = {c for c in _group if len(c.upper().lower()) == 1 and c.upper().lower() in _group}
    _rep = min(c.upper().lower() for c in _plain) if _plain else min(_group)
    for _char in _group - {_rep}:
        _SPECIAL[ord(_char)] = _rep
del _low, _others, _group, _plain, _rep, _char
SPECIAL_FOLDS = frozenset(map(chr, _SPECIAL))  # the characters `fold` maps after lowering
_SPECIAL_SEARCH = re.compile("[" + "".join(map(re.escape, sorted(SPECIAL_FOLDS))) + "]")


def fold_specials(low: str) -> str:
    """`low` (lowercased) with the special characters mapped (a no-op for text without them)."""
    if low.isascii() or not _SPECIAL_SEARCH.search(low):
        return low
    return low.translate(_SPECIAL)


def fold(text: str) -> str:
    """The folded form of a needle: each character lowered as re.IGNORECASE lowers it (one character for one:
    İ becomes i, where str.lower() makes i̇; a block holding İ is not folded at all, see fold_lower), the special
    characters mapped."""
    return "".join(_SPECIAL.get(code, chr(code)) for code in map(_sre.unicode_tolower, map(ord, text)))


ASCII_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# re.IGNORECASE matches these to an ASCII letter: a text holding one gets no word gate
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
# Atom kinds between the letters of an expansion: a character that is never an ASCII letter or digit
# (or a zero-width assertion saying the neighbour is none), a `\b`, anything else.
_GUARD, _BOUNDARY, _UNKNOWN = "G", "B", "U"
_MAX_SHAPES = 256  # distinct expansions kept per sub-pattern before they are merged into one
_MAX_GROUPS = 8  # groups kept per condition (dropping a group only weakens it)

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


class WordDeriver:
    """The words and letters a regex's matches hold, asked of re's own parse of it (the word gates here;
    audit_needles asks it which letters an element matches)."""
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

    def guard_forms(self, item: Any, add: int, remove: int) -> frozenset[str]:
        """The characters (marked as char_forms marks them) one of which an element that matches no ASCII letter
        or digit matches: a literal or a class of literals that are punctuation or non-ASCII letters (empty when
        unknown: a category, a range, whitespace, a letter re.IGNORECASE folds to ASCII)."""
        op, av = item
        members = [item] if op is sre.LITERAL else list(av) if op is sre.IN else []
        forms: set[str] = set()
        for member_op, code in members:
            char = chr(code) if member_op is sre.LITERAL else ""
            if not char or char in FOLDS_TO_ASCII or char.isspace():
                return frozenset()
            forms |= self.char_forms(char, add, remove) if not char.isascii() else {"\0" + char}
        return frozenset(forms)

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
            forms = self.guard_forms(item, add, remove)
            return [(("M", "", _GUARD, _GUARD, ""), frozenset({forms}))] if forms else _ATOM[_GUARD]
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
    return _split(pattern)


def _split(pattern: str) -> list[str]:
    """The source split at its `|` outside groups and classes."""
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


class _Bits:
    """Every group of every derived gate has a bit; a word or character has the bits of the groups it is in. A
    block's words then become one integer (`block_bits`), and a CNF holds when the block has all its bits: one
    integer test per CNF instead of a set operation per group."""

    bit_of: dict[Group, int] = {}
    group_of: dict[int, Group] = {}
    score: dict[int, tuple[bool, int, int]] = {}  # bit -> how little a block is likely to satisfy it (telling_bit)
    common = 0  # the bits of groups most blocks satisfy (a common word or character among theirs)
    word_bits: dict[bytes, int] = {}
    char_bits: dict[str, int] = {}
    words: frozenset[bytes] = frozenset()
    chars: frozenset[str] = frozenset()
    version = 0


# Words and characters in most skill files (English, Markdown, code): a group holding one tells little.
COMMON_WORDS = frozenset(w.encode() for w in """
a about after all also an and any are as at be because been before but by can could did do does each for from get
had has have how if in into is it its just like make may more most must new no not now of on one only or other
our out over should so some such than that the their them then there these they this those through to up use
used using very was we were what when where which while who will with would you your
api code com data default example file files format http https id input json key list md name output py return
run set step steps string text true false type user value www
""".split())
COMMON_CHARS = frozenset("\"#()*,-./:[]_`|'{}")


def common_bits() -> int:
    """The bits of the groups most blocks satisfy (a mask without others says little about a block)."""
    return _Bits.common


def telling_bit(mask: int) -> int:
    """The bit of `mask` (not 0) whose group a block is least likely to satisfy: not a common one, then the group
    whose easiest member is longest (a short word such as `0` or `e`, or an ASCII punctuation mark, is in most
    blocks), then the group of fewest members. A block without it lacks the mask, so it stands for the mask
    wherever one bit is tested first."""
    best, best_score = 0, (False, -1, 0)
    rest = mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        score = _Bits.score.get(bit)
        if score is None:
            group = _Bits.group_of[bit]
            shortest = min([len(word) for word in group.words] + [1 if char.isascii() else 3 for char in group.chars],
                               default=99)
            score = _Bits.score[bit] = (not bit & _Bits.common, shortest, -len(group.words) - len(group.chars))
        if score > best_score:
            best, best_score = bit, score
    return best


def _mask(cnf: tuple[Group, ...]) -> int:
    """The bits of a CNF's groups (new groups get theirs)."""
    mask = 0
    for group in cnf:
        bit = _Bits.bit_of.get(group)
        if bit is None:
            bit = _Bits.bit_of[group] = 1 << len(_Bits.bit_of)
            _Bits.group_of[bit] = group
            for word in group.words:
                _Bits.word_bits[word] = _Bits.word_bits.get(word, 0) | bit
            for char in group.chars:
                _Bits.char_bits[char] = _Bits.char_bits.get(char, 0) | bit
            if not (COMMON_WORDS.isdisjoint(group.words) and COMMON_CHARS.isdisjoint(group.chars)):
                _Bits.common |= bit
            _Bits.words, _Bits.chars = frozenset(_Bits.word_bits), frozenset(_Bits.char_bits)
            _Bits.version += 1
        mask |= bit
    return mask


_BITS_MEMO: list[Any] = [None, -1, 0]  # (BlockWords, version, bits): every gate asks about the same block


def block_bits(words: "BlockWords") -> int:
    """The bits of the groups the block's words and characters satisfy (every word gate made so far derived
    first: a gate derived later would test bits worked out without its groups)."""
    if _PENDING:
        _derive_pending()
    if _BITS_MEMO[0] is words and _BITS_MEMO[1] == _Bits.version:
        memo: int = _BITS_MEMO[2]
        return memo
    # the bits of its words and characters OR-ed in C (no bytecode per word)
    bits = 0
    word_bits, char_bits = _Bits.word_bits, _Bits.char_bits
    for word in words.tokens & _Bits.words:
        bits |= word_bits[word]
    if words.chars:
        for char in words.chars & _Bits.chars:
            bits |= char_bits[char]
    _BITS_MEMO[:] = [words, _Bits.version, bits]
    return bits


_PENDING: list["WordGate"] = []  # gates made, not derived yet


def _derive_pending() -> None:
    while _PENDING:
        gate = _PENDING.pop()
        gate.branch_masks()
        if gate._masks is False:
            gate._masks = _masks(gate.conditions)
    audit_derived_cache.save()


def _masks(dnf: Dnf) -> tuple[int, ...] | None:
    """One mask per CNF of the DNF (None when it requires nothing)."""
    return tuple(_mask(cnf) for cnf in dnf) if dnf else None


class WordGate:
    """`possible(words)`: whether the regex can match a block with these words (False only when it cannot)."""

    __slots__ = ("regex", "_branches", "_conditions", "_masks", "_branch_masks", "_extra")

    def __init__(self, regex: re.Pattern[str], extra: Callable[[], Sequence[Group | None]] | None = None) -> None:
        """`extra`: per top-level alternative, one more group its matches hold (None: none), from elsewhere (the
        needles audit_needles derives): asked for once, with the branch masks."""
        self.regex = regex
        self._extra = extra
        self._branches: tuple[Dnf, ...] | None = None
        self._conditions: Dnf | None = None
        self._masks: tuple[int, ...] | None | bool = False  # False: not derived yet
        self._branch_masks: tuple[int | tuple[int, ...], ...] | None = None
        _PENDING.append(self)  # derived before the next block's bits (block_bits)

    @property
    def branches(self) -> tuple[Dnf, ...]:
        """Per top-level alternative of the regex's source, in its order, what a match of it holds: one of these
        CNFs (() when it requires nothing)."""
        if self._branches is None:  # derived on first use (or read from an earlier process's): imports stay cheap
            self._branches = audit_derived_cache.derived(
                "branches", self.regex, self._derive_branches, audit_derived_cache.encode_branches,
                lambda data: audit_derived_cache.decode_branches(data, Group))
        return self._branches

    def _derive_branches(self) -> tuple[Dnf, ...]:
        parts = top_level_alternatives(self.regex.pattern)
        regexes = [self.regex] if len(parts) == 1 else [re.compile(part, self.regex.flags) for part in parts]
        return tuple(_any_branch(WordDeriver(regex).branches()) for regex in regexes)

    @property
    def conditions(self) -> Dnf:
        """What any match holds: one of these CNFs (() when nothing is required)."""
        if self._conditions is None:
            self._conditions = _any_branch(tuple(cnf for dnf in self.branches for cnf in dnf)) \
                if all(self.branches) else ()
        return self._conditions

    def possible(self, words: "BlockWords | None") -> bool:
        masks = self._masks
        if masks is False:
            masks = self._masks = _masks(self.conditions)
        if words is None or masks is None or masks is True:
            return True
        bits = _BITS_MEMO[2] if _BITS_MEMO[0] is words and _BITS_MEMO[1] == _Bits.version else block_bits(words)
        for mask in masks:  # inline: called for every rule of every block
            if bits & mask == mask:
                return True
        return False

    def branch_masks(self) -> tuple[int | tuple[int, ...], ...]:
        """Per top-level alternative, the bits it needs (0: nothing), or a tuple of them when it has several CNFs
        (any may hold)."""
        branch_masks = self._branch_masks
        if branch_masks is None:
            extra = self._extra() if self._extra is not None else ()
            if len(extra) != len(self.branches):
                extra = [None] * len(self.branches)
            found: list[int | tuple[int, ...]] = []
            for dnf, group in zip(self.branches, extra):
                more = (group,) if group is not None else ()
                found.append(_mask(more) if dnf == () else _mask(dnf[0] + more) if len(dnf) == 1
                             else tuple(_mask(cnf + more) for cnf in dnf))
            branch_masks = self._branch_masks = tuple(found)
        return branch_masks

    def possible_branches(self, words: "BlockWords | None") -> list[bool]:
        """For each top-level alternative, in the regex's order, whether it may match (all True without words)."""
        branch_masks = self._branch_masks if self._branch_masks is not None else self.branch_masks()
        if words is None:
            return [True] * len(branch_masks)
        bits = _BITS_MEMO[2] if _BITS_MEMO[0] is words and _BITS_MEMO[1] == _Bits.version else block_bits(words)
        return [bits & mask == mask if isinstance(mask, int) else any(bits & m == m for m in mask)
                for mask in branch_masks]


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
    """What word gates look at in a block: its ASCII words (block_tokens) and its characters that are
    not ASCII letters, digits or whitespace (block_chars)."""

    tokens: frozenset[bytes]
    chars: frozenset[str]


ASCII_BYTES = bytes(range(128))


def non_ascii_chars(data: bytes) -> frozenset[str]:
    """A superset of the non-ASCII characters of the text UTF-8 `data` decodes to (a character whose bytes are
    intact decodes to itself whatever precedes it; where the bytes are not valid UTF-8 more may come out)."""
    rest = data.translate(None, ASCII_BYTES)
    return frozenset(rest.decode("utf-8", "replace")) if rest else frozenset()


def folded_chars(chars: frozenset[str]) -> frozenset[str]:
    """The characters lowercased, and also folded as needles are (fold: ᲂ to о, ς to σ…)."""
    lowered = {char.lower() for char in chars}
    return frozenset(lowered if SPECIAL_FOLDS.isdisjoint(lowered) else lowered | {fold(char) for char in lowered})


_PUNCTUATION = tuple((chr(c), c) for c in range(33, 127) if not chr(c).isalnum())


def block_chars(text: str, data: bytes, non_ascii: frozenset[str] | None = None) -> frozenset[str]:
    """The ASCII punctuation of `text` and its non-ASCII characters, lowercased and folded (from `data`, the bytes
    it was decoded from, or `non_ascii`: their non_ascii_chars): the characters of a block word gates look at."""
    punctuation = frozenset([char for char, code in _PUNCTUATION if code in data])  # a memchr each, most found soon
    if text.isascii():
        return punctuation
    return punctuation | folded_chars(non_ascii if non_ascii is not None else non_ascii_chars(data))
