"""Usage counts from Claude Code's session transcripts (core/load/usage_log.py).

The transcript format comes from the real CLIs: tests/golden/transcripts/{legacy,current}.jsonl were
written by Claude Code 2.1.88 and 2.1.332 (tests/oracle/record_transcripts.py): the user typed
`/proj-skill alpha beta`, then the model called the Skill tool on `user-skill`.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from skillmanager.core.load import usage_log
from skillmanager.core.load.usage_log import UsageLimits, read_usage, usage_detail, usage_words

GOLDEN = Path(__file__).resolve().parent / "golden" / "transcripts"
AFTER_RECORDING = datetime(2026, 12, 3, tzinfo=timezone.utc)


def _install(config: Path, name: str, text: bytes | str, slug: str = "-WORK-home-proj") -> Path:
    path = config / "projects" / slug / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize("version", ["legacy", "current"])
def test_golden_transcript_counts_model_calls_and_typed_commands(tmp_path, version):
    _install(tmp_path, "session.jsonl", (GOLDEN / f"{version}.jsonl").read_bytes())
    log = read_usage(tmp_path, days=30, now=AFTER_RECORDING)
    assert {name: (u.by_model, u.typed, u.total) for name, u in log.counts.items()} == {
        "user-skill": (1, 0, 1), "proj-skill": (0, 1, 1)}
    assert log.files_read == 1 and log.malformed_lines == 0 and log.problems == []
    last = log.of("user-skill").last_used
    assert last is not None and last.date() == datetime(2026, 12, 2).date()
    assert log.of("proj-skill").last_used < last  # typed first, then the model's call
    assert log.of("absent").total == 0


@pytest.mark.parametrize("version", ["legacy", "current"])
def test_a_copied_session_counts_once_and_old_uses_fall_outside_the_window(tmp_path, version):
    text = (GOLDEN / f"{version}.jsonl").read_bytes()
    _install(tmp_path, "session.jsonl", text)
    _install(tmp_path, "forked.jsonl", text, slug="-WORK-other")  # a fork copies the earlier lines
    assert read_usage(tmp_path, now=AFTER_RECORDING).of("user-skill").total == 1
    later = read_usage(tmp_path, days=30, now=AFTER_RECORDING + timedelta(days=40))
    assert later.counts == {}


def test_words():
    assert usage_words(usage_log.SkillUsage(by_model=10, typed=4)) == "used 14× in 30 days"
    assert usage_words(usage_log.SkillUsage(), 30) == "never"
    assert usage_words(usage_log.SkillUsage(typed=1), 7) == "used 1× in 7 days"
    assert "called it 10×" in usage_detail(usage_log.SkillUsage(by_model=10, typed=4))
    assert usage_detail(usage_log.SkillUsage()).startswith("Never: not used in the last 30 days")
    assert usage_detail(usage_log.SkillUsage(typed=3)).startswith("Used 3× in 30 days: ")
    assert usage_log.usage_short(usage_log.SkillUsage(by_model=1200)) == "1,200×"


def _model_call(name: str, tool_id: str, when: str = "2026-12-01T10:00:00.000Z") -> str:
    return json.dumps({"type": "assistant", "uuid": f"u-{tool_id}", "timestamp": when, "message": {
        "role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": "Skill",
                                          "input": {"skill": name}}]}})


def _typed(name: str, uuid: str, when: str = "2026-12-01T10:00:00.000Z") -> str:
    return json.dumps({"type": "user", "uuid": uuid, "timestamp": when, "message": {
        "role": "user", "content": f"<command-message>{name}</command-message>\n<command-name>/{name}</command-name>"
                                   "\n<command-args></command-args>"}})


def test_a_huge_line_is_skipped_without_losing_the_lines_after_it(tmp_path):
    limits = UsageLimits(max_line_bytes=4096)
    huge = '{"type":"assistant","x":"' + "S" * 100_000 + '","Skill":1}'
    _install(tmp_path, "s.jsonl", _model_call("a", "t1") + "\n" + huge + "\n" + _model_call("b", "t2") + "\n")
    log = read_usage(tmp_path, now=AFTER_RECORDING, limits=limits)
    assert (log.of("a").total, log.of("b").total, log.long_lines) == (1, 1, 1)


def test_binary_and_malformed_lines_are_counted_and_skipped(tmp_path):
    noise = bytes(range(256)) * 50 + b"\n{not json <command-name>/x</command-name>}\n[1,2]\n" + b"\x00" * 1000
    _install(tmp_path, "s.jsonl", noise + b"\n" + _typed("kept", "u1").encode() + b"\n")
    digits = '{"type":"user","n":' + "9" * 5000 + ',"m":"<command-name>/big</command-name>"}'
    _install(tmp_path, "t.jsonl", digits + "\n")
    log = read_usage(tmp_path, now=AFTER_RECORDING)
    assert log.of("kept").typed == 1 and log.of("x").total == 0 and log.of("big").total == 0
    assert log.malformed_lines >= 4


def test_a_file_without_end_is_cut_at_its_byte_and_line_limits(tmp_path):
    _install(tmp_path, "endless.jsonl", (_model_call("a", "first") + "\n").encode() + b"x" * 300_000)
    lines = "".join(_model_call("b", f"t{i}") + "\n" for i in range(50))
    _install(tmp_path, "many.jsonl", lines)
    limits = UsageLimits(max_file_bytes=100_000, max_line_bytes=10_000, max_lines=20)
    log = read_usage(tmp_path, now=AFTER_RECORDING, limits=limits)
    assert log.of("a").total == 1 and log.of("b").total == 20
    assert log.cut_files == 2 and log.long_lines == 1


def test_fifos_devices_and_links_are_never_opened(tmp_path):
    fifo = tmp_path / "projects" / "p" / "pipe.jsonl"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    os.symlink("/dev/zero", fifo.parent / "zero.jsonl")
    _install(tmp_path, "ok.jsonl", _typed("t", "u1") + "\n", slug="p")
    result: list = []
    worker = threading.Thread(target=lambda: result.append(read_usage(tmp_path, now=AFTER_RECORDING)), daemon=True)
    worker.start()
    worker.join(60)  # hang guard only: a blocking open would never return
    assert result, "reading the session logs blocked on a FIFO or device"
    assert result[0].of("t").typed == 1 and result[0].files_skipped == 2 and result[0].files_read == 1


def test_unreadable_folders_are_said_not_raised(tmp_path, monkeypatch):
    (tmp_path / "projects").write_text("a file where the folder should be")
    assert "cannot be read" in read_usage(tmp_path, now=AFTER_RECORDING).problems[0]
    other = tmp_path / "second"
    _install(other, "ok.jsonl", _typed("t", "u1") + "\n", slug="good")
    (other / "projects" / "locked").mkdir()
    real_scandir = os.scandir

    def refusing(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(usage_log.os, "scandir", refusing)
    log = read_usage(other, now=AFTER_RECORDING)
    assert log.of("t").typed == 1
    assert any("Permission denied" in p and "locked" in p for p in log.problems)
    assert read_usage(tmp_path / "missing", now=AFTER_RECORDING).counts == {}


def test_only_the_newest_files_are_read(tmp_path):
    for i in range(5):
        path = _install(tmp_path, f"s{i}.jsonl", _typed(f"n{i}", f"u{i}") + "\n")
        stamp = (AFTER_RECORDING - timedelta(days=1, hours=i)).timestamp()
        os.utime(path, (stamp, stamp))
    log = read_usage(tmp_path, now=AFTER_RECORDING, limits=UsageLimits(max_files=2))
    assert set(log.counts) == {"n0", "n1"} and log.files_skipped == 3


_EVENT = st.one_of(
    st.tuples(st.just("model"), st.sampled_from(["a", "b", "c:d", "/a"]), st.integers(0, 40)),
    st.tuples(st.just("typed"), st.sampled_from(["a", "b", "c:d"]), st.integers(0, 40)),
    st.tuples(st.just("noise"), st.sampled_from(['{"type":"attachment","x":"Skill"}', "garbage",
                                                 '{"type":"user","isMeta":true,"message":{"content":'
                                                 '"<command-name>/a</command-name>"}}', ""]), st.just(0)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.lists(_EVENT, max_size=15), min_size=1, max_size=4))
def test_counts_equal_a_naive_count(tmp_path, files):
    config = tmp_path / f"c{abs(hash(json.dumps(files)))}"
    shutil.rmtree(config, ignore_errors=True)
    serial = 0
    for f_index, events in enumerate(files):
        lines = []
        for kind, name, days_ago in events:
            serial += 1
            when = (AFTER_RECORDING - timedelta(days=days_ago, minutes=1)).isoformat().replace("+00:00", "Z")
            lines.append(_model_call(name, f"t{serial}", when) if kind == "model" else
                         _typed(name, f"u{serial}", when) if kind == "typed" else name)
        _install(config, f"s{f_index}.jsonl", "\n".join(lines) + "\n", slug=f"p{f_index % 2}")
    # naive: parse every line of every file, no marker filter, no bounds
    naive: dict[str, list[int]] = {}
    for path in (config / "projects").glob("*/*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            when = datetime.fromisoformat(rec.get("timestamp", "1970-01-01T00:00:00Z").replace("Z", "+00:00"))
            if when < AFTER_RECORDING - timedelta(days=30):
                continue
            content = rec.get("message", {}).get("content")
            if rec.get("type") == "assistant":
                for block in content:
                    if block.get("name") == "Skill":
                        naive.setdefault(block["input"]["skill"].lstrip("/"), [0, 0])[0] += 1
            elif rec.get("type") == "user" and not rec.get("isMeta"):
                name = content.split("<command-name>/", 1)[1].split("<", 1)[0]
                naive.setdefault(name, [0, 0])[1] += 1
    log = read_usage(config, days=30, now=AFTER_RECORDING)
    assert {n: [u.by_model, u.typed] for n, u in log.counts.items()} == naive
