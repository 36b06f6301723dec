"""What is wrong with a skill: the Agent Skills standard, and Claude Code's own rules (lint).

Two independent checks:
- `check_agentskills_text` / `validate_agentskills`: the open standard (spec in
  shared/spec/agentskills/specification.mdx), parsed the way the spec describes it — a `---` line,
  YAML 1.2, a closing `---` line — not the way the reference validator `skills-ref` 0.1.1 splits it
  (it cuts values at any `---`, accepts an indented closing `---`, rejects a BOM and flow lists).
- `lint_claude_code`: what Claude Code will actually do with the file (the fallback description,
  the per-entry cap, ignored camelCase keys, `paths` that can never match, unknown enum values…),
  using the same parser Claude Code uses (core.frontmatter). Registry-wide checks (shadowed
  commands, budget pressure) are in `lint_registry`.
Every result is a Diagnostic (severity, code, message, path, line); nothing here raises on bad input.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from ..js.strings import js_trim
from ..rules.path_patterns import split_paths
from ..load.frontmatter import BOM, description_from_body, parse_document
from ..model import Diagnostic, Severity
from ..versions.profiles import Profile, default_profile
from ..load.safe_read import read_text_file
from ..js.textwidth import utf16_len, utf16_slice
from ..load.yaml12 import YAML_UNPRINTABLE, js_string, load_yaml12
from ..versions.features import Feature

AGENTSKILLS = "agentskills"
CLAUDE_CODE = "claude-code"
STANDARDS = (AGENTSKILLS, CLAUDE_CODE)

# --- Agent Skills standard -------------------------------------------------------------------------

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
ALLOWED_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
SKILL_FILE_NAMES = ("SKILL.md", "skill.md")  # skills-ref accepts the lower-case spelling too

# Line-anchored delimiters: the spec's front matter is a block between two `---` lines.
_OPEN_RE = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^---[ \t]*\r?$", re.M)


def _err(code: str, message: str, path: Path | None, line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, path, line)


def _warn(code: str, message: str, path: Path | None, line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, path, line)


def _info(code: str, message: str, path: Path | None, line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.INFO, code, message, path, line)


def key_line(text: str, key: str) -> int | None:
    """1-based line of a top-level front-matter `key:` in the file text (None when absent)."""
    match = re.search(rf"^{re.escape(key)}[ \t]*:", text, re.M)
    return text.count("\n", 0, match.start()) + 1 if match else None


@dataclass
class SplitFrontMatter:
    data: dict[str, Any] | None
    body: str
    diagnostics: list[Diagnostic] = field(default_factory=list)


def split_standard_front_matter(text: str, path: Path | None = None) -> SplitFrontMatter:
    """The spec's reading: optional BOM, `---` line, YAML 1.2 mapping, `---` line, body."""
    diagnostics: list[Diagnostic] = []
    if text.startswith(BOM):
        # skills-ref rejects this; a BOM is an encoding marker, not content (the spec is silent).
        diagnostics.append(_info("bom", "The file starts with a UTF-8 byte-order mark; it is ignored here, but "
                                        "skills-ref 0.1.1 and Claude Code 2.1.88 do not see the front matter.", path, 1))
        text = text[1:]
    opening = _OPEN_RE.match(text)
    if not opening:
        diagnostics.append(_err("no-front-matter", "SKILL.md must start with YAML front matter (a `---` line).", path, 1))
        return SplitFrontMatter(None, text, diagnostics)
    closing = _CLOSE_RE.search(text, opening.end())
    if not closing:
        indented = re.search(r"^[ \t]+---[ \t]*\r?$", text[opening.end():], re.M)
        hint = " (an indented `---` does not close it)" if indented else ""
        diagnostics.append(_err("front-matter-not-closed",
                                f"The front matter is not closed with a `---` line{hint}.", path, 1))
        return SplitFrontMatter(None, "", diagnostics)
    yaml_text = text[opening.end():closing.start()]
    body = text[closing.end():].lstrip("\r\n")
    unprintable = YAML_UNPRINTABLE.search(yaml_text)
    if unprintable:  # YAML 1.2 forbids them; the standard's validator (strictyaml) refuses them, Claude Code does not
        line = yaml_text.count("\n", 0, unprintable.start()) + 2
        diagnostics.append(_err("invalid-yaml", f"Invalid YAML in the front matter: the character "
                                f"U+{ord(unprintable.group(0)):04X} is not allowed in YAML (Claude Code reads it anyway).",
                                path, line))
        return SplitFrontMatter(None, body, diagnostics)
    try:
        data = load_yaml12(yaml_text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        error_line: int | None = mark.line + 2 if mark is not None else None
        if error_line is None and (found := re.search(r"\(line (\d+)\)", str(error))):
            error_line = int(found.group(1)) + 1  # yaml12's duplicate-key message counts from the YAML's first line
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        diagnostics.append(_err("invalid-yaml", f"Invalid YAML in the front matter: {problem}.", path, error_line))
        return SplitFrontMatter(None, body, diagnostics)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        diagnostics.append(_err("front-matter-not-mapping", "The front matter must be a YAML mapping (key: value lines).",
                                path, 2))
        return SplitFrontMatter(None, body, diagnostics)
    return SplitFrontMatter(data, body, diagnostics)


def _name_findings(name: Any, dir_name: str | None, text: str, path: Path | None) -> list[Diagnostic]:
    line = key_line(text, "name")
    if isinstance(name, (int, float)) and not isinstance(name, bool):
        # YAML 1.2 reads `name: 123` as a number; the spec means the characters.
        name = js_string(name)
        out = [_warn("name-not-string", f"`name: {name}` is read as a number by YAML; quote it.", path, line)]
    elif not isinstance(name, str) or not name.strip():
        return [_err("name-empty", "`name` must be a non-empty string.", path, line)]
    else:
        out = []
    normalized = unicodedata.normalize("NFKC", name.strip())
    if len(normalized) > MAX_NAME:
        out.append(_err("name-too-long", f"`name` is {len(normalized)} characters; the limit is {MAX_NAME}.", path, line))
    if normalized != normalized.lower():
        out.append(_err("name-not-lowercase", f"`name` {normalized!r} must be lowercase.", path, line))
    if normalized.startswith("-") or normalized.endswith("-"):
        out.append(_err("name-hyphen-edge", "`name` must not start or end with a hyphen.", path, line))
    if "--" in normalized:
        out.append(_err("name-double-hyphen", "`name` must not contain consecutive hyphens.", path, line))
    if not all(c.isalnum() or c == "-" for c in normalized):
        bad = "".join(sorted({c for c in normalized if not (c.isalnum() or c == "-")}))
        out.append(_err("name-bad-characters", f"`name` {normalized!r} contains characters other than lowercase "
                                                f"letters, digits and hyphens: {bad!r}.", path, line))
    elif not normalized.isascii():
        # The reference validator (and its i18n tests) accept Unicode lowercase letters; the spec's
        # wording lists `a-z`, `0-9`. Same verdict as the reference, with a portability note.
        out.append(_info("name-non-ascii", "`name` uses non-ASCII letters: valid for skills-ref, but the spec "
                                           "text lists a-z and 0-9, so some clients may reject it.", path, line))
    if dir_name is not None and unicodedata.normalize("NFKC", dir_name) != normalized:
        out.append(_err("name-directory-mismatch",
                        f"`name` {normalized!r} must equal the directory name {dir_name!r}.", path, line))
    return out


def check_agentskills_text(text: str, dir_name: str | None, path: Path | None = None) -> list[Diagnostic]:
    """Findings of the Agent Skills standard for one SKILL.md text in a directory named `dir_name`."""
    split = split_standard_front_matter(text, path)
    out = list(split.diagnostics)
    data = split.data
    if data is None:
        return out
    source = text[1:] if text.startswith(BOM) else text
    extra = [k for k in data if k not in ALLOWED_FIELDS]
    if extra:
        out.append(_err("unexpected-fields", f"Fields the standard does not allow: {', '.join(sorted(extra))} "
                                             f"(allowed: {', '.join(ALLOWED_FIELDS)}).", path,
                        key_line(source, sorted(extra, key=lambda k: key_line(source, k) or 0)[0])))
    if "name" not in data:
        out.append(_err("missing-name", "Missing required field `name`.", path, 1))
    else:
        out.extend(_name_findings(data["name"], dir_name, source, path))
    if "description" not in data:
        out.append(_err("missing-description", "Missing required field `description`.", path, 1))
    else:
        description = data["description"]
        line = key_line(source, "description")
        if not isinstance(description, str) or not description.strip():
            out.append(_err("description-empty", "`description` must be a non-empty string.", path, line))
        elif len(description) > MAX_DESCRIPTION:
            out.append(_err("description-too-long", f"`description` is {len(description):,} characters; the limit "
                                                     f"is {MAX_DESCRIPTION:,}.", path, line))
    if "compatibility" in data:
        value = data["compatibility"]
        line = key_line(source, "compatibility")
        if not isinstance(value, str):
            out.append(_err("compatibility-not-string", "`compatibility` must be a string.", path, line))
        elif not value or len(value) > MAX_COMPATIBILITY:
            out.append(_err("compatibility-length", f"`compatibility` is {len(value)} characters; it must be "
                                                     f"1–{MAX_COMPATIBILITY}.", path, line))
    if "metadata" in data:
        out.extend(_metadata_findings(data["metadata"], source, path))
    if "allowed-tools" in data and not isinstance(data["allowed-tools"], str):
        out.append(_warn("allowed-tools-not-string", "`allowed-tools` should be a space-separated string (Claude "
                                                      "Code also accepts a YAML list).", path,
                         key_line(source, "allowed-tools")))
    if "license" in data and not isinstance(data["license"], str):
        out.append(_warn("license-not-string", "`license` should be a string.", path, key_line(source, "license")))
    return out


def _metadata_findings(metadata: Any, text: str, path: Path | None) -> list[Diagnostic]:
    line = key_line(text, "metadata")
    if not isinstance(metadata, dict):
        return [_err("metadata-not-map", "`metadata` must be a map of string keys to string values.", path, line)]
    out = []
    for key, value in metadata.items():
        if isinstance(value, str):
            continue
        # The spec says string→string. skills-ref 0.1.1 stringifies nested values and calls them valid,
        # and real skills carry lists (`tags: [a, b]`): a warning, not an error, so the verdict matches.
        kind = ("a map" if isinstance(value, dict) else "a list" if isinstance(value, list)
                else "a boolean" if isinstance(value, bool) else "null" if value is None else "a number")
        out.append(_warn("metadata-not-string", f"`metadata.{key}` is {kind}, not a string; the standard wants "
                                                "string values (quote scalars; other clients may stringify or "
                                                "drop it).", path, _metadata_key_line(text, key) or line))
    return out


def _metadata_key_line(text: str, key: str) -> int | None:
    start = key_line(text, "metadata")
    if start is None:
        return None
    for number, line in enumerate(text.split("\n")[start:], start + 1):
        if line and not line[0].isspace():
            return None
        if re.match(rf"^[ \t]+{re.escape(key)}[ \t]*:", line):
            return number
    return None


def find_skill_file(skill_dir: Path) -> Path | None:
    for name in SKILL_FILE_NAMES:
        candidate = skill_dir / name
        if candidate.is_file():
            return candidate
    return None


def validate_agentskills(skill_dir: Path, skill_md: Path | None = None) -> list[Diagnostic]:
    """The standard's checks for one skill directory."""
    skill_md = skill_md or find_skill_file(skill_dir)
    if skill_md is None:
        return [_err("missing-skill-md", "Missing required file SKILL.md.", skill_dir)]
    out = []
    if skill_md.name != "SKILL.md":
        out.append(_warn("skill-md-case", f"The file is named {skill_md.name}; the standard and Claude Code expect "
                                          "SKILL.md.", skill_md))
    read = read_text_file(skill_md)
    out.extend(read.diagnostics)
    if read.text is None:
        return out
    return out + check_agentskills_text(read.text, skill_dir.name, skill_md)


# --- Claude Code lint ------------------------------------------------------------------------------

# Keys Claude Code reads (spec §2; loadSkillsDir.ts parseSkillFrontmatterFields) — kebab/snake case only.
CLAUDE_CODE_KEYS = ("name", "description", "when_to_use", "argument-hint", "arguments", "allowed-tools", "model",
                    "effort", "disable-model-invocation", "user-invocable", "context", "agent", "shell", "hooks",
                    "paths", "version", "disallowed-tools", "background", "metadata", "license", "compatibility")
# camelCase (and other) spellings people write that Claude Code silently ignores → the key it reads.
IGNORED_SPELLINGS = {
    "whenToUse": "when_to_use", "when-to-use": "when_to_use", "argumentHint": "argument-hint",
    "argument_hint": "argument-hint", "allowedTools": "allowed-tools", "allowed_tools": "allowed-tools",
    "disableModelInvocation": "disable-model-invocation", "disable_model_invocation": "disable-model-invocation",
    "userInvocable": "user-invocable", "user_invocable": "user-invocable", "disallowedTools": "disallowed-tools",
    "disallowed_tools": "disallowed-tools",
}
SHELLS = ("bash", "powershell")  # frontmatterParser.ts FRONTMATTER_SHELLS (same in 2.1.332)
_CAMEL_RE = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)+$")


