"""Argument splitting and substitution, per profile, pinned to the oracle findings
(tests/oracle/FINDINGS-expansion.md) and to the shell-quote module shipped in cli.js."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from skillmanager.core.layers.arguments import (ArgumentsTooLong, escape_shell_bangs, first_command_words,
                                                split_arguments, substitute_arguments)
from skillmanager.core.load.skill_file import parse_argument_names
from skillmanager.core.js.shell_quote import ShellQuoteError, parse
from skillmanager.core.versions.profiles import get_profile

from locations import LEGACY_CLI_JS as CLI_JS, missing  # noqa: E402

LEGACY_P, CURRENT_P = get_profile("legacy"), get_profile("current")

LEGACY_SPLITS = [  # observed with 2.1.88 (expand-args)
    ('one "two three"', ["one", "two three"]),
    ("a | b ; c && d > out.txt < in 2>&1", ["a", "b", "c", "d", "out.txt", "in", "2", "1"]),
    ("$HOME $(whoami) ${X} `id`", ["$HOME", "$", "whoami", "$X", "`id`"]),
    ("*.ts src/**/x.ts ? [ab]", ["[ab]"]),
    ("a #comment b", ["a"]),
    ("x$$y p$&q r$`s", ["x$$", "p$", "q", "r$`s"]),
    ('a "b', ["a", "b"]),
    ("a 'b", ["a", "b"]),
    ("'it''s'", ["its"]),
    ("a\"b\"c d'e'f", ["abc", "def"]),
    ('"" x', ["", "x"]),
    ('back\\ slash a\\"b c\\\\d \\$HOME', ["back slash", 'a"b', "c\\d", "$HOME"]),
    ("a\t\tb   c", ["a", "b", "c"]),
    ("", []),
    ("   ", []),
    ("${}", ["${}"]),  # shell-quote throws "Bad substitution": whitespace fallback
]

CURRENT_SPLITS = [  # observed with 2.1.332 (expand-args)
    ('one "two three"', ["one", "two three"]),
    ("a | b ; c && d > out.txt < in 2>&1", ["a"]),
    ("$HOME $(whoami) ${X} `id`", ["$HOME"]),
    ("a #comment b", ["a"]),
    ("line1\nline2", ["line1"]),
    ("x$$y p$&q r$`s", ["x$$y", "p$"]),
    ("*.ts src/**/x.ts ? [ab]", ["*.ts", "src/**/x.ts", "?", "[ab]"]),
    ('a "b', ["a", '"b']),
    ("a 'b", ["a", "'b"]),
    ("'it''s'", ["its"]),
    ('"" x', ["", "x"]),
    ('back\\ slash a\\"b c\\\\d \\$HOME', ["back slash", 'a"b', "c\\d", "$HOME"]),
    ("a 'b c'", ["a", "b c"]),
    ("", []),
    # fuzz-expand-* and expand-argsplit captures (2.1.332)
    ("FOO=bar  x", ["x"]),  # assignments before the command name are skipped
    ("FOO=bar", ["FOO=bar"]),  # nothing but an assignment: whitespace fallback
    ("FOO=bar $HOME x", ["$HOME", "x"]),
    ("FOO=bar $(whoami) a|b a>bbeta ", ["FOO=bar", "$(whoami)", "a|b", "a>bbeta"]),
    ("é $name", ["é"]),  # a lone `$VAR` argument is dropped
    ("src/**/x.ts  $((1+2)) \\\\", ["src/**/x.ts", "\\"]),  # so is `$((…))`
    ('$"loc" d\'e\'f $0 `id` $$  ${VAR} 中文', ["$loc", "def"]),
    ("\r\n $ARGUMENTS[0]  x$$y", ["$ARGUMENTS[0]", "x$$y"]),  # \r is a blank; leading newlines skipped
    ("|  '  a\"b\"c\t\\\\", ["'  a\"b\"c\t\\\\"]),  # stray operator skipped; unclosed quote runs to the end
    ('" ?    ~/x-v', ['" ?    ~/x-v']),
    ("${X  src/app.py \\\\\t", ["${X  src/app.py \\\\\t"]),  # an unclosed `${` runs to the end …
    ("${X {a,b}  $1", ["${X {a,b}"]),  # … a closed one ends at its first `}`
    ("| < ARGUMENTS $&", ["$"]),  # a leading redirection and its target are skipped
    (">  && $0x x\t", ["$0x", "x"]),
    ("x$$y a>b  *.py {a,b})  a>bx$$y", ["x$$y", "a"]),  # a redirection ends the words
    ("src/app.py'it''s'\t2>&1\t\ufeff\t", ["src/app.pyits"]),
    ("2>&1\t}\t42 ~/x\t${CLAUDE_SKILL_DIR} naïve", ["42", "~/x", "naïve"]),
    ('"a\\"b"  ""\t\'single quoted\' >>\t日本語\t"', ['a\\"b', "", "single quoted"]),  # strings keep escapes
    ("naïve \\  a\"b\"c\tx\t--flag", ["naïve", " ", "abc", "x", "--flag"]),  # `\\ ` is a word
    ("Ω \\", ["Ω"]),  # a trailing backslash is dropped
    ("a\\\nb c", ["a", "b", "c"]),
    ("[ab] naïve a#b src/**/x.ts x ", ["naïve", "a#b", "src/**/x.ts", "x"]),
    ("[ab]beta\t\\\\--flag ", ["\\--flag"]),
    ("[ab] Ω 2>&1\ta|b 日本語\t", ["ab]", "Ω"]),
    ("[[ a ]] b", ["b"]),
    ("if a; then b; fi", ["a"]),
    ("export A=1 b", ["export"]),
    ("<(y) z", ["<(y)", "z"]),
    ("{ a b; }", ["a", "b"]),
    ("ARGUMENTS\t|| 0 a>b src/**/x.ts", ["ARGUMENTS", "||", "0", "a>b", "src/**/x.ts"]),  # parse fails
    ("über} a=b \\\\|| >> ~", ["über}", "a=b", "\\"]),
    ("end. \u3000(\t`id`)\t", ["end."]),
    ("中文 {'sq $HOME' alpha\t", ["中文", "{'sq", "$HOME' alpha\t"]),
    (") tab\there", ["tab", "here"]),
    ("&  ) ~ ~/x", ["~", "~/x"]),
]


@pytest.mark.parametrize(("text", "words"), LEGACY_SPLITS)
def test_legacy_split(text, words):
    assert split_arguments(text, LEGACY_P) == words


@pytest.mark.parametrize(("text", "words"), CURRENT_SPLITS)
def test_current_split(text, words):
    assert split_arguments(text, CURRENT_P) == words


def test_current_split_limits():
    assert first_command_words("x" * 10_001) == []
    assert split_arguments("a " * 6000, CURRENT_P) == ["a"] * 6000  # > 10,000 chars: whitespace fallback


def test_shell_quote_objects():
    assert parse("a > b") == ["a", {"op": ">"}, "b"]
    assert parse("*.ts") == [{"op": "glob", "pattern": "*.ts"}]
    assert parse("a #x y") == ["a", {"comment": "x y"}]
    with pytest.raises(ShellQuoteError):
        parse("${}")


def _node_shell_quote(tmp_path: Path) -> Path:
    source = CLI_JS.read_text(encoding="utf-8")
    start_marker = "var cK4=m((vgA,dK4)=>{"
    start = source.find(start_marker)
    end = source.find("});var iG8=m(", start)
    if start < 0 or end < 0:
        missing("shell-quote module not found in cli.js")
    module = tmp_path / "shellquote_parse.js"
    module.write_text("const dK4={exports:null};\n" + source[start + len(start_marker):end] +
                      "\nmodule.exports=dK4.exports;\n", encoding="utf-8")
    runner = tmp_path / "run.js"
    runner.write_text(
        f"const parse=require({json.dumps(str(module))});"
        "const inputs=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(inputs.map(s=>{try{return {ok:parse(s,n=>'$'+n)}}"
        "catch(e){return {err:e.message}}})));", encoding="utf-8")
    return runner


def test_shell_quote_port_equals_bundled_module(tmp_path):
    """20,000 random strings through the shell-quote shipped in 2.1.88's cli.js and through the port."""
    if shutil.which("node") is None or not CLI_JS.exists():
        missing("node or the 2.1.88 cli.js is not available")
    runner = _node_shell_quote(tmp_path)
    rng = random.Random(7)
    alphabet = list("ab $\\\"'#*?|&;()<>{}`\t\n-_!@1") + ["${", "$$", "${x}", "\u00a0", "é", "😀", "\u2028"]
    inputs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(20_000)]
    done = subprocess.run(["node", str(runner)], input=json.dumps(inputs), capture_output=True, text=True, check=True)
    for text, theirs in zip(inputs, json.loads(done.stdout)):
        try:
            ours = {"ok": parse(text)}
        except ShellQuoteError as error:
            ours = {"err": str(error)}
        assert ours == theirs, text


