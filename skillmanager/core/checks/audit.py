"""What a skill would do to my machine: a static security audit of a skill folder.

Scans SKILL.md (front matter + body) and every file in the skill folder, whole, in bounded memory
and linear time (audit_scan), with the rule families of audit_commands (what commands do),
audit_text (hidden Unicode, prompt injection, look-alike names) and audit_secrets (secrets, encoded
blobs). Severity depends on position (audit_base): an inline `!` command or a script ranks above
the same text as an instruction, which ranks above it shown as a warning or counter-example.
Facts are joined across lines and files: a file downloaded or decoded in one place and run in
another, secrets that reach a network send. Links leaving the folder are reported, never followed.
Nothing here runs anything.

`audit_skill` is a pure function of the folder's files; `prepare_audit` gives the key a cache can
hold it under ((device, inode, size, mtime_ns, ctime_ns, path) of every entry).
"""
from __future__ import annotations

import bisect
import itertools
import os
import re
import stat
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Union

from ..layers.inline_shell import find_inline_shell
from ..load.frontmatter import parse_document
from ..load.yaml12 import js_string
from .audit_base import (DOC, EXAMPLE, EXEC, INSTRUCTION, LEVELS, RULE_BY_NAME, RULES, SCRIPT, AuditFinding, Hit,
                         Rule, SkillAudit, clip, level_index, lower, severity_at)
from .audit_base import block_tokens, block_words, fold_lower
from .audit_commands import Facts, command_hits, executed_files
from .audit_scan import (BLOCK_BYTES, MarkdownMap, MarkdownState, Stamp, Walk, kind_of, list_intro_warns,
                         read_blocks, walk_skill)
from .audit_secrets import blob_hits, redact, secret_hits
from .audit_text import decode_tags, description_hits, hidden_unicode_hits, injection_hits, lookalike_hits, reveal_hidden

__all__ = ["AuditFinding", "DOC", "EXEC", "INSTRUCTION", "LEVELS", "RULES", "RULE_BY_NAME", "Rule", "SCRIPT",
           "PreparedAudit", "SkillAudit", "audit_paths", "audit_skill", "decode_tags", "level_index", "prepare_audit",
           "redact", "reveal_hidden", "summarize", "worst"]

_RUN_VERB = re.compile(r"(?:\b(?:python[0-9.]*|bash|sh|zsh|node|deno|bun|ruby|perl|pwsh|uv\s+run|npx\s+tsx|tsx|ts-node)"
                       r"\s+(?:-\S+\s+)*|(?<![\w/])\./|\b(?:run|execute|invoke)\s+`?)"
                       r"((?:\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\{baseDir\}/)?[\w./-]+\.(?:sh|bash|zsh|py|js|mjs|"
                       r"cjs|ts|rb|pl|ps1))")
_SIDE_EFFECT = re.compile(r">|\b(?:rm|mv|cp|dd|chmod|chown|curl|wget|install|sudo|kill|pkill|git\s+(?:push|commit|reset)|"
                          r"npm|pip|tee|sed\s+-i|eval|ssh|scp|nc|python[0-9.]*|node|bash|sh)\b", re.I)
_AUTH_CONTEXT = re.compile(r"authorization|bearer|x-api-key|api-key:|\s-u\s|--user\b|headers\s*=|\bauth\s*=|"
                           r"-H\s*[\"']?[\w-]*(?:token|key|auth)", re.I)
_ASSIGN = re.compile(r"^\s*(?:export\s+|const\s+|let\s+|var\s+|\$)?([A-Za-z_]\w{0,40})\s*=")
_DUMP_OR_FILE = re.compile(r"\benv\b|printenv|os\.environ(?!\s*[\[.])|environ\.copy|process\.env(?!\s*[.\[])|env:|"
                           r"\.ssh|\.aws|credentials|keychain|\.env\b|shadow|Login\s+Data|wallet|history|gcloud|\.kube|"
                           r"\.netrc|\.git-credentials|\.docker|\.gnupg", re.I)
