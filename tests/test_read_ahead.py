"""Reading ahead (safe_read.ReadAhead): with a cold page cache a scan starts the next files' disk reads while
one is waited for. What is read, every diagnostic, the handling of links and special files and the parse
cache are those of the plain read; files already cached are read once, with nothing hinted."""
from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from skillmanager.commands.common import skill_to_json
from skillmanager.core.load import parse_cache, safe_read, skill_file
from skillmanager.core.load.safe_read import ReadAhead, read_text_file
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry
from support import with_timeout

pytestmark = pytest.mark.skipif(not safe_read.READ_AHEAD_SUPPORTED,
                                reason="no RWF_NOWAIT on this platform: files are read plainly")

SAMPLE = Path(__file__).parent / "data" / "corpus_sample"
REAL_PREADV = os.preadv

CONTENTS = {
    "ascii": b"---\ndescription: plain\n---\nbody\n",
    "utf8": "---\ndescription: caf\u00e9 \u2713 \U0001f600\n---\nna\u00efve\n".encode(),
    "bom": b"\xef\xbb\xbf---\nname: x\n---\nbody\n",
    "invalid-utf8": b"---\ndescription: bad \xff\xfe bytes\n---\n",
    "replacement-char": "---\ndescription: \ufffd kept\n---\n".encode(),
    "nul": b"\x00\x01---\ndescription: binary\n---\n",
    "empty": b"",
    "pages": b"---\ndescription: many pages\n---\n" + "line \u00e9\n".encode() * 6000,
    "over-buffer": b"---\ndescription: big\n---\n" + b"y" * (ReadAhead.buffer_limit + 10),
}


def _write(root: Path, contents: dict[str, bytes] = CONTENTS) -> list[str]:
    paths = []
    for name, data in contents.items():
        path = root / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # clean pages: DONTNEED can drop them
        paths.append(str(path))
    return paths


def _evicted(paths: list[str], scratch: Path) -> bool:
    """Drop the files from the page cache; True when a non-waiting read of a file dropped with them now
    refuses (EAGAIN). (A canary: that refusal starts reading the file it was asked for.)"""
    canary = _write(scratch, {"canary": b"canary\n"})[0]  # outside the scanned tree
    for path in paths + [canary]:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    fd = os.open(canary, os.O_RDONLY)
    try:
        REAL_PREADV(fd, [bytearray(16)], 0, os.RWF_NOWAIT)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _same(result: safe_read.ReadResult) -> tuple:
    return (result.text, result.size, result.truncated, [d.to_json() for d in result.diagnostics],
            parse_cache.stat_key(result.stat) if result.stat else None, result.link)


def _record_hints(monkeypatch) -> list[str]:
    hinted: list[str] = []
    real = safe_read.hint_read

    def hint(path: str) -> None:
        hinted.append(path)
        real(path)
    monkeypatch.setattr(safe_read, "hint_read", hint)
    return hinted


def _fake_preadv(monkeypatch, answer) -> list[str]:
    """os.preadv whose non-waiting reads answer as `answer(call number)` says: "cold" (EAGAIN), an int k
    (only the first k bytes were cached) or "warm"; blocking reads are real. Returns the calls made."""
    calls: list[str] = []

    def preadv(fd, buffers, offset, flags=0):
        if not flags:
            return REAL_PREADV(fd, buffers, offset)
        how = answer(len(calls))
        calls.append(how)
        if how == "cold":
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        if isinstance(how, int):
            return REAL_PREADV(fd, [memoryview(buffers[0])[:how]], offset, flags)
        return REAL_PREADV(fd, buffers, offset, flags)
    monkeypatch.setattr(os, "preadv", preadv)
    return calls


def test_a_cold_read_ahead_gives_the_plain_read_byte_for_byte(tmp_path, monkeypatch):
    paths = _write(tmp_path)
    plain = [_same(read_text_file(p)) for p in paths]
    plain_capped = [_same(read_text_file(p, max_bytes=40)) for p in paths]
    if not _evicted(paths, tmp_path / "scratch"):
        pytest.skip("the page cache cannot be dropped on this file system")
    hinted = _record_hints(monkeypatch)
    ahead = ReadAhead(lambda: paths)
    assert [_same(read_text_file(p, ahead=ahead)) for p in paths] == plain
    assert hinted == paths[1:]  # the files after the first (cold) one, in order, once
    assert _evicted(paths, tmp_path / "scratch")
    ahead = ReadAhead(lambda: paths)
    assert [_same(read_text_file(p, max_bytes=40, ahead=ahead)) for p in paths] == plain_capped
    for path in paths:  # the text is the file's bytes decoded as Node decodes them
        with open(path, "rb") as handle:
            assert read_text_file(path, ahead=ReadAhead(lambda: paths)).text == handle.read().decode("utf-8", "replace")


