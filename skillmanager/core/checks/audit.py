"""What a skill would do to my machine: a static security audit of a skill folder.

Scans SKILL.md (front matter + body) and the text files shipped beside it. Every finding has a rule,
a severity (info < low < medium < high < critical), a file, a line and a short reason. Where a thing
appears matters: a command inside `!`…`` / ```! runs when the skill is invoked ("exec"), a script
the body tells the model to run is also "exec", other scripts are "script", Markdown prose and
ordinary fenced code are "doc" (the model reads them; nothing runs by itself) and get lower
severities for command-shaped rules, to keep false positives low.
Nothing here runs anything.
"""
from __future__ import annotations

import base64
import binascii
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..load.frontmatter import BOM, parse_document
from ..layers.inline_shell import find_inline_shell
from ..load.safe_read import read_text_file
from ..load.yaml12 import js_string

LEVELS = ("info", "low", "medium", "high", "critical")
EXEC, SCRIPT, DOC = "exec", "script", "doc"

MAX_FILE_BYTES = 1024 * 1024
MAX_FILES = 400
SCRIPT_EXTS = {".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".php", ".lua"}
TEXT_EXTS = SCRIPT_EXTS | {".md", ".txt", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".html", ".xml",
                           ".csv", ".env", ".mdx", ".rst", ".tsx", ".jsx", ".sql", ".r", ".go", ".rs", ".java",
                           ".c", ".h", ".cpp", ".swift", ".kt", ".cs", ""}
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


def level_index(level: str) -> int:
    return LEVELS.index(level)


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    summary: str
    help: str


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("SM001", "inline-shell", "Shell command runs when the skill is invoked",
         "`!`cmd`` and ```! blocks in SKILL.md run through the Bash tool at invocation, before the model reads "
         "the result (src/utils/promptShellExecution.ts)."),
    Rule("SM002", "unrestricted-bash", "allowed-tools pre-approves every Bash command",
         "`Bash`, `Bash(*)` or `Bash(:*)` in allowed-tools lets the skill run any command without asking."),
    Rule("SM003", "front-matter-hooks", "Hooks declared in front matter",
         "Hooks run commands on tool events while the skill is active."),
    Rule("SM004", "download-exec", "Downloads and executes code",
         "A downloaded script piped to a shell or interpreter (curl|sh, bash <(curl), npx -y, pip install URL)."),
    Rule("SM005", "encoded-payload", "Encoded blob that decodes to a command",
         "Base64 or hex data whose decoded text contains shell or network commands."),
    Rule("SM006", "credential-read", "Reads credentials or secrets files",
         "Access to .env, ~/.ssh, cloud credentials, keychains or browser profiles."),
    Rule("SM007", "env-exfiltration", "Environment sent over the network",
         "An environment dump (env, printenv, os.environ, process.env) on the same line as a network send."),
    Rule("SM008", "hidden-unicode", "Invisible or direction-changing characters",
         "Unicode tag characters, zero-width characters or bidi controls can hide text from a reviewer."),
    Rule("SM009", "prompt-injection", "Instructions aimed at overriding the model or hiding from the user",
         "Phrases such as 'ignore previous instructions' or 'do not tell the user'."),
    Rule("SM010", "hardcoded-secret", "Hard-coded secret",
         "A token or key in a recognisable format (shown redacted)."),
    Rule("SM011", "runs-shipped-script", "The body tells the model to run a script shipped with the skill",
         "The script is scanned with the same rules as code that runs."),
)}
RULE_BY_NAME = {r.name: r for r in RULES.values()}


@dataclass(frozen=True)
class AuditFinding:
    rule: str  # rule name, e.g. "download-exec"
    severity: str
    file: Path
    line: int
    message: str
    evidence: str = ""  # the offending text (secrets redacted, hidden characters revealed)
    context: str = DOC

    @property
    def rule_id(self) -> str:
        return RULE_BY_NAME[self.rule].id

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "rule_id": self.rule_id, "severity": self.severity, "file": str(self.file),
                "line": self.line, "message": self.message, "evidence": self.evidence, "context": self.context}


