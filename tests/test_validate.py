"""Validation against the Agent Skills standard (the 40 skills-ref vectors) and Claude Code's lint rules."""
from __future__ import annotations

import os

import io
import json
from pathlib import Path

import pytest

from skillmanager.core.model import Severity
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.checks.validate import (
    AGENTSKILLS, CLAUDE_CODE, check_agentskills_text, lint_claude_code, lint_skills_dir,
    split_standard_front_matter, unmatchable_path_reason, validate_agentskills, validate_paths,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "skills-ref-test-vectors.json").read_text(encoding="utf-8"))["vectors"]

# Where skills-ref 0.1.1 is wrong, by its own vectors' notes — we do the right thing instead:
DEVIATIONS = {
    # skills-ref rejects a UTF-8 BOM ("must start with YAML frontmatter"); a BOM is an encoding
    # marker, the spec does not forbid it, and Claude Code ≥2.1.239 reads such files. We accept (info).
    "bom": True,
    # skills-ref splits on any "---" (not line-anchored), so "  ---" closes the front matter; a YAML
    # front matter ends at a `---` line, so ours is unclosed.
    "indented_closing_delimiter": False,
    # skills-ref (strictyaml) rejects flow style `tags: [a, b]` as "ugly disallowed JSONesque flow
    # mapping"; it is valid YAML 1.2. We accept the syntax; the list value gets a warning only
    # (the standard wants string metadata values).
    "flow_sequence": True,
}
# Same verdict, but skills-ref reaches it for the wrong reason or with a wrong value; asserted below:
#  dashes_inside_value — skills-ref cuts the description at " --- " to "a"; ours keeps "a --- b".
#  nested_metadata — both valid; skills-ref silently stringifies the nested map, we warn.


def _materialise(tmp_path: Path, vector: dict) -> Path:
    skill_dir = tmp_path / vector["id"] / vector["dir_name"]
    skill_dir.mkdir(parents=True)
    if vector["skill_md"] is not None:
        (skill_dir / vector["filename"]).write_bytes(vector["skill_md"].encode("utf-8"))
    return skill_dir


def _errors(findings):
    return [f for f in findings if f.severity is Severity.ERROR]


def test_there_are_40_vectors():
    assert len(VECTORS) == 40


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector_verdict(tmp_path, vector):
    findings = validate_agentskills(_materialise(tmp_path, vector))
    reference_valid = not vector["skills_ref_0_1_1_errors"]
    expected_valid = DEVIATIONS.get(vector["id"], reference_valid)
    assert (not _errors(findings)) == expected_valid, [f.message for f in findings]
    assert all(f.line is None or f.line >= 1 for f in findings)


# skills-ref's message substring → our stable code, for every vector it rejects
EXPECTED_CODES = {
    "missing_skill_md": "missing-skill-md", "invalid_name_uppercase": "name-not-lowercase",
    "name_too_long": "name-too-long", "name_leading_hyphen": "name-hyphen-edge",
    "name_consecutive_hyphens": "name-double-hyphen", "name_invalid_characters": "name-bad-characters",
    "name_directory_mismatch": "name-directory-mismatch", "unexpected_fields": "unexpected-fields",
    "i18n_russian_uppercase_rejected": "name-not-lowercase", "description_too_long": "description-too-long",
    "compatibility_too_long": "compatibility-length", "missing_frontmatter": "no-front-matter",
    "unclosed_frontmatter": "front-matter-not-closed", "invalid_yaml": "invalid-yaml",
    "non_dict_frontmatter": "front-matter-not-mapping", "missing_name": "missing-name",
    "missing_description": "missing-description", "duplicate_key": "invalid-yaml", "unquoted_colon": "invalid-yaml",
    "empty_description": "description-empty", "claude_code_extension_fields": "unexpected-fields",
    "uppercase_dir_lowercase_name": "name-directory-mismatch", "indented_closing_delimiter": "front-matter-not-closed",
}


@pytest.mark.parametrize("vector_id,code", sorted(EXPECTED_CODES.items()))
def test_vector_error_codes(tmp_path, vector_id, code):
    vector = next(v for v in VECTORS if v["id"] == vector_id)
    assert code in {f.code for f in _errors(validate_agentskills(_materialise(tmp_path, vector)))}


