"""A first scan whose last skills dirs a forked child reads and parses (core/load/parse_ahead.py) gives exactly
what one process reading everything gives; files changed after the child read them are read again; the child
never outlives the scan. Each scan runs in a fresh single-threaded process, as the CLI does (a test process may
have threads, and forking it would not be what runs)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillmanager.core import forking
from skillmanager.core.load import cache_file, parse_ahead, parse_cache

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = Path(__file__).parent / "data" / "corpus_sample"
PACKAGES = 40  # >= MIN_DIRS_AT_START: a default ("auto") scan forks at its first dir where two cores are free

SCAN = r"""
import json, os, sys
from pathlib import Path
from skillmanager.commands.common import skill_to_json
from skillmanager.core.load import parse_cache
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry

tmp, cache_dir, profile = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
fault, _, package = (sys.argv[4] if len(sys.argv) > 4 else "").partition(":")
# the child runs at nice +10: on a busy machine it may parse nothing before this process has read everything.
# So that what is tested does not depend on the scheduler, this process waits after the fork until the child
# has claimed every dir down to the second one (or, with a fault that stops it, the faulty package's dir)
import time
from skillmanager.core.load import parse_ahead as _parse_ahead
stop_at = 1 + int(package[1:]) if fault in ("dies-at", "hangs-at") else 1
_start = _parse_ahead.ParseAhead.start.__func__
def start_and_wait(cls, *args):
    helper = _start(cls, *args)
    if helper is not None:
        deadline = time.monotonic() + 60
        while (_parse_ahead._COUNTER.unpack_from(helper._counters, _parse_ahead._CHILD_AT)[0] > stop_at
               and time.monotonic() < deadline):
            time.sleep(0.002)
    return helper
_parse_ahead.ParseAhead.start = classmethod(start_and_wait)
if fault in ("dies-at", "hangs-at"):  # the child ends (exit code 1) or hangs when it comes to this package's dir
    import time
    from skillmanager.core.load import parse_ahead, skill_file
    parse_ahead.MIN_PATIENCE_S = 0.5
    parse = skill_file.parse_cache_entry
    def parse_or_fail(where, *args):
        if f"/{package}/" in where:
            if fault == "hangs-at":
                time.sleep(3600)
            raise RuntimeError("the child dies here")
        return parse(where, *args)
    skill_file.parse_cache_entry = parse_or_fail
elif fault == "small-pipe":  # a pipe of one page: the child keeps what does not fit and parses on
    from skillmanager.core.load import parse_ahead
    parse_ahead._PIPE_SIZE = 4096
elif fault == "garbles-at":  # the child sends something unreadable for this package's dir
    import marshal
    from skillmanager.core.load import parse_ahead
    class Garbling:
        loads = staticmethod(marshal.loads)
        @staticmethod
        def dumps(parses):
            return b"\xffnot marshal" if any(f"/{package}/" in where for where in parses) else marshal.dumps(parses)
    parse_ahead.marshal = Garbling
packages = sorted((tmp / "packages").iterdir())
ws = Workspace.create(home=tmp / "home", cwd=tmp / "home", managed_root=None, env={}, profile=profile,
                      add_dirs=packages, plugin_dirs=[tmp / "plugin"])
cache = parse_cache.ParseCache.open(ws.profile, cache_dir)
taken = []
take = cache.take_primed
def take_and_count(where):
    primed = take(where)
    if primed is not None:
        taken.append(where)
    return primed
cache.take_primed = take_and_count
with parse_cache.using(cache):
    registry = load_registry(ws)
skills = [[skill_to_json(s), s.body, s.description, s.display_name, [d.code for d in s.diagnostics]]
          for s in registry.skills]
print(json.dumps({"skills": skills, "diagnostics": sorted([d.code, str(d.path), d.message] for d in registry.diagnostics),
                  "primed": cache.primed_hits, "plugin_primed": sum("/plugin/" in where for where in taken)}))
