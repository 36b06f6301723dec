"""One-line edits of `disable-model-invocation` in SKILL.md front matter."""

from __future__ import annotations


import pytest
import yaml

from skillmanager.core.edit.frontmatter_edit import (
    FrontMatterEditError,
    find_front_matter,
    set_front_matter_bool,
)

KEY = "disable-model-invocation"
from locations import CORPUS  # noqa: E402

SKILL = """---
# Maintained by the docs team
name: pdf-tools
description: "Extract text: tables, forms"   # quoted on purpose
allowed-tools:
  - Read
  - Bash(pdftotext:*)
---

# PDF tools

Use `pdftotext`.
---
Not front matter.
"""


def _fm(text: str) -> dict:
    start, end = find_front_matter(text)
    return yaml.safe_load(text[start:end]) or {}


def test_adds_line_before_closing_delimiter() -> None:
    new = set_front_matter_bool(SKILL, KEY, True)
    assert new == SKILL.replace("  - Bash(pdftotext:*)\n---", f"  - Bash(pdftotext:*)\n{KEY}: true\n---", 1)
    assert _fm(new) == {**_fm(SKILL), KEY: True}


def test_changes_only_the_value_token() -> None:
    text = SKILL.replace("name: pdf-tools\n", f"name: pdf-tools\n{KEY}: true  # hidden for now\n")
    assert set_front_matter_bool(text, KEY, False) == text.replace(": true  #", ": false  #")
    assert set_front_matter_bool(text, KEY, True) is text


def test_none_removes_the_line_and_only_it() -> None:
    text = SKILL.replace("name: pdf-tools\n", f"name: pdf-tools\n{KEY}: false\n")
    assert set_front_matter_bool(text, KEY, None) == SKILL
    assert set_front_matter_bool(SKILL, KEY, None) is SKILL


@pytest.mark.parametrize("old", ['"true"', "'true'", "yes", "True", "on", ""])
def test_other_spellings_are_rewritten_as_plain_booleans(old) -> None:
    text = f"---\nname: x\n{KEY}: {old}\nother: 1\n---\nbody\n".replace(f"{KEY}: \n", f"{KEY}:\n")
    new = set_front_matter_bool(text, KEY, False)
    assert new == f"---\nname: x\n{KEY}: false\nother: 1\n---\nbody\n"


def test_crlf_and_bom_are_kept() -> None:
    text = "\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nBody line\r\n"
    new = set_front_matter_bool(text, KEY, True)
    assert new == f"\ufeff---\r\nname: x\r\ndescription: d\r\n{KEY}: true\r\n---\r\nBody line\r\n"
    assert set_front_matter_bool(new, KEY, None) == text


def test_creates_front_matter_when_missing_and_keeps_body() -> None:
    body = "# Title\n\nSome text\n"
    new = set_front_matter_bool(body, KEY, True)
    assert new == f"---\n{KEY}: true\n---\n{body}"
    assert set_front_matter_bool(body, KEY, None) is body
    crlf = "# Title\r\nText"
    assert set_front_matter_bool(crlf, KEY, False) == f"---\r\n{KEY}: false\r\n---\r\n{crlf}"
    assert set_front_matter_bool("", KEY, True) == f"---\n{KEY}: true\n---\n"


def test_body_that_starts_with_a_rule_without_closing_is_not_front_matter() -> None:
    body = "---\njust a horizontal rule and no closing delimiter\n"
    assert find_front_matter(body) is None
    new = set_front_matter_bool(body, KEY, True)
    assert new.endswith(body) and _fm(new) == {KEY: True}


def test_empty_front_matter_block() -> None:
    assert set_front_matter_bool("---\n---\nbody", KEY, True) == f"---\n{KEY}: true\n---\nbody"


@pytest.mark.parametrize(
    "front,fragment",
    [
        ("name: [unclosed\n", "not valid YAML"),
        ("- a list\n", "not a mapping"),
        (f"{KEY}:\n  - true\n", "multi-line"),
        (f"{KEY}: true\n  continued\n", "multi-line"),
        (f"{KEY}: {{a: 1}}\n", "cannot be rewritten"),
        (f"{KEY}: &flag true\nother: *flag\n", "cannot be rewritten"),
        (f"{KEY}: !!bool true\n", "cannot be rewritten"),
        (f"{KEY}: |\n  true\n", "cannot be rewritten"),
        (f"{{{KEY}: true}}\n", "cannot be rewritten"),
        (f"{KEY}: true\n{KEY}: false\n", "more than once"),
        ('description: "a\ndisable-model-invocation: true"\n', "not a top-level key"),
    ],
)
def test_unsafe_front_matter_is_refused(front, fragment) -> None:
    text = f"---\n{front}---\nbody\n"
    for value in (True, False, None):
        with pytest.raises(FrontMatterEditError, match=fragment):
            set_front_matter_bool(text, KEY, value)


def test_flow_mapping_front_matter_without_key_is_refused_not_corrupted() -> None:
    text = "---\n{name: x}\n---\nbody\n"
    with pytest.raises(FrontMatterEditError):
        set_front_matter_bool(text, KEY, True)


def test_yaml_error_reports_line_in_the_file() -> None:
    text = "---\nname: x\ndescription: [oops\n---\n"
    with pytest.raises(FrontMatterEditError, match=r"line \d+:\d+"):
        set_front_matter_bool(text, KEY, True)


def test_closing_delimiter_glued_to_a_value_is_refused() -> None:
    # Claude Code's /^---\s*\n([\s\S]*?)---/ would end the front matter inside the value.
    text = "---\nname: x\ndescription: a---b\n---\nbody"
    with pytest.raises(FrontMatterEditError, match="closing"):
        set_front_matter_bool(text, KEY, True)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        set_front_matter_bool(SKILL, KEY, "true")  # type: ignore[arg-type]
    with pytest.raises(FrontMatterEditError):
        set_front_matter_bool(SKILL, "bad key: x", True)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="skill corpus not available")
def test_round_trip_over_the_real_corpus() -> None:
    files = sorted(CORPUS.rglob("SKILL.md"))
    assert len(files) > 1000
    refused = 0
    for path in files:
        text = path.read_bytes().decode("utf-8")
        try:
            on = set_front_matter_bool(text, KEY, True)
        except FrontMatterEditError:
            refused += 1
            continue
        start, end = find_front_matter(on)
        assert on[end:].endswith(text[find_front_matter(text)[1]:] if find_front_matter(text) else text)
        off = set_front_matter_bool(on, KEY, False)
        assert set_front_matter_bool(off, KEY, None) == text, path
    assert refused == 0
