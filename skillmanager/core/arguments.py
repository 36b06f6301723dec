"""Skill arguments: splitting and `$…` substitution, per profile (tests/oracle/FINDINGS-expansion.md).

legacy = src/utils/argumentSubstitution.ts (2.1.88): shell-quote split, then plain JS string
replacements, which interpret `$$`, `$&`, `` $` `` and `$'` in the inserted text and let later passes
re-substitute earlier insertions. current = `_vt`/`tTi` in the 2.1.332 binary: the first simple
command's words (tree-sitter-bash in Claude Code, approximated here), inserted values protected from
later passes, `\\$` escapes, missing indexes left literal, named arguments longest first.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from .frontmatter import JS_WS, js_trim
from .profiles import LEGACY, Profile, get_profile
from .shell_quote import ShellQuoteError, parse as shell_quote_parse
from .textwidth import utf16_len

_JS_SPLIT_WS = re.compile(f"[{JS_WS}]+")
_ASCII_WORD = "A-Za-z0-9_"
CURRENT_MAX_PARSE = 10_000  # `mP`: longer argument strings are not parsed (whitespace fallback)
CURRENT_MAX_TOTAL = 4_000_000  # `kcs`: body + inserted arguments, UTF-16 units
CURRENT_MAX_NAMES = 64  # `Fxr` names, each at most `$xr` = 64 chars
_LQ = "\uffff"  # current's marker for a protected `$`
_UUE = "\ufffe"  # current's marker around an inserted value


class ArgumentsTooLong(ValueError):
    """current refuses a skill whose text plus inserted arguments exceeds 4,000,000 characters."""

    MESSAGE = ("This skill, command or hook and the arguments filled into it add up to more than 4,000,000 "
               "characters. Use shorter arguments or fewer placeholders such as $ARGUMENTS.")

    def __init__(self) -> None:
        super().__init__(self.MESSAGE)


def js_split_whitespace(text: str) -> list[str]:
    """`text.split(/\\s+/).filter(Boolean)`."""
    return [part for part in _JS_SPLIT_WS.split(text) if part]


def _blank(text: str | None) -> bool:
    return not text or not js_trim(text)


def split_arguments(args: str | None, profile: Profile | str) -> list[str]:
    """The argument words `$0`, `$1` … refer to."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    if _blank(args):
        return []
    if profile.name == LEGACY:
        # argumentSubstitution.ts parseArguments: `$VAR` stays literal through the env callback
        try:
            tokens = shell_quote_parse(args, lambda name: "$" + name)
        except ShellQuoteError:
            return js_split_whitespace(args)
        return [t for t in tokens if isinstance(t, str)]
    words = first_command_words(args)
    return words if words else js_split_whitespace(args)


def parse_argument_names(value) -> list[str]:
    """`arguments:` front matter → names (parseArgumentNames; same in current `PIe`)."""
    def valid(name) -> bool:
        return isinstance(name, str) and name.strip() != "" and not re.fullmatch(r"[0-9]+", name)
    if isinstance(value, list):
        return [n for n in value if valid(n)]
    if isinstance(value, str):
        return [n for n in js_split_whitespace(value) if valid(n)]
    return []


# --- current: first simple command of a bash parse ------------------------------------------------

_BLANKS = " \t"
_STOP_CHARS = "|&;()<>\n"


class _BashParseError(ValueError):
    pass


def first_command_words(text: str) -> list[str]:
    """Approximates current's `mP`: tree-sitter-bash parse, first simple command, its words.

    Implemented: blanks separate words; quotes are removed ('…' literal, "…" with \\" \\\\ \\$ \\` escapes);
    a backslash escapes the next character outside quotes (a backslash-newline joins lines); `$VAR`,
    `${…}` and globs stay literal; the command ends at `|`, `&`, `;`, `(`, `)`, a newline or a comment
    (`#` at a word start); redirections (`>`, `<`, `2>&1`, `>>` …) and their targets are skipped;
    a command substitution (`$(…)`, backticks) or process substitution ends the word list.
    An unbalanced quote is a parse error: [] (the caller then splits on whitespace).
    Not modelled: `$'…'`/`$"…"` strings, heredocs, arithmetic, assignments, compound commands — they
    are taken as plain words. Longer than 10,000 characters → [] (as Claude Code).
    """
    if not text or len(text) > CURRENT_MAX_PARSE:
        return []
    try:
        return _scan_first_command(text)
    except _BashParseError:
        return []


