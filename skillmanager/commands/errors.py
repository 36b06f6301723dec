"""The CLI's one error path (kept free of heavy imports: cli.py loads it for every command).

- UsageError: a bad option, a missing or unreadable --home / directory / input file → stderr, exit 2.
- Problems found while running (a bad settings file, an unreadable skill folder, …) are workspace
  diagnostics: each command's output stays as documented, the diagnostics go to stderr once the
  command has written its output, and an error among them makes the exit code 1 (`settle`).
- Anything else that was skipped or fell back is logged on the `skillmanager` logger, which the CLI
  prints on stderr.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import logging

LOGGER_NAME = "skillmanager"


def logger() -> "logging.Logger":
    """The `skillmanager` logger (logging is imported when a command runs, not when a stored answer is replayed)."""
    import logging

    return logging.getLogger(LOGGER_NAME)


class UsageError(Exception):
    """A usage problem, said in one line; the CLI prints `skillmanager: error: …` and exits 2."""


class CommandProblem(Exception):
    """The command could not give its answer, said in one line; the CLI prints it and exits 1."""


_loaded_registries: list[Any] = []
# registries already reported, kept to the end of the command: a `skillmanager` process then ends without
# freeing them object by object (cli.entry), an in-process caller frees them at its next command
_reported_registries: list[Any] = []


def remember_registry(registry: Any) -> None:
    """A registry this command read: its workspace diagnostics are reported by `settle`."""
    if all(registry is not r for r in _loaded_registries):
        _loaded_registries.append(registry)


def forget_registries() -> None:
    _loaded_registries.clear()
    _reported_registries.clear()


def workspace_diagnostic_lines(registry: Any) -> list[tuple[str, str]]:
    """(severity, one line) for each problem that belongs to no skill."""
    from skillmanager.core.js.textwidth import safe_for_output

    out = []
    for d in getattr(registry, "diagnostics", []):
        where = f" ({d.path})" if d.path else ""
        out.append((d.severity.value, safe_for_output(f"skillmanager: {d.severity.value}: {d.message}{where}")))
    return out


def settle(code: int, stream: TextIO | None = None) -> int:
    """Print the diagnostics of the registries the command read on stderr; an error among them
    turns exit 0 into 1 (the answer was computed without that file, as Claude Code does, but it is
    not the whole answer). Usage errors (2) and interrupts keep their code."""
    stream = stream or sys.stderr
    errors = False
    try:
        for registry in _loaded_registries:
            for severity, line in workspace_diagnostic_lines(registry):
                stream.write(line + "\n")
                errors |= severity == "error"
    finally:
        _reported_registries.extend(_loaded_registries)
        _loaded_registries.clear()
    return 1 if (errors and code == 0) else code


def install_stderr_logging(stream: TextIO | None = None) -> "logging.Handler":
    """Send the `skillmanager` logger's warnings and errors to stderr, one line each."""
    import logging

    class StderrFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return f"skillmanager: {record.levelname.lower()}: {record.getMessage()}"

    log = logger()
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(StderrFormatter())
    handler.setLevel(logging.WARNING)
    log.addHandler(handler)
    if log.level == logging.NOTSET or log.level > logging.WARNING:
        log.setLevel(logging.WARNING)
    return handler


def error_line(message: str) -> str:
    from skillmanager.core.js.textwidth import safe_for_output

    return safe_for_output(f"skillmanager: error: {message}")


def os_error_text(error: OSError) -> str:
    """`<file>: <reason>` for an OSError, without Python's `[Errno N]`."""
    name = error.filename if error.filename is not None else ""
    reason = error.strerror or str(error)
    return f"{name}: {reason}" if name else reason