@dataclass
class SkillAudit:
    target: Path
    name: str
    findings: list[AuditFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files skipped and why

    @property
    def max_severity(self) -> str | None:
        return max((f.severity for f in self.findings), key=level_index, default=None)

    def to_json(self) -> dict[str, Any]:
        return {"target": str(self.target), "name": self.name, "max_severity": self.max_severity,
                "findings": [f.to_json() for f in self.findings], "notes": self.notes}


# --- hidden Unicode ------------------------------------------------------------------------------

_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI_NAMES = {"\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
               "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI"}
_ZW_NAMES = {"\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "ZWNBSP"}


def decode_tags(run: str) -> str:
    """Tag characters mirror ASCII at U+E0000 + code: the hidden text a model may read."""
    return "".join(chr(ord(c) - 0xE0000) if 0x20 <= ord(c) - 0xE0000 < 0x7F else "" for c in run)


def reveal_hidden(text: str) -> str:
    """Make tag characters, zero-width characters and bidi controls visible (for the preview)."""
    text = _TAGS.sub(lambda m: f"⟦hidden: {decode_tags(m.group(0))}⟧", text)
    out = []
    for index, char in enumerate(text):
        if char in _ZERO_WIDTH and not (char == "\ufeff" and index == 0):
            out.append(f"⟦U+{ord(char):04X} {_ZW_NAMES[char]}⟧")
        elif char in _BIDI:
            out.append(f"⟦U+{ord(char):04X} {_BIDI_NAMES[char]}⟧")
        else:
            out.append(char)
    return "".join(out)


def _legit_joiner(text: str, index: int) -> bool:
    """ZWJ/ZWNJ between two non-ASCII characters is emoji or script shaping (Persian, Indic), not hiding."""
    if text[index] not in "\u200c\u200d":
        return False
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return bool(before and after and ord(before) > 0x7F and ord(after) > 0x7F)


# --- command-shaped rules -------------------------------------------------------------------------

_DL = r"(?:curl|wget|fetch|Invoke-WebRequest|iwr|Invoke-RestMethod|irm)\b"
_INTERP = r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell|iex"
_DOWNLOAD_EXEC = [
    (re.compile(rf"\b{_DL}[^\n|;]*\|\s*(?:{_INTERP})\b", re.I), "downloads a script and pipes it to an interpreter"),
    (re.compile(rf"(?:{_INTERP})\s+(?:-\S+\s+)*<\(\s*{_DL}", re.I), "runs a downloaded script via process substitution"),
    (re.compile(rf"(?:(?:ba|z)?sh\s+-c|eval)\s+[\"']?\$\(\s*{_DL}", re.I), "evaluates the output of a download"),
    (re.compile(rf"\b(?:iex|Invoke-Expression)\b[^\n]*(?:DownloadString|{_DL})", re.I), "PowerShell download-and-invoke"),
    (re.compile(r"\bnpx\s+(?:-y|--yes)\b", re.I), "npx -y installs and runs a package without asking"),
    (re.compile(r"\bpip[0-9.]*\s+install\s+(?:[^\n`;|&]*\s)?(?:git\+)?https?://", re.I), "pip installs a package from a URL"),
    (re.compile(r"\b(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r)[^\n|]*\|\s*(?:" + _INTERP + r")\b", re.I),
     "decodes data and pipes it to an interpreter"),
]
_DOWNLOAD_SEVERITY = {EXEC: "critical", SCRIPT: "high", DOC: "medium"}
_NPX_SEVERITY = {EXEC: "high", SCRIPT: "medium", DOC: "low"}

_CREDENTIALS = [
    (re.compile(r"~/\.ssh\b|\$HOME/\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|\.ssh/(?:id_|authorized_keys|known_hosts)"),
     "SSH keys"),
    (re.compile(r"\.aws/credentials\b|\.aws/config\b"), "AWS credentials"),
    (re.compile(r"\.config/gcloud\b|application_default_credentials\.json|\.azure/accessTokens|\.kube/config\b"),
     "cloud credentials"),
    (re.compile(r"\.netrc\b|\.git-credentials\b|\.docker/config\.json|\.npmrc\b|\.pypirc\b|\.config/gh/hosts\.yml"),
     "credential store"),
    (re.compile(r"\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|login\.keychain|"
                r"Keychains/|\bsecret-tool\s+lookup\b", re.I), "keychain"),
    (re.compile(r"Google/Chrome/(?:Default|Profile)|Chrome/User Data|\.mozilla/firefox|BraveSoftware|"
                r"\bLogin Data\b|\bkey4\.db\b|\blogins\.json\b|Cookies\.binarycookies", re.I), "browser profile"),
]
_DOTENV_READ = re.compile(r"(?:\b(?:cat|less|more|head|tail|source|type|strings|base64|xxd)\s+(?:-\S+\s+)*|"
                          r"\bopen\(\s*['\"]|readFileSync\(\s*['\"]|read_text\(\s*['\"]?|Get-Content\s+)"
                          r"[\w./~${}-]*\.env(?:\.\w+)?(?![\w.])")
_CRED_SEVERITY = {EXEC: "high", SCRIPT: "medium", DOC: "medium"}
_DOTENV_SEVERITY = {EXEC: "medium", SCRIPT: "low", DOC: "low"}

_NET_SEND = re.compile(r"\bcurl\b[^\n]*(?:\s-d\b|\s--data|\s-F\b|\s--form|\s-T\b|\s--upload-file|\s-X\s*POST|@-)|"
                       r"\bwget\b[^\n]*--post-|requests\.(?:post|put)\(|urllib\.request|\bfetch\(\s*['\"`]https?:|"
                       r"\bnc\s+\S+\s+\d+|https?://|/dev/tcp/", re.I)
_ENV_DUMP = re.compile(r"(?:^|[|;&(`$]\s*|\s)(?:env|printenv|export\s+-p|set)\s*(?=$|[|;&)>`])|"
                       r"\bos\.environ\b(?!\s*[\[.]\s*(?:get|\w))|\bdict\(\s*os\.environ\s*\)|"
                       r"JSON\.stringify\(\s*process\.env\s*\)|\bprocess\.env\b(?!\s*[\[.])|Get-ChildItem\s+env:", re.M)
_EXFIL_SEVERITY = {EXEC: "critical", SCRIPT: "critical", DOC: "high"}

_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?"
    r"(?:previous|prior|above|earlier|preceding|former|original|system)\s+(?:instructions?|prompts?|messages?|rules|directions|guidelines)"
    r"|\bdisregard\s+(?:the\s+|your\s+)?system\s+prompt"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|warn|mention\s+(?:this|it|anything)\s+to|reveal\s+(?:this|it)\s+to|let)\s+the\s+user(?:\s+know)?"
    r"|\bwithout\s+(?:the\s+user(?:'s)?|them)\s+(?:knowing|noticing|knowledge|being\s+aware)"
    r"|\b(?:hide|conceal)\s+(?:this|it|these\s+\w+|the\s+\w+)\s+from\s+the\s+user"
    r"|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|DAN|jailbreak|god)\s+mode", re.I)

