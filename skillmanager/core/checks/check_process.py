"""check_skill in worker processes: the desktop app's badges (audit + lint of every skill file) use cores of
their own instead of sharing the GIL with the UI thread. A CheckPool holds pool_size() children (one per usable
core, at most MAX_CHILDREN), each a CheckProcess; they share one pass, batch by batch.

The child is this program again: `python -m skillmanager.core.checks.check_process`, or in the frozen app (which
has no `-m`) `skillmanager __checks-child`, which cli.main routes here before it imports any command or the GUI:
the child never opens a window, and needs no multiprocessing bootstrap (no freeze_support, no resource tracker).
It reads requests on its stdin and answers on its stdout, each a pickled frame behind a 4-byte length; a thread
keeps reading requests while a batch is being checked, so the parent's write never waits on a full pipe while the
child waits to write its reply. A request is a batch of skill files; its reply gives, in the same order, each
file's (stamp, SkillChecks) as skill_checks.checked() makes them for ChecksCache. In the parent a thread per child
reads its replies onto the pool's queue. The child ends when its stdin closes (the parent closed it, or exited),
after the file in hand. Only this module writes or reads these frames, and only between a parent and the child
it started.
"""
from __future__ import annotations

import collections
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # the checks themselves are imported by the child once its priority is lowered
    from ..model import Diagnostic
    from ..versions.profiles import Profile
    from .audit import AuditCacheKey
    from .skill_checks import SkillChecks

CHILD_ARG = "__checks-child"  # the frozen app's internal command for the child (cli.CHECKS_CHILD)
MODULE = "skillmanager.core.checks.check_process"
NICE = 10  # the child's priority below the app's: on a busy machine the UI thread gets the core first
_LENGTH = struct.Struct("!I")
MAX_FRAME = 1 << 28  # a batch's answer is tens of KB; a larger length is not a frame of this protocol

# one file to check: (path, kind, name, the diagnostics the loader reported)
CheckItem = tuple[str, str, "str | None", "tuple[Diagnostic, ...]"]
Answer = list[tuple["AuditCacheKey | None", "SkillChecks"]]


