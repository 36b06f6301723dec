"""A second process that reads and parses the tail of a long first scan while this one loads the head.

A first scan (an empty parse cache) of thousands of skills spends most of its time reading and parsing
files, one core's work. On a machine with a spare core, the scan forks once: the child reads and parses the
files the parent reaches last and hands back what the parse cache would hold for them (parse_cache
payloads, plain data through a pipe: no code, no pickle); the parent loads the head itself and takes those
files as cache entries, so each costs it a stat instead of a read and a parse. Everything else stays in
the parent: what a skill is, its states, the listing.

Only where a fork is safe and worth it: Linux, a process that asked for it (the command line: one thread,
no Qt; the app never forks), one live thread, at least two usable cores and MIN_FILES files. Any failure of
the child (killed, a damaged answer) only means the parent reads those files itself. Entries of files
changed within RACY_MARGIN_NS of the fork are not served (as the parse cache treats racily clean entries):
the parent reads them again.
"""
from __future__ import annotations

import marshal
import os
import sys
import threading
import time
from typing import Any, Callable, Sequence

from .input_trace import RACY_MARGIN_NS  # coarse file-system clocks, as for the stored answers

StatKeyList = list[int]
Entries = dict[str, list[Any]]  # path -> [stat key as a list, payload], as ParseCache.entries holds them

MIN_FILES = 1500  # below this a fork (~5 ms) and the hand-over cost more than half a scan saves
# The child's share of the files, the last ones loaded. The parent reaches them when its own share is done and
# then turns each entry into a skill (~23 µs against ~56 µs for a read, a parse and a skill; the child ~48 µs a
# file): at 0.55 the child is done about when the parent gets there (measured on 5,000 real files, 2 cores).
CHILD_SHARE = 0.55

_allowed = False


def allow_forking() -> None:
    """Called by a process that runs one command on one thread and exits (the command line)."""
    global _allowed
    _allowed = True


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worth_forking() -> bool:
    """The checks that need no list of files."""
    return (_allowed and sys.platform == "linux" and hasattr(os, "fork")
            and threading.active_count() == 1 and usable_cores() >= 2)


class ParseHelper:
    """The child's share of `paths`; `take()` waits for its entries (once)."""

    def __init__(self, pid: int, read_fd: int, paths: frozenset[str], racy_after: int) -> None:
        self.pid = pid
        self._read_fd = read_fd
        self.paths = paths
        self.racy_after = racy_after
        self._taken: Entries | None = None

    @classmethod
    def start(cls, paths: Sequence[str], parse: Callable[[str], tuple[StatKeyList, dict[str, Any]] | None],
              ) -> "ParseHelper | None":
        """Fork a child that runs `parse` on the last CHILD_SHARE of `paths` (None when not worth it or the
        fork fails). `parse(path)`: (stat key, payload) for the file as read now, or None."""
        if len(paths) < MIN_FILES or not worth_forking():
            return None
        tail = list(paths[int(len(paths) * (1 - CHILD_SHARE)):])
        racy_after = time.time_ns() - RACY_MARGIN_NS
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        for stream in (sys.stdout, sys.stderr):  # nothing buffered before the fork may be written twice
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:  # the child: never returns into the caller's frames (their cleanups are the parent's)
            code = 1
            try:
                os.close(read_fd)
                _answer(write_fd, tail, parse)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        return cls(pid, read_fd, frozenset(tail), racy_after)

    def take(self) -> Entries:
        """The child's entries ({} when it failed); waits for it to finish."""
        if self._taken is None:
            self._taken = self._receive()
        return self._taken

    def _receive(self) -> Entries:
        chunks: list[bytes] = []
        try:
            while True:
                chunk = os.read(self._read_fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            os.close(self._read_fd)
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
        try:
            entries = marshal.loads(b"".join(chunks)) if chunks else {}
        except (EOFError, ValueError, TypeError):
            return {}  # cut short: the parent reads those files itself
        if type(entries) is not dict:
            return {}
        # only its own files (the cache serves an entry only for the same stat key, older than racy_after)
        return {path: entry for path, entry in entries.items() if type(path) is str and path in self.paths}


def _answer(write_fd: int, paths: list[str],
            parse: Callable[[str], tuple[StatKeyList, dict[str, Any]] | None]) -> None:
    entries: Entries = {}
    for path in paths:
        try:
            parsed = parse(path)
        except Exception:  # noqa: BLE001 - a file the child cannot handle is left to the parent
            continue
        if parsed is not None:
            entries[path] = [parsed[0], parsed[1]]
    data = marshal.dumps(entries)
    view = memoryview(data)
    while view:
        written = os.write(write_fd, view)
        view = view[written:]
    os.close(write_fd)
