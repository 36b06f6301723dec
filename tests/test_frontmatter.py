"""§2 parsing rules through the skill-file layer (both profiles)."""
from pathlib import Path

from skillmanager.core.model import SourceKind
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.load.skill_file import effective_paths, load_skill_file

L, C = get_profile("legacy"), get_profile("current")


def _load(tmp_path: Path, text: str, profile=C, raw: bytes | None = None):
    path = tmp_path / "s" / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw if raw is not None else text.encode("utf-8"))
    return load_skill_file(path, name="s", kind="skill", source=SourceKind.USER, profile=profile,
                           source_root=tmp_path, skill_dir=path.parent, fallback_label="Skill")


def test_yaml12_booleans_per_profile(tmp_path):
    text = "---\ndescription: d\ndisable-model-invocation: yes\n---\nb\n"
    assert _load(tmp_path, text, L).disable_model_invocation is False
    assert _load(tmp_path, text, C).disable_model_invocation is True
    assert _load(tmp_path, "---\nuser-invocable: false\n---\nb\n").user_invocable is False
    assert _load(tmp_path, "---\nuser-invocable:\n---\nb\n").user_invocable is False  # null is not undefined


def test_camel_case_ignored_and_fallback(tmp_path):
    s = _load(tmp_path, "---\nwhenToUse: x\n---\n\n## Title here\nmore\n")
    assert s.when_to_use is None and s.description == "Title here" and s.description_from_body
    long = _load(tmp_path, "# " + "a" * 150 + "\n")
    assert long.description == "a" * 97 + "..."
    assert _load(tmp_path, "").description == "Skill"
    assert _load(tmp_path, "---\ndescription: 42\n---\n").description == "42"


def test_duplicate_keys_and_bad_yaml_recovery(tmp_path):
    dup_text = "---\ndescription: a\ndescription: b\n---\nbody line\n"
    dup = _load(tmp_path, dup_text, L)  # 2.1.88's `yaml` rejects repeated keys: body fallback
    assert dup.description == "body line" and any(d.code == "yaml-invalid" for d in dup.diagnostics)
    assert _load(tmp_path, dup_text, C).description == "b"  # Bun.YAML: last wins (FINDINGS-registry.md, oracle)
    rec = _load(tmp_path, "---\ndescription: Use when: things happen\n---\nb\n")
    assert rec.description == "Use when: things happen" and any(d.code == "yaml-recovered" for d in rec.diagnostics)


def test_bom_crlf_and_inline_dashes(tmp_path):
    raw = "\ufeff---\ndescription: d\n---\nbody\n".encode("utf-8")
    assert _load(tmp_path, "", L, raw).description == "---"
    assert _load(tmp_path, "", C, raw).description == "d"
    crlf = _load(tmp_path, "", C, b"---\r\ndescription: d\r\n---\r\nline\r\n")
    assert crlf.description == "d" and crlf.body == "line\r\n"
    mid = _load(tmp_path, "---\ndescription: a --- b\n---\nbody\n")
    assert mid.description == "a"  # the closing --- may sit mid-line, as in Claude Code's regex


def test_paths_rules():
    assert effective_paths({"paths": "src/**, docs/{a,b}/*.md"}) == ["src", "docs/a/*.md", "docs/b/*.md"]
    assert effective_paths({"paths": ["**"]}) is None
    assert effective_paths({"paths": "a/**"}) == ["a"]