def test_dashes_inside_description_are_kept():
    split = split_standard_front_matter("---\nname: dash-in-desc\ndescription: a --- b\n---\nbody\n")
    assert split.data == {"name": "dash-in-desc", "description": "a --- b"}  # skills-ref reads "a"


def test_flow_list_is_valid_yaml_with_a_warning():
    text = next(v for v in VECTORS if v["id"] == "flow_sequence")["skill_md"]
    findings = check_agentskills_text(text, "flow-list")
    assert [(f.severity, f.code, f.line) for f in findings] == [(Severity.WARNING, "metadata-not-string", 5)]


def test_nfkc_compares_decomposed_name_to_precomposed_dir():
    assert not _errors(check_agentskills_text("---\nname: cafe\u0301\ndescription: x\n---\n", "caf\u00e9"))


def test_duplicate_key_points_at_the_second_key():
    (finding,) = check_agentskills_text("---\nname: dup-key\nname: dup-key\ndescription: x\n---\n", "dup-key")
    assert finding.code == "invalid-yaml" and finding.line == 3


def test_skills_ref_disagreements_are_exactly_the_documented_ones(tmp_path):
    """Run the installed reference validator on every vector: it must still give its recorded
    verdicts, and it must differ from us exactly on DEVIATIONS."""
    validator = pytest.importorskip("skills_ref.validator")
    differ = {}
    for vector in VECTORS:
        skill_dir = _materialise(tmp_path, vector)
        reference = validator.validate(skill_dir)
        assert [e.replace(str(tmp_path), "<TMP>") for e in reference] == [
            e.replace(f"<TMP>/{vector['id']}", str(tmp_path / vector["id"])).replace(str(tmp_path), "<TMP>")
            for e in vector["skills_ref_0_1_1_errors"]], vector["id"]
        ours_valid = not _errors(validate_agentskills(skill_dir))
        if ours_valid != (not reference):
            differ[vector["id"]] = ours_valid
    assert differ == DEVIATIONS


# --- Claude Code lint ---

def _skill(tmp_path: Path, name: str, text: str) -> Path:
    skill_dir = tmp_path / "skills" / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    (skill_dir / "SKILL.md").write_text(text, encoding="utf-8")
    return skill_dir / "SKILL.md"


def _codes(findings):
    return [(f.code, f.line) for f in findings]


def test_no_description_shows_the_fallback(tmp_path):
    path = _skill(tmp_path, "nodesc", "---\nname: nodesc\n---\n\n# Deploy the app\nmore\n")
    (finding,) = [f for f in lint_claude_code(path) if f.code == "no-description"]
    assert "'Deploy the app'" in finding.message  # spec §2: first non-empty line, `#` stripped


def test_entry_over_cap_says_where_it_is_cut(tmp_path):
    description = "x" * 240 + "TAIL-SEEN" + "y" * 20
    path = _skill(tmp_path, "long", f"---\ndescription: {description}\n---\nbody\n")
    legacy = [f for f in lint_claude_code(path, profile=get_profile("legacy")) if f.code == "entry-over-cap"]
    assert len(legacy) == 1 and legacy[0].line == 2
    # legacy cap 250: the first 249 chars (240 x + "TAIL-SEEN") are kept, then "…"; the 20 y are cut
    assert "never sees “…yyyy" in legacy[0].message
    assert [f for f in lint_claude_code(path, profile=get_profile("current")) if f.code == "entry-over-cap"] == []


def test_when_to_use_counts_towards_the_cap(tmp_path):
    path = _skill(tmp_path, "wtu", "---\ndescription: short\nwhen_to_use: " + "w" * 300 + "\n---\n")
    (finding,) = [f for f in lint_claude_code(path, profile=get_profile("legacy")) if f.code == "entry-over-cap"]
    assert finding.line == 3 and "308 characters" in finding.message  # "short - " + 300


def test_name_differs_from_directory(tmp_path):
    path = _skill(tmp_path, "Bad_Name", "---\nname: Bad Name!\ndescription: d\n---\n")
    assert ("display-name-differs", 2) in _codes(lint_claude_code(path))


