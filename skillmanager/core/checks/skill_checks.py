"""One skill's checks for a browsing UI: the security audit and Claude Code's lint, cached per file.

The desktop app shows a badge per skill in its tree; computing it must not re-read unchanged
files on every rescan, so results are cached by the key of audit.prepare_audit: (device, inode, size,
mtime_ns, ctime_ns, path) of the skill file and of every entry of its folder — any edit, added,
removed or replaced file re-audits the skill.
The level that decides the badge is decided here, not in the UI.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .audit import AuditCacheKey, AuditFinding, PreparedAudit, audit_skill, level_index, prepare_audit
from ..model import Diagnostic, Severity
from ..versions.profiles import Profile

# Badge levels, worst first: what a person should do about the skill.
DANGER = "danger"  # audit high/critical: read it before you use it
ERROR = "error"  # a loader or lint error (front matter that does not parse…): Claude Code does not read it as written
WARNING = "warning"  # audit medium, a lint error or warning: something is off
NOTE = "note"  # audit low/info, lint info: worth knowing
BADGE_LEVELS = (DANGER, ERROR, WARNING, NOTE)

_AUDIT_BADGE = {"critical": DANGER, "high": DANGER, "medium": WARNING, "low": NOTE, "info": NOTE}
_LINT_BADGE = {Severity.ERROR: ERROR, Severity.WARNING: WARNING, Severity.INFO: NOTE}


@dataclass(frozen=True)
class SkillChecks:
    path: Path
    findings: tuple[AuditFinding, ...] = ()  # audit, worst first
    lint: tuple[Diagnostic, ...] = ()  # Claude Code lint not already reported by the loader
    loader: tuple[Diagnostic, ...] = ()  # what the registry loader reported (parse errors…), shown first
    notes: tuple[str, ...] = ()  # files the audit skipped, checks that could not run
    hidden_unicode: bool = False  # the audit found invisible / direction-changing characters
    badge: str | None = None  # DANGER | ERROR | WARNING | NOTE | None
    audit_max: str | None = None  # the worst audit severity (info … critical)

    @property
    def count(self) -> int:
        return len(self.findings) + len(self.lint) + len(self.loader)

    def summary_lines(self, limit: int = 12) -> list[str]:
        """Plain one-liners: loader problems, audit findings (worst first), then lint."""
        def diagnostic(d: Diagnostic) -> str:
            return f"{d.severity.value} — {d.message}" + (f" (line {d.line})" if d.line else "")

        lines = [diagnostic(d) for d in self.loader]
        for f in self.findings:
            where = f.file.name + (f":{f.line}" if f.line else "")
            lines.append(f"{f.severity} — {f.message} ({where})")
        lines += [diagnostic(d) for d in self.lint]
        if len(lines) > limit:
            lines = lines[:limit] + [f"… and {len(lines) - limit} more"]
        return lines


def badge_for(findings: Iterable[AuditFinding], lint: Iterable[Diagnostic]) -> str | None:
    levels = [_AUDIT_BADGE[f.severity] for f in findings] + [_LINT_BADGE[d.severity] for d in lint]
    return min(levels, key=BADGE_LEVELS.index, default=None)


def check_skill(path: Path, *, kind: str = "skill", name: str | None = None, profile: Profile | None = None,
                known: Iterable[Diagnostic] = (), prepared: PreparedAudit | None = None) -> SkillChecks:
    """Audit + lint one skill file. `known`: diagnostics the loader already reported (not repeated); `prepared`: the
    file's audit.prepare_audit, when its key was just worked out. Never raises: a check that fails becomes a note."""
    from .validate import lint_claude_code

    path = path if isinstance(path, Path) else Path(path)  # a new Path would parse its text again at every str()
    known = tuple(known)
    notes: list[str] = []
    findings: list[AuditFinding] = []
    try:
        report = audit_skill(path, name=name, prepared=prepared)
        findings = list(report.findings)
        notes.extend(report.notes)
    except Exception as error:  # noqa: BLE001 - a bad file must not stop the other checks
        notes.append(f"the audit could not run: {error!r}")
    lint: list[Diagnostic] = []
    try:
        seen = {(d.code, d.line) for d in known} | {d.code for d in known}
        for d in lint_claude_code(path, profile=profile, kind=kind, name=name):
            if (d.code, d.line) in seen or d.code in seen:
                continue
            lint.append(d)
    except Exception as error:  # noqa: BLE001
        notes.append(f"the lint could not run: {error!r}")
    audit_max = max((f.severity for f in findings), key=level_index, default=None)
    known = tuple(known)
    return SkillChecks(path, tuple(findings), tuple(lint), known, tuple(notes),
                       any(f.rule == "hidden-unicode" for f in findings), badge_for(findings, lint + list(known)),
                       audit_max)


