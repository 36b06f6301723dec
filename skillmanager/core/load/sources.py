"""Find every skill Claude Code would load at start-up, in its load order (spec §1).

Ports: getSkillDirCommands / loadSkillsFromSkillsDir / loadSkillsFromCommandsDir / transformSkillFiles
(src/skills/loadSkillsDir.ts), getProjectDirsUpToHome / loadMarkdownFilesForSubdir
(src/utils/markdownConfigLoader.ts). Plugins live in plugins.py, MCP in mcp.py.
Nothing here raises on bad input: problems become Diagnostics on the skill or the scan.
"""
from __future__ import annotations

import errno
import os
import stat as _stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Protocol, Sequence, TypeVar, Union

from ..model import Diagnostic, Severity, Skill, SourceKind, SkillKind
from ..js.collation import ascii_compare_key, locale_compare_key
from ..versions.profiles import Profile
from .safe_read import ReadAhead, special_file_kind
from . import parse_cache
from .skill_file import load_skill_file, skill_read_ahead
from ..versions.features import Feature

if TYPE_CHECKING:
    from .workspace import Workspace

Progress = Callable[[str], None] | None


@dataclass
class ScanResult:
    """The skills and commands of the file sources, in load order, with what the scan noticed."""

    skills: list[Skill] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def scandir_sorted(path: Path | str, diagnostics: list[Diagnostic], *, sort: bool = True) -> list[os.DirEntry[str]] | None:
    """Entries in byte order of their names (or as the directory is read, `sort=False`); None when the dir is
    absent (silently, as Claude Code). `path` may be its text (a Path is made only for a diagnostic)."""
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError as error:
        diagnostics.append(Diagnostic(Severity.ERROR, "dir-unreadable",
                                      f"Cannot list this directory ({error.strerror or 'permission denied'}); "
                                      "Claude Code skips it silently.", Path(path)))
        return None
    except OSError as error:
        code = "symlink-loop" if error.errno == 40 else "dir-unreadable"
        diagnostics.append(Diagnostic(Severity.ERROR, code,
                                      f"Cannot list this directory ({error.strerror or error}); "
                                      "Claude Code skips it silently.", Path(path)))
        return None
    if not all(e.name.isascii() for e in entries):
        entries = [e for e in entries if _utf8_name(e, Path(path), diagnostics)]
    if sort:
        entries.sort(key=lambda e: e.name)
    return entries


def _utf8_name(entry: os.DirEntry[str], directory: Path, diagnostics: list[Diagnostic]) -> bool:
    """False (with a diagnostic) for a name that is not valid UTF-8. Python keeps the bytes as lone
    surrogates (surrogateescape); Node's readdir decodes them to U+FFFD, so the path Claude Code then
    opens does not exist and the entry is skipped (loadSkillsDir.ts: ENOENT → null)."""
    try:
        entry.name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        shown = os.fsencode(entry.name).decode("utf-8", "replace")
        diagnostics.append(Diagnostic(Severity.WARNING, "name-not-utf8",
                                      f"The name {shown!r} is not valid UTF-8; Claude Code reads it with U+FFFD, "
                                      "cannot open it and skips it.", directory / entry.name))
        return False


def _is_dir_or_link(entry: _Entry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False) or entry.is_symlink()
    except OSError:
        return False


class _StagedEntry:
    """A staged skill folder standing in a skills dir's listing as the entry it would become."""

    def __init__(self, name: str, staged_dir: Path) -> None:
        self.name = name
        self.staged_dir = staged_dir

    def is_dir(self, follow_symlinks: bool = True) -> bool:
        return True

    def is_symlink(self) -> bool:
        return False


_Entry = Union[os.DirEntry[str], _StagedEntry]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_E = TypeVar("_E", bound=_Named)


def _with_staged(entries: list[os.DirEntry[str]] | None, staged: Mapping[str, Path] | None) -> Sequence[_Entry] | None:
    if not staged:
        return entries
    merged: list[_Entry] = [e for e in entries or [] if e.name not in staged]
    merged += [_StagedEntry(name, Path(folder)) for name, folder in staged.items()]
    merged.sort(key=lambda e: e.name)
    return merged


