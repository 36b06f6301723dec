"""A persistent cache of parsed SKILL.md files, so a repeat scan stats files instead of reading them.

One file per parse context (skillmanager's version, the Python that writes it and the profile's parse-affecting
features) under the app's cache dir, in the caches' format (core/load/cache_file.py: marshal behind a checksum).
An entry is keyed by the path and (device, inode, size, mtime_ns, ctime_ns) of the file; it holds only plain
data (front matter, diagnostics, where the body starts, the body's first line), never code. It is never served
stale:
- any change to the stat key (an edit, a rename over the file, a chmod that moves ctime) is a miss;
- an entry whose mtime or ctime is not older than the cache file's own mtime is "racily clean" (as git
  treats index entries): the file may have been written again within the same timestamp tick, so it is
  re-read instead;
- a corrupt or foreign cache file is ignored and rebuilt; writers replace the file atomically, so
  concurrent processes see either the old or the new whole file (the last writer wins).
"""
from __future__ import annotations

import binascii
import contextvars
import json
import os
import re
import stat
import sys
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, Mapping

from . import cache_file
from ..versions.features import Feature

if TYPE_CHECKING:
    import logging

    from ..versions.profiles import Profile

FORMAT = 2  # 1: JSON (parse-*.json, removed at the next save)
_JSON_CACHE_NAME = re.compile(r"[0-9a-f]{8}\.json")
CACHE_DIR_ENV = "SKILLMANAGER_CACHE_DIR"
# Profile fields that change what a file parses to (used until profiles name their feature sets).
# The release features a cached parse depends on (front matter, body offset, parse diagnostics).
PARSE_FEATURES = (Feature.STRIPS_BOM, Feature.LENIENT_BOOLEANS, Feature.YAML_LAST_KEY_WINS)

StatKey = tuple[int, int, int, int, int]
ParseContext = tuple[object, ...]  # plain values (JSON-able) besides the file that decide its entry
# an entry's payload: the plain JSON data skill_file stores (front matter, diagnostics, body offset, size)
Payload = dict[str, Any]
# a parse made by another process for this scan (core/load/parse_ahead.py): the file's stat key when it was
# read, the payload, and the file's st_mode when its path is no symbolic link (the stat is its lstat), else -1
Primed = tuple[StatKey, Payload, int]


def _log() -> "logging.Logger":
    """This module's logger (logging is imported when there is something to say: a replayed answer, which only
    asks for app_cache_dir, never loads it)."""
    import logging

    return logging.getLogger(__name__)


