"""Staging sources safely (core/manage/sources.py): caps, special members, git limits, and undoing an install."""
from __future__ import annotations

import io
import os
import shutil
import stat
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from skillmanager.core.edit import history
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.manage import operations, sources
from skillmanager.core.manage.preview import preview_install, resolve_target
from skillmanager.core.manage.sources import SourceError, stage

SKILL = b"---\nname: pkg\ndescription: A package.\n---\nbody\n"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the system trash of this test
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


def _zip(path: Path, extra: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("pkg/SKILL.md", SKILL)
        for info, data in extra:
            z.writestr(info, data)
    return path


def test_file_count_cap_refuses_the_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_FILES", 5)
    archive = _zip(tmp_path / "many.zip", [(f"pkg/f{i}.txt", b"x") for i in range(10)])
    with pytest.raises(SourceError, match="more than 5 files"):
        stage(str(archive))


def test_total_size_cap_refuses_the_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_TOTAL_BYTES", 1000)
    archive = _zip(tmp_path / "big.zip", [("pkg/a.txt", b"x" * 600), ("pkg/b.txt", b"x" * 600)])
    with pytest.raises(SourceError, match="more than 1,000 bytes"):
        stage(str(archive))


@pytest.mark.parametrize("mode, words", [(stat.S_IFCHR | 0o644, "device"), (stat.S_IFIFO | 0o644, "device"),
                                         (stat.S_IFLNK | 0o777, "link")])
def test_zip_special_members_refuse_the_archive(tmp_path, mode, words):
    info = zipfile.ZipInfo("pkg/special")
    info.external_attr = mode << 16
    archive = _zip(tmp_path / "s.zip", [(info, b"/dev/sda")])
    with pytest.raises(SourceError, match=words):
        stage(str(archive))


@pytest.mark.parametrize("name", ["C:/Windows/evil.txt", "pkg\\..\\..\\evil.txt", "\\\\server\\share\\x"])
def test_windows_shaped_escapes_are_refused(tmp_path, name):
    archive = _zip(tmp_path / "w.zip", [(name, b"x")])
    with pytest.raises(SourceError, match="refused whole"):
        stage(str(archive))


@pytest.mark.parametrize("kind", [tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE])
def test_tar_hard_links_fifos_and_devices_refuse_the_archive(tmp_path, kind):
    archive = tmp_path / "t.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        info = tarfile.TarInfo("pkg/SKILL.md")
        info.size = len(SKILL)
        t.addfile(info, io.BytesIO(SKILL))
        bad = tarfile.TarInfo("pkg/bad")
        bad.type = kind
        bad.linkname = "pkg/SKILL.md" if kind == tarfile.LNKTYPE else ""
        t.addfile(bad)
    with pytest.raises(SourceError):
        stage(str(archive))


def test_not_an_archive_is_a_clear_refusal(tmp_path):
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"not a zip at all")
    with pytest.raises(SourceError, match="not a readable archive"):
        stage(str(fake))


def test_fifo_in_a_folder_refuses_the_folder(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(SKILL)
    os.mkfifo(folder / "pipe")
    with pytest.raises(SourceError, match="not a regular file"):
        stage(str(folder))


def test_link_inside_the_source_is_copied_as_a_file(tmp_path):
    folder = tmp_path / "repo" / "skills" / "pkg"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(SKILL)
    (tmp_path / "repo" / "LICENSE").write_text("MIT\n")
    os.symlink("../../LICENSE", folder / "LICENSE")
    staged = stage(str(tmp_path / "repo"))
    try:
        copied = staged.candidates[0].staged_dir / "LICENSE"
        assert not copied.is_symlink() and copied.read_text() == "MIT\n"
    finally:
        staged.cleanup()


def test_git_missing_gives_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(SourceError, match="needs the `git` program"):
        stage("https://example.invalid/skills.git")


def test_git_clone_is_stopped_at_the_time_limit(tmp_path):
    assert shutil.which("git")
    repo = tmp_path / "repo"
    (repo / "s").mkdir(parents=True)
    (repo / "s" / "SKILL.md").write_bytes(SKILL)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.invalid"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    with pytest.raises(SourceError, match="was stopped"):
        stage(str(repo), git=True, timeout=0.0001)


def test_git_hooks_never_run(tmp_path, monkeypatch):
    """A hook installed into the clone (here through the user's init.templateDir) does not run: core.hooksPath
    points nowhere. The control run without that setting shows the hook would have run."""
    repo = tmp_path / "repo"
    (repo / "s").mkdir(parents=True)
    (repo / "s" / "SKILL.md").write_bytes(SKILL)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.invalid"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    marker = tmp_path / "hook-ran"
    hooks = tmp_path / "template" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "post-checkout").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "post-checkout").chmod(0o755)
    fake_home = tmp_path / "githome"
    fake_home.mkdir()
    (fake_home / ".gitconfig").write_text(f"[init]\n\ttemplateDir = {tmp_path / 'template'}\n")
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    stage(str(repo), git=True).cleanup()
    assert not marker.exists()
    unsafe = tuple(v for v in sources.GIT_SAFE_CONFIG if v != "core.hooksPath=/dev/null")
    unsafe = tuple(v for i, v in enumerate(unsafe) if not (v == "-c" and i + 1 < len(unsafe) and unsafe[i + 1] == "-c"))
    monkeypatch.setattr(sources, "GIT_SAFE_CONFIG", unsafe)
    stage(str(repo), git=True).cleanup()
    assert marker.exists()  # control: without core.hooksPath the same clone runs the hook
    assert sources.GIT_ENV["GIT_ALLOW_PROTOCOL"] == "file:https:ssh"
    assert sources.GIT_ENV["GIT_TERMINAL_PROMPT"] == "0"


