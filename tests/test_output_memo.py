"""`skillmanager listing` replays a stored answer only when nothing it read has changed: over sequences of edits
(same-size rewrites, renames over a file, new folders at any level, settings, permissions, links) the replayed
answer equals a fresh `--no-cache` run, and replays do happen."""
from __future__ import annotations

import io
import json
import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager import cli
from skillmanager.commands import output_memo
from skillmanager.core.load import cache_file, input_trace, parse_cache
from skillmanager.core.load.input_trace import InputTrace, recording, still_valid

# A tick of the file system's clock: a file written before it is older than the probe taken after it
TICK = 0.03


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(parse_cache.CACHE_DIR_ENV, str(directory))
    return directory


@pytest.fixture
def no_margin(monkeypatch):
    """Files written a tick before the run count as clean (the default margin is 2 s, for FAT)."""
    monkeypatch.setattr(input_trace, "RACY_MARGIN_NS", 0)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _tree(base: Path) -> list[str]:
    """The workspace under `base`/ws (the cache dir beside it: creating it must not touch a traced folder)."""
    root = base / "ws"
    home, repo = root / "home", root / "home" / "repo"
    cwd = repo / "pkg" / "app"
    (repo / ".git").mkdir(parents=True)
    cwd.mkdir(parents=True)
    _write(home / ".claude" / "skills" / "alpha" / "SKILL.md", "---\ndescription: Alpha helps.\n---\nbody\n")
    _write(repo / ".claude" / "skills" / "beta" / "SKILL.md", "---\nname: Beta\ndescription: Beta helps.\n---\nb\n")
    _write(root / "extra" / ".claude" / "skills" / "gamma" / "SKILL.md", "---\ndescription: Gamma.\n---\ng\n")
    return ["listing", "--home", str(home), "--cwd", str(cwd), "--no-managed", "--add-dir", str(root / "extra")]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    real = sys.stderr
    sys.stderr = err
    try:
        code = cli.main(argv, out=out)
    finally:
        sys.stderr = real
    return code, out.getvalue(), err.getvalue()


class _Replays:
    def __init__(self, monkeypatch):
        self.count = 0
        load = output_memo._load

        def counting(file, key):
            found = load(file, key)
            self.count += found is not None
            return found
        monkeypatch.setattr(output_memo, "_load", counting)


def test_a_repeat_run_replays_without_loading_and_says_the_same(tmp_path, cache_dir, no_margin, monkeypatch):
    argv = _tree(tmp_path)
    time.sleep(TICK)
    first = _run(argv)
    assert first[0] == 0 and "Alpha helps." in first[1]
    assert list(cache_dir.glob("memo-*.bin"))

    def must_not_run(args, out):
        raise AssertionError("the listing was computed again although nothing changed")
    monkeypatch.setattr("skillmanager.commands.listing.run", must_not_run)
    assert _run(argv) == first
    with pytest.raises(AssertionError):  # --no-cache always computes the answer
        _run(argv + ["--no-cache"])


def test_no_cache_neither_reads_nor_writes_a_memo(tmp_path, cache_dir, no_margin):
    argv = _tree(tmp_path)
    time.sleep(TICK)
    _run(argv + ["--no-cache"])
    assert not cache_dir.exists() or not list(cache_dir.glob("memo-*.bin"))


def test_files_written_within_the_margin_are_not_vouched_for(tmp_path, cache_dir):
    argv = _tree(tmp_path)  # just written: well within the 2 s margin
    _run(argv)
    assert not list(cache_dir.glob("memo-*.bin"))


def test_a_damaged_memo_is_ignored_and_replaced(tmp_path, cache_dir, no_margin):
    argv = _tree(tmp_path)
    time.sleep(TICK)
    expected = _run(argv)
    memos = list(cache_dir.glob("memo-*.bin"))
    assert memos
    for memo in memos:
        memo.write_bytes(memo.read_bytes()[:-1])  # cut short
    assert _run(argv) == expected
    for memo in memos:
        assert cache_file.loads(memo.read_bytes())["stdout"] == expected[1]  # stored again, whole
    assert not list(cache_dir.glob(".memo-*"))  # no temp file left behind