def app_cache_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """$SKILLMANAGER_CACHE_DIR, else Linux/BSD `$XDG_CACHE_HOME/skillmanager` (default ~/.cache),
    macOS ~/Library/Caches/skillmanager, Windows %LOCALAPPDATA%\\skillmanager\\Cache."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if env.get(CACHE_DIR_ENV):
        return Path(env[CACHE_DIR_ENV]).expanduser()
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Caches" / "skillmanager"
    if platform.startswith("win"):
        local = env.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "skillmanager" / "Cache"
    xdg = env.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg and os.path.isabs(xdg) else home / ".cache") / "skillmanager"


def parse_context(profile: Profile) -> ParseContext:
    """What besides the file decides its parse: skillmanager's version and the profile's parse features."""
    from ... import __version__
    features = tuple((feature.value, profile.supports(feature)) for feature in PARSE_FEATURES)
    # the Python too: two Pythons sharing the cache dir keep a file each (each reads only its own marshal)
    return (__version__, FORMAT, features, "%d.%d" % sys.version_info[:2])


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class ParseCache:
    """Entries of one parse context; `get` / `put` by path and stat key, `save` when anything changed."""

    def __init__(self, file: Path | None, context: ParseContext) -> None:
        self.file = file
        self.context = list(_jsonable(context))
        self.entries: dict[str, list[Any]] = {}  # path -> [stat key as a list, payload] (as JSON holds it)
        self.racy_after = 0  # mtime_ns of the cache file as loaded: entries not older than it are re-read
        self.dirty = False
        self._servable = False  # see can_serve
        self._used: set[str] = set()  # entries this process looked up or stored (their files exist)
        self._pruned = False  # entries of files that are gone are dropped at the first save
        self.hits = 0
        self.misses = 0
        # parses made for this scan by another process (parse_ahead): path -> (stat key, payload); served
        # when the file's key is the same, and kept as entries then
        self.primed: dict[str, Primed] = {}
        self.primed_hits = 0

    @classmethod
    def open(cls, profile: Profile, directory: Path | None = None) -> "ParseCache":
        context = parse_context(profile)
        # a short name per context (the context itself is stored in the file and checked on load)
        digest = f"{binascii.crc32(json.dumps(_jsonable(context)).encode()):08x}"
        directory = directory if directory is not None else app_cache_dir()
        cache = cls(directory / f"parse-{digest}.bin", context)
        cache._load()
        return cache

    def _load(self) -> None:
        if self.file is None:
            return
        try:
            with open(self.file, "rb") as handle:
                st = os.fstat(handle.fileno())
                data = cache_file.loads(handle.read())
        except FileNotFoundError:
            return  # no cache yet
        except OSError as error:
            _log().warning("the parse cache %s cannot be used (%s); skills are read from their files and the cache "
                           "is rewritten", self.file, error.strerror or error)
            return
        except ValueError as error:
            data = error
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
            _log().warning("the parse cache %s is damaged (%s); skills are read from their files and the cache is "
                           "rewritten", self.file, data if isinstance(data, ValueError) else "not what it holds")
            return
        if data.get("context") != self.context:
            return  # another profile's cache under a clashing short name: not a problem, just not ours
        self.entries = data["entries"]
        self.racy_after = st.st_mtime_ns
        self._servable = bool(self.entries)

    def get(self, path: str, key: StatKey) -> Payload | None:
        self._used.add(path)
        if self.primed:
            primed = self.primed.get(path)
            if primed is not None and primed[0] == key:  # read just now, unchanged since: no racy window
                return self._keep_primed(path, primed)
        payload = self._fresh(self.entries.get(path), key)
        if payload is not None:
            self.hits += 1
            return payload
        self.misses += 1
        return None

    def _fresh(self, entry: Any, key: StatKey) -> Payload | None:
        """The payload of an entry for exactly this stat key, written after the file last changed (not
        racily clean)."""
        if (type(entry) is list and len(entry) == 2 and entry[0] == list(key)
                and key[3] < self.racy_after and key[4] < self.racy_after and type(entry[1]) is dict):
            payload: Payload = entry[1]
            return payload
        return None

    def can_serve(self) -> bool:
        """Whether get() may answer at all: a cache that held nothing when the scan began (a first run) serves
        nothing in it (its new entries are for files that scan reads itself)."""
        return self._servable

    def serves(self, path: str) -> bool:
        """Whether get() would answer for the regular file at `path` as it is now (nothing counted): such a
        file is not read, so reading it ahead would be wasted."""
        try:
            st = os.stat(path)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) and self._fresh(self.entries.get(path), stat_key(st)) is not None

    def put(self, path: str, key: StatKey, payload: Payload) -> None:
        """Values the caches' format cannot hold (dates from YAML tags) are dropped at save."""
        self.entries[path] = [list(key), payload]
        self._used.add(path)
        self.dirty = True

    def prime(self, parses: dict[str, Primed]) -> None:
        """Parses of files read for this scan by another process (core/load/parse_ahead.py), each with the
        stat key its file had when it was read."""
        self.primed.update(parses)

    def take_primed(self, path: str) -> Primed | None:
        """The parse another process made of the file at `path` when that path is no symbolic link (its stat
        is the lstat this process would make: the caller notes it in the input trace), kept as the file's
        entry; None otherwise (get() then serves it only for the file's key as it is now)."""
        primed = self.primed.get(path)
        if primed is None or primed[2] < 0:
            return None
        self._used.add(path)
        self._keep_primed(path, primed)
        return primed

    def _keep_primed(self, path: str, primed: Primed) -> Payload:
        """A primed parse served: it becomes the file's entry (saved for the next run)."""
        del self.primed[path]
        self.entries[path] = [list(primed[0]), primed[1]]
        self.dirty = True
        self.primed_hits += 1
        return primed[1]

    def entry_file(self, name: str) -> str:
        """The file an entry is about (the entry's name here)."""
        return name

    def _drop_gone(self) -> None:
        """Drop the entries of files that no longer exist (a deleted project, a temporary folder), so the cache
        does not grow with every path it ever saw. One lstat per entry this process did not use, at its first
        save only."""
        self._pruned = True
        lexists = os.path.lexists
        gone = [name for name in self.entries if name not in self._used and not lexists(self.entry_file(name))]
        for name in gone:
            del self.entries[name]

    def _write(self, handle: BinaryIO) -> None:
        """The file's bytes; entries holding a value that would not come back as it was are left out."""
        def document() -> dict[str, Any]:
            return {"format": FORMAT, "context": self.context, "entries": self.entries}
        try:
            cache_file.write(handle, document())
        except ValueError:  # a value marshal cannot hold (a date from a YAML tag)
            self.entries = {path: entry for path, entry in self.entries.items() if cache_file.can_hold(entry)}
            cache_file.write(handle, document())

    def save(self) -> None:
        """Write atomically (temp file + rename); errors are ignored: the cache is only an optimisation."""
        if not self.dirty or self.file is None:
            return
        if not self._pruned:
            self._drop_gone()
        try:
            from ..app_dirs import new_private_file
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = new_private_file(self.file.parent, ".parse-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    self._write(handle)
                os.replace(temp, self.file)
                self._servable = bool(self.entries)
                _remove_json_caches(self.file.parent, self.file.name.partition("-")[0])
            except BaseException:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
                raise
        except (OSError, ValueError, TypeError, RecursionError) as error:
            _log().info("parse cache %s not saved (%s): the next scan reads every file again", self.file, error)
            return
        self.dirty = False


def _remove_json_caches(directory: Path, kind: str) -> None:
    """The caches of this kind ("parse", "audit") skillmanager wrote as JSON (`<kind>-<8 hex digits>.json`,
    format 1): never read again."""
    try:
        with os.scandir(directory) as entries:
            stale = [entry.path for entry in entries if entry.name.startswith(kind + "-")
                     and _JSON_CACHE_NAME.fullmatch(entry.name[len(kind) + 1:])]
        for path in stale:
            os.unlink(path)
    except OSError:
        pass


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted(_jsonable(v) for v in value)
    return value


_ACTIVE: contextvars.ContextVar[ParseCache | None] = contextvars.ContextVar("skillmanager_parse_cache", default=None)


def active() -> ParseCache | None:
    return _ACTIVE.get()


class using:
    """`with using(cache): load_registry(...)`: scans inside read through `cache` and save it at the end."""

    def __init__(self, cache: ParseCache | None) -> None:
        self.cache = cache
        self._token: contextvars.Token[ParseCache | None] | None = None

    def __enter__(self) -> ParseCache | None:
        self._token = _ACTIVE.set(self.cache)
        return self.cache

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
        if self.cache is not None and exc_type is None:
            self.cache.save()
