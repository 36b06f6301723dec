"""Port of the npm `shell-quote` `parse` bundled in Claude Code 2.1.88 (cli.js, module `cK4`).

Legacy Claude Code splits Skill arguments with it (see arguments.py). Ported line by line, quirks
included, because the split decides which words `$0`, `$1` … receive:
- `$NAME`, `${NAME}` and `$` + one of `*@#?$!_-` go through the env callback (Claude Code passes
  `name => "$" + name`, so they stay literal); after the one-character form the next character is
  skipped (`x$$y` → `x$$`), a shell-quote bug Claude Code inherits.
- operators (`|`, `&&`, `;`, `>` …) become `{"op": …}`, unquoted `*`/`?` make the word a glob
  `{"op": "glob", "pattern": …}`, and an unquoted `#` anywhere starts a comment that swallows the rest.
- unbalanced quotes are not an error: the regex simply skips the lone quote character.
- `${}` / an unclosed `${` raise `ShellQuoteError` ("Bad substitution"), which Claude Code turns
  into its whitespace fallback.
"""
from __future__ import annotations

import re
from typing import Callable, Union

from .strings import JS_WS_CLASS_BODY as JS_WS

Token = Union[str, dict[str, str]]  # a word, or an operator / glob / comment object

_OPS = "(?:" + "|".join([r"\|\|", r"\&\&", ";;", r"\|\&", r"\<\(", r"\<\<\<", ">>", r">\&", r"<\&", "[&;()|<>]"]) + ")"
_OP_RE = re.compile("^" + _OPS + "$")
_META = "|&;()<> \t"
_DOUBLE = r'"((\\"|[^"])*?)"'
_SINGLE = r"'((\\'|[^'])*?)'"
_WORD = r"(\\['\"" + re.escape(_META) + r"]|[^" + JS_WS + r"'\"" + re.escape(_META) + r"])+"
_TOKEN_RE = re.compile("(" + _OPS + ")|(" + _WORD + "|" + _DOUBLE + "|" + _SINGLE + ")+")
_SPECIAL_VAR = re.compile(r"[*@#?$!_-]")
_NON_WORD = re.compile(r"[^A-Za-z0-9_]")  # JS /[^\w\d_]/ (ASCII \w)


class ShellQuoteError(ValueError):
    """shell-quote threw (only "Bad substitution" in the code paths Claude Code uses)."""


def _default_env(name: str) -> str:
    return "$" + name


def parse(text: str, env: Callable[[str], str | None] | None = None) -> list[Token]:
    """shell-quote `parse(text, env)`: strings for words, dicts for operators, globs and comments."""
    env = env or _default_env
    # JS strings are UTF-16: work on code units so that the skip quirk can split an emoji like Node does.
    text = _to_utf16_units(text)
    matches = list(_TOKEN_RE.finditer(text))
    if not matches:
        return []
    out: list[Token] = []
    stop = False  # a comment ends the parse: later matches return undefined
    for match in matches:
        if stop:
            break
        result = _parse_match(text, match, env)
        if result is None:
            continue
        tokens, stop = result
        out.extend(tokens)
    return [_rejoin(t) for t in out]


_ASTRAL_RE = re.compile("[\U00010000-\U0010FFFF]")


def _to_utf16_units(s: str) -> str:
    def split(m: re.Match[str]) -> str:
        cp = ord(m.group()) - 0x10000
        return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))
    return _ASTRAL_RE.sub(split, s)


def _rejoin(token: Token) -> Token:
    if isinstance(token, str):
        return join_surrogates(token)
    return {k: join_surrogates(v) if isinstance(v, str) else v for k, v in token.items()}


def join_surrogates(s: str) -> str:
    """Pair adjacent surrogate code points back into one character (a lone one stays, as in JS)."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _parse_match(text: str, match: re.Match[str], env: Callable[[str], str | None]) -> tuple[list[Token], bool] | None:
    s = match.group(0)
    if not s:
        return None
    if _OP_RE.match(s):
        return [{"op": s}], False
    quote = ""  # the open quote character, "" when outside quotes
    escaped = False
    out = ""
    is_glob = False
    i = 0

    def get_var() -> str:
        nonlocal i
        i += 1
        ch = s[i] if i < len(s) else ""
        if ch == "{":
            i += 1
            if (s[i] if i < len(s) else "") == "}":
                raise ShellQuoteError(join_surrogates("Bad substitution: " + s[i - 2:i + 1]))
            close = s.find("}", i)
            if close < 0:
                raise ShellQuoteError(join_surrogates("Bad substitution: " + s[i:]))
            name = s[i:close]
            i = close
        elif ch and _SPECIAL_VAR.match(ch):
            name = ch
            i += 1  # the loop's own i += 1 then skips one more character (upstream quirk)
        else:
            rest = s[i:]
            non_word = _NON_WORD.search(rest)
            if not non_word:
                name = rest
                i = len(s)
            else:
                name = rest[:non_word.start()]
                i += non_word.start() - 1
        value = env(name)
        return value if value is not None else ("" if name != "" else "$")

    while i < len(s):
        ch = s[i]
        is_glob = is_glob or (not quote and ch in "*?")
        if escaped:
            out += ch
            escaped = False
        elif quote:
            if ch == quote:
                quote = ""
            elif quote == "'":
                out += ch
            elif ch == "\\":
                i += 1
                ch = s[i] if i < len(s) else ""
                out += ch if ch in ('"', "\\", "$") else "\\" + ch
            elif ch == "$":
                out += get_var()
            else:
                out += ch
        elif ch in ('"', "'"):
            quote = ch
        elif _OP_RE.match(ch):
            return [{"op": s}], False
        elif ch == "#":
            comment = {"comment": text[match.start() + i + 1:]}
            return ([out, comment] if out else [comment]), True
        elif ch == "\\":
            escaped = True
        elif ch == "$":
            out += get_var()
        else:
            out += ch
        i += 1
    if is_glob:
        return [{"op": "glob", "pattern": out}], False
    return [out], False
