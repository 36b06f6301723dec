"""The audit's vocabulary: severities, positions, rules, findings and the per-skill report.

Where text sits decides how much a match matters ("position"):
  exec        runs by itself: an inline `!` command, a ```! block, a hook command
  script      a script file in the skill folder (recognised by content): code the skill runs
  instruction Markdown the model reads and follows (prose and ordinary code blocks), other text files
  example     the same text shown as a warning or a counter-example (a "what NOT to do" section,
              a line that says never/avoid/attackers…): ranked two levels lower
Rule modules report raw hits with the severity the hit deserves in an executed position and,
separately, as an instruction; `severity_at` applies the position.
"""
from __future__ import annotations

import bisect
import functools
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from . import audit_derived_cache
from .audit_needles import Clause, Spec, alternative_clauses
from .audit_words import (COMMON_WORDS, FOLDS_TO_ASCII, SPECIAL_FOLDS, BlockWords, Group, WordGate, block_bits, block_chars, fold,
                          fold_specials, non_ascii_chars, telling_bit, top_level_alternatives)

LEVELS = ("info", "low", "medium", "high", "critical")
EXEC, SCRIPT, INSTRUCTION, EXAMPLE = "exec", "script", "instruction", "example"
DOC = INSTRUCTION  # older name of the instruction position
POSITIONS = (EXEC, SCRIPT, INSTRUCTION, EXAMPLE)


def level_index(level: str) -> int:
    return LEVELS.index(level)


def lower(level: str, steps: int, floor: str = "low") -> str:
    return LEVELS[max(level_index(level) - steps, min(level_index(floor), level_index(level)))]


def severity_at(position: str, executed: str, instructed: str) -> str:
    """The severity of a hit in `position`, from its severity when executed / when instructed."""
    if position in (EXEC, SCRIPT):
        return executed
    if position == EXAMPLE:
        return lower(instructed, 2)
    return instructed


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    summary: str
    help: str


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("SM001", "inline-shell", "Shell command runs when the skill is invoked",
         "`!`cmd`` and ```! blocks in SKILL.md run through the Bash tool at invocation, before the model reads "
         "the result (src/utils/promptShellExecution.ts). Rated by what the command does."),
    Rule("SM002", "unrestricted-bash", "allowed-tools pre-approves every Bash command",
         "`Bash`, `Bash(*)` or `Bash(:*)` in allowed-tools lets the skill run any command without asking."),
    Rule("SM003", "front-matter-hooks", "Hooks declared in front matter",
         "Hooks run commands on tool events while the skill is active; the commands are audited as code that runs."),
    Rule("SM004", "download-exec", "Downloads and executes code",
         "Downloaded code run by a shell or interpreter: curl|sh, bash <(curl), iex (irm …), a file fetched on one "
         "line (or in one file) and run on another."),
    Rule("SM005", "encoded-payload", "Obfuscated or encoded code",
         "Base64/hex/rot13 data decoded and run, or a blob that decodes to a command."),
    Rule("SM006", "credential-read", "Reads credentials or secrets files",
         "Access to ~/.ssh keys, cloud credentials, keychains, browser profiles, wallets or .env files."),
    Rule("SM007", "env-exfiltration", "Secrets or environment sent over the network",
         "Environment variables, credential files or staged copies of them that reach a network send."),
    Rule("SM008", "hidden-unicode", "Invisible or direction-changing characters",
         "Unicode tag characters, zero-width characters, variation-selector runs or bidi controls hide text."),
    Rule("SM009", "prompt-injection", "Instructions aimed at overriding the model or hiding from the user",
         "Override phrases in any language, fake system/tool tags, concealment from the user, instructions fetched "
         "from elsewhere, orders placed in the description."),
    Rule("SM010", "hardcoded-secret", "Hard-coded secret",
         "A token or key in a recognisable format (shown redacted); published sample keys are not secrets."),
    Rule("SM011", "runs-shipped-script", "The body tells the model to run a script shipped with the skill",
         "Every script in the folder is scanned as code that runs."),
    Rule("SM012", "reverse-shell", "Opens a shell for a remote host",
         "/dev/tcp, nc -e, socat exec:, socket + dup2, PowerShell TCPClient."),
    Rule("SM013", "persistence", "Makes itself survive a restart",
         "crontab, launchd, systemd units, shell start-up files, authorized_keys, Run keys, scheduled tasks."),
    Rule("SM014", "destructive-command", "Destroys data",
         "rm -rf of / or ~, mkfs, dd to a disk, recursive deletes of home or system folders."),
    Rule("SM015", "suspicious-destination", "Talks to a destination favoured by attackers",
         "Raw public IP addresses, paste sites, tunnels, request catchers, chat-bot APIs."),
    Rule("SM016", "registry-redirect", "Packages come from another registry",
         "pip --index-url/--extra-index-url, npm/yarn registry settings, PIP_INDEX_URL: any package can be swapped."),
    Rule("SM017", "agent-settings-tamper", "Changes Claude Code's own settings, permissions or hooks",
         "Writes to .claude/settings*.json, hooks, bypassPermissions, --dangerously-skip-permissions."),
    Rule("SM018", "interpreter-preapproved", "allowed-tools pre-approves an interpreter or downloader",
         "Bash(python:*), Bash(node:*), Bash(curl:*)… run arbitrary code without asking."),
    Rule("SM019", "escaping-link", "A link leaves the skill folder",
         "A symbolic link whose target is outside the skill folder (reported, never followed)."),
    Rule("SM020", "lookalike-name", "Name imitates a well-known skill",
         "Mixed scripts or confusable letters (Cyrillic а for Latin a, 0 for o) that make a name look like another."),
    Rule("SM021", "resource-abuse", "Abuses the machine's resources",
         "Fork bombs and crypto-miners."),
    Rule("SM022", "unscanned-content", "Part of the skill could not be scanned",
         "Binary executables, special files, unreadable files or folders, too many files."),
    Rule("SM023", "code-execution", "Runs dynamically built code",
         "eval/exec of computed strings and similar primitives."),
    Rule("SM024", "disables-protection", "Turns off a security protection",
         "Anti-virus real-time scanning or exclusions, firewalls, SELinux/AppArmor, Gatekeeper, SIP, audit logging."),
)}
RULE_BY_NAME = {r.name: r for r in RULES.values()}


