"""Decide, without running git, whether git ignores a path in a work tree, and which rule did it.

What Claude Code asks git (spec §5, dynamic skill discovery)
------------------------------------------------------------
legacy 2.1.88, ``cli.js`` (search ``Skipped gitignored skills dir`` / ``async function m41``)::

    async function m41(q,K){let{code:_}=await S7("git",["check-ignore",q],
                                 {preserveOutputOnError:!1,cwd:K});return _===0}
    async function gL6(q,K){ ... let A=pj6($);            // dirname(touched file)
      while(A.startsWith(z+pL6)){let O=fa(A,".claude","skills");
        if(!Ks1.has(O)){Ks1.add(O);
          try{if(await _.stat(O),await m41(A,z)){N(`[skills] Skipped gitignored skills dir: ${O}`);continue}
              Y.push(O)}catch{}}
        let w=pj6(A);if(w===A)break;A=w}}

current 2.1.332 (Bun binary, ``strings``; function ``Yga``)::

    await ut("git",[...Bn,"check-ignore","--",e],{preserveOutputOnError:!1,cwd:n,env:Izo()})  // ignored iff exit 0

So, for every directory ``A`` between the touched file and the cwd (exclusive) that has a
``.claude/skills`` sub-directory:

* the path asked about is ``A`` itself — the directory *containing* ``.claude`` — given as an
  absolute path without a trailing slash (git then lstat()s it, so dir-only ``foo/`` rules apply);
* git runs with ``cwd`` = the session cwd, so the repository is the one containing the cwd;
* plain ``git check-ignore`` (no ``-v``, no ``--no-index``): exit 0 means "ignored" and the
  ``.claude/skills`` dir is skipped; a negated match (``!foo``) exits 1 (not ignored);
* every failure fails open: outside a repo (exit 128), a path outside the cwd's repo (128),
  git missing or erroring (spawn error → code 1), or a repo git refuses to use — the dir is
  loaded. A missing ``.claude/skills`` is skipped before git is asked.

:func:`claude_code_skips_dir` mirrors that call. Differences we accept and document:

* Claude Code runs *without* ``--no-index``, so git first treats the argument as a pathspec
  (builtin/check-ignore.c): when it matches an index entry — the path itself is tracked, or any
  tracked file lies below the directory, ``git add -f`` included, skip-worktree and intent-to-add
  entries too — git reports nothing (exit 1): not ignored. A path with glob characters is also
  matched as a wildcard against the index (``*``/``?`` cross ``/``). git dies (exit 128, which
  Claude Code treats as not ignored) for a path inside a submodule (gitlink entry), a path beyond
  a symbolic link, or an index it cannot read. :mod:`git_index` reads ``.git/index`` for this,
  and only once a rule has matched, so unmatched paths stay on the fast path; the verdict's
  ``reason`` says why a matching rule was not applied. ``use_index=False`` models ``--no-index``.
  Sparse-index directory entries are not expanded (that needs tree objects): everything below
  one counts as tracked. ``GIT_INDEX_FILE`` is not consulted.
* ``core.excludesFile`` (global ``~/.config/git/ignore``) and ``core.ignoreCase`` are **out of scope**:
  only ``.git/info/exclude`` and in-tree ``.gitignore`` files are read; matching is case-sensitive
  (git's default on Linux). Nested repositories/submodules between the cwd and ``A`` are treated as
  plain directories of the outer work tree.

Rule semantics implemented here (checked against ``git check-ignore -v --no-index``, see tests):
precedence is deepest ``.gitignore`` first, then shallower ones, then ``.git/info/exclude``; within a
file the last matching line wins (a ``!`` line can win too, which means "not ignored"); a path is
ignored when any parent directory is ignored, and nothing can re-include a path below an excluded
directory; patterns in ``a/b/.gitignore`` are relative to ``a/b/``. Lines: UTF-8 BOM skipped, CRLF
accepted, ``#`` comments, git's trailing-space rule (only unescaped spaces are trimmed — tabs are
kept), ``\\`` escapes. A ``.gitignore`` that is a symlink is not followed (git ≥ 2.32).

Pattern matching per line is pathspec's ``GitIgnoreSpecPattern`` (the pattern class behind
``GitIgnoreSpec``); its regexes also match *subtrees* (``foo/`` matches ``foo/x``), so we match each
rule against the exact path only and do the parent-directory walk ourselves.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from .git_index import IndexCache, TrackedPaths, object_hash_size
from ..load.sources import find_git_root

log = logging.getLogger("skillmanager")

__all__ = [
    "IgnoreVerdict",
    "IgnoreRule",
    "IgnoreOracle",
    "parse_gitignore",
    "claude_code_skips_dir",
]


@dataclass(frozen=True)
class IgnoreVerdict:
    """Result of :meth:`IgnoreOracle.check`, shaped like ``git check-ignore -v`` output."""

    ignored: bool
    source_file: Path | None = None
    line_no: int | None = None
    pattern: str | None = None
    negated: bool = False
    reason: str | None = None  # why a matching rule was not applied (tracked path, git would fail)


NOT_IGNORED = IgnoreVerdict(False)

# How a pathspec regex must be applied so that it matches the path itself, not a subtree.
_EXACT, _INSIDE, _WILD, _DIR_WILD, _DIRS_INSIDE, _LITERAL, _DIR_LITERAL = range(7)
# Regex compilation costs ~0.1 ms a rule: a generated .gitignore of 200,000 wildcard lines would take
# 20 s. Lines without wildcards are matched as strings (no regex); beyond this many wildcard lines in
# one file the file is not read (a diagnostic says so) and counts as empty, as an unreadable one does.
MAX_WILDCARD_RULES = 20_000


@dataclass(frozen=True)
class IgnoreRule:
    """One usable line of an ignore file."""

    pattern: str  # the line as git prints it with -v (trailing spaces trimmed)
    line_no: int  # 1-based
    negated: bool
    _kind: int = field(repr=False)
    _regex: re.Pattern[str] | str = field(repr=False)  # str: compiled on first use; literal text
    _anchored: bool = field(default=False, repr=False)  # literal rules: relative to the file's directory

    def matches(self, path: str) -> bool:
        """``path`` is relative to the ignore file's directory; directories end with ``/``."""
        kind = self._kind
        regex = self._regex
        if kind >= _LITERAL:
            is_dir = path.endswith("/")
            if kind == _DIR_LITERAL and not is_dir:
                return False
            name = path[:-1] if is_dir else path
            literal = regex
            assert isinstance(literal, str)  # literal kinds keep their text
            if self._anchored:
                return name == literal
            return name == literal or name.endswith("/" + literal)
        if isinstance(regex, str):
            regex = re.compile(regex, re.DOTALL)
            object.__setattr__(self, "_regex", regex)
        if kind == _WILD or kind == _DIR_WILD:
            is_dir = path.endswith("/")
            if kind == _DIR_WILD and not is_dir:
                return False
            return regex.fullmatch(path if is_dir else path + "/") is not None
        if kind == _DIRS_INSIDE and not path.endswith("/"):
            return False
        return regex.fullmatch(path) is not None

    @property
    def is_literal(self) -> bool:
        return self._kind >= _LITERAL