def test_argument_names():
    assert parse_argument_names("first second  3 ") == ["first", "second"]
    assert parse_argument_names(["a", "", "12", "b"]) == ["a", "b"]
    assert parse_argument_names(None) == [] and parse_argument_names(5) == []


PH = "N1=[$first] N2=[$second] NL=[$firstly] NB=[$first[0]] ND=[$first-dash] D0=[$0] D9=[$9] A5=[$ARGUMENTS[5]] AX=[$ARGUMENTSX]"


def test_placeholders_legacy():
    out = substitute_arguments(PH, 'one "two three" four', LEGACY_P, ["first", "second"])
    assert out == ("N1=[one] N2=[two three] NL=[$firstly] NB=[$first[0]] ND=[one-dash] D0=[one] D9=[] A5=[] "
                   'AX=[one "two three" fourX]')


def test_placeholders_current():
    out = substitute_arguments(PH, 'one "two three" four', CURRENT_P, ["first", "second"])
    assert out == ("N1=[one] N2=[two three] NL=[$firstly] NB=[$first[0]] ND=[one-dash] D0=[one] D9=[$9] "
                   'A5=[$ARGUMENTS[5]] AX=[one "two three" fourX]')


def test_legacy_js_replacement_patterns_and_resubstitution():
    # $$ → $, $& → the match, $` → the text before it (observed: expand-args)
    assert substitute_arguments("A=[$ARGUMENTS]", "x$$y p$&q r$`s", LEGACY_P) == "A=[x$y p$ARGUMENTSq rA=[s]"
    assert substitute_arguments("[$first]", "$second X", LEGACY_P, ["first", "second"]) == "[X]"
    assert substitute_arguments("[$first]", "$second X", CURRENT_P, ["first", "second"]) == "[$second]"
    assert substitute_arguments("A=[$ARGUMENTS]", "x$$y p$&q", CURRENT_P) == "A=[x$$y p$&q]"


