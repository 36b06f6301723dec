"""Install, create, rename, move, remove and update skill folders: each one atomic and in History.

A folder lands by one rename: it is built in a hidden temp folder beside its destination (same filesystem)
and renamed into place, so Claude Code never sees half a skill. Every file created, replaced or removed is
a History entry line with its hash and a backup (core/edit/history.py), so `history restore ID` undoes it.
Removed folders go to `<app data dir>/trash/` as well. The per-file lock (core/edit/file_lock.py) is held on
each destination folder while it is checked and renamed.
"""
from __future__ import annotations

import datetime as _dt
import difflib
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..app_dirs import app_data_dir
from ..edit import atomic_write, history
from ..edit.file_lock import locked
from ..edit.frontmatter_edit import find_front_matter
from ..load.frontmatter import parse_document
from ..model import Skill, SourceKind, SkillKind
from . import manifest
from .names import name_problem
from .preview import InstallPreview
from .sources import TEMP_STAGE_PREFIX, copy_tree_safely, iter_files

TRASH_DIR_NAME = "trash"
MAX_DIFF_LINES = 4000
UNMANAGEABLE = {
    SourceKind.MANAGED: "it is a managed (policy) skill: the administrator's files are not changed here",
    SourceKind.PLUGIN_SKILL: "it belongs to a plugin: change the plugin (or disable it) instead",
    SourceKind.PLUGIN_COMMAND: "it belongs to a plugin: change the plugin (or disable it) instead",
    SourceKind.BUNDLED: "it is built into Claude Code: turn it off with `toggle` instead",
    SourceKind.BUILTIN_COMMAND: "it is built into Claude Code",
    SourceKind.MCP: "it comes from an MCP server",
    SourceKind.DYNAMIC: "it exists only inside a session",
}


class OperationError(RuntimeError):
    """The operation was refused or failed before changing anything; one plain paragraph."""


@dataclass
class OperationResult:
    action: str
    summary: str
    paths: list[Path]
    history_id: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "summary": self.summary, "paths": [str(p) for p in self.paths],
                "history_id": self.history_id, "notes": self.notes}


def _base(data_dir: str | os.PathLike[str] | None) -> Path:
    return Path(data_dir) if data_dir is not None else app_data_dir()


def _is_empty_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    except OSError:
        return False


def _free_or_refuse(dest: Path) -> None:
    """An empty folder (left by a History restore) counts as free; anything else refuses."""
    if _is_empty_dir(dest):
        dest.rmdir()
    elif os.path.lexists(dest):
        raise OperationError(f"{dest} already exists; nothing was changed.")


def _file_hashes(folder: Path) -> dict[str, tuple[str, bytes]]:
    out = {}
    for rel in iter_files(folder):
        data = (folder / rel).read_bytes()
        out[rel.as_posix()] = (history.sha256(data), data)
    return out


def _created(folder: Path) -> list[history.FileChange]:
    changes = []
    for rel, (digest, _data) in _file_hashes(folder).items():
        path = str(folder / rel)
        changes.append(history.FileChange(path, os.path.realpath(path), None, None, digest))
    return changes


def _removed(folder: Path, base: Path) -> list[history.FileChange]:
    """Back up every file of `folder` (before it goes): History can put each one back."""
    changes = []
    for rel, (digest, data) in _file_hashes(folder).items():
        path = str(folder / rel)
        backup = atomic_write.backup_previous(path, data, base)
        changes.append(history.FileChange(path, os.path.realpath(path), str(backup), digest, None))
    return changes


def _journal(action: str, summary: str, files: list[history.FileChange], base: Path,
             notes: list[str]) -> str | None:
    entry = history.new_entry(action, summary, files)
    try:
        history.record(entry, base)
        return entry.id
    except OSError as error:
        notes.append(f"the change was made but the History journal could not be written: {error}")
        return None


