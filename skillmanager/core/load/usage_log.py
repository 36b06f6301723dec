"""How often each skill was used, read from Claude Code's own session transcripts.

Claude Code appends every session to `<config home>/projects/<project slug>/<session id>.jsonl`, one
JSON object a line (format recorded from 2.1.88 and 2.1.332: tests/golden/transcripts/). Two kinds of
line say a skill was used:
- the model called the Skill tool: a `"type": "assistant"` line whose `message.content` holds a
  `tool_use` block named `Skill` with `input.skill` = the skill's name;
- the user typed `/name`: a `"type": "user"` line (not `isMeta`) whose `message.content` holds
  `<command-name>/name</command-name>`.
Everything else (attachments, request snapshots, bookkeeping) is skipped unparsed. The files are only
read, line by line, and every read is bounded (UsageLimits); a line that is not a JSON object is
counted as malformed and skipped. A tool call or typed command seen twice (a resumed or forked session
copies earlier lines) counts once. Only `projects/<slug>/*.jsonl` is read: sub-agent sessions kept in
folders beside a session file are not (their format was not recorded).
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..model import Skill

from .usage_window import DEFAULT_DAYS as DEFAULT_DAYS  # its home; imported from here too

_SKILL_MARKER = b'"Skill"'
_COMMAND_MARKER = b"<command-name>"
_COMMAND_NAME = re.compile(r"<command-name>/?([^<\n]{1,512})</command-name>")


@dataclass(frozen=True)
class UsageLimits:
    """Caps that keep one odd file or a huge history from freezing a scan (docs/limits.md)."""

    max_files: int = 5_000  # newest transcripts first
    max_dir_entries: int = 200_000  # entries looked at under projects/, all levels together
    max_file_bytes: int = 256 * 1024 * 1024  # bytes read from one transcript
    max_lines: int = 2_000_000  # lines read from one transcript
    max_line_bytes: int = 4 * 1024 * 1024  # a longer line is skipped without being held in memory


@dataclass(frozen=True)
class SkillUsage:
    by_model: int = 0
    typed: int = 0
    last_used: datetime | None = None

    @property
    def total(self) -> int:
        return self.by_model + self.typed

    def to_json(self) -> dict[str, Any]:
        return {"by_model": self.by_model, "typed": self.typed, "total": self.total,
                "last_used": self.last_used.isoformat().replace("+00:00", "Z") if self.last_used else None}


NEVER = SkillUsage()


@dataclass
class UsageLog:
    days: int
    since: datetime
    counts: dict[str, SkillUsage] = field(default_factory=dict)
    files_read: int = 0
    files_skipped: int = 0  # over max_files, older than the window, or not regular files
    malformed_lines: int = 0
    long_lines: int = 0  # over max_line_bytes, skipped
    cut_files: int = 0  # stopped at max_file_bytes or max_lines
    problems: list[str] = field(default_factory=list)  # one sentence each (unreadable folders, files)

    def of(self, name: str) -> SkillUsage:
        return self.counts.get(name, NEVER)

    def to_json(self) -> dict[str, Any]:
        return {"days": self.days, "since": self.since.isoformat().replace("+00:00", "Z"),
                "files_read": self.files_read, "files_skipped": self.files_skipped,
                "malformed_lines": self.malformed_lines, "long_lines": self.long_lines,
                "cut_files": self.cut_files, "problems": list(self.problems)}


def usage_words(usage: SkillUsage, days: int = DEFAULT_DAYS) -> str:
    """The Used column: "used 14× in 30 days", or "never" (not once in the window)."""
    if usage.total == 0:
        return "never"
    return f"used {usage.total:,}× in {days} day{'s' if days != 1 else ''}"


def usage_short(usage: SkillUsage) -> str:
    """The same count for a narrow column whose header says the window: "14×" or "never"."""
    return f"{usage.total:,}×" if usage.total else "never"


def usage_detail(usage: SkillUsage, days: int = DEFAULT_DAYS) -> str:
    """One sentence for a tooltip: who used it and when last."""
    if usage.total == 0:
        return f"Never: not used in the last {days} days, by Claude or by typing /name (from Claude Code's session logs)."
    last = usage.last_used.strftime("%Y-%m-%d") if usage.last_used else "unknown"
    return (f"{usage_words(usage, days).capitalize()}: Claude called it {usage.by_model:,}× and it was typed as /name "
            f"{usage.typed:,}×; last used {last} (from Claude Code's session logs).")


def read_usage(config_home: str | os.PathLike[str], days: int = DEFAULT_DAYS, now: datetime | None = None,
               limits: UsageLimits = UsageLimits()) -> UsageLog:
    """Counts per skill name over the `days` before `now` (default: the current time, UTC)."""
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    since = now - timedelta(days=days)
    log = UsageLog(days=days, since=since)
    seen: set[str] = set()
    by_model: dict[str, int] = {}
    typed: dict[str, int] = {}
    last: dict[str, datetime] = {}
    files = _transcripts(Path(config_home) / "projects", since.timestamp(), limits, log)
    for path, mtime in files:
        fallback = datetime.fromtimestamp(mtime, timezone.utc)
        for kind, event_id, name, when in _events(path, limits, log):
            if event_id in seen:
                continue
            when = when or fallback
            if when < since or when > now:
                continue
            seen.add(event_id)
            (by_model if kind == "model" else typed)[name] = (by_model if kind == "model" else typed).get(name, 0) + 1
            if name not in last or when > last[name]:
                last[name] = when
    for name in set(by_model) | set(typed):
        log.counts[name] = SkillUsage(by_model.get(name, 0), typed.get(name, 0), last.get(name))
    return log


def _transcripts(projects: Path, since_ts: float, limits: UsageLimits, log: UsageLog) -> list[tuple[Path, float]]:
    """`projects/*/*.jsonl` regular files written inside the window, newest first, at most max_files."""
    found: list[tuple[float, Path]] = []
    looked = 0
    try:
        slugs = os.scandir(projects)
    except FileNotFoundError:
        return []
    except OSError as error:
        log.problems.append(f"Claude Code's session logs cannot be read ({error.strerror or error}): {projects}")
        return []
    with slugs:
        for slug in slugs:
            looked += 1
            if looked > limits.max_dir_entries:
                log.problems.append(f"stopped after {limits.max_dir_entries:,} entries under {projects}")
                break
            if not slug.is_dir(follow_symlinks=False):
                continue
            try:
                with os.scandir(slug.path) as entries:
                    for entry in entries:
                        looked += 1
                        if looked > limits.max_dir_entries:
                            break
                        if not entry.name.endswith(".jsonl"):
                            continue
                        try:
                            info = entry.stat(follow_symlinks=False)
                        except OSError:
                            log.files_skipped += 1
                            continue
                        if not stat.S_ISREG(info.st_mode) or info.st_mtime < since_ts:
                            log.files_skipped += 1  # FIFOs, devices and links are never opened
                            continue
                        found.append((info.st_mtime, Path(entry.path)))
            except OSError as error:
                log.problems.append(f"a session log folder cannot be read ({error.strerror or error}): {slug.path}")
    found.sort(key=lambda item: item[0], reverse=True)
    if len(found) > limits.max_files:
        log.files_skipped += len(found) - limits.max_files
        found = found[: limits.max_files]
    return [(path, mtime) for mtime, path in found]


def _lines(path: Path, limits: UsageLimits, log: UsageLog) -> Iterator[bytes]:
    """The file's lines, each at most max_line_bytes; longer ones are skipped (read through in chunks)."""
    try:
        handle = open(path, "rb", opener=lambda p, flags: os.open(p, flags | getattr(os, "O_NONBLOCK", 0)
                                                                  | getattr(os, "O_NOFOLLOW", 0)))
    except OSError as error:
        log.problems.append(f"a session log cannot be read ({error.strerror or error}): {path}")
        return
    with handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped for a FIFO after the scan
            log.files_skipped += 1
            return
        log.files_read += 1
        read = 0
        for _count in range(limits.max_lines):
            if read >= limits.max_file_bytes:
                log.cut_files += 1
                return
            try:
                line = handle.readline(min(limits.max_line_bytes + 1, limits.max_file_bytes - read + 1))
            except OSError as error:
                log.problems.append(f"a session log stopped reading ({error.strerror or error}): {path}")
                return
            if not line:
                return
            read += len(line)
            if len(line) > limits.max_line_bytes and not line.endswith(b"\n"):
                log.long_lines += 1
                while line and not line.endswith(b"\n") and read < limits.max_file_bytes:
                    line = handle.readline(min(1 << 20, limits.max_file_bytes - read))
                    read += len(line)
                continue
            yield line
        if handle.read(1):
            log.cut_files += 1