def listing_description(description: str, when_to_use: str | None) -> str:
    """`getCommandDescription` (tools/SkillTool/prompt.ts) before the cap."""
    return f"{description} - {when_to_use}" if when_to_use else description


def cut_entry(text: str, cap: int) -> str:
    """The per-entry cap: longer than `cap` UTF-16 units → first cap-1 units + `…`."""
    return utf16_slice(text, cap - 1) + "\u2026" if utf16_len(text) > cap else text



def unmatchable_path_reason(pattern: str) -> str | None:
    """Why a `paths` pattern can never match a file path relative to the cwd (spec §2, §5), or None."""
    raw = js_trim(pattern)
    if raw.startswith("!"):
        return None
    if raw.startswith("./") or raw == ".":
        return "starts with `./`, but Claude Code matches paths relative to the cwd, which never start with `./`"
    if raw.startswith("../") or "/../" in raw or raw == "..":
        return "points outside the cwd (`..`), and files outside the cwd never match"
    if raw.startswith("~"):
        return "starts with `~`, which is not expanded: it only matches a directory literally named `~`"
    if re.match(r"^[A-Za-z]:[\\/]", raw) or raw.startswith("\\\\"):
        return "is a Windows absolute path; patterns are matched against paths relative to the cwd"
    if re.match(r"^/(?:home|Users|root|tmp|var|etc|opt|usr|mnt|private|Volumes|workspace|workspaces)/", raw):
        return ("looks like an absolute path; a leading `/` only anchors the pattern at the cwd, so it would need "
                f"a directory `{raw.split('/')[1]}` inside the cwd")
    return None