def test_a_json_memo_of_format_1_is_removed_when_a_memo_is_stored(tmp_path, cache_dir, no_margin):
    argv = _tree(tmp_path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    old = cache_dir / "memo-0123abcd.json"
    old.write_text('{"format": 1}', encoding="utf-8")
    time.sleep(TICK)
    _run(argv)
    assert not old.exists() and list(cache_dir.glob("memo-*.bin"))


def test_the_environment_and_options_are_part_of_the_key(tmp_path, cache_dir, no_margin, monkeypatch):
    argv = _tree(tmp_path)
    time.sleep(TICK)
    config = _write(tmp_path / "ws" / "config" / "skills" / "zeta" / "SKILL.md", "---\ndescription: Zeta.\n---\n").parents[2]
    time.sleep(TICK)
    plain = _run(argv)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    elsewhere = _run(argv)
    assert elsewhere == _run(argv + ["--no-cache"])
    assert "Zeta." in elsewhere[1] and "Zeta." not in plain[1]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert _run(argv) == plain
    assert _run(argv + ["--profile", "legacy"]) == _run(argv + ["--profile", "legacy", "--no-cache"])


def test_the_budget_variable_wherever_it_is_set_is_part_of_the_answer(tmp_path, cache_dir, no_margin, monkeypatch):
    """SLASH_COMMAND_TOOL_CHAR_BUDGET in the environment, in ~/.claude.json or in a settings file: a changed value is
    never answered from a memo made before it (a budget of -5 leaves only names, so the text shows it)."""
    monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", raising=False)
    replays = _Replays(monkeypatch)
    argv = _tree(tmp_path)
    home = tmp_path / "ws" / "home"
    time.sleep(TICK)
    plain = _run(argv)
    assert "Alpha helps." in plain[1]
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "-5")
    names_only = _run(argv)
    assert names_only == _run(argv + ["--no-cache"]) and "Alpha helps." not in names_only[1]
    assert _run(argv) == names_only  # replayed
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "abc")  # ignored by Claude Code: the full listing again
    assert _run(argv) == plain == _run(argv + ["--no-cache"])
    monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    assert _run(argv) == plain
    for path in (home / ".claude.json", home / ".claude" / "settings.json"):
        _write(path, json.dumps({"env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": -5}}))
        time.sleep(TICK)
        assert _run(argv) == names_only == _run(argv + ["--no-cache"]), path
        _write(path, json.dumps({"env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "8000"}}))
        time.sleep(TICK)
        assert _run(argv) == plain == _run(argv + ["--no-cache"]), path
    assert replays.count >= 2  # the memo was used, not only bypassed


def test_skillmanager_code_is_an_input(tmp_path, cache_dir, no_margin):
    argv = _tree(tmp_path)
    time.sleep(TICK)
    _run(argv)
    (memo,) = cache_dir.glob("memo-*.bin")
    inputs = cache_file.loads(memo.read_bytes())["inputs"]
    traced = {os.path.join(folder, row[1]) for folder, rows in inputs.items() for row in rows}
    import skillmanager.core.rules.registry as registry_module
    assert registry_module.__file__ in traced


def test_a_path_read_relative_to_a_folder_descriptor_cannot_be_vouched_for(tmp_path):
    (tmp_path / "f").write_text("x")
    trace = InputTrace()
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        with recording(trace):
            os.stat("f", dir_fd=fd)
    finally:
        os.close(fd)
    assert trace.untraceable and not trace.reusable()


def test_a_file_that_changed_while_it_was_read_cannot_be_vouched_for(tmp_path):
    target = tmp_path / "f"
    target.write_text("x")
    trace = InputTrace()
    with recording(trace):
        os.stat(target)
        target.write_text("xy")
        os.stat(target)
    assert not trace.reusable()


def test_a_trace_sees_additions_removals_and_link_retargets(tmp_path):
    folder = tmp_path / "d"
    (folder / "a").mkdir(parents=True)
    (tmp_path / "t1").mkdir()
    (tmp_path / "t2").mkdir()
    (tmp_path / "t2" / "x").write_text("x")
    os.symlink(tmp_path / "t1", folder / "link")
    trace = InputTrace()
    with recording(trace):
        with os.scandir(folder) as entries:
            list(entries)
    grouped = json.loads(json.dumps(trace.to_json()))
    assert still_valid(grouped)
    os.unlink(folder / "link")
    os.symlink(tmp_path / "t2", folder / "link")
    assert not still_valid(grouped)
    trace = InputTrace()
    with recording(trace):
        os.listdir(folder)
    grouped = json.loads(json.dumps(trace.to_json()))
    (folder / "b").mkdir()
    assert not still_valid(grouped)
    assert not still_valid({"x": [["s", "y", 1]]}) and not still_valid(None)


EDITS = st.sampled_from([
    "same-size-description", "longer-description", "rename-over", "new-skill-at-cwd", "new-skill-in-package",
    "remove-skill", "rename-folder", "settings-deny", "settings-override", "unreadable", "readable-again",
    "link-skill", "retarget-link", "break-yaml", "chmod-only", "settings-env-budget", "global-config-budget",
    "global-config-history", "nothing",
])


def _apply(edit: str, base: Path, step: int) -> None:
    root = base / "ws"
    home, repo = root / "home", root / "home" / "repo"
    alpha = home / ".claude" / "skills" / "alpha" / "SKILL.md"
    beta = repo / ".claude" / "skills" / "beta" / "SKILL.md"
    if edit == "same-size-description" and alpha.exists():
        text = alpha.read_text(encoding="utf-8")
        alpha.write_text(text.replace("Alpha helps.", "Alpha works.") if "helps" in text
                         else text.replace("Alpha works.", "Alpha helps."), encoding="utf-8")
    elif edit == "longer-description" and alpha.exists():
        alpha.write_text(f"---\ndescription: Alpha, version {step}.\n---\nbody\n", encoding="utf-8")
    elif edit == "rename-over":
        temp = beta.parent / "SKILL.md.tmp"
        _write(temp, f"---\nname: Beta{step % 10}\ndescription: Beta helps.\n---\nb\n")
        os.replace(temp, beta)
    elif edit == "new-skill-at-cwd":
        _write(repo / "pkg" / "app" / ".claude" / "skills" / f"n{step}" / "SKILL.md", f"---\ndescription: N{step}.\n---\n")
    elif edit == "new-skill-in-package":
        _write(repo / "pkg" / ".claude" / "skills" / f"p{step}" / "SKILL.md", f"---\ndescription: P{step}.\n---\n")
    elif edit == "remove-skill":
        for folder in sorted((repo / "pkg" / ".claude" / "skills").glob("p*")) + sorted(
                (repo / "pkg" / "app" / ".claude" / "skills").glob("n*")):
            (folder / "SKILL.md").unlink()
            folder.rmdir()
            break
    elif edit == "rename-folder":
        skills = root / "extra" / ".claude" / "skills"
        (current,) = [p for p in skills.iterdir() if not p.is_symlink()][:1] or [None]
        if current is not None:
            current.rename(skills / ("gamma" if current.name != "gamma" else "delta"))
    elif edit == "settings-deny":
        _write(repo / ".claude" / "settings.json", json.dumps({"permissions": {"deny": ["Skill(alpha)"]}}))
    elif edit == "settings-override":
        _write(home / ".claude" / "settings.json", json.dumps({"skillOverrides": {"Beta": "off" if step % 2 else "on"}}))
    elif edit == "unreadable" and alpha.exists() and os.geteuid() != 0:
        alpha.chmod(0)
    elif edit == "readable-again" and alpha.exists():
        alpha.chmod(0o644)
    elif edit == "link-skill":
        link = root / "extra" / ".claude" / "skills" / "linked"
        if not link.is_symlink():
            os.symlink(repo / ".claude" / "skills" / "beta", link)
    elif edit == "retarget-link":
        link = root / "extra" / ".claude" / "skills" / "linked"
        if link.is_symlink():
            link.unlink()
            target = home / ".claude" / "skills" / "alpha"
            os.symlink(target if step % 2 else repo / ".claude" / "skills" / "beta", link)
    elif edit == "break-yaml" and alpha.exists():
        alpha.write_text("---\ndescription: [unclosed\n---\nbody\n", encoding="utf-8")
    elif edit == "settings-env-budget":  # -5: names only; 99999: the full listing
        _write(home / ".claude" / "settings.json",
               json.dumps({"env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "-5" if step % 2 else "99999"}}))
    elif edit == "global-config-budget":
        _write(home / ".claude.json", json.dumps({"env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": -5 if step % 2 else 0}}))
    elif edit == "global-config-history":  # Claude Code rewrites ~/.claude.json all the time, keeping its env
        config = home / ".claude.json"
        data = json.loads(config.read_text(encoding="utf-8")) if config.exists() else {}
        _write(config, json.dumps({**data, "numStartups": step}))
    elif edit == "chmod-only" and beta.exists():
        beta.chmod(0o600 if step % 2 else 0o644)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(EDITS, min_size=1, max_size=8))
def test_replayed_answers_equal_fresh_ones_over_edit_sequences(tmp_path_factory, monkeypatch, edits):
    root = tmp_path_factory.mktemp("memo")
    monkeypatch.setenv(parse_cache.CACHE_DIR_ENV, str(root / "cache"))
    monkeypatch.setattr(input_trace, "RACY_MARGIN_NS", 0)
    replays = _Replays(monkeypatch)
    argv = _tree(root)
    for step, edit in enumerate(["nothing", *edits]):
        _apply(edit, root, step)
        time.sleep(TICK)
        fresh = _run(argv + ["--no-cache"])
        assert _run(argv) == fresh, edit  # records (or replays an older, still valid answer)
        assert _run(argv) == fresh, edit  # replays
    assert replays.count >= len(edits)  # the memo was really used, not only bypassed


def test_a_same_size_rewrite_with_the_old_mtime_is_seen(tmp_path, cache_dir, no_margin):
    """A file written again within one mtime tick (forced here with os.utime) keeps size and mtime; its ctime moves."""
    argv = _tree(tmp_path)
    alpha = tmp_path / "ws" / "home" / ".claude" / "skills" / "alpha" / "SKILL.md"
    time.sleep(TICK)
    first = _run(argv)
    assert _run(argv) == first and list(cache_dir.glob("memo-*.bin"))
    before = alpha.stat()
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("Alpha helps.", "Alpha fails."), encoding="utf-8")
    os.utime(alpha, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert alpha.stat().st_size == before.st_size and alpha.stat().st_mtime_ns == before.st_mtime_ns
    time.sleep(TICK)
    again = _run(argv)
    assert "Alpha fails." in again[1] and again == _run(argv + ["--no-cache"])


def test_paths_at_the_root_and_relative_paths_are_traced_as_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here").write_text("x")
    trace = InputTrace()
    with recording(trace):
        os.lstat("/")
        os.lstat(os.listdir("/")[0] and "/" + sorted(os.listdir("/"))[0])
        os.stat("here")
    grouped = json.loads(json.dumps(trace.to_json()))
    assert str(tmp_path) in grouped and "/" in grouped
    assert still_valid(grouped)
    os.chdir("/")  # the trace holds absolute paths: it does not depend on the working dir
    assert still_valid(grouped)


def test_files_coming_and_going_beside_the_skills_do_not_spoil_the_stored_answer(tmp_path, cache_dir, no_margin,
                                                                                 monkeypatch):
    """Shell history lock files in the home folder, a build in the repository: no path the answer read."""
    argv = _tree(tmp_path)
    home, repo = tmp_path / "ws" / "home", tmp_path / "ws" / "home" / "repo"
    time.sleep(TICK)
    first = _run(argv)
    (home / ".zsh_history.LOCK").write_text("1")
    (repo / "pkg" / "build.log").write_text("ok")
    (repo / "pkg" / "app" / "node_modules").mkdir()
    (home / ".zsh_history.LOCK").unlink()
    replays = _Replays(monkeypatch)
    assert _run(argv) == first == _run(argv + ["--no-cache"])
    assert replays.count == 1
