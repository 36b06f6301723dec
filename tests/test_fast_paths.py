"""The scan/listing/token fast paths give exactly what the slow, general code gives.

Each fast path accepts only inputs where its answer is certain and hands everything else to the
general code; these tests compare the two on generated input and on every real SKILL.md we have.
"""
from __future__ import annotations

import json
import re
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from locations import CORPUS
from skillmanager.core.load import frontmatter
from skillmanager.core.load.frontmatter import _FRONT_MATTER_RE, _split_simple, parse_document
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.load.sources import load_skills_dir, realpath_dedupe
from skillmanager.core.model import SourceKind
from skillmanager.core.load import parse_cache, yaml12
from skillmanager.core.load.yaml12 import load_simple_mapping
from skillmanager.core.load.yaml12_loader import load_yaml12_full

DATA = Path(__file__).parent / "data"
CORPORA = [DATA / "corpus_sample", CORPUS]

# Characters that matter to YAML or to the fast path's guards, plus ordinary text.
_TRICKY = list("#:'\"-?,[]{}&*!|>%@`~. \t\r\\=<+_/()$;^") + [
    "\x85", "\u2028", "\u2029", "\ufeff", "\x00", "\x07", "\x7f", "\x9f", "\xa0", "\ufffe", "\uffff",
    "\u00e9", "\u2014", "\u4e2d", "\U0001f600", "\ud800"]
_TEXT = st.text(alphabet=st.sampled_from(_TRICKY) | st.characters(min_codepoint=0x20, max_codepoint=0x7e),
                max_size=20)
_SPECIAL_VALUES = ["1", "-2", "+3", "0x1F", "0o17", "017", "1.5", ".5", "1e3", "1E-2", ".inf", "-.Inf", ".NaN",
                   "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "FALSE", "yes", "no", "on",
                   "2024-01-01", "1_000", "0b101", "NaN", "nan", "Infinity", "y", "n", "=", "<<"]
_KEYS = st.sampled_from(["name", "description", "when_to_use", "allowed-tools", "user-invocable", "_x", "a-",
                         "true", "True", "NULL", "null", "False", "yes", "on", "y", "1a", "-x", "x1",
                         "k" * 129, "k" * 128, "a b", "é", "?a", "paths"]) | _TEXT
_VALUES = st.sampled_from(_SPECIAL_VALUES) | _TEXT
_SEPARATORS = st.sampled_from([": ", ":", ":  ", ": \t", " : ", ":\t", ": ", "::"])
_LINES = st.one_of(
    st.builds(lambda k, s, v: f"{k}{s}{v}", _KEYS, _SEPARATORS, _VALUES),
    st.sampled_from(["", "  ", "# comment", "- item", "  - item", "  nested: x", "...", "---", "%YAML 1.2",
                     "? complex", "&a x: y", "key: &anchor v", "key: *alias", "key: !tag v", "key: |",
                     "key: >-", "  folded text", "key: [a, b]", "key: {a: b}", "key: 'q'", 'key: "q"']),
    _TEXT,
)
# Real-shaped front matter: quoted scalars, flow lists of words, one-level blocks (the extended fast path).
_QUOTED = st.builds(lambda q, t: f"{q}{t}{q}", st.sampled_from(['"', "'"]), _TEXT)
_FLOW = st.lists(st.sampled_from(["rube", "a-b", "x.y", "p/q", "1", "true", "0x1", "_k", "", " s", "a b", "é"]),
                 max_size=3).map(lambda items: "[" + ", ".join(items) + "]") | st.sampled_from(["[]", "[ a ]", "[a,b]"])
_BLOCK_LINE = st.builds(lambda indent, body: indent + body, st.sampled_from(["  ", "    ", " ", "\t", ""]),
                        st.one_of(st.builds(lambda k, v: f"{k}: {v}", _KEYS, _VALUES | _QUOTED | _FLOW),
                                  st.builds(lambda v: f"- {v}", _VALUES | _QUOTED | _FLOW), st.just("")))
_LINES = _LINES | st.builds(lambda k, v: f"{k}: {v}", _KEYS, _QUOTED | _FLOW) | _BLOCK_LINE
_FRONT_MATTER = st.lists(_LINES, max_size=8).map("\n".join) | st.lists(_LINES, max_size=8).map(
    lambda lines: "\n".join(lines) + "\n")