def lint_claude_code(skill_md: Path, *, profile: Profile | None = None, kind: str = "skill",
                     name: str | None = None) -> list[Diagnostic]:
    """Claude Code's view of one SKILL.md (or legacy command file), as per-file findings."""
    profile = profile or default_profile()
    read = read_text_file(skill_md)
    out = list(read.diagnostics)
    if read.text is None:
        return out
    text = read.text
    doc = parse_document(text, strip_bom=profile.supports(Feature.STRIPS_BOM), path=skill_md)
    out.extend(doc.diagnostics)
    fm = doc.front_matter
    source = text[1:] if text.startswith(BOM) and profile.supports(Feature.STRIPS_BOM) else text
    resolved = name or (skill_md.parent.name if kind == "skill" else skill_md.stem)
    if doc.yaml_recovered:
        out.append(_info("yaml-recovered", "The front matter is not valid YAML; Claude Code loads it anyway by "
                                           "quoting the offending values (other tools may not).", skill_md, 2))

    out.extend(_description_findings(fm, doc.body, resolved, profile, source, skill_md))
    if "name" in fm and fm["name"] is not None and js_string(fm["name"]) != resolved:
        out.append(_info("display-name-differs",
                         f"`name: {js_string(fm['name'])}` differs from the {'directory' if kind == 'skill' else 'file'} "
                         f"name: the skill is listed and invoked as `{resolved}` (current shows the field in brackets).",
                         skill_md, key_line(source, "name")))
    for key in fm:
        line = key_line(source, key)
        if key in IGNORED_SPELLINGS:
            out.append(_warn("ignored-key", f"`{key}` is ignored by Claude Code; the key it reads is "
                                            f"`{IGNORED_SPELLINGS[key]}`.", skill_md, line))
        elif key not in CLAUDE_CODE_KEYS and _CAMEL_RE.match(key):
            out.append(_warn("ignored-key", f"`{key}` is not a key Claude Code reads (it uses kebab-case and "
                                            "snake_case keys only).", skill_md, line))
    for pattern in split_paths(fm.get("paths")):
        reason = unmatchable_path_reason(pattern)
        if reason:
            out.append(_warn("paths-never-match", f"`paths` pattern {pattern!r} {reason}.", skill_md,
                             key_line(source, "paths")))
    out.extend(_enum_findings(fm, profile, source, skill_md))
    return out


