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

from ..js.strings import JS_WS_CLASS_BODY as JS_WS, js_split_whitespace, js_trim
from ..versions.features import Feature
from ..versions.profiles import Profile
from ..js.shell_quote import ShellQuoteError, parse as shell_quote_parse
from ..js.textwidth import utf16_len

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


def _blank(text: str | None) -> bool:
    return not text or not js_trim(text)


def split_arguments(args: str | None, profile: Profile) -> list[str]:
    """The argument words `$0`, `$1` … refer to."""
    if args is None or _blank(args):
        return []
    if profile.supports(Feature.ARGS_SPLIT_SHELL_QUOTE):
        # argumentSubstitution.ts parseArguments: `$VAR` stays literal through the env callback
        try:
            tokens = shell_quote_parse(args, lambda name: "$" + name)
        except ShellQuoteError:
            return js_split_whitespace(args)
        return [t for t in tokens if isinstance(t, str)]
    words = first_command_words(args)
    return words if words else js_split_whitespace(args)


# --- current: first simple command of a bash parse ------------------------------------------------
# Claude Code (current `mP`, legacy src/utils/bash/parser.ts extractCommandArguments) parses the args
# with its pure-TS tree-sitter-bash-compatible parser (src/utils/bash/bashParser.ts), takes the first
# `command` node and keeps: the command name (raw text for `$VAR`, `$(x)` …, quotes stripped by
# `stripQuotes` otherwise), then `word`/`number` (backslash escapes removed), `string`/`raw_string`
# (outer quotes stripped, inside left as written) and concatenations of those; standalone expansions
# (`$VAR`, `${X}`, `$((…))`, `$'…'`, `$"…"`) are skipped, a command/process substitution ends the list.
# This module scans the same tokens (bashParser.ts `nextToken`) without building the tree.

_BLANKS = " \t\r"  # bashParser.ts skipBlanks: \r is whitespace (tree-sitter extras)
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.-+:@%,~^?*!=[]{}")
_METACHARS = "|&;()<>\n"
_ARGUMENT_PARTS = {"word", "number", "string", "raw_string"}
_SUBSTITUTIONS = {"command_substitution", "process_substitution"}
_DECLARATIONS = {"export", "declare", "typeset", "readonly", "local"}
_REDIRECT = re.compile(r"[0-9]*(?:&>>|&>|>>|>&-|>&|>\||<<<|<<-|<<|<&-|<&|<>|>|<)")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?\+?=")
_JS_DOT_ESCAPE = re.compile(r"\\([^\n\r\u2028\u2029])")


class _Part:
    __slots__ = ("kind", "raw")

    def __init__(self, kind: str, raw: str) -> None:
        self.kind = kind
        self.raw = raw

    def value(self) -> str:
        """bashParser `Pe`: words lose their backslashes, everything else only its outer quotes."""
        if self.kind in ("word", "number"):
            return _JS_DOT_ESCAPE.sub(r"\1", self.raw)
        return _strip_quotes(self.raw)


def _strip_quotes(text: str) -> str:
    if len(text) >= 2 and ((text[0] == '"' and text[-1] == '"') or (text[0] == "'" and text[-1] == "'")):
        return text[1:-1]
    return text


def first_command_words(text: str) -> list[str]:
    """The words current's `mP` returns for an argument string ([] → the caller splits on whitespace).

    Longer than 10,000 characters → [] (as Claude Code). Not modelled: compound commands
    (`if`, `for`, `case` …), heredoc bodies, `[[ … ]]` tests; they are read as plain words.
    """
    if not text or len(text) > CURRENT_MAX_PARSE:
        return []
    return _first_command(text)


def _skip_blanks(s: str, i: int) -> int:
    """Blanks and line continuations. current reads `\\<space>` as an escaped-space word (2.1.88's
    parser skipped it as whitespace; captures fuzz-expand-7)."""
    n = len(s)
    while i < n:
        if s[i] in _BLANKS:
            i += 1
        elif s.startswith("\\\n", i):
            i += 2
        elif s.startswith("\\\r\n", i):
            i += 3
        else:
            break
    return i


_RESERVED_PREFIX = {"if", "then", "else", "elif", "while", "until", "do", "!"}


