"""The one parser for inline shell in skill bodies (used by expansion, the GUI and the audit).

Port of src/utils/promptShellExecution.ts (2.1.88; identical in 2.1.332, see
tests/oracle/FINDINGS-expansion.md):
    BLOCK_PATTERN  = /```!\\s*\\n?([\\s\\S]*?)\\n?```/g
    INLINE_PATTERN = /(?<=^|\\s)!`([^`]+)`/gm
Claude Code runs `[...blockMatches, ...inlineMatches]`, each with `match[1].trim()` as the command,
skipping matches whose trimmed command is empty. Both patterns scan the ORIGINAL text, so an
inline match inside a ```! block is found (and run) as well.

JavaScript's `\\s` and `^` (with /m) differ from Python's, so the classes are spelled out.
Offsets are Python string indexes (code points), not UTF-16 units.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..js.strings import JS_WS_CLASS_BODY as JS_WS, js_trim

# JS /m `^` matches after \n, \r, U+2028, U+2029; all of those are also in JS `\s`, so the
# lookbehind reduces to "start of text, or after a JS whitespace character".
_BLOCK_RE = re.compile(rf"```![{JS_WS}]*\n?([\s\S]*?)\n?```")
_INLINE_RE = re.compile(rf"(?:^|(?<=[{JS_WS}]))!`([^`]+)`")

INLINE = "inline"
BLOCK = "block"


@dataclass(frozen=True)
class ShellSnippet:
    kind: str  # "inline" (!`cmd`) or "block" (```! … ```)
    command: str  # exactly what Claude Code hands to the shell tool (match[1] JS-trimmed)
    start: int  # offset of the match in the scanned text
    end: int  # offset just past the match
    line: int  # 1-based line of `start`
    matched: str  # the full matched text, which the command's output replaces

    @property
    def end_line(self) -> int:
        return self.line + self.matched.count("\n")

    def to_json(self) -> dict[str, str | int]:
        return {"kind": self.kind, "command": self.command, "start": self.start, "end": self.end,
                "line": self.line, "end_line": self.end_line, "matched": self.matched}


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _snippets(pattern: re.Pattern[str], kind: str, text: str, first_line: int) -> list[ShellSnippet]:
    found = []
    for match in pattern.finditer(text):
        command = js_trim(match.group(1) or "")
        if not command:  # `if (command)` in executeShellCommandsInPrompt: nothing runs
            continue
        found.append(ShellSnippet(kind, command, match.start(), match.end(),
                                  _line_at(text, match.start()) + first_line - 1, match.group(0)))
    return found


def find_inline_shell(text: str, *, first_line: int = 1) -> list[ShellSnippet]:
    """Every shell command Claude Code would run when expanding `text`, blocks first, then inline.

    `first_line` is the file line of text[0] (e.g. the body's first line), so `line` can point into
    the file rather than the body.
    """
    blocks = _snippets(_BLOCK_RE, BLOCK, text, first_line)
    # The inline scan is gated on a substring check in Claude Code; the pattern needs `!`` anyway.
    inlines = _snippets(_INLINE_RE, INLINE, text, first_line) if "!`" in text else []
    return blocks + inlines


