"""Read user files defensively: size cap, binary detection, decoding as Node does; never raise."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .model import Diagnostic, Severity

# Claude Code reads a skill file whole; skillmanager stops at this size so one stray multi-GB
# file cannot freeze a scan. Real skills are a few KB (the corpus maximum is well under 1 MB).
MAX_SKILL_BYTES = 4 * 1024 * 1024
_BINARY_SNIFF = 8192


@dataclass
class ReadResult:
    text: str | None
    size: int = 0
    truncated: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)


def read_text_file(path: Path, *, max_bytes: int = MAX_SKILL_BYTES) -> ReadResult:
    """UTF-8 text as Node's `readFile(…, 'utf-8')` gives it (invalid bytes → U+FFFD, BOM kept)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            # read(n) reserves n bytes up front: ask for what fstat promises (+1 to notice growth),
            # then top up for files that grew or report size 0 (/proc, FIFOs)
            want = size + 1 if 0 < size <= max_bytes else max_bytes + 1
            data = handle.read(want)
            if len(data) == want and want < max_bytes + 1:
                data += handle.read(max_bytes + 1 - want)
    except PermissionError as error:
        return ReadResult(None, diagnostics=[Diagnostic(
            Severity.ERROR, "unreadable", f"Cannot read this file: permission denied ({error.strerror or error}).", path)])
    except IsADirectoryError:
        return ReadResult(None, diagnostics=[Diagnostic(
            Severity.ERROR, "is-directory", "Expected a file but found a directory.", path)])
    except OSError as error:
        code = "symlink-loop" if getattr(error, "errno", None) == 40 else "unreadable"
        reason = "symbolic link loop" if code == "symlink-loop" else (error.strerror or str(error))
        return ReadResult(None, diagnostics=[Diagnostic(Severity.ERROR, code, f"Cannot read this file: {reason}.", path)])
    result = ReadResult(None, size=max(size, len(data)))
    if len(data) > max_bytes:
        data = data[:max_bytes]
        result.truncated = True
        result.diagnostics.append(Diagnostic(
            Severity.WARNING, "huge-file",
            f"The file is {result.size:,} bytes; skillmanager read only the first {max_bytes:,}. "
            "Claude Code would load all of it into the model's context when the skill runs.", path))
    if b"\x00" in data[:_BINARY_SNIFF]:
        result.diagnostics.append(Diagnostic(
            Severity.ERROR, "binary-file",
            "This looks like a binary file (it contains NUL bytes), not Markdown text.", path))
    text = data.decode("utf-8", errors="replace")
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        result.diagnostics.append(Diagnostic(
            Severity.WARNING, "not-utf8",
            "The file is not valid UTF-8; invalid bytes are read as U+FFFD, as Claude Code reads them.", path))
    result.text = text
    return result
