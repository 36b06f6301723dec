"""The CLI's one error path: usage errors on stderr with exit 2, problems with exit 1, every error on stderr,
stdout valid JSON whatever the exit code (docs/cli-json.md, "Errors and exit codes").

Unreadable directories are made with monkeypatch (the tests run as root, where chmod 000 still reads);
test_robustness.py::test_unreadable_dirs_without_privileges covers the real permission bits.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from skillmanager import cli


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home, cwd = tmp_path / "home", tmp_path / "home" / "proj"
    for base, name in ((home, "user-skill"), (cwd, "proj-skill")):
        folder = base / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: The {name}.\n---\nRun `ls`.\n", encoding="utf-8")
    return tmp_path


def args_for(tree: Path) -> list[str]:
    return ["--home", str(tree / "home"), "--cwd", str(tree / "home" / "proj"), "--no-managed"]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv, out=out)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def deny_listing(monkeypatch, *victims: Path) -> None:
    """os.scandir and os.open of `victims` raise PermissionError, as for a folder without read permission
    (the test runs as root, which the OS would let through)."""
    real_scandir, real_open = os.scandir, os.open
    blocked = {os.fsencode(v) for v in victims}

    def fake_scandir(path="."):
        if not isinstance(path, int) and os.fsencode(os.path.abspath(path)) in blocked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def fake_open(path, flags, *args, **kwargs):
        if os.fsencode(os.path.abspath(path)) in blocked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", fake_scandir)
    monkeypatch.setattr(os, "open", fake_open)


JSON_COMMANDS = (["list", "--json"], ["conflicts", "--json"], ["show", "user-skill", "--json"], ["listing", "--json"],
                 ["expand", "user-skill", "--json"], ["simulate", "--read", "x.py", "--json"], ["validate", "--json"],
                 ["audit", "--json"], ["audit", "--sarif"], ["toggle", "user-skill", "--state", "off", "--dry-run",
                                                               "--json"])


# --- usage errors: exit 2, nothing on stdout (audit --json/--sarif: an empty document) ----------------------------------------------------------------

def test_missing_home_is_a_usage_error_on_stderr(tree):
    for command in (["list", "--json"], ["audit", "--sarif"], ["info"]):
        code, out, err = run(command + ["--home", str(tree / "nope"), "--cwd", str(tree)])
        assert code == 2 and "home directory does not exist" in err, command
        assert out == "" if command[0] != "audit" else json.loads(out)["runs"][0]["results"] == []


def test_unreadable_home_is_a_usage_error_not_an_empty_workspace(tree, monkeypatch):
    """It gave exit 0, and `audit` said CLEAN."""
    deny_listing(monkeypatch, tree / "home")
    for command in (["list", "--json"], ["audit", "--sarif"], ["audit"], ["validate", "--json"], ["info"]):
        code, out, err = run(command + args_for(tree))
        assert code == 2, (command, code, out[:100])
        # stdout: nothing, or for audit --sarif an empty SARIF log (its documented contract), never the error text
        assert out == "" if command[:2] != ["audit", "--sarif"] else json.loads(out)["runs"][0]["results"] == []
        assert "cannot be read" not in out and "home directory cannot be read (Permission denied)" in err


def test_audit_missing_file_error_goes_to_stderr_not_the_sarif_stream(tree):
    code, out, err = run(["audit", str(tree / "missing"), "--sarif"])
    assert code == 2 and err == f"skillmanager: error: no such file or directory: {tree / 'missing'}\n"
    assert json.loads(out)["runs"][0]["results"] == [] and "no such file" not in out  # a valid, empty SARIF log
    code, out, err = run(["validate", str(tree / "missing"), "--json"])
    assert code == 2 and out == "" and "no such file or directory" in err


def test_info_accepts_the_workspace_options(tree):
    code, out, err = run(["info", "--claude", str(tree / "no-claude")] + args_for(tree) + ["--profile", "legacy"])
    assert code == 0 and "could not be run" in out and err == ""
    code, _out, err = run(["info", "--cwd", str(tree / "nope")])
    assert code == 2 and "working directory does not exist" in err


# The least each command needs before its workspace options are read (a usage error must come from those).
MINIMAL_ARGS = {"show": ["x"], "expand": ["x"], "install": ["somewhere"], "new": ["x", "--description", "d"],
                "rename": ["x", "y"], "move": ["x", "--to", "personal"], "remove": ["x"],
                "toggle": ["x", "--state", "off"], "verify": ["--claude", "/bin/sh"]}
WITHOUT_WORKSPACE = {"history"}  # the app's own journal: no workspace options


@pytest.mark.parametrize("command", list(cli.COMMAND_MODULES))
def test_every_command_puts_its_usage_errors_on_stderr_with_exit_2(tree, command):
    """An unknown option, and for commands that take a workspace a --cwd that does not exist: exit 2, the one
    error line on stderr, nothing on stdout."""
    cases = [[command, "--no-such-option"]]
    if command not in WITHOUT_WORKSPACE:
        cases.append([command, *MINIMAL_ARGS.get(command, []), "--home", str(tree / "home"), "--cwd",
                      str(tree / "nope")])
    for argv in cases:
        code, out, err = run(argv)
        assert (code, out) == (2, ""), (argv, code, out[:200])
        assert err.startswith("skillmanager: error: ") and err.count("\n") == 1, (argv, err)
        if "--cwd" in argv:
            assert f"working directory does not exist: {tree / 'nope'}" in err, (argv, err)


# --- problems: exit 1, the answer still on stdout -----------------------------------------------------------

def test_unreadable_user_skills_dir_makes_audit_and_validate_exit_1(tree, monkeypatch):
    skills_dir = tree / "home" / ".claude" / "skills"
    deny_listing(monkeypatch, skills_dir)
    for command in (["audit", "--json"], ["audit", "--sarif"], ["validate", "--json"], ["audit"]):
        code, out, err = run(command + args_for(tree))
        assert code == 1, (command, code, err)
        assert str(skills_dir) in err and "skillmanager: error:" in err
        if "--json" in command or "--sarif" in command:
            json.loads(out)
    code, out, _err = run(["audit"] + args_for(tree))
    assert "proj-skill" in out and "user-skill" not in out  # the readable skills were still audited


def test_unreadable_skills_dir_is_skipped_by_listing_with_the_reason_on_stderr(tree, monkeypatch):
    skills_dir = tree / "home" / ".claude" / "skills"
    code_ok, listing_ok, _ = run(["listing"] + args_for(tree))
    deny_listing(monkeypatch, skills_dir)
    code, out, err = run(["listing"] + args_for(tree))
    assert code_ok == 0 and code == 1
    assert "user-skill" in listing_ok and "user-skill" not in out and "proj-skill" in out  # skipped, as Claude Code does
    assert str(skills_dir) in err


def test_unreadable_folder_passed_to_audit_is_reported_not_a_traceback(tree, monkeypatch):
    skill_dir = tree / "home" / ".claude" / "skills" / "user-skill"
    skills_root = skill_dir.parent
    deny_listing(monkeypatch, skill_dir)
    code, out, err = run(["audit", str(skill_dir), "--sarif"])
    assert code == 1 and json.loads(out)["runs"] and f"cannot read the skill folder {skill_dir}" in err
    code, out, err = run(["audit", str(skills_root), str(tree / "home" / "proj" / ".claude" / "skills"), "--json"])
    assert code == 1 and "proj-skill" in out and "Traceback" not in err
    code, out, err = run(["validate", str(skill_dir), "--json"])
    assert code == 1 and json.loads(out) and f"cannot read {skill_dir}" in err


def test_bad_settings_file_exits_1_and_keeps_the_models_text(tree):
    """Claude Code ignores a settings file it cannot parse (and warns): the text is the text without it,
    the problem is on stderr, the exit code says the answer ignored a file."""
    base = args_for(tree)
    code, clean_listing, _ = run(["listing"] + base)
    assert code == 0
    settings_file = tree / "home" / ".claude" / "settings.json"
    settings_file.write_text('{"skillOverrides": {"user-skill": "off",}}', encoding="utf-8")
    code, listing, err = run(["listing"] + base)
    assert code == 1 and listing == clean_listing
    assert err.startswith("skillmanager: error: ") and "not valid JSON" in err and str(settings_file) in err
    for command in JSON_COMMANDS:
        code, out, err = run(command + base)
        assert code == 1 and "not valid JSON" in err, (command, code, err)
        json.loads(out)


def test_every_json_stream_stays_valid_on_errors(tree):
    base = args_for(tree)
    for command in JSON_COMMANDS:
        code, out, _err = run(command + base)
        assert code in (0, 1), command
        json.loads(out)
    code, out, err = run(["show", "nope", "--json"] + base)
    assert code == 1 and json.loads(out) == {"name": "nope", "copies": []} and "no skill named" in err
    code, out, err = run(["expand", "nope", "--json"] + base)
    assert code == 1 and json.loads(out)["refusal"]


def test_warnings_from_the_skillmanager_logger_reach_stderr(tree, monkeypatch):
    monkeypatch.setenv("SKILLMANAGER_HISTORY_MAX_ENTRIES", "lots")
    code, out, err = run(["toggle", "user-skill", "--state", "off"] + args_for(tree))
    assert code == 0 and "wrote" in out
    assert "skillmanager: warning: SKILLMANAGER_HISTORY_MAX_ENTRIES is not a whole number" in err


# --- history -----------------------------------------------------------------------------------------------

def test_history_lists_and_restores_a_toggle(tree):
    settings_file = tree / "home" / ".claude" / "settings.json"
    settings_file.write_text('{"env": {"A": "1"}}\n', encoding="utf-8")
    code, out, _ = run(["toggle", "user-skill", "--state", "off", "--json"] + args_for(tree))
    toggled = json.loads(out)
    assert code == 0 and toggled["written"] and toggled["history_id"]
    code, out, _ = run(["history", "--json"])
    entries = json.loads(out)["entries"]
    assert code == 0 and entries[0]["id"] == toggled["history_id"] and entries[0]["restorable"]
    assert entries[0]["files"][0]["path"] == str(settings_file)
    code, out, _ = run(["history"])
    assert toggled["history_id"] in out and "toggle: user-skill → off" in out
    code, out, err = run(["history", "restore", toggled["history_id"]])
    assert code == 0 and settings_file.read_text() == '{"env": {"A": "1"}}\n'
    code, out, err = run(["history", "restore", toggled["history_id"], "--json"])
    assert code == 1 and json.loads(out)["restored"] is False and err.startswith("Refused: ")
    code, out, err = run(["history", "restore", toggled["history_id"], "--force"])
    assert code == 0 and settings_file.read_text() == '{"env": {"A": "1"}}\n'
    code, out, err = run(["history", "restore"])
    assert code == 2 and out == "" and "give the ID" in err


def test_history_with_a_damaged_journal_is_an_error_not_a_crash(tree):
    journal = tree / "appdata" / "history.json"
    journal.parent.mkdir(parents=True)
    journal.write_text("{not json")
    code, out, err = run(["history", "--json"])
    assert code == 1 and json.loads(out) == {"entries": []} and "damaged" in err


def test_toggle_refuses_a_read_only_settings_file_on_stderr(tree):
    settings_file = tree / "home" / ".claude" / "settings.json"
    settings_file.write_text("{}\n")
    os.chmod(settings_file, 0o444)
    code, out, err = run(["toggle", "user-skill", "--state", "off", "--scope", "user"] + args_for(tree))
    assert code == 1 and out == "" and "read-only (mode 0444)" in err and settings_file.read_text() == "{}\n"


def test_toggle_refuses_a_settings_link_leaving_home_and_project_unless_allowed(tree):
    outside = tree / "elsewhere.json"
    link = tree / "home" / "proj" / ".claude" / "settings.local.json"
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, link)
    base = ["toggle", "proj-skill", "--state", "off", "--scope", "local"] + args_for(tree)
    code, out, err = run(base)
    assert code == 1 and "symbolic link" in err and "--allow-outside-link" in err and not outside.exists()
    code, out, err = run(base + ["--allow-outside-link"])
    assert code == 0 and json.loads(outside.read_text()) == {"skillOverrides": {"proj-skill": "off"}}