def _events(path: Path, limits: UsageLimits, log: UsageLog) -> Iterator[tuple[str, str, str, datetime | None]]:
    """(kind "model"|"typed", an id for de-duplication, skill name, time) for each use in one file."""
    for number, raw in enumerate(_lines(path, limits, log)):
        line = raw.strip()
        if not line:
            continue
        if not (line.startswith(b"{") and line.endswith(b"}")):
            log.malformed_lines += 1
            continue
        if _SKILL_MARKER not in line and _COMMAND_MARKER not in line:
            continue  # most lines: never parsed
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # bad JSON, bad UTF-8, a 5,000-digit integer, deep nesting
            log.malformed_lines += 1
            continue
        if not isinstance(record, dict):
            log.malformed_lines += 1
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        when = _timestamp(record.get("timestamp"))
        line_id = record.get("uuid") if isinstance(record.get("uuid"), str) else f"{path}:{number}"
        kind = record.get("type")
        if kind == "assistant":
            for index, block in enumerate(_blocks(message.get("content"))):
                if block.get("type") != "tool_use" or block.get("name") != "Skill":
                    continue
                tool_input = block.get("input")
                name = tool_input.get("skill") if isinstance(tool_input, dict) else None
                if isinstance(name, str) and name.strip().lstrip("/"):
                    block_id = block.get("id")
                    yield ("model", f"tool:{block_id}" if isinstance(block_id, str) else f"{line_id}#{index}",
                           name.strip().lstrip("/"), when)
        elif kind == "user" and not record.get("isMeta"):
            for block in _blocks(message.get("content")):
                text = block.get("text") if block.get("type") == "text" else None
                match = _COMMAND_NAME.search(text) if isinstance(text, str) else None
                if match and match.group(1).strip():
                    yield "typed", f"line:{line_id}", match.group(1).strip(), when
                    break


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def usage_by_key(skills: Iterable[Skill], log: UsageLog) -> dict[str, SkillUsage]:
    """Skill.key → its usage. A name's uses belong to the copy Claude Code runs (the winner); a shadowed
    or duplicate copy was never the one used."""
    return {skill.key: log.of(skill.name) if skill.state.is_winner else NEVER for skill in skills}