class CheckProcessError(Exception):
    """The worker process cannot be used: it did not start, it exited, or it answered something unreadable."""


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame; None at the end of the stream (the other side closed it). Blocks (without the GIL)."""
    head = stream.read(_LENGTH.size)
    if not head:
        return None
    if len(head) < _LENGTH.size:
        raise CheckProcessError("a frame was cut short")
    (size,) = _LENGTH.unpack(head)
    if size > MAX_FRAME:
        raise CheckProcessError(f"a frame of {size:,} bytes: not one of ours")
    body = stream.read(size)
    if len(body) < size:
        raise CheckProcessError("a frame was cut short")
    return body


def child_command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, CHILD_ARG]
    return [sys.executable, "-m", MODULE]


def child_env() -> dict[str, str]:
    """The parent's environment (its caches, HOME), with this copy of skillmanager importable first (a checkout;
    an installed copy is found where it is: its site-packages is not put before the standard library)."""
    env = dict(os.environ)
    if not getattr(sys, "frozen", False):
        import site

        import skillmanager

        package_parent = str(Path(skillmanager.__file__).resolve().parents[1])
        installed = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
        inherited = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        if package_parent not in installed and package_parent not in inherited:
            env["PYTHONPATH"] = os.pathsep.join([package_parent, *inherited])
    return env


def pool_size() -> int:
    """How many children a CheckPool starts: one per core this process may run on, at most MAX_CHILDREN. Every core,
    the UI's included: the children run at nice +10, so the UI thread gets its core back whenever it needs it, and
    otherwise that core checks too (on 2 cores one child leaves the badges at check_skill's CPU per file)."""
    from ..cores import usable_cores
    return max(1, min(usable_cores(), MAX_CHILDREN))


# the app's own side of a pass (keys, requests, answers, the cache, showing the badges) costs ~0.2 ms CPU per file,
# mostly on the UI thread, against ~0.6 ms for a child's check: with 3-4 children that side, not theirs, sets the
# pace, while each more child still costs its start-up (~0.2 s CPU) and ~30 MB
MAX_CHILDREN = 4

Ticket = tuple[int, int]  # (the child's place in its pool, the batch's number at that child)
Event = tuple[Ticket, "Answer | None"]  # a batch's answer, or None: its child failed before answering it


class CheckProcess:
    """One worker process of a CheckPool: started by start(), ended by close(). send() writes a batch; a thread of
    its own reads the answers and puts each on the pool's queue as (ticket, answer). When the child fails (it exits,
    its pipe breaks, it answers something unreadable) that thread puts (ticket, None) for each batch it still owed:
    every batch sent gets exactly one event. Once failed it stays failed (`failed` says why)."""

    def __init__(self, command: Sequence[str] | None = None, *, index: int = 0,
                 events: queue.SimpleQueue[Event] | None = None):
        self.command = list(command) if command is not None else child_command()
        self.index = index
        self.events: queue.SimpleQueue[Event] = events if events is not None else queue.SimpleQueue()
        self.failed: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.batches = 0  # batches sent
        self._owed: collections.deque[tuple[int, int]] = collections.deque()  # (number, files) not answered yet

    @property
    def running(self) -> bool:
        return self._proc is not None and not self._closed and self.failed is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def owed(self) -> int:
        """Batches sent and not answered yet."""
        return len(self._owed)

    def start(self) -> bool:
        """Start the child unless it runs; False (`failed` says why) when it cannot be used. Does not wait for it
        to be ready: the first requests wait in its pipe meanwhile."""
        with self._lock:
            if self._closed or self.failed is not None:
                return False
            if self._proc is not None:
                return True  # its reader notices when it exits
            # Windows: no console window, and a priority below the app's (POSIX: below, once it runs)
            flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) | getattr(subprocess, "BELOW_NORMAL_PRIORITY_CLASS", 0)
            try:
                self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              env=child_env(), close_fds=True, creationflags=flags)
            except (OSError, ValueError, subprocess.SubprocessError) as error:
                self.failed = f"cannot start the checks process: {error}"
                return False
            if hasattr(os, "setpriority"):
                try:  # Popen returns once the child has exec'ed: its start-up is already at this priority
                    os.setpriority(os.PRIO_PROCESS, self._proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICE)
                except OSError:
                    pass
            self._reader = threading.Thread(target=self._read_answers, args=(self._proc,),
                                            name=f"checks-answers-{self.index}", daemon=True)
            self._reader.start()
            return True

    def send(self, profile: Profile | None, items: Sequence[CheckItem]) -> Ticket:
        """Queue one batch; its ticket (its event comes on `events`)."""
        with self._lock:
            payload = pickle.dumps((self.batches, profile, list(items)), protocol=pickle.HIGHEST_PROTOCOL)
            proc = self._proc
            if proc is None or proc.stdin is None or self._closed or self.failed is not None:
                raise CheckProcessError(self.failed or "the checks process is not running")
            self._owed.append((self.batches, len(items)))  # before it is written: the answer may come at once
            try:
                write_frame(proc.stdin, payload)
            except (OSError, ValueError) as error:  # a broken pipe: the child is gone
                self._owed.pop()  # not sent: the caller has it checked elsewhere (the reader never sees it)
                raise self._broken(error) from error
            self.batches += 1
            return self.index, self.batches - 1

    def _read_answers(self, proc: subprocess.Popen[bytes]) -> None:
        """The reader thread: each answer, checked against the oldest batch not answered yet, becomes an event; at
        the end of the stream (the child exited, or was closed) each batch still owed becomes a lost one."""
        assert proc.stdout is not None
        try:
            while True:
                frame = read_frame(proc.stdout)  # blocks without the GIL
                if frame is None:
                    raise CheckProcessError("it exited")
                batch, answer = pickle.loads(frame)
                expected = self._owed[0] if self._owed else None
                if (batch, len(answer)) != expected:
                    raise CheckProcessError(f"answer {batch} ({len(answer)} files) for batch "
                                            + (f"{expected[0]} ({expected[1]} files)" if expected else "none"))
                self.events.put(((self.index, batch), answer))
                self._owed.popleft()  # after the event: a batch is always owed or on the queue (CheckPool.receive)
        except Exception as error:  # noqa: BLE001 - an unreadable answer, a pipe closed under us, the child gone
            with self._lock:  # no batch is sent after this: send() sees `failed` or `_closed`
                if not self._closed:
                    self._broken(error)
                for number, _files in self._owed:
                    self.events.put(((self.index, number), None))
                self._owed.clear()
        finally:
            try:
                proc.stdout.close()
            except OSError:
                pass

    def _broken(self, why: object) -> CheckProcessError:
        """It is not used again: ended now (close() reaps it)."""
        if self.failed is None:
            self.failed = f"the checks process stopped answering: {why}"
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass
        return CheckProcessError(self.failed)

    def end_input(self) -> None:
        """The first half of close(): its stdin closes, so it stops after the file in hand."""
        with self._lock:
            self._closed = True
            proc = self._proc
            if proc is None or proc.stdin is None:
                return
            try:
                proc.stdin.close()
            except OSError:
                pass

    def close(self, timeout: float = 2.0) -> None:
        """End the child (killed if it lingers) and wait for its reader, which puts a lost event for each batch
        still owed (a thread waiting on the pool's queue wakes up)."""
        self.end_input()
        proc = self._proc
        if proc is None:
            return
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout)


