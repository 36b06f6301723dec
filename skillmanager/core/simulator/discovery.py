"""Which nested `.claude/skills` dirs a touched file reveals (spec §5).

Port of discoverSkillDirsForPaths (src/skills/loadSkillsDir.ts) and the `git check-ignore` gate
(isPathGitignored, src/utils/git/gitignore.ts), decided without git by core/ignore_rules.py.
Plain strings and os.path are used on purpose: this runs on every simulated step and must stay
well under a millisecond per directory on a large monorepo.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..load.sources import find_git_root

if TYPE_CHECKING:  # ignore_rules (pathspec) is imported when a session first needs it
    from .ignore_rules import IgnoreVerdict

SEP = os.sep


def expand_path(path: str, cwd: str) -> str:
    """expandPath (src/utils/path.ts): `~`, relative to the cwd, `..` folded lexically; no realpath."""
    if path == "~" or path.startswith("~" + SEP):
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


@dataclass(frozen=True)
class IgnoredDir:
    """A skills dir that was found but skipped because git ignores the directory holding it."""

    skills_dir: str  # absolute `<dir>/.claude/skills`
    rel_dir: str  # the holder dir relative to the cwd
    source_file: str | None  # rule file relative to the repo root (`.gitignore`, `.git/info/exclude`, …)
    line_no: int | None
    pattern: str | None

    @property
    def rule(self) -> str:
        if self.source_file is None:
            return "ignored"
        return f"{self.source_file}:{self.line_no}:{self.pattern}"

    def to_json(self) -> dict[str, Any]:
        return {"dir": self.rel_dir, "skills_dir": self.skills_dir, "rule": self.rule,
                "file": self.source_file, "line": self.line_no, "pattern": self.pattern}


@dataclass
class DiscoveryOutcome:
    new_dirs: list[str] = field(default_factory=list)  # absolute skills dirs, deepest first
    ignored: list[IgnoredDir] = field(default_factory=list)


IgnoreCheck = Callable[[str, bool], "IgnoreVerdict | None"]  # (path relative to repo root, is_dir) -> verdict


class SkillDirDiscovery:
    """The session-long `dynamicSkillDirs` set plus the walk from a file up to (not incl.) the cwd."""

    def __init__(self, cwd: str, *, ignore_factory: Callable[[str], IgnoreCheck] | None = None) -> None:
        self.cwd = cwd[:-1] if cwd.endswith(SEP) and len(cwd) > 1 else cwd
        self.checked: set[str] = set()  # every `<dir>/.claude/skills` looked at, hit or miss (never re-checked)
        root = find_git_root(self.cwd)
        self._repo_root = str(root) if root is not None else None
        self._ignore_factory = ignore_factory
        self._ignore_check: IgnoreCheck | None = None  # built once, on the first existing skills dir

    @property
    def repo_root(self) -> str | None:
        return self._repo_root

    def discover(self, file_path: str) -> DiscoveryOutcome:
        """discoverSkillDirsForPaths([file_path], cwd) — `file_path` is already expanded."""
        out = DiscoveryOutcome()
        prefix = self.cwd + SEP if self.cwd != SEP else SEP
        current = os.path.dirname(file_path)
        while current.startswith(prefix):
            skills_dir = os.path.join(current, ".claude", "skills")
            if skills_dir not in self.checked:
                self.checked.add(skills_dir)
                # fs.stat: any existing entry passes (a file named `skills` then loads nothing)
                if os.path.exists(skills_dir):
                    verdict = self._ignored(current)
                    if verdict is not None:
                        out.ignored.append(verdict)
                    else:
                        out.new_dirs.append(skills_dir)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        # deepest first by separator count; Array.prototype.sort is stable, so ties keep walk order
        out.new_dirs.sort(key=lambda d: -d.count(SEP))
        return out

    # -- the `git check-ignore <holder>` gate -------------------------------------------------

    def _ignored(self, holder: str) -> IgnoredDir | None:
        """An IgnoredDir when git would ignore `holder`; None otherwise (and outside a repo: fail open)."""
        root = self._repo_root
        if root is None or self._ignore_factory is None:
            return None
        rel_repo = os.path.relpath(holder, root)
        if rel_repo.startswith(".."):
            return None
        parts = rel_repo.split(SEP)
        # `git check-ignore a/link/b` fails with "beyond a symbolic link" (exit 128): fail open
        walk = root
        for part in parts[:-1]:
            walk = os.path.join(walk, part)
            if os.path.islink(walk):
                return None
        # git lstat()s the path: a symlinked dir is not a directory, so `dir/` rules miss it
        is_dir = os.path.isdir(holder) and not os.path.islink(holder)
        if self._ignore_check is None:
            self._ignore_check = self._ignore_factory(root)
        verdict = self._ignore_check(rel_repo.replace(SEP, "/"), is_dir)
        if verdict is None or not verdict.ignored:
            return None
        source: str | None = None
        if verdict.source_file is not None:
            source = str(verdict.source_file)
            if os.path.isabs(source):
                source = os.path.relpath(source, root)
            source = source.replace(SEP, "/")
        return IgnoredDir(skills_dir=os.path.join(holder, ".claude", "skills"),
                          rel_dir=os.path.relpath(holder, self.cwd).replace(SEP, "/"),
                          source_file=source, line_no=verdict.line_no,
                          pattern=verdict.pattern)
