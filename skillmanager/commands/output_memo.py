"""A command's whole answer replayed when nothing it read has changed (repeat runs of `listing`).

A command whose output depends only on its options, the environment and the files it reads declares
`REPLAYABLE = True`. Its first run records every path it reads (core.load.input_trace) and stores stdout,
stderr and the exit code beside that trace in the app's cache dir; a later run with the same options,
working dir, environment, user and code (every loaded module's file) stats the traced paths again and, when every key is
unchanged, writes the stored answer instead of loading the workspace. Anything else (a changed, added or
removed file or folder, a racily clean key, a damaged memo) runs the command. `--no-cache` skips it.
"""
from __future__ import annotations

import argparse
import binascii
import json
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO, Callable, TextIO

from skillmanager import __version__
from skillmanager.core.load import cache_file
from skillmanager.core.load.input_trace import STAT, InputTrace, recording, still_valid
from skillmanager.core.load.parse_cache import app_cache_dir

FORMAT = 2  # in the caches' format (core/load/cache_file.py); 1: JSON (memo-*.json, removed when a memo is stored)
KEPT_MEMOS = 16  # one per distinct command line; the oldest beyond these are removed


def memo_key(args: argparse.Namespace, out: TextIO) -> dict[str, Any]:
    """Everything besides the files read that decides the answer."""
    options = {name: value for name, value in sorted(vars(args).items()) if not name.startswith("_")}
    isatty = getattr(out, "isatty", None)
    return {"format": FORMAT, "version": __version__, "python": sys.version, "executable": sys.executable,
            "options": json.loads(json.dumps(options, default=str)), "cwd": os.getcwd(),
            "env": dict(os.environ), "uid": os.getuid() if hasattr(os, "getuid") else None,
            "tty": bool(isatty and isatty())}


class _Tee:
    """Writes go through to `inner` and are kept."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self._inner.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def run_or_replay(args: argparse.Namespace, out: TextIO, run: Callable[[argparse.Namespace, TextIO], int],
                  directory: Path | None = None) -> int:
    directory = directory if directory is not None else app_cache_dir()
    key = memo_key(args, out)
    file = directory / f"memo-{binascii.crc32(json.dumps(key, sort_keys=True).encode('utf-8', 'surrogatepass')):08x}.bin"
    stored = _load(file, key)
    if stored is not None:
        out.write(stored["stdout"])
        sys.stderr.write(stored["stderr"])
        return int(stored["code"])
    try:
        from skillmanager.core.app_dirs import new_private_file  # only when the command runs (a replay never writes)

        directory.mkdir(parents=True, exist_ok=True)
        probe_fd, temp = new_private_file(directory, ".memo-")
    except OSError:
        return run(args, out)  # no cache dir: run without a memo
    trace = InputTrace(ignored_prefixes=(os.fspath(directory),))
    tee_out, tee_err, real_err = _Tee(out), _Tee(sys.stderr), sys.stderr
    stored_ok = False
    handle = os.fdopen(probe_fd, "wb")  # the probe becomes the memo: closed exactly once
    try:
        sys.stderr = tee_err  # type: ignore[assignment]
        try:
            with recording(trace, probe_fd):
                code = run(args, tee_out)
        finally:
            sys.stderr = real_err
        if code in (0, 1):
            _note_code(trace)
            if trace.reusable():
                document = {"format": FORMAT, "key": key, "inputs": trace.to_json(),
                            "stdout": "".join(tee_out.parts), "stderr": "".join(tee_err.parts), "code": code}
                stored_ok = _store(handle, temp, file, document)
        return code
    finally:
        handle.close()
        if stored_ok:
            _prune(directory)
        else:
            try:
                os.unlink(temp)
            except OSError:
                pass


def _note_code(trace: InputTrace) -> None:
    """The code that ran is an input too (an edited checkout, an upgraded PyYAML): every loaded module's file."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            trace.note(STAT, file)


def _load(file: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    try:
        with open(file, "rb") as handle:
            data = cache_file.loads(handle.read())
    except (OSError, ValueError):
        return None  # none yet, or damaged: the command runs and a new memo replaces it
    if (type(data) is not dict or data.get("format") != FORMAT or data.get("key") != key
            or type(data.get("stdout")) is not str or type(data.get("stderr")) is not str
            or type(data.get("code")) is not int):
        return None
    return data if still_valid(data.get("inputs")) else None


def _store(handle: BinaryIO, temp: str, file: Path, document: dict[str, Any]) -> bool:
    try:
        cache_file.write(handle, document)
        handle.close()
        os.replace(temp, file)
        return True
    except (OSError, ValueError, TypeError):
        return False


def _prune(directory: Path) -> None:
    try:
        with os.scandir(directory) as entries:
            names = [(entry.name, entry.path) for entry in entries if entry.name.startswith("memo-")]
        memos = sorted((os.stat(path).st_mtime_ns, path) for name, path in names if name.endswith(".bin"))
        stale = [path for name, path in names if name.endswith(".json")]  # format 1 (JSON): never read again
        for path in stale + [path for _mtime, path in memos[:-KEPT_MEMOS]]:
            os.unlink(path)
    except OSError:
        pass
