"""A first scan that hands the tail of its files to a forked parse helper gives exactly what one process
gives, whatever the helper does; the helper is used only where forking is safe."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from skillmanager.commands.common import skill_to_json
from skillmanager.core.load import parse_cache, parse_helper
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry
from support import skill_md, write

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the parse helper forks only on Linux")

SAMPLE = Path(__file__).parent / "data" / "corpus_sample"
OLD = 1_600_000_000  # 2020: written long before any scan (not racily clean)


def _tree(tmp: Path) -> tuple[Path, Path, list[Path]]:
    """Real sample files and the odd ones out (a link, no front matter, a description from the body, a
    BOM, an unreadable file, a binary file, a duplicate name) over a user dir and two add-dirs."""
    home, extra, extra2 = tmp / "home", tmp / "extra", tmp / "extra2"
    bases = [home / ".claude/skills", extra / ".claude/skills", extra2 / ".claude/skills"]
    files = sorted(SAMPLE.rglob("*.md"))
    assert files, "tests/data/corpus_sample is missing"
    for i, src in enumerate(files):
        write(bases[i % 3] / f"s{i:03d}" / "SKILL.md", src.read_text(encoding="utf-8", errors="replace"))
    write(bases[1] / "no-front-matter" / "SKILL.md", "# Title\n\nFirst line of the body.\n")
    write(bases[1] / "body-line" / "SKILL.md", "---\nname: body-line\n---\n\nUse me when asked.\n")
    write(bases[2] / "bom" / "SKILL.md", "\ufeff" + skill_md("with a byte order mark"))
    write(bases[2] / "binary" / "SKILL.md", "---\ndescription: x\n---\n\x00\x01")
    write(bases[2] / "s000" / "SKILL.md", skill_md("same folder name as a user skill"))
    target = write(tmp / "elsewhere" / "real" / "SKILL.md", skill_md("reached through a link"))
    (bases[2] / "linked").mkdir(parents=True)
    os.symlink(target, bases[2] / "linked" / "SKILL.md")
    locked = write(bases[2] / "locked" / "SKILL.md", skill_md("unreadable"))
    locked.chmod(0)
    for path in tmp.rglob("*"):
        os.utime(path, ns=(OLD, OLD), follow_symlinks=False)
    return home, home, [extra, extra2]


def _load(tmp: Path, cache_dir: Path | None):
    home, cwd, add_dirs = _tree(tmp) if not (tmp / "home").exists() else (tmp / "home", tmp / "home",
                                                                          [tmp / "extra", tmp / "extra2"])
    workspace = Workspace.create(home=home, cwd=cwd, add_dirs=add_dirs, managed_root=None, env={},
                                 profile="current")
    if cache_dir is None:
        return load_registry(workspace), None
    cache = parse_cache.ParseCache.open(workspace.profile, cache_dir)
    with parse_cache.using(cache):
        registry = load_registry(workspace)
    return registry, cache


def _snapshot(registry) -> list:
    return [(skill_to_json(s), s.body, [(d.code, d.message, d.line) for d in s.diagnostics])
            for s in registry.skills] + [(d.code, d.message) for d in registry.diagnostics]


@pytest.fixture
def forking(monkeypatch):
    """Forking allowed (as the command line allows it) and worth it for a small tree."""
    monkeypatch.setattr(parse_helper, "_allowed", True)
    monkeypatch.setattr(parse_helper, "MIN_FILES", 4)
    monkeypatch.setattr(parse_helper, "usable_cores", lambda: 2)
    # the tree is written just before each scan (its ctimes are now): only keys not older than the fork
    # itself count as racy here
    monkeypatch.setattr(parse_helper, "RACY_MARGIN_NS", 0)
    started: list[parse_helper.ParseHelper] = []
    real_start = parse_helper.ParseHelper.start.__func__

    def start(cls, paths, parse):
        helper = real_start(cls, paths, parse)
        if helper is not None:
            started.append(helper)
        return helper
    monkeypatch.setattr(parse_helper.ParseHelper, "start", classmethod(start))
    return started


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_helped_first_scan_equals_a_plain_one(tmp_path, forking):
    fresh, _ = _load(tmp_path, None)
    helped, cache = _load(tmp_path, tmp_path / "cache")
    assert len(forking) == 1
    helper = forking[0]
    assert cache.hits >= len(helper.paths) - 3  # the link, the binary and the unreadable file are read again
    assert _snapshot(helped) == _snapshot(fresh)
    assert _reaped(helper.pid)
    # what it left in the parse cache serves a repeat run exactly
    again, cache = _load(tmp_path, tmp_path / "cache")
    assert cache.misses <= 3 and _snapshot(again) == _snapshot(fresh)


@pytest.mark.parametrize("failure", ["dies", "garbage", "cut short", "foreign paths"])
def test_whatever_the_helper_does_the_scan_is_the_same(tmp_path, forking, monkeypatch, failure):
    fresh, _ = _load(tmp_path, None)

    def broken_answer(write_fd, paths, parse):
        if failure == "dies":
            os._exit(3)
        if failure == "garbage":
            os.write(write_fd, b"\x00not marshal data")
        elif failure == "cut short":
            import marshal
            data = marshal.dumps({p: parse(p) and list(parse(p)) for p in paths})
            os.write(write_fd, data[: len(data) // 2])
        else:  # entries for files it was not given, and a wrong payload for one it was
            import marshal
            entries = {str(tmp_path / "nowhere" / "SKILL.md"): [[1, 2, 3, 4, 5], {"fm": {}}],
                       paths[0]: [[0, 0, 0, 0, 0], {"fm": {"description": "forged"}, "bs": 0, "sz": 0,
                                                    "bd": None, "dg": []}]}
            os.write(write_fd, marshal.dumps(entries))
        os.close(write_fd)
    monkeypatch.setattr(parse_helper, "_answer", broken_answer)
    helped, _cache = _load(tmp_path, tmp_path / "cache")
    assert len(forking) == 1 and _reaped(forking[0].pid)
    assert _snapshot(helped) == _snapshot(fresh)


def test_files_changed_as_the_helper_reads_are_read_by_the_scan_itself(tmp_path, forking):
    """A key not older than the fork may belong to a file written again within the same timestamp tick
    after the helper read it: such entries are not served (the scan reads the file itself)."""
    _tree(tmp_path)
    later = time.time_ns() + 60_000_000_000
    touched = []
    for path in sorted((tmp_path / "extra2" / ".claude" / "skills").glob("*/SKILL.md")):
        if not path.is_symlink() and os.access(path, os.R_OK):
            os.utime(path, ns=(later, later))
            touched.append(str(path))
    fresh, _ = _load(tmp_path, None)
    helped, cache = _load(tmp_path, tmp_path / "cache")
    assert len(forking) == 1
    helper = forking[0]
    assert set(touched) <= helper.paths
    assert cache.hits == len(helper.paths - set(touched))
    assert _snapshot(helped) == _snapshot(fresh)


def test_no_helper_with_a_second_thread_or_unless_allowed(tmp_path, forking, monkeypatch):
    _tree(tmp_path)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        _load(tmp_path, tmp_path / "cache-a")
    finally:
        stop.set()
        worker.join()
    assert forking == []
    monkeypatch.setattr(parse_helper, "_allowed", False)
    _load(tmp_path, tmp_path / "cache-b")
    assert forking == []


def test_no_helper_when_the_cache_already_serves_or_for_a_small_tree(tmp_path, forking, monkeypatch):
    _load(tmp_path, tmp_path / "cache")
    assert len(forking) == 1
    for f in (tmp_path / "cache").glob("parse-*.json"):  # written well after the files
        os.utime(f, ns=(time.time_ns(), time.time_ns()))
    _load(tmp_path, tmp_path / "cache")  # a repeat run: the cache serves, nothing to hand over
    assert len(forking) == 1
    monkeypatch.setattr(parse_helper, "MIN_FILES", 10_000)
    _load(tmp_path, tmp_path / "cache-small")
    assert len(forking) == 1