_SECRETS = [
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "AWS access key id"),
    (re.compile(r"\bghp_[A-Za-z0-9]{36}\b|\bgh[ousr]_[A-Za-z0-9]{36}\b"), "GitHub token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"), "GitHub fine-grained token"),
    (re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"), "Slack token"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{32,}"), "Anthropic API key"),
    (re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,}"), "OpenAI API key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "Google API key"),
    (re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----\s*\n\s*[A-Za-z0-9+/=]{40,}"),
     "private key"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"), "JSON Web Token"),
]
_PLACEHOLDER = re.compile(r"EXAMPLE|example|x{6,}|X{6,}|0{8,}|1234567|abcdef|your|YOUR|\.\.\.|<|>|\*{3,}")

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){8,}|(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,}(?![0-9a-fA-F])")
_COMMANDISH = re.compile(r"\b(?:curl|wget|bash|sh\s+-c|/bin/(?:ba)?sh|rm\s+-rf|python[0-9]?\s+-c|eval|exec|nc\s+-e|"
                         r"powershell|chmod\s+\+x|Invoke-Expression|base64\s+-d|/dev/tcp|os\.system|subprocess)\b|"
                         r"https?://|\|\s*(?:ba)?sh\b")

_RUN_VERB = re.compile(r"(?:\b(?:python[0-9.]*|bash|sh|zsh|node|deno|bun|ruby|perl|pwsh|uv\s+run|npx\s+tsx|tsx|ts-node)"
                       r"\s+(?:-\S+\s+)*|(?<![\w/])\./|\b(?:run|execute|invoke)\s+`?)"
                       r"((?:\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\{baseDir\}/)?[\w./-]+\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|ps1))")


