"""Audit rules about embedded data: hard-coded secrets and encoded blobs that decode to commands.

Published sample credentials (AWS's documentation keys, jwt.io's sample token, Stripe's public test
key, obvious placeholders) are not secrets. Fast path: a secret pattern runs only where the words and
needles its regex needs occur (audit_base.RulePlan; `secret_hits(..., fast=False)` is the reference for the
property tests).
"""
from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from typing import Iterable

from .audit_base import Hit, RulePlan, fold_lower, known_gate, known_words, needle_cache, one_line
from .audit_words import block_bits

_SECRETS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "AWS access key id"),
    (re.compile(r"(?i:aws_secret_access_key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
     "AWS secret access key"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"), "GitHub token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"), "GitHub fine-grained token"),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20}\b"), "GitLab token"),
    (re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"), "Slack token"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{32,}"), "Anthropic API key"),
    (re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,}"), "OpenAI API key"),
    (re.compile(r"\b[sr]k_live_[A-Za-z0-9]{20,}\b"), "Stripe live key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "Google API key"),
    (re.compile(r"\bhf_[A-Za-z0-9]{34,}\b"), "Hugging Face token"),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "npm token"),
    (re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{50,}"), "PyPI token"),
    (re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"), "SendGrid key"),
    (re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"), "Telegram bot token"),
    (re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----\s{0,4}\n\s{0,8}"
                r"[A-Za-z0-9+/=]{40,}"), "private key"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"), "JSON Web Token"),
    (re.compile(r"(?i:\b(?:password|passwd|secret|api_?key|access_?token|auth_?token|client_?secret)[\"']?\s*[:=]\s*)"
                r"[\"']([A-Za-z0-9!#$%&*+/=?@^_~.-]{16,80})[\"']"), "password or key in an assignment"),
)
# Each rule but the private key sees one line at a time: the fast path searches the lines holding a needle, so
# a key name and its value split across lines (`\s*` over a newline) were found only by the slow path.
_SECRETS = tuple((regex if what == "private key" else one_line(regex), what) for regex, what in _SECRETS)
_RULES = tuple(RulePlan(regex) for regex, _ in _SECRETS)
_WORD_GATES = tuple(rule.gate for rule in _RULES)
# documentation keys published by their vendors, and placeholder shapes
_PUBLISHED = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
              "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "AKIAI44QH8DHBEXAMPLE",
              "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY")
_PLACEHOLDER = re.compile(r"EXAMPLE|example|[xX]{6,}|0{8,}|1234567|abcdef|ABCDEF|your|YOUR|Your|\.\.\.|<|>|\*{3,}|"
                          r"placeholder|PLACEHOLDER|dummy|DUMMY|fake|FAKE|sample|SAMPLE|changeme|CHANGEME|redacted|REDACTED|"
                          r"(.)\1{7,}|test_?key|TEST_?KEY")


_KEY_PLACEHOLDER = re.compile(r"EXAMPLE|example|\.\.\.|<|[xX]{6,}|your|YOUR|REDACTED|redacted|fake|FAKE|dummy|DUMMY|"
                              r"placeholder|PLACEHOLDER")


def redact(secret: str) -> str:
    keep = 4 if len(secret) > 12 else 2
    return f"{secret[:keep]}…[{len(secret) - keep} chars redacted]"


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def is_sample(token: str) -> bool:
    return any(p in token for p in _PUBLISHED) or bool(_PLACEHOLDER.search(token)) or entropy(token) < 3.0


def secret_hits(text: str, *, fast: bool = True) -> list[Hit]:
    hits: list[Hit] = []
    low = fold_lower(text) if fast else None  # None: lowering changed lengths, every rule scans the whole text
    cache = needle_cache(text, low) if low is not None else None
    gate = known_gate(text) if fast else None  # rules out needles from the block's words, before the text search
    words = known_words(text) if fast else None
    bits = block_bits(words) if words is not None else -1  # -1: every bit, nothing ruled out
    for (regex, what), rule in zip(_SECRETS, _RULES):
        if not bits & rule.quick and rule.quick != -1:
            continue  # every alternative needs a word or character the block lacks
        chosen = rule.choose(bits)
        if not chosen:
            continue  # every alternative needs a word or character the block lacks
        matches: Iterable[re.Match[str]]
        if what == "private key" and low is not None and cache is not None:
            # spans two lines: searched whole where its needles are (it starts with a literal: a cheap scan)
            matches = regex.finditer(text) if rule.regions(text, low, words, cache, gate, chosen) else ()
        else:
            matches = rule.finditer(text, low, words, cache, gate, chosen)
        for match in matches:
            token = match.group(match.lastindex or 0)
            if (_KEY_PLACEHOLDER.search(token) if what == "private key" else is_sample(token)):
                continue  # a key's base64 has runs of "A" by its format: only placeholder words mark a sample
            if what == "password or key in an assignment" and (entropy(token) < 3.5 or "{" in token or "$" in token):
                continue
            shown = "-----BEGIN PRIVATE KEY-----" if what == "private key" else token.split("\n")[0]
            hits.append(Hit("hardcoded-secret", match.start(), "high", "high", f"hard-coded {what}", redact(shown)))
    return hits


# --- encoded blobs ----------------------------------------------------------------------------------

_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){8,}|(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,}(?![0-9a-fA-F])")
_COMMANDISH = re.compile(r"\b(?:curl|wget|bash|sh\s+-c|/bin/(?:ba)?sh|rm\s+-rf|python[0-9]?\s+-c|eval|exec|nc\s+-e|"
                         r"powershell|chmod\s+\+x|Invoke-Expression|iex|base64\s+-d|/dev/tcp|os\.system|subprocess|"
                         r"socket|requests\.post|crontab|\.ssh|\.aws|printenv|ignore\s+(?:all\s+)?previous)\b|"
                         r"https?://|\|\s*(?:ba)?sh\b")
