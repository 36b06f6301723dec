"""Layer 2: what a Skill call injects, or the refusal Claude Code returns instead.

legacy: tools/SkillTool/SkillTool.ts (validateInput, checkPermissions) and skills/loadSkillsDir.ts
`getPromptForCommand` (2.1.88). current: the 2.1.332 binary's `getPromptForCommand` + `_vt` + `QVt`,
settled with the oracle (tests/oracle/FINDINGS-expansion.md). Inline shell is found with
inline_shell.find_inline_shell and NEVER run unless the caller asks for it (run_shell=True).
"""
from __future__ import annotations

import re
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .arguments import (ArgumentsTooLong, escape_shell_bangs, js_replace_string,
                        substitute_arguments)
from ..js.strings import js_trim
from ..load.skill_file import parse_argument_names
from .inline_shell import ShellSnippet, find_inline_shell
from ..model import Skill, SourceKind
from ..versions.features import Feature
from ..versions.profiles import Profile
from ..rules.registry import alias_candidates, model_command_list, resolve_name
from ..load.settings import display_names
from ..js.textwidth import utf16_len

if TYPE_CHECKING:
    from ..rules.registry import Registry

NO_OUTPUT = "(Bash completed with no output)"
DENY_TEXT = "Skill execution blocked by permission rules"
OVERRIDE_TEXT = "<tool_use_error>Skill {name} is disabled for model invocation in skillOverrides settings</tool_use_error>"
USER_ONLY_INVOCABLE_BY_CLAUDE = ('This skill can only be invoked by Claude, not directly by users. Ask Claude to use '
                                 'the "{name}" skill for you.')


@dataclass
class ShellRun:
    command: str
    matched: str
    output: str  # what replaced the match (trimmed, or the no-output text)
    exit_code: int | None
    timed_out: bool = False

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ExpansionResult:
    requested: str
    name: str  # the resolved name (leading `/` stripped)
    profile: str
    skill: Skill | None = None
    launch_line: str | None = None  # `Launching skill: NAME` (model calls)
    block: str | None = None  # exactly the injected text
    refusal: str | None = None  # the error text Claude Code returns instead
    is_error: bool = False
    shell_snippets: list[ShellSnippet] = field(default_factory=list)  # what would run (or ran)
    shell_ran: list[ShellRun] = field(default_factory=list)
    session_id: str | None = None
    notes: list[str] = field(default_factory=list)  # where we model rather than reproduce
    # `context: fork`: the block is the sub-agent's prompt; the conversation gets only `tool_result` + its answer
    forked: bool = False
    tool_result: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "requested": self.requested, "name": self.name, "profile": self.profile,
            "path": str(self.skill.path) if self.skill and self.skill.path else None,
            "launch_line": self.launch_line, "block": self.block, "refusal": self.refusal, "is_error": self.is_error,
            "shell_commands": [s.to_json() for s in self.shell_snippets],
            "shell_ran": [r.to_json() for r in self.shell_ran], "session_id": self.session_id, "notes": self.notes,
            "forked": self.forked, "tool_result": self.tool_result,
        }


# --- name resolution -------------------------------------------------------------------------------

def _candidates(registry: Registry) -> list[Skill]:
    return [s for s in registry.skills if s.state.duplicate_of is None and s.state.active]


def resolve_skill(registry: Registry, name: str, profile: Profile, *, for_model: bool = True) -> Skill | None:
    """The copy `name` reaches: the same rule as Registry.find (registry.resolve_name). For the model, current
    skips a disable-model-invocation copy when a later copy may be called (fuzz-reg seeds 20, 21, 22: user
    `simplify` with dmi → `Skill simplify` launched the bundled one). A user's `/name` goes through the slash
    command lookup (commands.ts findCommand: first match), so for_model=False keeps the first copy."""
    return resolve_name(registry.skills, name, profile, for_model=for_model)


