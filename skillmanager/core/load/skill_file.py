"""Turn one SKILL.md / command file into a `Skill`, with the field rules of Claude Code.

Port of parseSkillFrontmatterFields + parseSkillPaths (src/skills/loadSkillsDir.ts) and
createPluginCommand (src/utils/plugins/loadPluginCommands.ts) for the description fallback labels.
"""
from __future__ import annotations

import logging
import os
import re
import stat as _stat
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, TypedDict

from .frontmatter import ParsedDocument, description_from_body, parse_boolean, parse_document
from ..model import Diagnostic, FileBodySkill, Severity, Skill, SkillKind, SourceKind
from . import input_trace, parse_cache
from ..versions.features import Feature
from ..versions.profiles import Profile
from .safe_read import READ_AHEAD_SUPPORTED, ReadAhead, read_text_file
from .yaml12 import js_string
from ..js.strings import js_split_whitespace, js_trim
from ..rules.path_patterns import parse_paths
from ..js.lazy_pattern import lazy_re

_LONE_SURROGATE = lazy_re("[\\ud800-\\udfff]")  # in a Python str a pair is one code point: any surrogate is lone

log = logging.getLogger(__name__)

# Where a FileBodySkill's body is: (path text, stat key at the scan, body offset, strip BOM, unique keys)
BodySource = tuple[str, parse_cache.StatKey, int, bool, bool]


class _SkillOptions(TypedDict):
    """The keyword arguments of skill_from_document that say which skill a file is."""

    name: str
    kind: SkillKind
    source: SourceKind
    profile: Profile
    source_root: Path | None
    path: Path | None
    skill_dir: Path | None
    fallback_label: str
    plugin: str | None
    scope_dir: Path | None
    allow_paths: bool
    display_names: bool