def entry_order_key(name: str, profile: Profile) -> tuple[object, ...]:
    """Where an entry of a skills dir is loaded among its siblings: current sorts by `localeCompare`
    (fuzz-reg seeds 21, 23, 1011), legacy keeps the code-point order of the directory listing."""
    if profile.supports(Feature.SKILL_DIRS_CASE_INSENSITIVE_ORDER):
        return (locale_compare_key(name), name)
    return (name,)


def sorted_entries(entries: Sequence[_E], profile: Profile) -> list[_E]:
    """`entries` in entry_order_key order of their names (a cheaper key of the same order when every name
    is printable ASCII, as nearly all are)."""
    if profile.supports(Feature.SKILL_DIRS_CASE_INSENSITIVE_ORDER) and all(
            e.name.isascii() and e.name.isprintable() for e in entries):
        return sorted(entries, key=lambda e: (*ascii_compare_key(e.name), e.name))
    return sorted(entries, key=lambda e: entry_order_key(e.name, profile))


def skills_dir_entries(base: Path | str, profile: Profile, diagnostics: list[Diagnostic],
                       staged: Mapping[str, Path] | None = None) -> Sequence[_Entry] | None:
    """The entries of a skills dir (`base`, or its text) in the order loadSkillsFromSkillsDir loads them (staged
    folders of an install preview standing as the entries they would become); None or empty when there are none."""
    read_order = profile.supports(Feature.SKILL_DIRS_IN_READ_ORDER)  # os.scandir reads as Claude Code's readdir
    by_locale = profile.supports(Feature.SKILL_DIRS_CASE_INSENSITIVE_ORDER) and not read_order
    # sorted_entries gives the whole order itself: no byte-order sort before it
    entries = _with_staged(scandir_sorted(base, diagnostics, sort=not read_order and not by_locale), staged)
    if entries and by_locale:
        entries = sorted_entries(entries, profile)
    return entries


def _dir_prefix(base: Path | str) -> str:
    base_text = os.fspath(base)
    return base_text if base_text.endswith("/") else base_text + "/"  # os.path.join for names from scandir


def _read_path(prefix: str, entry: _Entry) -> str:
    """The file an entry's skill is read from (a staged entry's is in its staged folder)."""
    if isinstance(entry, _StagedEntry):
        return os.path.join(entry.staged_dir, "SKILL.md")
    return prefix + entry.name + "/SKILL.md"  # strings on the hot path: no pathlib parsing


def skills_dirs_files(dirs: Sequence[tuple[Path, Mapping[str, Path] | None]], profile: Profile, *,
                      ordered: bool = True) -> Iterator[str]:
    """The files load_skills_dir reads from each of `dirs` (base, staged), in load order (or as each dir is
    read, `ordered=False`: the same files), listed one dir at a time as they are taken (a ReadAhead across dirs)."""
    for base, staged in dirs:
        prefix = _dir_prefix(base)
        if ordered:
            entries = skills_dir_entries(base, profile, [], staged)  # its diagnostics come from the load
        else:
            entries = _with_staged(scandir_sorted(base, [], sort=False), staged)
        for entry in entries or ():
            if _is_dir_or_link(entry):
                yield _read_path(prefix, entry)


class UpcomingSkillFiles:
    """What load_skills_dir reads from the skills dir being loaded (`current`) on: a ReadAhead's
    `upcoming` across the dirs (base, staged) of a workspace."""

    def __init__(self, dirs: list[tuple[Path, Mapping[str, Path] | None]], profile: Profile) -> None:
        self.dirs = dirs
        self.profile = profile
        self.current = 0

    def __call__(self) -> Iterator[str]:
        return skills_dirs_files(self.dirs[self.current:], self.profile)


