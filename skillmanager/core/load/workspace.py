"""What one Claude Code session would see: home, cwd, managed root, extra dirs, profile, model.

Validation is strict and cheap; every problem becomes a one-line `WorkspaceError` the CLI prints.
"""
from __future__ import annotations

import os
import stat
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from ..versions.profiles import PROFILE_NAMES, Profile, VersionError, default_profile, resolve_profile
from .session_env import global_config_file, session_env_value

if TYPE_CHECKING:
    from ..demo import DemoPaths
    from .settings import EffectiveSettings


class WorkspaceError(ValueError):
    """A workspace option that cannot work, said in one line."""


def default_managed_root(platform: str | None = None) -> Path:
    """`getManagedFilePath()` (src/utils/settings/managedPath.ts) per OS."""
    platform = platform or sys.platform
    if platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    if platform.startswith("win"):
        return Path("C:\\Program Files\\ClaudeCode")
    return Path("/etc/claude-code")


def _dir_or_error(path: Path, what: str) -> Path:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise WorkspaceError(f"{what} does not exist: {path}") from None
    except OSError as error:  # name too long, loop, permission …
        raise WorkspaceError(f"{what} cannot be used ({error.strerror or error}): {path}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise WorkspaceError(f"{what} is not a directory: {path}")
    return path


@dataclass
class Workspace:
    """Where a session starts: home, working directory, extra folders and the release whose rules apply."""

    home: Path
    cwd: Path
    managed_root: Path | None = None  # stands for /etc/claude-code; None = no managed layer
    add_dirs: list[Path] = field(default_factory=list)
    plugin_dirs: list[Path] = field(default_factory=list)
    mcp_skills_file: Path | None = None
    profile: Profile = field(default_factory=default_profile)  # the Claude Code release whose rules apply
    model: str | None = None  # explicit --model; see resolved_model()
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    context_window: int | None = None
    budget: int | None = None
    use_parse_cache: bool = False  # read SKILL.md through the persistent parse cache (load/parse_cache.py)
    version_note: str | None = None  # how well the release is known (for stderr), None when studied
    # An install preview: skill folders staged elsewhere, loaded as if they were already in a skills dir
    # ({skills dir: {entry name: staged folder}}); an entry of the same name there is replaced.
    staged_skills: Mapping[str, Mapping[str, Path]] = field(default_factory=dict)
    demo_paths: DemoPaths | None = None  # the layout of the demo copy this workspace opens (core/demo.py)

    @classmethod
    def create(cls, *, home: str | Path | None = None, cwd: str | Path | None = None,
               managed_root: str | Path | None | bool = True, add_dirs: Iterable[str | Path] = (),
               plugin_dirs: Iterable[str | Path] = (),
               mcp_skills_file: str | Path | None = None, profile: str | None = None, model: str | None = None,
               env: Mapping[str, str] | None = None, context_window: int | None = None,
               budget: int | None = None, check_dirs: bool = True,
               claude_version: str | None = None) -> "Workspace":
        """Build and validate. `managed_root=True` means the OS default (skipped if absent); `profile` names
        the release by alias (PROFILE_NAMES), `claude_version` by number (X.Y.Z), not both; the note about a
        release not studied directly is kept in `version_note`."""
        env = dict(os.environ) if env is None else dict(env)
        if profile is not None and profile not in PROFILE_NAMES:
            raise WorkspaceError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILE_NAMES)}")
        try:
            rules, note = resolve_profile(profile, claude_version)
        except VersionError as error:
            raise WorkspaceError(str(error)) from None
        home_path = Path(home).expanduser() if home is not None else Path(env.get("HOME") or Path.home())
        cwd_path = Path(cwd).expanduser() if cwd is not None else Path.cwd()
        home_path, cwd_path = home_path.absolute(), cwd_path.absolute()
        if check_dirs:
            _dir_or_error(home_path, "home directory")
            _dir_or_error(cwd_path, "working directory")
        if managed_root is True:
            root = default_managed_root()
            managed = root if root.is_dir() else None
        elif managed_root is None or managed_root is False:
            managed = None
        else:
            managed = Path(managed_root).expanduser().absolute()
            if managed.name == "skills":
                raise WorkspaceError(
                    f"--managed-dir takes the directory that stands for /etc/claude-code, not its skills folder: "
                    f"try --managed-dir {managed.parent.parent if managed.parent.name == '.claude' else managed.parent}")
            if check_dirs:
                _dir_or_error(managed, "managed directory")
        adds = [Path(p).expanduser().absolute() for p in add_dirs]
        plugins = [Path(p).expanduser().absolute() for p in plugin_dirs]
        if check_dirs:
            for p in adds:
                _dir_or_error(p, "--add-dir")
            for p in plugins:
                _dir_or_error(p, "--plugin-dir")
        mcp = Path(mcp_skills_file).expanduser().absolute() if mcp_skills_file else None
        if mcp is not None and check_dirs:
            try:
                mode = os.stat(mcp).st_mode
            except FileNotFoundError:
                raise WorkspaceError(f"--mcp-skills file does not exist: {mcp}") from None
            except OSError as error:
                raise WorkspaceError(f"--mcp-skills file cannot be used ({error.strerror or error}): {mcp}") from None
            if not stat.S_ISREG(mode):  # a FIFO or device would block or never end
                raise WorkspaceError(f"--mcp-skills file is not a regular file: {mcp}")
        return cls(home=home_path, cwd=cwd_path, managed_root=managed, add_dirs=adds, plugin_dirs=plugins,
                   mcp_skills_file=mcp, profile=rules, model=model, env=env,
                   context_window=context_window, budget=budget, version_note=note)

    @property
    def config_home(self) -> Path:
        """`getClaudeConfigHomeDir()` (src/utils/envUtils.ts): $CLAUDE_CONFIG_DIR, else ~/.claude, NFC."""
        override = self.env.get("CLAUDE_CONFIG_DIR")
        text = override if override is not None else str(self.home / ".claude")
        return Path(unicodedata.normalize("NFC", text))

    @property
    def global_config_file(self) -> Path:
        """~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json): Claude Code's global config, whose `env` applies."""
        return global_config_file(self.home, self.env)

    def resolved_model(self, settings_model: str | None = None,
                       settings: EffectiveSettings | None = None) -> tuple[str, str]:
        """(model, where it came from): --model > ANTHROPIC_MODEL > settings `model` > profile default
        (getUserSpecifiedModelSetting, src/utils/model/model.ts). ANTHROPIC_MODEL as the session holds it: an `env`
        block of `settings` or ~/.claude.json beats the environment (session_env; budget-env-model-in-settings-env:
        a user `env` ANTHROPIC_MODEL beat a project `model` in both releases)."""
        if self.model:
            return self.model, "--model"
        variable = session_env_value("ANTHROPIC_MODEL", self.env, settings, self.global_config_file)
        if variable is not None and variable.text:
            return variable.text, "ANTHROPIC_MODEL" if variable.path is None else f"ANTHROPIC_MODEL in {variable.where}"
        if settings_model:
            return settings_model, "settings"
        return self.profile.default_model, "profile default"