def _description_findings(fm: dict[str, Any], body: str, resolved: str, profile: Profile, source: str,
                          path: Path) -> list[Diagnostic]:
    raw = fm.get("description")
    out = []
    if isinstance(raw, str):
        description = js_trim(raw) or None
    elif isinstance(raw, (bool, int, float)):
        description = js_string(raw)
    else:
        description = None
        if raw is not None:
            out.append(_warn("description-not-scalar", "`description` is a list or map; Claude Code ignores it.",
                             path, key_line(source, "description")))
    if description is None:
        fallback = description_from_body(body, "Skill")
        out.append(_warn("no-description", f"No description: Claude Code lists the skill with the first body line "
                                           f"instead: {fallback!r}.", path, key_line(source, "description") or 1))
        description = fallback
    when = fm.get("when_to_use")
    when_text = js_string(when) if when not in (None, "", False) else None
    entry = listing_description(description, when_text)
    cap = profile.per_entry_cap
    if utf16_len(entry) > cap:
        kept = cut_entry(entry, cap)
        tail = entry[len(kept) - 1:]
        out.append(_warn("entry-over-cap",
                         f"The listing entry is {utf16_len(entry):,} characters; Claude Code ({profile.name}) cuts it "
                         f"to {cap:,}: the model never sees “…{tail[:60]}{'…' if len(tail) > 60 else ''}” "
                         f"(cut after “{kept[-41:-1]}”).", path,
                         key_line(source, "when_to_use" if when_text and utf16_len(description) <= cap else "description")))
    return out


