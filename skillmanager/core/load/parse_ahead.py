"""A first scan on two cores: a forked child reads and parses the last skills dirs while this process loads the
first ones.

A first run (the parse cache serves nothing yet) spends most of its time reading and parsing SKILL.md files one
after another, on one core. Where the platform forks cheaply and another core is free, `ParseAhead.start` forks a
child that takes the skills dirs from the last one backwards and, for each file, makes the parse the cache would
keep (skill_file.parse_cache_entry), while this process loads the dirs from the first one on. Two counters in
shared memory say how far each has come: before each of its dirs this process calls `taken(index)`, and once the
child has taken that dir this process stops reading files itself.

The child sends each dir's parses as soon as it has them. Before each of its own dirs, this process loads the
dirs the child has sent so far (`arrived`): the parse cache serves their parses (ParseCache.prime), so each file
costs the making of its Skill, as on a repeat run, and no stat (the child opened it without following a link:
its fstat is the file's lstat, noted in the input trace as this process's own would be). Loading those first
keeps the child busy the longest: every file it parses is one this process does not read. Each dir's skills and
diagnostics are kept in that dir's place, so the result is in load order whoever loaded what.

Who loads a dir: the child claims dir j only when this process has not claimed it (it reads this process's
counter, then publishes its own), and this process stops at dir i only when it sees that the child claimed it.
In a race both may load the same dir (this process keeps its own result); a dir the child claimed but never sent
(it died, hung or sent something unreadable) is loaded here at the end: no dir is left to nobody.

On a busy machine the split follows the cores that are free: the child runs at nice +10, so with no idle core it
gets little time and claims few dirs, and this process loads nearly all of them itself, as without it (an earlier
helper that split the files in fixed shares cost 30–150 ms there). The child never re-walks the inherited heap
(its collector is off), so few of the parent's pages are copied.

The child only reads: it writes no file, prints nothing and runs no exit handler (os._exit). Anything unusual (no
fork, a second thread, too few cores, a child that dies, hangs or answers something unreadable) leaves this
process reading those files itself: the same result, only slower. When a process may fork: core/forking.py
(`SKILLMANAGER_FORK=0` turns it off).
"""
from __future__ import annotations

import itertools
import marshal
import mmap
import os
import struct
import time
from typing import Callable, Iterable, Mapping

from . import cache_file, parse_cache
from .. import forking
from ..versions.profiles import Profile

# a first run loads this many files before a child is worth its fork (or starts with this many skills dirs)
MIN_FILES_BEFORE = 128
MIN_DIRS_AT_START = 32
NICE = 10  # the child's priority below this process's
# a child that has not answered after this many times as long as this process took to meet it is stopped
PATIENCE = 4.0
MIN_PATIENCE_S = 10.0
# two counters in shared memory, each written by one process only (aligned 4-byte stores):
_COUNTER = struct.Struct("=i")
_PARENT_AT = 0  # this process has claimed every dir below this
_CHILD_AT = 4  # the child has claimed every dir from this on
_FRAME = struct.Struct("=iI")  # before each dir's batch: its index and length
_MAX_BATCH = 1 << 30  # all batches together
_PIPE_SIZE = 1 << 20

Parses = dict[str, parse_cache.Primed]
# the index of a skills dir -> the files it loads (sources.skills_dirs_files of that one dir, in any order)
FilesOf = Callable[[int], Iterable[str]]


def worth_it(at: int, dirs: int, loaded: int, env: Mapping[str, str] | None = None) -> bool:
    """Before skills dir `at` of `dirs`, `loaded` skills in: enough work is likely left to pay for a fork."""
    if dirs - at < 2:
        return False
    return forking.setting(env) == "always" or loaded >= MIN_FILES_BEFORE or (at == 0 and dirs >= MIN_DIRS_AT_START)


