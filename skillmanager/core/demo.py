"""The built-in demo workspace: a small monorepo with skills of every kind and every conflict.

The files live in `resources/demo/` (see its README). `create_demo_workspace()` copies them to a
fresh temp dir so that the user can edit and toggle freely, then adds what a resource folder cannot
carry portably: the symlinked duplicate skill, the `.gitignore`, a `node_modules` heavy dir and a
`git init` of the repository.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .resources import resource_path

if TYPE_CHECKING:
    from .load.workspace import Workspace

DEMO_CWD = Path("acme") / "platform"


@dataclass(frozen=True)
class DemoPaths:
    """Where the parts of a copied demo live (all absolute)."""

    root: Path
    home: Path
    managed_root: Path
    repo: Path
    cwd: Path
    add_dir: Path
    plugin_dir: Path
    mcp_skills_file: Path


def demo_source() -> Path:
    return resource_path("demo")


def copy_demo(target: Path | None = None) -> DemoPaths:
    """Copy the demo files into `target` (a new temp dir by default) and finish the setup."""
    root = Path(target) if target else Path(tempfile.mkdtemp(prefix="skillmanager-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(demo_source(), root, dirs_exist_ok=True, symlinks=False)
    paths = DemoPaths(
        root=root,
        home=root / "home",
        managed_root=root / "managed",
        repo=root / "acme",
        cwd=root / DEMO_CWD,
        add_dir=root / "extra",
        plugin_dir=root / "plugins" / "acme-tools",
        mcp_skills_file=root / "mcp" / "skills.json",
    )
    # Stored under another name so the nested ignore file does not hide demo files from our own repo.
    stored_ignore = paths.repo / "dot-gitignore"
    if stored_ignore.exists():
        stored_ignore.replace(paths.repo / ".gitignore")
    _make_symlink_duplicate(paths)
    _make_heavy_dir(paths)
    _git_init(paths.repo)
    return paths


def _make_symlink_duplicate(paths: DemoPaths) -> None:
    """~/.claude/skills/team-style -> the project's team-style: one real file loaded twice."""
    link = paths.home / ".claude" / "skills" / "team-style"
    target = paths.repo / ".claude" / "skills" / "team-style"
    if link.exists() or link.is_symlink():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.symlink(target, link, target_is_directory=True)
    except OSError:  # e.g. Windows without the symlink privilege: the demo simply lacks that case
        pass


def _make_heavy_dir(paths: DemoPaths) -> None:
    """A tiny node_modules, so the simulator shows an ignored heavy dir (it is never scanned)."""
    package = paths.cwd / "node_modules" / "left-pad"
    package.mkdir(parents=True, exist_ok=True)
    (package / "index.js").write_text("module.exports = (s, n) => String(s).padStart(n);\n", encoding="utf-8")
    (package / "package.json").write_text('{"name": "left-pad", "version": "1.3.0"}\n', encoding="utf-8")


def _git_init(repo: Path) -> None:
    """`git init` so Claude Code's repo-root rules apply; ignore decisions never need git itself."""
    if (repo / ".git").exists() or shutil.which("git") is None:
        return
    try:
        subprocess.run(["git", "init", "-q", str(repo)], check=False, timeout=20,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        pass


def demo_environment(paths: DemoPaths) -> dict[str, str]:
    """The process environment with HOME pointing at the demo and no config-dir, model or listing-budget override
    leaking in (the demo shows the same listing on every machine)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_MODEL", "SLASH_COMMAND_TOOL_CHAR_BUDGET")}
    env["HOME"] = str(paths.home)
    return env


def demo_workspace_arguments(paths: DemoPaths, **overrides: Any) -> dict[str, Any]:
    """Keyword arguments for `Workspace.create` that describe the copied demo."""
    arguments: dict[str, Any] = dict(
        home=paths.home,
        cwd=paths.cwd,
        managed_root=paths.managed_root,
        add_dirs=[paths.add_dir],
        plugin_dirs=[paths.plugin_dir],
        mcp_skills_file=paths.mcp_skills_file,
        env=demo_environment(paths),
    )
    arguments.update(overrides)
    return arguments


def create_demo_workspace(target: Path | None = None, **overrides: Any) -> Workspace:
    """Copy the demo to a temp dir and return a `Workspace` for it (`profile=`/`model=` via overrides).

    The copy's layout is on the returned workspace as `demo_paths`.
    """
    from .load.workspace import Workspace  # the workspace module is the source of truth for its fields

    paths = copy_demo(target)
    workspace = Workspace.create(**demo_workspace_arguments(paths, **overrides))
    workspace.demo_paths = paths
    return workspace