def load_skills_dir(base: Path, source: SourceKind, profile: Profile, diagnostics: list[Diagnostic], *,
                    scope_dir: Path | None = None, staged: Mapping[str, Path] | None = None,
                    ahead: ReadAhead | None = None, base_text: str | None = None) -> list[Skill]:
    """loadSkillsFromSkillsDir: `<base>/<name>/SKILL.md`; a lone .md file in base is ignored.
    `staged`: folders of an install preview, loaded as the entries they would become (see Workspace).
    `ahead`: a ReadAhead over this dir's files and the ones loaded after it (skills_dirs_files); by
    default one over this dir's. `base_text`: os.fspath(base) when the caller has it (pathlib's parsing of a
    new Path's text is most of the cost of an empty package's skills dir)."""
    if base_text is None:
        base_text = os.fspath(base)
    entries = skills_dir_entries(base_text, profile, diagnostics, staged)
    if not entries:
        return []
    out: list[Skill] = []
    group = f"{source.value}:{scope_dir if scope_dir is not None else base_text}"
    prefix = _dir_prefix(base_text)
    if ahead is None:  # with a cold page cache the next files' reads start while one is waited for
        ahead = skill_read_ahead(lambda: skills_dirs_files([(base, staged)], profile))
    for entry in entries:
        if not _is_dir_or_link(entry):
            continue
        name = entry.name
        file_text = prefix + name + "/SKILL.md"
        # a Path from one normalised string is a third of the cost of `base / name / "SKILL.md"` (same value:
        # `prefix` is str(base) + "/" and a scanned name holds no "/" and is not "." or "..")
        skill_dir = Path(prefix + name)
        read_text = file_text if type(entry) is not _StagedEntry else _read_path(prefix, entry)
        skill = load_skill_file(Path(file_text), name=name, kind=SkillKind.SKILL, source=source,
                                profile=profile, source_root=base, skill_dir=skill_dir,
                                fallback_label="Skill", scope_dir=scope_dir, path_text=read_text,
                                skipped=diagnostics, ahead=ahead)
        if skill is not None:
            skill.group = group
            skill.via_link = entry.is_symlink()
            skill.dir_entry = (base_text, name, read_text)  # for realpath_dedupe
            out.append(skill)
    return out


def _same_path(a: Path, b: Path) -> bool:
    return unicodedata.normalize("NFC", os.path.normcase(str(a))) == unicodedata.normalize("NFC", os.path.normcase(str(b)))


def find_git_root(start: str | os.PathLike[str]) -> Path | None:
    """findGitRoot (src/utils/git.ts): the nearest ancestor holding a `.git` file or directory (a work tree's
    root; also what git itself takes as the work tree for ignore rules)."""
    current = Path(os.path.abspath(start))
    while True:
        if os.path.lexists(current / ".git"):
            return current
        parent = current.parent
        if parent == current:
            return None
        current = parent


def project_levels_up_to_home(cwd: Path, home: Path) -> list[Path]:
    """The folders getProjectDirsUpToHome visits: cwd first, then parents; stop at the git root (inclusive)
    or just below home."""
    git_root = find_git_root(cwd)
    current = Path(os.path.abspath(cwd))
    home_abs = Path(unicodedata.normalize("NFC", os.path.abspath(home)))
    levels: list[Path] = []
    while True:
        if _same_path(current, home_abs):
            break
        levels.append(current)
        if git_root is not None and _same_path(current, git_root):
            break
        parent = current.parent
        if parent == current:
            break
        current = parent
    return levels


def project_dirs_up_to_home(subdir: str, cwd: Path, home: Path) -> list[Path]:
    """getProjectDirsUpToHome: the existing `.claude/<subdir>` of every level, nearest first."""
    dirs: list[Path] = []
    for level in project_levels_up_to_home(cwd, home):
        candidate = level / ".claude" / subdir
        try:
            os.stat(candidate)
            dirs.append(candidate)
        except OSError:
            pass
    return dirs


def is_skill_md(name: str) -> bool:
    return name.lower() == "skill.md"


