"""git_index + IgnoreOracle must agree with `git check-ignore` run WITHOUT --no-index (what Claude
Code runs): a pathspec matching an index entry — the tracked path itself or any tracked file below a
directory — is never reported as ignored. Every expectation is compared with real git 2.39 on a
real repository (skipped when git is missing); parser robustness is checked on corrupt bytes.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager.core.simulator.git_index import IndexCache, parse_index, read_index
from skillmanager.core.simulator.ignore_rules import IgnoreOracle, claude_code_skips_dir

HAVE_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAVE_GIT, reason="git not installed")


def git_env(home: Path) -> dict[str, str]:
    return {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "xdg"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          env=git_env(root.parent), check=check)


def make_repo(root: Path, files: list[str], gitignore: str, tracked: list[str]) -> None:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    for f in files:
        p = root / f
        if f.endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("x")
    (root / ".gitignore").write_text(gitignore)
    if tracked:
        git(root, "add", "-f", "--", *tracked)


def git_with_index(root: Path, paths: list[str]) -> dict[str, tuple[str, int, str] | None]:
    """`git check-ignore -v -n` as Claude Code runs it (no --no-index): {path: rule or None}."""
    proc = subprocess.run(["git", "check-ignore", "-v", "-n", "-z", "--stdin"], cwd=root,
                          input="\0".join(paths) + "\0", capture_output=True, text=True,
                          env=git_env(root.parent))
    assert proc.returncode in (0, 1), proc.stderr
    fields = proc.stdout.split("\0")
    out: dict[str, tuple[str, int, str] | None] = {}
    for i in range(0, len(fields) - 1, 4):
        source, line, pattern, path = fields[i : i + 4]
        out[path] = (source, int(line), pattern) if source else None
    return out


def ours(root: Path, paths: list[str], oracle: IgnoreOracle | None = None):
    oracle = oracle or IgnoreOracle(root)
    out = {}
    for p in paths:
        v = oracle.check(p)
        out[p] = None if v.pattern is None else (v.source_file.relative_to(root).as_posix(),
                                                 v.line_no, v.pattern)
    return out


def git_exit(root: Path, path: str | Path) -> int:
    """Exactly Claude Code's call: `git check-ignore -- <path>` from the session cwd."""
    return subprocess.run(["git", "check-ignore", "--", str(path)], cwd=root, capture_output=True,
                          env=git_env(root.parent)).returncode


def all_paths(root: Path) -> list[str]:
    res = []
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames:
            dirnames.remove(".git")
        res += [os.path.relpath(os.path.join(dirpath, n), root) for n in dirnames + filenames]
    return sorted(res)


FILES = ["vendor/lib/.claude/skills/s/SKILL.md", "vendor/other/f", "build/deep/er/x/f", "t.log",
         "u.log", "ig/a/b/c/f", "ig/ita/f", "ig/sw/f", "ig/g1/f", "ig/gx/f", "keep/x", "neg/y"]
IGNORE = "vendor/\nbuild\n*.log\nig/\nneg\n!neg\n"
TRACKED = ["vendor/lib/.claude/skills/s/SKILL.md", "build/deep/er/x/f", "t.log", "ig/g1/f",
           "ig/sw/f", "neg/y"]


def standard_repo(root: Path) -> None:
    make_repo(root, FILES, IGNORE, TRACKED)
    git(root, "add", "-f", "-N", "ig/ita/f")  # intent-to-add → extended flags
    git(root, "update-index", "--skip-worktree", "ig/sw/f")