_NOT_LITERAL = re.compile(r"[*?\\\[\s]|^/?$")


def _literal_rule(text: str, line_no: int, negated: bool, body: str) -> IgnoreRule | None:
    """A rule without wildcards, escapes or blanks, as a plain string comparison; None when `body`
    needs the full wildcard matcher."""
    if _NOT_LITERAL.search(body):
        return None
    dir_only = body.endswith("/")
    core = body[:-1] if dir_only else body
    anchored = "/" in core
    core = core[1:] if core.startswith("/") else core
    if any(part in ("", ".", "..") for part in core.split("/")):
        return None
    return IgnoreRule(text, line_no, negated, _DIR_LITERAL if dir_only else _LITERAL, core, anchored)


def _trim_trailing_spaces(line: str) -> str:
    """git's dir.c trim_trailing_spaces(): drop unescaped trailing spaces (not tabs)."""
    last_space = None
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == " ":
            if last_space is None:
                last_space = i
        elif ch == "\\":
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def _protect_edges(body: str) -> str:
    """pathspec strips all outer whitespace; git keeps leading blanks and trailing tabs.

    Wrapping the outermost whitespace char in a one-char bracket (``[\\t]``) keeps git's meaning.
    """
    if body and body[-1].isspace() and body[-1] != " ":
        head, ch = body[:-1], body[-1]
        backslashes = len(head) - len(head.rstrip("\\"))
        if backslashes % 2:  # "\<tab>" is an escaped tab: same char
            head = head[:-1]
        body = f"{head}[{ch}]"
    if body and body[0].isspace():
        body = f"[{body[0]}]{body[1:]}"
    return body