def _enum_findings(fm: dict[str, Any], profile: Profile, source: str, path: Path) -> list[Diagnostic]:
    out = []
    shell = fm.get("shell")
    if shell is not None and js_string(shell).strip() and js_string(shell).strip().lower() not in SHELLS:
        out.append(_warn("unknown-shell", f"`shell: {js_string(shell)}` is not recognised; Claude Code falls back to "
                                          f"bash (valid: {', '.join(SHELLS)}).", path, key_line(source, "shell")))
    effort = fm.get("effort")
    if effort is not None and effort != "":
        levels = profile.effort_levels
        text = js_string(effort).lower()
        integer = (isinstance(effort, int) and not isinstance(effort, bool)) or re.match(r"^[-+]?\d", text)
        if text not in levels and not integer:
            out.append(_warn("unknown-effort", f"`effort: {js_string(effort)}` is not valid for Claude Code "
                                               f"({profile.name}); it is ignored (valid: {', '.join(levels)} or an "
                                               "integer).", path, key_line(source, "effort")))
    context = fm.get("context")
    if context is not None and context != "fork":
        out.append(_warn("unknown-context", f"`context: {js_string(context)}` has no effect: only `fork` changes how "
                                            "the skill runs (anything else runs inline).", path,
                         key_line(source, "context")))
    return out