def _first_command(s: str) -> list[str]:
    n = len(s)
    i = 0
    assigned = False
    # before the command name: empty statements, operators (error recovery), comments, subshell
    # parentheses, redirections with their target, variable assignments, `if`/`while` … keywords
    while True:
        i = _skip_blanks(s, i)
        if i >= n:
            return []
        ch = s[i]
        if ch in "\n;&|()}" or (ch == "{" and (i + 1 >= n or s[i + 1] in " \t\n")):
            i += 1  # empty statements, stray operators, `(`/`{` opening a subshell or group
            continue
        if ch == "#":
            while i < n and s[i] != "\n":
                i += 1
            continue
        if s.startswith("[[", i) and (i + 2 >= n or s[i + 2] in " \t"):
            close = s.find("]]", i + 2)  # a `[[ … ]]` test first: the command after it counts
            i = n if close < 0 else close + 2
            continue
        redirect = _redirect_at(s, i)
        if redirect:
            i = _skip_blanks(s, redirect.end())
            if i < n and s[i] not in _METACHARS:
                _parts, i = _scan_word(s, i)
            continue
        assignment = _ASSIGNMENT.match(s, i)
        if assignment:
            assigned = True
            i = assignment.end()
            if i < n and s[i] not in _BLANKS and s[i] not in _METACHARS:
                _parts, i = _scan_word(s, i)
            continue
        end = i
        while end < n and s[end] not in _BLANKS and s[end] not in _METACHARS:
            end += 1
        if s[i:end] in _RESERVED_PREFIX:
            i = end
            continue
        if ch == "[":  # `[ab] x` → a test command: its first word is dropped (expand-argsplit, fuzz-expand-8);
            # with a redirection later in the command only the `[` goes (`[ab] Ω 2>&1` → `ab]`, Ω); a `>` inside
            # quotes or a comment is no redirection (expand-argsplit2: `[ab] x "2>&1" y` → x, 2>&1, y)
            i = i + 1 if _redirection_follows(s, end) else end
            continue
        if ch == "`":  # a leading backquote is dropped and the rest read on (expand-argsplit2: `` `id` a b `` →
            i += 1  # `id` a b`, one word: `id` then a backquote substitution that runs to the end)
            continue
        break
    parts, i = _scan_word(s, i)
    if not parts:
        return []
    if len(parts) == 1 and parts[0].kind == "word" and parts[0].raw in _DECLARATIONS:
        return [parts[0].raw]
    has_substitution = any(p.kind in _SUBSTITUTIONS for p in parts)
    if assigned and len(parts) == 1 and parts[0].kind in _SUBSTITUTIONS:
        return []  # `FOO=bar $(x) …` is not read as a command (whitespace split) — expand-argsplit; a name that
        # only contains one is (`FOO=bar  $(whoami)\u3000` → one word, fuzz-expand-123)
    if len(parts) > 1:
        name = "".join(p.raw for p in parts) if has_substitution else "".join(p.value() for p in parts)
    else:
        name = parts[0].value()
    words = [name]
    while True:
        i = _skip_blanks(s, i)
        if i >= n:
            break
        ch = s[i]
        if ch in _METACHARS or ch == "#" or _redirect_at(s, i):
            break  # operator, comment, or a redirection (its targets swallow the rest of the command)
        parts, i = _scan_word(s, i)
        if not parts or any(p.kind in _SUBSTITUTIONS for p in parts):
            break
        if i < n and s[i] == "(":
            break  # `name(` reads as a function definition: the word and the rest are dropped
        if len(parts) == 1 and parts[0].kind not in _ARGUMENT_PARTS:
            continue  # a lone `$VAR`, `${X}`, `$((…))`, `$'…'`, `$"…"` is not an argument
        words.append("".join(p.value() for p in parts))
    if _redirect_later_in_chain(s, i):
        return []
    return words


def _redirect_at(s: str, i: int) -> re.Match[str] | None:
    """A redirection operator at s[i] (`<(`/`>(` start a process substitution instead)."""
    found = _REDIRECT.match(s, i)
    if found and found.group(0)[-1] in "<>" and s.startswith("(", found.end()):
        return None
    return found


def _redirect_later_in_chain(s: str, i: int) -> bool:
    """After `a |`, `a ||` or `a &&`, a later command with a redirection (`a || b>c`) makes the parse
    fail, so the whole string is split on whitespace (bashParser.ts, expand-argsplit)."""
    n = len(s)
    i = _skip_blanks(s, i)
    if not (s.startswith("|", i) or s.startswith("&&", i)):
        return False
    has_word = False  # `a || >> x` parses; `a || b >> x` does not (fuzz-expand-3, expand-argsplit)
    while i < n:
        i = _skip_blanks(s, i)
        if i >= n or s[i] in ";\n" or (s[i] == "&" and not s.startswith("&&", i) and not s.startswith("&>", i)):
            return False
        if s.startswith(("&&", "||", "|&"), i) or s[i] in "|()":
            has_word = False
            i += 2 if s.startswith(("&&", "||", "|&"), i) else 1
            continue
        redirect = _redirect_at(s, i)
        if redirect:
            if has_word:
                return True
            i = redirect.end()
            continue
        has_word = True
        if s[i] == "#":
            return False
        parts, j = _scan_word(s, i)
        i = j if j > i else i + 1
    return False