def _wildcard_only_regex(body: str) -> tuple[re.Pattern[str], bool] | None:
    """Patterns made only of ``*``/``**`` segments (``**/``, ``*/**``, ``**/*/**/``...).

    pathspec collapses these into unanchored subtree regexes (``**/`` and ``**/*/**/`` both become
    ``(?P<ps_d>/)``), which loses the depth git requires, so we translate them ourselves.
    Components: ``*`` is exactly one, ``**`` zero or more (one or more when last). The regex is
    matched against the path with a ``/`` appended.
    """
    dir_only = body.endswith("/")
    core = body[:-1] if dir_only else body
    anchored = "/" in core
    core = core[1:] if core.startswith("/") else core
    segs = core.split("/")
    if not core or any(seg not in ("*", "**") for seg in segs):
        return None
    parts = ["" if anchored else "(?:[^/]+/)*"]
    for k, seg in enumerate(segs):
        if seg == "*":
            parts.append("[^/]+/")
        else:
            parts.append("(?:[^/]+/)+" if k == len(segs) - 1 else "(?:[^/]+/)*")
    return re.compile("".join(parts), re.DOTALL), dir_only


def _compile_rule(text: str, line_no: int) -> IgnoreRule | None:
    negated = text.startswith("!")
    body = text[1:] if negated else text
    if not body:
        return None  # "!" alone matches nothing in git
    literal = _literal_rule(text, line_no, negated, body)
    if literal is not None:
        return literal
    wildcard_only = _wildcard_only_regex(body)
    if wildcard_only is not None:
        regex, dir_only = wildcard_only
        return IgnoreRule(text, line_no, negated, _DIR_WILD if dir_only else _WILD, regex)
    try:
        src, _include = GitIgnoreSpecPattern.pattern_to_regex(("!" if negated else "") + _protect_edges(body))
    except (ValueError, TypeError):  # e.g. a trailing lone backslash: git never matches it
        return None
    if src is None:
        return None
    # regexes are compiled on first use (IgnoreRule.matches)
    if not src.startswith("^"):  # unanchored forms are subtree approximations: search anywhere
        return IgnoreRule(text, line_no, negated, _EXACT, "(?:.*)" + src)
    if src.endswith("(?P<ps_d>/)") and body.rstrip().endswith("**/"):
        # "a/**/": directories strictly inside a/ (git does not match a itself)
        return IgnoreRule(text, line_no, negated, _DIRS_INSIDE, src + ".+")
    if src.endswith("/") and not src.endswith("(?P<ps_d>/)"):
        # "a/**": everything strictly inside a/
        return IgnoreRule(text, line_no, negated, _INSIDE, src + ".+")
    return IgnoreRule(text, line_no, negated, _EXACT, src)


class TooManyRulesError(ValueError):
    """An ignore file with more than MAX_WILDCARD_RULES wildcard lines."""


