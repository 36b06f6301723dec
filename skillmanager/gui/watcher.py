"""Live refresh: one watchfiles thread behind a Qt signal (stop event, short step, debounced).

Only what can change the registry is watched, each folder non-recursively so a big monorepo does
not exhaust inotify: the skill and command dirs (and each skill's own folder), the settings
folders, the MCP file's folder, the walk-up dirs, and the package dirs below the cwd where a
`.claude` folder may appear — never node_modules, .git or git-ignored trees. When the set of
folders changes (a new skill dir, a new `.claude`), the watch list is rebuilt. If the OS runs out
of watches, the thread falls back to polling and says so.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Iterable

from PySide6.QtCore import QObject, Signal


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


def _walk_up(cwd: Path, home: Path | None) -> list[Path]:
    """cwd and its parents up to the repo root (inclusive), or to just below home outside a repo."""
    dirs, current = [], cwd
    while True:
        if home is not None and current == home:
            break
        dirs.append(current)
        if (current / ".git").exists() or current.parent == current:
            break
        current = current.parent
    return dirs


def _ignored_predicate(cwd: Path) -> Callable[[Path], bool]:
    from skillmanager.core.simulator import ignore_rules as module

    try:
        oracle = module.IgnoreOracle(cwd)
    except Exception:  # noqa: BLE001 - fail open: heavy dirs are still skipped by name
        oracle = None

    def ignored(path: Path) -> bool:
        if oracle is None:
            return False
        try:
            decision = oracle.check(path)
        except Exception:  # noqa: BLE001
            return False
        return decision.ignored

    return ignored


def watch_plan(workspace) -> list[Path]:
    """Every folder to watch (non-recursively) for this workspace, de-duplicated, existing ones only."""
    cwd = Path(workspace.cwd)
    home = Path(workspace.home) if getattr(workspace, "home", None) else None
    folders: list[Path] = []

    def claude_dir(base: Path) -> None:
        folders.append(base)
        claude = base / ".claude"
        if claude.is_dir():
            folders.append(claude)
            folders.extend(_skill_tree(claude / "skills", 1))
            folders.extend(_skill_tree(claude / "commands", 4))

    if home is not None:
        config_home = getattr(workspace, "config_home", None) or home / ".claude"
        folders.append(home)
        folders.append(Path(config_home))
        folders.extend(_skill_tree(Path(config_home) / "skills", 1))
        folders.extend(_skill_tree(Path(config_home) / "commands", 4))
    managed = getattr(workspace, "managed_root", None)
    if managed:
        claude_dir(Path(managed))
        folders.extend(_skill_tree(Path(managed) / "managed-settings.d", 0))
    for base in _walk_up(cwd, home):
        claude_dir(base)
    for extra in getattr(workspace, "add_dirs", []) or []:
        claude_dir(Path(extra))
    for plugin in getattr(workspace, "plugin_dirs", []) or []:
        plugin = Path(plugin)
        folders.append(plugin)
        folders.extend(_skill_tree(plugin / "skills", 1))
        folders.extend(_skill_tree(plugin / "commands", 4))
        folders.extend(_skill_tree(plugin / ".claude-plugin", 0))
    mcp = getattr(workspace, "mcp_skills_file", None)
    if mcp:
        folders.append(Path(mcp).parent)
    folders.extend(_package_dirs(cwd, _ignored_predicate(cwd)))
    seen, plan = set(), []
    for folder in folders:
        key = str(folder)
        if key not in seen and folder.is_dir():
            seen.add(key)
            plan.append(folder)
    return plan


def _package_dirs(cwd: Path, ignored: Callable[[Path], bool]) -> list[Path]:
    """Folders below the cwd where a nested `.claude` may appear, skipping heavy and ignored trees."""
    out: list[Path] = []
    frontier = [cwd]
    for _depth in range(MAX_PACKAGE_DEPTH):
        next_frontier = []
        for parent in frontier:
            for child in _subdirs(parent):
                if child.name == ".claude":
                    continue  # handled below with its skills tree
                if ignored(child):
                    continue
                out.append(child)
                next_frontier.append(child)
                claude = child / ".claude"
                if claude.is_dir():
                    out.append(claude)
                    out.extend(_skill_tree(claude / "skills", 1))
                if len(out) >= MAX_PACKAGE_DIRS:
                    return out
        frontier = next_frontier
    return out


def relevant(path: str, mcp_file: str | None = None) -> bool:
    """Does a change at `path` possibly change the registry (or the set of folders to watch)?"""
    parts = Path(path).parts
    if any(part in HEAVY_DIRS for part in parts):
        return False
    if ".claude" in parts or ".claude-plugin" in parts or path == mcp_file:
        return True
    name = parts[-1] if parts else ""
    return name in ("skills", "commands", "SKILL.md", "managed-settings.json", "managed-settings.d") or (
        name.endswith(".md") and "commands" in parts)


class SkillWatcher(QObject):
    """Emits `changed(set_of_paths)` on the UI thread (queued) after a debounced burst of edits."""

    changed = Signal(object)
    mode_changed = Signal(str)  # "inotify" | "polling: <why>"

    def __init__(self, parent=None, debounce_ms: int = 300, step_ms: int = 15):
        super().__init__(parent)
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._stop = threading.Event()
        self._rewatch = threading.Event()
        self._thread: threading.Thread | None = None
        self._workspace = None
        self._lock = threading.Lock()
        self.force_polling = False
        self.mode = "idle"
        self.watched: list[Path] = []

    def start(self, workspace) -> None:
        """Watch `workspace`; a no-op when it is already being watched (new folders rewatch by themselves)."""
        with self._lock:
            same = workspace is self._workspace
            self._workspace = workspace
        if same and self._thread is not None and self._thread.is_alive():
            return
        if self._thread is not None and self._thread.is_alive():
            self._rewatch.set()
            self._stop.set()  # leave the current watch() so the new plan is used
            return
        self._spawn()

    def _spawn(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="skillmanager-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._rewatch.clear()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None

    def rewatch(self) -> None:
        """Rebuild the watch list (after a scan found new folders)."""
        if self._thread is not None and self._thread.is_alive():
            self._rewatch.set()
            self._stop.set()

    def _run(self) -> None:
        from watchfiles import watch

        while True:
            with self._lock:
                workspace = self._workspace
            if workspace is None:
                return
            plan = watch_plan(workspace)
            self.watched = plan
            mcp = str(workspace.mcp_skills_file) if getattr(workspace, "mcp_skills_file", None) else None
            stop = self._stop
            structural = False
            try:
                self._set_mode("starting")
                # yield_on_timeout: the first (empty) yield tells us the OS watches are in place
                for changes in watch(*plan, stop_event=stop, debounce=self.debounce_ms, step=self.step_ms,
                                     recursive=False, force_polling=self.force_polling or None,
                                     poll_delay_ms=250, watch_filter=None, raise_interrupt=False,
                                     ignore_permission_denied=True, rust_timeout=250, yield_on_timeout=True):
                    self._set_mode("polling: " + self._polling_reason if self.force_polling else "inotify")
                    if not changes:
                        continue
                    paths = {path for _change, path in changes if relevant(path, mcp)}
                    structural = any(self._is_new_folder(change, path) for change, path in changes)
                    if paths:
                        self.changed.emit(paths)
                    if structural:
                        break  # a new folder: rebuild the plan and watch again
            except (OSError, RuntimeError) as error:
                if not self.force_polling:
                    self.force_polling = True
                    self._polling_reason = _plain_watch_error(error)
                    continue
                self._set_mode(f"stopped: {error}")
                return
            if structural:
                continue
            if self._rewatch.is_set():
                self._rewatch.clear()
                self._stop = threading.Event()
                continue
            return

    _polling_reason = "requested"

    def _set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)

    @staticmethod
    def _is_new_folder(change, path: str) -> bool:
        from watchfiles import Change

        return change == Change.added and os.path.isdir(path) and Path(path).name not in HEAVY_DIRS


def _plain_watch_error(error: BaseException) -> str:
    text = str(error)
    if "limit" in text.lower() or "no space left" in text.lower() or getattr(error, "errno", None) == 28:
        return "the system ran out of file watches (fs.inotify.max_user_watches)"
    return f"file watching failed ({text})"


def count_watches(paths: Iterable[Path]) -> int:
    return sum(1 for _ in paths)
