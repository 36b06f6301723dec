"""Which folders to watch so that every change that can alter what Claude Code loads is seen.

Each folder is watched non-recursively so that a big monorepo does not exhaust inotify: the skill and command
dirs (and each skill's own folder), the settings folders, the MCP file's folder, the walk-up levels (the same
ones the loader visits), and the package dirs below the cwd where a nested `.claude` may appear — never heavy
trees (node_modules, .git…) or trees git ignores. The GUI's watcher thread asks this module and applies no rule.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Callable

from .sources import project_levels_up_to_home
from .workspace import Workspace

log = logging.getLogger(__name__)

HEAVY_DIRS = frozenset({"node_modules", ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".mypy_cache",
                        ".pytest_cache", ".tox", ".next", ".cache", "dist", "build", "target"})
MAX_PACKAGE_DEPTH = 6
MAX_PACKAGE_DIRS = 4000


def _subdirs(path: Path) -> list[Path]:
    try:
        with os.scandir(path) as entries:
            return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=True) and e.name not in HEAVY_DIRS]
    except OSError:
        return []


def _skill_tree(root: Path, depth: int) -> list[Path]:
    """A skills/commands dir and its folders down to `depth` (skills: 1, commands: a few levels)."""
    if not root.is_dir():
        return []
    out, frontier = [root], [root]
    for _ in range(depth):
        frontier = [child for parent in frontier for child in _subdirs(parent)]
        out += frontier
    return out


def _ignored_predicate(cwd: Path) -> Callable[[Path], bool]:
    from ..simulator.ignore_rules import IgnoreOracle

    try:
        oracle = IgnoreOracle(cwd)
    except (OSError, ValueError) as error:  # fail open: heavy dirs are still skipped by name
        log.info("watching without git ignore rules for %s: %s", cwd, error)
        return lambda _path: False

    def ignored(path: Path) -> bool:
        try:
            return oracle.check(path).ignored
        except (OSError, ValueError):
            return False

    return ignored


def _package_dirs(cwd: Path, ignored: Callable[[Path], bool]) -> list[Path]:
    """Folders below the cwd where a nested `.claude` may appear, skipping heavy and ignored trees."""
    out: list[Path] = []
    frontier = [cwd]
    for _depth in range(MAX_PACKAGE_DEPTH):
        next_frontier = []
        for parent in frontier:
            for child in _subdirs(parent):
                if child.name == ".claude" or ignored(child):
                    continue
                out.append(child)
                next_frontier.append(child)
                claude = child / ".claude"
                if claude.is_dir():
                    out.append(claude)
                    out.extend(_skill_tree(claude / "skills", 1))
                if len(out) >= MAX_PACKAGE_DIRS:
                    log.info("watching only the first %d package folders below %s", MAX_PACKAGE_DIRS, cwd)
                    return out
        frontier = next_frontier
    return out


def watch_targets(workspace: Workspace) -> list[Path]:
    """Every existing folder to watch (non-recursively) for this workspace, de-duplicated."""
    cwd = Path(workspace.cwd)
    folders: list[Path] = []

    def claude_dir(base: Path) -> None:
        folders.append(base)
        claude = base / ".claude"
        if claude.is_dir():
            folders.append(claude)
            folders.extend(_skill_tree(claude / "skills", 1))
            folders.extend(_skill_tree(claude / "commands", 4))

    config_home = Path(workspace.config_home)
    folders += [Path(workspace.home), config_home]
    folders += _skill_tree(config_home / "skills", 1) + _skill_tree(config_home / "commands", 4)
    if workspace.managed_root is not None:
        claude_dir(Path(workspace.managed_root))
        folders.extend(_skill_tree(Path(workspace.managed_root) / "managed-settings.d", 0))
    for level in project_levels_up_to_home(cwd, Path(workspace.home)):
        claude_dir(level)
    for extra in workspace.add_dirs:
        claude_dir(Path(extra))
    for plugin in map(Path, workspace.plugin_dirs):
        folders.append(plugin)
        for sub, depth in (("skills", 1), ("commands", 4), (".claude-plugin", 0)):
            folders.extend(_skill_tree(plugin / sub, depth))
    if workspace.mcp_skills_file is not None:
        folders.append(Path(workspace.mcp_skills_file).parent)
    folders.extend(_package_dirs(cwd, _ignored_predicate(cwd)))
    seen: set[str] = set()
    plan: list[Path] = []
    for folder in folders:
        key = str(folder)
        if key not in seen and folder.is_dir():
            seen.add(key)
            plan.append(folder)
    return plan


def is_relevant_change(path: str, workspace: Workspace) -> bool:
    """Can a change at `path` change the registry (or the set of folders to watch)?"""
    parts = Path(path).parts
    if any(part in HEAVY_DIRS for part in parts):
        return False
    mcp = str(workspace.mcp_skills_file) if workspace.mcp_skills_file is not None else None
    if ".claude" in parts or ".claude-plugin" in parts or path == mcp:
        return True
    name = parts[-1] if parts else ""
    return name in ("skills", "commands", "SKILL.md", "managed-settings.json", "managed-settings.d") or (
        name.endswith(".md") and "commands" in parts)


def is_new_watch_folder(path: str) -> bool:
    """A folder that appeared and may hold skills: the watch list must be rebuilt."""
    return os.path.isdir(path) and Path(path).name not in HEAVY_DIRS
