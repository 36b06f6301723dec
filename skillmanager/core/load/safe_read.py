"""Read user files defensively: size cap, binary detection, decoding as Node does; never raise."""
from __future__ import annotations

import errno
import os
import stat as _stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Union

from ..model import Diagnostic, Severity
from .input_trace import open_noted, untraced_open

# Claude Code reads a skill file whole; skillmanager stops at this size so one stray multi-GB
# file cannot freeze a scan. Real skills are a few KB (the corpus maximum is well under 1 MB).
MAX_SKILL_BYTES = 4 * 1024 * 1024
_BINARY_SNIFF = 8192


@dataclass
class ReadResult:
    """A file's text as read safely, or None with the reasons (diagnostics)."""

    text: str | None
    size: int = 0
    truncated: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stat: os.stat_result | None = None  # fstat of the open file (the parse cache's key)
    link: bool | None = None  # the path's last part is a symbolic link (None: not known)


# Settings, manifests, MCP and scenario files are small JSON; anything bigger is refused, not slurped.
MAX_JSON_BYTES = 64 * 1024 * 1024
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

# what `open` and `os.stat` take
PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


class NotRegularFileError(OSError):
    """A FIFO, device or socket where a file was expected (reading one blocks or never ends)."""


def special_file_kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, in words; None for a regular file or a directory."""
    if _stat.S_ISREG(mode) or _stat.S_ISDIR(mode):
        return None
    if _stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if _stat.S_ISCHR(mode):
        return "a character device"
    if _stat.S_ISBLK(mode):
        return "a block device"
    if _stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _nonblocking_opener(path: str, flags: int) -> int:
    # a FIFO swapped in after the stat check must not block open() waiting for a writer
    return os.open(path, flags | _NONBLOCK)


def check_regular(path: PathArg) -> None:
    """Raise unless `path` is a regular file (following links): stat before opening, because opening a
    FIFO blocks until a writer comes and reading /dev/zero never ends. IsADirectoryError,
    NotRegularFileError or the OSError of stat (FileNotFoundError, ELOOP, …)."""
    mode = os.stat(path).st_mode
    if _stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", os.fsdecode(path))
    if not _stat.S_ISREG(mode):
        raise NotRegularFileError(0, f"{special_file_kind(mode)}, not a regular file", os.fsdecode(path))


def open_regular(path: PathArg) -> BinaryIO:
    """`open(path, "rb")` for a regular file only (check_regular), re-checked on the open handle."""
    check_regular(path)
    handle = open(path, "rb", opener=_nonblocking_opener)
    _require_regular(handle.fileno(), path, handle.close)
    return handle


def open_regular_fd(path: PathArg, *, lstat_regular: bool = False) -> int:
    """open_regular as a bare descriptor (os.read, os.close): a file read once in big chunks needs no buffered
    file object around it (a third of the cost of reading a 5 KB file). `lstat_regular`: the caller's lstat just
    found a regular file (no link) at `path`, so no stat before opening; the open refuses a link swapped in since
    (followed then as any path is) and the fstat after it anything but a regular file."""
    if lstat_regular and _NOFOLLOW:
        try:
            fd = os.open(path, os.O_RDONLY | _BINARY | _NONBLOCK | _CLOEXEC | _NOFOLLOW)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.EMLINK):  # EMLINK: the BSDs' answer
                raise
        else:
            _require_regular(fd, path, lambda: os.close(fd))
            return fd
    check_regular(path)
    fd = os.open(path, os.O_RDONLY | _BINARY | _NONBLOCK)
    _require_regular(fd, path, lambda: os.close(fd))
    return fd


def _require_regular(fd: int, path: PathArg, close: Callable[[], None]) -> None:
    """What stands at `path` was checked before opening; a special file swapped in since is refused here."""
    mode = os.fstat(fd).st_mode
    if not _stat.S_ISREG(mode):
        close()
        raise NotRegularFileError(0, f"{special_file_kind(mode) or 'a directory'}, not a regular file",
                                  os.fsdecode(path))


def read_regular_bytes(path: PathArg, *, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """The bytes of a small regular file (settings, manifests, scenarios). Raises OSError (incl.
    NotRegularFileError, and one for a file over `max_bytes`) so callers keep their one `except OSError`."""
    with open_regular(path) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(27, f"file larger than {max_bytes:,} bytes", os.fsdecode(path))  # EFBIG
    return data


def _read_more(fd: int, data: bytes, limit: int) -> bytes:
    """Keep reading until `limit` bytes or end of file."""
    chunks, got = [data], len(data)
    while got < limit:
        chunk = os.read(fd, limit - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


# Linux >= 4.14: a read that returns EAGAIN instead of waiting for the disk (absent on macOS and Windows)
_RWF_NOWAIT = getattr(os, "RWF_NOWAIT", 0)
READ_AHEAD_SUPPORTED = bool(_RWF_NOWAIT and _NOFOLLOW and hasattr(os, "preadv") and hasattr(os, "posix_fadvise"))
# errors of a kernel or file system without RWF_NOWAIT: read plainly from then on
_NOWAIT_REFUSED = {errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS}


class ReadAhead:
    """Overlaps the disk reads of files read one after another (a skills dir's SKILL.md files).

    With a cold page cache a scan spends most of its time waiting for each file's read in turn. Here a
    file is first read with RWF_NOWAIT: in the page cache, that is the whole read (nothing extra). When
    it would wait for the disk, the kernel is asked to start reading the next `WINDOW` files of
    `upcoming` (posix_fadvise WILLNEED), so their I/O runs together; the read then waits as before.
    While reads keep waiting (the disk is behind), each moves the window on.
    Only a hint: the bytes read and every check on them are those of the plain read. Only on Linux
    (READ_AHEAD_SUPPORTED); a file system that refuses RWF_NOWAIT is read plainly. Not thread-safe: one
    per scan of a directory."""

    WINDOW = 64  # files whose reads are in flight at once
    buffer_limit = 256 * 1024  # larger files are read plainly (the reused buffer stays small)

    def __init__(self, upcoming: Callable[[], Iterable[str]], skip: Callable[[str], bool] | None = None) -> None:
        """`upcoming`: the paths in the order they will be read, from the one being read now on (asked for
        at a read that waits, then taken only as far as the window reaches); `skip`: paths not worth
        hinting (a parse cache serves them)."""
        self._upcoming = upcoming
        self._skip = skip
        self._source: Iterator[str] | None = None  # the rest of `upcoming`, once a read was cold
        self._paths: list[str] = []  # `upcoming` as far as it was taken
        self._index: dict[str, int] | None = None  # position of each of those paths
        self._hinted_to = 0  # paths before this position were hinted
        self._buffer = bytearray(0)
        self._whole: list[bytearray] = [self._buffer]  # preadv's buffer list, made once
        self.nowait = True  # False once the file system refused RWF_NOWAIT
        self.hints = 0  # files hinted so far

    def read(self, fd: int, path: str | os.PathLike[str], size: int, want: int) -> tuple[bytearray | bytes, int]:
        """Up to `want` bytes from the start of `fd` (its offset moves as a read's does): (buffer, bytes
        read). A read shorter than `size` may be completed by the caller, as after a plain read."""
        if not self.nowait:
            data = os.read(fd, want)
            return data, len(data)
        if len(self._buffer) < want:
            self._buffer = bytearray(max(want, 65536))
            self._whole = [self._buffer]
        try:
            # into the whole buffer (no slice per file); -1: at the file offset, moving it
            got = os.preadv(fd, self._whole, -1, _RWF_NOWAIT)
        except BlockingIOError:
            got = 0
        except OSError as error:
            if error.errno not in _NOWAIT_REFUSED:
                raise
            self.nowait = False
            data = os.read(fd, want)
            return data, len(data)
        if got < size and got < want:  # would wait for the disk (all or part of the file is not cached)
            self._keep_ahead(path)
            got += os.preadv(fd, [memoryview(self._buffer)[got:]], -1)
        if got > want:  # the file grew since its fstat: what a read of `want` bytes gives, offset after them
            os.lseek(fd, want, os.SEEK_SET)
            got = want
        return self._buffer, got

    def _keep_ahead(self, path: str | os.PathLike[str]) -> None:
        """Hint the files after `path`, up to WINDOW ahead, not hinted yet. Only a read that waits moves the
        window (a hinted file still on its way waits too): a stray uncached file among cached ones costs
        one window of hints, not hints for the rest of the scan."""
        text = os.fspath(path)
        position = self._index.get(text) if self._index is not None else None
        if position is None:  # the first wait, or one past what was listed: list from where the caller is now
            self._source = iter(self._upcoming())
            self._paths, self._index, self._hinted_to = [], {}, 0
            while position is None and self._take(len(self._paths) + self.WINDOW):
                position = self._index.get(text)
            if position is None:
                return
        self._take(position + 2 + self.WINDOW)  # and the file after the window: the next wait is likely there
        start = max(position + 1, self._hinted_to)
        end = min(position + 1 + self.WINDOW, len(self._paths))
        for upcoming in self._paths[start:end]:
            if self._skip is None or not self._skip(upcoming):
                hint_read(upcoming)
                self.hints += 1
        self._hinted_to = max(self._hinted_to, end)

    def _take(self, count: int) -> bool:
        """Take paths from `upcoming` until `count` are known or none are left; False when none was left."""
        assert self._index is not None
        taken = False
        while len(self._paths) < count and self._source is not None:
            upcoming = next(self._source, None)
            if upcoming is None:
                self._source = None
                break
            self._index.setdefault(upcoming, len(self._paths))
            self._paths.append(upcoming)
            taken = True
        return taken


def hint_read(path: str) -> None:
    """Ask the kernel to start reading a regular file into the page cache, without waiting; links and
    special files are left alone (opening non-blocking: a FIFO cannot hang it), errors ignored."""
    try:  # not noted by a recording input trace: a hint reads nothing (the read that follows is noted)
        fd = untraced_open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _NOFOLLOW)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if _stat.S_ISREG(st.st_mode):
            os.posix_fadvise(fd, 0, min(st.st_size, MAX_SKILL_BYTES) + 1, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_text_file(path: Path | str, *, max_bytes: int = MAX_SKILL_BYTES, known: os.stat_result | None = None,
                   ahead: ReadAhead | None = None) -> ReadResult:
    """UTF-8 text as Node's `readFile(…, 'utf-8')` gives it (invalid bytes → U+FFFD, BOM kept).
    `known`: a stat of `path` the caller just made and found regular (saves the pre-open stat). A str
    `path` skips pathlib's parsing on the hot path (diagnostics still name a Path). `ahead`: the
    ReadAhead of the files the caller reads next, `path` among them (same text, disk reads overlapped)."""
    link = None
    try:
        fd = -1
        if known is None and _NOFOLLOW:
            # one open that refuses a symbolic link (ELOOP) instead of stat + open: non-blocking, so a FIFO
            # cannot hang it, and the fstat below refuses anything but a regular file before a read
            try:
                fd, st = open_noted(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _NOFOLLOW)
                link = False
            except OSError as error:
                if error.errno not in (errno.ELOOP, errno.EMLINK):  # EMLINK: the BSDs' answer
                    raise
                link = True  # a link (or a loop): checked and followed below
        if fd < 0:
            if known is None:
                check_regular(path)
            # raw descriptor: open, fstat, read, close and nothing else (a file object adds an fstat, an
            # ioctl and a seek per file; a recording os.open another fstat)
            fd, st = open_noted(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
        try:
            if _stat.S_ISDIR(st.st_mode):  # swapped after the stat check
                raise IsADirectoryError(21, "Is a directory", os.fsdecode(path))
            if not _stat.S_ISREG(st.st_mode):
                raise NotRegularFileError(0, f"{special_file_kind(st.st_mode) or 'a directory'}, not a regular file",
                                          os.fsdecode(path))
            size = st.st_size
            # ask for what fstat promises (+1 to notice growth), then top up for files that grew
            want = size + 1 if 0 < size <= max_bytes else max_bytes + 1
            if ahead is not None and want <= ahead.buffer_limit:
                data, got = ahead.read(fd, path, size, want)  # a reused buffer: `got` bytes of it are the file's
            else:
                data = os.read(fd, want)
                got = len(data)
            if got != size or got == want:  # short read, growth, or a size-0 special file
                data = _read_more(fd, bytes(data[:got]), want if got < want else max_bytes + 1)
                got = len(data)
        finally:
            os.close(fd)
    except PermissionError as error:
        return ReadResult(None, diagnostics=[Diagnostic(
            Severity.ERROR, "unreadable", f"Cannot read this file: permission denied ({error.strerror or error}).", _as_path(path))])
    except IsADirectoryError:
        return ReadResult(None, diagnostics=[Diagnostic(
            Severity.ERROR, "is-directory", "Expected a file but found a directory.", _as_path(path))])
    except NotRegularFileError as error:
        return ReadResult(None, diagnostics=[Diagnostic(
            Severity.ERROR, "not-regular-file",
            f"This is {error.strerror}; skillmanager does not read it (Claude Code would block or read "
            "without end on a FIFO or a device like /dev/zero).", _as_path(path))])
    except OSError as error:
        code = "symlink-loop" if getattr(error, "errno", None) == 40 else "unreadable"
        reason = "symbolic link loop" if code == "symlink-loop" else (error.strerror or str(error))
        return ReadResult(None, diagnostics=[Diagnostic(Severity.ERROR, code, f"Cannot read this file: {reason}.", _as_path(path))])
    result = ReadResult(None, size=max(size, got), stat=st, link=link)
    if got > max_bytes:
        got = max_bytes
        result.truncated = True
        result.diagnostics.append(Diagnostic(
            Severity.WARNING, "huge-file",
            f"The file is {result.size:,} bytes; skillmanager read only the first {max_bytes:,}. "
            "Claude Code would load all of it into the model's context when the skill runs.", _as_path(path)))
    # the first `got` bytes of `data` are the file's (bounds, not slices: no copy of a reused buffer)
    if data.find(b"\x00", 0, min(got, _BINARY_SNIFF)) >= 0:
        result.diagnostics.append(Diagnostic(
            Severity.ERROR, "binary-file",
            "This looks like a binary file (it contains NUL bytes), not Markdown text.", _as_path(path)))
    text = data.decode("utf-8", errors="replace") if got == len(data) else str(
        memoryview(data)[:got], "utf-8", "replace")
    if "\ufffd" in text and data.find(b"\xef\xbf\xbd", 0, got) < 0:
        result.diagnostics.append(Diagnostic(
            Severity.WARNING, "not-utf8",
            "The file is not valid UTF-8; invalid bytes are read as U+FFFD, as Claude Code reads them.", _as_path(path)))
    result.text = text
    return result


def _as_path(path: Path | str) -> Path:
    return Path(path) if isinstance(path, str) else path