def _pip_installs_url(command: str) -> bool:
    """A URL given as the package, not as the value of --index-url / -f (where packages come from)."""
    tokens = command.split()
    return any(re.match(r"(?:git\+)?https?://", token) and
               tokens[i - 1] not in ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host")
               for i, token in enumerate(tokens) if i)


def redact(secret: str) -> str:
    keep = 4 if len(secret) > 12 else 2
    return f"{secret[:keep]}…[{len(secret) - keep} chars redacted]"


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _printable_ratio(data: bytes) -> float:
    return sum(32 <= b < 127 or b in (9, 10, 13) for b in data) / max(len(data), 1)


def _decode_blob(blob: str) -> str | None:
    """Decoded text of a base64/hex blob when it is mostly printable ASCII, else None."""
    candidates = []
    if blob.startswith("\\x"):
        candidates.append(bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-fA-F]{2})", blob)))
    elif re.fullmatch(r"[0-9a-fA-F]+", blob) and len(blob) % 2 == 0:
        candidates.append(binascii.unhexlify(blob))
    else:
        try:
            candidates.append(base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True))
        except (binascii.Error, ValueError):
            return None
    for data in candidates:
        if len(data) >= 8 and _printable_ratio(data) > 0.95:
            return data.decode("ascii", errors="replace")
    return None


# --- scanning ---------------------------------------------------------------------------------------

@dataclass
class _Text:
    """One file's text with the context of every offset."""

    path: Path
    text: str
    base_context: str  # context outside exec spans
    exec_spans: list[tuple[int, int]] = field(default_factory=list)
    line_starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line(self, offset: int) -> int:
        import bisect
        return bisect.bisect_right(self.line_starts, offset)

    def context(self, offset: int) -> str:
        if any(start <= offset < end for start, end in self.exec_spans):
            return EXEC
        return self.base_context

    def line_text(self, offset: int) -> str:
        number = self.line(offset)
        end = self.line_starts[number] - 1 if number < len(self.line_starts) else len(self.text)
        return self.text[self.line_starts[number - 1]:end]


def _clip(text: str, limit: int = 160) -> str:
    # reveal_hidden only lengthens text, so a bounded prefix gives the same clip at any line length
    text = reveal_hidden(text.strip()[:limit * 8])
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _Collector:
    def __init__(self) -> None:
        self.findings: list[AuditFinding] = []
        self._seen: set[tuple[str, Path, int]] = set()

    def seen(self, rule: str, scan: _Text, offset: int) -> bool:
        """One finding per rule and line: callers skip building evidence (quadratic on a long line) for repeats."""
        return (rule, scan.path, scan.line(offset)) in self._seen

    def add(self, rule: str, severity: str, scan: _Text, offset: int, message: str, evidence: str) -> None:
        line = scan.line(offset)
        key = (rule, scan.path, line)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(AuditFinding(rule, severity, scan.path, line, message, evidence, scan.context(offset)))


