"""How the audit reads a skill folder: walk it without following links, read every file whole in
bounded memory (1 MiB blocks cut at a newline, a line longer than a block is cut with an overlap so a
pattern across the cut is still seen), tell scripts from prose by content, and give each line of
Markdown its position (exec / instruction / example).
"""
from __future__ import annotations

import bisect
import operator
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

from ..load.safe_read import NotRegularFileError, open_regular_fd, special_file_kind
from .audit_base import EXAMPLE, EXEC, INSTRUCTION

BLOCK_BYTES = 1024 * 1024
OVERLAP_BYTES = 2048  # a line cut across blocks is re-read this far back
MAX_FILES = 2000
MAX_DEPTH = 24
SKIP_DIRS = {".git", "__pycache__"}
SCRIPT_EXTS = {".sh", ".bash", ".zsh", ".fish", ".ksh", ".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
               ".tsx", ".jsx", ".rb", ".pl", ".pm", ".ps1", ".psm1", ".bat", ".cmd", ".php", ".lua", ".applescript",
               ".scpt", ".command", ".vbs", ".go", ".rs", ".swift", ".kt", ".java", ".cs", ".r", ".jl"}
# files whose commands a tool runs (npm scripts, make recipes, Docker RUN lines): code, like scripts
BUILD_FILES = {"Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "justfile", "Justfile", "package.json",
               "Taskfile.yml", "Rakefile", "Vagrantfile"}
PROSE_EXTS = {".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".org", ".html", ".htm"}
_CODE_SHAPE = re.compile(rb"^\s*(?:#!|import\s+\w|from\s+[\w.]+\s+import|def\s+\w+\s*\(|function\s+\w+|const\s+\w+\s*=|"
                         rb"let\s+\w+\s*=|require\s*\(|set\s+-[euxo]|\$\w+\s*=|param\s*\(|<\?php|package\s+\w+|"
                         rb"(?:curl|wget|cd|echo|export|sudo|apt-get|mkdir|chmod|rm|cp|mv|python3?|node|bash)\s)", re.M)
_BINARY_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x1f\x8b", b"BZh", b"\xfd7zXZ",
                 b"RIFF", b"OggS", b"\x00\x00\x01\x00", b"wOFF", b"wOF2")
_EXECUTABLE_MAGIC = (b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe")


class Entry(NamedTuple):
    path: Path
    rel: str
    st: os.stat_result


Stamp = tuple[int, int, int, int, int, str]


@dataclass
class Walk:
    files: list[Entry] = field(default_factory=list)
    escaping_links: list[tuple[Path, str, str]] = field(default_factory=list)  # (link, rel, target)
    problems: list[tuple[Path, str]] = field(default_factory=list)  # (path, why it was not scanned)
    stamps: list[Stamp] = field(default_factory=list)  # (dev, ino, size, mtime_ns, ctime_ns, rel) of every entry
    links: list[str] = field(default_factory=list)  # rel of every symbolic link (inside the folder or not)
    listed: bool = False  # the folder itself could be listed
    folder: Path | None = None  # the folder walked


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


_FILE_TYPE, _LINK, _DIR, _REGULAR = stat.S_IFMT(0o170000), stat.S_IFLNK, stat.S_IFDIR, stat.S_IFREG
_BY_NAME = operator.attrgetter("name")


def walk_skill(skill_dir: Path) -> Walk:
    """Every entry of the folder, links not followed; links leaving it are collected, not read."""
    walk = Walk(folder=skill_dir)
    files, stamps, links, problems = walk.files, walk.stamps, walk.links, walk.problems
    root = ""  # the folder's real path, worked out at the first link (most folders have none)
    base = len(os.fspath(skill_dir).rstrip(os.sep)) + 1  # entry paths start with skill_dir + os.sep
    stack: list[tuple[Path, int]] = [(skill_dir, 0)]
    count = 0
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=_BY_NAME)
        except OSError as error:
            problems.append((folder, f"folder not readable: {error.strerror or error}"))
            continue
        walk.listed = walk.listed or folder is skill_dir
        subdirs = []
        for entry in entries:
            entry_path = entry.path
            rel = entry_path[base:] if os.sep == "/" else entry_path[base:].replace(os.sep, "/")
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as error:
                problems.append((Path(entry_path), f"cannot stat: {error.strerror or error}"))
                continue
            stamps.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, rel))
            kind = st.st_mode & _FILE_TYPE
            if kind == _REGULAR:
                count += 1
                if count > MAX_FILES:
                    problems.append((Path(entry_path),
                                     f"more than {MAX_FILES} files: the rest of the folder was not scanned"))
                    stack.clear()
                    break
                files.append(Entry(Path(entry_path), rel, st))
                continue
            path = Path(entry_path)
            if kind == _LINK:
                links.append(rel)
                root = root or os.path.realpath(skill_dir)
                target = os.path.realpath(path)
                if not _inside(target, root):
                    walk.escaping_links.append((path, rel, os.readlink(path) if os.path.islink(path) else target))
                continue  # a link inside the folder: its target is scanned where it lives
            if kind == _DIR:
                if entry.name in SKIP_DIRS:
                    continue
                if depth + 1 > MAX_DEPTH:
                    problems.append((path, f"folders nested deeper than {MAX_DEPTH} levels were not scanned"))
                    continue
                subdirs.append((path, depth + 1))
                continue
            problems.append((path, f"{special_file_kind(st.st_mode)}, not read"))
        stack.extend(reversed(subdirs))
    return walk