@pytest.mark.parametrize("state", ["cold", 1, 4095, 4096, "warm"])
def test_every_cache_state_of_a_file_gives_the_plain_read(tmp_path, monkeypatch, state):
    """Whole file cached, none of it, or only its first bytes (a short non-waiting read)."""
    paths = _write(tmp_path)
    plain = [_same(read_text_file(p)) for p in paths]
    plain_capped = [_same(read_text_file(p, max_bytes=40)) for p in paths]
    _fake_preadv(monkeypatch, lambda _n: state)
    ahead = ReadAhead(lambda: paths)
    assert [_same(read_text_file(p, ahead=ahead)) for p in paths] == plain
    ahead = ReadAhead(lambda: paths)
    assert [_same(read_text_file(p, max_bytes=40, ahead=ahead)) for p in paths] == plain_capped


def test_cached_files_are_read_once_and_nothing_is_hinted(tmp_path, monkeypatch):
    paths = _write(tmp_path)
    plain = [_same(read_text_file(p)) for p in paths]  # now in the page cache
    hinted = _record_hints(monkeypatch)
    calls = _fake_preadv(monkeypatch, lambda _n: "warm")
    reads: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    ahead = ReadAhead(lambda: pytest.fail("the upcoming files are only listed once a read is cold"))
    assert [_same(read_text_file(p, ahead=ahead)) for p in paths] == plain
    assert hinted == [] and ahead.hints == 0
    # one non-waiting read per file the buffer takes; the empty file and the one over the buffer read plainly
    assert len(calls) == len(paths) - 2
    assert len(reads) == 2


def _twenty(tmp_path, monkeypatch) -> tuple[list[str], list[str]]:
    paths = _write(tmp_path, {f"s{i:02d}": b"---\ndescription: d\n---\n" for i in range(20)})
    monkeypatch.setattr(ReadAhead, "WINDOW", 4)
    return paths, _record_hints(monkeypatch)


def test_while_reads_wait_the_window_moves_and_each_file_is_hinted_once(tmp_path, monkeypatch):
    """A disk behind the reads: every read waits (hinted files still on their way), so each read moves the
    window; every file after the first is hinted once, before it is read, at most a window ahead."""
    paths, hinted = _twenty(tmp_path, monkeypatch)
    _fake_preadv(monkeypatch, lambda _n: "cold")
    ahead = ReadAhead(lambda: paths)
    for i, path in enumerate(paths):
        before = len(hinted)
        read_text_file(path, ahead=ahead)
        assert all(i < paths.index(h) <= i + 4 for h in hinted[before:])
    assert hinted == paths[1:] and ahead.hints == len(hinted)


def test_a_cold_dir_waits_once_per_window(tmp_path, monkeypatch):
    """Hinted files arrive before they are read: the next read that waits is the first one past the window."""
    paths, hinted = _twenty(tmp_path, monkeypatch)
    waited: list[str] = []

    def answer(_n):
        return "warm" if reading[-1] in hinted else (waited.append(reading[-1]) or "cold")
    _fake_preadv(monkeypatch, answer)
    ahead = ReadAhead(lambda: paths)
    reading: list[str] = []
    for path in paths:
        reading.append(path)
        read_text_file(path, ahead=ahead)
    assert waited == paths[::5]  # a wait, then a window of 4 read without one
    assert sorted(hinted + waited) == paths


def test_a_stray_uncached_file_costs_one_window_of_hints(tmp_path, monkeypatch):
    """Among cached files, one that is not (evicted under memory pressure) hints the window after it and
    nothing more: the rest of the scan reads as a warm one."""
    paths, hinted = _twenty(tmp_path, monkeypatch)
    _fake_preadv(monkeypatch, lambda n: "cold" if n == 3 else "warm")
    listed: list[int] = []
    ahead = ReadAhead(lambda: listed.append(1) or iter(paths))
    for path in paths:
        read_text_file(path, ahead=ahead)
    assert hinted == paths[4:8] and listed == [1]


