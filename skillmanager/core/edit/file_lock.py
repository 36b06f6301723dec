"""An advisory lock per target file, held around re-read, check and rename.

The lock file lives in the app's data dir (`locks/<hash of the real path>.lock`), never beside the
user's file: a `.lock` next to `settings.json` would stay behind and could be committed. Every
skillmanager process (CLI and GUI) takes it before it re-reads a file it is about to replace, so two of
them cannot both pass the "unchanged since planned" check and the second rename lose the first update.
POSIX uses fcntl.flock; Windows msvcrt.locking on the lock file's first byte. Programs other than
skillmanager (Claude Code, an editor) do not take it: against them the late content check in
atomic_write still refuses to overwrite a change it sees.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator

from ..app_dirs import app_data_dir

LOCK_DIR_NAME = "locks"
DEFAULT_TIMEOUT = 30.0  # seconds: a toggle holds the lock for milliseconds


class LockTimeout(OSError):
    """Another skillmanager process held the lock for too long."""


def lock_path_for(target: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The lock file for `target` (keyed by its real path, so a symlink and its target share one)."""
    real = os.path.realpath(os.fspath(target))
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    base = Path(data_dir) if data_dir is not None else app_data_dir()
    return base / LOCK_DIR_NAME / f"{digest}.lock"


if sys.platform == "win32":  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def locked(targets: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
           data_dir: str | os.PathLike[str] | None = None, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the lock of every path in `targets` (one path or several; taken in a fixed order so two
    writers of the same files cannot deadlock). Raises LockTimeout after `timeout` seconds."""
    if isinstance(targets, (str, os.PathLike)):
        targets = [targets]
    paths = sorted({lock_path_for(t, data_dir) for t in targets})
    fds: list[int] = []
    try:
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0),
                         0o600)
            fds.append(fd)
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device put there: never wait on it
                raise OSError(errno.EINVAL, "the lock file is not a regular file; remove it", str(path))
            deadline = time.monotonic() + timeout
            delay = 0.001
            while not _try_lock(fd):
                if time.monotonic() > deadline:
                    raise LockTimeout(0, f"another skillmanager process is writing this file (lock {path} "
                                         f"held for more than {timeout:g} s)", str(path))
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        for fd in reversed(fds):
            try:
                _unlock(fd)
            except OSError:
                pass
            os.close(fd)
