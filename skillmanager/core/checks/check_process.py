"""check_skill in a worker process: the desktop app's badges (audit + lint of every skill file) use a core of
their own instead of sharing the GIL with the UI thread.

The child is this program again: `python -m skillmanager.core.checks.check_process`, or in the frozen app (which
has no `-m`) `skillmanager __checks-child`, which cli.main routes here before it imports any command or the GUI:
the child never opens a window, and needs no multiprocessing bootstrap (no freeze_support, no resource tracker).
It reads requests on its stdin and answers on its stdout, each a pickled frame behind a 4-byte length; a thread
keeps reading requests while a batch is being checked, so the parent's write never waits on a full pipe while the
child waits to write its reply. A request is a batch of skill files; its reply gives, in the same order, each
file's (stamp, SkillChecks) as skill_checks.checked() makes them for ChecksCache. The child ends when its stdin
closes (the parent closed it, or exited), after the file in hand. Only this module writes or reads these frames,
and only between a parent and the child it started.
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


class CheckProcess:
    """The parent's handle on one worker process: started by start() (the app: when the first large checks pass
    begins), kept for later passes, ended by close(). One thread at a time sends and receives (the app's checks
    thread); close() may come from another. Once it fails it stays failed (`failed` says why): the caller checks
    in its own process instead."""

    def __init__(self, command: Sequence[str] | None = None):
        self.command = list(command) if command is not None else child_command()
        self.failed: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
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

    def start(self) -> bool:
        """Start the child unless it runs; False (`failed` says why) when it cannot be used. Does not wait for it
        to be ready: the first requests wait in its pipe meanwhile."""
        with self._lock:
            if self._closed or self.failed is not None:
                return False
            if self._proc is not None:
                if self._proc.poll() is None:
                    return True
                self.failed = f"the checks process exited (code {self._proc.returncode})"
                return False
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
            return True

    def send(self, profile: Profile | None, items: Sequence[CheckItem]) -> int:
        """Queue one batch; its number (answers come back in the order of the batches)."""
        payload = pickle.dumps((self.batches, profile, list(items)), protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None or self._closed or self.failed is not None:
                raise CheckProcessError(self.failed or "the checks process is not running")
            try:
                write_frame(proc.stdin, payload)
            except (OSError, ValueError) as error:  # a broken pipe: the child is gone
                raise self._broken(error) from error
            self._owed.append((self.batches, len(items)))
            self.batches += 1
            return self.batches - 1

    def receive(self) -> tuple[int, Answer]:
        """The answer to the oldest batch not answered yet: (its number, [(stamp, SkillChecks)] in the batch's
        order). Blocks until it comes."""
        proc = self._proc
        if proc is None or proc.stdout is None or not self._owed:
            raise CheckProcessError(self.failed or "no batch is waiting for its answer")
        try:
            frame = read_frame(proc.stdout)
            if frame is None:
                raise CheckProcessError("it exited")
            batch, answer = pickle.loads(frame)
            if (batch, len(answer)) != self._owed[0]:
                raise CheckProcessError(f"answer {batch} ({len(answer)} files) for batch {self._owed[0][0]} "
                                        f"({self._owed[0][1]} files)")
        except Exception as error:  # noqa: BLE001 - an unreadable answer, a pipe closed under us
            raise self._broken(error) from error
        self._owed.popleft()
        return batch, answer

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

    def close(self, timeout: float = 2.0) -> None:
        """End the child: its stdin closes, so it stops after the file in hand; killed if it lingers. A reader
        blocked in receive() then gets the end of the stream."""
        with self._lock:
            self._closed = True
            proc = self._proc
            if proc is None:
                return
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


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