def test_a_wait_past_the_listed_files_lists_again_from_the_caller(tmp_path, monkeypatch):
    """`upcoming` starts where the caller is (UpcomingSkillFiles: the skills dir being loaded), so a later
    wait does not list every dir in between."""
    paths, hinted = _twenty(tmp_path, monkeypatch)
    _fake_preadv(monkeypatch, lambda n: "cold" if n in (1, 15) else "warm")
    where = [0]
    asked: list[int] = []
    ahead = ReadAhead(lambda: asked.append(where[0]) or iter(paths[where[0]:]))
    for i, path in enumerate(paths):
        where[0] = i
        read_text_file(path, ahead=ahead)
    assert asked == [1, 15] and hinted == paths[2:6] + paths[16:20]


def test_a_file_system_refusing_nowait_is_read_plainly(tmp_path, monkeypatch):
    paths = _write(tmp_path)
    plain = [_same(read_text_file(p)) for p in paths]
    hinted = _record_hints(monkeypatch)

    def refuse(fd, buffers, offset, flags=0):
        if flags:
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")
        return REAL_PREADV(fd, buffers, offset)
    monkeypatch.setattr(os, "preadv", refuse)
    ahead = ReadAhead(lambda: paths)
    assert [_same(read_text_file(p, ahead=ahead)) for p in paths] == plain
    assert not ahead.nowait and hinted == []



def _odd_tree(tmp: Path) -> Workspace:
    """Skills, commands and a plugin with every kind of entry a skills dir can hold."""
    home = tmp / "home"
    skills = home / ".claude" / "skills"
    for i, src in enumerate(sorted(SAMPLE.rglob("*.md"))[:40]):
        (skills / f"s{i:02d}").mkdir(parents=True)
        shutil.copyfile(src, skills / f"s{i:02d}" / "SKILL.md")
    _write(skills, {k: v for k, v in CONTENTS.items() if k != "over-buffer"})
    (skills / "pipe").mkdir()
    os.mkfifo(skills / "pipe" / "SKILL.md")  # must never block, not even a hint
    (skills / "linked").mkdir()
    (skills / "linked" / "SKILL.md").symlink_to(skills / "s00" / "SKILL.md")
    (skills / "linked-dir").symlink_to(skills / "s01")
    (skills / "loop").mkdir()
    (skills / "loop" / "SKILL.md").symlink_to("SKILL.md")
    (skills / "dangling").mkdir()
    (skills / "dangling" / "SKILL.md").symlink_to("nowhere.md")
    (skills / "dir-named-skill-md" / "SKILL.md").mkdir(parents=True)
    (skills / "no-skill-md").mkdir()
    (skills / "lone.md").write_text("---\ndescription: ignored\n---\n")
    commands = home / ".claude" / "commands"
    (commands / "sub").mkdir(parents=True)
    (commands / "a.md").write_text("---\ndescription: a command\n---\nbody\n")
    (commands / "sub" / "b.md").write_text("first line of b\n")
    os.mkfifo(commands / "pipe.md")
    plugin = tmp / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "kit"}')
    for i in range(5):
        (plugin / "skills" / f"p{i}").mkdir(parents=True)
        (plugin / "skills" / f"p{i}" / "SKILL.md").write_text(f"---\ndescription: plugin skill {i}\n---\n")
    (plugin / "skills" / "pipe").mkdir()
    os.mkfifo(plugin / "skills" / "pipe" / "SKILL.md")
    return Workspace.create(home=home, cwd=home, managed_root=None, env={}, profile="current",
                            plugin_dirs=[plugin])


def _snapshot(registry) -> tuple:
    return ([(skill_to_json(s), s.body) for s in registry.skills], [d.to_json() for d in registry.diagnostics])