def _full(text: str):
    try:
        return ("ok", load_yaml12_full(text))
    except Exception as error:  # noqa: BLE001 - the loader's error is part of what we compare
        return ("error", type(error).__name__)


def _typed(value):
    """Equality that also tells 1 from True from "1" and keeps key order."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, value)


def _assert_same_as_loader(text: str) -> None:
    fast = load_simple_mapping(text)
    if fast is not None:
        assert _typed(("ok", fast)) == _typed(_full(text)), repr(text)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FRONT_MATTER)
def test_simple_mapping_matches_the_yaml12_loader(text):
    _assert_same_as_loader(text)


_GOOD_KEYS = st.sampled_from(["name", "description", "when_to_use", "allowed-tools", "license", "metadata",
                              "requires", "mcp", "skill-author", "version", "paths", "tags", "x_1"])
_WORDS = st.text(alphabet=st.sampled_from(list("abcXYZ019 -_.,:#'\"\\/()é中😀") + ["\t", "\x85", "\u2028", "\ufeff"]),
                 min_size=0, max_size=12)
_SHAPED_VALUE = st.one_of(
    _WORDS, _VALUES,
    _WORDS.map(lambda t: f'"{t}"'), _WORDS.map(lambda t: f"'{t}'"),
    st.lists(st.sampled_from(["rube", "a-b", "x.y", "p/q", "2", "null", "_k", "v1.2"]), max_size=3).map(
        lambda items: "[" + ", ".join(items) + "]"))
_SHAPED_ENTRY = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", _GOOD_KEYS, _SHAPED_VALUE),
    st.builds(lambda k, indent, rows: f"{k}:\n" + "\n".join(indent + r for r in rows), _GOOD_KEYS,
              st.sampled_from(["  ", "    ", "  ", " "]),
              st.lists(st.builds(lambda k, v: f"{k}: {v}", _GOOD_KEYS, _SHAPED_VALUE), min_size=1, max_size=3)
              | st.lists(_SHAPED_VALUE.map(lambda v: f"- {v}"), min_size=1, max_size=3)),
    st.sampled_from(["", "key:", "  stray: indent", "# note"]))


@settings(max_examples=4000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_SHAPED_ENTRY, min_size=1, max_size=6).map("\n".join))
def test_real_shaped_front_matter_matches_the_yaml12_loader(text):
    _assert_same_as_loader(text)


_LINE_CHARS = st.sampled_from(list("abcXYZ019 -_.,:#'\"\\/()[]{}!&*|>%@`~?=") + [
    "\t", "\x7f", "\x85", "\xa0", "\u2028", "\ufeff", "\ufffe", "\ud800", "\U0001f600", "\u00e9"])


@settings(max_examples=4000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", _KEYS | _GOOD_KEYS, _SHAPED_VALUE | _VALUES | _QUOTED),
    st.builds(lambda k, q, v: f"{k}: {q}{v}{q}", _GOOD_KEYS, st.sampled_from(['"', "'", ""]),
              st.text(alphabet=_LINE_CHARS, max_size=15)),
    st.text(alphabet=_LINE_CHARS, max_size=20)))
def test_one_regex_line_equals_the_general_line_reader(line):
    assert yaml12._key_value(line) == yaml12._key_value_general(line), repr(line)


def test_simple_mapping_takes_the_common_case_and_refuses_the_rest():
    assert load_simple_mapping("name: x\ndescription: Use it (v2), now!\n") == {
        "name": "x", "description": "Use it (v2), now!"}
    assert load_simple_mapping("a:\nb: c") == {"a": None, "b": "c"}
    assert load_simple_mapping('name: x\ndescription: "Use it: now # really"\nrequires:\n  mcp: [rube, x-y]\n'
                               "metadata:\n    author: 'K. D'\n\nlist:\n  - a\n  - \"b c\"\n") == {
        "name": "x", "description": "Use it: now # really", "requires": {"mcp": ["rube", "x-y"]},
        "metadata": {"author": "K. D"}, "list": ["a", "b c"]}
    for text in ["a: 1", "a: true", "a: null", "a: ~", "a: b # c", "a: b: c", "a: b ", "a:  b",
                 "a: b\na: c", "True: x", "a: |", "a: x\r", "a: x\u2028y", "",
                 "# only a comment", "a: &x b", "a: *x", "a: !t b", "a: -b", "a:\tb", 'a: "x\\n"', "a: 'it''s'",
                 'a: "q" ', "a: [1]", "a: [b, ]", "a: [true]", "a:\n  b:\n    c: d", "a:\n  - b\n  c: d",
                 "a:\n  b: c\n   d: e", "a: b\n  continued", "a:\n  - [b]", "a:\n  -b", "a:\n  - b: c",
                 'a: "\x85"', "a: '\ufeff'", "a:\n\tb: c", "a:\n  \n  b: c"]:
        assert load_simple_mapping(text) is None, text
        _assert_same_as_loader(text)


def test_simple_mapping_on_edge_characters():
    # The whole Unicode range was checked once (every code point as first, middle and last character of
    # a value and inside a key: 4.4 M accepted inputs, no difference); this keeps the boundaries.
    for code in [0x20, 0x7e, 0x7f, 0x84, 0x85, 0x9f, 0xa0, 0xd7ff, 0xe000, 0x2027, 0x2028, 0x2029, 0x202a,
                 0xfefe, 0xfeff, 0xff00, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x10ffff]:
        ch = chr(code)
        for text in (f"a: x{ch}y", f"a: {ch}", f"a: {ch}z", f"a: z{ch}", f"k{ch}: v"):
            _assert_same_as_loader(text)


_DOCS = st.builds(lambda a, b, c: a + b + c,
                  st.sampled_from(["---\n", "---", "--- \n", "---\n\n", "---\n \n", "\ufeff---\n", "", "x---\n"]),
                  st.text(alphabet=st.sampled_from(list("ab:-\n \t\r\u2028\ufeff\xa0")), max_size=30),
                  st.sampled_from(["", "---", "---\n", "--- \n\n  body", "---body", "----\n"]))


@settings(max_examples=3000, deadline=None)
@given(_DOCS)
def test_front_matter_split_matches_the_regex(text):
    split = _split_simple(text)
    if split is not None:
        match = _FRONT_MATTER_RE.match(text)
        assert match is not None
        assert split == (match.group(1) or "", text[match.end():])


def _corpus_files() -> list[Path]:
    files: list[Path] = []
    for root in CORPORA:
        if root.is_dir():
            files += sorted(root.rglob("*.md"))
    return files


def _slow_parse(text: str, strip_bom: bool, monkeypatch) -> frontmatter.ParsedDocument:
    with monkeypatch.context() as patch:
        patch.setattr(frontmatter, "_split_simple", lambda _text: None)
        patch.setattr(frontmatter, "load_simple_mapping", lambda _text: None)
        patch.setattr(frontmatter, "load_yaml12", load_yaml12_full)
        return parse_document(text, strip_bom=strip_bom)


def test_whole_corpus_parses_identically_with_and_without_fast_paths(monkeypatch):
    files = _corpus_files()
    assert len(files) >= 50
    fast_taken = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        for strip_bom in (False, True):
            fast = parse_document(text, strip_bom=strip_bom)
            slow = _slow_parse(text, strip_bom, monkeypatch)
            assert _typed(fast.front_matter) == _typed(slow.front_matter), path
            assert (fast.body, fast.has_front_matter, fast.front_matter_text, fast.yaml_recovered,
                    fast.yaml_error) == (slow.body, slow.has_front_matter, slow.front_matter_text,
                                         slow.yaml_recovered, slow.yaml_error), path
            assert [d.to_json() for d in fast.diagnostics] == [d.to_json() for d in slow.diagnostics], path
        if fast.front_matter_text is not None:
            _assert_same_as_loader(fast.front_matter_text)
            fast_taken += load_simple_mapping(fast.front_matter_text) is not None
    assert fast_taken > 0  # the fast path is really used on real files


def _skill(path: Path, text: str = "---\ndescription: d\n---\nbody\n") -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("cached", [False, True])
def test_realpath_shortcut_equals_os_realpath(tmp_path, cached):
    """The read's no-link answer (O_NOFOLLOW open, or the parse cache's lstat) stands in for realpath_dedupe's
    lstat: a linked SKILL.md or skill folder is still resolved."""
    real_base = tmp_path / "real" / "skills"
    _skill(real_base / "plain")
    _skill(tmp_path / "elsewhere" / "target")
    os.symlink(tmp_path / "elsewhere" / "target", real_base / "dir-link")  # the skill folder is a link
    (real_base / "file-link").mkdir()
    os.symlink(tmp_path / "elsewhere" / "target" / "SKILL.md", real_base / "file-link" / "SKILL.md")
    (real_base / "hard").mkdir()
    os.link(real_base / "plain" / "SKILL.md", real_base / "hard" / "SKILL.md")  # a different realpath
    os.symlink(real_base, tmp_path / "linked-skills")  # the skills dir itself through a link
    profile = get_profile("legacy")

    def load():
        found = []
        for base in (real_base, tmp_path / "linked-skills"):
            found += load_skills_dir(base, SourceKind.PROJECT, profile, [], scope_dir=base)
        return found
    if cached:
        cache_dir = tmp_path / "cache"
        with parse_cache.using(parse_cache.ParseCache.open(profile, cache_dir)):
            load()
        for entry in cache_dir.glob("parse-*.bin"):  # written after the files: not racily clean
            st = entry.stat()
            os.utime(entry, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))
        cache = parse_cache.ParseCache.open(profile, cache_dir)
        with parse_cache.using(cache):
            skills = load()
        assert cache.misses == 0
    else:
        skills = load()
    realpath_dedupe(skills)
    assert len(skills) == 8
    for skill in skills:
        assert str(skill.realpath) == os.path.realpath(skill.path)
    firsts = {str(s.realpath): s for s in skills if s.state.duplicate_of is None}
    assert len(firsts) == 3  # plain, hard, target (reached by dir-link and file-link)
    for skill in skills:
        if skill.state.duplicate_of is not None:
            assert skill.state.duplicate_of is firsts[str(skill.realpath)]


def test_string_path_read_keeps_path_objects_in_diagnostics(tmp_path):
    base = tmp_path / "skills"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "SKILL.md").write_bytes(b"\x00\x01---")
    skills = load_skills_dir(base, SourceKind.USER, get_profile("legacy"), [], scope_dir=base)
    assert [d.code for d in skills[0].diagnostics] == ["binary-file"]
    assert skills[0].diagnostics[0].path == base / "bin" / "SKILL.md"
    assert isinstance(skills[0].diagnostics[0].path, Path)


# --- tokens ------------------------------------------------------------------------------------------
from skillmanager.core.layers import tokens as tokens_module# noqa: E402

_NORMALISABLE = st.text(alphabet=st.sampled_from(list("ae \n\r\t.<>") + [
    "\u0301", "\u0308", "\u0327", "\u1100", "\u1161", "\u11a8", "\ufb01", "\uff21", "\u2126", "\u00bd", "\u2028",
    "\u3000", "\u0344", "\u0f73", "\u1e9b", "\u0323", "\U0001d400", "\u0085", "\ufeff"]), max_size=40)


@settings(max_examples=2000, deadline=None)
@given(_NORMALISABLE)
def test_linewise_nfkc_equals_whole_text_nfkc(text):
    assert tokens_module._nfkc(text) == unicodedata.normalize("NFKC", text)


def test_linewise_nfkc_on_the_corpus():
    files = _corpus_files()
    text = "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in files)
    assert tokens_module._nfkc(text) == unicodedata.normalize("NFKC", text)


_TOKEN_TEXT = st.lists(st.sampled_from(list("ab1 \n'!.<>|") + ["<EOT>", "<META>", "<|endoftext|>", "\u00e9",
                                                                 "\U0001f600", "\u4e2d", "\ufb01"]),
                       max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(_TOKEN_TEXT)
def test_buffer_count_equals_token_list_length(text):
    claude = tokens_module.get_encoding("claude")
    o200k = tokens_module.get_encoding("o200k")
    normalised = unicodedata.normalize("NFKC", text)
    assert tokens_module.count_tokens(text, "claude") == (
        len(claude.encode(normalised, allowed_special="all")) if text else 0)
    assert tokens_module.count_tokens(text, "o200k") == (len(o200k.encode_ordinary(text)) if text else 0)


def test_public_api_fallback_counts_the_same(monkeypatch):
    text = "text with <EOT> and <|endoftext|> markers, caf\u00e9 \ufb01 \U0001f600\n" * 20
    fast = (tokens_module.count_tokens(text, "claude"), tokens_module.count_tokens(text, "o200k"))
    for name in ("claude", "o200k"):
        enc = tokens_module.get_encoding(name)
        monkeypatch.setattr(enc, "_core_bpe", _NoBuffer(enc._core_bpe))
    assert (tokens_module.count_tokens(text, "claude"), tokens_module.count_tokens(text, "o200k")) == fast


class _NoBuffer:
    """A CoreBPE without encode_to_tiktoken_buffer (older tiktoken)."""

    def __init__(self, core):
        self._core = core

    def __getattr__(self, name):
        if name == "encode_to_tiktoken_buffer":
            raise AttributeError(name)
        return getattr(self._core, name)


# --- widths ------------------------------------------------------------------------------------------
from skillmanager.core.js import textwidth# noqa: E402
from skillmanager.core.layers.listing import entry_width  # noqa: E402

_WIDTH_CASES = [c["s"] for c in json.loads((DATA / "string_width_golden.json").read_text(encoding="ascii"))["cases"]]


def _slow_cut(s: str, max_width: int) -> str:
    """cut_to_width's general grapheme loop (what the printable-ASCII shortcut replaces)."""
    if textwidth.display_width(s) <= max_width:
        return s
    if max_width <= 1:
        return textwidth.ELLIPSIS
    width, kept = 0, []
    for segment in textwidth.graphemes(s):
        seg_width = textwidth.display_width(segment)
        if width + seg_width > max_width - 1:
            break
        kept.append(segment)
        width += seg_width
    return "".join(kept) + textwidth.ELLIPSIS