def test_escapes_and_appending():
    assert substitute_arguments("\\$0 $$0", "one", CURRENT_P) == "$0 $one"
    assert substitute_arguments("\\$0 $$0", "one", LEGACY_P) == "\\one $one"
    assert substitute_arguments("No placeholder.\n", "x y", LEGACY_P) == "No placeholder.\n\n\nARGUMENTS: x y"
    assert substitute_arguments("No placeholder.\n", "x y", CURRENT_P) == "No placeholder.\n\n\nARGUMENTS: x y"
    assert substitute_arguments("No placeholder.\n", "", CURRENT_P) == "No placeholder.\n"
    # current: a missing index is not a replacement, so the raw arguments are appended
    assert substitute_arguments("[$9]", "x", CURRENT_P) == "[$9]\n\nARGUMENTS: x"
    assert substitute_arguments("[$9]", "x", LEGACY_P) == "[]"


def test_current_longest_name_first_and_limits():
    assert substitute_arguments("$ab $a", "1 2", CURRENT_P, ["a", "ab"]) == "2 1"
    with pytest.raises(ArgumentsTooLong):
        substitute_arguments("$ARGUMENTS" * 5, "x" * 1_000_000, CURRENT_P)


def test_current_inserted_values_cannot_start_shell():
    assert escape_shell_bangs("a !`id` b!`x` !z") == "a \\! `id` b! `x` \\!z"
    out = substitute_arguments("run: $ARGUMENTS", "!`id`", CURRENT_P, value_transform=escape_shell_bangs)
    assert out == "run: \\! `id`"