class CheckPool:
    """The parent's handle on its worker processes (pool_size() of them unless told): started together by start()
    (the app: when the first large checks pass begins), kept for later passes, ended by close(). One thread at a
    time sends and receives (the app's checks thread); close() may come from another. send() gives a batch to the
    running child that owes the fewest; receive() gives the next event of any child: (ticket, answer), or
    (ticket, None) when that batch's child failed first (the caller has its files checked elsewhere). A child that
    fails stays failed; once every child has, `failed` says why and the caller checks in its own process."""

    def __init__(self, size: int | None = None, command: Sequence[str] | None = None):
        self.events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self.children = [CheckProcess(command, index=index, events=self.events)
                         for index in range(size if size is not None else pool_size())]
        self._closed = False

    @property
    def size(self) -> int:
        return len(self.children)

    @property
    def running(self) -> int:
        """How many children take batches now."""
        return sum(1 for child in self.children if child.running)

    @property
    def failed(self) -> str | None:
        """Why none of the children can be used, once each has failed; None while one can (or none started)."""
        reasons = [child.failed for child in self.children]
        return None if not reasons or any(reason is None for reason in reasons) else reasons[0]

    @property
    def pids(self) -> list[int]:
        return [pid for child in self.children if (pid := child.pid) is not None]

    @property
    def batches(self) -> int:
        """Batches sent, over every child."""
        return sum(child.batches for child in self.children)

    def start(self) -> bool:
        """Start the children that are not running yet; False when none of them can be used."""
        if self._closed:
            return False
        return [child.start() for child in self.children].count(True) > 0

    def send(self, profile: Profile | None, items: Sequence[CheckItem]) -> Ticket:
        """Queue one batch at the running child that owes the fewest; its ticket. CheckProcessError: none runs."""
        for child in sorted((child for child in self.children if child.running), key=lambda child: child.owed):
            try:
                return child.send(profile, items)
            except CheckProcessError:  # this one broke: the next
                continue
        raise CheckProcessError(self.failed or "no checks process is running")

    def receive(self) -> Event:
        """The next event of any child (the oldest first). Blocks until it comes; CheckProcessError when no batch is
        owed (nothing would come)."""
        if not any(child.owed for child in self.children) and self.events.empty():  # in this order (see _read_answers)
            raise CheckProcessError(self.failed or "no batch is waiting for its answer")
        return self.events.get()

    def close(self, timeout: float = 2.0) -> None:
        """End every child: all their stdins close first, then each is reaped (killed if it lingers)."""
        self._closed = True
        for child in self.children:
            child.end_input()
        for child in self.children:
            child.close(timeout)


def serve(requests: IO[bytes], answers: IO[bytes]) -> int:
    """The child's loop: check each batch, answer in order; stop when `requests` ends."""
    from .skill_checks import checked

    pending: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    ended = threading.Event()

    def read_requests() -> None:
        try:
            while (frame := read_frame(requests)) is not None:
                pending.put(frame)
        except (OSError, ValueError, CheckProcessError):
            pass
        finally:
            ended.set()
            pending.put(None)

    threading.Thread(target=read_requests, name="requests", daemon=True).start()
    while (frame := pending.get()) is not None:
        batch, profile, items = pickle.loads(frame)
        answer: Answer = []
        for path, kind, name, known in items:
            if ended.is_set():  # the parent closed its end: nobody wants the rest
                return 0
            answer.append(checked(Path(path), kind=kind, name=name, profile=profile, known=known))
        try:
            write_frame(answers, pickle.dumps((batch, answer), protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError):  # the parent is gone
            return 0
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The child. The frames go to a private copy of stdout; whatever else writes to stdout reaches stderr (or
    nowhere). Ctrl+C in the app's terminal is the parent's to handle: the child ends when the parent does."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(1), "wb")
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr (a windowed app on Windows)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    requests = os.fdopen(os.dup(0), "rb")
    try:
        return serve(requests, answers)
    finally:
        for stream in (answers, requests):
            try:
                stream.close()
            except OSError:
                pass


if __name__ == "__main__":
    raise SystemExit(main())