def _slow_width(s: str) -> int:
    """display_width without the printable-ASCII shortcut (its next branch handles the same strings)."""
    if s and s.isascii() and s.isprintable():
        return len(s) - len(textwidth._CONTROL_RE.findall(s)) if not textwidth._NOT_FAST_ASCII_RE.search(s) else -1
    return textwidth.display_width(s)


_WIDTH_TEXT = st.text(alphabet=st.sampled_from(list("ab \t\r\n\x1b\x7f[0m") + [
    "\u00e9", "\u0301", "\u200b", "\u4e2d", "\u2014", "\u2019", "\U0001f600", "\ufe0f", "\u200d", "\u00ad",
    "\x85", "\u0915", "\u094d", "\U0001f1ef", "\ud83d"]), max_size=25) | st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=60)


@settings(max_examples=2000, deadline=None)
@given(_WIDTH_TEXT, st.integers(min_value=-1, max_value=30))
def test_width_shortcuts_match_the_general_code(text, max_width):
    assert _slow_width(text) == textwidth.display_width(text)
    assert entry_width(text) == textwidth.display_width(text)
    assert textwidth.cut_to_width(text, max_width) == _slow_cut(text, max_width)


def test_width_shortcuts_on_the_golden_strings():
    for s in _WIDTH_CASES:
        assert entry_width(s) == textwidth.display_width(s), repr(s)
        for width in range(0, 12):
            assert textwidth.cut_to_width(s, width) == _slow_cut(s, width), (repr(s), width)


