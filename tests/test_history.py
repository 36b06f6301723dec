"""Writes that cannot lose an update, and the History journal that records them.

Concurrency: 4 processes × 100 toggles of one settings file; every write a process reports must be in the
file at the end (without the per-file lock, two processes pass the re-read check together and the second
rename drops the first update). Then: restore round trip, pruning keeps the newest backup of each file,
0600 modes, a damaged journal, read-only files and links that leave the home dir and the project.
"""
from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import stat
import time
from pathlib import Path

import pytest

from skillmanager.core.edit import atomic_write, history
from skillmanager.core.edit.atomic_write import BACKUP_DIR_NAME, ReadOnlyFileError, write_atomic
from skillmanager.core.edit.toggle import ToggleError, apply_plan, plan_toggle, undo
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry

SKILLS_PER_PROCESS = 100
PROCESSES = 4
ATTEMPTS = 6


def make_tree(root: Path, names: list[str]) -> tuple[Path, Path]:
    home, cwd = root / "home", root / "home" / "proj"
    for name in names:
        folder = home / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: {name}.\n---\nbody\n", encoding="utf-8")
    cwd.mkdir(parents=True, exist_ok=True)
    return home, cwd


def registry_for(home: Path, cwd: Path):
    env = {"HOME": str(home)}
    return load_registry(Workspace.create(home=home, cwd=cwd, managed_root=None, env=env))


def settings_of(home: Path) -> dict:
    return json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "appdata"
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return path


# --- concurrency -----------------------------------------------------------------------------------------

def _toggle_worker(args) -> list[str]:
    """Turn off this worker's skills one by one, each from a fresh load (as separate CLI runs would);
    return the names whose write was reported done. A write refused because another process changed the
    file in between is planned again, a few times, as a user would retry."""
    home, cwd, data, worker = args
    os.environ["SKILLMANAGER_DATA_DIR"] = data
    # widen the moment between the last check and the rename, where an unlocked writer loses updates
    atomic_write._before_replace = lambda _temp, _target: time.sleep(0.003)
    written = []
    for index in range(SKILLS_PER_PROCESS):
        name = f"w{worker}-{index:03d}"
        for _attempt in range(ATTEMPTS):
            registry = registry_for(Path(home), Path(cwd))
            plan = plan_toggle(registry, registry.find(name), "off", "user")
            try:
                apply_plan(plan, data)
            except ToggleError:
                continue
            written.append(name)
            break
    return written


def run_concurrent_toggles(tmp_path: Path, data_dir: Path) -> tuple[list[str], dict]:
    """PROCESSES workers, each with its own project (its skills) and one shared user settings file."""
    home = tmp_path / "home"
    cwds = []
    for worker in range(PROCESSES):
        cwd = home / f"proj{worker}"
        for index in range(SKILLS_PER_PROCESS):
            folder = cwd / ".claude" / "skills" / f"w{worker}-{index:03d}"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text("---\ndescription: x.\n---\nbody\n", encoding="utf-8")
        cwds.append(cwd)
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{\n  "env": {"KEEP": "1"}\n}\n', encoding="utf-8")
    context = multiprocessing.get_context("fork")
    with context.Pool(PROCESSES) as pool:
        results = pool.map(_toggle_worker, [(str(home), str(cwds[w]), str(data_dir), w) for w in range(PROCESSES)])
    return [name for worker in results for name in worker], settings_of(home)


def test_four_processes_of_100_toggles_lose_no_reported_write(tmp_path, data_dir):
    reported, data = run_concurrent_toggles(tmp_path, data_dir)
    missing = [name for name in reported if data.get("skillOverrides", {}).get(name) != "off"]
    assert not missing, f"{len(missing)} of {len(reported)} reported writes lost, e.g. {missing[:3]}"
    assert len(reported) >= PROCESSES * SKILLS_PER_PROCESS // 2 and data["env"] == {"KEEP": "1"}
    journal = history.load_journal(data_dir)
    assert len([e for e in journal.entries if e.action == "toggle"]) == len(reported)


# --- journal ---------------------------------------------------------------------------------------------