_MAX_BLOB = 64 * 1024
_MIXED_CASE = re.compile(r"[A-Z][^a-z]{0,256}[a-z][^A-Z]{0,256}[A-Z]")  # camelCase words are not blobs  # decode at most this much of one blob


def _printable_ratio(data: bytes) -> float:
    return sum(32 <= b < 127 or b in (9, 10, 13) for b in data) / max(len(data), 1)


def decode_blob(blob: str) -> str | None:
    """Decoded text of a base64/hex blob when it is mostly printable ASCII, else None."""
    blob = blob[:_MAX_BLOB]
    try:
        if blob.startswith("\\x"):
            data = bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-fA-F]{2})", blob))
        elif re.fullmatch(r"[0-9a-fA-F]+", blob) and len(blob) % 2 == 0:
            data = binascii.unhexlify(blob)
        else:
            blob = blob[:len(blob) - len(blob) % 4] if len(blob) >= _MAX_BLOB else blob
            data = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(data) >= 8 and _printable_ratio(data) > 0.95:
        return data.decode("ascii", errors="replace")
    return None


_LONG_RUN = re.compile(r"(?<![^\s\"'`(),;:<>\[\]{}|])[^\s\"'`(),;:<>\[\]{}|]{24,}")  # only from a run's start


# The ASCII separators of _LONG_RUN (with the ASCII characters `\\s` matches) as one byte table: the
# UTF-8 bytes split at them into runs at least as long as the text's runs (a character is 1+ bytes). Every
# other byte becomes "x", so a run of 24+ bytes is where b"x" * 24 occurs (one C search per long run instead
# of a bytes object per word).
_RUN_SEPARATORS = bytes(c for c in range(128) if re.match(r"[\s\"'`(),;:<>\[\]{}|]", chr(c)))
_RUNS_TO_X = bytes(32 if c in _RUN_SEPARATORS else 120 for c in range(256))
_LONG_BYTE_RUN = b"x" * 24