def test_load_registry_restores_the_garbage_collector_state(tmp_path):
    import gc

    from skillmanager.core.layers.listing import build_listing
    from skillmanager.core.rules.registry import load_registry
    from skillmanager.core.load.workspace import Workspace

    home = tmp_path / "home"
    _skill(home / ".claude" / "skills" / "one")
    workspace = Workspace.create(home=home, cwd=home, managed_root=None, env={})
    was_enabled = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            registry = load_registry(workspace)
            assert [s.name for s in registry.skills if s.path is not None] == ["one"]
            assert gc.isenabled() is enabled
            assert "- one:" in build_listing(registry).text  # pauses the collector too
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was_enabled else gc.disable)()


# --- locale sort key ---------------------------------------------------------------------------------
from skillmanager.core.js.collation import locale_compare_key, locale_compare_key_general  # noqa: E402


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7f) | st.sampled_from(["é", "ß", "ﬁ"]),
               max_size=16))
def test_ascii_sort_key_equals_the_general_key(text):
    assert locale_compare_key(text) == locale_compare_key_general(text)


# --- path matching by chain (simulator) --------------------------------------------------------------
from skillmanager.core.rules.path_patterns import PathMatcher, path_chain  # noqa: E402

_SEGMENTS = st.sampled_from(["src", "a", "b.ts", "x.c5", "pkg-0005", "packages", "", ".", "..", "node_modules",
                             "Docs", "*", "a b"])