# configuration changes the text tells the model to show to the user, who makes them (or not) themselves
_USER_ACTION_RULES = {"agent-settings-tamper", "persistence", "registry-redirect"}
_FOR_USER = re.compile(r"\b(?:show|tell|suggest|explain|recommend|give)\s+(?:it\s+to\s+)?(?:the\s+user|them|users)\b|"
                       r"\b(?:the\s+user|users?|they|you)\s+(?:can|could|may|might)\s+(?:add|edit|paste|put|copy|run)\b|"
                       r"\bthemselves\b|\bfor\s+the\s+user\s+to\b|\blet\s+(?:the\s+user|them)\s+(?:decide|choose|edit|add|"
                       r"paste|copy|run)\b|\bmanually\b", re.I)
MAX_SCAN_BYTES = 16 * 1024 * 1024  # per file; beyond it a finding says the rest was not scanned
_WINDOW = 15  # lines within which a secret read and a network send in one file are joined
_INSTRUCTION_WINDOW = 6  # the same in Markdown the model follows (one snippet's lines)


def newline_offsets(text: str) -> list[int]:
    """Where each newline of `text` is (its lines' lengths summed in C, not a regex match per line)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return []
    return list(itertools.accumulate(itertools.chain((len(lines[0]),), map((1).__add__, map(len, lines[1:-1])))))


class _FileScan:
    """Findings and facts of one file, with line numbers and positions."""

    def __init__(self, path: Path, rel: str, kind: str, out: "_Collector") -> None:
        self.path, self.rel, self.kind, self.out = path, rel, kind, out
        self.facts: list[tuple[str, int, str, str, Any]] = []  # (fact, line, position, line text, extra)
        self.exec_spans: list[tuple[int, int]] = []
        self.main = False  # SKILL.md itself: its inline shell runs at invocation

    def scan_block(self, data: bytes, first_line: int, md_state: MarkdownState | None, body_offset: int = 0,
                   text: str | None = None) -> MarkdownState | None:
        if text is None:
            text = data.decode("utf-8", errors="replace")
        tokens = block_tokens(data)
        block_words(text, tokens, fold_lower(text, data), data)  # the rule families below share them
        facts = Facts()
        hits = command_hits(text, tokens, facts=facts)
        hits += hidden_unicode_hits(text, at_file_start=first_line == 1)
        hits += secret_hits(text)
        hits += blob_hits(text, data=data)
        if self.kind in ("prose", "data", "script"):
            hits += [h if self.kind != "script" else Hit(h.rule, h.offset, lower(h.executed, 1), h.instructed,
                                                         h.message, h.evidence)
                     for h in injection_hits(text)]
        if self.main and _may_run_inline(data):
            self._inline_shell(text, first_line, body_offset)
        has_facts = facts.sends or facts.secrets or facts.staged or facts.executed or facts.destinations or facts.homes
        newlines = newline_offsets(text) if (hits or has_facts) else []
        # Markdown structure: needed for positions, and carried to the next block of a big file
        md = MarkdownMap(text, first_line, md_state) if self.kind == "prose" and (
            hits or has_facts or self.exec_spans or len(data) >= BLOCK_BYTES // 2 or md_state) else None

        def line_of(offset: int) -> int:
            return first_line + bisect.bisect_left(newlines, offset)

        def line_text(line: int) -> str:
            index = line - first_line
            start = newlines[index - 1] + 1 if index > 0 else 0
            end = newlines[index] if index < len(newlines) else len(text)
            return text[start:min(end, start + 600)]

        def position(line: int) -> str:
            if self.kind == "script":
                return SCRIPT
            if any(start <= line <= end for start, end in self.exec_spans):
                return EXEC
            if md is None:
                return INSTRUCTION
            where = md.position(line, line_text(line), line_text(line - 1) if line > first_line else "")
            if where == INSTRUCTION and not md.in_fence(line) and list_intro_warns(line, first_line, line_text):
                return EXAMPLE
            return where

        for hit in hits:
            line = line_of(hit.offset)
            where = position(line)
            instructed = hit.instructed
            if where == INSTRUCTION and md is not None:
                if hit.message.startswith("fake system/tool marker") and md.in_fence(line):
                    instructed = lower(instructed, 1, "medium")  # markup being written or shown, not the prose flow
                elif hit.rule in _USER_ACTION_RULES and any(
                        _FOR_USER.search(line_text(n)) for n in range(max(first_line, line - 4), line + 1)):
                    instructed = lower(instructed, 1, "medium")  # a change the user is shown and makes themselves
            if hit.rule == "hardcoded-secret" or hit.evidence.startswith(("decodes to:", "hidden:")):
                evidence = hit.evidence
            else:
                evidence = clip(hit.evidence or line_text(line))
            self.out.add(hit.rule, severity_at(where, hit.executed, instructed), self.path, line, hit.message,
                         evidence, where)
        for name, items in (("send", facts.sends), ("secret", facts.secrets)):
            for offset, text_line in items:
                line = line_of(offset)
                self.facts.append((name, line, position(line), text_line, None))
        for offset, path, how in facts.staged:
            line = line_of(offset)
            self.facts.append(("staged", line, position(line), line_text(line), (path, how)))
        for offset in facts.destinations:
            line = line_of(offset)
            self.facts.append(("destination", line, position(line), line_text(line), None))
        for offset in facts.homes:
            line = line_of(offset)
            self.facts.append(("home", line, position(line), line_text(line), None))
        return md.state if md else None

    def position_of(self, line: int, line_text: str, md: MarkdownMap | None) -> str:
        if self.kind == "script":
            return SCRIPT
        if any(start <= line <= end for start, end in self.exec_spans):
            return EXEC
        return md.position(line, line_text, "") if md is not None else INSTRUCTION

    def _inline_shell(self, text: str, first_line: int, body_offset: int) -> None:
        body = text[body_offset:]
        body_line = first_line + text.count("\n", 0, body_offset)
        for snippet in find_inline_shell(body, first_line=body_line):
            self.exec_spans.append((snippet.line, snippet.end_line))
            effect = _SIDE_EFFECT.search(snippet.command)
            self.out.add("inline-shell", "medium" if effect else "low", self.path, snippet.line,
                         f"runs at invocation: {snippet.command[:200]!r}", clip(snippet.matched, 200), EXEC)


def _may_run_inline(data: bytes) -> bool:
    """Whether the block holds "!`" or "```!" (an inline command may run): each "!" found with memchr, its neighbours
    compared (ASCII: in the text iff in its bytes)."""
    at = data.find(b"!")
    while at != -1:
        if data[at + 1:at + 2] == b"`" or data[max(0, at - 3):at] == b"```":
            return True
        at = data.find(b"!", at + 1)
    return False


class _Collector:
    def __init__(self) -> None:
        self.findings: dict[tuple[str, Path, int], AuditFinding] = {}

    def add(self, rule: str, severity: str, file: Path, line: int, message: str, evidence: str, context: str) -> None:
        key = (rule, file, line)
        old = self.findings.get(key)
        if old is None or level_index(severity) > level_index(old.severity):
            self.findings[key] = AuditFinding(rule, severity, file, line, message, evidence, context)


def _allowed_tools(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [js_string(v).strip() for v in value if v is not None]
    return re.findall(r"[A-Za-z_][\w-]*(?:\([^)]*\))?", js_string(value))


_KEY_LINE: dict[str, re.Pattern[str]] = {}


def _fm_line(text: str, key: str) -> int:
    regex = _KEY_LINE.get(key)
    if regex is None:
        regex = _KEY_LINE[key] = re.compile(rf"^{re.escape(key)}[ \t]*:", re.M)
    match = regex.search(text, 0, 65536)  # the first 64 KiB, without copying them
    return text.count("\n", 0, match.start()) + 1 if match else 1


_INTERPRETER = re.compile(r"^(?:Bash|PowerShell)\(\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*|node|deno|bun|ruby|"
                          r"perl|php|pwsh|powershell|eval|exec|source|env|xargs|npx|uvx|uv\s+run|pipx\s+run|osascript|"
                          r"curl|wget|nc|ncat|socat|iex|invoke-expression)\b", re.I)
_DOWNLOADER = re.compile(r"^(?:Bash|PowerShell)\(\s*(?:curl|wget|iwr|irm|invoke-webrequest)\b", re.I)


def _front_matter(fm: dict[str, Any], text: str, skill_md: Path, name: str, out: _Collector) -> None:
    tools = _allowed_tools(fm.get("allowed-tools"))
    broad = [t for t in tools if re.fullmatch(r"(?:Bash|PowerShell)(?:\(\s*(?::?\*)?\s*\))?", t)]
    line = _fm_line(text, "allowed-tools") if tools else 1
    if broad:
        out.add("unrestricted-bash", "medium", skill_md, line,
                f"allowed-tools pre-approves any shell command: {', '.join(broad)}", ", ".join(tools)[:200], INSTRUCTION)
    interpreters = [t for t in tools if _INTERPRETER.match(t)]
    if interpreters:
        fetch_and_run = any(_DOWNLOADER.match(t) for t in interpreters) and \
            any(not _DOWNLOADER.match(t) for t in interpreters)
        out.add("interpreter-preapproved", "high" if fetch_and_run else "medium", skill_md, line,
                "allowed-tools pre-approves " + ("a downloader and an interpreter (download and run without asking)"
                                                 if fetch_and_run else "an interpreter or downloader") +
                f": {', '.join(interpreters)}", ", ".join(tools)[:200], INSTRUCTION)
    hooks = fm.get("hooks")
    if hooks:
        commands = re.findall(r"'command': '((?:[^'\\]|\\.)*)'", repr(hooks))
        hooks_line = _fm_line(text, "hooks")
        out.add("front-matter-hooks", "medium", skill_md, hooks_line,
                "front matter declares hooks that run commands on tool events", clip("; ".join(commands) or repr(hooks)),
                EXEC)
        for command in commands:
            command = command.encode().decode("unicode_escape", errors="replace")
            for hit in command_hits(command, facts=None) + injection_hits(command):
                out.add(hit.rule, hit.executed or "high", skill_md, hooks_line, hit.message + " (in a hook)",
                        clip(command), EXEC)
    description = fm.get("description")
    if isinstance(description, str) and description:
        for hit in description_hits(description) + hidden_unicode_hits(description, at_file_start=False):
            out.add(hit.rule, hit.instructed, skill_md, _fm_line(text, "description"), hit.message,
                    hit.evidence if hit.evidence.startswith("hidden:") else clip(description), INSTRUCTION)
    declared = fm.get("name")
    for candidate in {str(declared) if isinstance(declared, str) else "", name}:
        for hit in lookalike_hits(candidate):
            out.add(hit.rule, hit.instructed, skill_md, _fm_line(text, "name") if candidate == declared else 1,
                    hit.message, hit.evidence, INSTRUCTION)


def _executed_facts(scan: "_FileScan", names: set[str]) -> None:
    """Second phase: where the staged files are run (only searched when something was staged)."""
    try:
        blocks = read_blocks(scan.path)
        state = None
        for data, first_line in blocks:
            text = data.decode("utf-8", errors="replace")
            found = executed_files(text, names)
            if not found:
                continue
            newlines = newline_offsets(text)
            md = MarkdownMap(text, first_line, state) if scan.kind == "prose" else None
            for offset, name in found:
                line = first_line + bisect.bisect_left(newlines, offset)
                start = newlines[line - first_line - 1] + 1 if line > first_line else 0
                end = newlines[line - first_line] if line - first_line < len(newlines) else len(text)
                line_text = text[start:min(end, start + 600)]
                where = scan.position_of(line, line_text, md)
                scan.facts.append(("executed", line, where, line_text, name))
    except OSError:
        return


def _join(files: list[_FileScan], out: _Collector) -> None:
    """Facts across lines and files: staged downloads/decodes that are run; secrets that reach a send."""
    staged: dict[str, tuple[_FileScan, int, str]] = {}  # staged file -> (scan, line, how)
    for scan in files:
        for fact, line, where, text, extra in scan.facts:
            if fact == "staged" and where != EXAMPLE:
                staged.setdefault(extra[0], (scan, line, extra[1]))
    if staged:
        names = {name for name in staged if len(name) > 1}
        for scan in files:
            _executed_facts(scan, names)
    for scan in files:
        for fact, line, where, text, extra in scan.facts:
            if fact == "executed" and extra in staged and where != EXAMPLE and len(extra) > 1:
                source, source_line, how = staged[extra]
                rule = "download-exec" if how == "download" else "encoded-payload"
                what = "downloaded" if how == "download" else "decoded"
                origin = f"line {source_line}" + ("" if source is scan else f" of {source.rel}")
                out.add(rule, severity_at(where, "critical", "high"), scan.path, line,
                        f"runs {extra}, which was {what} on {origin}", clip(text), where)
    # secrets → network
    for scan in files:
        sends = [(line, where, text) for fact, line, where, text, _ in scan.facts if fact == "send" and where != EXAMPLE]
        secrets = [(line, where, text) for fact, line, where, text, _ in scan.facts if fact == "secret" and where != EXAMPLE]
        dests = {line for fact, line, *_ in scan.facts if fact == "destination"}
        for send_line, where, send_text in sends:
            for secret_line, _, secret_text in secrets:
                if secret_line == send_line:
                    if not _DUMP_OR_FILE.search(secret_text) and _AUTH_CONTEXT.search(send_text) and \
                            send_line not in dests:
                        continue  # a token sent to its own API as a credential
                elif abs(secret_line - send_line) <= (_WINDOW if scan.kind == "script" or where == EXEC else
                                                      _INSTRUCTION_WINDOW) and where != EXAMPLE:
                    assigned = _ASSIGN.match(secret_text)
                    uses_var = assigned and re.search(rf"\b{re.escape(assigned.group(1))}\b", send_text) and \
                        not _AUTH_CONTEXT.search(send_text)
                    if not (_DUMP_OR_FILE.search(secret_text) or uses_var):
                        continue
                else:
                    continue
                out.add("env-exfiltration", severity_at(where, "critical", "high"), scan.path, send_line,
                        "secrets or the environment reach a network send"
                        + ("" if secret_line == send_line else f" (read on line {secret_line})"), clip(send_text), where)
                break
        homes = [line for fact, line, where, *_ in scan.facts if fact == "home" and where == SCRIPT]
        for send_line, where, send_text in sends:
            if send_line in dests and homes and where == SCRIPT:
                # code that reads under the home folder and sends to a paste site, chat bot or raw IP
                out.add("env-exfiltration", "critical", scan.path, send_line,
                        f"sends to a paste site, chat-bot API or raw IP in code that reads files under the home folder "
                        f"(line {homes[0]})", clip(send_text), where)
                break
        for send_line, where, send_text in sends:
            if send_line in dests:
                out.add("suspicious-destination", severity_at(where, "high", "high"), scan.path, send_line,
                        "sends data to a paste site, tunnel, request catcher, chat-bot API or raw IP", clip(send_text),
                        where)
    # across files: one script collects secrets, another sends
    collectors = [(s, line) for s in files for fact, line, where, text, _ in s.facts
                  if fact == "secret" and where in (SCRIPT, EXEC) and _DUMP_OR_FILE.search(text)]
    for scan in files:
        for fact, line, where, text, _ in scan.facts:
            if fact == "send" and where in (SCRIPT, EXEC) and any(c is not scan for c, _ in collectors):
                source, source_line = next((c, l) for c, l in collectors if c is not scan)
                out.add("env-exfiltration", "high", scan.path, line,
                        f"sends data over the network while {source.rel}:{source_line} collects secrets", clip(text),
                        where)
                break


_OwnStamp = Union[Stamp, tuple[str, str, str]]  # the file's stamp, or ("error", why, path)
AuditCacheKey = Union[tuple[_OwnStamp], tuple[_OwnStamp, tuple[Stamp, ...]]]


class PreparedAudit(NamedTuple):
    """A skill file's cache key (what its audit depends on) and the walk of its folder that gave it, so that the
    audit on a cache miss does not walk the folder again (prepare_audit, then audit_skill(..., prepared=))."""
    skill_md: Path
    key: AuditCacheKey
    walk: Walk | None  # None: not a SKILL.md (a command file is audited alone)


def prepare_audit(skill_md: Path) -> PreparedAudit:
    """What audit_skill's result depends on: (device, inode, size, mtime_ns, ctime_ns, path) of the file and, for a
    SKILL.md, of every entry of its folder. Cheap (stat only); a cache keyed on it is exact."""
    skill_md = _as_path(skill_md)
    walk = walk_skill(skill_md.parent) if skill_md.name == "SKILL.md" else None
    own: _OwnStamp | None = None
    if walk is not None:  # the walk stamped SKILL.md's entry already (lstat)
        own = next(((*stamp[:5], str(skill_md)) for stamp in walk.stamps if stamp[5] == "SKILL.md"), None)
    if own is None:
        try:
            st = os.lstat(skill_md)
            own = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, str(skill_md))
        except OSError as error:
            own = ("error", str(error), str(skill_md))
    if walk is None:
        return PreparedAudit(skill_md, (own,), None)
    return PreparedAudit(skill_md, (own, tuple(walk.stamps)), walk)


def _failed_audit(target: Path, name: str, error: str) -> SkillAudit:
    """The report of a skill that could not be audited: the error, also as its note."""
    return SkillAudit(target, name, notes=[error], error=error)


def _read_error(error: OSError) -> str:
    return error.strerror or str(error)


def audit_skill(skill_md: Path, *, name: str | None = None, prepared: PreparedAudit | None = None) -> SkillAudit:
    """Audit one skill: its SKILL.md (or command file) and, for a skill folder, every file in it. `prepared`: this
    file's prepare_audit, when its key was just worked out (its walk of the folder is used).
    Never raises: what cannot be read becomes an `unscanned-content` finding, a note and `error`."""
    skill_md = _as_path(skill_md)
    try:
        return _audit_skill(skill_md, name, prepared.walk if prepared is not None and (
            prepared.skill_md is skill_md or prepared.skill_md == skill_md) else None)
    except (OSError, RecursionError, MemoryError, ValueError) as error:
        report = _failed_audit(skill_md.parent if skill_md.name == "SKILL.md" else skill_md,
                               name or skill_md.parent.name, f"cannot audit {skill_md}: {error}")
        report.findings.append(AuditFinding("unscanned-content", "medium", skill_md, 1,
                                            f"the skill could not be audited: {error}", "", INSTRUCTION))
        return report


def _as_path(path: Path | str) -> Path:
    """`path` itself when it is a Path: a new one would parse its text again for every later str()."""
    return path if isinstance(path, Path) else Path(path)


def _audit_skill(skill_md: Path, name: str | None, walk: Walk | None) -> SkillAudit:
    is_skill = skill_md.name == "SKILL.md"
    skill_dir = walk.folder if walk is not None and walk.folder is not None else skill_md.parent
    report = SkillAudit(skill_dir if is_skill else skill_md, name or (skill_dir.name if is_skill else skill_md.stem))
    out = _Collector()
    scans: list[_FileScan] = []
    if is_skill and walk is None:
        walk = walk_skill(skill_dir)
    # whether SKILL.md is a link: the walk saw its entry (lstat), unless the folder could not be listed
    is_link = is_skill and (skill_md.name in walk.links if walk is not None and walk.listed else os.path.islink(skill_md))
    if is_link and not os.path.realpath(skill_md).startswith(os.path.realpath(skill_dir) + os.sep):
        out.add("escaping-link", "high", skill_md, 1, f"SKILL.md is a link to {os.readlink(skill_md)}, outside the "
                "skill folder (not followed)", "", INSTRUCTION)
    else:
        # a regular file when the walk's lstat saw one there (no stat before opening it)
        regular = walk is not None and any(entry.rel == skill_md.name for entry in walk.files)
        _audit_main(skill_md, report, out, scans, name or report.name, regular)
    if walk is not None:
        if any(path == skill_dir for path, _ in walk.problems):
            report.error = f"cannot read the skill folder {skill_dir}: " + next(
                why for path, why in walk.problems if path == skill_dir)
        for path, rel, target in walk.escaping_links:
            out.add("escaping-link", "high", path, 1, f"{rel} links to {target}, outside the skill folder (not followed)",
                    target, INSTRUCTION)
        for path, why in walk.problems:
            rel = path.relative_to(skill_dir).as_posix() if path != skill_dir else "."
            report.notes.append(f"skipped {rel}: {why}")
            severity = "medium" if "not readable" in why or "more than" in why else "low"
            out.add("unscanned-content", severity, path, 1, f"{rel} was not scanned: {why}", "", INSTRUCTION)
        # SKILL.md itself was scanned above: its entry is the one at the folder's root of that name
        others = [entry for entry in walk.files if os.path.normcase(entry.rel) != os.path.normcase(skill_md.name)]
        for entry in others:
            _audit_file(entry.path, entry.rel, report, out, scans)
        if others:
            _runs_shipped_scripts(skill_md, skill_dir, out)
    _join(scans, out)
    report.findings = sorted(out.findings.values(), key=lambda f: (-level_index(f.severity), str(f.file), f.line,
                                                                    f.rule))
    return report


def _audit_main(skill_md: Path, report: SkillAudit, out: _Collector, scans: list[_FileScan], name: str,
                regular: bool = False) -> None:
    scan = _FileScan(skill_md, skill_md.name, "prose", out)
    scan.main = True
    state = None
    try:
        scanned = 0
        for index, (data, first_line) in enumerate(read_blocks(skill_md, lstat_regular=regular)):
            if scanned >= MAX_SCAN_BYTES:
                _not_scanned(skill_md, skill_md.name, first_line, report, out)
                break
            scanned += len(data)
            text = data.decode("utf-8", errors="replace")
            body_offset = 0
            if index == 0:
                if data.find(b"\x00", 0, 8192) != -1:
                    report.notes.append(f"{skill_md.name}: binary file (NUL bytes); scanned as text")
                doc = parse_document(text, strip_bom=True, path=skill_md)
                body_offset = len(text) - len(doc.body) if doc.body and text.endswith(doc.body) else 0
                _front_matter(doc.front_matter, text, skill_md, name, out)
            state = scan.scan_block(data, first_line, state, body_offset, text)
    except OSError as error:
        report.notes.append(f"cannot read {skill_md.name}: {_read_error(error)}")
        report.error = f"cannot read {skill_md}: {_read_error(error)}"
        out.add("unscanned-content", "medium", skill_md, 1, f"{skill_md.name} could not be read: {_read_error(error)}",
                "", INSTRUCTION)
    scans.append(scan)


def _audit_file(path: Path, rel: str, report: SkillAudit, out: _Collector, scans: list[_FileScan]) -> None:
    scan = None
    state = None
    scanned = 0
    try:
        for data, first_line in read_blocks(path, lstat_regular=True):  # the walk's lstat saw a regular file
            if scanned >= MAX_SCAN_BYTES:
                _not_scanned(path, rel, first_line, report, out)
                break
            scanned += len(data)
            if scan is None:
                kind = kind_of(path.name, data[:8192])
                if kind in ("binary", "executable"):
                    report.notes.append(f"skipped {rel}: binary file")
                    if kind == "executable":
                        out.add("unscanned-content", "medium", path, 1, f"{rel} is a native executable; its code "
                                "cannot be audited", "", SCRIPT)
                    return
                scan = _FileScan(path, rel, kind, out)
            state = scan.scan_block(data, first_line, state)
    except OSError as error:
        report.notes.append(f"skipped {rel}: {_read_error(error)}")
        out.add("unscanned-content", "medium", path, 1, f"{rel} could not be read: {_read_error(error)}", "",
                INSTRUCTION)
    if scan is not None:
        scans.append(scan)


def _not_scanned(path: Path, rel: str, line: int, report: SkillAudit, out: _Collector) -> None:
    why = f"only the first {MAX_SCAN_BYTES // (1024 * 1024)} MiB were scanned (from line {line} on it was not)"
    report.notes.append(f"{rel}: {why}")
    out.add("unscanned-content", "medium", path, line, f"{rel} is very large: {why}", "", INSTRUCTION)


def _runs_shipped_scripts(skill_md: Path, skill_dir: Path, out: _Collector) -> None:
    """Info: scripts the body tells the model to run (every script is already scanned as code that runs)."""
    try:
        with open(skill_md, "rb") as handle:
            head = handle.read(256 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return
    seen = set()
    for match in _RUN_VERB.finditer(head):
        raw = re.sub(r"^(?:\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\{baseDir\}/)", "", match.group(1))
        raw = raw[2:] if raw.startswith("./") else raw
        candidate = skill_dir / raw
        if ".." in Path(raw).parts or not candidate.is_file() or raw in seen:
            continue
        seen.add(raw)
        out.add("runs-shipped-script", "info", skill_md, head.count("\n", 0, match.start()) + 1,
                f"the body tells the model to run {raw}; it is scanned as code that runs", clip(match.group(0)), INSTRUCTION)


def audit_paths(paths: Iterable[Path], *, cache: Any = None,
                progress: Callable[[int, int], None] | None = None) -> list[SkillAudit]:
    """Audit skill dirs, SKILL.md / command files, or skills dirs (each skill folder inside). A PATH that
    cannot be read becomes a report with `error` and an unscanned-content finding; the others are audited.
    `cache`: an audit_cache.AuditCache; `progress(done, total)` after each skill."""
    from .audit_cache import audit_many

    items: list[SkillAudit | Path] = []
    for path in paths:
        path = Path(path)
        try:
            items.extend(_audit_path(path))
        except OSError as error:
            items.append(_unreadable(path, f"cannot read {path}: {_read_error(error)}"))
    targets = [item for item in items if isinstance(item, Path)]
    audited = iter(audit_many(((target, None) for target in targets), cache=cache, progress=progress))
    return [item if isinstance(item, SkillAudit) else next(audited) for item in items]


def _unreadable(path: Path, why: str) -> SkillAudit:
    report = SkillAudit(path, path.name, error=why)
    report.notes.append(why)
    report.findings.append(AuditFinding("unscanned-content", "medium", path, 1, f"{why}; nothing in it was audited", "",
                                        INSTRUCTION))
    return report


def _audit_path(path: Path) -> list[SkillAudit | Path]:
    """The skill files under one PATH (to audit), or a report when it cannot be read."""
    from .validate import find_skill_file

    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return [path]
    if not stat.S_ISDIR(mode):
        return []
    if not os.access(path, os.R_OK | os.X_OK):
        return [_unreadable(path, f"cannot read {path}: permission denied")]
    if os.path.lexists(path / "SKILL.md"):
        return [path / "SKILL.md"]
    with os.scandir(path) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    audits: list[SkillAudit | Path] = []
    for entry in entries:
        if entry.is_dir():
            try:
                skill_md = find_skill_file(Path(entry.path))
            except OSError as error:
                audits.append(_unreadable(Path(entry.path), f"cannot read {entry.path}: {_read_error(error)}"))
                continue
            if skill_md:
                audits.append(skill_md)
    audits += [Path(e.path) for e in entries if e.name.endswith(".md") and e.is_file()]
    return audits


def worst(audits: Iterable[SkillAudit]) -> str | None:
    return max((a.max_severity for a in audits if a.max_severity), key=level_index, default=None)


def summarize(audits: Iterable[SkillAudit]) -> dict[str, dict[str, int]]:
    """Findings counted by rule and severity."""
    table: dict[str, dict[str, int]] = {}
    for audit in audits:
        for finding in audit.findings:
            row = table.setdefault(finding.rule, {level: 0 for level in LEVELS})
            row[finding.severity] += 1
    return table