@dataclass(frozen=True)
class Hit:
    """A raw match in a scanned block: `offset` into the block, severities before the position applies."""

    rule: str
    offset: int
    executed: str
    instructed: str
    message: str
    evidence: str = ""


@dataclass(frozen=True)
class AuditFinding:
    rule: str  # rule name, e.g. "download-exec"
    severity: str
    file: Path
    line: int
    message: str
    evidence: str = ""  # the offending text (secrets redacted, hidden characters revealed)
    context: str = INSTRUCTION  # position: exec | script | instruction | example

    @property
    def rule_id(self) -> str:
        return RULE_BY_NAME[self.rule].id

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "rule_id": self.rule_id, "severity": self.severity, "file": str(self.file),
                "line": self.line, "message": self.message, "evidence": self.evidence, "context": self.context}


@dataclass
class SkillAudit:
    target: Path
    name: str
    findings: list[AuditFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files skipped and why
    error: str | None = None  # the skill itself could not be audited (unreadable folder…)

    @property
    def max_severity(self) -> str | None:
        return max((f.severity for f in self.findings), key=level_index, default=None)

    def to_json(self) -> dict[str, Any]:
        return {"target": str(self.target), "name": self.name, "max_severity": self.max_severity,
                "findings": [f.to_json() for f in self.findings], "notes": self.notes, "error": self.error}


def clip(text: str, limit: int = 160) -> str:
    from .audit_text import reveal_hidden

    text = reveal_hidden(" ".join(text[:limit * 4].split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def one_line(regex: re.Pattern[str]) -> re.Pattern[str]:
    """The same regex, unable to match a newline: `\\s` becomes "whitespace but not \\n" (in and out of
    classes), negated classes also exclude \\n, `$` is the end of a line. The fast path searches only the lines holding a needle,
    so a rule must see one line at a time for it to give what the whole-text scan gives."""
    source, out, i = regex.pattern, [], 0
    in_class = negated = False
    class_start = class_start_src = 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            token = source[i:i + 2]
            if token == "\\s":
                out.append("\\s" if in_class else "[^\\S\\n]")
                if in_class and not negated:
                    out[class_start] = "(?:(?!\\n)["
            elif token in ("\\W", "\\D") and not in_class:
                out.append(f"(?:(?!\\n){token})")
            else:
                out.append(token)
            i += 2
            continue
        if in_class:
            if char == "]" and i > class_start_src + (2 if negated else 1):
                out.append("\\n]" if negated else "]")
                if not negated and out[class_start] == "(?:(?!\\n)[":
                    out.append(")")
                in_class = False
            else:
                out.append(char)
            i += 1
            continue
        if char == "$":  # end of the line, as the line-by-line search sees it
            out.append("(?=\\n|\\Z)")
            i += 1
            continue
        if char == "[":
            in_class, class_start_src = True, i
            negated = source[i + 1:i + 2] == "^"
            class_start = len(out)
            out.append("[^" if negated else "[")
            i += 2 if negated else 1
            continue
        out.append(char)
        i += 1
    return re.compile("".join(out), regex.flags)


REGION_RADIUS = 2048  # a match is at most a few hundred characters around the word it contains


def _line_span(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", max(0, at - REGION_RADIUS), at) + 1 or max(0, at - REGION_RADIUS)
    end = text.find("\n", at, at + REGION_RADIUS)
    return start, (end + 1 if end != -1 else min(len(text), at + REGION_RADIUS))


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def anchor_regions(text: str, anchor: re.Pattern[str]) -> list[tuple[int, int]]:
    """Like word_regions, around the matches of a (simple, fast) anchor regex."""
    spans: list[tuple[int, int]] = []
    for match in anchor.finditer(text):
        spans.append(_line_span(text, match.start()))
    return _merge(spans)


_NONWORD = bytes(range(256)).translate(None, b"abcdefghijklmnopqrstuvwxyz0123456789")
_TO_SPACE = bytes.maketrans(_NONWORD, b" " * len(_NONWORD))
# the same table, lowering ASCII capitals on the way (one pass over the block instead of two)
_TO_LOWER_WORDS = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789" else b + 32 if 65 <= b <= 90 else 32
                        for b in range(256))
_RUN = re.compile(r"[a-z0-9]+")


def block_tokens(data: bytes) -> frozenset[bytes]:
    """Lowercase ASCII words (runs of [a-z0-9]) of a block: the prefilter's single pass. Every other byte becomes a
    space, so splitting at b" " (memchr) gives the words and empty pieces (one shared object), faster than split()."""
    return frozenset(data.translate(_TO_LOWER_WORDS).split(b" ")).difference(_EMPTY)


_EMPTY = (b"",)


class NeedleGate:
    """Which needles can occur in a block, decided from its ASCII words (block_tokens) without searching
    the text: a word of the needle with other characters on both sides must be a word of the block, its
    first word must begin one, its last word end one, a needle that is all letters must lie inside one.
    Necessary for the needle to occur in the lowercased text (or the text), so skipping the needles it
    rules out changes nothing. Not for text where lowering makes ASCII letters (U+212A KELVIN SIGN)."""

    _plans: dict[str, tuple[tuple[bytes, ...], tuple[bytes, ...], frozenset[str]]] = {}

    def __init__(self, tokens: frozenset[bytes], low: str | None = None) -> None:
        self.tokens = tokens
        self.low = low  # the lowercased text: a character missing from it rules out non-ASCII needles
        self.chars: frozenset[str] | None = None  # the characters of `low` that are not ASCII, when known
        self._joined: bytes | None = None  # " word word … " : one C substring search per check
        self._steps: dict[bytes, bool] = {}  # step -> whether the joined words hold it

    @classmethod
    def plan(cls, needle: str) -> tuple[tuple[bytes, ...], tuple[bytes, ...], frozenset[str]]:
        """(words the block must hold, byte strings its joined words must contain, non-ASCII characters its
        text must hold) for `needle` to occur."""
        found = cls._plans.get(needle)
        if found is None:
            low = fold(needle)
            words, steps = [], []
            for match in _RUN.finditer(low):
                left, right = match.start() > 0, match.end() < len(low)
                if left and right:
                    words.append(match.group(0).encode())
                else:
                    steps.append((b" " if left else b"") + match.group(0).encode() + (b" " if right else b""))
            found = cls._plans[needle] = (tuple(words), tuple(sorted(steps, key=len, reverse=True)),
                                          frozenset(c for c in low if not c.isascii()))
        return found

    def may_hold(self, needle: str) -> bool:
        words, steps, foreign = self._plans.get(needle) or self.plan(needle)
        for word in words:
            if word not in self.tokens:
                return False
        if foreign:
            if self.chars is not None:
                if not foreign <= self.chars:
                    return False
            elif self.low is not None:
                for char in foreign:  # one C scan per character: far cheaper than the text's set of characters
                    if char not in self.low:
                        return False
        if steps:
            joined = self._joined or self.joined()
            for step in steps:
                if joined.find(step) == -1:  # find: `in` first tries the bytes as an integer
                    return False
        return True

    def joined(self) -> bytes:
        """b" word word … ": the block's words, each between spaces."""
        if self._joined is None:
            self._joined = b" " + b" ".join(self.tokens) + b" "
        return self._joined

    def holds_steps(self, steps: tuple[bytes, ...]) -> bool:
        """Whether the block's joined words hold every step (each answered once per block: rules share them)."""
        known = self._steps
        for step in steps:
            held = known.get(step)
            if held is None:
                held = known[step] = (self._joined or self.joined()).find(step) != -1
            if not held:
                return False
        return True


# Characters re.IGNORECASE matches to an ASCII letter (KELVIN SIGN k, LONG S s, DOTLESS I i): the byte
# words of a block lack that letter, so no needle gate there; `fold_lower` maps them for needle search.
_FOLDS_TO_ASCII = "\u212a\u017f\u0131"


_LOWER_MEMO: list[Any] = [None, None]  # (text, fold_lower(text)): the rule families of one block lower it once


def fold_lower(text: str, data: bytes | None = None) -> str | None:
    """text.lower() with the characters re.IGNORECASE matches to one another folded to one of them (ſ to s,
    ı to i, ς to σ… see audit_words.fold), so every match of a rule holds its folded needles there at the
    same offsets; None where lowering changes the length (offsets would not line up). `data`: the bytes
    `text` was decoded from (UTF-8, errors replaced), when at hand: its ASCII bytes lowered, then the few
    non-ASCII characters that fold to another replaced one by one, gives the same text far faster."""
    if _LOWER_MEMO[0] is text:
        memo: str | None = _LOWER_MEMO[1]
        return memo
    low: str | None = None
    if data is not None and not text.isascii():
        # a superset of the text's non-ASCII characters, and what each folds to
        changed = [(char, folded) for char in non_ascii(text, data)
                   for folded in (char.lower(),) if folded != char or char in SPECIAL_FOLDS]
        if len(changed) <= _MAX_REPLACED and all(len(folded) == 1 for _, folded in changed):
            low = data.lower().decode("utf-8", "replace")
            for char, folded in changed:  # one C pass each (Σ becomes σ wherever it is: ς folds to σ anyway)
                low = low.replace(char, fold(folded))
    if low is None:
        low = text.lower()
        low = fold_specials(low) if len(low) == len(text) else None
    _LOWER_MEMO[:] = [text, low]
    return low


_MAX_REPLACED = 8  # more characters to fold one by one than this: lower the whole text instead


# Below this many characters searching every needle costs less than building the word gate (a
# description: 0.02 ms without the gate, 0.05 ms with it).
GATE_MIN_CHARS = 1024
_GATE_MEMO: list[Any] = [None, None, None]  # (text, low, gate): the rule families of one block share one gate
_NON_ASCII_MEMO: list[Any] = [None, frozenset()]  # (text, non_ascii(text))


def non_ascii(text: str, data: bytes | None = None) -> frozenset[str]:
    """A superset of the text's non-ASCII characters (none for ASCII text), from `data`, the bytes it was decoded
    from, when at hand (audit_words.non_ascii_chars), worked out once per block."""
    if text.isascii():
        return frozenset()
    if _NON_ASCII_MEMO[0] is not text:
        _NON_ASCII_MEMO[:] = [text, non_ascii_chars(data if data is not None else text.encode("utf-8", "surrogatepass"))]
    chars: frozenset[str] = _NON_ASCII_MEMO[1]
    return chars


def gate_for(text: str, tokens: frozenset[bytes] | None = None, low: str | None = None) -> NeedleGate | None:
    """The needle gate of a block (None for short text, or where lowering makes ASCII letters: no gate, every
    needle searched)."""
    if _GATE_MEMO[0] is text and _GATE_MEMO[1] == low:
        memo: NeedleGate | None = _GATE_MEMO[2]
        return memo
    gate = None
    if len(text) >= GATE_MIN_CHARS and non_ascii(text).isdisjoint(_FOLDS_TO_ASCII):
        gate = NeedleGate(tokens if tokens is not None else block_tokens(text.encode("utf-8", "surrogatepass")), low)
    _GATE_MEMO[:] = [text, low, gate]
    return gate


_WORDS_MEMO: list[Any] = [None, None]  # (text, its BlockWords): the rule families of one block share them


def block_words(text: str, tokens: frozenset[bytes] | None, low: str | None, data: bytes | None = None
                ) -> BlockWords | None:
    """The block's words and characters when a rule's word gate (audit_words) may rule it out, else None:
    not where lowering changes lengths or a letter re.IGNORECASE folds to ASCII occurs (a word there may be
    spelled with letters the gate does not see). `data`: the bytes `text` was decoded from, when at hand."""
    if _WORDS_MEMO[0] is text:
        memo: BlockWords | None = _WORDS_MEMO[1]
        return memo
    words = None
    if low is not None:
        gate = None
        if len(text) >= GATE_MIN_CHARS:
            gate = gate_for(text, tokens, low)  # built once per block, only where no such letter occurs
            reliable = gate is not None
            tokens = gate.tokens if gate is not None else tokens
        else:
            reliable = non_ascii(text, data).isdisjoint(FOLDS_TO_ASCII)
        if reliable:
            data = data if data is not None else text.encode("utf-8", "surrogatepass")
            words = BlockWords(tokens if tokens is not None else block_tokens(data),
                               block_chars(text, data, non_ascii(text, data)))
            if gate is not None:
                # lower() writes a final sigma (ς) where a capital Σ ends a word: the lowered text may hold it
                gate.chars = words.chars | {"\u03c2"} if "\u03c3" in words.chars else words.chars
    _WORDS_MEMO[:] = [text, words]
    return words


def known_words(text: str) -> BlockWords | None:
    """The BlockWords already worked out for this very block (else None)."""
    memo: BlockWords | None = _WORDS_MEMO[1] if _WORDS_MEMO[0] is text else None
    return memo


def known_gate(text: str) -> NeedleGate | None:
    """The gate already built for this very block by a rule family that ran before (else None)."""
    memo: NeedleGate | None = _GATE_MEMO[2] if _GATE_MEMO[0] is text else None
    return memo


def word_regions(text: str, low: str, words: Iterable[str], cache: dict[str, list[tuple[int, int]]] | None = None,
                 gate: NeedleGate | None = None) -> list[tuple[int, int]]:
    """Merged (start, end) spans of the lines (capped at REGION_RADIUS around the word) where one of `words`
    occurs in `low` (= text.lower(), same length). Running a regex only there gives the matches that
    contain one of the words; linear in the text plus the occurrences. `cache`: needle → spans, shared
    by the patterns of one block so each needle is searched once."""
    spans: list[tuple[int, int]] = []
    for word in words:
        found = cache.get(word) if cache is not None else None
        if found is None:
            found = []
            at = low.find(word) if gate is None or gate.may_hold(word) else -1
            while at != -1:
                span = _line_span(text, at)
                found.append(span)
                at = low.find(word, span[1])
            if cache is not None:
                cache[word] = found
        spans.extend(found)
    return _merge(spans)


def clause_regions(text: str, low: str, clauses: Iterable[tuple[tuple[str, ...], ...]],
                   cache: dict[str, list[tuple[int, int]]] | None = None,
                   gate: NeedleGate | None = None) -> list[tuple[int, int]]:
    """Like word_regions, for a regex each of whose matches holds, for one of the clauses, a needle of every
    group of that clause: the spans around the first group's needles that also hold a needle of each
    other group (a match lies inside the span of the needle it holds, so it holds the others there too)."""
    spans: list[tuple[int, int]] = []
    for first, *rest in clauses:
        for start, end in word_regions(text, low, first, cache, gate):
            if all(any(low.find(n, start, end) != -1 for n in group) for group in rest):
                spans.append((start, end))
    return _merge(spans)


_CACHE_MEMO: list[Any] = [None, None, None]  # (text, low, needle -> spans): every rule family of one block


def needle_cache(text: str, low: str) -> dict[str, list[tuple[int, int]]]:
    """The spans of the needles already searched in this block (`low` = fold_lower(text)), shared by the
    rule families: each needle is searched once per block."""
    if _CACHE_MEMO[0] is not text or _CACHE_MEMO[1] is not low:
        _CACHE_MEMO[:] = [text, low, {}]
    cache: dict[str, list[tuple[int, int]]] = _CACHE_MEMO[2]
    return cache


_NeedleKeys = tuple[tuple[Spec, ...], frozenset[bytes], dict[bytes, tuple[Spec, ...]], frozenset[str],
                    dict[str, tuple[Spec, ...]]]
_Table = tuple[int, list[tuple[int, Clause]], list[tuple[int, int, Clause]], list[tuple[tuple[int, ...], int, Clause]], int]


class RulePlan:
    """A rule's regex with what each of its top-level alternatives needs: whole words (audit_words.WordGate) and
    needle clauses (audit_needles), derived on first use. `regions` says where in a block the regex may match;
    `finditer` runs there only the alternatives that may match there (a regex of them, compiled once)."""

    __slots__ = ("regex", "gate", "quick", "_clauses", "_table", "_keyed", "_needle_keys", "_parts", "_subsets")

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.gate = WordGate(regex, self._searched_groups)
        # bits of which a block needs one for any alternative to be chosen (-1: not worked out yet, or none needed):
        # the rule families test it before calling `choose` (most rules of most blocks go no further)
        self.quick = -1
        self._clauses: tuple[Clause, ...] | None = None
        self._table: _Table | None = None
        # with many alternatives: (their bits by the telling bit of each, those bits)
        self._keyed: tuple[dict[int, list[tuple[int, int, Clause]]], int] | None = None
        self._needle_keys: dict[int, _NeedleKeys] = {}  # alternatives of many needles: their needles by key (located)
        self._parts: list[str] | None = None  # the alternatives' sources
        self._subsets: dict[int, re.Pattern[str]] = {}  # alternatives (bit i: the i-th) -> their regex

    @property
    def clauses(self) -> tuple[Clause, ...]:
        """One per top-level alternative of the regex, in its order (audit_needles.alternative_clauses)."""
        if self._clauses is None:
            regex = self.regex
            self._clauses = audit_derived_cache.derived("clauses", regex, lambda: alternative_clauses(regex),
                                                        audit_derived_cache.encode_clauses,
                                                        audit_derived_cache.decode_clauses)
        return self._clauses

    def _searched_groups(self) -> list[Group | None]:
        """Per alternative, what its searched needles say about a block's words: each needs a word (its longest
        stands for it) or a character that is not ASCII, so the block holds one of those (None: a needle needs
        neither). Part of the alternative's bits: a block without one is ruled out with the others, at once."""
        groups: list[Group | None] = []
        for clause in self.clauses:
            words: set[bytes] = set()
            chars: set[str] = set()
            for _, needs, foreign, _ in clause[0] if clause else ((None, None, None, None),):
                if needs:  # an uncommon word if it has one (a group with a common word rules out next to nothing)
                    words.add(max(sorted(needs), key=lambda word: (word not in COMMON_WORDS, len(word))))
                elif foreign:
                    chars.add(min(foreign))
                else:
                    groups.append(None)
                    break
            else:
                groups.append(Group(frozenset(words), frozenset(chars)))
        return groups

    @property
    def table(self) -> _Table:
        """(bits of all its alternatives, (index, clause) of those needing nothing, (bits, index, clause) of the
        others, ((bits, …), index, clause) of those with several CNFs): with a block's bits (audit_words.block_bits)
        `choose` says at once which alternatives can match."""
        if self._table is None:
            union = 0
            always: list[tuple[int, Clause]] = []
            single: list[tuple[int, int, Clause]] = []
            several: list[tuple[tuple[int, ...], int, Clause]] = []
            for index, (mask, clause) in enumerate(zip(self.gate.branch_masks(), self.clauses)):
                if isinstance(mask, tuple):
                    several.append((mask, index, clause))
                    union |= functools.reduce(operator.or_, mask, 0)
                elif mask:
                    single.append((mask, index, clause))
                    union |= mask
                else:
                    always.append((index, clause))
            # the telling bit (audit_words.telling_bit) of each alternative's mask (of each of its masks when it has
            # several): a block with none of them is ruled out (-1: an alternative needs nothing)
            quick = functools.reduce(operator.or_, [telling_bit(mask) for mask, _, _ in single] +
                                     [telling_bit(mask) for masks, _, _ in several for mask in masks], 0)
            if always or any(not mask for masks, _, _ in several for mask in masks):
                quick = -1
            self._table = (union, always, single, several, quick)
            self.quick = quick
            if len(single) >= _KEYED:
                keyed: dict[int, list[tuple[int, int, Clause]]] = {}
                for entry in single:
                    keyed.setdefault(telling_bit(entry[0]), []).append(entry)
                self._keyed = (keyed, functools.reduce(operator.or_, keyed, 0))
        return self._table

    def chosen(self, words: BlockWords | None) -> list[tuple[int, Clause]]:
        """(index, clause) of the alternatives the block's words allow (all of them when `words` is None)."""
        return self.choose(block_bits(words) if words is not None else -1)

    def choose(self, bits: int) -> list[tuple[int, Clause]]:
        """(index, clause) of the alternatives a block with these bits (audit_words.block_bits; -1: nothing known)
        allows, in no particular order (none: the regex cannot match there). The rule families ask this for every
        rule of every block, so it is kept cheap."""
        union, always, single, several, quick = self._table if self._table is not None else self.table
        if bits == -1:
            return list(enumerate(self.clauses))
        if not bits & quick or not bits & union:
            return always  # no alternative needing a word has one
        if self._keyed is not None:  # only the alternatives whose telling bit the block has
            keyed, keys = self._keyed
            chosen = always.copy()
            present = bits & keys
            while present:
                key = present & -present
                chosen += [(index, clause) for mask, index, clause in keyed[key] if bits & mask == mask]
                present ^= key
        else:
            chosen = always + [(index, clause) for mask, index, clause in single if bits & mask == mask]
        if several:
            chosen += [(index, clause) for masks, index, clause in several if any(bits & mask == mask for mask in masks)]
        return chosen

    def located(self, text: str, low: str, words: BlockWords | None, cache: dict[str, list[tuple[int, int]]],
                gate: NeedleGate | None, chosen: list[tuple[int, Clause]] | None = None) -> list[tuple[int, int, int]]:
        """(start, end, alternatives) of the spans of `text` to search: the lines holding a clause of an alternative
        the block's words allow (all alternatives when `words` is None; `chosen`: those, when already worked out),
        merged, with the bits (1 << index) of the alternatives whose clauses chose each; the whole text when such an
        alternative has no needle."""
        spans: list[tuple[int, int, int]] = []
        tokens, chars = words if words is not None else (None, None)
        for index, clause in chosen if chosen is not None else self.chosen(words):
            if not clause:
                return [(0, len(text), -1)]
            bit = 1 << index
            first, rest = clause
            specs = first
            if tokens is not None and chars is not None and len(first) >= _KEYED:
                # only the needles whose key word or character the block holds (and those without one)
                keyed = self._needle_keys.get(index) or self._key_needles(index, first)
                specs = keyed[0]
                for key in keyed[1].intersection(tokens):
                    specs += keyed[2][key]
                for char in keyed[3].intersection(chars):
                    specs += keyed[4][char]
            for needle, needs, foreign, steps in specs:
                # a match holding this needle holds these words, characters and pieces of words: the block lacks one
                if needs and tokens is not None and not needs <= tokens:
                    continue
                if foreign and chars is not None and not foreign <= chars:
                    continue
                if steps and gate is not None and not gate.holds_steps(steps):
                    continue
                found = cache.get(needle)
                if found is None:
                    found = cache[needle] = []
                    at = low.find(needle)
                    while at != -1:
                        span = _line_span(text, at)
                        found.append(span)
                        at = low.find(needle, span[1])
                for start, end in found:  # a match lies inside its needle's line: the other groups' needles too
                    for group in rest:
                        for other in group:
                            if low.find(other, start, end) != -1:
                                break
                        else:
                            break
                    else:
                        spans.append((start, end, bit))
        if len(spans) < 2:
            return spans
        spans.sort()
        merged = [spans[0]]
        for start, end, bits in spans[1:]:
            last_start, last_end, last_bits = merged[-1]
            if start <= last_end:
                merged[-1] = (last_start, max(last_end, end), last_bits | bits)
            else:
                merged.append((start, end, bits))
        return merged

    def _key_needles(self, index: int, first: tuple[Spec, ...]) -> _NeedleKeys:
        """The searched needles of an alternative by a word each needs (its most telling: not common, longest) or
        else a character that is not ASCII: (those needing neither, the words, needles by word, the characters,
        needles by character). A block without a needle's key lacks the needle."""
        loose: list[Spec] = []
        by_word: dict[bytes, list[Spec]] = {}
        by_char: dict[str, list[Spec]] = {}
        for spec in first:
            _, needs, foreign, _ = spec
            if needs:
                by_word.setdefault(max(sorted(needs), key=lambda word: (word not in COMMON_WORDS, len(word))),
                                   []).append(spec)
            elif foreign:
                by_char.setdefault(min(foreign), []).append(spec)
            else:
                loose.append(spec)
        keyed = self._needle_keys[index] = (
            tuple(loose), frozenset(by_word), {word: tuple(specs) for word, specs in by_word.items()},
            frozenset(by_char), {char: tuple(specs) for char, specs in by_char.items()})
        return keyed

    def regions(self, text: str, low: str, words: BlockWords | None, cache: dict[str, list[tuple[int, int]]],
                gate: NeedleGate | None, chosen: list[tuple[int, Clause]] | None = None) -> list[tuple[int, int]]:
        """The spans of `located`, without their alternatives."""
        return [(start, end) for start, end, _ in self.located(text, low, words, cache, gate, chosen)]

    def finditer(self, text: str, low: str | None, words: BlockWords | None,
                 cache: dict[str, list[tuple[int, int]]] | None, gate: NeedleGate | None,
                 chosen: list[tuple[int, Clause]] | None = None) -> Iterator[re.Match[str]]:
        """The regex's matches in `text`: the whole text scanned when `low` is None, else in each span of `located`
        the regex of the alternatives chosen there. The same matches: at every position of a span the others cannot
        match (a match holds a clause of its alternative, in the line the span covers), so the first alternative
        that matches there, and how far, is the same, and the scan goes on from the same place."""
        if low is None or cache is None:
            yield from self.regex.finditer(text)
            return
        for start, end, alternatives in self.located(text, low, words, cache, gate, chosen):
            yield from self.subset(alternatives).finditer(text, start, end)

    def subset(self, alternatives: int) -> re.Pattern[str]:
        """The regex of the alternatives whose bits are set (in their order; -1: all of them). Where the regex
        captures groups the others stay, behind a `(?!)` that fails at once, so each group keeps its number."""
        found = self._subsets.get(alternatives)
        if found is None:
            if self._parts is None:
                self._parts = top_level_alternatives(self.regex.pattern)
            kept = [alternatives >> index & 1 for index in range(len(self._parts))]
            if alternatives == -1 or all(kept):
                found = self.regex
            elif len(self._subsets) >= _MAX_SUBSETS:
                return self.regex
            elif self.regex.groups:
                found = re.compile("|".join(part if keep else f"(?!)(?:{part})" for part, keep in zip(self._parts, kept)),
                                   self.regex.flags)
            else:
                found = re.compile("|".join(part for part, keep in zip(self._parts, kept) if keep), self.regex.flags)
            self._subsets[alternatives] = found
        return found


class PlanIndex:
    """The rules of a family whose `quick` bits a block has, found from the bits the block has instead of asking
    each rule: rules by each bit of their `quick` (-1: every block goes through to `choose`)."""

    __slots__ = ("plans", "_by_bit", "_keys", "_always")

    def __init__(self, plans: Iterable[RulePlan]) -> None:
        self.plans = tuple(plans)
        self._by_bit: dict[int, list[int]] = {}
        self._keys = -1  # not built yet
        self._always: list[int] = []

    def passing(self, bits: int) -> list[int]:
        """The positions, in order, of the rules a block with these bits (audit_words.block_bits; -1: nothing known)
        may match: the others' every alternative needs a word or character the block lacks."""
        if bits == -1:
            return list(range(len(self.plans)))
        if self._keys == -1:
            self._build()
        found = self._always.copy()
        present = bits & self._keys
        by_bit = self._by_bit
        while present:
            bit = present & -present
            found += by_bit[bit]
            present ^= bit
        return sorted(set(found))

    def _build(self) -> None:
        keys = 0
        for position, plan in enumerate(self.plans):
            quick = plan.table[4]
            if quick == -1:
                self._always.append(position)
                continue
            keys |= quick
            while quick:
                bit = quick & -quick
                self._by_bit.setdefault(bit, []).append(position)
                quick ^= bit
        self._keys = keys


_KEYED = 4  # alternatives of a rule from which they are looked up by their telling bits (fewer: each tested)
_MAX_SUBSETS = 256  # regexes of alternatives compiled per rule at most (then the whole regex serves)
