"""The engine's vocabulary: sources, diagnostics, skills and their states.

Plain dataclasses and enums only, so that every other module (and the GUI's item models) can
share them without importing anything heavy.
"""
from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .load.skill_file import BodySource


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Diagnostic:
    """Something wrong with an input, said plainly; never an exception."""

    severity: Severity
    code: str  # stable machine id, e.g. "yaml-recovered", "binary-file"
    message: str  # one plain sentence for the UI/CLI
    path: Path | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "path": str(self.path) if self.path else None,
            "line": self.line,
        }

    @property
    def area(self) -> "DiagnosticArea":
        """What the problem is about (settings, plugins, skill files), from its code."""
        code = self.code or ""
        if code.startswith("settings"):
            return DiagnosticArea.SETTINGS
        if code.startswith("plugin") or "marketplace" in code:
            return DiagnosticArea.PLUGIN
        return DiagnosticArea.SKILL

    @property
    def message_without_location(self) -> str:
        """The message without the `path:line:` some messages start with (for a view that shows the
        location beside it), first letter capitalised."""
        message = self.message
        if self.path is not None and message.startswith(str(self.path)):
            rest = message[len(str(self.path)):]
            while rest[:1] == ":" and rest[1:2].isdigit():
                rest = rest[1:].lstrip("0123456789")
            message = rest.lstrip(":").strip() or message
        return message[:1].upper() + message[1:] if message else message


class DiagnosticArea(enum.Enum):
    SETTINGS = "settings"
    PLUGIN = "plugin"
    SKILL = "skill"


class SkillKind(enum.StrEnum):
    """A SKILL.md folder or a legacy command file (serialises as "skill" / "command")."""

    SKILL = "skill"
    COMMAND = "command"


class SourceKind(enum.Enum):
    """Where a skill came from. Values are the stable names used in JSON output."""

    MANAGED = "managed"
    USER = "user"
    PROJECT = "project"
    ADD_DIR = "add-dir"
    COMMAND = "command"  # legacy .claude/commands/**/*.md (managed, user, project, add-dir)
    PLUGIN_COMMAND = "plugin-command"
    PLUGIN_SKILL = "plugin-skill"
    BUNDLED = "bundled"
    BUILTIN_COMMAND = "builtin-command"  # current: init, security-review
    MCP = "mcp"
    DYNAMIC = "dynamic"  # nested .claude/skills discovered mid-session (simulator)

    @property
    def label(self) -> str:
        return _SOURCE_LABELS[self]

    @property
    def user_editable(self) -> bool:
        """Whether skillmanager may edit the skill's own files (front matter toggles)."""
        return self in (SourceKind.USER, SourceKind.PROJECT, SourceKind.ADD_DIR, SourceKind.COMMAND, SourceKind.DYNAMIC)


_SOURCE_LABELS = {
    SourceKind.MANAGED: "Managed policy",
    SourceKind.USER: "User",
    SourceKind.PROJECT: "Project",
    SourceKind.ADD_DIR: "Additional directory",
    SourceKind.COMMAND: "Legacy commands",
    SourceKind.PLUGIN_COMMAND: "Plugin commands",
    SourceKind.PLUGIN_SKILL: "Plugin skills",
    SourceKind.BUNDLED: "Bundled with Claude Code",
    SourceKind.BUILTIN_COMMAND: "Built-in prompt commands",
    SourceKind.MCP: "MCP servers",
    SourceKind.DYNAMIC: "Discovered in session",
}


class Listed(enum.Enum):
    """How a skill appears in the layer-1 listing at start-up (before the budget is applied)."""

    FULL = "full"
    NAME_ONLY = "name-only"
    NO = "no"


class Invoker(enum.Enum):
    MODEL = "model"
    USER = "user"
    BOTH = "both"
    NONE = "none"


class DecisionKind(enum.StrEnum):
    """What changed a skill's state (JSON `decided_by[].kind`)."""

    SKILL_OVERRIDES = "skillOverrides"
    DENY = "deny"
    DISABLE_BUNDLED_SKILLS = "disableBundledSkills"
    DISABLE_BUNDLED_SKILLS_ENV = "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"
    ENABLED_PLUGINS = "enabledPlugins"
    FRONT_MATTER = "front-matter"


@dataclass
class SettingDecision:
    """A setting that changed a skill's state, and the file it came from."""

    kind: DecisionKind
    value: str
    scope: str  # "user", "project", "local", "managed", "front-matter", "cli"
    file: Path | None = None
    rule: str | None = None  # e.g. the deny rule text "Skill(foo:*)"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, "scope": self.scope,
                "file": str(self.file) if self.file else None, "rule": self.rule}


