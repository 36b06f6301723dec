"""A persistent cache of audit reports, so a repeat audit stats a skill's files instead of reading them.

It is the parse cache's store (load/parse_cache: one file in the app's cache dir in the caches' format,
core/load/cache_file.py; atomic writes, a corrupt file ignored, plain data only) with the audit's key: the path, the name it is audited under and
(device, inode, size, mtime_ns, ctime_ns) of the skill file and of every entry of its folder
(audit.prepare_audit). Its context holds skillmanager's version and a digest of the audit rules'
source, so a rule change never serves an old verdict. An entry any of whose files changed within the
cache file's own timestamp tick is racily clean and audited again.
"""
from __future__ import annotations

import binascii
import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..load.parse_cache import ParseCache, app_cache_dir
from .audit_base import AuditFinding, SkillAudit

if TYPE_CHECKING:
    from .audit import AuditCacheKey

FORMAT = 2  # 1: JSON (audit-*.json, removed at the next save)
_RULE_MODULES = ("audit.py", "audit_base.py", "audit_commands.py", "audit_scan.py", "audit_secrets.py",
                 "audit_text.py", "audit_cache.py")


def rules_digest() -> str:
    """What the verdicts depend on besides the files: the rule modules' source (the version where frozen)."""
    from ... import __version__

    digest = hashlib.sha1(__version__.encode())
    here = Path(__file__).parent
    for name in _RULE_MODULES:
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            pass  # a frozen build without sources: the version decides
    return digest.hexdigest()


class AuditCache(ParseCache):
    """`get(skill_md, name)` / `put(skill_md, name, report)`; `save()` when anything changed."""

    @classmethod
    def open_for_audit(cls, directory: Path | None = None) -> "AuditCache":
        context = ("audit", FORMAT, rules_digest(), "%d.%d" % sys.version_info[:2])  # each Python its own file
        directory = directory if directory is not None else app_cache_dir()
        digest = f"{binascii.crc32(json.dumps(context).encode()):08x}"
        cache = cls(directory / f"audit-{digest}.bin", context)
        cache._load()
        return cache

    def get_audit(self, skill_md: Path, name: str | None, key: AuditCacheKey) -> SkillAudit | None:
        entry_name = _entry_name(skill_md, name)
        self._used.add(entry_name)
        entry = self.entries.get(entry_name)
        if (type(entry) is list and len(entry) == 2 and entry[0] == _plain(key) and type(entry[1]) is dict
                and all(mtime < self.racy_after and ctime < self.racy_after for mtime, ctime in _stamps(key))):
            try:
                report = _from_json(entry[1])
            except (KeyError, TypeError, ValueError):
                report = None
            if report is not None:
                self.hits += 1
                return report
        self.misses += 1
        return None

    def put_audit(self, skill_md: Path, name: str | None, key: AuditCacheKey, report: SkillAudit) -> None:
        if report.error:  # an unreadable folder is looked at again next time
            return
        entry_name = _entry_name(skill_md, name)
        self.entries[entry_name] = [_plain(key), report.to_json()]
        self._used.add(entry_name)
        self.dirty = True

    def entry_file(self, name: str) -> str:
        return name.partition("\0")[0]


def _entry_name(skill_md: Path, name: str | None) -> str:
    return f"{skill_md}\0{name or ''}"


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, (tuple, list)) else value


def _stamps(key: AuditCacheKey) -> list[tuple[int, int]]:
    """(mtime_ns, ctime_ns) of every stamp of an audit key (audit.prepare_audit); an error stamp counts as racy."""
    found: list[tuple[int, int]] = []
    for part in key:
        rows = part if part and isinstance(part[0], (tuple, list)) else [part]
        for row in rows:
            if len(row) == 6 and isinstance(row[3], int) and isinstance(row[4], int):
                found.append((row[3], row[4]))
            else:
                found.append((1 << 62, 1 << 62))
    return found


def _from_json(data: dict[str, Any]) -> SkillAudit:
    report = SkillAudit(Path(data["target"]), data["name"], notes=list(data["notes"]), error=data["error"])
    report.findings = [AuditFinding(f["rule"], f["severity"], Path(f["file"]), f["line"], f["message"], f["evidence"],
                                    f["context"]) for f in data["findings"]]
    return report


def audit_many(targets: Iterable[tuple[Path, str | None]], *, cache: AuditCache | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[SkillAudit]:
    """audit_skill over (skill file, name) pairs, through `cache` when given (saved at the end);
    `progress(done, total)` after each skill (a GUI shows it; called from the auditing thread)."""
    from .audit import audit_skill, prepare_audit

    targets = list(targets)
    audits = []
    for done, (skill_md, name) in enumerate(targets, 1):
        report = None
        if cache is not None:
            prepared = prepare_audit(skill_md)
            report = cache.get_audit(skill_md, name, prepared.key)
            if report is None:
                report = audit_skill(skill_md, name=name, prepared=prepared)
                cache.put_audit(skill_md, name, prepared.key, report)
        else:
            report = audit_skill(skill_md, name=name)
        audits.append(report)
        if progress is not None:
            progress(done, len(targets))
    if cache is not None:
        cache.save()
    return audits
