"""Workspace problems (Registry.diagnostics) in plain words: the Problems group, the detail pane and the
message bar all read them through these helpers, so they say the same thing."""
from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Hashable

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

from skillmanager.core.model import Diagnostic, DiagnosticArea, Severity
from skillmanager.gui.plural import counted

PROBLEMS_KEY = "problems"  # identity of the Problems group in the registry tree

SEVERITY_WORDS = {Severity.ERROR: "Error", Severity.WARNING: "Warning", Severity.INFO: "Note"}
_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_ICONS = {Severity.ERROR: QStyle.StandardPixmap.SP_MessageBoxCritical,
          Severity.WARNING: QStyle.StandardPixmap.SP_MessageBoxWarning,
          Severity.INFO: QStyle.StandardPixmap.SP_MessageBoxInformation}


class LoggedProblems(logging.Handler):
    """Warnings of the `skillmanager` logger (a history journal that could not be written, a setting that
    fell back to its default, …) as Problems rows, the newest few: the app has no stderr to show them on."""

    MAX_KEPT = 20

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.problems: deque[Diagnostic] = deque(maxlen=self.MAX_KEPT)

    def emit(self, record: logging.LogRecord) -> None:
        severity = Severity.ERROR if record.levelno >= logging.ERROR else Severity.WARNING
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad log call must not break the app
            message = str(record.msg)
        self.problems.append(Diagnostic(severity, "app-log", message, None))


LOGGED = LoggedProblems()


def install_logged_problems() -> None:
    """Route the `skillmanager` logger's warnings into the Problems group (once)."""
    logger = logging.getLogger("skillmanager")
    if LOGGED not in logger.handlers:
        logger.addHandler(LOGGED)
    if logger.level == logging.NOTSET or logger.level > logging.WARNING:
        logger.setLevel(logging.WARNING)


def workspace_problems(snapshot) -> list[Diagnostic]:
    """The registry's workspace-level diagnostics, in the order the engine reported them, then what the scan
    could not compute (Snapshot.problems), then what the app logged (LoggedProblems)."""
    registry = getattr(snapshot, "registry", None) if snapshot is not None else None
    panels = getattr(snapshot, "problems", None) or {}  # what the scan could not compute (a panel falls back)
    fallbacks = [Diagnostic(Severity.WARNING, "app-panel", text, None) for text in panels.values()]
    return list(getattr(registry, "diagnostics", None) or []) + fallbacks + list(LOGGED.problems)


def problem_keys(problems: list[Diagnostic]) -> list[Hashable]:
    """A key per problem that survives a rescan (the same problem keeps its row, and the selection)."""
    seen: dict[tuple, int] = {}
    keys = []
    for d in problems:
        base = (PROBLEMS_KEY, d.code, str(d.path) if d.path else "", d.line or 0, d.message)
        seen[base] = seen.get(base, 0) + 1
        keys.append(base + (seen[base],))
    return keys


def location(d: Diagnostic, home: Path | None = None, cwd: Path | None = None) -> str:
    """`~/.claude/settings.json:3` or `./.claude/settings.json:5` — the file the way the user thinks of
    it (two settings.json files must not read alike), and the line."""
    if d.path is None:
        return ""
    path = Path(d.path)
    text = str(path)
    for base, prefix in ((cwd, "."), (home, "~")):  # the project first: it may sit inside home
        if base is None:
            continue
        try:
            text = f"{prefix}/" + path.relative_to(base).as_posix()
            break
        except ValueError:
            continue
    return f"{text}:{d.line}" if d.line else text


def plain_message(d: Diagnostic) -> str:
    """The message without the location (shown beside it already): core's `message_without_location`."""
    return d.message_without_location


def severity_word(d: Diagnostic) -> str:
    return SEVERITY_WORDS.get(d.severity, str(d.severity.value).capitalize())


def severity_icon(d: Diagnostic) -> QIcon:
    """The platform's own message-box icons: they read at a glance in both palettes."""
    app = QApplication.instance()
    if app is None:
        return QIcon()
    return app.style().standardIcon(_ICONS.get(d.severity, QStyle.StandardPixmap.SP_MessageBoxWarning))


def summary_note(problems: list[Diagnostic]) -> str:
    """The one line for the message bar after a scan ("" when there is nothing to say)."""
    count = len(problems)
    if not count:
        return ""
    areas = frozenset(d.area for d in problems)
    where = {frozenset({DiagnosticArea.SETTINGS}): "your settings", frozenset({DiagnosticArea.SKILL}): "your skill files",
             frozenset({DiagnosticArea.PLUGIN}): "your plugins"}.get(areas, "your settings and skill files")
    return f"{counted(count, 'problem')} found in {where} — see Problems at the end of the list."


def sort_rank(d: Diagnostic) -> int:
    return _SEVERITY_RANK.get(d.severity, 3)


__all__ = ["PROBLEMS_KEY", "LOGGED", "install_logged_problems", "workspace_problems", "problem_keys", "location", "plain_message",
           "severity_word", "severity_icon", "summary_note", "sort_rank"]