def _scan_text(scan: _Text, out: _Collector) -> None:
    text = scan.text
    for match in _TAGS.finditer(text):
        out.add("hidden-unicode", "critical", scan, match.start(),
                f"{len(match.group(0))} invisible Unicode tag characters spell hidden text", f"hidden: {decode_tags(match.group(0))!r}")
    for index, char in enumerate(text):
        if (char in _BIDI or char in _ZERO_WIDTH) and out.seen("hidden-unicode", scan, index):
            continue
        if char in _BIDI:
            out.add("hidden-unicode", "high", scan, index, f"bidi control U+{ord(char):04X} ({_BIDI_NAMES[char]}) can "
                    "reorder what a reviewer sees", _clip(scan.line_text(index)))
        elif char in _ZERO_WIDTH and not (index == 0 and char == BOM) and not _legit_joiner(text, index):
            out.add("hidden-unicode", "medium", scan, index, f"zero-width character U+{ord(char):04X} "
                    f"({_ZW_NAMES[char]}) inside the text", _clip(scan.line_text(index)))
    for pattern, reason in _DOWNLOAD_EXEC:
        for match in pattern.finditer(text):
            context = scan.context(match.start())
            table = _NPX_SEVERITY if reason.startswith("npx") else _DOWNLOAD_SEVERITY
            if reason.startswith("pip") and not _pip_installs_url(match.group(0)):
                continue
            out.add("download-exec", table[context], scan, match.start(), reason, _clip(scan.line_text(match.start())))
    for pattern, what in _CREDENTIALS:
        for match in pattern.finditer(text):
            context = scan.context(match.start())
            out.add("credential-read", _CRED_SEVERITY[context], scan, match.start(), f"refers to {what} ({match.group(0)})",
                    _clip(scan.line_text(match.start())))
    for match in _DOTENV_READ.finditer(text):
        out.add("credential-read", _DOTENV_SEVERITY[scan.context(match.start())], scan, match.start(),
                "reads a .env file", _clip(match.group(0)))
    for match in _ENV_DUMP.finditer(text):
        line = scan.line_text(match.start())
        if _NET_SEND.search(line):
            out.add("env-exfiltration", _EXFIL_SEVERITY[scan.context(match.start())], scan, match.start(),
                    "dumps the environment on a line that sends data over the network", _clip(line))
    for match in _INJECTION.finditer(text):
        severity = "high" if scan.path.suffix.lower() in (".md", ".mdx", ".txt", "") else "medium"
        out.add("prompt-injection", severity, scan, match.start(), f"prompt-injection phrasing: “{match.group(0)}”",
                _clip(scan.line_text(match.start())))
    for pattern, what in _SECRETS:
        for match in pattern.finditer(text):
            token = match.group(0)
            if _PLACEHOLDER.search(token) or _entropy(token) < 3.0:
                continue
            out.add("hardcoded-secret", "high", scan, match.start(), f"hard-coded {what}", redact(token.split("\n")[0]
                    if what != "private key" else "-----BEGIN PRIVATE KEY-----"))
    for regex in (_B64, _HEX):
        for match in regex.finditer(text):
            decoded = _decode_blob(match.group(0))
            if decoded and _COMMANDISH.search(decoded):
                severity = "critical" if scan.context(match.start()) == EXEC else "high"
                out.add("encoded-payload", severity, scan, match.start(), "encoded blob decodes to a command",
                        f"decodes to: {_clip(decoded, 120)!r}")


def _iter_files(skill_dir: Path, notes: list[str]) -> Iterable[Path]:
    count = 0
    for root, dirs, files in os.walk(skill_dir):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            if path.name == "SKILL.md" and path.parent == skill_dir:
                continue
            count += 1
            if count > MAX_FILES:
                notes.append(f"stopped after {MAX_FILES} files")
                return
            yield path


