"""Fetch what a user wants to install into a private staging dir, refusing anything unsafe.

Sources: a folder, a `.zip` / `.skill` (a zip) / `.tar.gz` / `.tgz` / `.tar` archive, or a git repository
(https, ssh, `git@host:path` or a local path). Nothing is extracted into a skills dir here: everything lands
in a temp dir first, is checked, and only `operations.install` moves it into place.

Archive rules: every member is checked before one byte is extracted; one bad member (a `..` part, an
absolute or drive path, a link, a device or FIFO, a size or count past the caps) refuses the whole archive.
Folder rules: links are never followed out of the source; a link whose target stays inside the source is
copied as the file it names, one leading outside refuses the source; FIFOs and devices refuse it too.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Generic, Iterator, Sequence, TypeVar

MAX_FILES = 2000  # files in one source
MAX_FILE_BYTES = 20 * 1024 * 1024  # one file
MAX_TOTAL_BYTES = 100 * 1024 * 1024  # everything staged from one source
MAX_DEPTH = 12  # folder levels searched for SKILL.md
GIT_TIMEOUT = 120.0  # seconds for a clone
TEMP_STAGE_PREFIX = ".skillmanager-stage-"  # hidden folders beside a destination, renamed into place
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv"}
ARCHIVE_SUFFIXES = (".zip", ".skill", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
GIT_ENV = {"GIT_ALLOW_PROTOCOL": "file:https:ssh", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "",
           "SSH_ASKPASS": "", "GIT_CONFIG_NOSYSTEM": "1", "GIT_SSH_COMMAND": "ssh -o BatchMode=yes"}
GIT_SAFE_CONFIG = ("-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "protocol.file.allow=always",
                   "-c", "submodule.recurse=false")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!//)")
_DRIVE = re.compile(r"^[A-Za-z]:")


class SourceError(RuntimeError):
    """The source was refused or could not be fetched; nothing was written. One plain paragraph."""


@dataclass
class Candidate:
    """One skill found in a staged source."""
    name: str  # the folder name it installs under
    staged_dir: Path
    rel: str  # its folder relative to the source root ("." for the root itself)


@dataclass
class StagedSource:
    kind: str  # "folder" | "archive" | "git"
    location: str  # as given by the user (a path is made absolute)
    root: Path  # the staged copy of the whole source
    candidates: list[Candidate]
    commit: str | None = None  # git: the commit checked out
    temp_dir: Path | None = None
    notes: list[str] = field(default_factory=list)

    def cleanup(self) -> None:
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    def pick(self, names: list[str] | None) -> list[Candidate]:
        """The candidates named (all when there is exactly one and none is named)."""
        if not names:
            if len(self.candidates) == 1:
                return list(self.candidates)
            raise SourceError(f"This source holds {len(self.candidates)} skills ("
                              f"{', '.join(c.name for c in self.candidates)}); pick the ones to install.")
        by_name = {c.name: c for c in self.candidates}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise SourceError(f"Not in this source: {', '.join(missing)}. It holds: "
                              f"{', '.join(by_name) or 'no skill'}.")
        return [by_name[n] for n in dict.fromkeys(names)]


def is_git_url(text: str) -> bool:
    lowered = text.lower()
    return (lowered.startswith(("https://", "http://", "ssh://", "git://", "file://"))
            or bool(_SCP_LIKE.match(text)))


def classify(source: str, *, git: bool = False) -> str:
    """'git', 'archive' or 'folder'; SourceError for anything else."""
    if git or is_git_url(source) or source.endswith(".git"):
        return "git"
    path = Path(source).expanduser()
    try:
        st = os.stat(path)
    except OSError as error:
        raise SourceError(f"{source}: {error.strerror or error}.") from None
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if stat.S_ISREG(st.st_mode) and source.lower().endswith(ARCHIVE_SUFFIXES):
        return "archive"
    if stat.S_ISREG(st.st_mode) and path.name == "SKILL.md":
        return "folder"  # its folder
    raise SourceError(f"{source}: not a folder, a .zip/.skill/.tar.gz archive or a git repository.")


def stage(source: str, *, git: bool = False, timeout: float = GIT_TIMEOUT) -> StagedSource:
    """Copy, extract or clone `source` into a new temp dir and find the skills in it."""
    kind = classify(source, git=git)
    temp = Path(tempfile.mkdtemp(prefix="skillmanager-stage-"))
    try:
        commit = None
        location = source
        if kind == "folder":
            src = Path(source).expanduser().absolute()
            if src.is_file():
                src = src.parent
            location = str(src)
            root = _root(temp, location)  # named like the source: a skill at its root keeps its folder name
            copy_tree_safely(src, root)
        elif kind == "archive":
            location = str(Path(source).expanduser().absolute())
            root = _root(temp, location)
            extract_archive(Path(location), root)
        else:
            location = check_git_location(source)
            root = _root(temp, location)
            location, commit = _clone(source, temp, root, timeout)
        candidates = find_candidates(root, fallback_name=root.name)
        if not candidates:
            raise SourceError(f"{source}: no skill found (no SKILL.md in it).")
        return StagedSource(kind, location, root, candidates, commit, temp)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _root(temp: Path, location: str) -> Path:
    (temp / "staged").mkdir()
    return temp / "staged" / _fallback_name(location)


def _fallback_name(location: str) -> str:
    name = re.split(r"[/\\:]", location.rstrip("/\\"))[-1]
    for suffix in ARCHIVE_SUFFIXES + (".git",):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    name = name if name not in ("", ".", "..") else "skill"
    return name


# --- finding skills ------------------------------------------------------------------------------------

def find_candidates(root: Path, *, fallback_name: str) -> list[Candidate]:
    """A SKILL.md at the root makes the source one skill; otherwise every folder holding a SKILL.md
    (the `skills/<name>/` layout included), not descending into a skill or into .git/node_modules."""
    if (root / "SKILL.md").is_file():
        return [Candidate(fallback_name, root, ".")]
    found: list[Candidate] = []

    def walk(directory: Path, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name in SKIP_DIRS or not entry.is_dir(follow_symlinks=False):
                continue
            sub = Path(entry.path)
            if (sub / "SKILL.md").is_file():
                found.append(Candidate(entry.name, sub, sub.relative_to(root).as_posix()))
            else:
                walk(sub, depth + 1)

    walk(root, 0)
    names: dict[str, int] = {}
    for candidate in found:
        names[candidate.name] = names.get(candidate.name, 0) + 1
    clashing = sorted(n for n, count in names.items() if count > 1)
    if clashing:
        raise SourceError(f"This source holds several skills named {', '.join(clashing)} (in different folders); "
                          "install them one folder at a time.")
    return found


# --- folders --------------------------------------------------------------------------------------------

class _Budget:
    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0

    def add(self, size: int, what: str) -> None:
        self.files += 1
        self.bytes += size
        if size > MAX_FILE_BYTES:
            raise SourceError(f"{what} is {size:,} bytes, more than the {MAX_FILE_BYTES:,} a skill file may have; "
                              "nothing was installed.")
        if self.files > MAX_FILES:
            raise SourceError(f"The source holds more than {MAX_FILES:,} files; nothing was installed.")
        if self.bytes > MAX_TOTAL_BYTES:
            raise SourceError(f"The source holds more than {MAX_TOTAL_BYTES:,} bytes; nothing was installed.")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def copy_tree_safely(src: Path, dest: Path, *, skip_dirs: set[str] = SKIP_DIRS) -> None:
    """Copy the folder `src` to `dest` (created), regular files and folders only, within the caps."""
    real_root = os.path.realpath(src)
    budget = _Budget()
    dest.mkdir(parents=True)

    def copy_dir(directory: Path, target: Path, depth: int) -> None:
        if depth > MAX_DEPTH * 2:
            raise SourceError(f"{directory}: folders nested too deeply; nothing was installed.")
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            raise SourceError(f"{directory}: cannot be read ({error.strerror or error}); nothing was installed.") \
                from None
        for entry in entries:
            if entry.name in skip_dirs and entry.is_dir(follow_symlinks=False):
                continue
            path = Path(entry.path)
            st = os.lstat(path)
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                real = os.path.realpath(path)
                if not _inside(real, real_root):
                    raise SourceError(f"{path} is a link to {real}, outside the source; links are never followed "
                                      "out of what is installed. Nothing was installed.")
                try:
                    st = os.stat(path)
                except OSError:
                    raise SourceError(f"{path} is a broken link; nothing was installed.") from None
                mode = st.st_mode
                if stat.S_ISDIR(mode):
                    raise SourceError(f"{path} is a link to a folder; copy the folder itself. Nothing was installed.")
            if stat.S_ISDIR(mode):
                (target / entry.name).mkdir()
                copy_dir(path, target / entry.name, depth + 1)
            elif stat.S_ISREG(mode):
                budget.add(st.st_size, str(path))
                _copy_file(path, target / entry.name, st.st_mode)
            else:
                raise SourceError(f"{path} is not a regular file or folder (a device, FIFO or socket); "
                                  "nothing was installed.")

    copy_dir(src, dest, 0)


def _copy_file(src: Path, dest: Path, mode: int) -> None:
    with open(src, "rb") as reader, open(dest, "xb") as writer:
        remaining = MAX_FILE_BYTES + 1
        while remaining > 0:
            chunk = reader.read(min(1 << 20, remaining))
            if not chunk:
                break
            writer.write(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            raise SourceError(f"{src} grew past {MAX_FILE_BYTES:,} bytes while it was copied; nothing was installed.")
    os.chmod(dest, 0o755 if mode & 0o111 else 0o644)


# --- archives -------------------------------------------------------------------------------------------

def member_problem(name: str) -> str | None:
    """Why an archive member name is unsafe, or None."""
    if not name or "\x00" in name:
        return "an empty or NUL name"
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        return "an absolute path"
    parts = re.split(r"[/\\]", name)
    if ".." in parts:
        return "a `..` part that climbs out of the archive"
    return None


_Ref = TypeVar("_Ref", zipfile.ZipInfo, tarfile.TarInfo)


@dataclass
class _Member(Generic[_Ref]):
    name: str
    is_dir: bool
    size: int
    executable: bool
    ref: _Ref  # the archive's own record of the member


def _zip_members(archive: zipfile.ZipFile) -> list[_Member[zipfile.ZipInfo]]:
    members = []
    for info in archive.infolist():
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode) if mode else 0
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            what = "a link" if kind == stat.S_IFLNK else "a device, FIFO or socket"
            raise SourceError(f"The archive member {info.filename!r} is {what}; archives with links or special "
                              "files are refused whole. Nothing was installed.")
        members.append(_Member(info.filename, info.is_dir(), info.file_size, bool(mode & 0o111), info))
    return members


def _tar_members(archive: tarfile.TarFile) -> list[_Member[tarfile.TarInfo]]:
    members = []
    for info in archive.getmembers():
        if info.issym() or info.islnk():
            raise SourceError(f"The archive member {info.name!r} is a link (to {info.linkname!r}); archives with "
                              "links are refused whole. Nothing was installed.")
        if not (info.isreg() or info.isdir()):
            raise SourceError(f"The archive member {info.name!r} is a device, FIFO or other special file; the "
                              "archive is refused whole. Nothing was installed.")
        if getattr(info, "sparse", None):
            raise SourceError(f"The archive member {info.name!r} is a sparse file; refused. Nothing was installed.")
        members.append(_Member(info.name, info.isdir(), info.size, bool(info.mode & 0o111), info))
    return members


def check_members(members: Sequence[_Member[zipfile.ZipInfo]] | Sequence[_Member[tarfile.TarInfo]]) -> None:
    """Refuse the whole archive for one bad member: names, sizes, count."""
    budget = _Budget()
    for member in members:
        problem = member_problem(member.name)
        if problem:
            raise SourceError(f"The archive member {member.name!r} has {problem}; the archive is refused whole. "
                              "Nothing was installed.")
        if not member.is_dir:
            budget.add(member.size, f"The archive member {member.name!r}")


def extract_archive(path: Path, dest: Path) -> None:
    """Check every member, then extract regular files and folders into `dest` (created), bounded."""
    lowered = path.name.lower()
    try:
        if lowered.endswith((".zip", ".skill")):
            with zipfile.ZipFile(path) as archive:
                zip_members = _zip_members(archive)
                check_members(zip_members)
                _extract(zip_members, dest, lambda m: archive.open(m.ref))
        else:
            with tarfile.open(path, "r:*") as archive:
                tar_members = _tar_members(archive)
                check_members(tar_members)
                _extract(tar_members, dest, lambda m: archive.extractfile(m.ref))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as error:
        if isinstance(error, SourceError):
            raise
        raise SourceError(f"{path}: not a readable archive ({error}); nothing was installed.") from None
    _strip_single_top_folder(dest)


def _extract(members: list[_Member[_Ref]], dest: Path, opener: Callable[[_Member[_Ref]], IO[bytes] | None]) -> None:
    dest.mkdir(parents=True)
    real_dest = os.path.realpath(dest)
    for member in members:
        rel = PurePosixPath(member.name.replace("\\", "/"))
        parts = [p for p in rel.parts if p not in ("", ".")]
        if not parts:
            continue
        target = dest.joinpath(*parts)
        if not _inside(os.path.realpath(target.parent if not member.is_dir else target), real_dest):
            raise SourceError(f"The archive member {member.name!r} would land outside the staging folder; refused.")
        if member.is_dir:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        handle = opener(member)
        if handle is None:
            continue
        written = 0
        with handle, open(target, "xb") as writer:
            while True:
                chunk = handle.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                if written > member.size or written > MAX_FILE_BYTES:  # a header that lies about the size
                    raise SourceError(f"The archive member {member.name!r} holds more than it declares; refused.")
                writer.write(chunk)
        os.chmod(target, 0o755 if member.executable else 0o644)


def _strip_single_top_folder(dest: Path) -> None:
    """`name.zip` holding only `name/…`: the folder is the source (unless it holds the SKILL.md itself,
    which find_candidates handles either way)."""
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not (dest / "SKILL.md").exists():
        inner = entries[0]
        if (inner / "SKILL.md").is_file():
            return  # keep the folder: its name is the skill's name
        tmp = dest.with_name(dest.name + ".inner")
        inner.rename(tmp)
        dest.rmdir()
        tmp.rename(dest)


# --- git ------------------------------------------------------------------------------------------------

def git_executable() -> str:
    exe = shutil.which("git")
    if not exe:
        raise SourceError("Installing from a git repository needs the `git` program, which was not found on PATH. "
                          "Install git, or download the repository as a .zip and install that.")
    return exe


def check_git_location(source: str) -> str:
    """https, ssh, `git@host:path` or a local path (made absolute); anything else is refused."""
    lowered = source.lower()
    if lowered.startswith(("http://", "git://")):
        raise SourceError(f"{source}: unencrypted transports are not used; only https, ssh, git@host:path and "
                          "local repositories can be installed from.")
    if lowered.startswith(("https://", "ssh://")) or _SCP_LIKE.match(source):
        if source.startswith("-") or "\n" in source:
            raise SourceError(f"{source!r} is not a repository address.")
        return source
    if lowered.startswith("file://"):
        return source
    if "://" in source or "::" in source:
        raise SourceError(f"{source}: only https, ssh, git@host:path and local repositories can be installed from.")
    path = Path(source).expanduser().absolute()
    if not path.exists():
        raise SourceError(f"{source}: no such repository.")
    return str(path)


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    return env


def run_git(args: list[str], *, cwd: Path | None = None, timeout: float = GIT_TIMEOUT) -> str:
    exe = git_executable()
    try:
        done = subprocess.run([exe, *GIT_SAFE_CONFIG, *args], cwd=cwd, env=git_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SourceError(f"git {args[0]} took more than {timeout:g} s and was stopped; nothing was installed.") \
            from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]} failed: {' '.join(message[-3:]) or 'exit ' + str(done.returncode)}. "
                          "Nothing was installed.")
    return done.stdout.decode("utf-8", "replace")


def clone_repository(source: str, dest: Path, timeout: float = GIT_TIMEOUT) -> tuple[str, str]:
    """Clone `source` into `dest` (shallow, no submodules, no hooks); (location, commit)."""
    location = check_git_location(source)
    url = location
    if os.path.isabs(location) and not location.lower().startswith("file://"):
        url = Path(location).as_uri()  # file:// so that --depth applies and no hard links are made
    run_git(["clone", "--quiet", "--depth", "1", "--no-recurse-submodules", "--no-tags", "--", url, str(dest)],
            timeout=timeout)
    commit = run_git(["rev-parse", "HEAD"], cwd=dest, timeout=30).strip()
    return location, commit


def _clone(source: str, temp: Path, root: Path, timeout: float) -> tuple[str, str]:
    checkout = temp / "clone"
    location, commit = clone_repository(source, checkout, timeout)
    copy_tree_safely(checkout, root)  # the same link and size rules as a folder; .git is left behind
    shutil.rmtree(checkout, ignore_errors=True)
    return location, commit


def iter_files(root: Path) -> Iterator[Path]:
    """Regular files under `root`, sorted, relative paths (no links followed)."""
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            yield Path(directory, name).relative_to(root)