def _scan_first_command(s: str) -> list[str]:
    words: list[str] = []
    i, n = 0, len(s)
    while i < n:
        # blanks between words
        while i < n and s[i] in _BLANKS:
            i += 1
        if i >= n:
            break
        ch = s[i]
        if ch == "\\" and i + 1 < n and s[i + 1] == "\n":
            i += 2
            continue
        if ch == "\n" or ch in "|&;()":
            if not words:
                if ch == "\n":
                    i += 1
                    continue
                raise _BashParseError("command starts with an operator")
            break
        if ch == "#":
            break
        redirect = re.match(r"[0-9]*(?:&>>|&>|>>|>&|<&|>\||<<<|<>|>|<)", s[i:])
        if redirect and (redirect.group(0)[0] in "<>&" or redirect.group(0)[-1] in "<>&|"):
            i += redirect.end()
            while i < n and s[i] in _BLANKS:
                i += 1
            target, i, stop = _scan_word(s, i)
            if stop:
                break
            if target is None:
                raise _BashParseError("redirection without a target")
            continue
        word, i, stop = _scan_word(s, i)
        if word is not None and not stop:
            words.append(word)
        if stop:
            break
    return words


def _scan_word(s: str, i: int) -> tuple[str | None, int, bool]:
    """One word from s[i]: (text or None if none, next index, stop = a substitution ended the command)."""
    n = len(s)
    out = []
    start = i
    while i < n:
        ch = s[i]
        if ch in _BLANKS or ch in _STOP_CHARS:
            break
        if ch == "\\":
            if i + 1 < n:
                if s[i + 1] != "\n":
                    out.append(s[i + 1])
                i += 2
                continue
            i += 1
            continue
        if ch == "'":
            close = s.find("'", i + 1)
            if close < 0:
                raise _BashParseError("unterminated single quote")
            out.append(s[i + 1:close])
            i = close + 1
            continue
        if ch == '"':
            i += 1
            while True:
                if i >= n:
                    raise _BashParseError("unterminated double quote")
                c = s[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and s[i + 1] in '"\\$`\n':
                    if s[i + 1] != "\n":
                        out.append(s[i + 1])
                    i += 2
                    continue
                if c == "`" or (c == "$" and i + 1 < n and s[i + 1] == "("):
                    return None, i, True
                out.append(c)
                i += 1
            continue
        if ch == "`" or (ch == "$" and i + 1 < n and s[i + 1] == "("):
            return None, i, True
        if ch == "$" and i + 1 < n and s[i + 1] == "{":
            close = s.find("}", i + 2)
            if close < 0:
                raise _BashParseError("unterminated ${")
            out.append(s[i:close + 1])
            i = close + 1
            continue
        out.append(ch)
        i += 1
    if i == start:
        return None, i, False
    return "".join(out), i, False


# --- substitution ------------------------------------------------------------------------------

def js_replacement(template: str, match_text: str, before: str, after: str) -> str:
    """Expand a JS String.replace replacement string for a pattern without capture groups."""
    out = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "$" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt == "&":
                out.append(match_text)
                i += 2
                continue
            if nxt == "`":
                out.append(before)
                i += 2
                continue
            if nxt == "'":
                out.append(after)
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def js_replace_string(text: str, pattern: re.Pattern[str], replacement: str) -> str:
    """`text.replace(/pattern/g, "replacement")` with JS `$` patterns in the replacement."""
    if "$" not in replacement:
        return pattern.sub(lambda m: replacement, text)
    return pattern.sub(lambda m: js_replacement(replacement, m.group(0), text[:m.start()], text[m.end():]), text)


def substitute_arguments(content: str, args: str | None, profile: Profile | str, argument_names: Sequence[str] = (),
                         *, append_if_no_placeholder: bool = True,
                         value_transform: Callable[[str], str] | None = None,
                         pre_transform: Callable[[str, Callable[[str], str]], str] | None = None) -> str:
    """`$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name` → values, per profile.

    current only: `pre_transform(text, protect)` runs first (Claude Code substitutes
    `${CLAUDE_SKILL_DIR}` etc. there, protecting what it inserts) and `value_transform` is applied
    to every inserted value (`!` escaping and `${CLAUDE_…}` in arguments).
    """
    profile = get_profile(profile) if isinstance(profile, str) else profile
    if profile.name == LEGACY:
        return _substitute_legacy(content, args, list(argument_names), append_if_no_placeholder)
    return _substitute_current(content, args, list(argument_names), append_if_no_placeholder,
                               value_transform, pre_transform)


def _substitute_legacy(content: str, args: str | None, names: list[str], append: bool) -> str:
    if args is None:
        return content
    parsed = split_arguments(args, LEGACY)
    original = content
    for i, name in enumerate(names):
        if not name:
            continue
        try:  # the name is used as regex source, unescaped (argumentSubstitution.ts)
            pattern = re.compile(r"\$" + name + rf"(?![\[{_ASCII_WORD}])")
        except re.error:
            continue
        content = js_replace_string(content, pattern, parsed[i] if i < len(parsed) else "")
    content = re.sub(r"\$ARGUMENTS\[([0-9]+)\]", lambda m: _nth(parsed, m.group(1), ""), content)
    content = re.sub(rf"\$([0-9]+)(?![{_ASCII_WORD}])", lambda m: _nth(parsed, m.group(1), ""), content)
    content = js_replace_string(content, re.compile(re.escape("$ARGUMENTS")), args)
    if content == original and append and args:
        content = content + f"\n\nARGUMENTS: {args}"
    return content


def _nth(values: list[str], index_text: str, default: str) -> str:
    index = int(index_text)
    return values[index] if index < len(values) else default


def protect(value: str) -> str:
    """current `Jmn`: wrap an inserted value so later passes leave its `$` alone."""
    return _UUE + value.replace(_LQ, "\ufffd").replace(_UUE, "\ufffd").replace("$", _LQ) + _UUE


def _substitute_current(content: str, args: str | None, names: list[str], append: bool,
                        value_transform, pre_transform) -> str:
    if args is None:
        return pre_transform(content, lambda v: v) if pre_transform else content
    content = content.replace(_LQ, "\ufffd").replace(_UUE, "\ufffd")
    if pre_transform:
        content = pre_transform(content, protect)
    total = utf16_len(content)
    words: list[str] | None = None

    def word(i: int) -> str | None:
        nonlocal words
        if words is None:
            words = split_arguments(args, "current")
        return words[i] if i < len(words) else None

    def insert(value: str | None) -> str:
        nonlocal total
        raw = value or ""
        shown = value_transform(raw) if value_transform else raw
        total += max(utf16_len(raw), utf16_len(shown))
        if total > CURRENT_MAX_TOTAL:
            raise ArgumentsTooLong()
        return protect(shown)

    named = [(name, i) for i, name in enumerate(names) if name and len(name) <= CURRENT_MAX_NAMES][:CURRENT_MAX_NAMES]
    named.sort(key=lambda item: -len(item[0]))  # stable: equal lengths keep declaration order
    lookahead = "|".join(["[0-9]", "ARGUMENTS"] + [re.escape(n) + rf"(?![\[{_ASCII_WORD}])" for n, _ in named])
    content = re.sub(r"(?<!\\)\\\$(?=" + lookahead + ")", _LQ, content)  # `\$0` → literal `$0`
    replaced = False

    def mark(value: str) -> str:
        nonlocal replaced
        replaced = True
        return value

    for name, i in named:
        pattern = re.compile(r"\$" + re.escape(name) + rf"(?![\[{_ASCII_WORD}])")
        content = pattern.sub(lambda m, i=i: mark(insert(word(i))), content)

    def indexed(m: re.Match[str]) -> str:
        value = word(int(m.group(1)))
        return _LQ + m.group(0)[1:] if value is None else mark(insert(value))
    content = re.sub(r"\$ARGUMENTS\[([0-9]+)\]", indexed, content)

    def positional(m: re.Match[str]) -> str:
        value = word(int(m.group(1)))
        return m.group(0) if value is None else mark(insert(value))
    content = re.sub(rf"\$([0-9]+)(?![{_ASCII_WORD}])", positional, content)
    content = re.sub(re.escape("$ARGUMENTS"), lambda m: mark(insert(args)), content)
    if not replaced and append and args:
        content = content + "\n\nARGUMENTS: " + insert(args)
    return content.replace(_LQ, "$").replace(_UUE, "")


def escape_shell_bangs(text: str) -> str:
    """current `uG`: inserted values cannot start inline shell (`!`cmd`` / a `!` after whitespace)."""
    text = text.replace("`!", "` !").replace("!`", "! `")
    return re.sub(rf"(^|[{JS_WS}])!", lambda m: m.group(1) + "\\!", text, flags=re.M)
