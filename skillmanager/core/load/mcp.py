"""MCP skills from a JSON file (the real MCP transport is out of scope).

File format: a JSON list of {server, name, description, when_to_use, body}. Each becomes a skill
named `server:name`; its body is parsed like a SKILL.md body (front matter allowed). Inline shell
never runs for these (spec §7), which the expansion side enforces via `source == MCP`.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..js.json_parse import js_int
from .frontmatter import parse_document
from ..model import Diagnostic, Severity, Skill, SourceKind, SkillKind
from ..versions.profiles import Profile
from .safe_read import read_regular_bytes
from .skill_file import skill_from_document
from ..versions.features import Feature


def load_mcp_skills(path: Path | None, profile: Profile, diagnostics: list[Diagnostic]) -> list[Skill]:
    if path is None:
        return []
    try:
        data = json.loads(read_regular_bytes(path).decode("utf-8", errors="replace").lstrip("\ufeff"), parse_int=js_int)
    except OSError as error:
        diagnostics.append(Diagnostic(Severity.ERROR, "mcp-unreadable",
                                      f"Cannot read the MCP skills file ({error.strerror or error}).", path))
        return []
    except (ValueError, RecursionError) as error:  # RecursionError: nesting deeper than the parser's stack
        diagnostics.append(Diagnostic(Severity.ERROR, "mcp-invalid-json",
                                      f"{path}:{getattr(error, 'lineno', '?')}:{getattr(error, 'colno', '?')}: "
                                      "the MCP skills file is not valid JSON.", path, getattr(error, "lineno", None)))
        return []
    if not isinstance(data, list):
        diagnostics.append(Diagnostic(Severity.ERROR, "mcp-not-list",
                                      "The MCP skills file must be a JSON list of skills.", path))
        return []
    out: list[Skill] = []
    for index, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item.get("name"):
            diagnostics.append(Diagnostic(Severity.WARNING, "mcp-bad-entry",
                                          f"Entry {index} of the MCP skills file has no name; skipped.", path))
            continue
        server = str(item.get("server") or "mcp")
        raw_body = item.get("body")
        body = raw_body if isinstance(raw_body, str) else ""
        doc = parse_document(body, strip_bom=profile.supports(Feature.STRIPS_BOM), path=path,
                             unique_keys=not profile.supports(Feature.YAML_LAST_KEY_WINS))
        fm = dict(doc.front_matter)
        for key in ("description", "when_to_use"):
            if item.get(key) is not None:
                fm[key] = item[key]
        skill = skill_from_document(fm, doc.body, name=f"{server}:{item['name']}", kind=SkillKind.SKILL,
                                    source=SourceKind.MCP, profile=profile, source_root=path, path=None,
                                    skill_dir=None, fallback_label="Skill", allow_paths=False,
                                    diagnostics=doc.diagnostics, size=len(body.encode("utf-8")))
        skill.mcp_server = server
        skill.group = f"mcp:{server}"
        out.append(skill)
    return out