@needs_git
@pytest.mark.parametrize("version", [2, 3, 4])
def test_every_path_agrees_with_git_for_index_versions(tmp_path, version):
    root = tmp_path / "repo"
    standard_repo(root)
    git(root, "update-index", "--index-version", str(version))
    if version == 2:  # v2 cannot hold extended flags: drop those entries
        git(root, "update-index", "--no-skip-worktree", "ig/sw/f")
        git(root, "rm", "-q", "--cached", "ig/ita/f")
    tracked = read_index(root / ".git" / "index")
    assert tracked.version == version and tracked.fatal is None and not tracked.diagnostics
    assert tracked.files == set(git(root, "ls-files", "-z").stdout.split("\0")[:-1])
    paths = all_paths(root)
    expected = git_with_index(root, paths)
    assert ours(root, paths) == expected
    # the interesting cases really are decided by the index
    assert expected["vendor"] is None and expected["vendor/lib"] is None
    assert expected["vendor/other"] == (".gitignore", 1, "vendor/")
    assert expected["build/deep/er"] is None and expected["t.log"] is None
    assert expected["u.log"] == (".gitignore", 3, "*.log")
    assert expected["neg"] is None  # a negated match on a tracked dir prints "::" too
    if version > 2:
        assert expected["ig/sw"] is None and expected["ig/ita"] is None


@needs_git
def test_verdict_says_why_and_claude_code_call_agrees(tmp_path):
    root = tmp_path / "repo"
    standard_repo(root)
    oracle = IgnoreOracle(root)
    v = oracle.check(root / "vendor" / "lib")
    assert not v.ignored and v.reason.startswith("tracked in the index")
    assert ".gitignore:1:vendor/" in v.reason
    for d in ["vendor/lib", "vendor/other", "vendor", "build/deep", "ig/a", "ig/g1", "keep", "neg"]:
        assert claude_code_skips_dir(root / d, root, oracle) == (git_exit(root, root / d) == 0), d
    # --no-index model still available
    assert IgnoreOracle(root, use_index=False).check("vendor/lib").ignored


@needs_git
def test_glob_characters_make_the_argument_a_wildcard_pathspec(tmp_path):
    root = tmp_path / "repo"
    make_repo(root, ["ig/g1/f", "ig/gx/", "ig/g[1]/", "ig/g*/", "ig/g?/", "ig/h[!a]/", "ig/[/",
                     "ig/q[[:digit:]]/", "ig/h1/f"], "ig/\n", ["ig/g1/f", "ig/h1/f"])
    paths = ["ig/g1", "ig/gx", "ig/g[1]", "ig/g*", "ig/g?", "ig/h[!a]", "ig/[", "ig/q[[:digit:]]",
             "ig/*1", "ig/?1/f", "ig/h[0-9]", "ig/g\\1", "ig/[gh]1"]
    oracle = IgnoreOracle(root)
    for p in paths:  # one at a time: the same behaviour Claude Code gets
        assert (not oracle.check(p).ignored) == (git_exit(root, p) == 1), p
    assert not oracle.check("ig/g*").ignored and oracle.check("ig/g?").ignored


@needs_git
def test_split_index(tmp_path):
    root = tmp_path / "repo"
    standard_repo(root)
    git(root, "update-index", "--split-index")
    git(root, "rm", "-q", "--cached", "ig/g1/f")  # recorded in the delete bitmap
    (root / "ig" / "new").mkdir()
    (root / "ig" / "new" / "f").write_text("x")
    git(root, "add", "-f", "ig/new/f")
    assert b"link" in (root / ".git" / "index").read_bytes()
    tracked = read_index(root / ".git" / "index")
    assert tracked.files == set(git(root, "ls-files", "-z").stdout.split("\0")[:-1])
    paths = all_paths(root)
    assert ours(root, paths) == git_with_index(root, paths)
    # the shared index gone: git dies, Claude Code then loads the dir (not ignored)
    for shared in (root / ".git").glob("sharedindex.*"):
        shared.unlink()
    os.utime(root / ".git" / "index", ns=(1, 1))
    assert git_exit(root, "ig/a") == 128
    v = IgnoreOracle(root).check("ig/a")
    assert not v.ignored and "exits 128" in v.reason