def _note_loop(error: OSError, path: Path, diagnostics: list[Diagnostic]) -> None:
    """ELOOP while walking: a symbolic link loop, which Claude Code skips (other errors pass silently)."""
    if error.errno == errno.ELOOP:
        diagnostics.append(Diagnostic(Severity.WARNING, "symlink-loop",
                                      "A symbolic link loop; Claude Code skips it.", path))


def find_markdown_files(root: Path, diagnostics: list[Diagnostic]) -> list[Path]:
    """What `rg --files --hidden --follow --no-ignore --glob '*.md'` lists (src/utils/markdownConfigLoader.ts).

    2.1.88 returns ripgrep's order, which is not stable between runs; we use byte order of the
    relative path so results are reproducible."""
    found: list[Path] = []
    visited: set[tuple[int, int]] = set()

    # depth-first with an explicit stack of (dir, entries iterator): the order of a recursive walk,
    # without Python's recursion limit on a very deep tree (rg has none)
    stack: list[tuple[Path, Iterator[os.DirEntry[str]]]] = []

    def enter(directory: Path) -> None:
        try:
            st = os.stat(directory)
        except OSError as error:
            _note_loop(error, directory, diagnostics)
            return
        key = (st.st_dev, st.st_ino)
        if key in visited:
            diagnostics.append(Diagnostic(Severity.WARNING, "symlink-loop",
                                          "This directory is reached again through a symbolic link; "
                                          "it is read once.", directory))
            return
        visited.add(key)
        stack.append((directory, iter(scandir_sorted(directory, diagnostics) or ())))

    enter(root)
    while stack:
        directory, entries = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        full = directory / entry.name
        try:
            if entry.is_symlink():
                try:
                    target = os.stat(full)
                except OSError as error:
                    _note_loop(error, full, diagnostics)
                    continue
                if _stat.S_ISDIR(target.st_mode):
                    enter(full)
                elif _stat.S_ISREG(target.st_mode) and entry.name.endswith(".md"):
                    found.append(full)
                elif entry.name.endswith(".md"):
                    _not_regular(full, target.st_mode, diagnostics)
            elif entry.is_dir():
                enter(full)
            elif entry.is_file() and entry.name.endswith(".md"):
                found.append(full)
            elif entry.name.endswith(".md"):
                _not_regular(full, entry.stat(follow_symlinks=False).st_mode, diagnostics)
        except OSError:
            continue
    found.sort(key=lambda p: str(p.relative_to(root)).encode("utf-8", "surrogateescape"))
    return found


def _not_regular(path: Path, mode: int, diagnostics: list[Diagnostic]) -> None:
    """A FIFO / device / socket named *.md: `rg --files` lists regular files only, so it is skipped."""
    diagnostics.append(Diagnostic(Severity.WARNING, "not-regular-file",
                                  f"This is {special_file_kind(mode) or 'not a regular file'}, not a Markdown file; "
                                  "Claude Code skips it.", path))


def _namespace(target_dir: Path, base: Path) -> str:
    """buildNamespace: sub-folders become `a:b`."""
    if target_dir == base:
        return ""
    try:
        rel = target_dir.relative_to(base)
    except ValueError:
        return ""
    return ":".join(rel.parts)


def command_name(path: Path, base: Path) -> str:
    """getCommandName: SKILL.md takes its folder's name; other files their name without `.md`."""
    if is_skill_md(path.name):
        ns = _namespace(path.parent.parent, base)
        stem = path.parent.name
    else:
        ns = _namespace(path.parent, base)
        stem = path.name[:-3] if path.name.endswith(".md") else path.name
    return f"{ns}:{stem}" if ns else stem


def transform_skill_files(files: list[Path]) -> list[Path]:
    """transformSkillFiles: in a folder holding SKILL.md, only that file is loaded."""
    by_dir: dict[Path, list[Path]] = {}
    for f in files:
        by_dir.setdefault(f.parent, []).append(f)
    out: list[Path] = []
    for group in by_dir.values():
        skills = [f for f in group if is_skill_md(f.name)]
        out.extend(skills[:1] if skills else group)
    return out