def parse_gitignore(data: bytes, *, max_wildcard_rules: int = MAX_WILDCARD_RULES) -> list[IgnoreRule]:
    """Parse ignore-file bytes into rules (comments/blank/invalid lines dropped, numbering kept).
    Raises TooManyRulesError past `max_wildcard_rules` wildcard lines (literal lines are cheap)."""
    text = data.decode("utf-8", errors="surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    rules: list[IgnoreRule] = []
    wildcard_rules = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line or line.startswith("#"):
            continue
        line = _trim_trailing_spaces(line)
        if not line:
            continue
        rule = _compile_rule(line, line_no)
        if rule is not None:
            rules.append(rule)
            if not rule.is_literal:
                wildcard_rules += 1
                if wildcard_rules > max_wildcard_rules:
                    raise TooManyRulesError(
                        f"more than {max_wildcard_rules:,} wildcard patterns; skillmanager does not read a file "
                        "this large, so directories it ignores are shown as loaded")
    return rules


def _git_dirs(root: Path) -> tuple[Path | None, Path | None]:
    """(git dir, common dir): ``.git`` twice, or for gitfiles/worktrees the gitdir it names (it holds
    ``index``) and that gitdir's ``commondir`` (it holds ``info/exclude`` and ``config``)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git, dot_git
    try:
        content = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None, None
    if not content.startswith("gitdir:"):
        return None, None
    gitdir = Path(content[len("gitdir:"):].strip())
    if not gitdir.is_absolute():
        gitdir = root / gitdir
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return gitdir, gitdir
    common_path = Path(common)
    return gitdir, Path(os.path.normpath(common_path if common_path.is_absolute() else gitdir / common_path))


@dataclass
class _RuleFile:
    path: Path
    stamp: tuple[int, int] | None  # (mtime_ns, size); None = absent/unreadable
    rules: list[IgnoreRule]
    error: str | None = None


class IgnoreOracle:
    """Answers "does git ignore this path?" for one work tree, with parsed rules cached.

    ``IgnoreOracle(path)`` walks up from ``path`` to the repository root. Outside any repository
    nothing is ignored (fail-open, like Claude Code). Rule files are parsed once and re-parsed
    only when their (mtime, size) changes (``check_mtime=True``, one ``stat`` per ancestor dir per
    query) or after :meth:`invalidate`.
    """

    def __init__(self, path: str | os.PathLike[str], *, check_mtime: bool = True,
                 use_index: bool = True) -> None:
        self.repo_root: Path | None = find_git_root(path)
        self.check_mtime = check_mtime
        self.use_index = use_index  # False models `git check-ignore --no-index`
        self._files: dict[str, _RuleFile] = {}
        self._dir_cache: dict[str, IgnoreVerdict] = {}
        git_dir, common = _git_dirs(self.repo_root) if self.repo_root else (None, None)
        self._exclude_path = common / "info" / "exclude" if common else None
        # parsed lazily, only once a rule matches: unmatched paths never touch the index
        self._index = (IndexCache(git_dir / "index", hash_size=object_hash_size(common))
                       if git_dir is not None and use_index else None)
        self._root_str = str(self.repo_root) if self.repo_root else ""

    # -- public -----------------------------------------------------------------------------
    @property
    def diagnostics(self) -> list[str]:
        """Read errors of rule files seen so far (such files count as empty, like git)."""
        out = [f"{f.path}: {f.error}" for f in self._files.values() if f.error]
        if self._index is not None and self._index.reads:
            tracked = self._index.get()
            out += [f"{self._index.index_file}: {d}" for d in tracked.diagnostics]
            if tracked.fatal:
                out.append(f"{self._index.index_file}: git cannot read it: {tracked.fatal}")
        return out

    def tracked_paths(self) -> TrackedPaths:
        """The index's tracked paths (empty outside a repo or with ``use_index=False``)."""
        return self._index.get() if self._index is not None else TrackedPaths()

    def invalidate(self, path: str | os.PathLike[str] | None = None) -> None:
        """Forget a cached rule file (or everything when ``path`` is None)."""
        if path is None:
            self._files.clear()
        else:
            self._files.pop(os.path.abspath(path), None)
        self._dir_cache.clear()

    def check(self, path: str | os.PathLike[str], is_dir: bool | None = None) -> IgnoreVerdict:
        """Verdict for ``path`` (absolute, or relative to the repo root).

        ``is_dir=None`` asks the file system (``lstat``), as git does for check-ignore arguments.
        """
        if self.repo_root is None:
            return NOT_IGNORED
        rel = self._relative(path)
        if rel is None or rel == "":
            return NOT_IGNORED
        parts = rel.split("/")
        if ".git" in parts:  # git never treats its own dir as ignorable content
            return NOT_IGNORED
        if is_dir is None:
            is_dir = os.path.isdir(self.repo_root.joinpath(*parts)) and not os.path.islink(
                self.repo_root.joinpath(*parts)
            )
        self._revalidate(parts)
        verdict = None
        for i in range(1, len(parts)):
            verdict = self._dir_verdict(parts[:i])
            if verdict.ignored:
                break
        else:
            verdict = self._match(parts, is_dir)
        if verdict.pattern is None:
            return verdict  # fast path: no rule matched, git prints nothing either way
        return self._pathspec_checks(rel, parts, verdict)


    # -- internals --------------------------------------------------------------------------
    def _pathspec_checks(self, rel: str, parts: list[str], verdict: IgnoreVerdict) -> IgnoreVerdict:
        """What git does with the argument *as a pathspec* before looking at rules (check-ignore.c)."""
        rule = f"{_display(self.repo_root, verdict.source_file)}:{verdict.line_no}:{verdict.pattern}"
        root = self.repo_root
        assert root is not None
        for i in range(1, len(parts)):  # parse_pathspec(PATHSPEC_SYMLINK_LEADING_PATH)
            if os.path.islink(os.path.join(root, *parts[:i])):
                return IgnoreVerdict(False, reason=f"git check-ignore exits 128 (pathspec '{rel}' is "
                                     f"beyond a symbolic link); rule {rule} not applied")
        if self._index is None:
            return verdict
        tracked = self._index.get()
        if tracked.fatal:
            return IgnoreVerdict(False, reason=f"git check-ignore exits 128 ({tracked.fatal}); "
                                 f"rule {rule} not applied")
        sub = tracked.submodule_containing(rel)
        if sub is not None:
            return IgnoreVerdict(False, reason=f"git check-ignore exits 128 (pathspec '{rel}' is in "
                                 f"submodule '{sub}'); rule {rule} not applied")
        if tracked.matches(rel) or _glob_pathspec_matches(rel, tracked):
            return IgnoreVerdict(False, reason=f"tracked in the index; rule {rule} not applied")
        return verdict

    def _relative(self, path: str | os.PathLike[str]) -> str | None:
        root = str(self.repo_root)
        p = os.fspath(path)
        if not os.path.isabs(p):
            p = os.path.join(root, p)
        p = os.path.normpath(p)
        if p == root:
            return ""
        prefix = root if root.endswith(os.sep) else root + os.sep
        if not p.startswith(prefix):
            return None  # git: "fatal: ... is outside repository" → fail-open
        return p[len(prefix):].replace(os.sep, "/")

    def _dir_verdict(self, dir_parts: list[str]) -> IgnoreVerdict:
        key = "/".join(dir_parts)
        cached = self._dir_cache.get(key)
        if cached is None:
            parent = self._dir_verdict(dir_parts[:-1]) if len(dir_parts) > 1 else None
            cached = parent if parent is not None and parent.ignored else self._match(dir_parts, True)
            self._dir_cache[key] = cached
        return cached

    def _match(self, parts: list[str], is_dir: bool) -> IgnoreVerdict:
        suffix = "/" if is_dir else ""
        root = self.repo_root
        assert root is not None
        for depth in range(len(parts) - 1, -1, -1):  # deepest .gitignore first
            rf = self._rule_file(_gitignore_path(self._root_str, parts, depth), in_tree=True)
            if rf.rules:
                hit = _last_match(rf.rules, "/".join(parts[depth:]) + suffix)
                if hit is not None:
                    return _verdict(rf.path, hit)
        if self._exclude_path is not None:
            rf = self._rule_file(self._exclude_path, in_tree=False)
            hit = _last_match(rf.rules, "/".join(parts) + suffix)
            if hit is not None:
                return _verdict(rf.path, hit)
        return NOT_IGNORED

    def _revalidate(self, parts: list[str]) -> None:
        """Re-stat the rule files this query depends on; drop caches if any changed."""
        if not self.check_mtime:
            return
        root = self.repo_root
        assert root is not None
        changed = False
        for depth in range(len(parts)):
            changed |= self._refresh(_gitignore_path(self._root_str, parts, depth), True)
        if self._exclude_path is not None:
            changed |= self._refresh(self._exclude_path, False)
        if changed:
            self._dir_cache.clear()

    def _refresh(self, path: str | Path, in_tree: bool) -> bool:
        old = self._files.get(str(path))
        if old is None:
            self._load(path, in_tree)
            return True
        if _stamp(path, in_tree) != old.stamp:
            self._load(path, in_tree)
            return True
        return False

    def _rule_file(self, path: str | Path, in_tree: bool) -> _RuleFile:
        rf = self._files.get(str(path))
        return rf if rf is not None else self._load(path, in_tree)

    def _load(self, path: str | Path, in_tree: bool) -> _RuleFile:
        path = Path(path)
        stamp = _stamp(path, in_tree)
        rules: list[IgnoreRule] = []
        error = None
        if stamp is not None:
            try:
                rules = parse_gitignore(path.read_bytes())
            except OSError as exc:  # git warns and carries on with no rules
                error, stamp = f"{type(exc).__name__}: {exc}", None
            except TooManyRulesError as exc:  # stamp kept: not re-read until it changes
                error = str(exc)
            if error is not None:
                log.warning("%s: %s", path, error)  # CLI: stderr; app: the Problems group
        rf = _RuleFile(path, stamp, rules, error)
        self._files[str(path)] = rf
        self._dir_cache.clear()
        return rf


def _display(root: Path | None, source: Path | None) -> str:
    if root is None or source is None:
        return str(source)
    try:
        return source.relative_to(root).as_posix()
    except ValueError:
        return str(source)


_GLOB_SPECIAL = re.compile(r"[*?\[\\]")
_CLASSES = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
            "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
            "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v", "upper": "A-Z",
            "xdigit": "0-9a-fA-F"}


