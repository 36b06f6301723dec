"""The throwaway world the real Claude Code runs in during `verify`, and which protections it gets.

- A throwaway directory holds `home/` (HOME and CLAUDE_CONFIG_DIR = `home/.claude`) with copies of what
  decides skills: `skills/`, `commands/`, `settings.json`, `plugins/` (installed plugins, their paths
  rewritten to the copy). The live `~/.claude.json`, credentials, history and projects are never copied.
- Settings keys that run commands or redirect traffic are removed from every copy (RISKY_SETTINGS_KEYS);
  the report lists what was removed. Project settings (`.claude/settings.json`, `.claude/settings.local.json`
  in the cwd) cannot be changed in place: their cleaned copies are bind-mounted over them inside a private
  mount namespace, and without one a project file that holds a risky key makes verify refuse.
- The environment is built from nothing: PATH, a fake key, ANTHROPIC_BASE_URL at the loopback fake server,
  the DISABLE_* switches the oracle uses, every proxy variable at a closed local port.
- Where the OS allows it (`unshare`), the CLI runs in a private network namespace (loopback only) and a
  private mount namespace in which the project, the --add-dir/--plugin-dir folders and the home are
  read-only and the managed-policy copy is bind-mounted over /etc/claude-code.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ETC_MANAGED = Path("/etc/claude-code")
# Settings keys that make Claude Code run a program or send traffic somewhere else.
RISKY_SETTINGS_KEYS = ("env", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh",
                       "otelHeadersHelper", "statusLine", "hooks", "fileSuggestion")
# What the oracle harness sets, so the CLI makes no call of its own (updates, telemetry, error reports).
QUIET_ENV = {
    "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
}
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
FAKE_API_KEY = "sk-ant-fake-skillmanager-verify"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
# Tools the model could use to change something; the fake model only calls Read, this is a second lock.
DENIED_TOOLS = "Bash,Edit,Write,NotebookEdit,WebFetch,WebSearch,MultiEdit"
# Applied as the flag-settings layer (the highest non-managed one): no hook or status-line command runs,
# whatever a project or plugin declares.
FLAG_SETTINGS = {"disableAllHooks": True}


@dataclass
class CleanedSettings:
    """One settings file as the CLI will see it."""

    scope: str  # user | project | local | managed
    original: Path
    copy: Path
    removed: list[str] = field(default_factory=list)
    unreadable: str | None = None  # why it was copied unchanged

    def describe(self) -> str:
        return f"{self.scope} settings ({self.original}): removed {', '.join(self.removed)}"


@dataclass
class Namespaces:
    """What `unshare` can give this process."""

    prefix: list[str]  # the command prefix that enters them ([] = none)
    network: bool
    mount: bool
    why_not: str = ""

    @property
    def available(self) -> bool:
        return self.network and self.mount


def probe_namespaces(enabled: bool = True) -> Namespaces:
    """Private network + mount namespaces: as root (`unshare -m -n`) or in a user namespace (`-r`)."""
    if not enabled:
        return Namespaces([], False, False, "private namespaces were turned off for this run")
    if not os.path.exists("/proc/self/ns/net"):
        return Namespaces([], False, False, "this OS has no Linux namespaces")
    unshare = shutil.which("unshare")
    if unshare is None:
        return Namespaces([], False, False, "`unshare` (util-linux) is not installed")
    for flags in (["-m", "-n"], ["-r", "-m", "-n"]):
        try:
            probe = subprocess.run([unshare, *flags, "true"], capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return Namespaces([unshare, *flags, "--"], True, True)
    return Namespaces([], False, False, "`unshare -m -n` is not permitted here (no root, no user namespaces)")


def clean_settings(original: Path, copy: Path, scope: str) -> CleanedSettings | None:
    """Copy a settings file without its risky keys; None when the file does not exist."""
    try:
        raw = original.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        return CleanedSettings(scope, original, copy, unreadable=f"cannot read it: {error.strerror or error}")
    copy.parent.mkdir(parents=True, exist_ok=True)
    result = CleanedSettings(scope, original, copy)
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        # Claude Code ignores a file it cannot parse as an object; keep it byte for byte unless it might still
        # carry a risky key for a more lenient reader.
        text = raw.decode("utf-8", "replace")
        if any(f'"{key}"' in text for key in RISKY_SETTINGS_KEYS):
            result.unreadable = "it is not a JSON object, and it mentions a key that runs commands"
            result.removed = [k for k in RISKY_SETTINGS_KEYS if f'"{k}"' in text]
            copy.write_text("{}\n", encoding="utf-8")
            return result
        copy.write_bytes(raw)
        return result
    result.removed = [k for k in RISKY_SETTINGS_KEYS if k in data]
    for key in result.removed:
        del data[key]
    copy.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def _copy_tree(source: Path, target: Path) -> None:
    """Copy a folder keeping symlinks; a relative link that would leave the copy points at its original target."""
    if not source.is_dir():
        return
    shutil.copytree(source, target, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".git"))
    for dirpath, dirnames, filenames in os.walk(target):
        for name in dirnames + filenames:
            link = Path(dirpath) / name
            if not link.is_symlink():
                continue
            destination = os.readlink(link)
            if os.path.isabs(destination):
                continue
            original = source / link.relative_to(target)
            resolved = os.path.normpath(os.path.join(os.path.dirname(original), destination))
            inside = os.path.normpath(os.path.join(os.path.dirname(link), destination))
            if not inside.startswith(str(target) + os.sep):
                link.unlink()
                link.symlink_to(resolved)


def _rewrite_paths(path: Path, old: Path, new: Path) -> None:
    """Point the absolute paths a plugins index holds at the copy."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    old_json, new_json = json.dumps(str(old))[1:-1], json.dumps(str(new))[1:-1]
    path.write_text(text.replace(old_json + "/", new_json + "/").replace(old_json + '"', new_json + '"'),
                    encoding="utf-8")


