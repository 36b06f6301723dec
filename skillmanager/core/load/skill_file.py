"""Turn one SKILL.md / command file into a `Skill`, with the field rules of Claude Code.

Port of parseSkillFrontmatterFields + parseSkillPaths (src/skills/loadSkillsDir.ts) and
createPluginCommand (src/utils/plugins/loadPluginCommands.ts) for the description fallback labels.
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from .frontmatter import description_from_body, parse_boolean, parse_document
from ..model import Diagnostic, Severity, Skill, SkillKind, SourceKind
from ..versions.features import Feature
from ..versions.profiles import Profile
from .safe_read import read_text_file
from .yaml12 import js_string
from ..js.strings import js_split_whitespace, js_trim
from ..rules.path_patterns import parse_paths

_LONE_SURROGATE = re.compile("[\\ud800-\\udfff]")  # in a Python str a pair is one code point: any surrogate is lone



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
                    skipped: list[Diagnostic] | None = None) -> Skill | None:
    """Read and parse; None when the file does not exist or cannot be read.

    Claude Code skips a skill whose file it cannot read (loadSkillsDir.ts: `readFile` fails → `return null`),
    so no Skill is made; the reasons go to `skipped` (the workspace's diagnostics) so the user sees them.
    `path_text` is `str(path)` when the caller already has it: reading by string skips pathlib's
    parsing on the hot path; diagnostics still name `path`."""
    diagnostics: list[Diagnostic] = []
    size = 0
    if text is None:
        result = read_text_file(path_text or path)  # type: ignore[arg-type]
        if result.text is None and not os.path.lexists(path_text or path):
            return None
        if result.diagnostics:
            diagnostics.extend(replace(d, path=path) if d.path is not path else d for d in result.diagnostics)
        size = result.size
        if result.text is None:
            if skipped is not None:
                skipped.extend(diagnostics)
                skipped.append(Diagnostic(Severity.WARNING, "skill-skipped",
                                          f"Claude Code cannot read this file, so it skips the {kind} {name!r}.", path))
            return None
        text = result.text
    else:
        size = len(text.encode("utf-8", errors="replace"))
    doc = parse_document(text, strip_bom=profile.supports(Feature.STRIPS_BOM), path=path,
                         unique_keys=not profile.supports(Feature.YAML_LAST_KEY_WINS))
    diagnostics.extend(doc.diagnostics)
    return skill_from_document(doc.front_matter, doc.body, name=name, kind=kind, source=source, profile=profile,
                               source_root=source_root, path=path, skill_dir=skill_dir,
                               fallback_label=fallback_label, plugin=plugin, scope_dir=scope_dir,
                               allow_paths=allow_paths, display_names=display_names,
                               diagnostics=diagnostics, size=size)


def skill_from_document(front_matter: dict[str, Any], body: str, *, name: str, kind: SkillKind, source: SourceKind,
                        profile: Profile, source_root: Path | None, path: Path | None, skill_dir: Path | None,
                        fallback_label: str, plugin: str | None = None, scope_dir: Path | None = None,
                        allow_paths: bool = True, display_names: bool = True,
                        diagnostics: list[Diagnostic] | None = None, size: int = 0) -> Skill:
    fm = front_matter
    lenient = profile.supports(Feature.LENIENT_BOOLEANS)
    given = coerce_description(fm.get("description"))
    if given is None and fm.get("description") is not None:
        (diagnostics if diagnostics is not None else []).append(Diagnostic(
            Severity.WARNING, "description-not-text",
            "The description is a list or mapping; Claude Code ignores it and uses the first body line.", path))
    description = given if given is not None else description_from_body(body, fallback_label)
    if given is None and profile.supports(Feature.FALLBACK_DESCRIPTION_LONE_SURROGATE_TO_SPACE):
        # 2.1.332: a lone surrogate left by the 97-unit fallback cut arrives as a space (probe-text surr-94/96,
        # fuzz-reg seed 30); the listing's per-entry cap later gives U+FFFD instead (parse-edges emoji-cap).
        description = _LONE_SURROGATE.sub(" ", description)
    when = fm.get("when_to_use")
    user_inv_raw = fm.get("user-invocable")  # present-but-null counts as false, as in Claude Code
    display = js_string(fm["name"]) if display_names and fm.get("name") is not None else None
    skill = Skill(
        name=name, kind=kind, source=source, source_root=source_root, path=path, skill_dir=skill_dir,
        front_matter=fm, body=body, description=description, description_from_body=given is None,
        when_to_use=when if isinstance(when, str) else (js_string(when) if when is not None else None),
        display_name=display if display and display != name else None,
        paths=effective_paths(fm) if allow_paths else None,
        disable_model_invocation=parse_boolean(fm.get("disable-model-invocation"), lenient=lenient),
        user_invocable=True if "user-invocable" not in fm else parse_boolean(user_inv_raw, lenient=lenient),
        arguments=parse_argument_names(fm.get("arguments")),
        plugin=plugin, scope_dir=scope_dir, size_bytes=size, diagnostics=list(diagnostics or []),
    )
    return skill
