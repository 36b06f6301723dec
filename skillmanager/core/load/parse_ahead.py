"""A first scan on two cores: a forked child reads and parses the last skills dirs while this process loads the
first ones.

A first run (the parse cache serves nothing yet) spends most of its time reading and parsing SKILL.md files one
after another, on one core. Where the platform forks cheaply and another core is free, `ParseAhead.start` forks a
child that takes the skills dirs from the last one backwards and, for each file, makes the parse the cache would
keep (skill_file.parse_cache_entry), while this process loads the dirs from the first one on, as before. They
meet somewhere in the middle, wherever their speeds put it: two counters in shared memory say how far each has
come. Before each dir this process calls `taken(index)`; once the child has taken that dir, this process stops
the child and receives what it parsed (one batch, written when it stops), and the parse cache serves those
parses (ParseCache.prime): each of those files then costs an lstat (its key must be the one it had when the child
read it) and the making of its Skill, as on a repeat run.

Who loads a dir: the child claims dir j only when this process has not claimed it (it reads this process's
counter, then publishes its own), and this process skips dir i only when it sees that the child claimed it. In
a race both may load the same dir (this process keeps its own result); no dir is left to nobody.

On a busy machine the split follows the cores that are free: the child runs at nice +10, so with no idle core it
gets little time and claims few dirs, and this process loads nearly all of them itself, as without it (an earlier
helper that split the files in fixed shares cost 30–150 ms there). The child never re-walks the inherited heap
(its collector is off), so few of the parent's pages are copied.

The child only reads: it writes no file, prints nothing and runs no exit handler (os._exit). Anything unusual (no
fork, a second thread, too few cores, a child that dies, hangs or answers something unreadable) leaves this
process reading those files itself: the same result, only slower. `SKILLMANAGER_PARSE_AHEAD=0` turns it off.
"""
from __future__ import annotations

import itertools
import marshal
import mmap
import os
import struct
import sys
import time
from typing import Callable, Iterable, Mapping

from . import parse_cache
from ..cores import usable_cores
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
_LENGTH = struct.Struct("=I")  # before each dir's batch
_MAX_BATCH = 1 << 30  # all batches together
_PIPE_SIZE = 1 << 20

Parses = dict[str, tuple[parse_cache.StatKey, parse_cache.Payload]]
# the index of a skills dir -> the files it loads (sources.skills_dirs_files of that one dir, in any order)
FilesOf = Callable[[int], Iterable[str]]


def _main_thread_only() -> bool:
    """Called on the main thread, no other Python thread running, in a process without Qt (the app loads on
    worker threads, beside Qt's own, which Python does not count: a fork there would copy locks they hold)."""
    import threading
    return (threading.current_thread() is threading.main_thread() and threading.active_count() == 1
            and "PySide6.QtCore" not in sys.modules)


def setting(env: Mapping[str, str] | None = None) -> str:
    """SKILLMANAGER_PARSE_AHEAD: "0" never, "always" whenever it can fork (however few cores or files:
    for tests), anything else: when it is likely to pay."""
    value = (os.environ if env is None else env).get("SKILLMANAGER_PARSE_AHEAD", "")
    return value if value in ("0", "always") else "auto"