@dataclass
class Sandbox:
    root: Path
    home: Path
    config_dir: Path
    managed_copy: Path | None  # what the CLI sees as /etc/claude-code (None: no managed layer)
    settings: list[CleanedSettings] = field(default_factory=list)
    project_overlays: list[tuple[Path, Path]] = field(default_factory=list)  # (cleaned copy, project file)
    flush_file: Path | None = None

    @property
    def removed(self) -> list[CleanedSettings]:
        return [s for s in self.settings if s.removed or s.unreadable]


def build_sandbox(root: Path, *, config_home: Path, cwd: Path, managed_root: Path | None,
                  hide_default_managed: bool) -> Sandbox:
    """Fill `root` with the throwaway home and the cleaned copies (nothing outside `root` is written)."""
    home = root / "home"
    config_dir = home / ".claude"
    config_dir.mkdir(parents=True)
    (root / "tmp").mkdir()
    box = Sandbox(root, home, config_dir, None)
    for sub in ("skills", "commands"):
        _copy_tree(config_home / sub, config_dir / sub)
    if (config_home / "plugins").is_dir():
        _copy_tree(config_home / "plugins", config_dir / "plugins")
        for index in ("installed_plugins.json", "known_marketplaces.json"):
            if (config_dir / "plugins" / index).is_file():
                _rewrite_paths(config_dir / "plugins" / index, config_home, config_dir)
    user = clean_settings(config_home / "settings.json", config_dir / "settings.json", "user")
    if user is not None:
        box.settings.append(user)
    for scope, name in (("project", "settings.json"), ("local", "settings.local.json")):
        cleaned = clean_settings(cwd / ".claude" / name, root / "project-settings" / name, scope)
        if cleaned is not None:
            box.settings.append(cleaned)
            box.project_overlays.append((cleaned.copy, cwd / ".claude" / name))
    if managed_root is not None and managed_root.is_dir():
        copy = root / "managed"
        _copy_tree(managed_root, copy)
        for path in [copy / "managed-settings.json", *sorted((copy / "managed-settings.d").glob("*.json"))]:
            if path.is_file() and not path.is_symlink():
                cleaned = clean_settings(path, path, "managed")
                if cleaned is not None:
                    cleaned.original = managed_root / path.relative_to(copy)
                    box.settings.append(cleaned)
        box.managed_copy = copy
    elif hide_default_managed:
        (root / "managed").mkdir()
        box.managed_copy = root / "managed"
    (root / "flag-settings.json").write_text(json.dumps(FLAG_SETTINGS) + "\n", encoding="utf-8")
    box.flush_file = root / "flush.txt"
    box.flush_file.write_text("nothing to see here\n", encoding="utf-8")
    return box


def claude_command(claude: Path, node: str | None = None) -> list[str]:
    """The argv prefix that starts this Claude Code: a `cli.js` runs with node, a binary directly."""
    if claude.suffix in (".js", ".mjs", ".cjs"):
        node = node or shutil.which("node")
        if node is None:
            raise FileNotFoundError(f"{claude} is a JavaScript file and no `node` is on PATH")
        return [os.path.abspath(node), str(claude)]
    return [str(claude)]


def clean_environment(box: Sandbox, command: list[str]) -> dict[str, str]:
    """The whole environment of the CLI (the base URL and proxy ports are filled in by the child)."""
    path_dirs = [os.path.dirname(command[0])] if len(command) > 1 else []
    path = ":".join(dict.fromkeys(path_dirs + BASE_PATH.split(":")))
    return {
        "PATH": path, "HOME": str(box.home), "CLAUDE_CONFIG_DIR": str(box.config_dir), "TMPDIR": str(box.root / "tmp"),
        "TERM": "dumb", "USER": "verify", "SHELL": "/bin/sh", "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": FAKE_API_KEY, **QUIET_ENV,
    }


def cli_arguments(box: Sandbox, *, add_dirs: list[Path], plugin_dirs: list[Path], max_turns: int) -> list[str]:
    args = ["-p", "hello", "--max-turns", str(max_turns), "--no-session-persistence", "--strict-mcp-config",
            "--settings", str(box.root / "flag-settings.json"), "--allowedTools", "Read",
            "--disallowedTools", DENIED_TOOLS]
    for directory in add_dirs:
        args += ["--add-dir", str(directory)]
    for directory in plugin_dirs:
        args += ["--plugin-dir", str(directory)]
    return args