def _wildmatch_regex(pat: str) -> re.Pattern[str] | None:
    """git wildmatch() *without* WM_PATHNAME (plain pathspecs): ``*`` and ``?`` also match ``/``.

    None when git would abort the match (unclosed ``[``, trailing ``\\``): nothing matches then.
    """
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            out.append(".*")
            while i + 1 < n and pat[i + 1] == "*":
                i += 1
        elif c == "?":
            out.append(".")
        elif c == "\\":
            if i + 1 >= n:
                return None
            i += 1
            out.append(re.escape(pat[i]))
        elif c == "[":
            j = i + 1
            negate = j < n and pat[j] in "!^"
            j += negate
            items, first = [], True
            while j < n and (pat[j] != "]" or first):
                first = False
                if pat[j] == "[" and pat.startswith("[:", j):
                    end = pat.find(":]", j + 2)
                    if end < 0 or pat[j + 2 : end] not in _CLASSES:
                        return None
                    items.append(_CLASSES[pat[j + 2 : end]])
                    j = end + 2
                    continue
                ch = pat[j]
                if ch == "\\":
                    j += 1
                    if j >= n:
                        return None
                    ch = pat[j]
                if j + 2 < n and pat[j + 1] == "-" and pat[j + 2] != "]":
                    hi = pat[j + 2]
                    if hi == "\\" and j + 3 < n:
                        hi, j = pat[j + 3], j + 1
                    items.append(f"{re.escape(ch)}-{re.escape(hi)}")
                    j += 3
                    continue
                items.append(re.escape(ch))
                j += 1
            if j >= n:
                return None  # unclosed bracket: wildmatch aborts
            out.append(f"[{'^' if negate else ''}{''.join(items)}]")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out), re.DOTALL)
    except re.error:  # e.g. a reversed range: wildmatch simply never matches it
        return None