_PATTERNS = st.lists(st.sampled_from(["packages/pkg-0005/**", "**/*.{c5,h5}", "src/", "!src/keep", "*.ts", "/a",
                                      "a/**/b.ts", "Docs", "**/x.*", "\\!x", "!**/*.ts", "b.ts/"]), max_size=4)


@settings(max_examples=2000, deadline=None)
@given(_PATTERNS, st.lists(st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join), min_size=1, max_size=4))
def test_chain_matching_equals_match(patterns, paths):
    by_chain, by_path = PathMatcher(patterns), PathMatcher(patterns)
    for path in paths + paths:  # twice: the per-level cache must not change answers
        chain = path_chain(path)
        assert (by_chain.match_chain(chain) if chain is not None else None) == by_path.match(path), (patterns, path)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7f) | st.sampled_from(["é", "Ä"]), max_size=30))
def test_collation_key_table_equals_the_general_key(text):
    from skillmanager.core.js.collation import locale_compare_key, locale_compare_key_general
    assert locale_compare_key(text) == locale_compare_key_general(text)


def test_printable_text_without_ignorables_has_nothing_invisible():
    """The listing-cleaning fast path: for every code point Python calls printable and that is not one of
    the default-ignorable ranges, the invisible-run class of the general path does not match."""
    from skillmanager.core.layers import current_text
    missed = [hex(cp) for cp in range(0x110000) if chr(cp).isprintable()
              and current_text._IGNORABLE.match(chr(cp)) is None and current_text._INVISIBLE_RUN.match(chr(cp))]
    assert missed == []


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("a <>—é中😀\u00ad\u034f\u200b\u200d\ufe0f\u2028\x1b[1m\x85\u3164\u2800"
                                             "\u0915\u094d\u00a0")), max_size=20))