def test_toggle_is_journaled_and_restore_round_trips(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    settings_file = home / ".claude" / "settings.json"
    original = '{\n  "env": {"TOKEN": "secret"}\n}\n'
    settings_file.write_text(original, encoding="utf-8")
    registry = registry_for(home, cwd)
    done = apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    entry = history.load_journal().entries[-1]
    assert entry.id == done.history_id and entry.action == "toggle" and "alpha" in entry.summary
    change = entry.files[0]
    assert change.sha256_before == history.sha256(original.encode())
    assert change.sha256_after == history.sha256(settings_file.read_bytes())
    assert Path(change.backup).read_text() == original

    restored = history.restore(entry.id)
    assert settings_file.read_text() == original
    assert restored.action == "restore" and history.load_journal().entries[-1].id == restored.id
    # the file changed since the original entry (restored): a second restore of it is refused, forced it works
    with pytest.raises(history.HistoryError, match="changed after"):
        history.restore(entry.id)
    history.restore(restored.id)  # restoring the restore puts the toggle back
    assert settings_of(home)["skillOverrides"] == {"alpha": "off"}


def test_restore_of_a_created_file_removes_it(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    registry = registry_for(home, cwd)
    done = apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    assert done.edits[0].backup is None
    history.restore(done.history_id)
    assert not (home / ".claude" / "settings.json").exists()


def test_undo_is_journaled_too(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    (home / ".claude" / "settings.json").write_text("{}\n")
    registry = registry_for(home, cwd)
    reverse = undo(apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user")))
    assert [e.action for e in history.load_journal().entries] == ["toggle", "undo"]
    assert reverse.history_id == history.load_journal().entries[-1].id


def test_pruning_expires_old_entries_but_keeps_the_newest_backup_of_each_file(tmp_path, data_dir, monkeypatch):
    home, cwd = make_tree(tmp_path, ["alpha", "beta"])
    (home / ".claude" / "settings.json").write_text("{}\n")
    other = home / "proj" / ".claude" / "settings.local.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}\n")
    monkeypatch.setenv(history.MAX_ENTRIES_ENV, "2")
    ids = []
    for state, scope in [("off", "local"), ("off", "user"), ("name-only", "user"), ("on", "user"), ("off", "user")]:
        registry = registry_for(home, cwd)
        done = apply_plan(plan_toggle(registry, registry.find("beta" if scope == "local" else "alpha"), state, scope))
        ids.append(done.history_id)
    entries = {e.id: e for e in history.load_journal().entries}
    assert [entries[i].restorable for i in ids] == [False, False, False, True, True]
    assert all(entries[i].expired_reason and "no longer restorable" in entries[i].expired_reason for i in ids[:3])
    # the local file's only backup is the newest of that file: kept although its entry expired
    local_backup = Path(entries[ids[0]].files[0].backup)
    assert local_backup.exists()
    # the user file's older backups are gone, its newest ones (entries 4 and 5) stay
    assert not Path(entries[ids[1]].files[0].backup).exists()
    assert all(Path(entries[i].files[0].backup).exists() for i in ids[3:])
    with pytest.raises(history.HistoryError, match="no longer restorable"):
        history.restore(ids[1])


def test_entries_older_than_max_days_expire(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    (home / ".claude" / "settings.json").write_text("{}\n")
    registry = registry_for(home, cwd)
    apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    registry = registry_for(home, cwd)
    apply_plan(plan_toggle(registry, registry.find("alpha"), "on", "user"))
    entries = history.load_journal().entries
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=40)
    pruned = history._prune(data_dir, entries, history.HistoryPolicy(max_entries=200, max_days=30), now=later)
    assert [e.restorable for e in pruned] == [False, False]
    assert Path(pruned[1].files[0].backup).exists()  # the newest backup of the file survives
    assert not Path(pruned[0].files[0].backup).exists()


def test_policy_is_configurable_from_the_environment():
    policy = history.HistoryPolicy.from_env({history.MAX_ENTRIES_ENV: "5", history.MAX_DAYS_ENV: "2.5"})
    assert (policy.max_entries, policy.max_days) == (5, 2.5)
    assert history.HistoryPolicy.from_env({history.MAX_ENTRIES_ENV: "many"}).max_entries == 200


def test_backups_journal_and_locks_are_private(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    (home / ".claude" / "settings.json").write_text('{"env": {"TOKEN": "secret"}}\n')
    registry = registry_for(home, cwd)
    done = apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(done.edits[0].backup) == 0o600
    assert mode(data_dir / BACKUP_DIR_NAME) == 0o700
    assert mode(data_dir / BACKUP_DIR_NAME / "index.jsonl") == 0o600
    assert mode(data_dir / history.JOURNAL_NAME) == 0o600
    assert mode(data_dir / "locks") == 0o700


def test_damaged_journal_is_a_diagnostic_and_set_aside(tmp_path, data_dir):
    data_dir.mkdir(parents=True)
    journal_file = data_dir / history.JOURNAL_NAME
    journal_file.write_bytes(b'{"entries": [{"id": 5')
    journal = history.load_journal()
    assert journal.entries == [] and "damaged" in journal.diagnostics[0]
    with pytest.raises(history.HistoryError, match="damaged"):
        history.restore("anything")
    home, cwd = make_tree(tmp_path, ["alpha"])
    registry = registry_for(home, cwd)
    done = apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    assert done.history_id and history.load_journal().diagnostics == []
    assert list(data_dir.glob("history.damaged-*.json"))


def test_unwritable_journal_does_not_undo_the_toggle(tmp_path, data_dir, monkeypatch):
    home, cwd = make_tree(tmp_path, ["alpha"])
    registry = registry_for(home, cwd)

    def refuse(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(history, "_save", refuse)
    done = apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    assert done.history_id is None and settings_of(home)["skillOverrides"] == {"alpha": "off"}


# --- files that must not be replaced ---------------------------------------------------------------------

def test_read_only_settings_file_is_refused_with_the_reason(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    settings_file = home / ".claude" / "settings.json"
    settings_file.write_text("{}\n")
    os.chmod(settings_file, 0o444)
    registry = registry_for(home, cwd)
    plan = plan_toggle(registry, registry.find("alpha"), "off", "user")
    assert plan.refusal and "read-only" in plan.refusal and "0444" in plan.refusal
    assert settings_file.read_text() == "{}\n" and stat.S_IMODE(settings_file.stat().st_mode) == 0o444
    with pytest.raises(ReadOnlyFileError):
        write_atomic(settings_file, b"{}")


def test_dangling_link_outside_home_and_project_is_refused(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    outside = tmp_path / "elsewhere" / "target.json"
    link = cwd / ".claude" / "settings.local.json"
    link.parent.mkdir(parents=True)
    os.symlink(outside, link)  # a repository could ship this link
    registry = registry_for(home, cwd)
    plan = plan_toggle(registry, registry.find("alpha"), "off", "local")
    assert plan.refusal and "symbolic link" in plan.refusal and "does not exist" in plan.refusal
    assert not outside.exists()
    allowed = plan_toggle(registry, registry.find("alpha"), "off", "local", allow_outside_link=True)
    apply_plan(allowed)
    assert json.loads(outside.read_text()) == {"skillOverrides": {"alpha": "off"}} and link.is_symlink()


def test_link_inside_home_is_written_through(tmp_path, data_dir):
    home, cwd = make_tree(tmp_path, ["alpha"])
    real = home / "dotfiles" / "claude.json"
    real.parent.mkdir(parents=True)
    real.write_text("{}\n")
    os.symlink(real, home / ".claude" / "settings.json")
    registry = registry_for(home, cwd)
    apply_plan(plan_toggle(registry, registry.find("alpha"), "off", "user"))
    assert json.loads(real.read_text()) == {"skillOverrides": {"alpha": "off"}}


def test_project_settings_link_into_the_home_dir_is_refused(tmp_path, data_dir):
    """Local/project settings belong to the project: a shipped link into the user's home (say, a dotfile) is
    not followed without confirmation, although the home dir is fine for user settings."""
    home, cwd = make_tree(tmp_path, ["alpha"])
    dotfile = home / ".profile.json"
    link = cwd / ".claude" / "settings.local.json"
    link.parent.mkdir(parents=True)
    os.symlink(dotfile, link)
    registry = registry_for(home, cwd)
    plan = plan_toggle(registry, registry.find("alpha"), "off", "local")
    assert plan.refusal and "outside the project" in plan.refusal and not dotfile.exists()