class BundledOffCause(enum.Enum):
    """What makes Claude Code drop its bundled skills (claude.exe `f7`: the variable or the setting)."""

    ENVIRONMENT = "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS"
    SETTING = "disableBundledSkills"


@dataclass(frozen=True)
class BundledOff:
    """The registry's one decision that a bundled skill or built-in command is switched off, and by what."""

    cause: BundledOffCause
    scope: str  # "environment", or the settings scope that sets disableBundledSkills ("user", …, "managed")
    file: Path | None = None  # the settings file (None for the environment variable)

    @property
    def where(self) -> str:
        """Where the cause lives, for messages: "Claude Code's environment", "managed policy (path)", …"""
        if self.cause is BundledOffCause.ENVIRONMENT:
            return "Claude Code's environment"
        label = "managed policy" if self.scope == "managed" else f"{self.scope} settings"
        return f"{label} ({self.file})" if self.file else label

    @property
    def outside_the_app(self) -> bool:
        """Set by something skillmanager does not write (the environment, an administrator's policy)."""
        return self.cause is BundledOffCause.ENVIRONMENT or self.scope == "managed"


@dataclass
class SkillState:
    """Everything the registry decided about one skill, each decision with its reason."""

    listed: Listed = Listed.FULL
    listed_reason: str = ""
    invocable_by: Invoker = Invoker.BOTH
    invocable_reason: str = ""
    shadowed_by: "Skill | None" = None
    shadow_reason: str = ""
    duplicate_of: "Skill | None" = None  # realpath de-duplication: same file loaded earlier
    conditional: bool = False  # has effective paths: patterns
    active: bool = True  # False while a conditional skill waits for a matching file
    activated_by: tuple[str, str] | None = None  # (pattern, relative path) once activated
    decided_by: list[SettingDecision] = field(default_factory=list)
    bundled_off: BundledOff | None = None  # a bundled skill / built-in command switched off, and by what

    @property
    def is_winner(self) -> bool:
        return self.shadowed_by is None and self.duplicate_of is None

    @property
    def deny_decision(self) -> SettingDecision | None:
        """The permissions.deny rule that blocks the model's calls, if one does."""
        return next((d for d in self.decided_by if d.kind == "deny"), None)


class _SkillCaches:
    """Slots for what the loader and `Skill.key` remember beside the fields (unset until used).
    Skill objects use slots: with its ~35 fields a per-object dict costs ~1.5 KB (more entries than
    CPython shares between instances); `__dict__` stays for anything else set on a skill."""

    __slots__ = ("_key", "_path_text", "_body_text", "_body_source", "_plain_file", "_realpath",
                 "__dict__",
                 "__weakref__")

    # each unset until used (read with getattr and a default)
    _key: tuple[int, Path | None, SourceKind, str, str]  # what the cached `key` was made from, and the key
    _path_text: tuple[Path | None, str]  # (path, the text the loader read it by): `key` without str(Path)
    _body_text: str | None  # a FileBodySkill's body once read (None: dropped, read again on demand)
    _body_source: BodySource  # where a FileBodySkill's body is read from
    _plain_file: str  # the path text of a plain (not linked) file
    _realpath: "Path | str | None"  # Skill.realpath as set (a scan sets the text: a Path only when asked for)


