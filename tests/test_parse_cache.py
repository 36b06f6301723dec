"""The persistent parse cache and on-demand bodies give exactly what a fresh read gives, never a stale entry."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager import cli
from skillmanager.commands.common import skill_to_json
from skillmanager.core.load import cache_file as cache_file_format, parse_cache
from skillmanager.core.load.frontmatter import parse_document
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = Path(__file__).parent / "data" / "corpus_sample"


def _workspace(tmp: Path, profile: str = "current") -> Workspace:
    return Workspace.create(home=tmp / "home", cwd=tmp / "home", managed_root=None, env={}, profile=profile)


def _skills_dir(tmp: Path) -> Path:
    return tmp / "home" / ".claude" / "skills"


def _fill(tmp: Path) -> list[Path]:
    files = sorted(SAMPLE.rglob("*.md"))
    assert files, "tests/data/corpus_sample is missing"
    out = []
    for i, src in enumerate(files):
        dest = _skills_dir(tmp) / f"s{i:03d}-{src.parent.name}"[:60] / "SKILL.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        out.append(dest)
    return out


def _snapshot(registry) -> list:
    return [(skill_to_json(s), s.body) for s in registry.skills]


def _scan(tmp: Path, cache_dir: Path | None, profile: str = "current"):
    workspace = _workspace(tmp, profile)
    if cache_dir is None:
        return load_registry(workspace), None
    cache = parse_cache.ParseCache.open(workspace.profile, cache_dir)
    with parse_cache.using(cache):
        registry = load_registry(workspace)
    return registry, cache


def _read(cache_file: Path) -> dict:
    data = cache_file_format.loads(cache_file.read_bytes())
    assert type(data) is dict, cache_file
    return data


def _write(cache_file: Path, data: object) -> None:
    cache_file.write_bytes(cache_file_format.dumps(data))


def _age(cache_dir: Path, seconds: float = 5.0) -> None:
    """Make the saved cache look written well after the files (so their entries are not racily clean)."""
    for f in cache_dir.glob("parse-*.bin"):
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + int(seconds * 1e9)))


def test_repeat_scan_from_the_cache_equals_a_fresh_read(tmp_path):
    files = _fill(tmp_path)
    cache_dir = tmp_path / "cache"
    fresh, _ = _scan(tmp_path, None)
    first, cache = _scan(tmp_path, cache_dir)
    assert cache.misses == len(files) and cache.hits == 0
    _age(cache_dir)
    second, cache = _scan(tmp_path, cache_dir)
    assert cache.hits == len(files) and cache.misses == 0  # nothing was read again
    assert _snapshot(second) == _snapshot(first) == _snapshot(fresh)
    for profile in ("legacy", "current"):  # each parse context has its own file
        _scan(tmp_path, cache_dir, profile)
    assert len(list(cache_dir.glob("parse-*.bin"))) == 2


def test_bodies_are_read_on_demand_byte_for_byte(tmp_path):
    files = _fill(tmp_path)
    registry, _ = _scan(tmp_path, None)
    by_path = {str(s.path): s for s in registry.skills if s.path is not None}
    for path in files:
        skill = by_path[str(path)]
        assert getattr(skill, "_body_text", None) is None  # not held after the scan
        text = path.read_bytes().decode("utf-8", errors="replace")
        assert skill.body == parse_document(text, strip_bom=True, unique_keys=False).body


def test_a_body_edited_after_the_scan_is_the_new_body(tmp_path):
    path = _skills_dir(tmp_path) / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ndescription: d\n---\nold body\n", encoding="utf-8")
    registry, _ = _scan(tmp_path, None)
    path.write_text("---\ndescription: longer d\n---\nnew body\n", encoding="utf-8")
    skill = next(s for s in registry.skills if s.name == "a")
    assert skill.body == "new body\n"


def test_same_size_edit_within_one_mtime_tick_is_not_served_stale(tmp_path):
    path = _skills_dir(tmp_path) / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ndescription: first\n---\nbody\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    _scan(tmp_path, cache_dir)
    mtime = path.stat().st_mtime_ns
    for text in ("---\ndescription: secnd\n---\nbody\n", "---\ndescription: third\n---\nbody\n"):
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(mtime, mtime))  # same size, same mtime: only ctime (and the racy rule) can tell
        registry, _ = _scan(tmp_path, cache_dir)
        assert registry.find("a").description == text.split("description: ")[1].split("\n")[0]


def test_racily_clean_entries_are_re_read(tmp_path):
    path = _skills_dir(tmp_path) / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ndescription: d\n---\nbody\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    _scan(tmp_path, cache_dir)
    st = path.stat()
    cache_file = next(cache_dir.glob("parse-*.bin"))
    os.utime(cache_file, ns=(st.st_mtime_ns, st.st_mtime_ns))  # cache written in the file's own tick
    _, cache = _scan(tmp_path, cache_dir)
    assert cache.hits == 0 and cache.misses == 1
    _age(cache_dir)
    _, cache = _scan(tmp_path, cache_dir)
    assert cache.hits == 1


def test_rename_swap_and_ctime_only_changes_are_misses(tmp_path):
    path = _skills_dir(tmp_path) / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ndescription: one\n---\nbody\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    _scan(tmp_path, cache_dir)
    _age(cache_dir)
    st = path.stat()
    swap = path.with_name("SKILL.md.new")
    swap.write_text("---\ndescription: two\n---\nbody\n", encoding="utf-8")
    os.utime(swap, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime, another inode
    os.replace(swap, path)
    registry, cache = _scan(tmp_path, cache_dir)
    assert registry.find("a").description == "two" and cache.misses == 1
    _age(cache_dir)
    os.chmod(path, 0o644 if st.st_mode & 0o777 != 0o644 else 0o600)  # only ctime moves
    _, cache = _scan(tmp_path, cache_dir)
    assert cache.misses == 1


def test_corrupt_or_foreign_cache_files_are_ignored_and_rebuilt(tmp_path):
    _fill(tmp_path)
    cache_dir = tmp_path / "cache"
    fresh, _ = _scan(tmp_path, None)
    _scan(tmp_path, cache_dir)
    cache_file = next(cache_dir.glob("parse-*.bin"))
    good = cache_file.read_bytes()
    document = _read(cache_file)
    flipped = bytearray(good)
    flipped[-10] ^= 0x01  # one bit of one entry: the checksum no longer matches
    other_python = bytearray(good)
    other_python[9] ^= 0x01  # the header's writer: another Python's marshal
    for bad in (b"", b"\x00\xff garbage", good[: len(good) // 2], good + b"x", bytes(flipped), bytes(other_python),
                json.dumps(document).encode(),  # the JSON of format 1
                cache_file_format.dumps([]), cache_file_format.dumps({"format": parse_cache.FORMAT}),
                cache_file_format.dumps({**document, "context": ["other"]}),
                cache_file_format.dumps({**document, "entries": [1, 2]})):
        cache_file.write_bytes(bad)
        _age(cache_dir)
        registry, _ = _scan(tmp_path, cache_dir)
        assert _snapshot(registry) == _snapshot(fresh)
        assert _read(cache_file)["entries"]  # rewritten whole


def test_a_cache_file_cut_short_or_changed_anywhere_reads_as_none():
    """cache_file checks the header, length and checksum before marshal reads a byte."""
    value = {"format": 2, "entries": {"/a/SKILL.md": [[1, 2, 3, 4, 5], {"fm": {"description": "d"}, "sz": 9}]}}
    good = cache_file_format.dumps(value)
    assert cache_file_format.loads(good) == value
    for cut in range(len(good)):
        with pytest.raises(ValueError):
            cache_file_format.loads(good[:cut])
    for at in range(len(good)):
        for bit in (0x01, 0x80):
            changed = bytearray(good)
            changed[at] ^= bit
            with pytest.raises(ValueError):
                cache_file_format.loads(bytes(changed))


def test_a_checked_body_marshal_refuses_is_a_value_error():
    """A body with a valid header that marshal cannot read (an unknown type code, nesting past marshal's limit,
    a list cut short) is reported as unreadable, never as marshal's own exception."""
    import marshal
    import struct
    import zlib
    for body in (b"\xff", b"{" * 3000, b"[" + struct.pack("<i", 1000)):
        header = cache_file_format._HEADER.pack(cache_file_format.MAGIC, cache_file_format._WRITER, zlib.crc32(body),
                                                len(body))
        with pytest.raises(ValueError):
            cache_file_format.loads(header + body)
    assert cache_file_format.loads(cache_file_format.dumps([1])) == [1] == marshal.loads(marshal.dumps([1]))