def test_listing_cleaning_fast_path_equals_the_general_path(text):
    from skillmanager.core.layers import current_text
    general = current_text.strip_escape_sequences(current_text._LONE_SURROGATE.sub("\u200b", text))
    general = current_text._collapse_invisible(general).replace("<", "&lt;").replace(">", "&gt;")
    assert current_text.clean_listing_text.__wrapped__(text) == general


def test_listing_rows_from_the_row_cache_equal_fresh_rows():
    """A listing rebuilt from remembered row texts equals one computed with the row cache empty."""
    from skillmanager.core.layers import listing as listing_module
    from skillmanager.core.layers.listing import ListingEntry, build_listing
    from skillmanager.core.versions.profiles import get_profile
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in _corpus_files()[:200]]
    entries = [ListingEntry(f"s{i}", parse_document(t, strip_bom=True).front_matter.get("description") or "x",
                            when_to_use="when <asked>" if i % 3 == 0 else None, display_name=f"S{i}" if i % 5 == 0 else None)
               for i, t in enumerate(texts)]
    for profile in map(get_profile, ("legacy", "current")):
        listing_module._ROW_TEXT.clear()
        fresh = [e.to_json() for e in build_listing(entries, profile).entries]
        again = [e.to_json() for e in build_listing(entries, profile).entries]
        assert again == fresh


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=12)
       | st.text(alphabet=st.sampled_from(list("aZ09_:.-\n /é\u0301٣")), max_size=8))
def test_ascii_display_name_check_equals_the_unicode_pattern(display):
    from skillmanager.core.layers import listing
    assert listing._clean_display_name(display) == (listing._DISPLAY_NAME_OK.match(display) is not None)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=12), max_size=12))