def _match_close(s: str, i: int, open_ch: str, close_ch: str) -> int:
    """Index after the `close_ch` balancing an already-open `open_ch` (quotes skipped), or len(s)."""
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ch == "(":
            close = s.find("'", i + 1)
            i = n if close < 0 else close + 1
            continue
        if c == '"':
            i = _double_quoted_end(s, i + 1)
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _double_quoted_end(s: str, i: int) -> int:
    """Index after the closing `"` of a string whose opening quote is before i (len(s) if none)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and s.startswith("$(", i):
            i = _match_close(s, i + 2, "(", ")")
            continue
        if c == "`":
            close = _backtick_end(s, i + 1)
            i = close
            continue
        i += 1
    return n


def _backtick_end(s: str, i: int) -> int:
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "`":
            return i + 1
        i += 1
    return n


def _scan_word(s: str, i: int) -> tuple[list[_Part], int]:
    """The parts of one shell word starting at s[i] (a concatenation when more than one)."""
    n = len(s)
    parts: list[_Part] = []
    first = True
    while i < n:
        c = s[i]
        if c in _BLANKS or c in "|&;()\n":
            break
        if c == "\\" and not first and s.startswith("\\\n", i):
            break  # a line continuation between parts separates words
        if c in "<>":
            if i + 1 < n and s[i + 1] == "(":
                end = _match_close(s, i + 2, "(", ")")
                parts.append(_Part("process_substitution", s[i:end]))
                i = end
                first = False
                continue
            break
        if c == "#" and first:
            break
        first = False
        if c == '"':
            end = min(_double_quoted_end(s, i + 1), n)
            parts.append(_Part("string", s[i:end]))
            i = end
        elif c == "'":
            close = s.find("'", i + 1)
            end = n if close < 0 else close + 1
            parts.append(_Part("raw_string", s[i:end]))
            i = end
        elif c == "`":
            end = _backtick_end(s, i + 1)
            parts.append(_Part("command_substitution", s[i:end]))
            i = end
        elif c == "$":
            part, i = _scan_dollar(s, i)
            parts.append(part)
        elif c == "{" and "'" in s[i:_word_end(s, i)]:
            end = _word_end(s, i)  # `{'sq` reads literally up to the next blank (expand-argsplit)
            parts.append(_Part("word", s[i:end]))
            i = end
        else:
            start = i
            while i < n:
                ch = s[i]
                if ch == "\\":
                    if i + 1 >= n:
                        break  # a trailing `\` is not part of the word (dropped: fuzz-expand-9)
                    if s[i + 1] == "\n":
                        break  # a line continuation ends the word (`a\\<newline>b` → a, b)
                    i += 2
                    continue
                if ch not in _WORD_CHARS:
                    break
                i += 1
            if i == start:
                if ch == "\\":
                    i = n if i + 1 >= n else i + 2  # a lone trailing `\` / a continuation: no word
                    break
                i += 1  # any other character is a one-character word
            raw = s[start:i]
            kind = "number" if re.fullmatch(r"-?[0-9]+", raw) else "word"
            if parts and parts[-1].kind == "word" and kind == "word":
                parts[-1] = _Part("word", parts[-1].raw + raw)
            else:
                parts.append(_Part(kind, raw))
    return parts, i


def _word_end(s: str, i: int) -> int:
    while i < len(s) and s[i] not in _BLANKS and s[i] not in _METACHARS:
        i += 1
    return i


def _scan_dollar(s: str, i: int) -> tuple[_Part, int]:
    n = len(s)
    nxt = s[i + 1] if i + 1 < n else ""
    if s.startswith("$((", i):
        end = _match_close(s, i + 3, "(", ")")
        if end < n and s[end] == ")":
            end += 1
        return _Part("arithmetic_expansion", s[i:end]), end
    if nxt == "(":
        end = _match_close(s, i + 2, "(", ")")
        return _Part("command_substitution", s[i:end]), end
    if nxt == "{":  # `${X {a,b}` ends at the first `}`; an unclosed one runs to the end (captures)
        close = s.find("}", i + 2)
        end = n if close < 0 else close + 1
        return _Part("expansion", s[i:end]), end
    if nxt == "'":
        j = i + 2
        while j < n and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        end = min(j + 1, n)
        return _Part("ansi_c_string", s[i:end]), end
    if nxt == '"':  # `$"…"`: the parser reads a `$` then a string (`$"loc"` → `$loc`)
        return _Part("word", "$"), i + 1
    if nxt and (nxt.isascii() and (nxt.isalpha() or nxt == "_")):
        j = i + 1
        while j < n and s[j].isascii() and (s[j].isalnum() or s[j] == "_"):
            j += 1
        return _Part("simple_expansion", s[i:j]), j
    if nxt and (nxt in "0123456789@*#?$!-"):
        return _Part("simple_expansion", s[i:i + 2]), i + 2
    return _Part("dollar", "$"), i + 1  # a lone `$` is no argument (`a $&` → a), but joins a word


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


def substitute_arguments(content: str, args: str | None, profile: Profile, argument_names: Sequence[str] = (),
                         *, append_if_no_placeholder: bool = True,
                         value_transform: Callable[[str], str] | None = None,
                         pre_transform: Callable[[str, Callable[[str], str]], str] | None = None) -> str:
    """`$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name` → values, per profile.

    current only: `pre_transform(text, protect)` runs first (Claude Code substitutes
    `${CLAUDE_SKILL_DIR}` etc. there, protecting what it inserts) and `value_transform` is applied
    to every inserted value (`!` escaping and `${CLAUDE_…}` in arguments).
    """
    if not profile.supports(Feature.ARGS_SUBSTITUTION_SINGLE_PASS):
        return _substitute_legacy(content, args, profile, list(argument_names), append_if_no_placeholder)
    return _substitute_current(content, args, profile, list(argument_names), append_if_no_placeholder,
                               value_transform, pre_transform)


def _substitute_legacy(content: str, args: str | None, profile: Profile, names: list[str], append: bool) -> str:
    if args is None:
        return content
    parsed = split_arguments(args, profile)
    original = content
    for i, name in enumerate(names):
        if not name:
            continue
        try:  # the name is used as regex source, unescaped (argumentSubstitution.ts)
            pattern = re.compile(r"\$" + _js_dollar_anchors(name) + rf"(?![\[{_ASCII_WORD}])")
        except re.error:
            continue
        content = js_replace_string(content, pattern, parsed[i] if i < len(parsed) else "")
    content = re.sub(r"\$ARGUMENTS\[([0-9]+)\]", lambda m: _nth(parsed, m.group(1), ""), content)
    content = re.sub(rf"\$([0-9]+)(?![{_ASCII_WORD}])", lambda m: _nth(parsed, m.group(1), ""), content)
    content = js_replace_string(content, re.compile(re.escape("$ARGUMENTS")), args)
    if content == original and append and args:
        content = content + f"\n\nARGUMENTS: {args}"
    return content


def _js_dollar_anchors(source: str) -> str:
    """JS regex source → Python: a bare `$` is the end of the input in JS (no `m` flag) but also matches before
    a final newline in Python; `\\Z` is JS's meaning (expand-fuzz seed 111: `arguments: ["$"]` leaves a
    trailing `$$` alone in 2.1.88)."""
    out, escaped, in_class = [], False, False
    for ch in source:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "$" and not in_class:
            out.append(r"\Z")
            continue
        out.append(ch)
    return "".join(out)


def _redirection_follows(s: str, i: int) -> bool:
    """Whether a redirection starts a word later in this command (quotes and a comment hide one)."""
    n = len(s)
    while True:
        i = _skip_blanks(s, i)
        if i >= n or s[i] in ";|&\n" or s[i] == "#":
            return False
        if _redirect_at(s, i):
            return True
        if s[i] in _METACHARS:
            return False
        _parts, after = _scan_word(s, i)
        if after <= i:
            return False
        i = after


def _nth(values: list[str], index_text: str, default: str) -> str:
    index = int(index_text)
    return values[index] if index < len(values) else default


def protect(value: str) -> str:
    """current `Jmn`: wrap an inserted value so later passes leave its `$` alone."""
    return _UUE + value.replace(_LQ, "\ufffd").replace(_UUE, "\ufffd").replace("$", _LQ) + _UUE


def _substitute_current(content: str, args: str | None, profile: Profile, names: list[str], append: bool,
                        value_transform: Callable[[str], str] | None,
                        pre_transform: Callable[[str, Callable[[str], str]], str] | None) -> str:
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
            words = split_arguments(args, profile)
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

        def named_value(m: re.Match[str], index: int = i) -> str:
            return mark(insert(word(index)))
        content = pattern.sub(named_value, content)

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
