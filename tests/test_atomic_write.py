"""Crash-safe writes, symlinks, permissions, external-change detection and backups."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from skillmanager.core.edit import atomic_write as aw
from skillmanager.core.edit.atomic_write import (
    TEMP_PREFIX,
    ExternalChangeError,
    backup_previous,
    ensure_unchanged,
    read_snapshot,
    write_atomic,
)

SETTINGS = b'{\n  "permissions": {\n    "deny": []\n  }\n}\n'


def _temps(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_replaces_content_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    written = write_atomic(target, b"{}\n")
    assert written == target.resolve()
    assert target.read_bytes() == b"{}\n"
    assert _temps(tmp_path) == []


def test_permission_bits_are_preserved(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    os.chmod(target, 0o640)
    write_atomic(target, b"{}")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_owner_is_preserved(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    os.chown(target, 12345, 23456)
    write_atomic(target, b"{}")
    st = target.stat()
    assert (st.st_uid, st.st_gid) == (12345, 23456)


def test_new_file_gets_umask_mode_not_mkstemp_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "new.json"
        write_atomic(target, b"{}", create=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_symlink_stays_a_link_and_target_is_written(tmp_path: Path) -> None:
    real_dir = tmp_path / "dotfiles"
    real_dir.mkdir()
    real = real_dir / "settings.json"
    real.write_bytes(SETTINGS)
    os.chmod(real, 0o600)
    claude = tmp_path / ".claude"
    claude.mkdir()
    link = claude / "settings.json"
    link.symlink_to(os.path.relpath(real, claude))  # relative link, as dotfile managers make
    before = os.readlink(link)

    written = write_atomic(link, b'{"a": 1}\n')

    assert link.is_symlink() and os.readlink(link) == before
    assert written == real.resolve()
    assert real.read_bytes() == b'{"a": 1}\n'
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert _temps(claude) == [] and _temps(real_dir) == []


def test_symlink_chain_is_followed_to_the_end(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"{}")
    (tmp_path / "mid.json").symlink_to(real)
    (tmp_path / "top.json").symlink_to(tmp_path / "mid.json")
    write_atomic(tmp_path / "top.json", b"[]")
    assert real.read_bytes() == b"[]"
    assert (tmp_path / "top.json").is_symlink() and (tmp_path / "mid.json").is_symlink()


def test_dangling_symlink_creates_its_target_only_when_asked(tmp_path: Path) -> None:
    link = tmp_path / "settings.json"
    link.symlink_to(tmp_path / "store" / "settings.json")
    with pytest.raises(FileNotFoundError):
        write_atomic(link, b"{}")
    write_atomic(link, b"{}", create=True)
    assert link.is_symlink()
    assert (tmp_path / "store" / "settings.json").read_bytes() == b"{}"


def test_missing_file_needs_create_and_parents_are_made(tmp_path: Path) -> None:
    target = tmp_path / "proj" / ".claude" / "settings.local.json"
    with pytest.raises(FileNotFoundError):
        write_atomic(target, b"{}")
    assert not (tmp_path / "proj").exists()
    write_atomic(target, b"{}\n", create=True)
    assert target.read_bytes() == b"{}\n"


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, b"{}")


def test_crash_between_temp_write_and_rename_keeps_original(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    seen: list[Path] = []

    def crash(temp_path: Path, final: Path) -> None:
        # The temp file is complete at this point: prove it, then "crash".
        assert temp_path.read_bytes() == b"NEW"
        assert temp_path.parent == final.parent
        seen.append(temp_path)
        raise KeyboardInterrupt("simulated crash")

    monkeypatch.setattr(aw, "_before_replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"NEW")
    assert target.read_bytes() == SETTINGS
    assert seen and not seen[0].exists()
    assert _temps(tmp_path) == []


def test_failing_rename_keeps_original(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)

    def denied(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(aw.os, "replace", denied)
    with pytest.raises(PermissionError):
        write_atomic(target, b"NEW")
    assert target.read_bytes() == SETTINGS
    assert _temps(tmp_path) == []


def test_snapshot_records_content_and_metadata(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    snap = read_snapshot(target)
    st = target.stat()
    assert snap.data == SETTINGS
    assert (snap.size, snap.mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert snap.sha256 == __import__("hashlib").sha256(SETTINGS).hexdigest()
    ensure_unchanged(snap)  # nothing happened


def test_external_edit_is_detected_even_with_same_size_and_mtime(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b'{"a": 1}')
    snap = read_snapshot(target)
    target.write_bytes(b'{"a": 2}')  # same size
    os.utime(target, ns=(snap.mtime_ns, snap.mtime_ns))  # and same mtime
    with pytest.raises(ExternalChangeError, match="changed by another program"):
        ensure_unchanged(snap)


def test_touch_without_content_change_is_not_an_external_change(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    snap = read_snapshot(target)
    os.utime(target, ns=(snap.mtime_ns + 10**9, snap.mtime_ns + 10**9))
    ensure_unchanged(snap)


def test_deleted_and_created_files_are_detected(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    snap = read_snapshot(target)
    target.unlink()
    with pytest.raises(ExternalChangeError, match="deleted"):
        ensure_unchanged(snap)
    missing = read_snapshot(target, missing_ok=True)
    assert not missing.exists and missing.data == b""
    target.write_bytes(b"{}")
    with pytest.raises(ExternalChangeError, match="created"):
        ensure_unchanged(missing)
    with pytest.raises(FileNotFoundError):
        read_snapshot(tmp_path / "nope.json")


def test_write_with_expect_refuses_after_concurrent_edit(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    snap = read_snapshot(target)
    external = b'{"model": "opus"}\n'
    real_fsync = os.fsync

    def edit_during_write(fd):
        # Another program saves the file while our temp file is being written.
        real_fsync(fd)
        if target.read_bytes() != external:
            target.write_bytes(external)

    monkeypatch.setattr(aw.os, "fsync", edit_during_write)
    with pytest.raises(ExternalChangeError):
        write_atomic(target, b"{}", expect=snap)
    assert target.read_bytes() == external
    assert _temps(tmp_path) == []


def test_write_with_matching_expect_succeeds(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    write_atomic(target, b"{}", expect=read_snapshot(target))
    assert target.read_bytes() == b"{}"


def test_snapshot_through_symlink_sees_target_changes(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    snap = read_snapshot(link)
    real.write_bytes(b'{"x": 1}')
    with pytest.raises(ExternalChangeError):
        ensure_unchanged(snap)


def test_unreadable_file_reports_external_change(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(SETTINGS)
    snap = read_snapshot(target)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(aw, "open", denied, raising=False)
    with pytest.raises(ExternalChangeError, match="can no longer be read"):
        ensure_unchanged(snap)


def test_backup_goes_to_app_data_dir_with_index(tmp_path: Path) -> None:
    project = tmp_path / "proj" / ".claude"
    project.mkdir(parents=True)
    settings = project / "settings.json"
    settings.write_bytes(SETTINGS)
    app_data = tmp_path / "appdata"

    first = backup_previous(settings, SETTINGS, app_data)
    second = backup_previous(settings, b"{}", app_data)

    assert sorted(p.name for p in project.iterdir()) == ["settings.json"]  # nothing beside the file
    assert first.parent == second.parent == app_data / "backups"
    assert first != second
    assert first.read_bytes() == SETTINGS and second.read_bytes() == b"{}"
    assert first.name.endswith("-settings.json")
    lines = (app_data / "backups" / "index.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["backup"] for r in records] == [first.name, second.name]
    assert all(r["original"] == str(settings.resolve()) for r in records)
    assert records[0]["size"] == len(SETTINGS)


def test_backup_names_never_collide(tmp_path: Path, monkeypatch) -> None:
    import datetime as dt

    fixed = dt.datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=dt.timezone.utc)

    class FrozenDatetime(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    monkeypatch.setattr(aw._dt, "datetime", FrozenDatetime)
    names = {backup_previous(tmp_path / "s.json", bytes([i]), tmp_path / "data").name for i in range(3)}
    assert len(names) == 3


def _toggle_deny(path: Path, rule: str, app_data: Path) -> None:
    """The toggle flow these modules exist for: snapshot, edit text, back up, write."""
    from skillmanager.core.edit.json_text_edit import array_add

    snap = read_snapshot(path)
    new = array_add(snap.data.decode("utf-8"), ["permissions", "deny"], rule).encode("utf-8")
    backup_previous(path, snap.data, app_data)
    write_atomic(path, new, expect=snap)


def test_toggle_flow_through_a_symlinked_settings_file(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_bytes(SETTINGS)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    _toggle_deny(link, "Skill(pdf)", tmp_path / "appdata")
    assert link.is_symlink()
    assert real.read_bytes() == b'{\n  "permissions": {\n    "deny": [\n      "Skill(pdf)"\n    ]\n  }\n}\n'
    assert (tmp_path / "appdata" / "backups" / "index.jsonl").exists()


def test_malformed_settings_are_left_byte_identical(tmp_path: Path) -> None:
    from skillmanager.core.edit.json_text_edit import JsonEditError

    target = tmp_path / "settings.json"
    malformed = b'{\n  // my notes\n  "permissions": {"deny": []},\n}\n'
    target.write_bytes(malformed)
    before = target.stat()
    with pytest.raises(JsonEditError, match=r"line 2:3: comments are not allowed"):
        _toggle_deny(target, "Skill(pdf)", tmp_path / "appdata")
    assert target.read_bytes() == malformed
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    assert _temps(tmp_path) == [] and not (tmp_path / "appdata").exists()