def _files(tmp: Path) -> list[str]:
    return sorted(str(p) for p in tmp.rglob("*.md") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("state", ["cold", "warm", "evicted"])
def test_a_scan_reading_ahead_equals_the_plain_scan(tmp_path, monkeypatch, state):
    workspace = _odd_tree(tmp_path)
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", False)
    plain = with_timeout(lambda: _snapshot(load_registry(workspace)))
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", True)
    hinted = _record_hints(monkeypatch)
    if state == "evicted":  # the real page cache (hints only when this file system can drop it)
        _evicted(_files(tmp_path), tmp_path / "scratch")
    else:  # every file cold, or every file cached
        _fake_preadv(monkeypatch, lambda _n: state)
    assert with_timeout(lambda: _snapshot(load_registry(workspace))) == plain
    if state == "cold":
        skills = tmp_path / "home" / ".claude" / "skills"
        assert str(skills / "pipe" / "SKILL.md") in hinted  # hinted, yet nothing blocked
        assert str(tmp_path / "home" / ".claude" / "commands" / "sub" / "b.md") in hinted
        assert str(tmp_path / "plugin" / "skills" / "p1" / "SKILL.md") in hinted
    if state == "warm":
        assert hinted == []


def test_without_rwf_nowait_files_are_read_plainly(tmp_path, monkeypatch):
    """macOS, Windows and old kernels: no ReadAhead at all (the read is the plain one)."""
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", False)
    assert skill_file.skill_read_ahead(lambda: []) is None
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", True)
    assert isinstance(skill_file.skill_read_ahead(lambda: []), ReadAhead)


def test_files_the_parse_cache_serves_are_not_hinted(tmp_path, monkeypatch):
    workspace = _odd_tree(tmp_path)
    cache_dir = tmp_path / "cache"
    cache = parse_cache.ParseCache.open(workspace.profile, cache_dir)
    with parse_cache.using(cache):
        load_registry(workspace)
    cache.save()
    for f in cache_dir.glob("parse-*.bin"):  # written well after the files: no racily clean entries
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    skills = tmp_path / "home" / ".claude" / "skills"
    changed = [skills / "s03" / "SKILL.md", skills / "s07" / "SKILL.md"]
    for path in changed:
        path.write_text(path.read_text() + "\nedited\n")

    shutil.copytree(cache_dir, tmp_path / "cache-copy")  # both scans start from this cache (mtimes kept)

    def scan(directory: Path):
        repeat = parse_cache.ParseCache.open(workspace.profile, directory)
        with parse_cache.using(repeat):
            registry = load_registry(workspace)
        return _snapshot(registry), (repeat.hits, repeat.misses)
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", False)
    plain, counts = with_timeout(lambda: scan(cache_dir))
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", True)
    hinted = _record_hints(monkeypatch)
    _fake_preadv(monkeypatch, lambda _n: "cold")
    assert with_timeout(lambda: scan(tmp_path / "cache-copy")) == (plain, counts)  # same skills, hits, misses
    assert counts[1] >= 2
    assert str(changed[1]) in hinted  # the second edit is hinted when the first is read
    assert not [h for h in hinted if h.startswith(str(skills / "s")) and Path(h) not in changed]


def test_one_read_ahead_reaches_into_the_next_skills_dirs(tmp_path, monkeypatch):
    """The files of the dirs loaded next (user, project, add-dirs) are hinted in load order, each dir listed
    only when the window reaches it; the first file of a dir does not wait alone."""
    home = tmp_path / "home"
    add_dirs = [tmp_path / f"pkg{p}" for p in range(6)]
    order = []  # every file in load order: the user's skills, then each add-dir's
    for base in [home / ".claude" / "skills"] + [d / ".claude" / "skills" for d in add_dirs]:
        for k in range(3):
            (base / f"s{k}").mkdir(parents=True)
            (base / f"s{k}" / "SKILL.md").write_text(f"---\ndescription: {base} {k}\n---\n")
            order.append(str(base / f"s{k}" / "SKILL.md"))
    workspace = Workspace.create(home=home, cwd=home, managed_root=None, env={}, profile="current", add_dirs=add_dirs)
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", False)
    plain = _snapshot(load_registry(workspace))
    assert [str(s.path) for s in load_registry(workspace).skills if s.path is not None] == order
    monkeypatch.setattr(skill_file, "READ_AHEAD_SUPPORTED", True)
    monkeypatch.setattr(ReadAhead, "WINDOW", 4)
    hinted = _record_hints(monkeypatch)
    listed: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": listed.append(os.fspath(path)) or real_scandir(path))
    waited: list[str] = []

    def preadv(fd, buffers, offset, flags=0):  # cold until hinted (hinted files arrive before they are read)
        path = os.readlink(f"/proc/self/fd/{fd}")
        if flags and path not in hinted:
            waited.append(path)
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return REAL_PREADV(fd, buffers, offset, flags)
    monkeypatch.setattr(os, "preadv", preadv)
    assert _snapshot(load_registry(workspace)) == plain
    assert waited == order[::5]  # one wait per window of 4, across dirs (not one per dir of 3)
    assert sorted(hinted + waited) == sorted(order) and len(set(hinted)) == len(hinted)
    # each add-dir is listed by the read-ahead at most once besides its load
    for d in add_dirs:
        assert listed.count(str(d / ".claude" / "skills")) <= 2