def test_a_json_cache_of_format_1_is_removed_at_the_next_save(tmp_path):
    _fill(tmp_path)
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    old = cache_dir / "parse-0123abcd.json"
    old.write_text('{"format":1,"context":[],"entries":{}}', encoding="utf-8")
    unrelated = cache_dir / "memo-0123abcd.bin"
    unrelated.write_bytes(b"x")
    _scan(tmp_path, cache_dir)
    assert not old.exists() and unrelated.exists() and list(cache_dir.glob("parse-*.bin"))


def test_an_unparsable_cache_file_is_logged(tmp_path, caplog):
    _fill(tmp_path)
    cache_dir = tmp_path / "cache"
    _scan(tmp_path, cache_dir)
    cache_file = next(cache_dir.glob("parse-*.bin"))
    cache_file.write_bytes(b"\x00\xff garbage")
    with caplog.at_level("INFO", logger="skillmanager"):
        _scan(tmp_path, cache_dir)
    assert any(str(cache_file) in r.getMessage() and "is damaged (not a skillmanager cache file)" in r.getMessage()
               and r.levelname == "WARNING" for r in caplog.records)


def test_malformed_entries_fall_back_to_reading(tmp_path):
    _fill(tmp_path)
    cache_dir = tmp_path / "cache"
    fresh, _ = _scan(tmp_path, cache_dir)
    cache_file = next(cache_dir.glob("parse-*.bin"))
    data = _read(cache_file)
    for i, entry in enumerate(data["entries"].values()):
        entry[1] = [{"fm": "not a map"}, {"dg": [[1, 2]]}, {}, "x"][i % 4]
    _write(cache_file, data)
    _age(cache_dir)
    registry, _ = _scan(tmp_path, cache_dir)
    assert _snapshot(registry) == _snapshot(fresh)