def lint_skills_dir(skills_dir: Path) -> list[Diagnostic]:
    """Files Claude Code ignores in a skills directory: a lone `.md` file is not a skill (spec §1)."""
    out = []
    try:
        entries = sorted(skills_dir.iterdir())
    except OSError as error:
        return [_err("unreadable-dir", f"Cannot list this directory: {error.strerror or error}.", skills_dir)]
    for entry in entries:
        if entry.is_file() and entry.suffix.lower() == ".md":
            out.append(_warn("lone-md-ignored", f"{entry.name} sits directly in a skills directory; Claude Code "
                                                f"ignores it (a skill is a folder: {entry.stem}/SKILL.md).", entry))
        elif entry.is_dir() and find_skill_file(entry) is None and not entry.name.startswith("."):
            out.append(_info("dir-without-skill-md", f"{entry.name}/ has no SKILL.md; it is not a skill.", entry))
    return out


# --- targets and reports ---------------------------------------------------------------------------

@dataclass
class SkillReport:
    target: Path  # skill directory (or the file for a lone SKILL.md / skills-dir level findings)
    name: str
    standard: str
    findings: list[Diagnostic] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"target": str(self.target), "name": self.name, "standard": self.standard, "valid": self.valid,
                "findings": [d.to_json() for d in self.findings]}