@needs_git
def test_path_inside_a_submodule_makes_git_fail(tmp_path):
    sub = tmp_path / "sub"
    make_repo(sub, ["f"], "", ["f"])
    git(sub, "commit", "-qm", "i")
    root = tmp_path / "repo"
    make_repo(root, [], "subs/\n", [])
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-f", "-q", str(sub), "subs/m")
    (root / "subs" / "m" / "deep" / ".claude" / "skills").mkdir(parents=True)
    (root / "subs" / "other").mkdir()
    oracle = IgnoreOracle(root)
    assert git_exit(root, root / "subs/m/deep") == 128
    v = oracle.check(root / "subs" / "m" / "deep")
    assert not v.ignored and "in submodule 'subs/m'" in v.reason
    for d in ["subs", "subs/m", "subs/m/deep", "subs/other"]:
        assert claude_code_skips_dir(root / d, root, oracle) == (git_exit(root, root / d) == 0), d


@needs_git
def test_path_beyond_a_symlink_makes_git_fail(tmp_path):
    root = tmp_path / "repo"
    make_repo(root, ["vendor/lib/f"], "vendor/\n", [])
    (root / "lnk").symlink_to("vendor")
    assert git_exit(root, "lnk/lib") == 128
    assert not IgnoreOracle(root).check("lnk/lib").ignored
    assert IgnoreOracle(root).check("vendor/lib").ignored


# ---------------------------------------------------------------------------------------------
# Corrupt / truncated indexes: what git does, and we never raise
@needs_git
def test_corrupt_indexes_follow_git(tmp_path):
    root = tmp_path / "repo"
    standard_repo(root)
    index = root / ".git" / "index"
    good = index.read_bytes()
    cases = {
        "bad-checksum": good[:-1] + bytes([good[-1] ^ 0xFF]),  # git does not verify it: still works
        "bad-signature": b"DIRX" + good[4:],
        "bad-version": good[:4] + struct.pack(">I", 5) + good[8:],
        "too-small": good[:20],
        "empty": b"",
        "unknown-mandatory-ext": good[:-20] + b"zzzz" + struct.pack(">I", 0) + good[-20:],
        "optional-ext": good[:-20] + b"ZZZZ" + struct.pack(">I", 3) + b"abc" + good[-20:],
    }
    for name, data in cases.items():
        index.write_bytes(data)
        os.utime(index, ns=(len(name), len(name)))
        oracle = IgnoreOracle(root)
        for d in ["vendor/lib", "vendor/other", "ig/a"]:
            code = git_exit(root, d)
            v = oracle.check(d)
            assert v.ignored == (code == 0), (name, d, code, v)
            if code == 128:
                assert "exits 128" in v.reason
        if name.startswith("bad-") and name != "bad-checksum":
            assert any("git cannot read it" in d for d in oracle.diagnostics)


@needs_git
def test_truncated_index_keeps_complete_entries(tmp_path):
    root = tmp_path / "repo"
    standard_repo(root)
    good = (root / ".git" / "index").read_bytes()
    for cut in range(12, len(good), 7):
        tp = parse_index(good[:cut])
        assert tp.fatal or tp.files <= read_index(root / ".git" / "index").files
    half = parse_index(good[: len(good) // 2])
    assert half.diagnostics and "truncated" in half.diagnostics[0]
    assert "build/deep/er/x/f" in half.files


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=400), version=st.sampled_from([2, 3, 4]), count=st.integers(0, 9))
def test_garbage_never_raises(data, version, count):
    blob = b"DIRC" + struct.pack(">II", version, count) + data
    for payload in (blob, data):
        tp = parse_index(payload, git_dir="/nonexistent")
        assert tp.fatal is None or isinstance(tp.fatal, str)
        tp.dirs  # building directory prefixes must not raise either


def test_unreadable_index_is_git_fatal_not_a_crash(tmp_path, monkeypatch):
    idx = tmp_path / "index"
    idx.write_bytes(b"DIRC")
    real = Path.read_bytes

    def deny(self):
        if self.name == "index":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    tp = read_index(idx)
    assert tp.fatal and "Permission denied" in tp.fatal and not tp.files
    assert read_index(tmp_path / "missing").fatal is None  # fresh repo: no index, nothing tracked


