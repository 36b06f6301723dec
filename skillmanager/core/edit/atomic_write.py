"""Crash-safe replacement of a user's file, change detection and backups.

The write goes to a temp file in the target's own directory (same filesystem, so the
final os.replace is atomic), is fsynced, gets the original's permission bits and owner,
and only then replaces the original. A symlink is written through to its final target,
so the link itself stays a link (Claude Code's own settings writer does the same).
"""

from __future__ import annotations

import datetime as _dt
import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..load.safe_read import NotRegularFileError, check_regular, special_file_kind

__all__ = [
    "TEMP_PREFIX",
    "ExternalChangeError",
    "Snapshot",
    "write_atomic",
    "read_snapshot",
    "ensure_unchanged",
    "backup_previous",
    "resolve_target",
]

TEMP_PREFIX = ".skillmanager-"
BACKUP_DIR_NAME = "backups"
BACKUP_INDEX_NAME = "index.jsonl"


class ReadOnlyFileError(PermissionError):
    """The file was made read-only (no write bit for its owner): replacing it would undo that choice."""


def read_only_reason(path: str | os.PathLike[str]) -> str | None:
    """Why `path` (followed through symlinks) must not be replaced, or None. A rename would replace
    even a 0444 file (the directory is writable), and as root even permission checks pass."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) and not st.st_mode & stat.S_IWUSR:
        return (f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); skillmanager does not replace a file "
                "that was made read-only. Make it writable (chmod u+w) if the change is wanted.")
    return None


class ExternalChangeError(RuntimeError):
    """The file changed on disk after skillmanager loaded it; writing would lose that change."""

    def __init__(self, path: str | os.PathLike[str], detail: str):
        self.path = Path(path)
        super().__init__(
            f"{self.path} was changed by another program since skillmanager loaded it "
            f"({detail}); nothing was written. Reload the file and try again."
        )


@dataclass(frozen=True)
class Snapshot:
    """What a file looked like when it was loaded."""

    path: Path  # the path as given (may be a symlink)
    data: bytes
    mtime_ns: int | None  # None when the file did not exist
    size: int | None
    sha256: str

    @property
    def exists(self) -> bool:
        return self.mtime_ns is not None


def _before_replace(temp_path: Path, target: Path) -> None:
    """Called after the temp file is complete and before it replaces the target.

    Does nothing. Tests monkeypatch it to simulate a crash at the riskiest moment.
    """


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to `path` really changes: symlinks (also dangling ones) followed."""
    return Path(os.path.realpath(os.fspath(path)))


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable. Not possible on every platform (Windows).
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _default_new_file_mode() -> int:
    # What open(..., "w") would give: 0o666 minus the umask (read without changing it
    # for long: os.umask is the only portable way to query it).
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    create: bool = False,
    expect: Snapshot | None = None,
) -> Path:
    """Replace the content of `path` with `data` atomically; return the file really written.

    create: allow creating the file and its missing parent directories.
    expect: if given, refuse (ExternalChangeError) when the file no longer matches that
            snapshot, checked as late as possible (just before the rename).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be bytes")
    target = resolve_target(path)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is None and not create:
        raise FileNotFoundError(errno.ENOENT, "file does not exist (pass create=True to create it)", str(path))
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(target))
    if st is not None and not stat.S_ISREG(st.st_mode):  # a FIFO or device is never replaced
        raise NotRegularFileError(errno.EINVAL, f"{special_file_kind(st.st_mode)}, not a regular file; "
                                                "it was not replaced", str(target))
    if st is not None and not st.st_mode & stat.S_IWUSR:
        raise ReadOnlyFileError(errno.EACCES, "the file is read-only; it was not replaced", str(target))
    directory = target.parent
    if st is None:
        directory.mkdir(parents=True, exist_ok=True)

    fd, temp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=directory)
    temp_path = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        mode = stat.S_IMODE(st.st_mode) if st is not None else _default_new_file_mode()
        os.chmod(temp_path, mode)
        if st is not None and hasattr(os, "chown"):
            try:
                os.chown(temp_path, st.st_uid, st.st_gid)
            except OSError:
                pass  # Not permitted for other users' files unless root: keep ours.
        if expect is not None:
            ensure_unchanged(expect)
        _before_replace(temp_path, target)
        os.replace(temp_path, target)
    except BaseException:
        try:
            temp_path.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(directory)
    return target


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_snapshot(path: str | os.PathLike[str], *, missing_ok: bool = False) -> Snapshot:
    """Read the file and remember its size, mtime and hash.

    missing_ok: a missing file gives an empty snapshot with exists == False, so that a
    file created by someone else in the meantime is detected too.
    """
    given = Path(path)
    for _attempt in range(5):
        try:
            check_regular(given)  # a FIFO or device raises here instead of blocking / never ending
            with open(given, "rb") as handle:
                before = os.fstat(handle.fileno())
                data = handle.read()
                after = os.fstat(handle.fileno())
        except FileNotFoundError:
            if missing_ok:
                return Snapshot(given, b"", None, None, _hash(b""))
            raise
        # A writer that is busy while we read could give a torn read: try again.
        if before.st_mtime_ns == after.st_mtime_ns and before.st_size == after.st_size == len(data):
            return Snapshot(given, data, after.st_mtime_ns, after.st_size, _hash(data))
    return Snapshot(given, data, after.st_mtime_ns, after.st_size, _hash(data))


def ensure_unchanged(snapshot: Snapshot) -> None:
    """Raise ExternalChangeError if the file is not what `snapshot` recorded.

    Compares content (hash), not only mtime: mtime granularity can hide a quick edit of
    the same size, and a mere `touch` is not a change worth refusing for.
    """
    try:
        current = read_snapshot(snapshot.path, missing_ok=True)
    except OSError as exc:
        raise ExternalChangeError(snapshot.path, f"it can no longer be read: {exc}") from exc
    if snapshot.exists and not current.exists:
        raise ExternalChangeError(snapshot.path, "it was deleted")
    if not snapshot.exists and current.exists:
        raise ExternalChangeError(snapshot.path, "it was created")
    if current.sha256 != snapshot.sha256:
        raise ExternalChangeError(
            snapshot.path, f"content differs; size was {snapshot.size} bytes, now {current.size} bytes"
        )


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80] or "file"


def backup_previous(
    path: str | os.PathLike[str],
    content: bytes,
    app_data_dir: str | os.PathLike[str],
) -> Path:
    """Keep `content` (the previous version of `path`) in the app's data dir.

    Backups live in `<app_data_dir>/backups/`, never beside the user's file, named
    `<UTC timestamp>-<file name>`; `index.jsonl` there records, one JSON object a line,
    which original path each backup belongs to. Returns the backup file's path.
    """
    backups = Path(app_data_dir) / BACKUP_DIR_NAME
    backups.mkdir(parents=True, exist_ok=True, mode=0o700)  # backups can hold secrets (settings `env`)
    original = Path(os.path.abspath(os.fspath(path)))
    now = _dt.datetime.now(_dt.timezone.utc)
    stem = f"{now.strftime('%Y%m%dT%H%M%S.%fZ')}-{_safe_name(original.name)}"
    for counter in range(1000):
        name = stem if counter == 0 else f"{stem}.{counter}"
        candidate = backups / name
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "could not find a free backup name", str(backups / stem))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        try:
            candidate.unlink()
        except OSError:
            pass
        raise
    record = {
        "backup": candidate.name,
        "original": str(original),
        "resolved": str(resolve_target(original)),
        "time": now.isoformat(),
        "size": len(content),
        "sha256": _hash(content),
    }
    # Append-only JSON lines: one small write per backup, no rewrite that could lose the index.
    from .file_lock import locked  # noqa: PLC0415 - file_lock imports app_dirs; keep this module light

    with locked(backups / BACKUP_INDEX_NAME, app_data_dir), open_index_for_append(backups / BACKUP_INDEX_NAME) as index:
        index.write(json.dumps(record, ensure_ascii=False) + "\n")
        index.flush()
        os.fsync(index.fileno())
    return candidate


def refuse_special(path: Path, what: str) -> None:
    """Raise NotRegularFileError when `path` exists and is a FIFO, device or socket: opening a FIFO
    waits for a peer, a device never ends. A missing path is fine (it will be created)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    kind = special_file_kind(mode)
    if kind is not None:
        raise NotRegularFileError(errno.EINVAL, f"{what} is {kind}, not a regular file; skillmanager does not "
                                                "read or write it. Remove it and a new one is started", str(path))


def os_error_words(error: OSError) -> str:
    """`<path>: <why>` for a diagnostic line."""
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"


def open_index_for_append(path: Path) -> TextIO:
    """The backup index, opened to append: created 0600, refused (never blocking) when it is not a
    regular file, also when one is swapped in between the check and the open (O_NONBLOCK + fstat)."""
    refuse_special(path, "the backup index")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        refuse_special(path, "the backup index")
        raise NotRegularFileError(errno.EINVAL, "the backup index is not a regular file", str(path))
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return open(fd, "a", encoding="utf-8")
