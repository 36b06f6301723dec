"""Writes never block on a FIFO or device in the app's data dir, and settings edits stay linear in the
file size (docs/limits.md). Hang guards only (a thread join or a subprocess timeout), no timing
assertions: the edit's cost is asserted as a count of operations."""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from skillmanager.core.edit import atomic_write, history, json_text_edit
from skillmanager.core.edit.file_lock import locked, lock_path_for
from skillmanager.core.load.safe_read import NotRegularFileError

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD = 120  # seconds: far above the bounded behaviour, far below a hang


def bounded(call):
    """Run `call` in a thread; fail (instead of hanging the suite) if it does not return."""
    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            box["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    assert not worker.is_alive(), "blocked on a FIFO or device"
    return box


def run_cli(argv, data_dir: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "SKILLMANAGER_DATA_DIR": str(data_dir)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    try:
        return subprocess.run([sys.executable, "-m", "skillmanager", *argv], capture_output=True, text=True,
                              timeout=HANG_GUARD, cwd=REPO, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"skillmanager {' '.join(argv[:2])} blocked")


@pytest.fixture
def workspace(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "proj"
    skill = home / ".claude" / "skills" / "a" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: hi\n---\nbody\n", encoding="utf-8")
    (home / ".claude" / "settings.json").write_text('{"model": "x"}\n', encoding="utf-8")
    (cwd / ".git").mkdir(parents=True)
    return home, ["--home", str(home), "--cwd", str(cwd), "--no-managed"]


def _special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)  # followed by stat: a character device


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_backup_index_that_is_a_fifo_or_device_is_refused(tmp_path, kind):
    data = tmp_path / "data"
    index = data / atomic_write.BACKUP_DIR_NAME / atomic_write.BACKUP_INDEX_NAME
    _special(index, kind)
    box = bounded(lambda: atomic_write.backup_previous(tmp_path / "settings.json", b"{}", data))
    error = box.get("error")
    assert isinstance(error, NotRegularFileError), box
    assert "backup index is a" in str(error) and ("FIFO" in str(error) or "device" in str(error))


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_toggle_with_a_special_backup_index_exits_1_and_leaves_the_settings(tmp_path, workspace, kind):
    home, args = workspace
    data = tmp_path / "data"
    _special(data / atomic_write.BACKUP_DIR_NAME / atomic_write.BACKUP_INDEX_NAME, kind)
    before = (home / ".claude" / "settings.json").read_bytes()
    proc = run_cli(["toggle", "a", "--state", "off", "--scope", "user", *args], data)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "backup index" in proc.stderr and "not a regular file" in proc.stderr
    assert (home / ".claude" / "settings.json").read_bytes() == before  # no backup, no write


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_history_journal_that_is_a_fifo_or_device_is_a_diagnostic(tmp_path, kind):
    data = tmp_path / "data"
    _special(data / history.JOURNAL_NAME, kind)
    box = bounded(lambda: history.load_journal(data))
    journal = box["value"]
    assert journal.entries == [] and "not a regular file" in journal.diagnostics[0]
    box = bounded(lambda: history.record(history.new_entry("toggle", "x", []), data))
    assert isinstance(box.get("error"), NotRegularFileError) and "history journal" in str(box["error"])
    assert os.path.lexists(data / history.JOURNAL_NAME)  # neither replaced nor set aside


def test_history_command_with_a_fifo_journal_says_so(tmp_path, workspace):
    _home, args = workspace
    data = tmp_path / "data"
    _special(data / history.JOURNAL_NAME, "fifo")
    proc = run_cli(["history", "list"], data)
    assert "not a regular file" in proc.stderr + proc.stdout


def test_toggle_with_a_fifo_journal_writes_and_warns(tmp_path, workspace):
    """The journal is written after the user's file: the change stays (with its backup), a warning says
    the history could not record it."""
    home, args = workspace
    data = tmp_path / "data"
    _special(data / history.JOURNAL_NAME, "fifo")
    proc = run_cli(["toggle", "a", "--state", "off", "--scope", "user", *args], data)
    assert json.loads((home / ".claude" / "settings.json").read_text())["skillOverrides"] == {"a": "off"}
    assert "history journal" in proc.stderr and "not a regular file" in proc.stderr


def test_restore_from_a_backup_replaced_by_a_fifo_is_refused(tmp_path):
    data = tmp_path / "data"
    target = tmp_path / "settings.json"
    target.write_text('{"a": 1}\n')
    backup = atomic_write.backup_previous(target, target.read_bytes(), data)
    target.write_text('{"a": 2}\n')
    entry = history.record(history.new_entry("toggle", "a", [history.FileChange(
        str(target), str(target), str(backup), history.sha256(b'{"a": 1}\n'), history.sha256(b'{"a": 2}\n'))]), data)
    backup.unlink()
    os.mkfifo(backup)
    box = bounded(lambda: history.restore(entry.id, data))
    assert isinstance(box.get("error"), history.HistoryError) and "cannot be read" in str(box["error"])
    assert target.read_text() == '{"a": 2}\n'


def test_pruning_skips_a_fifo_index(tmp_path, caplog):
    data = tmp_path / "data"
    (data / atomic_write.BACKUP_DIR_NAME).mkdir(parents=True)
    os.mkfifo(data / atomic_write.BACKUP_DIR_NAME / atomic_write.BACKUP_INDEX_NAME)
    box = bounded(lambda: history._prune_unreferenced_backups(data, [], history._dt.datetime.now(history._dt.timezone.utc)))
    assert "error" not in box
    assert any("not pruned" in r.getMessage() and "FIFO" in r.getMessage() for r in caplog.records)


def test_write_atomic_refuses_a_fifo_target(tmp_path):
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    box = bounded(lambda: atomic_write.write_atomic(fifo, b"{}"))
    assert isinstance(box.get("error"), NotRegularFileError) and "FIFO" in str(box["error"])
    assert Path(fifo).is_fifo()


def test_a_fifo_lock_file_is_refused_not_waited_on(tmp_path):
    data = tmp_path / "data"
    target = tmp_path / "settings.json"
    lock = lock_path_for(target, data)
    lock.parent.mkdir(parents=True)
    os.mkfifo(lock)

    def take():
        with locked(target, data, timeout=5):
            return "taken"

    box = bounded(take)
    assert isinstance(box.get("error"), OSError) and "not a regular file" in str(box["error"])


# ------------------------------------------------------------------ settings edits linear in the file size

def _layouts(members: int) -> dict[str, str]:
    env = {f"K{i}": "v" * 10 for i in range(members)}
    return {
        "pretty": json.dumps({"env": env, "permissions": {"allow": [f"Bash(x{i})" for i in range(members // 4)]}},
                             indent=2),
        "minified": json.dumps({"env": env}),
        "one long line": '{\n "env": ' + json.dumps(env) + ',\n "a": 1\n}',
        "nested": '{\n "x": ' + "[" * 200 + "1" + "]" * 200 + ',\n "env": '
                  + json.dumps(env, indent=1).replace("\n", "\n ") + "\n}",
        # one container per member, all on one long line after a line break
        "containers on one line": '{"x":\n' + json.dumps([[{"k": i}] for i in range(members)]) + "}",
    }


_WHOLE_TEXT_SCANS = {"find", "rfind", "count", "index", "rindex", "split", "splitlines", "replace", "strip",
                     "lstrip", "rstrip", "encode"}  # startswith(x, pos) looks at one place


def _operations(text: str) -> collections.Counter:
    """Calls made by one toggle edit (set, then delete, the skillOverrides entry): every Python and C call,
    and, separately, calls of str methods that can scan the whole document."""
    counts: collections.Counter = collections.Counter()

    def profile(_frame, event, arg):
        if event == "call":
            counts["calls"] += 1
        elif event == "c_call":
            counts["calls"] += 1
            owner = getattr(arg, "__self__", None)
            if type(owner) is str and len(owner) > len(text) // 2 and getattr(arg, "__name__", "") in _WHOLE_TEXT_SCANS:
                counts["whole-text scans"] += 1

    sys.setprofile(profile)
    try:
        edited = json_text_edit.set_key(text, ["skillOverrides", "a"], "off")
        json_text_edit.delete_key(edited, ["skillOverrides", "a"])
    finally:
        sys.setprofile(None)
    return counts


@pytest.mark.parametrize("layout", list(_layouts(1)))
def test_toggle_edit_is_linear_in_the_file_size(layout):
    small, large = _layouts(2_000)[layout], _layouts(8_000)[layout]
    assert len(large) > 3.8 * len(small)
    few, many = _operations(small), _operations(large)
    # four times the members: at most ~four times the operations (a per-member scan of the text would
    # make it sixteen), and a bounded number of passes over the whole text whatever its size
    assert many["calls"] <= 4.4 * few["calls"], (few, many)
    assert many["whole-text scans"] <= 12 and many["whole-text scans"] == few["whole-text scans"], (few, many)


def test_a_25_mb_settings_file_is_edited_exactly(tmp_path):
    text = _layouts(100_000)["containers on one line"]
    text = text[:-1] + ', "env": ' + json.dumps({f"K{i}": "v" * 10 for i in range(40_000)}) + "}"
    assert len(text) > 2_500_000
    edited = bounded(lambda: json_text_edit.set_key(text, ["skillOverrides", "a"], "off"))["value"]
    assert json.loads(edited) == {**json.loads(text), "skillOverrides": {"a": "off"}}
    assert edited.startswith(text[:-1])  # only the new member was added
