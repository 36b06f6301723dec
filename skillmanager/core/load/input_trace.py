"""Which files and folders a computation read, and whether they are still exactly as it read them.

`recording()` notes every path the code inside touches through `os` and `open` (stat, lstat, open, scandir,
listdir, readlink, access) with what was there: (mode, device, inode, size, mtime_ns, ctime_ns), or the
error. A folder that was listed is noted by its own stat, whose mtime and ctime move whenever an entry is
added, removed or renamed; an entry that is a symbolic link is noted by its target too. `still_valid()`
stats the same paths again: one changed key means the inputs changed.

A stat key cannot see a file written twice within one timestamp tick with the same size. As git does for
racily clean index entries, a trace holding a key not older than its `racy_before` time (a probe file's
timestamp taken when recording started, less a margin for file systems with coarser timestamps) is not
reusable (`reusable()`).
"""
from __future__ import annotations

import builtins
import io
import os
from stat import S_ISDIR as _S_ISDIR
from contextlib import contextmanager
from typing import Any, Callable, Iterator

STAT = "s"  # os.stat: the symbolic link followed
LSTAT = "l"  # os.lstat: the link itself
LISTED = "d"  # a folder whose entries were read: its mtime and ctime count
# FAT keeps modification times in 2 s steps: a key within that much of the probe is treated as racy
RACY_MARGIN_NS = 2_000_000_000

Key = list[int]  # [mode, dev, ino, size, mtime_ns, ctime_ns], or [-1, errno] when the path could not be stat'd


_real_stat, _real_lstat = os.stat, os.lstat  # not the recording stand-ins
untraced_open = os.open  # for what reads nothing (a read-ahead hint): a file read later is noted then
_POSIX = os.sep == "/" and os.altsep is None


def key_of(kind: str, path: str) -> Key:
    try:
        st = _real_lstat(path) if kind == LSTAT else _real_stat(path)
    except OSError as error:
        return [-1, error.errno or 0]
    return key_of_result(kind, st)


