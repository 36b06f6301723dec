"""The inline-shell parser against the real CLI's behaviour and its own regexes.

Golden sources: tests/oracle/FINDINGS-expansion.md + tests/golden/expand-shell (what the real CLI ran),
and a differential check that executes the regex literals taken from the installed legacy cli.js in node.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillmanager.core.layers.inline_shell import BLOCK, INLINE, find_inline_shell

from locations import LEGACY_CLI_JS as CLI_JS, missing  # noqa: E402
GOLDEN = Path(__file__).parent / "golden" / "expand-shell"


def commands(text):
    return [(s.kind, s.command) for s in find_inline_shell(text)]


# --- cases settled with the real CLI (expand-shell fixture bodies, FINDINGS-expansion.md) ---

def test_inline_after_space_runs():
    assert commands("cwd= !`pwd` \nafter\n") == [(INLINE, "pwd")]


def test_two_inline_in_one_line():
    assert commands("a !`echo A` b !`echo B` c\n") == [(INLINE, "echo A"), (INLINE, "echo B")]


def test_block_runs_its_lines_as_one_command():
    snippets = find_inline_shell("before\n```!\necho one\necho two\n```\nafter\n")
    assert [(s.kind, s.command, s.line, s.end_line) for s in snippets] == [(BLOCK, "echo one\necho two", 2, 5)]
    assert snippets[0].matched == "```!\necho one\necho two\n```"


@pytest.mark.parametrize("text", ["x!`echo no` (!`echo paren`)\n", "[!`pwd`]", "x!`echo no`", "(!`echo paren`)",
                                  "$!`x`", "`foo`!`bar`"])
def test_bang_not_after_whitespace_is_literal(text):
    assert find_inline_shell(text) == []


def test_bang_at_start_of_text_and_of_line():
    assert commands("!`a`\n!`b`") == [(INLINE, "a"), (INLINE, "b")]


def test_empty_command_does_not_run():
    # `if (command)` after trim: whitespace-only commands are skipped
    assert find_inline_shell("x !`   ` y ```!\n\n```") == []


def test_offsets_lines_and_matched_text():
    text = "line one\nsay !`echo  hi ` now\n"
    (snippet,) = find_inline_shell(text)
    assert snippet.command == "echo  hi"  # trimmed, inner spacing kept
    assert text[snippet.start:snippet.end] == snippet.matched == "!`echo  hi `"
    assert snippet.line == 2
    assert find_inline_shell(text, first_line=5)[0].line == 6


def test_blocks_come_before_inline_and_inline_inside_blocks_is_found():
    text = "a !`first`\n```!\necho !`inner`\n```\n"
    assert commands(text) == [(BLOCK, "echo !`inner`"), (INLINE, "first"), (INLINE, "inner")]


def test_inline_command_may_span_lines():
    # JS `[^`]+` matches newlines
    assert commands("x !`echo a\necho b` y") == [(INLINE, "echo a\necho b")]


def test_golden_expand_shell_commands_ran_where_parser_says():
    """The expansions recorded from the real CLI contain no leftover pattern for the skills we parse as
    running, and keep the literal text for sh-nospace."""
    for profile in ("legacy", "current"):
        path = GOLDEN / f"{profile}.json"
        blocks = {c["input"]["skill"]: c["extra_texts"][0] for c in json.loads(path.read_text())["turns"]
                  if c["tool"] == "Skill" and c.get("extra_texts")}
        assert blocks["sh-nospace"].endswith("x!`echo no` (!`echo paren`)\n")
        assert "!`" not in blocks["sh-two"]
        assert blocks["sh-two"].endswith("a A b B c\n")


# --- differential check against the regexes in the real cli.js, executed by node ---

def _cli_regexes():
    if not CLI_JS.exists() or shutil.which("node") is None:
        missing("legacy cli.js or node not available")
    source = CLI_JS.read_text(encoding="utf-8", errors="replace")
    match = re.search(r"=(/```!\S*?/g),\w+=(/\(\?<=\^\|\\s\)!`\S*?/gm)", source)
    assert match, "regex literals not found in cli.js"
    return match.group(1), match.group(2)


def _node_find(texts):
    block, inline = _cli_regexes()
    script = f"""
const B={block}, I={inline};
const texts=JSON.parse(require('fs').readFileSync(0,'utf8'));
const out=texts.map(text=>{{
  const b=[...text.matchAll(B)].map(m=>['block',m[1]?.trim(),m.index,m.index+m[0].length]);
  const i=text.includes('!`')?[...text.matchAll(I)].map(m=>['inline',m[1]?.trim(),m.index,m.index+m[0].length]):[];
  return [...b,...i].filter(x=>x[1]);
}});
process.stdout.write(JSON.stringify(out));
"""
    result = subprocess.run(["node", "-e", script], input=json.dumps(texts), capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout)


def _ours(text):
    return [[s.kind, s.command, s.start, s.end] for s in find_inline_shell(text)]


TRICKY = ["!`a`", " !`a`", "\u00a0!`a`", "\ufeff!`a`", "\u2028!`a`", "\r!`a`", "\x1c!`a`", "\x85!`a`",
          "\t!`a\u3000`", "```!   \n\n x \n\n```", "```!```", "````!\nx\n````", "```!\r\nx\r\n```",
          "!``", "!`\u2029`", "a!`b` c !`d`e", "```!\n!`x`\n```"]


def test_matches_cli_js_on_tricky_whitespace():
    assert [_ours(t) for t in TRICKY] == _node_find(TRICKY)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(alphabet="!`x \n\r\t\u00a0\ufeff\u2028\x1c\x85[", max_size=30), min_size=60, max_size=60))
def test_matches_cli_js_on_generated_text(texts):
    assert [_ours(t) for t in texts] == _node_find(texts)
