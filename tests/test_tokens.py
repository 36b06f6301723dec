"""Token counts against golden data from the reference implementations (see tests/data/token_golden.json)."""

import json
import shutil
import threading
from pathlib import Path

import pytest

from skillmanager.core.layers import tokens
from skillmanager.core.resources import resource_path
from skillmanager.core.layers.tokens import (
    TokenEstimate,
    TokenizerDataError,
    count_tokens,
    estimate_compaction_tokens,
    estimate_tokens,
    get_encoding,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "token_golden.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=range(len(GOLDEN["cases"])))
def test_claude_counts_match_npm_tokenizer(case):
    assert count_tokens(case["text"], "claude") == case["claude"]


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=range(len(GOLDEN["cases"])))
def test_o200k_counts_match_reference(case):
    assert count_tokens(case["text"], "o200k") == case["o200k"]


def test_o200k_documented_token_ids():
    doc = GOLDEN["documented"]["o200k_base"]
    assert get_encoding("o200k").encode_ordinary(doc["text"]) == doc["tokens"]


def test_default_vocabulary_is_claude_and_unknown_is_rejected():
    assert count_tokens("hello world") == count_tokens("hello world", "claude")
    with pytest.raises(ValueError):
        count_tokens("x", "cl100k")


@pytest.mark.parametrize(
    "text, expected",
    [("", 0), ("a", 0), ("ab", 1), ("abcdef", 2), ("abcdefghij", 3), ("abcdefghijklmn", 4), ("😀", 1), ("😀😀😀", 2)],
)
def test_compaction_estimate_is_js_math_round_of_utf16_length_over_4(text, expected):
    # Claude Code: Math.round(content.length / 4); 2/4 = 0.5 rounds up, 10/4 = 2.5 -> 3 (not banker's 2)
    assert estimate_compaction_tokens(text) == expected


def test_token_estimate_carries_both_counts_and_a_label():
    est = estimate_tokens("hello 😀")
    assert isinstance(est, TokenEstimate)
    assert est.chars == 8
    assert est.claude_tokens == count_tokens("hello 😀", "claude")
    assert est.o200k_tokens == count_tokens("hello 😀", "o200k")
    assert est.compaction_estimate == 2
    assert "estimate" in est.label.lower()


def test_lone_surrogate_does_not_crash():
    assert count_tokens("ab\ud83d", "claude") >= 1
    assert count_tokens("ab\ud83d", "o200k") >= 1


def test_encoding_loaded_once_across_threads():
    results = []
    threads = [threading.Thread(target=lambda: results.append(get_encoding("claude"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(e) for e in results}) == 1


@pytest.mark.parametrize("vocabulary", ["claude", "o200k"])
def test_corrupt_vocabulary_gives_clear_error(tmp_path, vocabulary):
    name = tokens.VOCABULARIES[vocabulary].filename
    data = bytearray(resource_path("tokenizers", name).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / name).write_bytes(bytes(data))
    with pytest.raises(TokenizerDataError, match="sha256"):
        get_encoding(vocabulary, directory=tmp_path)


def test_missing_vocabulary_gives_clear_error(tmp_path):
    with pytest.raises(TokenizerDataError, match="not readable"):
        get_encoding("claude", directory=tmp_path)


def test_unreadable_vocabulary_gives_clear_error(tmp_path, monkeypatch):
    shutil.copy(resource_path("tokenizers", "claude.json"), tmp_path / "claude.json")
    real_read = Path.read_bytes

    def deny(self):
        if self.name == "claude.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    with pytest.raises(TokenizerDataError, match="Permission denied"):
        get_encoding("claude", directory=tmp_path)


def test_intact_copy_in_another_directory_loads(tmp_path):
    shutil.copy(resource_path("tokenizers", "claude.json"), tmp_path / "claude.json")
    assert len(get_encoding("claude", directory=tmp_path).encode("hello world")) == 2


def test_resource_path_uses_pyinstaller_bundle(monkeypatch, tmp_path):
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path), raising=False)
    assert resource_path("tokenizers", "claude.json") == tmp_path / "resources" / "tokenizers" / "claude.json"


def test_resource_path_from_checkout():
    assert resource_path("tokenizers", "SOURCES.md").is_file()