def key_of_result(kind: str, st: os.stat_result) -> Key:
    """A folder that was only stat'd (is it a folder, a link?) counts by its identity: entries coming and
    going in /tmp or the home folder do not change what was read from it. A listed folder counts whole."""
    return key_of_fields(kind, st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def key_of_fields(kind: str, mode: int, dev: int, ino: int, size: int, mtime_ns: int, ctime_ns: int) -> Key:
    """key_of_result of a stat result with these fields."""
    if kind != LISTED and _S_ISDIR(mode):
        return [mode, dev, ino, 0, 0, 0]
    return [mode, dev, ino, size, mtime_ns, ctime_ns]


class InputTrace:
    """(kind, path) -> key of everything read; `untraceable` when something was read in a way a path
    cannot name again (relative to a folder descriptor), so the trace cannot vouch for the result."""

    def __init__(self, ignored_prefixes: tuple[str, ...] = ()) -> None:
        self.keys: dict[tuple[str, str], Key] = {}
        self.untraceable = False
        self.racy_before = 0
        self._ignored = tuple(p.rstrip(os.sep) + os.sep for p in ignored_prefixes if p)
        self._ignored_dirs = frozenset(p.rstrip(os.sep) for p in ignored_prefixes if p)

    def note(self, kind: str, path: Any, key: Key | None = None) -> None:
        if type(path) is str:
            text = path
        elif isinstance(path, int):
            return  # a descriptor this trace saw opened by path
        else:
            try:
                text = os.fsdecode(os.fspath(path))
            except TypeError:
                self.untraceable = True
                return
        if not (text[:1] == "/" if _POSIX else os.path.isabs(text)):
            text = os.path.abspath(text or ".")
        if text.startswith(self._ignored) or text in self._ignored_dirs:
            return
        seen = self.keys.get((kind, text))
        if seen is None:
            self.keys[(kind, text)] = key if key is not None else key_of(kind, text)
        elif key is not None and key != seen:
            self.untraceable = True  # it changed while it was being read: no key stands for what was read

    def reusable(self) -> bool:
        """False when a key is racily clean or something was read without a path."""
        if self.untraceable:
            return False
        limit = self.racy_before
        return all(len(k) < 6 or (k[4] < limit and k[5] < limit) for k in self.keys.values())

    def to_json(self) -> dict[str, list[list[Any]]]:
        """Grouped by folder: {folder: [[kind, name, *key], …]} (a third of the size of full paths)."""
        grouped: dict[str, list[list[Any]]] = {}
        for (kind, path), key in self.keys.items():
            if _POSIX:
                folder, _, name = path.rpartition("/")
                folder = folder or "/"
            else:
                folder, name = os.path.split(path)
            rows = grouped.get(folder)
            if rows is None:
                rows = grouped[folder] = []
            rows.append([kind, name, *key])
        return grouped


def still_valid(grouped: Any) -> bool:
    """True when every path of a trace (`InputTrace.to_json()`) stats to the same key as recorded."""
    if type(grouped) is not dict:
        return False
    stat, lstat, join = _real_stat, _real_lstat, os.path.join
    try:
        for folder, rows in grouped.items():
            for row in rows:
                kind = row[0]
                try:
                    st = lstat(join(folder, row[1])) if kind == LSTAT else stat(join(folder, row[1]))
                except OSError as error:
                    if row[2:] != [-1, error.errno or 0]:
                        return False
                    continue
                if row[2:] != key_of_result(kind, st):  # the one rule of what counts (a folder by identity…)
                    return False
    except (TypeError, IndexError, ValueError):
        return False  # a damaged trace
    return True


class _RecordingScandir:
    """os.scandir's iterator, noting the target of every entry that is a symbolic link."""

    def __init__(self, inner: Iterator[os.DirEntry[Any]], trace: InputTrace) -> None:
        self._inner = inner
        self._trace = trace

    def __iter__(self) -> "_RecordingScandir":
        return self

    def __next__(self) -> os.DirEntry[Any]:
        entry: os.DirEntry[Any] = next(self._inner)
        try:
            if entry.is_symlink():
                self._trace.note(STAT, entry.path)
        except OSError:
            pass
        return entry

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "_RecordingScandir":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_PATCHED = ("stat", "lstat", "scandir", "listdir", "open", "readlink", "access")


def _stand_ins(trace: InputTrace, real: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Functions with the signatures of os.<name> that note what they touch in `trace`."""

    def traceable(kwargs: dict[str, Any]) -> bool:
        if kwargs.get("dir_fd") is not None:
            trace.untraceable = True
            return False
        return True

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        kind = STAT if kwargs.get("follow_symlinks", True) else LSTAT
        try:
            result: os.stat_result = real["stat"](path, *args, **kwargs)
        except OSError as error:
            if traceable(kwargs):
                trace.note(kind, path, [-1, error.errno or 0])
            raise
        if traceable(kwargs):
            trace.note(kind, path, key_of_result(kind, result))
        return result

    real_lstat = real["lstat"]

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if args or kwargs or type(path) is not str:
            return stat(path, *args, **{**kwargs, "follow_symlinks": False})
        try:  # the common call (a scan's lstat of each file), without stat's keyword handling
            result: os.stat_result = real_lstat(path)
        except OSError as error:
            trace.note(LSTAT, path, [-1, error.errno or 0])
            raise
        trace.note(LSTAT, path, key_of_result(LSTAT, result))
        return result

    def scandir(path: Any = ".") -> _RecordingScandir:
        trace.note(LISTED, "." if path is None else path)
        return _RecordingScandir(real["scandir"](path), trace)

    def listdir(path: Any = ".") -> Any:
        trace.note(LISTED, "." if path is None else path)
        return real["listdir"](path)

    def open_fd(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        kind = LSTAT if flags & getattr(os, "O_NOFOLLOW", 0) else STAT
        try:
            fd: int = real["open"](path, flags, *args, **kwargs)
        except OSError:
            if traceable(kwargs):
                trace.note(kind, path)  # what stands there now (a chmod or a new file moves its key)
            raise
        if traceable(kwargs):
            trace.note(kind, path, key_of_result(kind, os.fstat(fd)))
        return fd

    def readlink(path: Any, *args: Any, **kwargs: Any) -> Any:
        if traceable(kwargs):
            trace.note(LSTAT, path)
        return real["readlink"](path, *args, **kwargs)

    def access(path: Any, *args: Any, **kwargs: Any) -> bool:
        if traceable(kwargs):
            trace.note(STAT, path)
        return bool(real["access"](path, *args, **kwargs))

    return {"stat": stat, "lstat": lstat, "scandir": scandir, "listdir": listdir, "open": open_fd,
            "readlink": readlink, "access": access}


@contextmanager
def recording(trace: InputTrace, probe_fd: int | None = None) -> Iterator[InputTrace]:
    """Note in `trace` every path read inside the block through `os` and `open` (this thread's and any
    other's: use it in a single-threaded command). `probe_fd`: a file created just before, whose timestamp
    starts the racy window."""
    if probe_fd is not None:
        probe = os.fstat(probe_fd)
        trace.racy_before = min(probe.st_mtime_ns, probe.st_ctime_ns) - RACY_MARGIN_NS
    real: dict[str, Callable[..., Any]] = {name: getattr(os, name) for name in _PATCHED}
    real_open = builtins.open

    def open_file(file: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(file, int):
            trace.note(STAT, file)
        return real_open(file, *args, **kwargs)

    for name, stand_in in _stand_ins(trace, real).items():
        setattr(os, name, stand_in)
    setattr(builtins, "open", open_file)
    setattr(io, "open", open_file)  # pathlib opens through io.open
    _unpatch.append(lambda: _restore(real, real_open))
    if not _recording:
        _outermost_open[:] = [real["open"]]
    _recording.append(trace)
    try:
        yield trace
    finally:
        _recording.pop()
        _unpatch.pop()
        _restore(real, real_open)


_unpatch: list[Callable[[], None]] = []  # of the recordings in progress, innermost last
_recording: list[InputTrace] = []  # their traces, in the same order
_outermost_open: list[Callable[..., int]] = []  # os.open as it was when the outermost recording began


def open_noted(path: str | os.PathLike[str], flags: int) -> tuple[int, os.stat_result]:
    """`os.open(path, flags)` and the fstat of what it opened, noted in every recording in progress as the
    recording `os.open` notes it (which makes a second fstat of its own); an error is noted and raised."""
    kind = LSTAT if flags & getattr(os, "O_NOFOLLOW", 0) else STAT
    try:
        fd = (_outermost_open[0] if _recording else os.open)(path, flags)  # (not a recording stand-in)
    except OSError:
        _note_everywhere(kind, path)  # what stands there now (a chmod or a new file moves its key)
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if _recording:
        _note_everywhere(kind, path, key_of_result(kind, st))
    return fd, st


def note_lstat(path: str, mode: int, stat_key: tuple[int, int, int, int, int]) -> None:
    """What `os.lstat(path)` would note in every recording in progress, from a stat made elsewhere that stands
    for it (a parse-ahead child's fstat of the file, opened with O_NOFOLLOW): its mode and its
    (dev, ino, size, mtime_ns, ctime_ns)."""
    if _recording:
        _note_everywhere(LSTAT, path, key_of_fields(LSTAT, mode, *stat_key))


def _note_everywhere(kind: str, path: Any, key: Key | None = None) -> None:
    """Note in every recording in progress (none: nothing)."""
    for trace in _recording:
        trace.note(kind, path, key)


def _restore(real: dict[str, Callable[..., Any]], real_open: Callable[..., Any]) -> None:
    for name, function in real.items():
        setattr(os, name, function)
    setattr(builtins, "open", real_open)
    setattr(io, "open", real_open)


def stop_recording() -> None:
    """In a forked child that only computes for its parent: `os` and `open` as before any recording (the
    parent's trace notes what it uses of the child's work itself)."""
    _recording.clear()
    while _unpatch:
        _unpatch.pop()()  # innermost first: the outermost restores the functions as they were before all
