"""The History journal: every change skillmanager makes to a user's files, and the way back.

One journal per user, `<app data dir>/history.json`, written by the CLI and the GUI (toggle today;
install, rename, move and remove reuse it). Each entry: an id, the time, the action, a one-line summary
in plain words, and the files changed with their backup path and SHA-256 before and after.

Backups are pruned by the journal's rules: the newest `max_entries` changes younger than `max_days`
keep their backups; older entries stay listed as "no longer restorable" (their backups are deleted),
except that the newest backup of each file is never deleted. Backups no entry refers to (from older
versions) are deleted after `max_days` under the same newest-per-file rule.

`restore(entry_id)` puts the files of an entry back as they were before that change, atomically and
under the same per-file lock as toggles, refusing when a file changed since the entry (unless forced);
the restore is itself an entry. The journal is written atomically under its own lock; a journal that
cannot be read is set aside and reported, never a crash.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import atomic_write
from .file_lock import locked
from ..app_dirs import app_data_dir
from ..load.safe_read import open_regular, read_regular_bytes, special_file_kind

log = logging.getLogger("skillmanager")

JOURNAL_NAME = "history.json"
JOURNAL_VERSION = 1
DEFAULT_MAX_ENTRIES = 200
DEFAULT_MAX_DAYS = 30
MAX_LISTED_ENTRIES = 2000  # expired entries stay listed, but not forever
MAX_ENTRIES_ENV = "SKILLMANAGER_HISTORY_MAX_ENTRIES"
MAX_DAYS_ENV = "SKILLMANAGER_HISTORY_MAX_DAYS"


class HistoryError(RuntimeError):
    """A restore was refused; nothing was changed. The message is one plain paragraph."""


@dataclass
class HistoryPolicy:
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_days: float = DEFAULT_MAX_DAYS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "HistoryPolicy":
        env = os.environ if env is None else env
        policy = cls()
        try:
            policy.max_entries = max(1, int(env.get(MAX_ENTRIES_ENV, policy.max_entries)))
        except ValueError:
            log.warning("%s is not a whole number; keeping %d changes", MAX_ENTRIES_ENV, policy.max_entries)
        try:
            policy.max_days = max(0.0, float(env.get(MAX_DAYS_ENV, policy.max_days)))
        except ValueError:
            log.warning("%s is not a number; keeping %g days", MAX_DAYS_ENV, policy.max_days)
        return policy


@dataclass
class FileChange:
    path: str  # as the user knows it (may be a symlink)
    target: str  # the file really written
    backup: str | None  # copy of the content before the change (None: the file did not exist)
    sha256_before: str | None  # None: the file did not exist
    sha256_after: str | None  # None: the change removed the file

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FileChange":
        return cls(str(data["path"]), str(data.get("target") or data["path"]), data.get("backup"),
                   data.get("sha256_before"), data.get("sha256_after"))


@dataclass
class HistoryEntry:
    id: str
    time: str  # ISO 8601, UTC
    action: str  # "toggle" | "undo" | "restore" | …
    summary: str
    files: list[FileChange] = field(default_factory=list)
    restorable: bool = True
    expired_reason: str | None = None  # why it is no longer restorable

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "time": self.time, "action": self.action, "summary": self.summary,
                "files": [f.to_json() for f in self.files], "restorable": self.restorable,
                "expired_reason": self.expired_reason}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "HistoryEntry":
        return cls(str(data["id"]), str(data["time"]), str(data["action"]), str(data.get("summary", "")),
                   [FileChange.from_json(f) for f in data.get("files", [])], bool(data.get("restorable", True)),
                   data.get("expired_reason"))

    @property
    def when(self) -> _dt.datetime:
        return _dt.datetime.fromisoformat(self.time)


@dataclass
class Journal:
    entries: list[HistoryEntry]
    diagnostics: list[str] = field(default_factory=list)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _journal_path(data_dir: Path) -> Path:
    return data_dir / JOURNAL_NAME


def _data_dir(data_dir: str | os.PathLike[str] | None) -> Path:
    return Path(data_dir) if data_dir is not None else app_data_dir()


def load_journal(data_dir: str | os.PathLike[str] | None = None) -> Journal:
    """The journal's entries, oldest first. A missing journal is empty; one that cannot be read or
    parsed is empty with a diagnostic (the file is left for `record` to set aside)."""
    path = _journal_path(_data_dir(data_dir))
    try:
        kind = special_file_kind(os.stat(path).st_mode)
    except FileNotFoundError:
        return Journal([])
    except OSError as error:
        return Journal([], [f"{path}: cannot be read ({error.strerror or error}); the history is not shown"])
    if kind is not None:  # a FIFO would block the read, a device never end it
        return Journal([], [f"{path}: the history journal is {kind}, not a regular file; it is neither read nor "
                            "replaced. Remove it and a new journal is started at the next change"])
    try:
        raw = read_regular_bytes(path) if os.path.isfile(path) else None
    except OSError as error:
        return Journal([], [f"{path}: cannot be read ({error.strerror or error}); the history is not shown"])
    if raw is None:
        return Journal([])
    try:
        data = json.loads(raw.decode("utf-8"))
        entries = [HistoryEntry.from_json(e) for e in data["entries"]]
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        return Journal([], [f"{path}: the history journal is damaged ({type(error).__name__}: "
                            f"{str(error)[:200]}); it is kept aside and a new one is started at the next change"])
    return Journal(entries)


def _save(data_dir: Path, entries: list[HistoryEntry]) -> None:
    doc = {"version": JOURNAL_VERSION, "entries": [e.to_json() for e in entries]}
    data = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    path = _journal_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write.write_atomic(path, data, create=True)
    try:
        os.chmod(path, 0o600)  # summaries name the user's files
    except OSError:
        pass


def _set_aside_if_damaged(data_dir: Path, journal: Journal) -> None:
    path = _journal_path(data_dir)
    if journal.diagnostics and path.exists():
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = path.with_name(f"history.damaged-{stamp}.json")
        try:
            os.replace(path, aside)
            log.warning("the history journal was damaged; kept as %s, a new one is started", aside)
        except OSError as error:
            log.warning("the history journal is damaged and could not be set aside: %s", error)


def new_entry(action: str, summary: str, files: Iterable[FileChange]) -> HistoryEntry:
    now = _dt.datetime.now(_dt.timezone.utc)
    return HistoryEntry(f"{now.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:6]}", now.isoformat(timespec="seconds"),
                        action, " ".join(summary.split()), list(files))


def record(entry: HistoryEntry, data_dir: str | os.PathLike[str] | None = None,
           policy: HistoryPolicy | None = None) -> HistoryEntry:
    """Append `entry` to the journal (under its lock) and prune by the policy. Raises OSError when the
    journal cannot be written; callers that already changed the user's file log it and carry on."""
    base = _data_dir(data_dir)
    policy = policy or HistoryPolicy.from_env()
    journal_file = _journal_path(base)
    atomic_write.refuse_special(journal_file, "the history journal")  # never set aside or replaced
    with locked(journal_file, base):
        journal = load_journal(base)
        _set_aside_if_damaged(base, journal)
        entries = journal.entries + [entry]
        entries = _prune(base, entries, policy)
        _save(base, entries)
    return entry