@dataclass(slots=True)
class Skill(_SkillCaches):
    """One skill or legacy command as Claude Code loads it."""

    name: str  # the invocation name: directory name, `a:b` for nested commands, `plugin:name`
    kind: SkillKind
    source: SourceKind
    source_root: Path | None  # the skills/commands directory it was found in
    path: Path | None  # SKILL.md / command file (None for bundled)
    skill_dir: Path | None  # "Base directory for this skill" (None for commands)
    front_matter: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    description: str = ""
    description_from_body: bool = False  # the §2 fallback was used
    when_to_use: str | None = None
    display_name: str | None = None  # `name:` field when it differs from `name`
    aliases: tuple[str, ...] = ()  # other names it answers to (current's bundled code-review: `review`)
    paths: list[str] | None = None  # effective conditional patterns (None = unconditional)
    disable_model_invocation: bool = False
    user_invocable: bool = True
    arguments: list[str] = field(default_factory=list)
    plugin: str | None = None
    scope_dir: Path | None = None  # project level / add-dir / plugin root this skill belongs to
    load_index: int = 0
    size_bytes: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    state: SkillState = field(default_factory=SkillState)
    # bundled placeholders: measured entry width/length of Claude Code's own text
    bundled_width: int | None = None
    bundled_length: int | None = None
    mcp_server: str | None = None
    plugin_id: str | None = None  # marketplace id `name@marketplace` (or `name@inline` for --plugin-dir)
    group: str = ""  # registry grouping key for the GUI tree, e.g. "project:/repo/pkg"
    context: str | None = None  # Claude Code runs a bundled skill with "fork" in a sub-agent
    scoped_from: str | None = None  # the bare name a clashing --add-dir skill had before `dir:name` (current)
    duplicate_reason: str | None = None  # why state.duplicate_of was set, when not the realpath rule
    via_link: bool = False  # its directory entry is a symbolic link (realpath needs resolving)
    dir_entry: tuple[str, str, str] | None = None  # (skills dir, entry name, SKILL.md path) as scanned
    scoped_original: "Skill | None" = None  # the skill as scanned, before the `dir:name` rename (scoped_from)

    @property
    def realpath(self) -> Path | None:
        """The file with every link resolved (realpath de-duplication); None until that ran or when it could not
        be resolved."""
        value = getattr(self, "_realpath", None)
        if isinstance(value, str):
            value = self._realpath = Path(value)  # made once, when asked for (a scan sets thousands)
        return value

    @realpath.setter
    def realpath(self, value: Path | str | None) -> None:
        self._realpath = value

    @property
    def realpath_text(self) -> str | None:
        """`realpath` as text, without making a Path."""
        value = getattr(self, "_realpath", None)
        return value if value is None or isinstance(value, str) else os.fspath(value)

    @property
    def key(self) -> str:
        """Unique id inside one registry (a name can exist several times); kept until its parts change."""
        cached: tuple[int, Path | None, SourceKind, str, str] | None = getattr(self, "_key", None)
        if (cached is not None and cached[0] == self.load_index and cached[1] is self.path
                and cached[2] is self.source and (self.path or cached[3] == self.name)):
            return cached[4]
        # str(Path) re-parses the path on first use: the loader leaves the text it read the file by
        known: tuple[Path | None, str] | None = getattr(self, "_path_text", None)  # (path, its text)
        shown = (known[1] if known is not None and known[0] is self.path else self.path) if self.path else self.name
        key = f"{self.source.value}:{shown}:{self.load_index}"
        self._key = (self.load_index, self.path, self.source, self.name, key)
        return key

    def shallow_copy(self) -> "Skill":
        """A copy of the same class sharing every value (fields, caches, anything set beside them)."""
        copy = object.__new__(type(self))
        _copy_slots(self, copy)
        extra = getattr(self, "__dict__", None)
        if extra:
            copy.__dict__.update(extra)
        return copy

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def content_key(self) -> object:
        """Changes when the body changes, without reading a body that is not held in memory."""
        return hash(self.body)


def _slot_copier() -> Callable[[Skill, Skill], None]:
    """`copy_slots(source, copy)`: one straight-line statement per slot (a loop over the slots costs ~4×, and
    the scoped copies of a 5,000-skill workspace number thousands). Fields that are always set are copied by
    attribute; `body` and the cache slots through their member descriptors, which a subclass property cannot
    shadow (FileBodySkill.body would read the file) and which may be unset."""
    optional = {"body"} | {n for n in _SkillCaches.__slots__ if not n.startswith("__")}
    slots = {n: vars(Skill)[n] for n in Skill.__slots__} | {n: vars(_SkillCaches)[n] for n in optional - {"body"}}
    lines = ["def copy_slots(source, copy):"]
    for name in slots:
        if name in optional:
            lines += ["    try:", f"        {name}_slot.__set__(copy, {name}_slot.__get__(source))",
                      "    except AttributeError:", "        pass"]
        else:
            lines.append(f"    copy.{name} = source.{name}")
    namespace: dict[str, Any] = {f"{name}_slot": slots[name] for name in optional}
    exec("\n".join(lines), namespace)  # built from the class's own slot names only
    copier: Callable[[Skill, Skill], None] = namespace["copy_slots"]
    return copier


_copy_slots = _slot_copier()


class FileBodySkill(Skill):
    """A skill whose body stays on disk until something needs it (expansion, tokens, detail view).

    The body is re-read from the file; when the file still has the (device, inode, size, mtime) it had at
    the scan, the body is the text from the recorded offset on, byte for byte what the scan saw. When
    the file changed since, its new body is parsed (`load_body` in load/skill_file.py)."""

    __slots__ = ()  # `_body_source` (where the body is read from) and `_body_text` are _SkillCaches slots

    @property
    def body(self) -> str:
        text: str | None = getattr(self, "_body_text", None)
        if text is None:
            source: BodySource | None = getattr(self, "_body_source", None)
            from .load.skill_file import load_body
            text = load_body(source) if source is not None else ""
        return text

    @body.setter
    def body(self, value: str | None) -> None:
        self._body_text = value

    @property
    def content_key(self) -> object:
        text = getattr(self, "_body_text", None)
        return hash(text) if text is not None else getattr(self, "_body_source", None)
