"""Workspace options shared by every command, and the JSON shape of a skill."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from skillmanager.core.versions.release_names import DEFAULT_PROFILE, PROFILE_NAMES

from .errors import UsageError, remember_registry

if TYPE_CHECKING:  # the loader is imported when a command runs, not to build its parser (or replay it)
    from skillmanager.core.load.workspace import Workspace
    from skillmanager.core.model import Skill


def add_workspace_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("workspace")
    group.add_argument("--home", metavar="DIR", help="the home directory whose .claude/ is read (default: $HOME)")
    group.add_argument("--cwd", metavar="DIR", help="the directory Claude Code runs in (default: current dir)")
    managed = group.add_mutually_exclusive_group()
    managed.add_argument("--managed-dir", metavar="ROOT",
                         help="directory standing for /etc/claude-code (default: the OS managed root, if present)")
    managed.add_argument("--no-managed", action="store_true", help="skip the managed (policy) layer")
    group.add_argument("--add-dir", metavar="DIR", action="append", default=[], help="an --add-dir directory (repeatable)")
    group.add_argument("--plugin-dir", metavar="DIR", action="append", default=[],
                       help="a plugin root with .claude-plugin/plugin.json (repeatable)")
    group.add_argument("--mcp-skills", metavar="FILE", help="JSON list of MCP skills {server,name,description,when_to_use,body}")
    group.add_argument("--profile", choices=PROFILE_NAMES, default=None,
                       help=f"Claude Code release by alias: legacy = 2.1.88, current = 2.1.332 (default: {DEFAULT_PROFILE})")
    group.add_argument("--claude-version", metavar="X.Y.Z",
                       help="Claude Code release by number: its exact features from the timeline (not with --profile)")
    group.add_argument("--model", help="model id (default: $ANTHROPIC_MODEL, also from settings env blocks; else settings `model`; "
                       "else the profile default)")
    group.add_argument("--context-window", type=int, metavar="TOKENS", help="context window in tokens (listing budget)")
    group.add_argument("--budget", type=int, metavar="CHARS", help="listing budget in characters: a what-if in place of SLASH_COMMAND_TOOL_CHAR_BUDGET (read, "
                       "as Claude Code reads it, from the environment and the settings' env blocks)")
    group.add_argument("--no-cache", action="store_true",
                       help="read every skill file again instead of using the parse and audit caches and "
                            "the stored answer of `listing` ($XDG_CACHE_HOME/skillmanager)")


def workspace_from_args(args: argparse.Namespace) -> Workspace:
    """The workspace of the shared options. Raises UsageError (exit 2) with a one-line message for a
    missing, unusable or unreadable directory or file."""
    from skillmanager.core.load.workspace import Workspace, WorkspaceError

    managed: Any = True
    if getattr(args, "no_managed", False):
        managed = None
    elif getattr(args, "managed_dir", None):
        managed = args.managed_dir
    try:
        workspace = Workspace.create(home=args.home, cwd=args.cwd, managed_root=managed, add_dirs=args.add_dir or [],
                                     plugin_dirs=args.plugin_dir or [], mcp_skills_file=args.mcp_skills,
                                     profile=args.profile, model=args.model, context_window=args.context_window,
                                     budget=args.budget, claude_version=getattr(args, "claude_version", None))
    except WorkspaceError as error:
        raise UsageError(str(error)) from None
    workspace.use_parse_cache = not getattr(args, "no_cache", False)
    _readable_dir_or_error(workspace.home, "home directory")
    if workspace.version_note:  # a release not studied directly: said once, on stderr
        print(f"skillmanager: note: {workspace.version_note}", file=sys.stderr)
    return workspace


def _readable_dir_or_error(path, what: str) -> None:
    """Claude Code reads everything under the home dir: one it cannot list is a usage error, not an
    empty workspace (which would make `audit` say clean)."""
    try:
        if hasattr(os, "O_DIRECTORY"):  # opendir's permission check, without reading entries: a stored
            os.close(os.open(path, os.O_RDONLY | os.O_DIRECTORY))  # answer need not vouch for the home's files
        else:
            with os.scandir(path) as entries:
                next(entries, None)
    except OSError as error:
        raise UsageError(f"{what} cannot be read ({error.strerror or error}): {path}") from None


def _path(value) -> str | None:
    return str(value) if value is not None else None


def skill_to_json(skill: Skill, outcome: Any = None) -> dict[str, Any]:
    """The documented shape (docs/cli-json.md) of one skill; `outcome` is its ListingOutcome
    (core.layers.listing_outcome), added as `listing_outcome` when given."""
    state = skill.state
    data = {
        "name": skill.name,
        "display_name": skill.display_name,
        "kind": skill.kind,
        "source": skill.source.value,
        "path": _path(skill.path),
        "skill_dir": _path(skill.skill_dir),
        "source_root": _path(skill.source_root),
        "plugin": skill.plugin,
        "plugin_id": skill.plugin_id,
        "mcp_server": skill.mcp_server,
        "description": skill.description,
        "description_from_body": skill.description_from_body,
        "when_to_use": skill.when_to_use,
        "paths": skill.paths,
        "arguments": skill.arguments,
        "user_invocable": skill.user_invocable,
        "disable_model_invocation": skill.disable_model_invocation,
        "size_bytes": skill.size_bytes,
        "load_index": skill.load_index,
        "listed": state.listed.value,
        "invocable_by": state.invocable_by.value,
        "shadowed_by": _ref(state.shadowed_by),
        "duplicate_of": _ref(state.duplicate_of),
        "conditional": state.conditional,
        "active": state.active,
        "decided_by": [d.to_json() for d in state.decided_by],
        "reasons": {"listed": state.listed_reason, "invocable_by": state.invocable_reason,
                    "shadowed_by": state.shadow_reason or None},
        "bundled_width": skill.bundled_width,
        "diagnostics": [d.to_json() for d in skill.diagnostics],
    }
    if outcome is not None:
        data["listing_outcome"] = outcome.outcome.value
        data["listing_outcome_cause"] = outcome.cause
        data["reasons"]["listing_outcome"] = outcome.reason
    return data


def _ref(other: Skill | None) -> dict[str, Any] | None:
    if other is None:
        return None
    return {"name": other.name, "source": other.source.value, "path": _path(other.path)}


def registry_or_exit(args: argparse.Namespace):
    """The loaded registry for the shared workspace options (its workspace diagnostics are reported on
    stderr, and turn the exit code to 1 when one is an error, after the command's output)."""
    from skillmanager.core.rules.registry import load_registry

    workspace = workspace_from_args(args)
    registry = load_registry(workspace)
    remember_registry(registry)
    return registry, 0
