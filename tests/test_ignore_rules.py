"""IgnoreOracle must agree with `git check-ignore -v --no-index`.

Two kinds of evidence:
* TABLE: hand-written trees whose expectations were confirmed by running
  `git check-ignore -v --no-index <path>` (git 2.39.5) in a scratch repo built from the same
  table; `test_table_agrees_with_git` re-runs that confirmation whenever git is installed.
* DIFFERENTIAL: hypothesis-generated trees + ignore files, every path compared with git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager.core.load.sources import find_git_root
from skillmanager.core.simulator.ignore_rules import (
    IgnoreOracle,
    claude_code_skips_dir,
    parse_gitignore,
)

HAVE_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAVE_GIT, reason="git not installed")


def build(root: Path, files: list[str], ignores: dict[str, str], exclude: str = "") -> None:
    """Create a repo: `files` (a trailing / makes a dir), ignore files keyed by their dir."""
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "objects").mkdir()
    (root / ".git" / "refs").mkdir()
    (root / ".git" / "info" / "exclude").write_text(exclude)
    for f in files:
        p = root / f
        if f.endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("x")
    for d, text in ignores.items():
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / ".gitignore").write_bytes(text.encode())


def git_verdicts(root: Path, paths: list[str]) -> dict[str, tuple[str, int, str] | None]:
    """{path: (source relative to root, line, pattern) or None} from real git."""
    proc = subprocess.run(
        ["git", "check-ignore", "-v", "-n", "-z", "--no-index", "--stdin"],
        cwd=root, input="\0".join(paths) + "\0", capture_output=True, text=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent),
             "XDG_CONFIG_HOME": str(root.parent / "xdg")},
    )
    assert proc.returncode in (0, 1), proc.stderr
    fields = proc.stdout.split("\0")
    out: dict[str, tuple[str, int, str] | None] = {}
    for i in range(0, len(fields) - 1, 4):
        source, line, pattern, path = fields[i : i + 4]
        out[path] = (source, int(line), pattern) if source else None
    return out


def ours(root: Path, paths: list[str]) -> dict[str, tuple[str, int, str] | None]:
    oracle = IgnoreOracle(root)
    out: dict[str, tuple[str, int, str] | None] = {}
    for p in paths:
        v = oracle.check(p)
        if v.pattern is None:
            out[p] = None
        else:
            assert v.source_file is not None
            src = v.source_file.relative_to(root).as_posix()
            out[p] = (src, v.line_no, v.pattern)
            assert v.ignored is (not v.negated)
    return out


def all_paths(root: Path) -> list[str]:
    res = []
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        for n in dirnames + filenames:
            res.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(res)


# ---------------------------------------------------------------------------------------------
# TABLE — (files, {dir: .gitignore text}, info/exclude text, {path: expected (src, line, pat)|None})
# Every expectation below was produced by `git check-ignore -v --no-index` on this very tree.
TABLE = [
    pytest.param(["foo/a/b/f", "x/y"], {"": "foo/**/\n"}, "",
                 {"foo": None, "foo/a": (".gitignore", 1, "foo/**/"),
                  "foo/a/b/f": (".gitignore", 1, "foo/**/"), "x/y": None}, id="dirs-inside-doublestar"),
    pytest.param(["x/y"], {"": "x/\n!x\n"}, "",
                 {"x": (".gitignore", 2, "!x"), "x/y": None}, id="negation-reincludes-dir"),
    pytest.param(["build/keep.txt", "build/a.o"], {"": "build/\n!build/keep.txt\n"}, "",
                 {"build": (".gitignore", 1, "build/"),
                  "build/keep.txt": (".gitignore", 1, "build/")}, id="no-reinclude-in-excluded-dir"),
    pytest.param(["a/b/c.log", "c.log", "a/c.log"], {"": "*.log\n", "a": "!c.log\n"}, "",
                 {"c.log": (".gitignore", 1, "*.log"), "a/c.log": ("a/.gitignore", 1, "!c.log"),
                  "a/b/c.log": ("a/.gitignore", 1, "!c.log")}, id="deeper-file-wins"),
    pytest.param(["a/foo", "foo", "b/a/foo"], {"": "/foo\na/foo\n"}, "",
                 {"foo": (".gitignore", 1, "/foo"), "a/foo": (".gitignore", 2, "a/foo"),
                  "b/a/foo": None}, id="anchored"),
    pytest.param(["d/", "f"], {"": "d/\nf/\n"}, "",
                 {"d": (".gitignore", 1, "d/"), "f": None}, id="dir-only"),
    pytest.param(["a/x/y/b", "a/b", "ab"], {"": "a/**/b\n"}, "",
                 {"a/b": (".gitignore", 1, "a/**/b"), "a/x/y/b": (".gitignore", 1, "a/**/b"),
                  "ab": None, "a": None, "a/x": None}, id="doublestar-middle"),
    pytest.param(["#h", "!e", "t "], {"": "\\#h\n\\!e\nt\\ \n"}, "",
                 {"#h": (".gitignore", 1, "\\#h"), "!e": (".gitignore", 2, "\\!e"),
                  "t ": (".gitignore", 3, "t\\ ")}, id="escapes"),
    pytest.param(["a", "a\t"], {"": "a\t\n"}, "",
                 {"a": None, "a\t": (".gitignore", 1, "a\t")}, id="tab-is-not-trimmed"),
    pytest.param(["a", "b"], {"": "a   \r\n\ufeffb\n"}, "",
                 {"a": (".gitignore", 1, "a"), "b": None}, id="trailing-spaces-crlf"),
    pytest.param(["s", "e"], {}, "s\n",
                 {"s": (".git/info/exclude", 1, "s"), "e": None}, id="info-exclude"),
    pytest.param(["s"], {"": "!s\n"}, "s\n",
                 {"s": (".gitignore", 1, "!s")}, id="gitignore-beats-info-exclude"),
    pytest.param(["x/f"], {"": "x/f\n", "x": "!f\n"}, "",
                 {"x/f": ("x/.gitignore", 1, "!f")}, id="nested-negation-wins"),
    pytest.param(["foo/bar/baz"], {"": "foo/\n!foo\n"}, "",
                 {"foo": (".gitignore", 2, "!foo"), "foo/bar/baz": None}, id="dir-rule-not-subtree"),
    pytest.param(["p/q"], {"": "!\n\\\np\\\n**/\n"}, "",
                 {"p": (".gitignore", 4, "**/"), "p/q": (".gitignore", 4, "**/")}, id="invalid-lines"),
]


@pytest.mark.parametrize("files,ignores,exclude,expected", TABLE)
def test_table(tmp_path, files, ignores, exclude, expected):
    root = tmp_path / "repo"
    build(root, files, ignores, exclude)
    assert ours(root, list(expected)) == expected


@needs_git
@pytest.mark.parametrize("files,ignores,exclude,expected", TABLE)
def test_table_agrees_with_git(tmp_path, files, ignores, exclude, expected):
    root = tmp_path / "repo"
    build(root, files, ignores, exclude)
    assert git_verdicts(root, list(expected)) == expected
    paths = all_paths(root)
    assert ours(root, paths) == git_verdicts(root, paths)


# ---------------------------------------------------------------------------------------------
# DIFFERENTIAL — random trees and rules against git
NAMES = ["a", "b", "foo", "x.txt", "y.md", "#h", "!e", " s", "t ", "A"]
SEGMENTS = ["a", "b", "foo", "*", "**", "?", "*.txt", "x.*", "[ab]", "[!a]", "f*o", "\\#h",
            "\\!e", "A", "\\ s", "t\\ ", "[a-c]", "?oo", "y.md"]


@st.composite
def patterns(draw):
    segs = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3))
    pat = "/".join(segs)
    if draw(st.booleans()):
        pat = "/" + pat
    if draw(st.integers(0, 3)) == 0:
        pat += "/"
    if draw(st.integers(0, 3)) == 0:
        pat = "!" + pat
    if draw(st.integers(0, 6)) == 0:
        pat += "  "
    if draw(st.integers(0, 9)) == 0:
        pat = "# " + pat
    return pat


@st.composite
def trees(draw):
    files = draw(st.lists(
        st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join),
        min_size=1, max_size=12, unique=True))
    # a path can't be both a file and a dir: keep only paths that are not a prefix of another
    files = [f for f in files if not any(g.startswith(f + "/") for g in files)]
    dirs = sorted({"/".join(f.split("/")[:i]) for f in files for i in range(0, f.count("/") + 1)})
    ignore_dirs = draw(st.lists(st.sampled_from(dirs), min_size=1, max_size=3, unique=True))
    ignores = {d: "\n".join(draw(st.lists(patterns(), min_size=1, max_size=5))) + "\n"
               for d in ignore_dirs}
    exclude = "\n".join(draw(st.lists(patterns(), max_size=2))) + "\n"
    return files, ignores, exclude


@needs_git
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=trees())
def test_matches_git_on_generated_trees(tmp_path_factory, case):
    files, ignores, exclude = case
    root = tmp_path_factory.mktemp("gen") / "repo"
    build(root, files, ignores, exclude)
    paths = all_paths(root)
    assert ours(root, paths) == git_verdicts(root, paths)


# ---------------------------------------------------------------------------------------------
# Caching, discovery, failure modes
def test_rules_parsed_once_and_invalidated_by_mtime(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    build(root, ["pkg/a.log", "pkg/b.txt"], {"": "*.log\n"})
    oracle = IgnoreOracle(root)
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or real(self))
    for _ in range(50):
        assert oracle.check("pkg/a.log").ignored
        assert not oracle.check("pkg/b.txt").ignored
    assert len(reads) == 2  # root .gitignore + info/exclude, once each
    gi = root / ".gitignore"
    gi.write_text("*.txt\n")
    os.utime(gi, ns=(1, 1))  # a different mtime even on coarse clocks
    assert oracle.check("pkg/b.txt").ignored
    assert not oracle.check("pkg/a.log").ignored


def test_explicit_invalidate_without_mtime_checks(tmp_path):
    root = tmp_path / "repo"
    build(root, ["a.log"], {"": "*.log\n"})
    oracle = IgnoreOracle(root, check_mtime=False)
    assert oracle.check("a.log").ignored
    (root / ".gitignore").write_text("")
    assert oracle.check("a.log").ignored  # stale by design until invalidated
    oracle.invalidate(root / ".gitignore")
    assert not oracle.check("a.log").ignored


def test_outside_repo_nothing_is_ignored(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / ".gitignore").write_text("*\n")
    oracle = IgnoreOracle(tmp_path / "plain")
    assert oracle.repo_root is None or oracle.repo_root not in (tmp_path / "plain").parents
    if oracle.repo_root is None:
        assert not oracle.check(tmp_path / "plain" / "x").ignored


def test_path_outside_the_repo_is_not_ignored(tmp_path):
    root = tmp_path / "repo"
    build(root, ["a"], {"": "*\n"})
    assert not IgnoreOracle(root).check(tmp_path / "elsewhere").ignored


def test_gitfile_worktree_uses_common_dir_exclude(tmp_path):
    main = tmp_path / "main"
    build(main, [], {}, exclude="secret\n")
    wt_gitdir = main / ".git" / "worktrees" / "wt"
    wt_gitdir.mkdir(parents=True)
    (wt_gitdir / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    (wt / "sub").mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {wt_gitdir}\n")
    (wt / "secret").write_text("x")
    assert find_git_root(wt / "sub") == wt
    v = IgnoreOracle(wt / "sub").check(wt / "secret")
    assert v.ignored and v.source_file == main / ".git" / "info" / "exclude"


def test_unreadable_gitignore_is_a_diagnostic_not_a_crash(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    build(root, ["a.log"], {"": "*.log\n"})
    real = Path.read_bytes

    def deny(self):
        if self.name == ".gitignore":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    oracle = IgnoreOracle(root)
    assert not oracle.check("a.log").ignored
    assert any("PermissionError" in d for d in oracle.diagnostics)


def test_symlinked_gitignore_is_not_followed(tmp_path):
    root = tmp_path / "repo"
    build(root, ["a.log"], {})
    (tmp_path / "rules").write_text("*.log\n")
    (root / ".gitignore").symlink_to(tmp_path / "rules")
    assert not IgnoreOracle(root).check("a.log").ignored
    if HAVE_GIT:
        assert git_verdicts(root, ["a.log"]) == {"a.log": None}


def test_parse_gitignore_keeps_line_numbers():
    rules = parse_gitignore(b"# c\n\nfoo\n  \n!bar/\n")
    assert [(r.line_no, r.pattern, r.negated) for r in rules] == [(3, "foo", False), (5, "!bar/", True)]


# ---------------------------------------------------------------------------------------------
# Claude Code's question: `git check-ignore <dir containing .claude>` run from the session cwd
def cc_git(dir_path: Path, cwd: Path) -> bool:
    """Exactly what cli.js m41() does: exit code 0 means skip the dir."""
    proc = subprocess.run(["git", "check-ignore", str(dir_path)], cwd=cwd, capture_output=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd),
                               "XDG_CONFIG_HOME": str(cwd / "xdg")})
    return proc.returncode == 0


@needs_git
def test_claude_code_skips_dir_mirrors_git_call(tmp_path):
    root = tmp_path / "repo"
    build(root, ["packages/api/.claude/skills/s/SKILL.md", "vendor/lib/.claude/skills/t/SKILL.md",
                 "keep/x/.claude/skills/u/SKILL.md", "neg/.claude/skills/v/SKILL.md"],
          {"": "vendor/\nkeep/\n!keep/x\nneg\n!neg\n"})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    oracle = IgnoreOracle(root)
    for d in ["packages/api", "vendor/lib", "keep", "keep/x", "neg"]:
        assert claude_code_skips_dir(root / d, root, oracle) == cc_git(root / d, root), d
    assert claude_code_skips_dir(root / "vendor/lib", root, oracle) is True
    assert claude_code_skips_dir(root / "neg", root, oracle) is False  # negated match: exit 1
    # cwd in a subdirectory: same repo, same answers
    assert claude_code_skips_dir(root / "vendor/lib", root / "packages", None) == cc_git(
        root / "vendor/lib", root / "packages")


@needs_git
def test_claude_code_fails_open_outside_a_repo(tmp_path):
    plain = tmp_path / "plain"
    (plain / "d" / ".claude").mkdir(parents=True)
    (plain / ".gitignore").write_text("d\n")
    if find_git_root(plain) is None:
        assert cc_git(plain / "d", plain) is False  # git exits 128
        assert claude_code_skips_dir(plain / "d", plain) is False