def load_commands_dir(base: Path, source: SourceKind, profile: Profile, diagnostics: list[Diagnostic], *,
                      scope_dir: Path | None, origin: str) -> list[Skill]:
    """Legacy `.claude/commands/**/*.md` of one directory."""
    try:
        if not base.is_dir():
            return []
    except OSError:
        return []
    out: list[Skill] = []
    files = transform_skill_files(find_markdown_files(base, diagnostics))
    ahead = skill_read_ahead(lambda: [os.fspath(p) for p in files])
    for path in files:
        is_skill = is_skill_md(path.name)
        skill = load_skill_file(path, name=command_name(path, base), kind=SkillKind.COMMAND, source=source,
                                profile=profile, source_root=base, skill_dir=path.parent if is_skill else None,
                                fallback_label="Custom command", scope_dir=scope_dir, allow_paths=False,
                                display_names=False, skipped=diagnostics, ahead=ahead)
        if skill is not None:
            skill.group = f"command:{origin}:{base}"
            out.append(skill)
    return out


def _inode_dedupe(skills: list[Skill]) -> None:
    """loadMarkdownFilesForSubdir drops a command file whose lstat dev:ino was already loaded (hard links)."""
    seen: dict[tuple[int, int], Skill] = {}
    for skill in skills:
        if skill.path is None:
            continue
        try:
            st = os.lstat(skill.path)
        except OSError:
            continue
        if st.st_dev == 0 and st.st_ino == 0:
            continue
        first = seen.get((st.st_dev, st.st_ino))
        if first is not None:
            skill.state.duplicate_of = first
            skill.duplicate_reason = "same file (hard link) already loaded"
        else:
            seen[(st.st_dev, st.st_ino)] = skill