def test_git_submodules_are_not_fetched(tmp_path):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.invalid"}

    def git(*args, cwd):
        subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, env=env, check=True,
                       capture_output=True)

    sub = tmp_path / "sub"
    (sub / "inner").mkdir(parents=True)
    (sub / "inner" / "SKILL.md").write_bytes(SKILL)
    git("init", "-q", cwd=sub)
    git("add", ".", cwd=sub)
    git("commit", "-q", "-m", "sub", cwd=sub)
    repo = tmp_path / "repo"
    (repo / "skills" / "top").mkdir(parents=True)
    (repo / "skills" / "top" / "SKILL.md").write_bytes(SKILL)
    git("init", "-q", cwd=repo)
    git("submodule", "add", "-q", str(sub), "vendor/sub", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "top", cwd=repo)
    staged = stage(str(repo), git=True)
    try:
        assert [c.name for c in staged.candidates] == ["top"]  # the submodule's `inner` skill was not fetched
    finally:
        staged.cleanup()


def test_undo_of_an_install_removes_it_and_the_name_can_be_used_again(tmp_path):
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(SKILL)
    workspace = Workspace.create(home=home, cwd=home / "proj", managed_root=None, env={"HOME": str(home)})
    target = resolve_target(workspace, "personal")

    def install_once():
        staged = stage(str(folder))
        try:
            picks = [(c.name, c.staged_dir, c.rel) for c in staged.candidates]
            return operations.install(preview_install(workspace, target, picks))
        finally:
            staged.cleanup()

    result = install_once()
    assert (home / ".claude" / "skills" / "pkg" / "SKILL.md").read_bytes() == SKILL
    history.restore(result.history_id)
    assert not (home / ".claude" / "skills" / "pkg" / "SKILL.md").exists()
    install_once()  # the empty folder the undo left is free again
    assert (home / ".claude" / "skills" / "pkg" / "SKILL.md").read_bytes() == SKILL


def test_a_changed_file_blocks_the_undo_of_a_rename(tmp_path):
    skills = tmp_path / "skills"
    result = operations.create(skills, "alpha", "Alpha things.")
    renamed = operations.rename(result.paths[0], "beta")
    (renamed.paths[0] / "SKILL.md").write_text("edited after the rename\n")
    with pytest.raises(history.HistoryError, match="changed after"):
        history.restore(renamed.history_id)
    assert (skills / "beta" / "SKILL.md").read_text() == "edited after the rename\n"


def test_renaming_onto_an_existing_skill_is_refused(tmp_path):
    skills = tmp_path / "skills"
    operations.create(skills, "alpha", "Alpha things.")
    operations.create(skills, "beta", "Beta things.")
    with pytest.raises(operations.OperationError, match="already exists"):
        operations.rename(skills / "alpha", "beta")
    assert "Alpha" in (skills / "alpha" / "SKILL.md").read_text()


def test_remove_falls_back_to_the_app_trash_without_a_system_trash(tmp_path, monkeypatch):
    monkeypatch.setattr(operations, "system_trash_dir", lambda env=None, platform=None: None)
    skills = tmp_path / "skills"
    operations.create(skills, "alpha", "Alpha things.")
    result = operations.remove(skills / "alpha")
    kept = list((tmp_path / "appdata" / "trash").iterdir())
    assert len(kept) == 1 and (kept[0] / "SKILL.md").is_file() and not (skills / "alpha").exists()
    history.restore(result.history_id)
    assert "Alpha" in (skills / "alpha" / "SKILL.md").read_text()


def test_system_trash_location_follows_xdg():
    assert operations.system_trash_dir({"XDG_DATA_HOME": "/x/data", "HOME": "/h"}, "linux") == Path("/x/data/Trash")
    assert operations.system_trash_dir({"XDG_DATA_HOME": "rel", "HOME": "/h"}, "linux") == \
        Path("/h/.local/share/Trash")
    assert operations.system_trash_dir({"HOME": "/h"}, "darwin") is None