def coerce_description(value: Any) -> str | None:
    """coerceDescriptionToString (src/utils/frontmatterParser.ts)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (bool, int, float)):
        return js_string(value)
    return None


def parse_argument_names(value: Any) -> list[str]:
    """`arguments:` front matter → names (parseArgumentNames, src/utils/argumentSubstitution.ts; same in current)."""
    def valid(name: Any) -> bool:
        return isinstance(name, str) and js_trim(name) != "" and not re.fullmatch(r"[0-9]+", name)
    if isinstance(value, list):
        return [v for v in value if valid(v)]
    if isinstance(value, str):
        return [v for v in js_split_whitespace(value) if valid(v)]
    return []


def effective_paths(front_matter: dict[str, Any]) -> list[str] | None:
    """parseSkillPaths: the patterns of `paths:`, or None when the skill is unconditional."""
    return parse_paths(front_matter.get("paths"))


def load_skill_file(path: Path, *, name: str, kind: SkillKind, source: SourceKind, profile: Profile,
                    source_root: Path | None, skill_dir: Path | None, fallback_label: str,
                    plugin: str | None = None, scope_dir: Path | None = None,
                    allow_paths: bool = True, display_names: bool = True,
                    text: str | None = None, path_text: str | None = None,
                    skipped: list[Diagnostic] | None = None, ahead: ReadAhead | None = None) -> Skill | None:
    """Read and parse; None when the file does not exist or cannot be read.

    Claude Code skips a skill whose file it cannot read (loadSkillsDir.ts: `readFile` fails → `return null`),
    so no Skill is made; the reasons go to `skipped` (the workspace's diagnostics) so the user sees them.
    `path_text` is `str(path)` when the caller already has it: reading by string skips pathlib's
    parsing on the hot path; diagnostics still name `path`. A file read from disk gives a FileBodySkill
    (body re-read on demand); with an active parse cache (parse_cache.using) an unchanged file is not
    read at all. `ahead`: skill_read_ahead of the files the caller loads next (`path_text` among them)."""
    options = _SkillOptions(name=name, kind=kind, source=source, profile=profile, source_root=source_root,
                            path=path, skill_dir=skill_dir, fallback_label=fallback_label, plugin=plugin,
                            scope_dir=scope_dir, allow_paths=allow_paths, display_names=display_names)
    if text is not None:
        doc = parse_document(text, strip_bom=profile.supports(Feature.STRIPS_BOM), path=path,
                             unique_keys=not profile.supports(Feature.YAML_LAST_KEY_WINS))
        return skill_from_document(doc.front_matter, doc.body, diagnostics=list(doc.diagnostics),
                                   size=len(text.encode("utf-8", errors="replace")), **options)
    where = path_text or os.fspath(path)
    cache = parse_cache.active()
    known = None
    plain = False  # `where` is no symbolic link (so realpath_dedupe need not lstat it)
    if cache is not None and cache.primed:
        primed = cache.take_primed(where)  # parsed ahead by another process, from a path that is no link
        if primed is not None:
            primed_key, parsed, mode = primed
            input_trace.note_lstat(where, mode, primed_key)  # its stat stands for this process's lstat
            skill = _skill_from_payload(parsed, where, primed_key, options)
            if skill is not None:
                skill._plain_file = where
                return skill
    # an empty cache (a first run) answers nothing, so no lstat; but for files another process parsed ahead
    if cache is not None and (cache.can_serve() or where in cache.primed):
        try:
            known = os.lstat(where)
            plain = not _stat.S_ISLNK(known.st_mode)
            if not plain:
                known = os.stat(where)
        except OSError:
            known = None
        if known is not None and _stat.S_ISREG(known.st_mode):
            key = parse_cache.stat_key(known)
            payload = cache.get(where, key)
            if payload is not None:
                skill = _skill_from_payload(payload, where, key, options)
                if skill is not None:
                    if plain:
                        skill._plain_file = where
                    return skill
        else:
            known = None
    elif cache is not None:
        cache.misses += 1
    result = read_text_file(where, known=known, ahead=ahead)
    diagnostics: list[Diagnostic] = []
    if result.text is None and not os.path.lexists(where):
        return None
    if result.diagnostics:
        diagnostics.extend(replace(d, path=path) if d.path is not path else d for d in result.diagnostics)
    if result.text is None:
        if skipped is not None:
            skipped.extend(diagnostics)
            skipped.append(Diagnostic(Severity.WARNING, "skill-skipped",
                                      f"Claude Code cannot read this file, so it skips the {kind} {name!r}.", path))
        return None
    text = result.text
    doc = parse_document(text, strip_bom=profile.supports(Feature.STRIPS_BOM), path=path, unique_keys=not profile.supports(Feature.YAML_LAST_KEY_WINS))
    diagnostics.extend(doc.diagnostics)
    body_start = len(text) - len(doc.body)
    parse_diagnostics = [[d.severity.value, d.code, d.message, d.line] for d in diagnostics]  # before the field rules add theirs
    skill = skill_from_document(doc.front_matter, doc.body, diagnostics=diagnostics, size=result.size,
                                skill_class=FileBodySkill, **options)
    assert isinstance(skill, FileBodySkill)  # made by skill_class
    skill._path_text = (path, where)  # == str(path), without pathlib's parsing (Skill.key)
    if result.link is False or (known is not None and plain):
        skill._plain_file = where
    if result.stat is not None:
        key = parse_cache.stat_key(result.stat)
        skill._body_source = (where, key, body_start, profile.supports(Feature.STRIPS_BOM), not profile.supports(Feature.YAML_LAST_KEY_WINS))
        skill.body = None  # dropped: re-read on demand
        if cache is not None:
            cache.put(where, key, _payload(doc, body_start, result.size, parse_diagnostics,
                                           from_body=skill.description_from_body))
    return skill


def _payload(doc: ParsedDocument, body_start: int, size: int, parse_diagnostics: list[list[Any]], *,
             from_body: bool) -> parse_cache.Payload:
    """A file's parse as the parse cache keeps it (read back by _skill_from_payload)."""
    return {"fm": doc.front_matter, "bs": body_start, "sz": size,
            "bd": _body_line(doc.body) if from_body else None, "dg": parse_diagnostics}


def parse_cache_entry(where: str, profile: Profile, ahead: ReadAhead | None = None) -> parse_cache.Primed | None:
    """(stat key, payload, mode) that load_skill_file would store in the parse cache for the file at `where`,
    read now (mode: its st_mode when `where` is no symbolic link, so the stat is its lstat too; else -1);
    None when it cannot be read (the loader reads it itself, and says why). For a reader that only parses
    (core/load/parse_ahead.py): the diagnostics keep no path, as in the cache."""
    result = read_text_file(where, ahead=ahead)
    if result.text is None or result.stat is None:
        return None
    text = result.text
    doc = parse_document(text, strip_bom=profile.supports(Feature.STRIPS_BOM),
                         unique_keys=not profile.supports(Feature.YAML_LAST_KEY_WINS))
    parse_diagnostics = [[d.severity.value, d.code, d.message, d.line] for d in (*result.diagnostics, *doc.diagnostics)]
    from_body = coerce_description(doc.front_matter.get("description")) is None
    return (parse_cache.stat_key(result.stat), _payload(doc, len(text) - len(doc.body), result.size,
                                                        parse_diagnostics, from_body=from_body),
            result.stat.st_mode if result.link is False else -1)


def skill_read_ahead(upcoming: Callable[[], Iterable[str]]) -> ReadAhead | None:
    """A ReadAhead for skill files loaded one after another (`upcoming`: their path texts, in load
    order), or None where the platform has none; files the active parse cache serves are not hinted."""
    if not READ_AHEAD_SUPPORTED:
        return None
    cache = parse_cache.active()
    return ReadAhead(upcoming, skip=cache.serves if cache is not None and cache.can_serve() else None)


_NO_LINE = "\x00no line"


def _body_line(body: str) -> str | None:
    """The body's part of the description fallback, independent of the fallback label."""
    line = description_from_body(body, _NO_LINE)
    return None if line == _NO_LINE else line


def _skill_from_payload(payload: parse_cache.Payload, where: str, key: parse_cache.StatKey,
                        options: _SkillOptions) -> Skill | None:
    try:
        recorded = payload["dg"]
        diagnostics = [Diagnostic(Severity(sev), code, message, options["path"], line)
                       for sev, code, message, line in recorded] if recorded else []
        front_matter = payload["fm"]
        if not isinstance(front_matter, dict):
            return None
        profile = options["profile"]
        skill = skill_from_document(front_matter, None, diagnostics=diagnostics, size=payload["sz"],
                                    skill_class=FileBodySkill, body_line=payload["bd"], **options)
        assert isinstance(skill, FileBodySkill)  # made by skill_class
        skill.body = None  # on disk: read on demand
        skill._body_source = (where, key, int(payload["bs"]), profile.supports(Feature.STRIPS_BOM), not profile.supports(Feature.YAML_LAST_KEY_WINS))
        skill._path_text = (options["path"], where)
        return skill
    except (KeyError, TypeError, ValueError):
        return None  # a malformed entry: read the file instead


def load_body(source: BodySource) -> str:
    """The body of a FileBodySkill: the text from the recorded offset when the file is unchanged,
    else the body of the file as it is now (parsed with the same rules)."""
    where, key, body_start, strip_bom, unique_keys = source
    try:
        known = os.stat(where)
    except OSError as error:
        log.warning("%s cannot be read any more (%s); its body is empty until the next scan", where,
                    error.strerror or error)
        return ""
    if not _stat.S_ISREG(known.st_mode):
        log.warning("%s is no longer a regular file; its body is empty until the next scan", where)
        return ""
    result = read_text_file(where, known=known)
    if result.text is None:
        log.warning("%s cannot be read any more (%s); its body is empty until the next scan", where,
                    "; ".join(d.message for d in result.diagnostics))
        return ""
    if result.stat is not None and parse_cache.stat_key(result.stat)[:4] == tuple(key[:4]):
        return result.text[body_start:]
    return parse_document(result.text, strip_bom=strip_bom, unique_keys=unique_keys).body


def skill_from_document(front_matter: dict[str, Any], body: str | None, *, name: str, kind: SkillKind,
                        source: SourceKind, profile: Profile, source_root: Path | None, path: Path | None,
                        skill_dir: Path | None, fallback_label: str, plugin: str | None = None,
                        scope_dir: Path | None = None, allow_paths: bool = True, display_names: bool = True,
                        diagnostics: list[Diagnostic] | None = None, size: int = 0,
                        skill_class: type[Skill] = Skill, body_line: str | None = None) -> Skill:
    """`body=None` (a cached parse, the body stays on disk): `body_line` is the body's first-line
    description, if it has one."""
    fm = front_matter
    lenient = profile.supports(Feature.LENIENT_BOOLEANS)
    raw_description = fm.get("description")
    given = coerce_description(raw_description)
    if given is None and raw_description is not None:
        (diagnostics if diagnostics is not None else []).append(Diagnostic(
            Severity.WARNING, "description-not-text",
            "The description is a list or mapping; Claude Code ignores it and uses the first body line.", path))
    if given is not None:
        description = given
    elif body is not None:
        description = description_from_body(body, fallback_label)
    else:
        description = body_line if body_line is not None else fallback_label
    if given is None and profile.supports(Feature.FALLBACK_DESCRIPTION_LONE_SURROGATE_TO_SPACE):
        # 2.1.332: a lone surrogate left by the 97-unit fallback cut arrives as a space (probe-text surr-94/96,
        # fuzz-reg seed 30); the listing's per-entry cap later gives U+FFFD instead (parse-edges emoji-cap).
        description = _LONE_SURROGATE.sub(" ", description)
    when = fm.get("when_to_use")
    display = fm.get("name")
    if display is not None:
        display = js_string(display) if display_names else None
    # the keys most front matter lacks are not looked at (each rule gives its default for a missing key)
    skill = skill_class(
        name=name, kind=kind, source=source, source_root=source_root, path=path, skill_dir=skill_dir,
        front_matter=fm, body=body if body is not None else "", description=description, description_from_body=given is None,
        when_to_use=when if isinstance(when, str) else (js_string(when) if when is not None else None),
        display_name=display if display and display != name else None,
        paths=effective_paths(fm) if allow_paths and "paths" in fm else None,
        disable_model_invocation=("disable-model-invocation" in fm
                                  and parse_boolean(fm["disable-model-invocation"], lenient=lenient)),
        # present-but-null counts as false, as in Claude Code
        user_invocable=True if "user-invocable" not in fm else parse_boolean(fm["user-invocable"], lenient=lenient),
        arguments=parse_argument_names(fm["arguments"]) if "arguments" in fm else [],
        plugin=plugin, scope_dir=scope_dir, size_bytes=size, diagnostics=list(diagnostics) if diagnostics else [],
    )
    return skill