def test_ascii_entry_order_equals_the_locale_order(names):
    """Skills dirs of printable-ASCII names sort by ascii_compare_key: the same order as entry_order_key."""
    from types import SimpleNamespace
    from skillmanager.core.load.sources import entry_order_key, sorted_entries
    from skillmanager.core.versions.profiles import get_profile
    for profile in (get_profile("current"), get_profile("legacy")):
        entries = [SimpleNamespace(name=n) for n in names]
        expected = sorted(entries, key=lambda e: entry_order_key(e.name, profile))
        assert [e.name for e in sorted_entries(entries, profile)] == [e.name for e in expected]


# --- listing: display names resolved through the index, from a registry ------------------------------
_ENTRY_NAMES = st.sampled_from(["a", "b", "a:b", "x", "é", "pkg:a"])
_DISPLAY_NAMES = st.none() | st.sampled_from(["a", "b", "B", "b:x", "é", "x y", "A", "pkg:a"])


@st.composite
def _listing_entries(draw):
    from skillmanager.core.layers.listing import BUNDLED, COMMAND, SKILL, ListingEntry
    out = []
    for i in range(draw(st.integers(min_value=0, max_value=8))):
        kind = draw(st.sampled_from([SKILL, SKILL, COMMAND, BUNDLED]))
        out.append(ListingEntry(draw(_ENTRY_NAMES), draw(st.sampled_from(["d", "long " * 30, "é" * 40])),
                                draw(st.none() | st.just("when")), draw(_DISPLAY_NAMES), kind,
                                bundled_width=12 if kind == BUNDLED else None, bundled_length=12 if kind == BUNDLED else None,
                                force_name_only=draw(st.booleans()), score=draw(st.sampled_from([0.0, 1.0, 2.5])),
                                key=draw(st.sampled_from([None, f"k{i}", "k0"]))))
    return out


@settings(max_examples=1500, deadline=None)
@given(_listing_entries(), _listing_entries(), st.sampled_from([None, 40, 120, 100_000]))
def test_listing_with_a_name_index_equals_the_scan_of_all_entries(listed, unlisted, budget):
    from skillmanager.core.layers.listing import NameIndex, budget_facts, format_listing, shown_name
    from skillmanager.core.versions.features import Feature
    every = listed + unlisted
    for profile in map(get_profile, ("legacy", "current")):
        facts = budget_facts(profile, budget=budget)
        index = NameIndex(every)
        scanned = [shown_name(e, profile, every) for e in listed]  # the linear `$s` scan
        assert [shown_name(e, profile, every, index) for e in listed] == scanned
        indexed = format_listing(listed, profile, facts, all_entries=every, name_index=index)
        assert [e.shown_name for e in indexed.entries if e.shown_name != e.name] == \
            [s for e, s in zip(listed, scanned) if s != e.name and not (profile.supports(Feature.SKILL_OVERRIDES) and e.force_name_only)]
        plain = format_listing(listed, profile, facts, all_entries=every)
        assert indexed.text == plain.text
        assert [e.to_json() for e in indexed.entries] == [e.to_json() for e in plain.entries]
        assert indexed.totals.to_json() == plain.totals.to_json()


# The plain and quoted scalar classes as the fast path first spelled them out (every allowed range written
# down); yaml12 now writes each as what it refuses below U+00A0 (a few ranges: cheap to compile) and turns
# away _OUTSIDE_SUBSET texts before any class sees them.
_BEYOND_LATIN1 = "\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_SPELLED_OUT = {
    "_PLAIN_MID": r"\x20-\x22\x24-\x39\x3b-\x7e" + _BEYOND_LATIN1,
    "_PLAIN_LAST": r"\x21-\x22\x24-\x39\x3b-\x7e" + _BEYOND_LATIN1,
    "_PLAIN_FIRST": r"\x24\x28-\x29\x2b\x2e-\x39\x3b-\x3d\x41-\x5a\x5e-\x5f\x61-\x7a\x7e" + _BEYOND_LATIN1,
    "_DOUBLE_QUOTED": r"\x20-\x21\x23-\x5b\x5d-\x7e" + _BEYOND_LATIN1,
    "_SINGLE_QUOTED": r"\x20-\x26\x28-\x7e" + _BEYOND_LATIN1,
}