"""


def _tree(tmp: Path) -> list[Path]:
    """A home with a user skills dir and PACKAGES add-dirs holding real skills and awkward files."""
    sources = sorted(SAMPLE.rglob("*.md"))
    assert sources, "tests/data/corpus_sample is missing"
    dirs = [tmp / "home" / ".claude" / "skills"] + [
        tmp / "packages" / f"p{i:02d}" / ".claude" / "skills" for i in range(PACKAGES)]
    files = []
    for i, src in enumerate(sources * 2):
        dest = dirs[i % len(dirs)] / f"s{i:03d}" / "SKILL.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        files.append(dest)
    last = dirs[-1]  # the child's first dir
    awkward = {
        "dated": "---\nname: dated\ndescription: made on a date\ncreated: 2024-01-31\n---\nbody\n",  # marshal refuses
        "int-keys": "---\n1: one\ndescription: int keys\n---\nbody\n",
        "broken": "---\ndescription: a: b: c\n  - x\n: y\n---\nbody\n",
        "bom": "\ufeff---\ndescription: bom\n---\nbody\n",
        "no-front-matter": "First line is the description.\n\nMore.\n",
        "display": "---\nname: Shown Name\ndescription: display name\n---\nbody\n",
    }
    for name, text in awkward.items():
        dest = last / name / "SKILL.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        files.append(dest)
    (last / "latin1").mkdir()
    (last / "latin1" / "SKILL.md").write_bytes(b"---\ndescription: caf\xe9\n---\nbody\n")
    (last / "fifo").mkdir()
    os.mkfifo(last / "fifo" / "SKILL.md")
    (last / "linked").symlink_to(dirs[1] / "s001")
    (last / "file-link").mkdir()
    (last / "file-link" / "SKILL.md").symlink_to(files[0])  # the child's open follows it: this process stats it
    # a plugin: its default skills dir, a custom one and a path that is one skill (its parses come first)
    plugin = tmp / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "kit", "skills": ["./custom", "./one"]}')
    for i, src in enumerate(sources[:6]):
        dest = plugin / ("skills" if i % 2 else "custom") / f"k{i}" / "SKILL.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        files.append(dest)
    (plugin / "one").mkdir()
    shutil.copyfile(sources[-1], plugin / "one" / "SKILL.md")
    files.append(plugin / "one" / "SKILL.md")
    os.makedirs(tmp / "home" / "repo", exist_ok=True)
    past = time.time() - 60  # not racily clean
    for path in files:
        os.utime(path, (past, past))
    return files


def _scan(tmp: Path, cache_dir: Path, mode: str, profile: str = "current", fault: str = "") -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKILLMANAGER_FORK": mode}
    proc = subprocess.run([sys.executable, "-c", SCAN, str(tmp), str(cache_dir), profile, fault], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parse-ahead forks only on Linux")
@pytest.mark.parametrize("profile,fault", [("current", ""), ("legacy", ""), ("current", "small-pipe")])
def test_a_scan_parsed_ahead_equals_one_process_reading_everything(tmp_path, profile, fault):
    _tree(tmp_path)
    alone = _scan(tmp_path, tmp_path / "cache-alone", "0", profile)
    ahead = _scan(tmp_path, tmp_path / "cache-ahead", "always", profile, fault)
    assert alone["primed"] == 0
    assert ahead["primed"] > 10  # the child's parses were served (not every file read again here)
    # the plugin's skills first of all (legacy loads no default skills/ dir beside the manifest's)
    assert ahead["plugin_primed"] == (7 if profile == "current" else 4)
    assert ahead["skills"] == alone["skills"]
    assert ahead["diagnostics"] == alone["diagnostics"]
    # what was stored for the next run is what one process stores
    saved = {name: cache_file.loads(next((tmp_path / name).glob("parse-*.bin")).read_bytes())["entries"]
             for name in ("cache-alone", "cache-ahead")}
    assert saved["cache-ahead"] == saved["cache-alone"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parse-ahead forks only on Linux")
@pytest.mark.parametrize("fault", ["dies-at", "hangs-at", "garbles-at"])
def test_dirs_a_child_never_sent_are_loaded_here(tmp_path, fault):
    """A child that dies, hangs (stopped once this process has waited for it) or sends something unreadable
    halfway through its share: the dirs it sent before serve their parses, every other dir is loaded by this
    process, and nothing is lost or loaded twice."""
    _tree(tmp_path)
    alone = _scan(tmp_path, tmp_path / "cache-alone", "0")
    broken = _scan(tmp_path, tmp_path / "cache-broken", "always", fault=f"{fault}:p{PACKAGES - 4:02d}")
    assert broken["primed"] > 0  # the last three packages came before the fault
    assert broken["skills"] == alone["skills"]
    assert broken["diagnostics"] == alone["diagnostics"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parse-ahead forks only on Linux")
def test_turned_off_or_single_threaded_only(monkeypatch):
    assert not forking.allowed({"SKILLMANAGER_FORK": "0"})
    import threading
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert not forking.allowed({"SKILLMANAGER_FORK": "always"})  # a fork would copy a thread's locks
    finally:
        stop.set()
        worker.join()
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # so only the thread it runs on can refuse
    monkeypatch.delitem(sys.modules, "PySide6.QtCore", raising=False)  # (pytest-qt loads it here)
    assert forking.allowed({"SKILLMANAGER_FORK": "always"})
    elsewhere: list[bool] = []
    off_main = threading.Thread(target=lambda: elsewhere.append(forking.allowed({"SKILLMANAGER_FORK": "always"})))
    off_main.start()
    off_main.join()
    assert elsewhere == [False]  # the app's loads run on worker threads
    monkeypatch.setitem(sys.modules, "PySide6.QtCore", object())  # Qt's threads are not Python's to count
    assert not forking.allowed({"SKILLMANAGER_FORK": "always"})
    assert not parse_ahead.worth_it(0, 5, 0, {})  # a few dirs: not worth a fork at the start
    assert parse_ahead.worth_it(3, 5, parse_ahead.MIN_FILES_BEFORE, {})
    assert not parse_ahead.worth_it(4, 5, 10_000, {})  # one dir left


def test_a_parse_is_served_only_for_the_key_its_file_had_when_read(tmp_path):
    cache = parse_cache.ParseCache(None, ["context"])
    payload = {"fm": {"description": "x"}, "bs": 0, "sz": 1, "bd": None, "dg": []}
    key = (1, 2, 3, 4, 5)
    cache.prime({"/a/SKILL.md": (key, payload, -1)})
    assert cache.get("/a/SKILL.md", (1, 2, 3, 4, 6)) is None  # changed since (ctime): read again
    assert cache.get("/a/SKILL.md", key) == payload
    assert cache.entries["/a/SKILL.md"] == [list(key), payload] and cache.dirty  # saved for the next run


def test_a_parse_made_through_a_link_is_not_taken_without_a_stat():
    """take_primed hands over a parse only when the child's stat is the path's lstat (no link followed)."""
    cache = parse_cache.ParseCache(None, ["context"])
    payload = {"fm": {"description": "x"}, "bs": 0, "sz": 1, "bd": None, "dg": []}
    key = (1, 2, 3, 4, 5)
    cache.prime({"/plain/SKILL.md": (key, payload, 0o100644), "/link/SKILL.md": (key, payload, -1)})
    assert cache.take_primed("/link/SKILL.md") is None and cache.primed_hits == 0
    assert cache.get("/link/SKILL.md", key) == payload  # served once this process's own stat gives its key
    assert cache.take_primed("/plain/SKILL.md") == (key, payload, 0o100644)
    assert cache.entries["/plain/SKILL.md"] == [list(key), payload] and cache.primed_hits == 2
    assert cache.take_primed("/plain/SKILL.md") is None  # taken once


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parse-ahead forks only on Linux")
def test_a_file_edited_after_the_child_parsed_it_is_listed_as_edited(tmp_path):
    """The parent stats every file whose parse it takes: the stored answer of `listing` notices a later
    edit of a file only the child read."""
    files = _tree(tmp_path)
    home = tmp_path / "home"
    packages = sorted((tmp_path / "packages").iterdir())
    # the CLI with no racy margin (a tree written a moment ago may be replayed: see test_output_memo's no_margin)
    runner = ("import sys; from skillmanager.core.load import input_trace; input_trace.RACY_MARGIN_NS = 0; "
              "from skillmanager.cli import entry; raise SystemExit(entry())")
    argv = [sys.executable, "-c", runner, "listing", "--home", str(home), "--cwd", str(home), "--no-managed"]
    for package in packages:
        argv += ["--add-dir", str(package)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKILLMANAGER_FORK": "always",
           parse_cache.CACHE_DIR_ENV: str(tmp_path / "cache")}
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode in (0, 1), first.stderr
    assert list((tmp_path / "cache").glob("memo-*.bin")), "the answer was stored for a replay"
    assert "- bom: bom\n" in first.stdout
    target = next(f for f in files if f.parent.name == "bom")  # in the last dir: the child's
    before = target.stat()
    target.write_text("\ufeff---\ndescription: BOM\n---\nbody\n", encoding="utf-8")  # same size and mtime:
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # only its ctime tells
    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert "- bom: BOM\n" in second.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parse-ahead forks only on Linux")
def test_a_child_that_fails_hangs_or_is_never_met_leaves_no_process(tmp_path):
    script = r"""