@dataclass
class ValidationReport:
    standard: str
    reports: list[SkillReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # checks skipped and why

    @property
    def error_count(self) -> int:
        return sum(d.severity is Severity.ERROR for r in self.reports for d in r.findings)

    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for report in self.reports:
            for finding in report.findings:
                counts[finding.severity.value] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {"standard": self.standard, "counts": self.counts(), "notes": self.notes,
                "skills": [r.to_json() for r in self.reports]}


def classify_target(path: Path) -> str:
    """'skill-file', 'skill-dir', 'skills-dir' or 'missing'."""
    if path.is_file():
        return "skill-file"
    if path.is_dir():
        return "skill-dir" if find_skill_file(path) else "skills-dir"
    return "missing"


def skill_dirs_in(skills_dir: Path) -> list[Path]:
    try:
        return sorted(p for p in skills_dir.iterdir() if p.is_dir() and find_skill_file(p))
    except OSError:
        return []


def _check_dir(skill_dir: Path, standard: str, profile: Profile) -> SkillReport:
    skill_md = find_skill_file(skill_dir)
    if skill_md is None:  # removed since the folder was listed
        return SkillReport(skill_dir, skill_dir.name, standard,
                           [_err("missing-path", "No SKILL.md here (it was removed while being checked).", skill_dir)])
    return _check_one(skill_md, standard, profile)


def _check_one(skill_md: Path, standard: str, profile: Profile) -> SkillReport:
    skill_dir = skill_md.parent
    if standard == AGENTSKILLS:
        findings = validate_agentskills(skill_dir, skill_md)
    else:
        kind = "command" if skill_md.name.upper() != "SKILL.MD" else "skill"
        findings = lint_claude_code(skill_md, profile=profile, kind=kind)
    name = skill_dir.name if skill_md.name.upper() == "SKILL.MD" else skill_md.stem
    return SkillReport(skill_dir if skill_md.name.upper() == "SKILL.MD" else skill_md, name, standard, findings)


def validate_paths(paths: Iterable[Path], *, standard: str = AGENTSKILLS,
                   profile: Profile | None = None) -> ValidationReport:
    """Validate skill dirs, SKILL.md files or skills dirs (each skill folder inside)."""
    profile = profile or default_profile()
    report = ValidationReport(standard)
    for path in paths:
        path = Path(path)
        kind = classify_target(path)
        if kind == "missing":
            report.reports.append(SkillReport(path, path.name, standard,
                                              [_err("missing-path", "No such file or directory.", path)]))
        elif kind == "skill-file":
            report.reports.append(_check_one(path, standard, profile))
        elif kind == "skill-dir":
            report.reports.append(_check_dir(path, standard, profile))
        else:
            dirs = skill_dirs_in(path)
            if standard == CLAUDE_CODE or not dirs:
                level = lint_skills_dir(path) if standard == CLAUDE_CODE else []
                if not dirs:
                    level.append(_warn("no-skills-found", "No skill folders (with SKILL.md) here.", path))
                if level:
                    report.reports.append(SkillReport(path, path.name, standard, level))
            for skill_dir in dirs:
                report.reports.append(_check_dir(skill_dir, standard, profile))
    return report


def validate_registry(registry: Any, workspace: Any = None, *, standard: str = AGENTSKILLS) -> ValidationReport:
    """Every on-disk skill of a loaded registry (core.registry.Registry); claude-code adds the
    registry-wide checks: commands shadowed by skills, lone `.md` files, budget pressure."""
    profile = registry.profile
    report = ValidationReport(standard)
    seen: set[Path] = set()
    for skill in registry.skills:
        if skill.path is None or skill.path in seen:
            continue
        seen.add(skill.path)
        if standard == AGENTSKILLS and skill.kind != "skill":
            continue  # legacy commands are not Agent Skills
        if standard == AGENTSKILLS:
            findings = validate_agentskills(skill.path.parent, skill.path)
        else:
            findings = lint_claude_code(skill.path, profile=profile, kind=skill.kind, name=skill.name)
            shadow = skill.state.shadowed_by
            if skill.kind == "command" and shadow is not None and shadow.kind == "skill":
                findings.append(_warn("command-shadowed", f"The command /{skill.name} is shadowed by the skill at "
                                                          f"{shadow.path}: invoking the name runs the skill.", skill.path))
        report.reports.append(SkillReport(skill.skill_dir or skill.path, skill.name, standard, findings))
    if standard == CLAUDE_CODE:
        roots = sorted({s.source_root for s in registry.skills if s.kind == "skill" and s.source_root})
        for root in roots:
            level = [d for d in lint_skills_dir(root) if d.code == "lone-md-ignored"]
            if level:
                report.reports.append(SkillReport(root, root.name, standard, level))
        report.reports.extend(_budget_reports(registry, report))
    return report


def _budget_reports(registry: Any, report: ValidationReport) -> list[SkillReport]:
    try:
        from ..layers.listing import build_listing
    except ImportError:
        report.notes.append("budget pressure not checked: the listing engine (core/listing.py) is not available")
        return []
    try:
        listing = build_listing(registry)
    except Exception as error:  # noqa: BLE001 - a lint must not crash on another module's failure
        report.notes.append(f"budget pressure not checked: building the listing failed ({error})")
        return []
    totals = listing.totals
    cut = [e for e in listing.entries if e.cut and not e.placeholder]
    findings = []
    if cut or totals.over_budget:
        severity = Severity.WARNING
        names_only = [e.name for e in cut if e.shown_text.rstrip().endswith(e.shown_name) or ":" not in e.shown_text]
        findings.append(Diagnostic(severity, "budget-pressure",
                                   f"The listing needs {totals.full_total:,} characters at full level; the budget is "
                                   f"{totals.budget:,} ({totals.budget_source or 'context window'}). {len(cut)} of "
                                   f"{totals.entries} entries are cut (level: {totals.level}"
                                   + (f", {len(names_only)} to the name only" if names_only else "") + ").", None))
    if totals.over_budget:
        findings.append(Diagnostic(Severity.WARNING, "budget-undroppable",
                                   f"Even at names only the listing costs {totals.undroppable_cost:,} characters, over "
                                   f"the {totals.budget:,} budget: Claude Code never drops a skill's name "
                                   f"({len(totals.undroppable)} names).", None))
    return [SkillReport(Path("."), "(listing budget)", CLAUDE_CODE, findings)] if findings else []