def _long_runs(text: str, data: bytes | None = None, errors: str = "replace") -> list[tuple[int, int]]:
    """_LONG_RUN's matches as spans, searched only inside the byte runs of 24+ bytes (one C search per
    such run instead of a regex step at every character). `data`: the bytes `text` was decoded from (UTF-8,
    with these `errors`), else text.encode("utf-8", "surrogatepass")."""
    if data is None:
        data, errors = text.encode("utf-8", "surrogatepass"), "surrogatepass"
    marks = data.translate(_RUNS_TO_X)
    spans: list[tuple[int, int]] = []
    cursor = 0
    start = marks.find(_LONG_BYTE_RUN)  # the first occurrence is a run's start: the runs before are shorter
    while start != -1:
        end = marks.find(b" ", start)
        end = len(marks) if end == -1 else end
        next_start = marks.find(_LONG_BYTE_RUN, end)
        # cut at ASCII separators, the run decodes to the very characters it decoded to in the whole
        run = data[start:end].decode("utf-8", errors)
        # only shorter runs lie between the cursor and this run, so its first occurrence is the run
        at = text.find(run, cursor)
        spans += [(m.start(), m.end()) for m in _LONG_RUN.finditer(text, at, at + len(run))]
        cursor = at + len(run)
        start = next_start
    return spans


# Every base64 match is a whole run of 24+ of these characters (its lookbehind: no such character before it), every
# hex match of 32+ hex digits lies inside one, and every `\\x..` match holds `\\x`: without `\\x` both are searched
# only around those runs, found in the UTF-8 bytes by one C search each (a block with none has no blob at all).
_BASE64_TO_X = bytes(120 if c < 128 and re.match(r"[A-Za-z0-9+/]", chr(c)) else 32 for c in range(256))


def _base64_runs(text: str, data: bytes) -> list[tuple[int, int]] | None:
    """The spans of `text` around its runs of 24+ base64 characters (with the character before and the three
    after that the patterns' lookarounds and `=` padding look at); None where `\\x` occurs (search the long
    runs instead)."""
    if data.find(b"\\") != -1 and data.find(b"\\x") != -1:  # a backslash first: one memchr, most blocks have none
        return None
    marks = data.translate(_BASE64_TO_X)
    spans: list[tuple[int, int]] = []
    cursor = 0
    start = marks.find(_LONG_BYTE_RUN)  # the first occurrence is a run's start: the runs before are shorter
    while start != -1:
        end = marks.find(b" ", start)
        end = len(marks) if end == -1 else end
        run = data[start:end].decode("ascii")
        at = start if len(data) == len(text) else text.find(run, cursor)  # shorter runs only lie before it
        spans.append((max(0, at - 1), min(len(text), at + len(run) + 3)))
        cursor = at + len(run)
        start = marks.find(_LONG_BYTE_RUN, end)
    return spans


def blob_hits(text: str, *, fast: bool = True, data: bytes | None = None) -> list[Hit]:
    """Fast path: blobs are searched only around runs of 24+ base64 characters (or, where `\\x` occurs, inside
    runs of 24+ characters without separators). `data`: the bytes `text` was decoded from (UTF-8, errors
    replaced), when at hand."""
    hits: list[Hit] = []
    if fast:
        errors = "replace"  # how `data` decodes to `text`: a lone surrogate only round-trips with surrogatepass
        if data is None:
            data, errors = text.encode("utf-8", "surrogatepass"), "surrogatepass"
        runs = _base64_runs(text, data)
        spans = runs if runs is not None else [(max(0, start - 1), min(len(text), end + 1))
                                               for start, end in _long_runs(text, data, errors)]
    else:
        spans = [(0, len(text))]
    matches = sorted(((m.start(), m) for regex in (_B64, _HEX) for start, end in spans
                      for m in regex.finditer(text, start, end)),
                     key=lambda pair: pair[0])
    seen = set()
    for _, match in matches:
        if match.start() in seen:
            continue
        seen.add(match.start())
        blob = match.group(0)
        if len(blob) < 24 or (blob.isalpha() and blob.isascii() and not _MIXED_CASE.search(blob[:256])):
            continue
        decoded = decode_blob(blob)
        if decoded and _COMMANDISH.search(decoded):
            hits.append(Hit("encoded-payload", match.start(), "critical", "high", "encoded blob decodes to a command",
                            f"decodes to: {' '.join(decoded[:200].split())!r}"))
    return hits
