"""What the audit derives from its own rules' regexes (audit_words' word gates, audit_needles' needle clauses),
kept between processes in the app's cache dir.

Deriving them takes ~0.7 s of CPU, paid by the first skill each process audits (`skillmanager audit` on one
skill, the app's first badges). They depend only on the rules' patterns and flags, on the code that derives
them and on Python's `re` parser and Unicode tables, so the file is named by a digest of those modules' source
and the Python version, and each entry is keyed by its pattern and flags: an edited rule or deriver is derived
again, never served stale. JSON only (nothing runs on load); a file that cannot be read or decoded is ignored
and written again; written atomically, so concurrent processes at worst derive twice.
SKILLMANAGER_NO_RULE_CACHE=1 derives them in every process (to measure or debug the derivation).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..load.parse_cache import app_cache_dir

T = TypeVar("T")
_DERIVERS = ("audit_words.py", "audit_needles.py")  # the modules whose code decides what is derived
_state: dict[str, Any] = {"entries": None, "dirty": False, "file": None}
_lock = threading.Lock()  # the app audits in worker threads: one writes the file while another may derive


def _digest() -> str:
    hasher = hashlib.sha256(repr(sys.version_info[:3]).encode())
    here = Path(__file__).resolve().parent
    for name in _DERIVERS:
        try:
            hasher.update((here / name).read_bytes())
        except OSError:  # a frozen app ships no sources: its code cannot change, its version stands for it
            from skillmanager import __version__
            hasher.update(f"{name} {__version__}".encode())
    return hasher.hexdigest()[:20]


def _entries() -> dict[str, Any]:
    entries: dict[str, Any] | None = _state["entries"]
    if entries is None:
        entries = {}
        if not os.environ.get("SKILLMANAGER_NO_RULE_CACHE"):
            path = app_cache_dir() / f"audit-rules-{_digest()}.json"
            _state["file"] = path
            try:
                with open(path, "rb") as handle:
                    loaded = json.loads(handle.read(64 * 1024 * 1024))
                if isinstance(loaded, dict):
                    entries = loaded
            except (OSError, ValueError):
                pass  # absent or damaged: derived again and rewritten
        _state["entries"] = entries
    return entries


def derived(kind: str, regex: re.Pattern[str], derive: Callable[[], T], encode: Callable[[T], Any],
            decode: Callable[[Any], T]) -> T:
    """`derive()`'s result for this regex, from the file when an earlier process derived it."""
    entries = _entries()
    key = f"{kind}\0{regex.flags}\0{regex.pattern}"
    stored = entries.get(key)
    if stored is not None:
        try:
            return decode(stored)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            pass  # a damaged entry: derived again
    value = derive()
    encoded = encode(value)
    with _lock:
        entries[key] = encoded
        _state["dirty"] = True
    return value


def save() -> None:
    """Write what was derived since the file was read (after a batch of derivations)."""
    path = _state["file"]
    with _lock:
        if not _state["dirty"] or path is None:
            return
        _state["dirty"] = False
        text = json.dumps(_state["entries"], separators=(",", ":"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".audit-rules-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass  # a read-only or full cache dir: the next process derives again


# --- encodings (JSON has no bytes, tuples or sets: bytes as Latin-1 text, sets as sorted lists) -----------

def _b(items: Any) -> list[str]:
    return sorted(item.decode("latin-1") for item in items)


def _ub(items: list[str]) -> frozenset[bytes]:
    return frozenset(item.encode("latin-1") for item in items)


def encode_branches(branches: Any) -> Any:
    return [[[[_b(group.words), sorted(group.chars)] for group in cnf] for cnf in dnf] for dnf in branches]


def decode_branches(data: Any, group: Callable[[frozenset[bytes], frozenset[str]], Any]) -> Any:
    return tuple(tuple(tuple(group(_ub(words), frozenset(chars)) for words, chars in cnf) for cnf in dnf)
                 for dnf in data)


def encode_clauses(clauses: Any) -> Any:
    return [[[[needle, _b(needs), sorted(foreign), [s.decode("latin-1") for s in steps]]
              for needle, needs, foreign, steps in clause[0]], [list(group) for group in clause[1]]]
            if clause else [] for clause in clauses]


def decode_clauses(data: Any) -> Any:
    return tuple((tuple((str(needle), _ub(needs), frozenset(foreign), tuple(s.encode("latin-1") for s in steps))
                        for needle, needs, foreign, steps in clause[0]),
                  tuple(tuple(group) for group in clause[1])) if clause else ()
                 for clause in data)