# ---------------------------------------------------------------------------------------------
# Caching: parsed once per (mtime, size, inode); untouched while no rule matches
@needs_git
def test_index_parsed_once_and_only_when_a_rule_matches(tmp_path):
    root = tmp_path / "repo"
    standard_repo(root)
    oracle = IgnoreOracle(root)
    cache: IndexCache = oracle._index  # type: ignore[assignment]
    for _ in range(20):
        assert not oracle.check("keep/x").ignored
    assert cache.reads == 0  # no rule matched: the index is never read
    for _ in range(50):
        assert not oracle.check("vendor/lib").ignored
        assert oracle.check("vendor/other").ignored
    assert cache.reads == 1
    git(root, "add", "-f", "vendor/other/f")
    assert not oracle.check("vendor/other").ignored
    assert cache.reads == 2


# ---------------------------------------------------------------------------------------------
# DIFFERENTIAL — random trees, random force-added files, random index version, against git
NAMES = ["a", "b", "foo", "x.log", ".claude", "skills"]
PATTERNS = ["a/", "b", "*.log", "foo/", "!foo", "/a", "**/b/", "a/**", "!x.log", ".claude/", "*"]


@st.composite
def tracked_trees(draw):
    files = draw(st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join),
                          min_size=1, max_size=10, unique=True))
    files = [f for f in files if not any(g.startswith(f + "/") for g in files)]
    tracked = draw(st.lists(st.sampled_from(files), max_size=4, unique=True))
    rules = "\n".join(draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4))) + "\n"
    return files, rules, tracked, draw(st.sampled_from([2, 3, 4]))


@needs_git
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=tracked_trees())
def test_matches_git_with_index_on_generated_trees(tmp_path_factory, case):
    files, rules, tracked, version = case
    root = tmp_path_factory.mktemp("gi") / "repo"
    make_repo(root, files, rules, tracked)
    if tracked:
        git(root, "update-index", "--index-version", str(version))
    paths = all_paths(root)
    assert ours(root, paths) == git_with_index(root, paths)


@needs_git
def test_sha256_repository(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    if git(root, "init", "-q", "--object-format=sha256", check=False).returncode != 0:
        pytest.skip("git without sha256 support")
    for f in ["vendor/lib/f", "vendor/other/f"]:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x")
    (root / ".gitignore").write_text("vendor/\n")
    git(root, "add", "-f", "vendor/lib/f")
    for version in (2, 4):
        git(root, "update-index", "--index-version", str(version))
        paths = all_paths(root)
        assert ours(root, paths) == git_with_index(root, paths)
        assert IgnoreOracle(root).tracked_paths().files == {"vendor/lib/f"}


@needs_git
def test_sparse_index_directory_entries(tmp_path):
    """git expands a sparse dir entry from tree objects; we do not read objects, so everything
    below it counts as tracked. The dir itself and dirs that hold tracked files agree with git."""
    root = tmp_path / "repo"
    make_repo(root, ["in/a/f", "out/b/c/f"], "out/\n", ["in/a/f", "out/b/c/f", ".gitignore"])
    git(root, "commit", "-qm", "i")
    git(root, "sparse-checkout", "set", "--cone", "in")
    git(root, "config", "index.sparse", "true")
    git(root, "sparse-checkout", "reapply")
    tracked = read_index(root / ".git" / "index")
    if "out" not in tracked.sparse_dirs:
        pytest.skip("git did not write a sparse index")
    (root / "out" / "b" / "c").mkdir(parents=True)
    (root / "out" / "x").mkdir()
    oracle = IgnoreOracle(root)
    for d in ["out", "out/b", "out/b/c"]:
        assert oracle.check(d).ignored == (git_exit(root, d) == 0) == False, d  # noqa: E712
    assert git_exit(root, "out/x") == 0 and not oracle.check("out/x").ignored  # documented deviation
