"""Where a skill installed from git came from: `<app data dir>/installed.json`, never inside the skill.

One record per installed skill folder (keyed by its absolute path): the repository as given, the folder
inside it, the commit installed, and when. Rename and move carry the record along; remove keeps it (a
restore from History brings the folder back at the same path).
"""
from __future__ import annotations

import logging
import datetime as _dt
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..app_dirs import app_data_dir
from ..edit import atomic_write
from ..edit.file_lock import locked

MANIFEST_NAME = "installed.json"

log = logging.getLogger(__name__)


@dataclass
class Provenance:
    source: str  # repository location as given (URL or absolute path)
    subdir: str  # the skill's folder inside the repository ("." for the root)
    commit: str
    installed_at: str
    kind: str = "git"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _path(data_dir: str | os.PathLike[str] | None) -> Path:
    return (Path(data_dir) if data_dir is not None else app_data_dir()) / MANIFEST_NAME


def _key(skill_dir: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(skill_dir)))


def load(data_dir: str | os.PathLike[str] | None = None) -> dict[str, Provenance]:
    path = _path(data_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {k: Provenance(**v) for k, v in data.get("skills", {}).items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError, AttributeError) as error:
        # a damaged manifest only costs the update feature; it is rewritten at the next install
        log.warning("the install record %s cannot be read (%s); updates from git are unknown until the next "
                    "install", path, error)
        return {}


def _save(records: dict[str, Provenance], data_dir: str | os.PathLike[str] | None) -> None:
    path = _path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"version": 1, "skills": {k: v.to_json() for k, v in sorted(records.items())}}
    atomic_write.write_atomic(path, (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8"),
                              create=True)


def lookup(skill_dir: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None) -> Provenance | None:
    return load(data_dir).get(_key(skill_dir))


def record(skill_dir: str | os.PathLike[str], source: str, subdir: str, commit: str,
           data_dir: str | os.PathLike[str] | None = None) -> Provenance:
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    entry = Provenance(source, subdir, commit, now)
    path = _path(data_dir)
    with locked(path, path.parent):
        records = load(data_dir)
        records[_key(skill_dir)] = entry
        _save(records, data_dir)
    return entry


def move(old_dir: str | os.PathLike[str], new_dir: str | os.PathLike[str], *, keep_old: bool = False,
         data_dir: str | os.PathLike[str] | None = None) -> None:
    path = _path(data_dir)
    with locked(path, path.parent):
        records = load(data_dir)
        entry = records.get(_key(old_dir))
        if entry is None:
            return
        if not keep_old:
            del records[_key(old_dir)]
        records[_key(new_dir)] = entry
        _save(records, data_dir)
