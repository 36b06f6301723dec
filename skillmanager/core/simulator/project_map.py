"""The project map the simulator page draws: what each folder and file of the repo means to a session.

A folder holding `.claude/skills` carries its skill count; a folder git ignores carries the rule
(`file:line (pattern)`) that makes a session skip its skills; a file that a `paths:` skill's pattern
matches names the skill it would activate. Suggestions point at the next steps that would change
something. Everything is computed per folder on demand (the map is lazy, like the tree that shows it),
with the same ignore rules (ignore_rules.py) and pattern matcher (path_patterns.py) the session uses.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ..load.sources import find_git_root
from ..load.watch_targets import HEAVY_DIRS
from ..rules.path_patterns import PathMatcher, path_chain

if TYPE_CHECKING:
    from .ignore_rules import IgnoreOracle
    from ..rules.registry import Registry
    from .session import StepResult

SKILL_FILE = "SKILL.md"
MAX_WALK_DIRS = 20_000  # suggestions on a huge monorepo: stop looking after this many folders
MAX_SUGGESTIONS = 4


@dataclass(frozen=True)
class FolderFacts:
    path: str  # absolute
    skill_count: int  # skills in <path>/.claude/skills (0: none there)
    ignored_rule: str | None  # "file:line (pattern)" when git ignores the folder
    heavy: bool  # node_modules, .git, …: never opened by the map

    @property
    def badge(self) -> str:
        if not self.skill_count:
            return ""
        return f"{self.skill_count} skill" + ("" if self.skill_count == 1 else "s")

    @property
    def skipped(self) -> bool:
        return self.heavy or self.ignored_rule is not None

    @property
    def tooltip(self) -> str:
        lines = []
        if self.skill_count:
            lines.append(f"Holds .claude/skills with {self.badge}: a session discovers them when it reads, edits "
                         "or writes a file in this folder.")
        if self.ignored_rule:
            lines.append(f"Git ignores this folder ({self.ignored_rule}): Claude Code skips its skills, and the "
                         "map does not open it.")
        elif self.heavy:
            lines.append(f"{os.path.basename(self.path)} is not opened by the map (too large to be useful).")
        return "\n".join(lines)


@dataclass(frozen=True)
class FileFacts:
    path: str
    activates: tuple[tuple[str, str], ...]  # (skill name, the `paths:` pattern that matches)

    @property
    def tooltip(self) -> str:
        if not self.activates:
            return ""
        return "\n".join(f"Reading, editing or writing this file activates {name} (its paths: pattern `{pattern}` "
                         "matches)." for name, pattern in self.activates)


@dataclass(frozen=True)
class Suggestion:
    op: str
    path: str  # absolute
    text: str  # "Read a file in packages/api — 2 skills would be discovered"


class ProjectMap:
    """Per-folder facts for one registry's project; safe to use from one worker thread at a time."""

    def __init__(self, registry: Registry) -> None:
        self.cwd = os.path.normpath(os.path.abspath(str(registry.workspace.cwd)))
        root = find_git_root(Path(self.cwd))
        self.repo_root = str(root) if root is not None else None
        self._oracle: IgnoreOracle | None = None  # built on first use (parses the repo's ignore files)
        pending = {}
        for skill in registry.skills:  # the conditional map a session starts with (later copies overwrite)
            if skill.state.duplicate_of is None and skill.state.conditional and skill.paths:
                pending[skill.name] = skill
        self._matchers: list[tuple[str, Callable[[list[str]], str | None]]] = [
            (name, PathMatcher(list(skill.paths or [])).match_chain) for name, skill in pending.items()]

    # -- one folder, one file ------------------------------------------------------------------------------

    def _ignore_rule(self, path: str, is_dir: bool) -> str | None:
        if self.repo_root is None:
            return None
        if self._oracle is None:
            from .ignore_rules import IgnoreOracle

            self._oracle = IgnoreOracle(Path(self.repo_root))
        try:
            verdict = self._oracle.check(path, is_dir)
        except (OSError, ValueError):  # fail open, like git check-ignore outside a repo
            return None
        if not verdict.ignored:
            return None
        if verdict.source_file is None:
            return "an ignore rule"
        source = str(verdict.source_file)
        if os.path.isabs(source):
            source = os.path.relpath(source, self.repo_root)
        return f"{source.replace(os.sep, '/')}:{verdict.line_no} ({verdict.pattern})"

    def folder(self, path: str | os.PathLike[str]) -> FolderFacts:
        path = os.path.normpath(os.path.abspath(os.fspath(path)))
        heavy = os.path.basename(path) in HEAVY_DIRS
        return FolderFacts(path, _skill_count(path), self._ignore_rule(path, True), heavy)

    def file(self, path: str | os.PathLike[str]) -> FileFacts:
        path = os.path.normpath(os.path.abspath(os.fspath(path)))
        rel = os.path.relpath(path, self.cwd)
        if rel.startswith(os.pardir) or os.path.isabs(rel) or not self._matchers:
            return FileFacts(path, ())
        chain = path_chain(rel.replace(os.sep, "/"))
        if chain is None:
            return FileFacts(path, ())
        found = []
        for name, match in self._matchers:
            pattern = match(chain)
            if pattern is not None:
                found.append((name, pattern))
        return FileFacts(path, tuple(found))

    def children(self, folder: str | os.PathLike[str]) -> dict[str, FolderFacts | FileFacts]:
        """Facts for every entry of one folder (what the map needs when the folder is opened)."""
        out: dict[str, FolderFacts | FileFacts] = {}
        try:
            entries = list(os.scandir(os.fspath(folder)))
        except OSError:
            return out
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            out[entry.path] = self.folder(entry.path) if is_dir else self.file(entry.path)
        return out

    # -- what to try next --------------------------------------------------------------------------------

    def suggestions(self, results: Iterable[StepResult] = (), limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
        """Steps that would change something now: a folder whose skills are not discovered yet, a file that
        activates a `paths:` skill not activated yet. `results`: the session's step results so far."""
        results = list(results)
        seen_dirs = {d for r in results for d in r.discovered_dirs}
        seen_dirs |= {f"{i.rel_dir}/.claude/skills" for r in results for i in r.ignored_dirs}
        activated = {a.skill.name for r in results for a in r.activated}
        out: list[Suggestion] = []
        waiting = {name for name, _ in self._matchers} - activated
        for folder, files in self._walk():
            rel = os.path.relpath(folder, self.cwd).replace(os.sep, "/")
            if rel != "." and f"{rel}/.claude/skills" not in seen_dirs and len(out) < limit:
                count = _skill_count(folder)
                first = files[0] if files else _first_file(folder)
                if count and first:
                    verb = "skill would be discovered" if count == 1 else "skills would be discovered"
                    out.append(Suggestion("Read", first, f"Read a file in {rel} — {count} {verb}"))
                    seen_dirs.add(f"{rel}/.claude/skills")
            for file in files:
                if not waiting or len(out) >= limit:
                    break
                facts = self.file(file)
                names = [name for name, _ in facts.activates if name in waiting]
                if names:
                    waiting -= set(names)
                    pattern = next(p for n, p in facts.activates if n == names[0])
                    rel_file = os.path.relpath(file, self.cwd).replace(os.sep, "/")
                    out.append(Suggestion("Edit", file, f"Edit {rel_file} — activates {', '.join(names)} "
                                                        f"(paths: `{pattern}`)"))
            if len(out) >= limit:
                break
        return out

    def _walk(self) -> Iterator[tuple[str, list[str]]]:
        """(folder, its files) breadth first from the cwd, never into heavy, hidden or ignored folders."""
        queue = [self.cwd]
        visited = 0
        while queue and visited < MAX_WALK_DIRS:
            folder = queue.pop(0)
            visited += 1
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            files, dirs = [], []
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name in HEAVY_DIRS or entry.name.startswith("."):
                            continue
                        if self._ignore_rule(entry.path, True) is None:
                            dirs.append(entry.path)
                    elif entry.is_file() and not entry.name.startswith("."):
                        files.append(entry.path)
                except OSError:
                    continue
            yield folder, files
            queue.extend(dirs)


def _skill_count(folder: str) -> int:
    skills_dir = os.path.join(folder, ".claude", "skills")
    try:
        entries = list(os.scandir(skills_dir))
    except OSError:
        return 0
    count = 0
    for entry in entries:
        try:
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, SKILL_FILE)):
                count += 1
        except OSError:
            continue
    return count


def _first_file(folder: str, depth: int = 3) -> str | None:
    """A plain file somewhere below `folder` (not in .claude): what "read a file in X" reads."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: (e.is_dir(), e.name))
    except OSError:
        return None
    for entry in entries:
        if entry.name.startswith(".") or entry.name in HEAVY_DIRS:
            continue
        try:
            if entry.is_file():
                return entry.path
            if depth and entry.is_dir(follow_symlinks=False):
                found = _first_file(entry.path, depth - 1)
                if found:
                    return found
        except OSError:
            continue
    return None