def collect_file_sources(workspace: Workspace, progress: Progress = None,
                         also_parse: Sequence[Callable[[], Iterable[str]]] = ()) -> ScanResult:
    """managed, user, project levels, add-dirs, legacy commands: the part getSkillDirCommands loads.
    `also_parse`: what lists files loaded after the scan (a plugin's skills): a parse-ahead child parses them
    too, first, into the active parse cache."""
    profile = workspace.profile
    result = ScanResult()
    diags = result.diagnostics
    report = progress or (lambda _msg: None)
    config_home = workspace.config_home
    skills: list[Skill] = []

    # (progress message, skills dir, source, scope) in load order
    skills_dirs: list[tuple[str, Path, SourceKind, Path]] = []
    if workspace.managed_root is not None and not env_truthy(workspace.env.get("CLAUDE_CODE_DISABLE_POLICY_SKILLS")):
        skills_dirs.append(("managed skills", workspace.managed_root / ".claude" / "skills", SourceKind.MANAGED,
                            workspace.managed_root))
    skills_dirs.append(("user skills", config_home / "skills", SourceKind.USER, config_home))
    skills_dirs += [(f"project skills: {d}", d, SourceKind.PROJECT, d.parent.parent) for d in _project_skill_dirs(workspace)]
    skills_dirs += [(f"add-dir skills: {d}", d / ".claude" / "skills", SourceKind.ADD_DIR, d) for d in workspace.add_dirs]
    # each dir's text, joined from its folder's (known): not parsed again from the new Path (200 packages)
    texts = [os.path.join(scope, ".claude", "skills") if source is SourceKind.ADD_DIR else None
             for _m, _b, source, scope in skills_dirs]
    # one ReadAhead across the dirs: with a cold page cache the reads of the next dir's files start too
    upcoming = UpcomingSkillFiles([(base, _staged_for(workspace, base)) for _m, base, _s, _d in skills_dirs], profile)
    ahead = skill_read_ahead(upcoming)
    helper = None  # a child parsing the last dirs (parse_ahead): a first run with many files, on two cores
    may_fork = _may_parse_ahead()
    if may_fork:
        from . import parse_ahead
    # each dir's skills and diagnostics in its place: with a parse-ahead child, dirs are loaded out of order
    loaded: list[list[Skill] | None] = [None] * len(skills_dirs)
    dir_diags: list[list[Diagnostic]] = [[] for _ in skills_dirs]
    loaded_files = 0  # by this process, before a child starts

    def load(at: int) -> None:
        # (a dir both claimed in a race: this process's own load stands; past the skills dirs: parses only)
        if at < len(loaded) and loaded[at] is None:
            message, base, source, scope = skills_dirs[at]
            report(message)
            loaded[at] = load_skills_dir(base, source, profile, dir_diags[at], scope_dir=scope,
                                         staged=upcoming.dirs[at][1], ahead=ahead, base_text=texts[at])

    try:
        for at in range(len(skills_dirs)):
            if helper is not None:
                for sent in helper.arrived():  # the child's dirs so far: built while it parses on
                    load(sent)
                if helper.taken(at):
                    for sent in helper.rest():
                        load(sent)
                    break
            elif may_fork and parse_ahead.worth_it(at, len(skills_dirs), loaded_files):
                def files_of(j: int) -> Iterable[str]:  # the skills dirs, then what loads after the scan
                    if j < len(skills_dirs):
                        return skills_dirs_files([upcoming.dirs[j]], profile, ordered=False)
                    return also_parse[j - len(skills_dirs)]()
                helper = parse_ahead.ParseAhead.start(  # (the child parses; the order of its reads is its own)
                    len(skills_dirs) + len(also_parse), at, files_of, profile)
            upcoming.current = at
            load(at)
            loaded_files += len(loaded[at] or ())
    finally:
        if helper is not None:
            helper.finish()
    for at in range(len(skills_dirs)):
        load(at)  # the dirs a child claimed and never sent (it died or hung)
        skills += loaded[at] or ()
        diags += dir_diags[at]

    report("legacy commands")
    commands: list[Skill] = []
    if workspace.managed_root is not None:
        commands += load_commands_dir(workspace.managed_root / ".claude" / "commands", SourceKind.COMMAND, profile,
                                      diags, scope_dir=workspace.managed_root, origin="managed")
    commands += load_commands_dir(config_home / "commands", SourceKind.COMMAND, profile, diags,
                                  scope_dir=config_home, origin="user")
    for commands_dir in project_dirs_up_to_home("commands", workspace.cwd, workspace.home):
        commands += load_commands_dir(commands_dir, SourceKind.COMMAND, profile, diags,
                                      scope_dir=commands_dir.parent.parent, origin="project")
    if profile.supports(Feature.ADD_DIR_COMMANDS):  # current lists an add-dir's .claude/commands [obs]
        for add_dir in workspace.add_dirs:
            if not os.path.isdir(os.path.join(add_dir, ".claude", "commands")):  # most packages: no Path made
                continue
            commands += load_commands_dir(add_dir / ".claude" / "commands", SourceKind.COMMAND, profile, diags,
                                          scope_dir=add_dir, origin="add-dir")
    _inode_dedupe(commands)
    if profile.supports(Feature.COMMANDS_SORTED_BY_NAME):
        commands.sort(key=lambda s: locale_compare_key(s.name))  # stable: same names keep their source order
    skills += commands
    realpath_dedupe(skills)
    result.skills = skills
    return result


def _may_parse_ahead() -> bool:
    """A first scan (the parse cache serves nothing) in a process that may fork a parse-ahead child."""
    cache = parse_cache.active()
    if cache is None or cache.can_serve():
        return False
    from .. import forking
    return forking.allowed()


def _project_skill_dirs(workspace: Workspace) -> list[Path]:
    """The existing project skills dirs, plus a missing one an install preview stages skills into."""
    if not workspace.staged_skills:
        return project_dirs_up_to_home("skills", workspace.cwd, workspace.home)
    return [level / ".claude" / "skills" for level in project_levels_up_to_home(workspace.cwd, workspace.home)
            if os.path.isdir(level / ".claude" / "skills") or _staged_for(workspace, level / ".claude" / "skills")]