def _backup_file(base: Path, name: str | None) -> Path | None:
    if not name:
        return None
    path = Path(name)
    return path if path.is_absolute() else base / atomic_write.BACKUP_DIR_NAME / path


def _prune(base: Path, entries: list[HistoryEntry], policy: HistoryPolicy,
           now: _dt.datetime | None = None) -> list[HistoryEntry]:
    """Expire entries beyond the policy (delete their backups, keep them listed), never deleting the
    newest backup of any file; drop the oldest expired entries past MAX_LISTED_ENTRIES; delete backup
    files no entry refers to once they are older than max_days (same newest-per-file rule)."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    cutoff = now - _dt.timedelta(days=policy.max_days)
    newest_backup: dict[str, str] = {}  # real path of the file -> its newest backup
    for entry in entries:  # oldest first: later ones overwrite
        for change in entry.files:
            if change.backup:
                newest_backup[change.target] = change.backup
    protected = set(newest_backup.values())
    live = [e for e in entries if e.restorable]
    keep_ids = {e.id for e in live[-policy.max_entries:] if _aware(e.when) >= cutoff}
    for entry in entries:
        if not entry.restorable or entry.id in keep_ids:
            continue
        entry.restorable = False
        entry.expired_reason = (f"no longer restorable: older than {policy.max_days:g} days or more than "
                                f"{policy.max_entries} changes ago, so its backups were deleted")
        for change in entry.files:
            if change.backup and change.backup not in protected:
                _unlink_quietly(_backup_file(base, change.backup))
    if len(entries) > MAX_LISTED_ENTRIES:
        entries = entries[-MAX_LISTED_ENTRIES:]
    _prune_unreferenced_backups(base, entries, cutoff)
    return entries


def _aware(when: _dt.datetime) -> _dt.datetime:
    return when if when.tzinfo else when.replace(tzinfo=_dt.timezone.utc)


def _unlink_quietly(path: Path | None) -> None:
    if path is None:
        return
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as error:
        log.warning("could not delete the old backup %s: %s", path, error.strerror or error)


def _prune_unreferenced_backups(base: Path, entries: list[HistoryEntry], cutoff: _dt.datetime) -> None:
    backups = base / atomic_write.BACKUP_DIR_NAME
    index = backups / atomic_write.BACKUP_INDEX_NAME
    if not backups.is_dir():
        return
    referenced = {str(_backup_file(base, c.backup)) for e in entries for c in e.files if c.backup}
    newest: dict[str, str] = {}
    records = []
    try:
        atomic_write.refuse_special(index, "the backup index")
        with open_regular(index) as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record_ = json.loads(line)
                    records.append(record_)
                    newest[str(record_.get("resolved") or record_.get("original"))] = str(record_["backup"])
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue
    except FileNotFoundError:
        return  # without the index the newest backup of a file is unknown: delete nothing
    except OSError as error:
        log.warning("old backups were not pruned: %s", atomic_write.os_error_words(error))
        return
    keep = set(newest.values())
    cutoff_ts = cutoff.timestamp()
    kept_records = []
    for record_ in records:
        name = str(record_.get("backup", ""))
        path = backups / name
        if name in keep or str(path) in referenced or not name:
            kept_records.append(record_)
            continue
        try:
            old = path.stat().st_mtime < cutoff_ts
        except OSError:
            continue  # already gone: drop its index line
        if old:
            _unlink_quietly(path)
        else:
            kept_records.append(record_)
    if len(kept_records) != len(records):
        with locked(index, base):  # backup_previous appends under the same lock
            fresh = read_regular_bytes(index).decode("utf-8", errors="replace").splitlines(keepends=True)
            dropped = {str(r.get("backup")) for r in records} - {str(r.get("backup")) for r in kept_records}
            lines = [line for line in fresh if _backup_name(line) not in dropped]
            atomic_write.write_atomic(index, "".join(lines).encode("utf-8"), create=True)


def _backup_name(line: str) -> str | None:
    try:
        return str(json.loads(line)["backup"])
    except (ValueError, KeyError, TypeError):
        return None


def restore(entry_id: str, data_dir: str | os.PathLike[str] | None = None, *, force: bool = False,
            policy: HistoryPolicy | None = None) -> HistoryEntry:
    """Put every file of entry `entry_id` back as it was before that change (a file the change created
    is removed). Refused (HistoryError, nothing changed) when the entry is unknown or no longer
    restorable, or when a file changed since the entry, unless `force`. Returns the new entry."""
    base = _data_dir(data_dir)
    journal = load_journal(base)
    if journal.diagnostics:
        raise HistoryError(journal.diagnostics[0])
    entry = next((e for e in journal.entries if e.id == entry_id), None)
    if entry is None:
        raise HistoryError(f"No change with id {entry_id!r} in the history.")
    if not entry.restorable:
        raise HistoryError(f"Change {entry_id} is {entry.expired_reason or 'no longer restorable'}.")
    contents: list[tuple[FileChange, bytes | None]] = []
    for change in entry.files:
        if change.sha256_before is None:
            contents.append((change, None))
            continue
        backup = _backup_file(base, change.backup)
        try:
            data = read_regular_bytes(backup) if backup is not None else None
        except OSError as error:
            raise HistoryError(f"The backup of {change.path} ({backup}) cannot be read ({error.strerror or error}); "
                               "nothing was restored.") from None
        if data is None or sha256(data) != change.sha256_before:
            raise HistoryError(f"The backup of {change.path} ({backup}) is missing or was altered; nothing was "
                               "restored.")
        contents.append((change, data))
    written: list[FileChange] = []
    with locked([c.target for c in entry.files], base):
        snaps = []
        for change, _data in contents:
            snap = atomic_write.read_snapshot(change.path, missing_ok=True)
            now_hash = snap.sha256 if snap.exists else None
            if now_hash != change.sha256_after and not force:
                raise HistoryError(f"{change.path} was changed after this change was made, so restoring would lose "
                                   "that later change; nothing was restored. Use --force to restore anyway.")
            snaps.append(snap)
        for (change, data), snap in zip(contents, snaps):
            backup = atomic_write.backup_previous(change.path, snap.data, base) if snap.exists else None
            if data is None:
                if snap.exists:
                    os.unlink(atomic_write.resolve_target(change.path))
            else:
                atomic_write.write_atomic(change.path, data, create=True, expect=None if force else snap)
            written.append(FileChange(change.path, change.target, str(backup) if backup else None,
                                      snap.sha256 if snap.exists else None,
                                      sha256(data) if data is not None else None))
    new = new_entry("restore", f"Restored the files of change {entry.id} ({entry.summary})", written)
    try:
        record(new, base, policy)
    except OSError as error:
        log.warning("the restore was done but the history journal could not be written: %s", error)
    return new