def test_cli_uses_xdg_cache_home_and_no_cache_bypasses_it(tmp_path, monkeypatch):
    _fill(tmp_path)
    monkeypatch.delenv(parse_cache.CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    args = ["list", "--json", "--home", str(tmp_path / "home"), "--cwd", str(tmp_path / "home"), "--no-managed"]
    plain = io.StringIO()
    assert cli.main(args + ["--no-cache"], out=plain) == 0
    assert not (tmp_path / "xdg").exists()
    first, second = io.StringIO(), io.StringIO()
    assert cli.main(args, out=first) == 0
    assert list((tmp_path / "xdg" / "skillmanager").glob("parse-*.bin"))
    _age(tmp_path / "xdg" / "skillmanager")
    assert cli.main(args, out=second) == 0
    assert first.getvalue() == second.getvalue() == plain.getvalue()


def test_concurrent_processes_share_the_cache_safely(tmp_path):
    _fill(tmp_path)
    env = {**os.environ, parse_cache.CACHE_DIR_ENV: str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "skillmanager", "list", "--json", "--home", str(tmp_path / "home"),
            "--cwd", str(tmp_path / "home"), "--no-managed"]
    expected = subprocess.run(args + ["--no-cache"], env=env, capture_output=True, text=True, check=True).stdout
    for _round in range(2):
        procs = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)]
        outputs = [p.communicate()[0] for p in procs]
        assert all(p.returncode == 0 for p in procs)
        assert outputs == [expected] * 4
        _age(tmp_path / "cache")
    for f in (tmp_path / "cache").iterdir():
        assert f.name.startswith("parse-") and f.suffix == ".bin"  # no temp file left behind
        assert _read(f)["entries"]


