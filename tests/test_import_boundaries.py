"""What a command imports: a plain `list` must not load modules only other options or commands need.

Each check runs a fresh interpreter (the test process has imported everything already) and reads its
sys.modules after the command ran, so a module-level import added on the `list` path fails here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN_AND_REPORT = """
import io, json, sys
from skillmanager import cli
code = cli.main(sys.argv[1:], out=io.StringIO())
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules_after(tmp_path: Path, *argv: str) -> set[str]:
    home = tmp_path / "home"
    skill_md = home / ".claude" / "skills" / "demo" / "SKILL.md"
    if not skill_md.exists():  # written once: a rewrite would change its ctime and so its parse-cache key
        skill_md.parent.mkdir(parents=True)
        skill_md.write_text("---\nname: demo\ndescription: Plain ASCII text.\n---\nBody\n", encoding="utf-8")
        aged = time.time() - 3600  # older than any cache write, so a cached entry is served (not re-read as racy)
        os.utime(skill_md, (aged, aged))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "SKILLMANAGER"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", RUN_AND_REPORT, *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    return set(report["modules"])


def test_plain_list_does_not_import_the_usage_reader(tmp_path: Path) -> None:
    modules = _modules_after(tmp_path, "list", "--no-managed")
    assert "skillmanager.core.load.usage_log" not in modules


def test_list_with_usage_imports_the_usage_reader(tmp_path: Path) -> None:
    # the other side of the boundary: the check above looks at the module --usage really needs
    modules = _modules_after(tmp_path, "list", "--no-managed", "--usage")
    assert "skillmanager.core.load.usage_log" in modules


@pytest.mark.parametrize("argv", [("list", "--no-managed"), ("list", "--no-managed", "--json")])
def test_list_imports_no_other_command_nor_the_gui(tmp_path: Path, argv: tuple[str, ...]) -> None:
    modules = _modules_after(tmp_path, *argv)
    commands = {m for m in modules if m.startswith("skillmanager.commands.")}
    assert commands <= {"skillmanager.commands.list_cmd", "skillmanager.commands.common",
                        "skillmanager.commands.errors", "skillmanager.commands.path_args"}, commands
    assert not {m for m in modules if m.startswith(("skillmanager.gui", "PySide6"))}
    # an ASCII workspace needs neither the Unicode-property regex engine nor the tokenizer
    assert "regex" not in modules
    assert "tiktoken" not in modules


def test_list_does_not_import_shutil_for_the_help_width(tmp_path: Path) -> None:
    assert "shutil" not in _modules_after(tmp_path, "list", "--no-managed")
    assert "shutil" not in _modules_after(tmp_path, "list", "--no-managed")


def test_writing_the_caches_imports_no_tempfile(tmp_path: Path) -> None:
    """A first run writes the parse cache and the stored answer through app_dirs.new_private_file: tempfile (with
    random and shutil, ~4 ms) is not imported."""
    modules = _modules_after(tmp_path, "listing", "--no-managed")
    assert list((tmp_path / "cache" / "skillmanager").glob("parse-*.bin"))  # it did write
    assert not {"tempfile", "random", "shutil"} & modules


def test_repeat_listing_and_simple_front_matter_need_no_pyyaml(tmp_path: Path) -> None:
    """The parse cache serves a repeat run, and the fast path reads plain front matter: PyYAML (~10 ms to
    import) is loaded only for front matter that needs the full parser."""
    assert "yaml" not in _modules_after(tmp_path, "listing", "--no-managed")  # first run: the fast path
    assert "yaml" not in _modules_after(tmp_path, "listing", "--no-managed")  # repeat run: the cache
    skill_md = tmp_path / "home" / ".claude" / "skills" / "demo" / "SKILL.md"
    skill_md.write_text("---\nname: demo\ndescription: &d anchored\n---\nBody\n", encoding="utf-8")
    assert "yaml" in _modules_after(tmp_path, "listing", "--no-managed")  # an anchor: the full parser


@pytest.mark.parametrize("columns", ["60", "133", "", "x"])
def test_help_width_is_what_shutil_gives(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from skillmanager import cli

    monkeypatch.setenv("COLUMNS", columns)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns


def test_a_replayed_listing_imports_neither_the_loader_nor_the_listing(tmp_path: Path) -> None:
    """A repeat `listing` with nothing changed stats the traced paths and prints the stored answer."""
    first = _modules_after(tmp_path, "listing", "--no-managed")  # writes the tree
    assert "skillmanager.core.rules.registry" in first  # the first run loads and stores the answer…
    time.sleep(2.1)  # …but not for a tree written within 2 s (racily clean): age the tree, record again
    _modules_after(tmp_path, "listing", "--no-managed")
    replayed = _modules_after(tmp_path, "listing", "--no-managed")
    # logging and tempfile too: only a run that loads (logs, writes a memo) needs them (~10 % of a replay)
    heavy = {"skillmanager.core.rules.registry", "skillmanager.core.load.sources", "skillmanager.core.layers.listing",
             "skillmanager.core.model", "yaml", "regex", "logging", "tempfile"}
    assert not heavy & replayed, heavy & replayed
    assert list((tmp_path / "cache" / "skillmanager").glob("memo-*.bin"))


def test_a_private_file_is_new_owner_only_and_never_an_existing_one(tmp_path: Path) -> None:
    from skillmanager.core.app_dirs import new_private_file

    made = []
    for _ in range(50):
        fd, path = new_private_file(tmp_path, ".parse-")
        os.close(fd)
        made.append(path)
        assert os.path.dirname(path) == str(tmp_path) and os.path.basename(path).startswith(".parse-")
        if os.name == "posix":
            assert os.stat(path).st_mode & 0o777 == 0o600
    assert len(set(made)) == 50
    target = tmp_path / "elsewhere"
    target.write_text("kept", encoding="utf-8")
    import skillmanager.core.app_dirs as app_dirs
    real_urandom = os.urandom
    try:  # every name it draws is taken (a link to another file): it never opens one of them
        os.urandom = lambda n: bytes(n)  # type: ignore[assignment]
        (tmp_path / f".memo-{bytes(6).hex()}.tmp").symlink_to(target)
        with pytest.raises(FileExistsError):
            app_dirs.new_private_file(tmp_path, ".memo-")
    finally:
        os.urandom = real_urandom
    assert target.read_text(encoding="utf-8") == "kept"
