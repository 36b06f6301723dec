"""Split and parse SKILL.md / command files exactly as Claude Code does (spec §2).

Port of `parseFrontmatter` (src/utils/frontmatterParser.ts, 2.1.88): the front matter is the text
between a leading `---` line and the first later `---` (anywhere, even mid-line); the body is
everything after, with the whitespace that follows the closing `---` consumed. Bad YAML is
retried once with problematic values quoted; if that also fails the front matter is empty.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..js.strings import JS_DOT, JS_WHITESPACE_SET, JS_WS_CLASS_BODY, js_trim
from ..model import Diagnostic, Severity
from .yaml12 import load_simple_mapping, load_yaml12
from ..js.lazy_pattern import lazy_re

# JavaScript's \s (includes U+FEFF and the Unicode spaces), which Python's \s does not match exactly.
JS_WS = JS_WS_CLASS_BODY
_FRONT_MATTER_RE = lazy_re(rf"^---[{JS_WS}]*\n([\s\S]*?)---[{JS_WS}]*\n?")
# JS `.` does not match line terminators; `$` without /m is the end of the (per-line) string.
_JS_DOT = JS_DOT
_RETRY_LINE_RE = lazy_re(rf"^([a-zA-Z_-]+):[{JS_WS}]+({_JS_DOT}+)$")
_NEEDS_QUOTES_RE = lazy_re(r"[{}\[\]*&#!|>%@`]|: ")
BOM = "\ufeff"
_WS_RUN = lazy_re(rf"[{JS_WS}]*")


@dataclass
class ParsedDocument:
    """A SKILL.md split into its front matter (parsed) and body."""

    front_matter: dict[str, Any]
    body: str
    has_front_matter: bool
    front_matter_text: str | None = None
    yaml_recovered: bool = False  # first parse failed, the quoting retry succeeded
    yaml_error: str | None = None  # both parses failed: front matter treated as empty
    diagnostics: list[Diagnostic] = field(default_factory=list)


def quote_problematic_values(front_matter_text: str) -> str:
    """Claude Code's retry: double-quote `key: value` lines whose value has YAML-special characters."""
    out = []
    for line in front_matter_text.split("\n"):
        match = _RETRY_LINE_RE.match(line)
        if match:
            key, value = match.groups()
            quoted = (value.startswith('"') and value.endswith('"')) or (value.startswith("'") and value.endswith("'"))
            if not quoted and _NEEDS_QUOTES_RE.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{key}: "{escaped}"')
                continue
        out.append(line)
    return "\n".join(out)


def _mapping_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _split_simple(text: str) -> tuple[str, str] | None:
    """What _FRONT_MATTER_RE gives in the common case, without the regex's lazy scan: the file opens
    with `---\n` and a non-blank character, so the front matter starts right there and runs to the
    first later `---`; the closing `[ws]*\n?` then eats every JS whitespace character that follows.
    None means "not this case": the caller uses the regex (checked in tests/test_fast_paths.py)."""
    if not text.startswith("---\n") or len(text) < 5 or text[4] in JS_WHITESPACE_SET:
        return None
    end = text.find("---", 4)
    if end < 0:
        return None
    closing = _WS_RUN.match(text, end + 3)
    assert closing is not None  # `[ws]*` matches everywhere
    return text[4:end], text[closing.end():]


def _no_front_matter(text: str, path: Path | None, warn: bool = True) -> ParsedDocument:
    diagnostics = []
    if warn and text.startswith(BOM + "---"):
        diagnostics.append(Diagnostic(
            Severity.WARNING, "bom-hides-front-matter",
            "The file starts with a UTF-8 byte-order mark, so this Claude Code version does not see "
            "its front matter: the whole file, front matter included, becomes the body.", path, 1))
    return ParsedDocument({}, text, False, None, diagnostics=diagnostics)