# current's built-in slash commands and aliases (names in the 2.1.332 binary, `name:"…"`; `cost` is an
# alias there), in its registration order (`Qdl`), which breaks ties. Only used for current's "Did you mean …?"
# hint, which looks at every command. `cd` and `bug`'s alias `share`: fuzz-reg seeds 1039, 1047 (`名前` → cd,
# `shared` → share). Feature-gated commands the registration list holds are not all known here.
CURRENT_BUILTIN_COMMANDS = (
    "add-dir", "advisor", "agents", "branch", "btw", "cd", "chrome", "clear", "reset", "new", "color", "compact",
    "config", "settings", "copy", "desktop", "app", "context", "cost", "diff", "doctor", "effort", "exit", "quit",
    "export", "fast", "feedback", "bug", "share", "files", "heapdump", "help", "hooks", "ide", "init", "insights",
    "install-github-app", "install-slack-app", "keybindings", "login", "logout", "mcp", "memory", "mobile", "ios",
    "android", "model", "output-style", "permissions", "allowed-tools", "plan", "plugin", "privacy-settings",
    "rate-limit-options", "release-notes", "reload-plugins", "remote-control", "rc", "remote-env", "rename",
    "resume", "continue", "rewind", "checkpoint", "sandbox", "session", "remote", "skills", "status",
    "statusline", "stickers", "tasks", "bashes", "terminal-setup", "theme", "ultrareview", "upgrade", "usage",
    "voice", "brief", "review", "pr-comments", "security-review",  # prompt commands seen in captures
)
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029<>]")


def _nameable(name: str) -> bool:
    """current `gX`: a name it will print back (1–256 chars, no control characters, no `<`/`>`)."""
    return 0 < utf16_len(name) <= 256 and not _BAD_NAME.search(name)


def _osa_distance(a: str, b: str, limit: int) -> int:
    """current `$6`: optimal-string-alignment distance on UTF-16 units, capped at limit + 1."""
    x, y = _units(a), _units(b)
    if x == y:
        return 0
    if abs(len(x) - len(y)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(y) + 1))
    for i in range(1, len(x) + 1):
        cur = [i] + [0] * len(y)
        for j in range(1, len(y) + 1):
            cost = 0 if x[i - 1] == y[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return min(prev[len(y)], limit + 1)


def _units(s: str) -> list[int]:
    data = s.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[k:k + 2], "little") for k in range(0, len(data), 2)]


def _closest_name(name: str, names: Sequence[str], limit: int = 2) -> str | None:
    """current `Mje`: the first name with the smallest distance ≤ limit."""
    best, best_distance = None, limit + 1
    for candidate in names:
        if abs(utf16_len(candidate) - utf16_len(name)) > limit:
            continue
        distance = _osa_distance(name, candidate, limit)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


def _unknown_text(registry: Registry, name: str, profile: Profile) -> str:
    """The refusal for a name that resolves to nothing (legacy: bare; current: the hints of its
    SkillTool validateInput, in its order — scoped variants, plugin suffix match, edit distance ≤ 2)."""
    message = f"Unknown skill: {name}"
    if not profile.supports(Feature.UNKNOWN_SKILL_HINTS):
        return f"<tool_use_error>{message}</tool_use_error>"
    skills = _candidates(registry)
    variants = [s.name for s in skills if s.source is SourceKind.DYNAMIC and s.name.endswith(":" + name)
                and not s.disable_model_invocation and _nameable(s.name)]
    if variants:
        message += (f". Directory-scoped variants exist: {', '.join(variants)} — invoke the variant whose "
                    "directory contains the files you are working on.")
        return f"<tool_use_error>{message}</tool_use_error>"
    if name and ":" not in name:  # `SCl` over `Te` (rve): a listed skill whose name ends in `:name` -- a plugin
        # entry without description or when_to_use is not listed, so it is no candidate (fuzz-reg seed 1009)
        suffixed = [s for s in alias_candidates(skills, name)
                    if s.source not in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)]
        plugin = (SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND)
        if len(suffixed) == 1 and suffixed[0].source in plugin and _nameable(suffixed[0].name):
            message += f". Did you mean {suffixed[0].name}? Invoke it by that full name."
            return f"<tool_use_error>{message}</tool_use_error>"
        if len(suffixed) > 1 and all(_nameable(s.name) for s in suffixed):
            message += (". Several skills match that name: " + ", ".join(s.name for s in suffixed)
                        + " — invoke one by its full name.")
            return f"<tool_use_error>{message}</tool_use_error>"
    # `Mje` over the Skill tool's command list: one command per name (registry.model_command_list, seed 1000)
    commands = model_command_list(skills)
    names = [n for s in commands for n in (s.display_name or s.name, *s.aliases)] + list(CURRENT_BUILTIN_COMMANDS)
    suggestion = _closest_name(name, names)
    if suggestion is not None:
        message += f". Did you mean {suggestion}?"
    return f"<tool_use_error>{message}</tool_use_error>"