def _allowed_tools(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [js_string(v).strip() for v in value if v is not None]
    return re.findall(r"[A-Za-z_][\w-]*(?:\([^)]*\))?", js_string(value))


def _fm_line(text: str, key: str) -> int:
    match = re.search(rf"^{re.escape(key)}[ \t]*:", text, re.M)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def audit_skill(skill_md: Path, *, name: str | None = None) -> SkillAudit:
    """Audit one skill: its SKILL.md (or command file) and, for a skill folder, every text file in it."""
    is_skill = skill_md.name == "SKILL.md"
    skill_dir = skill_md.parent
    report = SkillAudit(skill_dir if is_skill else skill_md, name or (skill_dir.name if is_skill else skill_md.stem))
    out = _Collector()
    read = read_text_file(skill_md, max_bytes=MAX_FILE_BYTES)
    if read.text is None:
        report.notes.extend(d.message for d in read.diagnostics)
        return report
    text = read.text
    doc = parse_document(text, strip_bom=True, path=skill_md)
    body_offset = len(text) - len(doc.body) if doc.body and text.endswith(doc.body) else 0
    scan = _Text(skill_md, text, DOC)
    snippets = find_inline_shell(doc.body)
    scan.exec_spans = [(body_offset + s.start, body_offset + s.end) for s in snippets]
    fm = doc.front_matter
    tools = _allowed_tools(fm.get("allowed-tools"))
    broad = [t for t in tools if re.fullmatch(r"(?:Bash|PowerShell)(?:\(\s*(?::?\*)?\s*\))?", t)]
    for snippet in snippets:
        severity = "high" if broad else "medium"
        offset = body_offset + snippet.start
        out.add("inline-shell", severity, scan, offset,
                f"runs at invocation: {snippet.command!r}" + (" (pre-approved by allowed-tools)" if broad else ""),
                _clip(snippet.matched, 200))
    if broad:
        line = _fm_line(text, "allowed-tools")
        out.findings.append(AuditFinding("unrestricted-bash", "high", skill_md, line,
                                         f"allowed-tools pre-approves any shell command: {', '.join(broad)}",
                                         ", ".join(tools), DOC))
    if fm.get("hooks"):
        hooks = fm["hooks"]
        commands = re.findall(r"'command': '([^']*)'", repr(hooks))
        out.findings.append(AuditFinding("front-matter-hooks", "high", skill_md, _fm_line(text, "hooks"),
                                         "front matter declares hooks that run commands on tool events",
                                         _clip("; ".join(commands) or repr(hooks)), DOC))
    _scan_text(scan, out)
    if is_skill:
        run_targets = _scripts_to_run(doc.body, skill_dir, scan, body_offset, out)
        for path in _iter_files(skill_dir, report.notes):
            rel = path.relative_to(skill_dir).as_posix()
            if path.suffix.lower() not in TEXT_EXTS or path.name.startswith("."):
                if path.suffix.lower() not in TEXT_EXTS:
                    report.notes.append(f"skipped {rel}: not a text file type")
                    continue
            result = read_text_file(path, max_bytes=MAX_FILE_BYTES)
            if result.text is None or any(d.code == "binary-file" for d in result.diagnostics):
                report.notes.append(f"skipped {rel}: binary or unreadable")
                continue
            if result.truncated:
                report.notes.append(f"{rel}: only the first {MAX_FILE_BYTES:,} bytes were scanned")
            is_script = path.suffix.lower() in SCRIPT_EXTS or result.text.startswith("#!")
            context = EXEC if rel in run_targets else SCRIPT if is_script else DOC
            _scan_text(_Text(path, result.text, context, [(0, len(result.text))] if context == EXEC else []), out)
    report.findings = sorted(out.findings, key=lambda f: (-level_index(f.severity), str(f.file), f.line))
    return report


def _scripts_to_run(body: str, skill_dir: Path, scan: _Text, body_offset: int, out: _Collector) -> set[str]:
    """Scripts in the skill folder that the body tells the model to run (relative posix paths)."""
    targets: set[str] = set()
    for match in _RUN_VERB.finditer(body):
        raw = re.sub(r"^(?:\$\{CLAUDE_SKILL_DIR\}/|\$CLAUDE_SKILL_DIR/|\{baseDir\}/)", "", match.group(1))
        raw = raw[2:] if raw.startswith("./") else raw
        candidate = skill_dir / raw
        if not candidate.is_file():
            found = [p for p in skill_dir.rglob(Path(raw).name) if p.is_file()] if "/" not in raw else []
            if len(found) != 1:
                continue
            candidate = found[0]
        rel = candidate.relative_to(skill_dir).as_posix()
        if rel not in targets:
            targets.add(rel)
            out.add("runs-shipped-script", "info", scan, body_offset + match.start(),
                    f"the body tells the model to run {rel}; it is scanned as code that runs", _clip(match.group(0)))
    return targets


def audit_paths(paths: Iterable[Path]) -> list[SkillAudit]:
    """Audit skill dirs, SKILL.md / command files, or skills dirs (each skill folder inside)."""
    from .validate import find_skill_file, skill_dirs_in

    audits = []
    for path in paths:
        path = Path(path)
        if path.is_file():
            audits.append(audit_skill(path))
        elif path.is_dir():
            skill_md = path / "SKILL.md" if (path / "SKILL.md").is_file() else None
            if skill_md:
                audits.append(audit_skill(skill_md))
                continue
            for skill_dir in skill_dirs_in(path):
                audits.append(audit_skill(find_skill_file(skill_dir) or skill_dir / "SKILL.md"))
            for lone in sorted(path.glob("*.md")):
                audits.append(audit_skill(lone))
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
