"""`verify` end to end: find the CLI and its version, build the sandbox, run the CLI (inside private
namespaces where possible), predict with the engine for that version, compare, and say which protections
applied. The CLI command and the GUI both call `run_verify`.

Outcomes: MATCHES (exit 0), DIFFERS (1), UNSAFE (2: it cannot run safely or at all, with the reason).
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from skillmanager import __version__

from ..load.workspace import Workspace, WorkspaceError, default_managed_root
from ..rules.registry import load_registry
from ..layers.listing import build_listing
from ..simulator.session import Session
from ..versions.profiles import Profile, installed_profile
from .capture import Capture, reduce_requests
from .compare import ListingComparer, Section, compare_listing, compare_reads
from .sandbox import (RISKY_SETTINGS_KEYS, Namespaces, Sandbox, build_sandbox, claude_command, clean_environment,
                      cli_arguments, probe_namespaces)

MATCHES, DIFFERS, UNSAFE = "matches", "differs", "cannot-run"
EXIT_CODES = {MATCHES: 0, DIFFERS: 1, UNSAFE: 2}
DEFAULT_TIMEOUT = 150.0
VERSION_TIMEOUT = 30.0
TEXT_DIFFERENCES_SHOWN = 12  # per section in the text report


@dataclass
class VerifyOptions:
    claude: str | None = None  # path to `claude` (binary or cli.js); default: `claude` on PATH
    reads: list[str] = field(default_factory=list)
    home: str | None = None
    cwd: str | None = None
    managed_dir: str | None = None
    no_managed: bool = False
    add_dirs: list[str] = field(default_factory=list)
    plugin_dirs: list[str] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT
    use_namespaces: bool = True  # False: behave as on an OS without them (verify then refuses what it cannot protect)
    keep_sandbox: bool = False


def options_for_workspace(workspace: Workspace, *, claude: str | None = None, reads: list[str] | None = None,
                          **extra: Any) -> VerifyOptions:
    """The options that make the real CLI see this workspace (what the GUI is showing)."""
    managed = workspace.managed_root
    return VerifyOptions(claude=claude, reads=list(reads or []), home=str(workspace.home), cwd=str(workspace.cwd),
                         managed_dir=None if managed is None or managed == default_managed_root() else str(managed),
                         no_managed=managed is None, add_dirs=[str(p) for p in workspace.add_dirs],
                         plugin_dirs=[str(p) for p in workspace.plugin_dirs], **extra)


@dataclass
class VerifyReport:
    status: str
    reason: str = ""  # why it could not run (UNSAFE)
    claude: str | None = None
    version: str | None = None
    profile: str | None = None
    version_warning: str | None = None
    model: str | None = None
    protections: list[str] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    removed_settings: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cli_exit: int | None = None
    cli_stderr: str = ""
    environment: dict[str, str] = field(default_factory=dict)  # the CLI's whole environment (the fake key left out)
    sandbox: str | None = None
    bad_options: bool = False  # UNSAFE before anything ran: an option names no usable CLI, folder or file

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k not in ("sections", "bad_options")}
        data["sections"] = [s.to_json() for s in self.sections]
        data["exit_code"] = self.exit_code
        data["skillmanager"] = __version__
        return data

    def lines(self) -> list[str]:
        out = [f"skillmanager {__version__} verify on {platform.platform(terse=True)}"]
        if self.claude:
            out.append(f"Claude Code {self.version or '?'} at {self.claude}: engine profile {self.profile or '?'}"
                       + (f", model {self.model}" if self.model else ""))
        if self.version_warning:
            out.append(f"note: {self.version_warning}")
        if self.protections:
            out.append("protections applied:")
            out += [f"  + {p}" for p in self.protections]
        if self.not_applied:
            out.append("protections not applied:")
            out += [f"  - {p}" for p in self.not_applied]
        if self.removed_settings:
            out.append("removed from the copies the CLI read:")
            out += [f"  - {r}" for r in self.removed_settings]
        for section in self.sections:
            out.append(f"{section.title}: {section.status}" + (f" ({section.detail})" if section.detail else ""))
            for d in section.differences[:TEXT_DIFFERENCES_SHOWN]:
                out += ["  " + line for line in d.lines()]
            if len(section.differences) > TEXT_DIFFERENCES_SHOWN:
                out.append(f"  … {len(section.differences) - TEXT_DIFFERENCES_SHOWN} more (all of them with --json)")
        out += [f"note: {n}" for n in self.notes]
        if self.status == UNSAFE:
            out.append(f"result: cannot run: {self.reason}")
        elif self.status == DIFFERS:
            out.append(f"result: differs ({sum(len(s.differences) for s in self.sections)} difference(s)); "
                       "the lines above are a bug report for skillmanager")
        else:
            out.append("result: matches")
        return out


def _cannot(report: VerifyReport, reason: str) -> VerifyReport:
    report.status, report.reason = UNSAFE, reason
    return report


def _bad_option(report: VerifyReport, reason: str) -> VerifyReport:
    report.bad_options = True
    return _cannot(report, reason)


def _child_command(spec_path: Path) -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, "__verify-child", str(spec_path)]
    return [sys.executable, "-m", "skillmanager.core.verify.child", str(spec_path)]


def _child_env() -> dict[str, str]:
    import skillmanager
    package_parent = str(Path(skillmanager.__file__).resolve().parents[1])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": package_parent, "LANG": "C.UTF-8"}
    return env


def read_version(command: list[str], env: dict[str, str], cwd: Path) -> tuple[str | None, str]:
    """(`claude --version` output, error)."""
    try:
        proc = subprocess.run([*command, "--version"], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=VERSION_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(command)} --version` did not finish in {VERSION_TIMEOUT:.0f} s"
    except OSError as error:
        return None, f"cannot start {command[-1]}: {error.strerror or error}"
    if proc.returncode != 0:
        return None, f"`--version` exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:300]}"
    return proc.stdout.strip(), ""


def _contains(parent: Path, child: Path) -> bool:
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


def _project_root(cwd: Path) -> Path:
    current = cwd
    while True:
        if (current / ".git").exists():
            return current
        if current.parent == current:
            return cwd
        current = current.parent


def run_verify(options: VerifyOptions, *, progress: Callable[[str], None] | None = None,
               adjust_registry: Callable[[Any], Any] | None = None) -> VerifyReport:
    """Run the whole check. `adjust_registry` lets a caller alter the engine's prediction (tests inject a
    mismatch with it); the CLI and the GUI never pass it."""
    say = progress or (lambda _m: None)
    report = VerifyReport(MATCHES)
    claude = options.claude or shutil.which("claude")
    if not claude:
        return _bad_option(report, "no `claude` on PATH; give --claude PATH (the native binary or a cli.js)")
    claude_path = Path(claude).expanduser().absolute()
    if not claude_path.is_file():
        return _bad_option(report, f"--claude is not a file: {claude_path}")
    report.claude = str(claude_path)
    try:
        command = claude_command(claude_path)
    except FileNotFoundError as error:
        return _bad_option(report, str(error))
    try:
        user_ws = Workspace.create(home=options.home, cwd=options.cwd,
                                   managed_root=None if options.no_managed else (options.managed_dir or True),
                                   add_dirs=options.add_dirs, plugin_dirs=options.plugin_dirs)
    except WorkspaceError as error:
        return _bad_option(report, str(error))
    reads = []
    for read in options.reads:
        path = Path(read).expanduser()
        path = path if path.is_absolute() else user_ws.cwd / path
        if not path.is_file():
            return _bad_option(report, f"--read file does not exist: {path}")
        reads.append(str(path))
    namespaces = probe_namespaces(options.use_namespaces)
    root = Path(tempfile.mkdtemp(prefix="skillmanager-verify-")).resolve()
    report.sandbox = str(root) if options.keep_sandbox else None
    try:
        return _run_in(root, options, user_ws, command, reads, namespaces, report, say, adjust_registry)
    finally:
        if not options.keep_sandbox:
            shutil.rmtree(root, ignore_errors=True)


def _run_in(root: Path, options: VerifyOptions, user_ws: Workspace, command: list[str], reads: list[str],
            namespaces: Namespaces, report: VerifyReport, say: Callable[[str], None],
            adjust_registry: Callable[[Any], Any] | None) -> VerifyReport:
    default_managed = default_managed_root()
    managed_for_cli = user_ws.managed_root  # what the user asked for (or /etc/claude-code when present)
    hide_default = options.no_managed and default_managed.is_dir()
    box = build_sandbox(root, config_home=user_ws.config_home, cwd=user_ws.cwd, managed_root=managed_for_cli,
                        hide_default_managed=hide_default)
    env = clean_environment(box, command)
    say("reading the CLI version")
    version_text, error = read_version(command, {**env, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, box.root)
    if version_text is None:
        return _cannot(report, error)
    report.version = version_text.split()[0] if version_text.split() else version_text
    release, report.version_warning = installed_profile(version_text)
    if release is None:
        return _cannot(report, report.version_warning or "unknown version")
    report.profile = release.name

    # Which protections this run gets, and whether what is left is safe.
    for cleaned in box.removed:
        report.removed_settings.append(cleaned.describe() + (f" ({cleaned.unreadable})" if cleaned.unreadable else ""))
    report.protections += [
        f"clean environment: only {', '.join(sorted(env))}, ANTHROPIC_BASE_URL at the loopback fake server, "
        "every proxy variable at a closed local port",
        f"throwaway HOME and CLAUDE_CONFIG_DIR ({box.home}) with copies of skills, commands, settings and "
        "installed plugins; no live config (~/.claude.json, credentials) is copied",
        f"settings keys removed from every copy: {', '.join(RISKY_SETTINGS_KEYS)}; disableAllHooks via --settings",
        "--no-session-persistence, --strict-mcp-config (no MCP server), --allowedTools Read, "
        "--disallowedTools for every tool that edits or fetches; the fake model only calls Read",
        f"time limit {options.timeout:.0f} s",
    ]
    overlays_needed = [(c, t) for c, t in box.project_overlays
                       if any(s.copy == c and (s.removed or s.unreadable) for s in box.settings)]
    managed_needs_mount = managed_for_cli is not None and managed_for_cli != default_managed
    managed_risky = any(s.scope == "managed" and (s.removed or s.unreadable) for s in box.settings)
    if not namespaces.available:
        report.not_applied.append(f"private network and mount namespaces: {namespaces.why_not}; traffic stays on "
                                  "loopback only through the base URL and the closed proxy port")
        report.not_applied.append("read-only project: needs a mount namespace")
        if overlays_needed:
            files = ", ".join(str(t) for _, t in overlays_needed)
            return _cannot(report, f"{files} holds settings that run commands or redirect traffic, and without a "
                                   f"private mount namespace ({namespaces.why_not}) they cannot be hidden from the CLI")
        if managed_needs_mount:
            return _cannot(report, f"--managed-dir needs a private mount namespace to appear as {default_managed} "
                                   f"({namespaces.why_not})")
        if hide_default:
            return _cannot(report, f"--no-managed needs a private mount namespace to hide {default_managed} "
                                   f"({namespaces.why_not})")
        if managed_risky:
            return _cannot(report, f"{default_managed} holds settings that run commands or redirect traffic, and "
                                   f"without a private mount namespace ({namespaces.why_not}) they cannot be hidden")
    read_only: list[str] = []
    if namespaces.available:
        candidates = [_project_root(user_ws.cwd), *user_ws.add_dirs, *user_ws.plugin_dirs]
        real_home = Path(os.path.expanduser("~")).resolve()
        if options.home:
            candidates.append(Path(options.home).expanduser().resolve())
        candidates.append(real_home)
        for path in candidates:
            path = path.resolve()
            if not path.is_dir() or str(path) in read_only:
                continue
            if _contains(path, root) or str(path) == "/":
                report.not_applied.append(f"read-only {path}: it holds the throwaway directory")
                continue
            read_only.append(str(path))
    box_managed = str(box.managed_copy) if (box.managed_copy is not None and namespaces.available) else None
    spec = {
        "argv": [*command, *cli_arguments(box, add_dirs=user_ws.add_dirs, plugin_dirs=user_ws.plugin_dirs,
                                          max_turns=len(reads) + 4)],
        "cwd": str(user_ws.cwd), "env": env, "read_paths": [*reads, str(box.flush_file)],
        "timeout": options.timeout, "network_namespace": namespaces.network, "mount_namespace": namespaces.mount,
        "read_only": read_only, "overlays": [[str(c), str(t)] for c, t in box.project_overlays],
        "managed_copy": box_managed, "scratch": str(root), "result": str(root / "result.json"),
    }
    (root / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    say(f"running Claude Code {report.version}")
    try:
        proc = subprocess.run([*namespaces.prefix, *_child_command(root / "spec.json")], env=_child_env(), cwd=root,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=options.timeout + 60)
    except subprocess.TimeoutExpired:
        return _cannot(report, "the sandboxed run did not finish")
    try:
        result = json.loads((root / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _cannot(report, f"the sandboxed run failed: {(proc.stderr or proc.stdout).strip()[-600:]}")
    report.protections += result["applied"]
    if result["failed"]:
        return _cannot(report, "a protection could not be applied: " + "; ".join(result["failed"]))
    report.cli_exit = result["cli_exit"]
    report.environment = result["env"]
    report.cli_stderr = result["stderr_tail"]
    if result["timed_out"]:
        return _cannot(report, f"Claude Code did not finish within {options.timeout:.0f} s")
    capture = reduce_requests(result["requests"])
    if capture.main_requests == 0:
        tail = (result["stderr_tail"] or result["stdout_tail"]).strip()[-600:]
        return _cannot(report, f"Claude Code sent no request to the fake API (exit {result['cli_exit']}): {tail}")
    report.model = capture.model
    say("predicting with the engine")
    return _compare(report, capture, box, user_ws, env, reads, release, adjust_registry)


def _compare(report: VerifyReport, capture: Capture, box: Sandbox, user_ws: Workspace, env: dict[str, str],
             reads: list[str], release: Profile, adjust_registry: Callable[[Any], Any] | None) -> VerifyReport:
    workspace = Workspace.create(home=box.home, cwd=user_ws.cwd, managed_root=box.managed_copy,
                                 add_dirs=user_ws.add_dirs, plugin_dirs=user_ws.plugin_dirs, profile=release.alias,
                                 claude_version=None if release.alias else release.version_text, env=env)
    registry = load_registry(workspace)
    if adjust_registry is not None:
        registry = adjust_registry(registry) or registry
    profile = registry.profile
    if capture.model and registry.model and capture.model != registry.model:
        report.notes.append(f"the CLI used model {capture.model}, the engine assumed {registry.model}")
    listing = build_listing(registry)
    measured = capture.model == profile.default_model
    if not measured:
        report.notes.append(f"bundled entries compared by name and position only: their widths were measured with "
                            f"{profile.default_model}, this run used {capture.model}")
    comparer = ListingComparer(registry, profile, measured)
    report.sections.append(compare_listing(listing, capture, comparer))
    if not capture.skill_tool:
        report.notes.append("the Skill tool was not in the CLI's tool list")
    session = Session(registry)
    predicted = [session.add_step("Read", path) for path in [*reads, str(box.flush_file)]]
    titles = [f"Read {os.path.relpath(p, user_ws.cwd)}" for p in reads] + ["Read outside the project (flush)"]
    report.sections += compare_reads(titles, predicted, capture.steps, comparer)
    if report.sections and report.sections[-1].status == "matches":
        report.sections.pop()  # the flush Read only gives late deliveries a call to arrive with
    report.status = DIFFERS if any(s.status == "differs" for s in report.sections) else MATCHES
    return report