def read_blocks(path: Path, *, lstat_regular: bool = False) -> Iterator[tuple[bytes, int]]:
    """(block, first line number) over the whole file. Raises OSError (incl. NotRegularFileError).
    `lstat_regular`: the caller's lstat just found a regular file there (safe_read.open_regular_fd)."""
    fd = open_regular_fd(path, lstat_regular=lstat_regular)
    try:
        line = 1
        buffer = b""
        while True:
            chunk = os.read(fd, BLOCK_BYTES)  # a short read is only carried in `buffer` (blocks cut the same)
            if not chunk:
                if buffer:
                    yield buffer, line
                return
            buffer += chunk
            while len(buffer) >= BLOCK_BYTES:
                cut = buffer.rfind(b"\n", 0, BLOCK_BYTES)
                if cut >= 0:
                    block, buffer = buffer[:cut + 1], buffer[cut + 1:]
                    yield block, line
                    line += block.count(b"\n")
                else:  # one line longer than a block: cut it, re-read an overlap so nothing at the cut is missed
                    yield buffer[:BLOCK_BYTES], line
                    buffer = buffer[BLOCK_BYTES - OVERLAP_BYTES:]
    finally:
        os.close(fd)


def kind_of(entry_name: str, head: bytes) -> str:
    """'binary', 'executable', 'script', 'prose' or 'data', from the name and the first bytes."""
    if head.startswith(_EXECUTABLE_MAGIC[0]) or head.startswith(_EXECUTABLE_MAGIC[2:]) or \
            (head.startswith(b"MZ") and b"\x00" in head[:256]) or head.startswith(_EXECUTABLE_MAGIC[4]) and b"\x00" in head[:64]:
        return "executable"
    if b"\x00" in head[:8192] or head.startswith(_BINARY_MAGIC):
        return "binary"
    suffix = os.path.splitext(entry_name)[1].lower()
    if head.startswith(b"#!") or suffix in SCRIPT_EXTS or entry_name in BUILD_FILES or suffix == ".mk":
        return "script"
    if suffix in PROSE_EXTS or entry_name == "SKILL.md":
        return "prose"
    if _CODE_SHAPE.search(head[:4096]):
        return "script"
    return "data"


# --- Markdown positions -------------------------------------------------------------------------

_STRUCTURE = re.compile(r"^[ \t]{0,3}(?:(#{1,6})[ \t]+([^\n]{0,300})|(`{3,}|~{3,})([^\n]{0,200}))$", re.M)
WARNING_CUE = re.compile(
    r"\b(?:never|don'?t|do\s+not|avoid|anti-?patterns?|red[\s-]+flags?|warnings?|dangerous|danger|malicious|attacks?|"
    r"attackers?|insecure|unsafe|bad|vulnerab\w*|exploits?|phishing|threats?|iocs?|indicators?|signatures?|detect\w*|"
    r"suspicious|forbidden|prohibited|blocked|what\s+not|pitfalls?|mistakes?|harmful|evil|payloads?|injections?|"
    r"must\s+not|should\s+not|refuse|reject|flag(?:s|ged)?|compromised?|scam|hunt(?:s|ing)?|triag\w*|forensics?|"
    r"in\s+the\s+wild|look\s+for|recogni[sz]\w*)\b|❌|⚠|🚫", re.I)