def _prepared(path: Path) -> PreparedAudit | None:
    try:
        os.stat(path)
    except OSError:
        return None
    return prepare_audit(path)


def checked(path: Path, *, kind: str = "skill", name: str | None = None, profile: Profile | None = None,
            known: Iterable[Diagnostic] = (), prepared: PreparedAudit | None = None
            ) -> tuple[AuditCacheKey | None, SkillChecks]:
    """check_skill with the stamp it was made against (None: the file cannot be stat'ed): a ChecksCache entry. The
    folder is walked once, for the stamp and the audit both (`prepared`: that walk, when the caller just made it,
    as ChecksCache.lookup does for a stale entry). The app's checks process answers with this too."""
    path = path if isinstance(path, Path) else Path(path)  # one object for the walk and the audit
    if prepared is None or (prepared.skill_md is not path and prepared.skill_md != path):
        prepared = _prepared(path)
    return (prepared.key if prepared is not None else None,
            check_skill(path, kind=kind, name=name, profile=profile, known=known, prepared=prepared))


# (path, kind, name, profile name, the known diagnostics' (code, line))
ChecksKey = tuple[str, str, str | None, str | None, tuple[tuple[str, int | None], ...]]


@dataclass
class ChecksCache:
    """Thread-safe cache of check_skill results keyed by file, valid while its stamp is unchanged."""

    _entries: dict[ChecksKey, tuple[AuditCacheKey, SkillChecks]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    hits: int = 0
    misses: int = 0

    @staticmethod
    def key(path: Path, *, kind: str = "skill", name: str | None = None, profile: Profile | None = None,
            known: Iterable[Diagnostic] = ()) -> ChecksKey:
        return (str(path), kind, name, profile.name if profile is not None else None,
                tuple((d.code, d.line) for d in known))

    def holds(self, key: ChecksKey) -> bool:
        """Whether a result is stored for `key` (current or not: no stat)."""
        with self._lock:
            return key in self._entries

    def cached(self, key: ChecksKey, path: Path | None = None) -> SkillChecks | None:
        """The stored result while the file's stamp is unchanged (a stat of the file and its folder's entries); None
        when it changed or nothing is stored (then without a stat). `path`: the key's file, when the caller has it
        as a Path (a new one would parse its text again)."""
        return self.lookup(key, path)[0]

    def lookup(self, key: ChecksKey, path: Path | None = None) -> tuple[SkillChecks | None, PreparedAudit | None]:
        """cached(), with the walk a stale entry was found by (None when nothing was stored or it could not be
        stat'ed): checked(prepared=) re-checks the file without walking its folder again (a watcher's edit)."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None, None
        prepared = _prepared(path if path is not None else Path(key[0]))
        if prepared is None or prepared.key != entry[0]:
            return None, prepared
        with self._lock:
            self.hits += 1
        return entry[1], prepared

    def store(self, key: ChecksKey, stamp: AuditCacheKey | None, result: SkillChecks) -> None:
        """`result` was made against `stamp` (checked()); a file that could not be stat'ed is not stored."""
        with self._lock:
            self.misses += 1
            if stamp is not None:
                if len(self._entries) > 50_000:
                    self._entries.clear()
                self._entries[key] = (stamp, result)

    def get(self, path: Path, *, kind: str = "skill", name: str | None = None, profile: Profile | None = None,
            known: Iterable[Diagnostic] = ()) -> SkillChecks:
        known = tuple(known)
        path = path if isinstance(path, Path) else Path(path)  # one object for the key, the walk and the audit
        key = self.key(path, kind=kind, name=name, profile=profile, known=known)
        result, prepared = self.lookup(key, path)
        if result is None:
            stamp, result = checked(path, kind=kind, name=name, profile=profile, known=known, prepared=prepared)
            self.store(key, stamp, result)
        return result