class ParseAhead:
    """A child parsing skills dirs from the last one backwards; see the module's docstring."""

    def __init__(self, pid: int, reader: int, counters: mmap.mmap, dirs: int) -> None:
        self._pid = pid
        self._reader = reader
        self._counters = counters
        self._dirs = dirs
        self._started = time.monotonic()
        self._pending = bytearray()  # what came through the pipe after the last whole dir
        self._done = False  # the child is reaped (or never answers again)
        self.sent: list[int] = []  # the dirs whose parses came, in the order they came

    @classmethod
    def start(cls, dirs: int, first: int, files_of: FilesOf, profile: Profile) -> "ParseAhead | None":
        """Fork the child for dirs `first`..dirs-1 (`files_of(j)`: the files dir j loads, in any order), `first`
        claimed by this process (loaded next); None when it did not start (this process then reads
        everything itself)."""
        try:
            counters = mmap.mmap(-1, mmap.PAGESIZE)  # MAP_SHARED | MAP_ANONYMOUS: both processes see it
            _COUNTER.pack_into(counters, _PARENT_AT, first + 1)
            _COUNTER.pack_into(counters, _CHILD_AT, dirs)
            reader, writer = os.pipe()
        except OSError:
            return None
        try:  # a big dir's parses in one write, not 64 KB at a time (pipe-max-size: 1 MB by default)
            import fcntl
            fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        except (ImportError, AttributeError, OSError):
            pass
        from . import yaml12_loader  # noqa: F401  the child inherits the YAML loader (else both import it: ~25 ms)

        def child() -> None:
            os.close(reader)
            _child(counters, dirs, files_of, profile, writer)

        pid = forking.fork(child)
        if pid is None:
            os.close(reader)
            os.close(writer)
            return None
        os.close(writer)
        os.set_blocking(reader, False)  # `arrived` takes what is there and never waits
        return cls(pid, reader, counters, dirs)

    def taken(self, index: int) -> bool:
        """Called before loading dir `index` (in order): True when the child has taken it (this process then
        loads no more dirs of its own: `rest` waits for the child's); False: this process loads it (and has
        claimed it)."""
        if self._done:
            return False  # a child that stopped answering: every dir it has not sent is loaded here
        _COUNTER.pack_into(self._counters, _PARENT_AT, index + 1)  # claim it, then look at the child's claim
        child_from: int = _COUNTER.unpack_from(self._counters, _CHILD_AT)[0]
        return index >= child_from

    def arrived(self) -> list[int]:
        """The dirs whose parses came since the last call (primed in the active parse cache), without waiting."""
        if self._done:
            return []
        try:
            while True:
                chunk = os.read(self._reader, _PIPE_SIZE)
                if not chunk:  # the child ended: anything it sends has come
                    return self._take(ended=True)
                self._pending += chunk
        except BlockingIOError:
            return self._take(ended=False)
        except OSError:
            self._stop()
            return []

    def rest(self) -> list[int]:
        """After `taken` said the child has this process's next dir: wait for the child's last dirs and reap it.
        A child that has not ended after PATIENCE times as long as this process took to meet it (at least
        MIN_PATIENCE_S) is stopped; the dirs it has not sent are loaded here."""
        import select
        if self._done:
            return []
        now = time.monotonic()
        deadline = now + max(MIN_PATIENCE_S, PATIENCE * (now - self._started))
        try:
            while True:
                if not select.select([self._reader], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    self._stop()
                    return self._take(ended=False)
                chunk = os.read(self._reader, _PIPE_SIZE)
                if not chunk:
                    return self._take(ended=True)
                self._pending += chunk
        except OSError:
            self._stop()
            return []

    def finish(self) -> None:
        """After the last dir (or on the way out of an error): stop a child still running and reap it."""
        if not self._done:
            _COUNTER.pack_into(self._counters, _PARENT_AT, self._dirs)
            self._stop()

    def _take(self, ended: bool) -> list[int]:
        """The whole dirs in what came (their parses primed); the child reaped once it `ended` (a dir it was
        cut short in is left out). Anything that is not what the child writes stops it: what it sent before
        stands."""
        dirs: list[int] = []
        parses: Parses = {}
        data = self._pending
        at = 0
        try:
            while len(data) - at >= _FRAME.size:
                index, length = _FRAME.unpack_from(data, at)
                if length > len(data) - at - _FRAME.size:
                    break
                batch = marshal.loads(memoryview(data)[at + _FRAME.size:at + _FRAME.size + length])
                if (type(batch) is not dict or not 0 <= index < self._dirs
                        or not all(type(entry) is tuple and len(entry) == 3 for entry in batch.values())):
                    raise ValueError("not a batch of parses")
                at += _FRAME.size + length
                parses.update(batch)
                dirs.append(index)
        except (ValueError, EOFError, TypeError, struct.error):
            ended = True
        del data[:at]
        if ended:
            self._stop()
        cache = parse_cache.active()
        if cache is not None and parses:
            cache.prime(parses)
        self.sent += dirs
        return dirs

    def _stop(self) -> None:
        """Stop the child (if it still runs) and reap it; nothing more is read from it."""
        if self._done:
            return
        self._done = True
        try:
            import signal
            os.kill(self._pid, signal.SIGKILL)  # ended already: a zombie, reaped below
        except OSError:
            pass
        try:
            os.close(self._reader)
        except OSError:
            pass
        try:
            os.waitpid(self._pid, 0)
        except (ChildProcessError, OSError):
            pass
        self._counters.close()


def _child(counters: mmap.mmap, dirs: int, files_of: FilesOf, profile: Profile, writer: int) -> None:
    try:
        os.nice(NICE)  # with no idle core the parent keeps its own: the child only takes what is left over
    except OSError:
        pass
    from .skill_file import parse_cache_entry, skill_read_ahead
    at = [dirs - 1]  # the dir being parsed
    # with a cold page cache a read that waits starts the reads of the next files, across dirs as the child goes
    ahead = skill_read_ahead(lambda: itertools.chain.from_iterable(map(files_of, range(at[0], -1, -1))))
    size = 0
    unsent = bytearray()  # what the pipe had no room for yet: the child parses on instead of waiting
    os.set_blocking(writer, False)
    for index in range(dirs - 1, -1, -1):
        if index < _COUNTER.unpack_from(counters, _PARENT_AT)[0]:
            break  # the parent has claimed it
        _COUNTER.pack_into(counters, _CHILD_AT, index)
        at[0] = index
        parses: Parses = {}
        for where in files_of(index):
            entry = parse_cache_entry(where, profile, ahead)
            if entry is not None:
                parses[where] = entry
        try:
            batch = marshal.dumps(parses)
        except ValueError:  # a value marshal cannot hold (a date from YAML): the parent reads those files itself
            batch = marshal.dumps({where: entry for where, entry in parses.items() if cache_file.can_hold(entry)})
        size += _FRAME.size + len(batch)
        if size > _MAX_BATCH:
            return
        unsent += _FRAME.pack(index, len(batch))
        unsent += batch
        try:  # sent now, as far as the pipe takes it: the parent builds it meanwhile
            del unsent[:os.write(writer, unsent)]
        except BlockingIOError:
            pass
    os.set_blocking(writer, True)
    view = memoryview(unsent)
    while view:
        view = view[os.write(writer, view):]