def parse_document(text: str, *, strip_bom: bool, path: Path | None = None,
                   unique_keys: bool = True) -> ParsedDocument:
    """Split front matter from body; never raises on bad input. `unique_keys=False` reads YAML as
    Bun.YAML does (2.1.3xx: a repeated key keeps the last value, `<<` merges; yaml12.py)."""
    original = text
    if strip_bom and text.startswith(BOM):
        text = text[1:]
    split = _split_simple(text)
    if split is not None:
        fm_text, body = split
    else:
        match = _FRONT_MATTER_RE.match(text)
        if not match:
            # 2.1.332 drops a BOM only to find front matter: without one the body keeps it (probe-text
            # bomnofm-*, fuzz-reg seed 34); 2.1.88 never drops it.
            return _no_front_matter(original, path, warn=not strip_bom)
        fm_text = match.group(1) or ""
        body = text[match.end():]
    doc = ParsedDocument({}, body, True, fm_text)
    simple = load_simple_mapping(fm_text)  # most front matter: no PyYAML (nor its import) needed
    if simple is not None:
        doc.front_matter = simple
        return doc
    from .yaml12_loader import YAMLError, load_yaml12_full
    try:
        parsed = _mapping_or_none(load_yaml12_full(fm_text, unique_keys=unique_keys))
        doc.front_matter = parsed or {}
        return doc
    except (YAMLError, ValueError, RecursionError) as first_error:
        first = _short_yaml_error(first_error)
        first_line = _yaml_line(first_error)  # `first_error` is unbound after the except block
    try:
        parsed = _mapping_or_none(load_yaml12(quote_problematic_values(fm_text), unique_keys=unique_keys))
        doc.front_matter = parsed or {}
        doc.yaml_recovered = True
        doc.diagnostics.append(Diagnostic(
            Severity.WARNING, "yaml-recovered",
            f"The front matter is not valid YAML ({first}); Claude Code recovers it by quoting values "
            "that contain special characters, and so does skillmanager.", path, first_line))
    except (YAMLError, ValueError, RecursionError) as second_error:
        doc.yaml_error = _short_yaml_error(second_error)
        doc.diagnostics.append(Diagnostic(
            Severity.ERROR, "yaml-invalid",
            f"The front matter cannot be parsed ({doc.yaml_error}); Claude Code ignores all of it "
            "(no description, no settings) and uses the body alone.", path, _yaml_line(second_error)))
    return doc


def _short_yaml_error(error: BaseException) -> str:
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} at line {mark.line + 2}"  # +1 for 1-based, +1 for the opening ---
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _yaml_line(error: BaseException) -> int | None:
    mark = getattr(error, "problem_mark", None)
    return mark.line + 2 if mark is not None else None


def parse_boolean(value: Any, *, lenient: bool) -> bool:
    """`parseBooleanFrontmatter`: legacy takes only true / "true"; current also yes/on/1 spellings."""
    if value is True or value == "true":
        return True
    if lenient:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value == 1
        if isinstance(value, str):  # 2.1.332 `zIe`/`De`: String(v).toLowerCase().trim() in 1/true/yes/on
            return js_trim(value.lower()) in {"true", "yes", "on", "1"}
    return False


def description_from_body(body: str, default: str) -> str:
    """`extractDescriptionFromMarkdown`: first non-empty line, `#` heading marks stripped, 100-char cap."""
    from ..js.textwidth import utf16_len, utf16_slice

    start = 0
    while start <= len(body):  # line by line up to the first non-blank one (bodies are long)
        end = body.find("\n", start)
        if end < 0:
            end = len(body)
        line = body[start:end]
        start = end + 1
        trimmed = js_trim(line)
        if trimmed:
            heading = re.match(rf"^#+[{JS_WS}]+({_JS_DOT}+)$", trimmed)
            text = heading.group(1) if heading else trimmed
            return utf16_slice(text, 97) + "..." if utf16_len(text) > 100 else text
    return default