def _staged_for(workspace: Workspace, skills_dir: Path) -> Mapping[str, Path] | None:
    staged = workspace.staged_skills
    if not staged:
        return None
    return staged.get(os.path.normpath(os.fspath(skills_dir)))


def env_truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "true", "yes", "on")


_REAL_DIR_CACHE: dict[str, str] = {}


def _fast_realpath(skill: Skill) -> str | None:
    """realpath(SKILL.md) with one lstat in the common case: the skills dir is resolved once and the
    per-skill realpath is only computed when the entry (known from scandir) or the file is a symbolic
    link. realpath(base/name/SKILL.md) == realpath(base)/name/SKILL.md when neither is a link."""
    path = skill.path
    if path is None:
        return None
    entry = skill.dir_entry
    try:
        if entry is None:
            if skill.via_link or os.path.islink(path):
                return os.path.realpath(path, strict=True)
            base, name = str(path.parent.parent), path.parent.name
        else:
            base, name, file_text = entry
            # the read opened file_text without following a link (or lstat-ed it): no lstat again
            if skill.via_link or (getattr(skill, "_plain_file", None) != file_text
                                  and _stat.S_ISLNK(os.lstat(file_text).st_mode)):
                return os.path.realpath(file_text, strict=True)
        prefix = _REAL_DIR_CACHE.get(base)
        if prefix is None:  # the resolved skills dir with its separator: os.path.join's result by concatenation
            real_base = _real_dir(base)
            prefix = _REAL_DIR_CACHE[base] = real_base if real_base.endswith(os.sep) else real_base + os.sep
        return prefix + name + os.sep + ("SKILL.md" if entry is not None else path.name)
    except OSError:
        return None


_REAL_DIRS: dict[str, str] = {}  # folder -> os.path.realpath of it, for one realpath_dedupe pass


def _real_dir(folder: str) -> str:
    """os.path.realpath(folder) through its resolved parent when the folder itself is no link: the skills dirs of
    200 packages share most of their parents, resolved once (POSIX; one lstat per new folder instead of one per
    part of every path)."""
    known = _REAL_DIRS.get(folder)
    if known is not None:
        return known
    if os.sep == "/" and folder.startswith("/") and folder == os.path.normpath(folder):
        return _real_normal_dir(folder)  # its parents are normal too: checked once
    real = _REAL_DIRS[folder] = os.path.realpath(folder)
    return real


def _real_normal_dir(folder: str) -> str:
    """_real_dir of a normalised absolute POSIX path, by string slicing (os.path's split and join cost more
    than the lstat)."""
    known = _REAL_DIRS.get(folder)
    if known is not None:
        return known
    cut = folder.rfind("/")
    real = None
    if cut >= 0 and folder != "/":
        try:
            if not _stat.S_ISLNK(os.lstat(folder).st_mode):
                parent = _real_normal_dir(folder[:cut] or "/")
                real = (parent if parent.endswith("/") else parent + "/") + folder[cut + 1:]
        except OSError:
            pass
    if real is None:
        real = os.path.realpath(folder)
    _REAL_DIRS[folder] = real
    return real


def realpath_dedupe(skills: list[Skill]) -> None:
    """getSkillDirCommands: the first copy of a real file wins; later ones are duplicates (kept, marked)."""
    _REAL_DIR_CACHE.clear()
    _REAL_DIRS.clear()
    seen: dict[str, Skill] = {}
    for skill in skills:
        if skill.state.duplicate_of is not None:
            continue
        real = _fast_realpath(skill) if skill.kind == "skill" else _command_realpath(skill)
        if real is None:
            continue
        skill.realpath = real  # text: a Path is made only when asked for
        first = seen.get(real)
        if first is not None:
            skill.state.duplicate_of = first
        else:
            seen[real] = skill


def _command_realpath(skill: Skill) -> str | None:
    try:
        return os.path.realpath(skill.path, strict=True) if skill.path else None
    except OSError:
        return None