def _place(staged_dir: Path, dest: Path) -> None:
    """Copy `staged_dir` beside `dest` and rename it into place (dest must be free)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=TEMP_STAGE_PREFIX, dir=dest.parent))
    try:
        inner = temp / "skill"
        copy_tree_safely(staged_dir, inner)  # the same caps and link rules, once more on the final copy
        _free_or_refuse(dest)
        os.rename(inner, dest)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _real_dest_check(dest: Path, skills_dir: Path) -> None:
    """Never write through a link at the destination, nor into a skills dir that is not a folder."""
    if os.path.islink(dest):
        raise OperationError(f"{dest} is a link; it is not written through. Nothing was changed.")
    if os.path.lexists(skills_dir) and not os.path.isdir(skills_dir):
        raise OperationError(f"{skills_dir} is not a folder; nothing was changed.")


# --- install --------------------------------------------------------------------------------------------

def install(preview: InstallPreview, *, confirm_high: bool = False, force: bool = False,
            data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    """Put the previewed skills in place. A critical finding needs `force`, a high one `confirm_high`
    (or `force`); a refusal (name taken, bad name) cannot be overridden."""
    gate = preview.gate
    if gate == "refused":
        raise OperationError(preview.gate_reason() + " Nothing was installed.")
    if gate == "blocked" and not force:
        raise OperationError(preview.gate_reason() + " Nothing was installed.")
    if gate == "confirm" and not (confirm_high or force):
        raise OperationError(preview.gate_reason() + " Nothing was installed.")
    base = _base(data_dir)
    placed: list[Path] = []
    files: list[history.FileChange] = []
    notes: list[str] = []
    with locked([p.dest for p in preview.skills], base):
        for plan in preview.skills:
            _real_dest_check(plan.dest, preview.target.skills_dir)
            if os.path.lexists(plan.dest) and not _is_empty_dir(plan.dest):
                raise OperationError(f"{plan.dest} appeared since the preview; nothing more was installed.")
        try:
            for plan in preview.skills:
                _place(plan.staged_dir, plan.dest)
                placed.append(plan.dest)
                files += _created(plan.dest)
        except BaseException:
            for dest in placed:  # all or nothing
                shutil.rmtree(dest, ignore_errors=True)
            raise
    src = preview.source
    where = f" from {src.get('location')}" if src.get("location") else ""
    if src.get("commit"):
        where += f" (commit {str(src['commit'])[:12]})"
    override = ""
    if gate == "blocked":
        override = f" Installed despite a critical audit finding, by explicit override: {preview.gate_reason()}"
    elif gate == "confirm":
        override = " A high audit finding was confirmed."
    names = ", ".join(p.name for p in preview.skills)
    summary = f"Installed {names} into {preview.target.skills_dir}{where}.{override}"
    history_id = _journal("install", summary, files, base, notes)
    if src.get("kind") == "git" and src.get("commit"):
        for plan in preview.skills:
            manifest.record(plan.dest, str(src["location"]), plan.source_rel, str(src["commit"]), base)
    return OperationResult("install", summary, placed, history_id, notes)


# --- create ---------------------------------------------------------------------------------------------

def _yaml_scalar(text: str) -> str:
    """A double-quoted YAML scalar (always safe: colons, #, leading dashes, quotes)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("\t", " ")
    return f'"{escaped}"'


def skill_template(name: str, description: str, when_to_use: str | None = None,
                   paths: Sequence[str] | None = None) -> str:
    lines = ["---", f"name: {name}", f"description: {_yaml_scalar(description.strip())}"]
    if when_to_use and when_to_use.strip():
        lines.append(f"when_to_use: {_yaml_scalar(when_to_use.strip())}")
    if paths:
        lines.append("paths:")
        lines += [f"  - {_yaml_scalar(p.strip())}" for p in paths if p.strip()]
    lines += ["---", "", f"# {name}", "", "Instructions for Claude: what to do, step by step, when this skill is used.",
              ""]
    return "\n".join(lines)


def create(skills_dir: Path, name: str, description: str, when_to_use: str | None = None,
           paths: Sequence[str] | None = None, data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    problem = name_problem(name)
    if problem:
        raise OperationError(f"`{name}` cannot be a skill name: {problem}.")
    if not description.strip():
        raise OperationError("A description is needed: it is what the model reads to decide when to use the skill.")
    base = _base(data_dir)
    dest = Path(skills_dir) / name
    text = skill_template(name, description, when_to_use, paths)
    staging = Path(tempfile.mkdtemp(prefix="skillmanager-new-"))
    try:
        (staging / "SKILL.md").write_text(text, encoding="utf-8")
        with locked(dest, base):
            _real_dest_check(dest, Path(skills_dir))
            _free_or_refuse(dest)
            _place(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    notes: list[str] = []
    summary = f"Created the skill {name} in {skills_dir}."
    history_id = _journal("new", summary, _created(dest), base, notes)
    return OperationResult("new", summary, [dest], history_id, notes)


# --- rename / move / copy -------------------------------------------------------------------------------

def manageable_reason(skill: Skill) -> str | None:
    """Why a registry skill cannot be renamed, moved or removed here, or None."""
    reason = UNMANAGEABLE.get(skill.source)
    if reason:
        return f"`{skill.name}` cannot be changed here: {reason}."
    if skill.kind != SkillKind.SKILL or skill.skill_dir is None:
        return (f"`{skill.name}` is a legacy command file ({skill.path}), not a skill folder; edit or move the file "
                "itself.")
    return None


_NAME_LINE = re.compile(r"^(name[ \t]*:[ \t]*)(\S.*?)[ \t]*$", re.MULTILINE)


def renamed_front_matter(text: str, old: str, new: str) -> str | None:
    """SKILL.md text with `name: old` made `name: new` (one line changed), or None when there is no such
    plain `name:` line (a different display name is the author's choice and stays)."""
    span = find_front_matter(text)
    if span is None:
        return None
    start, end = span
    block = text[start:end]
    for match in _NAME_LINE.finditer(block):
        value = match.group(2)
        if value.strip("'\"") != old:
            continue
        new_block = block[:match.start(2)] + new + block[match.end(2):]
        changed = text[:start] + new_block + text[end:]
        if parse_document(changed, strip_bom=True).front_matter.get("name") != new:
            return None  # a quoting we do not rewrite: the folder is renamed, `name:` stays as written
        return changed
    return None


def _relocate(skill_dir: Path, dest: Path, *, keep_source: bool, new_name: str | None,
              data_dir: str | os.PathLike[str] | None, action: str, summary: str) -> OperationResult:
    base = _base(data_dir)
    skill_dir = Path(skill_dir)
    if os.path.islink(skill_dir) and not keep_source:
        raise OperationError(f"{skill_dir} is a link to {os.path.realpath(skill_dir)}; rename or move the link's "
                             "target instead (or remove the link). Nothing was changed.")
    if not (skill_dir / "SKILL.md").is_file():
        raise OperationError(f"{skill_dir} holds no SKILL.md; nothing was changed.")
    notes: list[str] = []
    with locked([skill_dir, dest], base):
        _real_dest_check(dest, dest.parent)
        _free_or_refuse(dest)
        files: list[history.FileChange] = [] if keep_source else _removed(skill_dir, base)
        same_fs = not keep_source and _same_filesystem(skill_dir, dest.parent)
        if same_fs:
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(skill_dir, dest)
        else:
            _place(skill_dir, dest)
            if not keep_source:
                shutil.rmtree(skill_dir)
        if new_name is not None:
            skill_md = dest / "SKILL.md"
            snap = atomic_write.read_snapshot(skill_md)
            text = snap.data.decode("utf-8", "surrogateescape")
            changed = renamed_front_matter(text, skill_dir.name, new_name)
            if changed is not None:
                atomic_write.write_atomic(skill_md, changed.encode("utf-8", "surrogateescape"), expect=snap)
                notes.append(f"`name:` in {skill_md} changed to {new_name}")
        files += _created(dest)
    if not keep_source:
        manifest.move(skill_dir, dest, data_dir=base)
    else:
        manifest.move(skill_dir, dest, keep_old=True, data_dir=base)
    history_id = _journal(action, summary, files, base, notes)
    return OperationResult(action, summary, [dest], history_id, notes)


def _same_filesystem(a: Path, b: Path) -> bool:
    probe = b
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        return os.stat(a).st_dev == os.stat(probe).st_dev
    except OSError:
        return False


def rename(skill_dir: Path, new_name: str, data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    problem = name_problem(new_name)
    if problem:
        raise OperationError(f"`{new_name}` cannot be a skill name: {problem}.")
    skill_dir = Path(skill_dir)
    dest = skill_dir.parent / new_name
    if dest == skill_dir:
        raise OperationError(f"{skill_dir} already has that name; nothing was changed.")
    return _relocate(skill_dir, dest, keep_source=False, new_name=new_name, data_dir=data_dir, action="rename",
                     summary=f"Renamed the skill {skill_dir.name} to {new_name} ({skill_dir.parent}).")


def move(skill_dir: Path, dest_skills_dir: Path, *, copy: bool = False,
         data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    skill_dir = Path(skill_dir)
    dest = Path(dest_skills_dir) / skill_dir.name
    if os.path.normpath(dest) == os.path.normpath(skill_dir):
        raise OperationError(f"{skill_dir} is already there; nothing was changed.")
    verb = "Copied" if copy else "Moved"
    return _relocate(skill_dir, dest, keep_source=copy, new_name=None, data_dir=data_dir,
                     action="copy" if copy else "move",
                     summary=f"{verb} the skill {skill_dir.name} from {skill_dir.parent} to {dest.parent}.")


# --- remove ---------------------------------------------------------------------------------------------

def remove(skill_dir: Path, data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    """Delete a skill folder: every file is backed up in History (restorable) and the folder goes to the
    app's trash. A linked folder: the link is removed, never its target."""
    base = _base(data_dir)
    skill_dir = Path(skill_dir)
    notes: list[str] = []
    if os.path.islink(skill_dir):
        target = os.readlink(skill_dir)
        with locked(skill_dir, base):
            os.unlink(skill_dir)
        summary = (f"Removed the link {skill_dir} (it pointed to {target}; the target was kept). To undo, "
                   f"recreate it: ln -s {target} {skill_dir}")
        history_id = _journal("remove", summary, [], base, notes)
        return OperationResult("remove", summary, [skill_dir], history_id, notes)
    if not skill_dir.is_dir():
        raise OperationError(f"{skill_dir} is not a skill folder; nothing was removed.")
    with locked(skill_dir, base):
        files = _removed(skill_dir, base)
        kept = _to_system_trash(skill_dir)
        where = "the system trash"
        if kept is None:
            trash = base / TRASH_DIR_NAME
            trash.mkdir(parents=True, exist_ok=True, mode=0o700)
            stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
            kept = trash / f"{stamp}-{skill_dir.name}"
            where = "the app's trash"
            try:
                shutil.move(str(skill_dir), str(kept))
            except OSError as error:
                raise OperationError(f"{skill_dir} could not be moved to the trash ({error.strerror or error}); "
                                     "nothing was removed.") from None
    notes.append(f"the folder was kept in {kept}")
    summary = f"Removed the skill {skill_dir.name} from {skill_dir.parent} (kept in {where})."
    history_id = _journal("remove", summary, files, base, notes)
    return OperationResult("remove", summary, [skill_dir], history_id, notes)


def system_trash_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path | None:
    """The freedesktop.org home trash (Linux and BSDs): $XDG_DATA_HOME/Trash, else ~/.local/share/Trash.
    None elsewhere (macOS and Windows trashes need their system APIs; the app's trash is used there)."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if not (platform.startswith("linux") or "bsd" in platform):
        return None
    xdg = env.get("XDG_DATA_HOME")
    home = env.get("HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "Trash"
    return Path(home) / ".local" / "share" / "Trash" if home else None


def _to_system_trash(skill_dir: Path) -> Path | None:
    """Move the folder into the home trash with its .trashinfo (restorable from the file manager too).
    None (nothing moved) when there is no home trash or it is on another filesystem."""
    trash = system_trash_dir()
    if trash is None:
        return None
    try:
        (trash / "files").mkdir(parents=True, exist_ok=True, mode=0o700)
        (trash / "info").mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.stat(trash / "files").st_dev != os.stat(skill_dir).st_dev:
            return None  # a cross-device move would be a copy: the app's trash is used instead
        for counter in range(1, 1000):
            name = skill_dir.name if counter == 1 else f"{skill_dir.name}.{counter}"
            try:
                fd = os.open(trash / "info" / f"{name}.trashinfo", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as info:
                when = _dt.datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
                info.write(f"[Trash Info]\nPath={urllib.parse.quote(str(skill_dir.absolute()))}\n"
                           f"DeletionDate={when}\n")
            try:
                os.rename(skill_dir, trash / "files" / name)
            except OSError:
                os.unlink(trash / "info" / f"{name}.trashinfo")
                raise
            return trash / "files" / name
    except OSError:
        return None
    return None


# --- update ---------------------------------------------------------------------------------------------

@dataclass
class FileDiff:
    path: str
    status: str  # "added" | "removed" | "changed"
    diff: str  # unified diff for text files ("" for binary)


def tree_diff(old_dir: Path, new_dir: Path) -> list[FileDiff]:
    old = _file_hashes(old_dir)
    new = _file_hashes(new_dir)
    out: list[FileDiff] = []
    lines_left = MAX_DIFF_LINES
    for rel in sorted(set(old) | set(new)):
        before, after = old.get(rel), new.get(rel)
        if before and after and before[0] == after[0]:
            continue
        status = "added" if before is None else "removed" if after is None else "changed"
        text = ""
        try:
            a = before[1].decode("utf-8").splitlines(keepends=True) if before else []
            b = after[1].decode("utf-8").splitlines(keepends=True) if after else []
            if lines_left > 0:
                lines = list(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}"))[:lines_left]
                lines_left -= len(lines)
                text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        except UnicodeDecodeError:
            text = f"binary file {rel} {status}\n"
        out.append(FileDiff(rel, status, text))
    return out


def replace_folder(preview: InstallPreview, *, confirm_high: bool = False, force: bool = False,
                   commit: str | None = None, data_dir: str | os.PathLike[str] | None = None) -> OperationResult:
    """The update step: swap each previewed skill's folder for its staged copy (one rename each), with
    the same audit gate as an install; History keeps every replaced file."""
    gate = preview.gate
    blocked = (gate == "refused" or (gate == "blocked" and not force)
               or (gate == "confirm" and not (confirm_high or force)))
    if blocked:
        raise OperationError(preview.gate_reason() + " Nothing was updated.")
    base = _base(data_dir)
    notes: list[str] = []
    files: list[history.FileChange] = []
    with locked([p.dest for p in preview.skills], base):
        for plan in preview.skills:
            dest = plan.dest
            if os.path.islink(dest):
                raise OperationError(f"{dest} is a link; it is not updated through. Nothing was updated.")
            old = _file_hashes(dest) if dest.is_dir() else {}
            new = _file_hashes(plan.staged_dir)
            for rel, (digest, data) in old.items():
                if rel in new and new[rel][0] == digest:
                    continue
                path = str(dest / rel)
                backup = atomic_write.backup_previous(path, data, base)
                after = new[rel][0] if rel in new else None
                files.append(history.FileChange(path, os.path.realpath(path), str(backup), digest, after))
            for rel, (digest, _data) in new.items():
                if rel not in old:
                    path = str(dest / rel)
                    files.append(history.FileChange(path, os.path.realpath(path), None, None, digest))
            temp = Path(tempfile.mkdtemp(prefix=TEMP_STAGE_PREFIX, dir=dest.parent))
            try:
                copy_tree_safely(plan.staged_dir, temp / "new")
                os.rename(dest, temp / "old")
                try:
                    os.rename(temp / "new", dest)
                except OSError:
                    os.rename(temp / "old", dest)
                    raise
            finally:
                shutil.rmtree(temp, ignore_errors=True)
    names = ", ".join(p.name for p in preview.skills)
    override = " Updated despite a critical audit finding, by explicit override." if gate == "blocked" else ""
    summary = f"Updated {names} from {preview.source.get('location')}"
    summary += f" to commit {commit[:12]}." if commit else "."
    summary += override
    history_id = _journal("update", summary, files, base, notes)
    if commit:
        for plan in preview.skills:
            manifest.record(plan.dest, str(preview.source.get("location")), plan.source_rel, commit, base)
    return OperationResult("update", summary, [p.dest for p in preview.skills], history_id, notes)