def _dmi_text(name: str, profile: Profile) -> str:
    text = f"Skill {name} cannot be used with Skill tool due to disable-model-invocation"
    if profile.supports(Feature.DMI_REFUSAL_EXPLAINS):
        text += (f". Ask the user to run /{name} themselves — it cannot be invoked via the Skill tool. Do not replicate "
                 "this skill's workflow by other means — it is reserved for explicit user invocation.")
    return f"<tool_use_error>{text}</tool_use_error>"


# --- the expansion ---------------------------------------------------------------------------------

def expand(registry: Registry, name: str, *, args: str | None = "", session_id: str | None = None, as_user: bool = False,
           run_shell: bool = False, shell_timeout: float = 10, profile: Profile | None = None,
           cwd: Path | str | None = None, assume_allowed: bool = False) -> ExpansionResult:
    """Model the model's Skill call (or the user's `/name` with as_user=True) against a Registry.
    `assume_allowed`: the user answered Claude Code's permission question with yes (what runs then)."""
    profile = profile or registry.profile
    requested = name
    trimmed = name.strip()
    resolved = trimmed[1:] if trimmed.startswith("/") else trimmed
    result = ExpansionResult(requested=requested, name=resolved, profile=profile.name)
    if not trimmed:
        return _refuse(result, f"<tool_use_error>Invalid skill format: {name}</tool_use_error>")
    skill = resolve_skill(registry, resolved, profile, for_model=not as_user)
    override = _override(registry, skill, profile) if skill is not None else None
    if skill is None or (as_user and override == "off"):
        return _refuse(result, _unknown_text(registry, resolved, profile))
    result.skill = skill
    if as_user:
        if not skill.user_invocable:
            return _refuse(result, USER_ONLY_INVOCABLE_BY_CLAUDE.format(name=resolved))
    else:
        if skill.disable_model_invocation:
            return _refuse(result, _dmi_text(resolved, profile))
        if override in ("user-invocable-only", "off"):
            # same text for both values, bundled skills included (overrides-*/current.json, toggle-off)
            return _refuse(result, OVERRIDE_TEXT.format(name=resolved))
        # current also checks the rules against the command it resolved (checkPermissions `sRr`/`TOe`): a deny
        # rule on the dir name blocks a call by the display name (fuzz-reg seed 1006: Skill(café) blocks `Bad Name!`)
        if _denied(registry, resolved, _own_names(skill)):
            return _refuse(result, DENY_TEXT)
        if _asks(registry, skill, resolved) and not assume_allowed:
            return _refuse(result, ask_text(resolved, skill.name, profile))
        result.launch_line = f"Launching skill: {resolved}"
        if runs_forked(skill):  # probe-fork-0/1, both versions: a sub-agent gets the block as its prompt
            result.forked = True
            result.tool_result = FORK_RESULT.format(name=resolved)
            result.launch_line = None
            result.notes.append("context: fork — the skill runs in a sub-agent: the text below is the sub-agent's "
                                "prompt, and the conversation gets only the result line with the sub-agent's answer.")
    if skill.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND):
        result.notes.append("Bundled with Claude Code: its text is Anthropic's and is not reproduced.")
        result.block = None
        return result
    result.session_id = session_id or str(uuid.uuid4())
    work_dir = Path(cwd) if cwd is not None else Path(registry.workspace.cwd)
    try:
        text = expansion_text(skill, args, profile, session_id=result.session_id, project_dir=str(work_dir),
                              notes=result.notes)
    except ArgumentsTooLong as error:
        return _refuse(result, f"<tool_use_error>{error}</tool_use_error>")
    if skill.source is SourceKind.MCP:  # never run MCP skills' inline shell (loadSkillsDir.ts, `S3i`)
        result.block = text
        return result
    result.shell_snippets = find_inline_shell(text)
    if run_shell and result.shell_snippets:
        text, failure = run_inline_shell(text, result.shell_snippets, cwd=work_dir, timeout=shell_timeout,
                                         runs=result.shell_ran)
        if failure is not None:
            result.launch_line = None
            return _refuse(result, failure)
    result.block = text
    return result