_LINE_CUE = re.compile(
    r"\b(?:never|don'?t|do\s+not|avoid|must\s+not|should\s+not)\s+(?:ever\s+)?(?:run|execute|use|paste|pipe|type|"
    r"copy|trust|install|do\s+this|follow|obey)\b|\bavoid\s+(?=[`\"'])|(?<![-=])\b(?:malicious|attackers?|insecure|unsafe|dangerous|red[\s-]+flags?|"
    r"vulnerable|exploit\w*|phishing|backdoor(?:ed)?|compromised?)\b|❌|🚫", re.I)


# carried from one block of a big file to the next: (in a fence, its mark, the fence warns,
# open headings as (level, warns))
MarkdownState = tuple[bool, str, bool, tuple[tuple[int, bool], ...]]


class MarkdownMap:
    """Position of each line of a Markdown block, carried over from the previous block."""

    def __init__(self, text: str, first_line: int, state: MarkdownState | None = None) -> None:
        in_fence, fence_mark, fence_warn, carried = state or (False, "", False, ())
        self.first_line = first_line
        self._lines: list[int] = []  # first line of each region
        self._warn: list[bool] = []
        self._fence: list[bool] = []
        headings = list(carried)  # [(level, warns)]
        previous_end = 0
        counted_to, line = 0, first_line
        for match in _STRUCTURE.finditer(text):
            line += text.count("\n", counted_to, match.start())
            counted_to = match.start()
            if match.group(3):
                mark = match.group(3)
                if in_fence:
                    if mark[0] == fence_mark[0] and len(mark) >= len(fence_mark) and not match.group(4).strip():
                        in_fence = False
                        self._push(line + 1, any(w for _, w in headings), False)
                    continue
                in_fence, fence_mark = True, mark
                lead = text[max(previous_end, text.rfind("\n\n", max(0, match.start() - 400), match.start()) + 1,
                                match.start() - 400):match.start()]
                fence_warn = bool(WARNING_CUE.search(lead) or WARNING_CUE.search(match.group(4)))
                self._push(line, any(w for _, w in headings) or fence_warn, True)
            elif not in_fence:
                level = len(match.group(1))
                headings = [(lv, w) for lv, w in headings if lv < level]
                headings.append((level, bool(WARNING_CUE.search(match.group(2)))))
                self._push(line, any(w for _, w in headings), False)
            previous_end = match.end()
        self.state: MarkdownState = (in_fence, fence_mark, fence_warn, tuple(headings))
        self._start_warn = any(w for _, w in (state or (False, "", False, ()))[3]) or bool(state and state[0] and state[2])
        self._start_fence = bool(state and state[0])

    def _push(self, line: int, warn: bool, fence: bool) -> None:
        self._lines.append(line)
        self._warn.append(warn)
        self._fence.append(fence)

    def in_fence(self, line: int) -> bool:
        index = bisect.bisect_right(self._lines, line) - 1
        return self._fence[index] if index >= 0 else self._start_fence

    def position(self, line: int, line_text: str, previous_line: str) -> str:
        index = bisect.bisect_right(self._lines, line) - 1
        warn = self._warn[index] if index >= 0 else self._start_warn
        fence = self._fence[index] if index >= 0 else self._start_fence
        if warn or _LINE_CUE.search(line_text) or (fence and _LINE_CUE.search(previous_line)):
            return EXAMPLE
        return INSTRUCTION


_LIST_ITEM = re.compile(r"^[ \t]{0,8}(?:(?:[-*+]|\d{1,3}[.)])[ \t]|\|)")


def list_intro_warns(line: int, first_line: int, line_text: Callable[[int], str], limit: int = 40) -> bool:
    """Whether a list item or table row belongs to a list introduced as warnings or examples: the sentence
    above the list ("Flag any of these:", "patterns such as:") or the table's header row carries a warning
    cue. `line_text(n)` gives line n of the block."""
    if not _LIST_ITEM.match(line_text(line)):
        return False
    header = ""
    n = line - 1
    while n >= first_line and line - n <= limit:
        text = line_text(n)
        if _LIST_ITEM.match(text):
            header = text
        elif text.strip():
            return bool(WARNING_CUE.search(text) or (header.lstrip().startswith("|") and WARNING_CUE.search(header)))
        n -= 1
    return bool(header.lstrip().startswith("|") and WARNING_CUE.search(header))


def in_spans(line: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= line <= end for start, end in spans)


__all__ = ["BLOCK_BYTES", "EXEC", "Entry", "MarkdownMap", "NotRegularFileError", "Walk", "in_spans", "kind_of",
           "read_blocks", "walk_skill"]