import os, sys, time
from skillmanager.core.load.parse_ahead import ParseAhead
from skillmanager.core.versions.profiles import get_profile
profile = get_profile("current")
def boom(index):
    raise RuntimeError("no listing")
failed = ParseAhead.start(4, 0, boom, profile)
assert failed is not None
time.sleep(0.3)  # (likely) dead by now, having claimed dir 3: not a condition of what is asserted
assert failed.arrived() == []
for at in range(4):
    if failed.taken(at):  # a child that died sends nothing: the dirs it claimed are loaded here
        assert failed.rest() == []
        break
failed.finish()
assert failed.sent == [], failed.sent
unmet = ParseAhead.start(4, 0, lambda index: [], profile)
unmet.finish()
import skillmanager.core.load.parse_ahead as parse_ahead
parse_ahead.MIN_PATIENCE_S = 0.5
stuck = ParseAhead.start(4, 0, lambda index: time.sleep(3600), profile)
time.sleep(0.3)  # (likely) it has claimed dir 3 by now, and hangs there
started = time.monotonic()
for at in range(4):
    if stuck.taken(at):
        assert stuck.rest() == []  # a child that hangs is stopped once this process has waited long enough
        break
stuck.finish()
assert stuck.sent == [] and time.monotonic() - started < 60
try:
    os.waitpid(-1, os.WNOHANG)
except ChildProcessError:
    print("no children")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "no children"