FORK_RESULT = 'Skill "{name}" completed (forked execution).\n\nResult:\n'  # + the sub-agent's final answer


def runs_forked(skill: Skill) -> bool:
    """`context: fork` in the front matter (exactly `fork`; any other value runs inline — probe-fork), or a
    bundled skill Claude Code runs forked (code-review's `getContext`)."""
    if skill.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND):
        return skill.context == "fork"
    return (skill.front_matter or {}).get("context") == "fork"


def _refuse(result: ExpansionResult, text: str) -> ExpansionResult:
    result.refusal = text
    result.is_error = True
    result.launch_line = None
    return result


def _override(registry: Registry, skill: Skill, profile: Profile) -> str | None:
    """The skill's skillOverrides value (plugin skills are never overridden: settings.override_for_skill)."""
    if not profile.supports(Feature.SKILL_OVERRIDES):
        return None
    found = registry.settings.override_for_skill(skill)
    return found[0] if found else None


def _own_names(skill: Skill) -> tuple[str, ...]:
    """The names current's permission check tries besides the requested one (`J`: name, display name)."""
    return (skill.name, *display_names(skill))


def _denied(registry: Registry, name: str, also: tuple[str, ...] = ()) -> bool:
    return registry.settings.deny_rule_for(name, also) is not None


def needs_permission(skill: Skill) -> bool:
    """SkillTool.ts skillHasOnlySafeProperties, for what a SKILL.md / command file can set: a non-empty
    `allowed-tools` (parseToolListString: "" and non-strings give none) or `hooks` makes the skill ask.
    Bundled and MCP entries are not judged (their command objects are not modelled); hooks are taken as
    valid when they are a non-empty mapping (HooksSchema is not ported)."""
    if skill.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND, SourceKind.MCP):
        return False
    fm = skill.front_matter or {}
    tools = fm.get("allowed-tools")
    items = [tools] if isinstance(tools, str) else [t for t in tools if isinstance(t, str)] if isinstance(tools, list) else []
    if any(re.search(r"[^\s,]", t) for t in items):
        return True
    hooks = fm.get("hooks")
    return isinstance(hooks, dict) and bool(hooks)


def _asks(registry: Registry, skill: Skill, name: str) -> bool:
    """checkPermissions: no deny rule, no matching `Skill` allow rule and unsafe properties → "ask", which
    -p mode returns as an is_error tool result (probe-perm, both versions)."""
    if not needs_permission(skill):
        return False
    return registry.settings.allow_rule_for(name, (skill.name,)) is None  # current `uTo`: requested or resolved name


_RULE_NAME = re.compile(r"^(?!skill:|args:)[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)*$")  # JS `\w` is ASCII


def ask_text(requested: str, name: str, profile: Profile) -> str:
    """The ask message: 2.1.88 `Execute skill: X`; 2.1.332 adds the local-settings hint when the skill's name
    fits its rule pattern (claude.exe strings; probe-perm: `café-t` gets no hint). Not modelled: current omits the
    hint when Skill ask rules exist or local settings are disabled."""
    text = f"Execute skill: {requested}"
    if profile.supports(Feature.ASK_SUGGESTS_ALLOW_RULE) and _RULE_NAME.match(name):
        text += (f". The user can add the allow rule Skill({name}) to .claude/settings.local.json to let it run "
                 "without asking.")
    return text


def argument_names(skill: Skill) -> list[str]:
    if skill.arguments:
        return parse_argument_names(list(skill.arguments))
    return parse_argument_names(skill.front_matter.get("arguments") if skill.front_matter else None)