def test_cache_holds_plain_data_only(tmp_path):
    path = _skills_dir(tmp_path) / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ndescription: d\nblob: !!binary aGVsbG8=\nset: !!set {a, b}\n---\nbody\n", encoding="utf-8")
    dated = _skills_dir(tmp_path) / "b" / "SKILL.md"
    dated.parent.mkdir(parents=True)
    dated.write_text("---\ndescription: d\nwhen: !!timestamp 2024-01-31\n---\nbody\n", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    fresh, _ = _scan(tmp_path, None)
    _scan(tmp_path, cache_dir)
    _age(cache_dir)
    registry, cache = _scan(tmp_path, cache_dir)
    # bytes and sets come back as they were; a date cannot be written: that file is read each time
    assert cache.hits == 1 and cache.misses == 1
    for name in ("a", "b"):
        assert registry.find(name).front_matter == fresh.find(name).front_matter
    assert type(registry.find("a").front_matter["set"]) is set


_CONTENTS = st.sampled_from([
    "---\ndescription: alpha\n---\nbody one\n", "---\ndescription: omega\n---\nbody two\n",
    "---\nname: Shown\ndescription: \"quoted: x\"\nmetadata:\n  k: v\n---\n\n# Title\n",
    "no front matter at all\n", "\ufeff---\ndescription: bom\n---\nb\n", "---\ndescription: [a, b]\n---\n",
    "---\ndescription: yes\nuser-invocable: no\n---\nx\n", "---\nbroken: [\n---\nbody\n"])
_OPS = st.lists(st.tuples(st.sampled_from(["write", "write-same-tick", "swap", "chmod", "scan", "age"]),
                          st.integers(0, 2), _CONTENTS), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_OPS)
def test_edit_sequences_never_see_a_stale_parse(tmp_path_factory, ops):
    tmp = tmp_path_factory.mktemp("seq")
    cache_dir = tmp / "cache"
    paths = [_skills_dir(tmp) / f"s{i}" / "SKILL.md" for i in range(3)]
    for path in paths:
        path.parent.mkdir(parents=True)
        path.write_text("---\ndescription: start\n---\nstart body\n", encoding="utf-8")
    for op, index, text in ops + [("scan", 0, "")]:
        path = paths[index]
        if op == "write":
            path.write_text(text, encoding="utf-8")
        elif op == "write-same-tick":
            st_before = path.stat()
            path.write_text(text, encoding="utf-8")
            os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
        elif op == "swap":
            st_before = path.stat()
            new = path.with_name("new.md")
            new.write_text(text, encoding="utf-8")
            os.utime(new, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
            os.replace(new, path)
        elif op == "chmod":
            os.chmod(path, 0o600 if path.stat().st_mode & 0o777 != 0o600 else 0o644)
        elif op == "age":
            _age(cache_dir)
        else:
            cached, _ = _scan(tmp, cache_dir)
            fresh, _ = _scan(tmp, None)
            assert _snapshot(cached) == _snapshot(fresh)


def test_deeply_nested_front_matter_does_not_stop_the_cache(tmp_path):
    deep = "description: d\nx: " + "[" * 400 + "]" * 400 + "\n"
    for name, text in (("deep", f"---\n{deep}---\nb\n"), ("plain", "---\ndescription: p\n---\nb\n")):
        (_skills_dir(tmp_path) / name).mkdir(parents=True)
        (_skills_dir(tmp_path) / name / "SKILL.md").write_text(text, encoding="utf-8")
    cache_dir = tmp_path / "cache"
    fresh, _ = _scan(tmp_path, None)
    _scan(tmp_path, cache_dir)
    _age(cache_dir)
    registry, cache = _scan(tmp_path, cache_dir)
    assert cache.hits >= 1  # the plain file is cached even though the deep one cannot be
    assert _snapshot(registry) == _snapshot(fresh)


def test_each_release_parses_into_its_own_cache():
    """A SKILL.md parsed by 2.1.88's rules (BOM kept, repeated keys refused) must never be served to 2.1.332."""
    from skillmanager.core.versions.profiles import get_profile

    legacy, current = (parse_cache.parse_context(get_profile(name)) for name in ("legacy", "current"))
    assert legacy != current
    assert parse_cache.parse_context(get_profile("legacy")) == legacy


def test_loading_and_listing_read_no_body(tmp_path, monkeypatch):
    """Bodies stay on disk through the load, the `dir:name` copies of clashing --add-dir skills (they share
    the scanned skill's lazy body) and the listing; the copy reads the same body when asked."""
    from skillmanager.core.layers.listing import build_listing
    from skillmanager.core.load import skill_file
    for folder in (tmp_path / "home" / ".claude" / "skills", tmp_path / "extra" / ".claude" / "skills"):
        (folder / "clash").mkdir(parents=True)
        (folder / "clash" / "SKILL.md").write_text(f"---\ndescription: d\n---\nbody of {folder}\n", encoding="utf-8")
    reads: list[object] = []
    real_load_body = skill_file.load_body
    monkeypatch.setattr(skill_file, "load_body", lambda source: reads.append(source) or real_load_body(source))
    workspace = Workspace.create(home=tmp_path / "home", cwd=tmp_path / "home", managed_root=None, env={},
                                 profile="current", add_dirs=[tmp_path / "extra"])
    registry = load_registry(workspace)
    build_listing(registry)
    assert reads == []
    copy = registry.find("extra:clash")
    assert copy is not None and copy.scoped_original is not None
    assert copy.body == copy.scoped_original.body == f"body of {tmp_path / 'extra' / '.claude' / 'skills'}\n"
    assert len(reads) == 2


def test_entries_of_files_that_are_gone_are_dropped_at_the_next_save(tmp_path):
    # two projects share the cache; one is deleted: its entries go, the other's stay and are still served
    kept, deleted = tmp_path / "kept", tmp_path / "deleted"
    kept_files, deleted_files = _fill(kept), _fill(deleted)
    cache_dir = tmp_path / "cache"
    _scan(kept, cache_dir)
    _scan(deleted, cache_dir)
    (file,) = cache_dir.glob("parse-*.bin")
    assert set(_read(file)["entries"]) == {str(f) for f in kept_files + deleted_files}
    shutil.rmtree(deleted)
    (kept_files[0].parent / "SKILL.md").write_text("---\ndescription: edited\n---\nbody\n")  # makes the next scan save
    _scan(kept, cache_dir)
    assert set(_read(file)["entries"]) == {str(f) for f in kept_files}
    _age(cache_dir)
    _, cache = _scan(kept, cache_dir)
    assert cache.hits == len(kept_files) and cache.misses == 0