def allowed(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process may fork a parse-ahead child now: Linux (elsewhere unverified: macOS system
    libraries are not safe after a fork without exec), the main thread alone (never in the app), a second
    usable core (unless "always"), not turned off."""
    mode = setting(env)
    return (mode != "0" and sys.platform.startswith("linux") and hasattr(os, "fork") and _main_thread_only()
            and (mode == "always" or usable_cores() >= 2))


def worth_it(at: int, dirs: int, loaded: int, env: Mapping[str, str] | None = None) -> bool:
    """Before skills dir `at` of `dirs`, `loaded` skills in: enough work is likely left to pay for a fork."""
    if dirs - at < 2:
        return False
    return setting(env) == "always" or loaded >= MIN_FILES_BEFORE or (at == 0 and dirs >= MIN_DIRS_AT_START)


class ParseAhead:
    """A child parsing skills dirs from the last one backwards; see the module's docstring."""

    def __init__(self, pid: int, reader: int, counters: mmap.mmap, dirs: int) -> None:
        self._pid = pid
        self._reader = reader
        self._counters = counters
        self._dirs = dirs
        self._child_from = dirs  # the child's claim as last read
        self._started = time.monotonic()
        self.delivered = False
        self.parses: Parses = {}

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
        try:  # the batches in a few writes, not 64 KB at a time (pipe-max-size: 1 MB by default)
            import fcntl
            fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        except (ImportError, AttributeError, OSError):
            pass
        from . import yaml12_loader  # noqa: F401  the child inherits the YAML loader (else both import it: ~25 ms)
        sys.stdout.flush()  # nothing buffered is written twice (the child never flushes: os._exit)
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            return None
        if pid == 0:  # the child
            code = 1
            try:
                os.close(reader)
                _child(counters, dirs, files_of, profile, writer)
                code = 0
            finally:
                os._exit(code)  # no exit handler, no flush of the parent's buffers, no teardown
        os.close(writer)
        return cls(pid, reader, counters, dirs)

    def taken(self, index: int) -> bool:
        """Called before loading dir `index` (in order): True when the child has taken it, so its files'
        parses are in the cache (received now, once); False: this process loads it (and has claimed it)."""
        if self.delivered:
            return index >= self._child_from
        _COUNTER.pack_into(self._counters, _PARENT_AT, index + 1)  # claim it, then look at the child's claim
        self._child_from = _COUNTER.unpack_from(self._counters, _CHILD_AT)[0]
        if index < self._child_from:
            return False
        self._receive()
        return True

    def _receive(self) -> None:
        """Wait for the child's batch (it stops at the dir this process claimed) and reap it. A child that has
        not answered after PATIENCE times as long as this process took to meet it (at least MIN_PATIENCE_S) is
        stopped, and this process loads the rest itself."""
        import select
        self.delivered = True
        chunks: list[bytes] = []
        now = time.monotonic()
        deadline = now + max(MIN_PATIENCE_S, PATIENCE * (now - self._started))
        try:
            while True:
                if not select.select([self._reader], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    import signal
                    os.kill(self._pid, signal.SIGKILL)
                    chunks = []
                    break
                chunk = os.read(self._reader, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            self._close()
        parses = _batches(b"".join(chunks))
        if parses is None:
            self._child_from = self._dirs  # nothing usable: every remaining dir is loaded here
            return
        self.parses = parses
        cache = parse_cache.active()
        if cache is not None:
            cache.prime(parses)

    def finish(self) -> None:
        """After the last dir: stop a child that was never met (this process loaded everything) and reap it."""
        if not self.delivered:
            self.delivered = True
            _COUNTER.pack_into(self._counters, _PARENT_AT, self._dirs)
            self._close()

    def _close(self) -> None:
        try:
            os.close(self._reader)  # a child still writing gets EPIPE and ends
        except OSError:
            pass
        try:
            os.waitpid(self._pid, 0)
        except (ChildProcessError, OSError):
            pass
        self._counters.close()


def _child(counters: mmap.mmap, dirs: int, files_of: FilesOf, profile: Profile, writer: int) -> None:
    import gc
    gc.disable()  # everything it makes lives until it exits; the inherited heap is never re-walked
    try:
        os.nice(NICE)  # with no idle core the parent keeps its own: the child only takes what is left over
    except OSError:
        pass
    from . import input_trace
    from .skill_file import parse_cache_entry, skill_read_ahead
    input_trace.stop_recording()  # what it reads is noted by the parent, which stats every file it serves
    batches: list[bytes] = []  # one per dir, each marshalled as soon as it is parsed (the parent waits for the last)
    at = [dirs - 1]  # the dir being parsed
    # with a cold page cache a read that waits starts the reads of the next files, across dirs as the child goes
    ahead = skill_read_ahead(lambda: itertools.chain.from_iterable(map(files_of, range(at[0], -1, -1))))
    size = 0
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
            batch = marshal.dumps({where: entry for where, entry in parses.items() if parse_cache.is_plain(entry[1])})
        size += _LENGTH.size + len(batch)
        if size > _MAX_BATCH:
            return
        batches += (_LENGTH.pack(len(batch)), batch)
    view = memoryview(b"".join(batches))
    while view:
        view = view[os.write(writer, view):]


def _batches(data: bytes) -> Parses | None:
    """The child's answer: its per-dir batches merged; None when it is cut short or not what the child writes."""
    parses: Parses = {}
    at = 0
    view = memoryview(data)
    try:
        while at < len(data):
            (length,) = _LENGTH.unpack_from(data, at)
            at += _LENGTH.size
            if at + length > len(data):
                return None
            batch = marshal.loads(view[at:at + length])
            at += length
            if type(batch) is not dict:
                return None
            parses.update(batch)
    except (ValueError, EOFError, TypeError, struct.error):
        return None
    return parses if at == len(data) else None