def expansion_text(skill: Skill, args: str | None, profile: Profile, *, session_id: str,
                   project_dir: str = "", notes: list[str] | None = None) -> str:
    """The injected text before inline shell runs: header, body, substitutions (both orders per profile)."""
    args = "" if args is None else args  # an omitted `args` behaves exactly like "" (expand-args)
    # loadSkillsDir.ts createSkillCommand `baseDir ? "Base directory…"`: every skill with a skill dir, including a
    # SKILL.md under .claude/commands (loadSkillsFromCommandsDir `baseDir: skillDirectory`; fuzz-reg seeds 22, 29,
    # 33, 34, 38, both versions). Plain command .md files, plugin commands and MCP skills have none.
    base_dir = str(skill.skill_dir) if skill.skill_dir is not None else None
    text = f"Base directory for this skill: {base_dir}\n\n{skill.body}" if base_dir else skill.body
    names = argument_names(skill)
    plugin_root = (str(skill.scope_dir) if skill.source in (SourceKind.PLUGIN_SKILL, SourceKind.PLUGIN_COMMAND)
                   and skill.scope_dir is not None else None)
    if notes is not None and plugin_root and "${CLAUDE_PLUGIN_DATA}" in text:
        notes.append("${CLAUDE_PLUGIN_DATA} is left as written: the plugin data dir is not modelled.")
    if not profile.supports(Feature.EXPANSION_VARS_ESCAPED):
        text = substitute_arguments(text, args, profile, names)
        if plugin_root:  # loadPluginCommands.ts substitutePluginVariables (function replacement: literal)
            text = text.replace("${CLAUDE_PLUGIN_ROOT}", plugin_root)
        if base_dir:  # loadSkillsDir.ts: string replacements (JS `$` patterns apply to the value)
            text = js_replace_string(text, re.compile(r"\$\{CLAUDE_SKILL_DIR\}"), base_dir)
        return js_replace_string(text, re.compile(r"\$\{CLAUDE_SESSION_ID\}"), session_id)
    is_mcp = skill.source is SourceKind.MCP

    def claude_vars(value: str, wrap: Callable[[str], str]) -> str:  # current `QVt` (plugins: `NDn`, plugin root included)
        if plugin_root:
            value = value.replace("${CLAUDE_PLUGIN_ROOT}", wrap(plugin_root))
        if base_dir:
            inserted = wrap(base_dir)
            value = value.replace("${CLAUDE_SKILL_DIR}", inserted)
        if not is_mcp:
            project = wrap(project_dir)
            value = value.replace("${CLAUDE_PROJECT_DIR}", project)
            session = wrap(session_id)
            value = value.replace("${CLAUDE_SESSION_ID}", session)
        return value

    def value_transform(value: str) -> str:
        shown = escape_shell_bangs(claude_vars(value, lambda v: v))
        return shown.replace("<", "&lt;").replace(">", "&gt;") if is_mcp else shown

    if notes is not None and "${CLAUDE_EFFORT}" in text:
        notes.append("${CLAUDE_EFFORT} is left as written: its value depends on the session's effort level.")
    return substitute_arguments(text, args, profile, names, value_transform=value_transform,
                                pre_transform=claude_vars)


def run_inline_shell(text: str, snippets: Sequence[ShellSnippet], *, cwd: Path, timeout: float,
                     runs: list[ShellRun]) -> tuple[str, str | None]:
    """Run each command with bash in `cwd` (the session's cwd, as the Bash tool does), stderr merged
    into stdout; replace the first occurrence of each match with the trimmed output
    (promptShellExecution.ts). Returns (text, failure text or None)."""
    for snippet in snippets:
        try:
            done = subprocess.run(["bash", "-c", snippet.command], cwd=str(cwd), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            runs.append(ShellRun(snippet.command, snippet.matched, "", None, True))
            return text, f'Shell command interrupted for pattern "{snippet.matched}": [Command interrupted]'
        except OSError as error:
            runs.append(ShellRun(snippet.command, snippet.matched, "", None))
            return text, f"[Error]\n{error}"
        merged = js_trim(done.stdout.decode("utf-8", errors="replace"))
        if done.returncode != 0:
            runs.append(ShellRun(snippet.command, snippet.matched, merged, done.returncode))
            detail = f"[stderr]\n{merged}" if merged else ""
            return text, f'Shell command failed for pattern "{snippet.matched}": {detail}'
        output = merged or NO_OUTPUT
        runs.append(ShellRun(snippet.command, snippet.matched, output, 0))
        text = text.replace(snippet.matched, output, 1)
    return text, None