def test_cheap_scalar_classes_equal_the_spelled_out_sets_on_every_code_point():
    outside = yaml12._OUTSIDE_SUBSET
    unsafe = re.compile(f"[{yaml12._QUOTED_UNSAFE}]")
    quoted_ok = re.compile(f"[\\x20-\\x7e{_BEYOND_LATIN1}]")
    pairs = [(re.compile(f"[{spelled}]"), re.compile(f"[{getattr(yaml12, name)}]"), name)
             for name, spelled in _SPELLED_OUT.items()]
    # beyond the BMP every set is one range up to U+10FFFF: its first, some inner and its last code point
    for code in [*range(0x10000), 0x10000, 0x1F600, 0xE0001, 0xF0000, 0x10FFFF]:
        ch = chr(code)
        seen = outside.match(ch) is None
        for spelled, cheap, name in pairs:
            assert (spelled.match(ch) is not None) == (seen and cheap.match(ch) is not None), (name, hex(code))
        assert (quoted_ok.match(ch) is None) == (not seen or unsafe.match(ch) is not None), hex(code)


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\ud800", "\udfff", "\ufeff", "\ufffe", "\uffff"])
def test_texts_holding_a_character_outside_the_subset_go_to_the_full_loader(ch):
    for text in [f"name: a{ch}b", f'name: "a{ch}b"', f"name: 'x{ch}'", f"name: x\nlist:\n  - a{ch}", f"name: {ch}"]:
        assert load_simple_mapping(text) is None, repr(text)


# Characters a listing meets: ASCII, dashes and quotes, letters with marks, CJK, emoji and their joiners and
# selectors, flags, keycaps, Indic spacing marks, narrow emoji, controls, escapes, lone surrogates, invisibles.
_LISTING_CHARS = st.sampled_from(list("ab <>&-:.'\"\t\n") + [
    "\u2014", "\u2026", "\u2019", "\u00e9", "e\u0301", "\u4e2d", "\uff21", "\U0001f600", "\u200d", "\ufe0f",
    "\ufe0e", "\U0001f1eb", "\U0001f1f7", "1\u20e3", "\U0001f3fb", "\u093e", "\u0915", "\u261d", "\u270c",
    "\x1b", "\x1b[1m", "\x9b", "\x85", "\ud800", "\udc00", "\u200b", "\u2028", "\u00ad", "\u2800", "\u3164",
    "\U000e0041", "\ue000", "\u0378"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_LISTING_CHARS, max_size=24).map("".join))
def test_listing_width_and_cleaning_shortcuts_equal_the_full_rules(text):
    from skillmanager.core.js.bun_width import current_width, measure_fully
    from skillmanager.core.js.textwidth import utf16_len
    from skillmanager.core.layers.current_text import clean_fully, clean_listing_text

    assert current_width.__wrapped__(text) == measure_fully(text), repr(text)
    assert clean_listing_text.__wrapped__(text) == clean_fully(text), repr(text)
    assert utf16_len(text) == len(text) + sum(ord(ch) > 0xFFFF for ch in text), repr(text)


def test_resolving_folders_through_their_parents_equals_realpath(tmp_path):
    """realpath_dedupe resolves each skills dir through its already resolved parent when the folder is no link;
    links at any level (relative, chained, to a parent), missing folders and `..` give what realpath gives."""
    from skillmanager.core.load import sources

    real = tmp_path / "real"
    (real / "a" / "b" / ".claude" / "skills").mkdir(parents=True)
    (real / "c").mkdir()
    os.symlink(real / "a", tmp_path / "link-a")  # absolute
    os.symlink("real/a/b", tmp_path / "link-b")  # relative
    os.symlink(tmp_path / "link-b", tmp_path / "link-link-b")  # a link to a link
    os.symlink("..", real / "c" / "up")  # to a parent
    os.symlink(real / "a" / "b" / ".claude", real / "c" / "claude")
    folders = [p for p in tmp_path.rglob("*") if p.is_dir()]
    folders += [tmp_path / "link-a" / "b" / ".claude" / "skills", tmp_path / "link-link-b" / ".claude" / "skills",
                real / "c" / "up" / "a" / "b", real / "c" / "claude" / "skills", tmp_path / "missing" / "x",
                real / "a" / ".." / "c", tmp_path / "link-a" / "gone" / "skills"]
    sources._REAL_DIRS.clear()
    for folder in folders:
        assert sources._real_dir(str(folder)) == os.path.realpath(folder), folder
    sources._REAL_DIRS.clear()