def _glob_pathspec_matches(rel: str, tracked: TrackedPaths) -> bool:
    """dir.c match_pathspec_item's git_fnmatch() branch: a path with glob characters is also a
    pattern matched against every index entry (rare, so a linear scan is fine)."""
    if _GLOB_SPECIAL.search(rel) is None:
        return False
    regex = _wildmatch_regex(rel)
    return regex is not None and any(regex.fullmatch(p) for p in tracked.files)


def _gitignore_path(root: str, parts: list[str], depth: int) -> str:
    return "/".join([root, *parts[:depth], ".gitignore"])


def _stamp(path: str | Path, in_tree: bool) -> tuple[int, int] | None:
    try:
        st = os.lstat(path) if in_tree else os.stat(path)
    except OSError:
        return None
    # git opens in-tree .gitignore with O_NOFOLLOW (a symlink is not read); dirs are not files
    if not (st.st_mode & 0o170000 == 0o100000):
        return None
    return (st.st_mtime_ns, st.st_size)


def _last_match(rules: list[IgnoreRule], rel: str) -> IgnoreRule | None:
    for rule in reversed(rules):
        if rule.matches(rel):
            return rule
    return None


def _verdict(source: Path, rule: IgnoreRule) -> IgnoreVerdict:
    return IgnoreVerdict(not rule.negated, source, rule.line_no, rule.pattern, rule.negated)


def claude_code_skips_dir(
    dir_with_claude: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    oracle: IgnoreOracle | None = None,
) -> bool:
    """Mirror of Claude Code's ``git check-ignore <dir>`` (cwd = session cwd): True = skip.

    ``oracle`` should be an :class:`IgnoreOracle` built from ``cwd`` (reuse it across calls).
    """
    if oracle is None:
        oracle = IgnoreOracle(cwd)
    if oracle.repo_root is None:
        return False
    target = os.path.normpath(os.path.join(os.path.abspath(cwd), os.fspath(dir_with_claude)))
    return oracle.check(target).ignored