def test_camel_case_keys_are_ignored(tmp_path):
    path = _skill(tmp_path, "camel", "---\ndescription: d\nwhenToUse: x\nargumentHint: y\nallowedTools: Bash\n"
                                     "disableModelInvocation: true\nuserInvocable: false\nwhen_to_use: ok\n---\n")
    assert [c for c in _codes(lint_claude_code(path)) if c[0] == "ignored-key"] == [
        ("ignored-key", 3), ("ignored-key", 4), ("ignored-key", 5), ("ignored-key", 6), ("ignored-key", 7)]


@pytest.mark.parametrize("pattern,never", [("./src/**", True), ("../other/*.ts", True), ("/home/me/p/*.py", True),
                                           ("~/x", True), ("C:\\src\\*", True), ("src/**", False),
                                           ("/src/*.ts", False), ("**/*.md", False)])
def test_paths_that_can_never_match(pattern, never):
    assert (unmatchable_path_reason(pattern) is not None) == never


def test_paths_lint_reads_lists_and_comma_strings(tmp_path):
    path = _skill(tmp_path, "p", "---\ndescription: d\npaths: ./a/*, src/{x,y}/*.ts, ../b\n---\n")
    assert [f.message.split("'")[1] for f in lint_claude_code(path) if f.code == "paths-never-match"] == ["./a/*", "../b"]


def test_unknown_shell_effort_context(tmp_path):
    path = _skill(tmp_path, "e", "---\ndescription: d\nshell: zsh\neffort: xhigh\ncontext: forked\n---\n")
    legacy = _codes(lint_claude_code(path, profile=get_profile("legacy")))
    current = _codes(lint_claude_code(path, profile=get_profile("current")))
    assert ("unknown-shell", 3) in legacy and ("unknown-context", 5) in legacy
    assert ("unknown-effort", 4) in legacy and ("unknown-effort", 4) not in current  # xhigh: current only
    ok = _skill(tmp_path, "ok", "---\ndescription: d\nshell: PowerShell\neffort: 3\ncontext: fork\n---\n")
    assert not [c for c in _codes(lint_claude_code(ok)) if c[0].startswith("unknown-")]


def test_lone_md_in_skills_dir(tmp_path):
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "notes.md").write_text("# not a skill\n")
    _skill(tmp_path, "real", "---\ndescription: d\n---\n")
    assert [f.code for f in lint_skills_dir(skills)] == ["lone-md-ignored"]


def test_unreadable_file_gives_a_diagnostic(tmp_path, monkeypatch):
    path = _skill(tmp_path, "locked", "---\ndescription: d\n---\n")
    real_open = open

    def deny(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", deny)
    real_os_open = os.open  # skill files are read through a raw descriptor (safe_read.read_text_file)

    def deny_fd(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny_fd)
    assert [f.code for f in lint_claude_code(path)] == ["unreadable"]
    assert [f.code for f in validate_agentskills(path.parent)] == ["unreadable"]


def test_validate_paths_accepts_file_dir_and_skills_dir(tmp_path):
    good = _skill(tmp_path, "good", "---\nname: good\ndescription: d\n---\n")
    _skill(tmp_path, "Bad", "---\nname: bad\ndescription: d\n---\n")
    by_file = validate_paths([good])
    assert [r.valid for r in by_file.reports] == [True]
    by_dir = validate_paths([tmp_path / "skills"], standard=AGENTSKILLS)
    assert {r.name: r.valid for r in by_dir.reports} == {"Bad": False, "good": True}
    missing = validate_paths([tmp_path / "nope"])
    assert missing.reports[0].findings[0].code == "missing-path"
    assert validate_paths([tmp_path / "skills"], standard=CLAUDE_CODE).error_count == 0


def test_cli_validate_json_and_exit_codes(tmp_path):
    from skillmanager.cli import main
    _skill(tmp_path, "good", "---\nname: good\ndescription: d\n---\n")
    out = io.StringIO()
    assert main(["validate", str(tmp_path / "skills" / "good"), "--json"], out) == 0
    data = json.loads(out.getvalue())
    assert data["standard"] == "agentskills" and data["skills"][0]["valid"] is True
    _skill(tmp_path, "Bad", "---\nname: bad\ndescription: d\n---\n")
    out = io.StringIO()
    assert main(["validate", str(tmp_path / "skills")], out) == 1
    assert "name-directory-mismatch" in out.getvalue()
    assert main(["validate", str(tmp_path / "missing")], io.StringIO()) == 2
