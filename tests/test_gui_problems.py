"""Workspace problems (Registry.diagnostics) in the desktop app: a "Problems (N)" group at the end of the
tree, the detail pane, a one-line note in the message bar, kept current by rescans and the watcher."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QAbstractItemModelTester  # noqa: E402

from skillmanager.core.demo import create_demo_workspace  # noqa: E402
from skillmanager.core.rules.incremental import refresh_paths  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.gui.engine import refresh_incremental, scan  # noqa: E402
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role  # noqa: E402
from skillmanager.gui.problems import PROBLEMS_KEY, plain_message  # noqa: E402
from gui_support import demo_window  # noqa: E402

LONG = 20_000
BROKEN = '{\n  "env": {\n    "ACME_REGION": "eu-west-1",\n  }\n}\n'  # a trailing comma


def _json_error_line(text: str) -> int:
    """Where the running Python's JSON parser reports the error (3.12: the `}` on line 4; 3.13: the comma on line 3)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return error.lineno
    raise AssertionError("expected invalid JSON")


BROKEN_LINE = _json_error_line(BROKEN)


@pytest.fixture()
def demo(tmp_path):
    return create_demo_workspace(tmp_path / "demo")


def _problem_rows(model):
    group = model.index_for_identity(PROBLEMS_KEY)
    if not group.isValid():
        return group, []
    return group, [model.index(r, 0, group) for r in range(model.rowCount(group))]


def _user_settings(workspace) -> Path:
    return Path(workspace.config_home) / "settings.json"


def test_problems_group_is_last_names_file_and_line_and_passes_the_model_tester(qapp, demo):
    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.apply_snapshot(scan(demo))
    assert not _problem_rows(model)[0].isValid()  # the demo is clean: no empty Problems group
    settings = _user_settings(demo)
    settings.write_text(BROKEN, encoding="utf-8")
    snapshot = scan(demo)
    expected = [d for d in snapshot.registry.diagnostics if d.code == "settings-invalid-json"]
    assert expected and expected[0].line == BROKEN_LINE
    model.apply_snapshot(snapshot)
    group, rows = _problem_rows(model)
    assert group.row() == model.rowCount() - 1  # after every source group
    assert group.data(Qt.ItemDataRole.DisplayRole) == f"Problems ({len(snapshot.registry.diagnostics)})"
    texts = [r.data(Qt.ItemDataRole.DisplayRole) for r in rows]
    assert any(t.startswith(f"~/.claude/settings.json:{BROKEN_LINE} — Not valid JSON") for t in texts), texts
    row = next(r for r in rows if r.data(Role.Problem).code == "settings-invalid-json")
    assert row.siblingAtColumn(Column.State).data(Qt.ItemDataRole.DisplayRole) == "Error"
    assert row.data(Role.Path) == str(settings)
    assert row.data(Role.Skill) is None and row.data(Role.IsGroup) is False
    assert not row.data(Qt.ItemDataRole.DecorationRole).isNull()
    assert f"~/.claude/settings.json:{BROKEN_LINE}" in row.data(Qt.ItemDataRole.ToolTipRole)
    # fixed on disk: the group goes away again (tester checks every row operation)
    settings.write_text('{\n  "env": {}\n}\n', encoding="utf-8")
    model.apply_snapshot(scan(demo))
    assert not _problem_rows(model)[0].isValid()
    del tester


def test_the_filter_applies_to_problems_and_the_proxy_keeps_them_in_order(qapp, demo):
    _user_settings(demo).write_text(BROKEN, encoding="utf-8")
    model = RegistryModel()
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    tester = QAbstractItemModelTester(proxy, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.apply_snapshot(scan(demo))
    proxy.sort(Column.Name, Qt.SortOrder.AscendingOrder)
    assert _problem_rows(model)[1]
    model.set_filter("env-check")  # a skill name: problems that do not mention it are hidden
    assert not _problem_rows(model)[0].isValid()
    model.set_filter("json")
    assert _problem_rows(model)[1]
    model.set_filter("")
    proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)
    last = proxy.index(proxy.rowCount() - 1, 0)
    assert last.data(Role.Identity) == PROBLEMS_KEY
    del tester


def test_incremental_refresh_of_settings_updates_problems_in_place(qapp, demo):
    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    settings = _user_settings(demo)
    settings.write_text(BROKEN, encoding="utf-8")
    rows_seen = []
    final = refresh_incremental(snapshot, [settings], on_rows=lambda partial, delta: rows_seen.append(partial))
    assert final is not None
    model.apply_snapshot(final)
    assert [r.data(Role.Problem).code for r in _problem_rows(model)[1]] == ["settings-invalid-json"]
    settings.write_text('{}\n', encoding="utf-8")
    final2 = refresh_incremental(final, [settings])
    model.apply_rows(final2, [])  # the rows path alone also drops the group
    assert not _problem_rows(model)[0].isValid()
    del tester


def test_an_unreadable_skill_file_appears_and_goes_through_the_incremental_path(qapp, demo, monkeypatch):
    """Claude Code skips a SKILL.md it cannot read ("skill-skipped"); the incremental refresh must carry
    that workspace diagnostic exactly as a full load does, and drop it once the file reads again.
    (Tests run as root: the read failure is injected, not made with permissions.)"""
    import skillmanager.core.load.safe_read as safe_read

    registry = load_registry(demo)
    target = demo.cwd / ".claude" / "skills" / "env-check" / "SKILL.md"
    assert target.is_file()
    real_open = os.open  # skill files are read through a raw descriptor (safe_read.read_text_file)

    def open_or_refuse(path, *args, **kwargs):
        if os.path.abspath(str(path)) == str(target):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(safe_read.os, "open", open_or_refuse)
    delta = refresh_paths(registry, [target])
    fresh = load_registry(demo)
    assert [d.to_json() for d in delta.registry.diagnostics] == [d.to_json() for d in fresh.diagnostics]
    assert any(d.code == "skill-skipped" and d.path == target for d in delta.registry.diagnostics)
    assert not any(s.path == target for s in delta.registry.skills)
    monkeypatch.setattr(safe_read.os, "open", real_open)
    back = refresh_paths(delta.registry, [target])
    assert not any(d.code == "skill-skipped" for d in back.registry.diagnostics)
    assert any(s.path == target for s in back.registry.skills)


# --- the real window, with the watcher -----------------------------------------------------------
@pytest.fixture()
def window(qtbot, tmp_path):
    with demo_window(qtbot, tmp_path) as win:
        yield win


def test_malformed_user_settings_show_a_problem_row_and_fixing_the_file_removes_it(qtbot, window):
    qtbot.waitUntil(lambda: window.watcher.mode == "inotify" or window.watcher.mode.startswith("polling"),
                    timeout=LONG)
    workspace = window.context.snapshot.workspace
    settings = _user_settings(workspace)
    good = settings.read_text(encoding="utf-8")
    assert not window.message_bar.isVisible()
    settings.write_text(BROKEN, encoding="utf-8")
    model = window.registry_panel.model
    qtbot.waitUntil(lambda: bool(_problem_rows(model)[1]) and not window.context.scanning, timeout=LONG)
    group, rows = _problem_rows(model)
    row = rows[0]
    assert row.data(Qt.ItemDataRole.DisplayRole).startswith(f"~/.claude/settings.json:{BROKEN_LINE} — ")
    assert row.data(Role.Path) == str(settings)
    assert "Problems (1)" == group.data(Qt.ItemDataRole.DisplayRole)
    # the non-modal note, with a way to the rows
    qtbot.waitUntil(lambda: window.message_bar.isVisible(), timeout=LONG)
    assert window.message_bar.message() == "1 problem found in your settings — see Problems at the end of the list."
    assert "1 problem" in window.registry_panel.summary.text()
    window.message_bar.action_button.click()
    assert window.registry_panel.view.currentIndex().data(Role.Problem) is row.data(Role.Problem)
    # the detail pane: plain message first, the file and line, the buttons for its path
    detail = window.detail
    assert detail.title.text() == "Error in settings.json"
    assert "Not valid JSON" in detail.sentence.text()
    assert f"~/.claude/settings.json:{BROKEN_LINE}" in detail.browser.toPlainText()
    assert detail.open_folder.isEnabled() and detail.open_editor.isEnabled()
    # the file is fixed on disk: the watcher's refresh removes the row and the note
    settings.write_text(good, encoding="utf-8")
    qtbot.waitUntil(lambda: not _problem_rows(model)[0].isValid() and not window.context.scanning, timeout=LONG)
    assert not window.message_bar.isVisible()
    assert "problem" not in window.registry_panel.summary.text()
    assert detail.title.text() == "No skill selected"


def test_plain_message_drops_the_location_prefix():
    from skillmanager.core.model import Diagnostic, Severity

    d = Diagnostic(Severity.ERROR, "settings-invalid-json",
                   "/h/.claude/settings.json:4:3: not valid JSON (Expecting ','); Claude Code ignores this whole file.",
                   Path("/h/.claude/settings.json"), 4)
    assert plain_message(d) == "Not valid JSON (Expecting ','); Claude Code ignores this whole file."
    other = dataclasses.replace(d, message="The skills dir loops back on itself.")
    assert plain_message(other) == "The skills dir loops back on itself."


def test_logger_warnings_show_in_the_problems_group(qapp):
    """The app has no stderr: what the `skillmanager` logger warns about (e.g. a history journal it could not
    write) is listed with the workspace's problems."""
    import logging

    from skillmanager.gui import problems

    problems.install_logged_problems()
    problems.install_logged_problems()  # idempotent: one handler
    logger = logging.getLogger("skillmanager")
    try:
        assert sum(h is problems.LOGGED for h in logger.handlers) == 1
        logger.warning("the history journal could not be updated: %s", "disk full")
        found = problems.workspace_problems(None)
        assert found[-1].message == "the history journal could not be updated: disk full"
        assert found[-1].severity.value == "warning"
    finally:
        logger.removeHandler(problems.LOGGED)
        problems.LOGGED.problems.clear()


def test_what_core_skips_or_falls_back_on_reaches_the_problems_group(qapp, tmp_path):
    """Core's fallbacks say so through `logging`: a damaged install record, a damaged parse cache and a skill
    file that vanished after the scan each become a Problems row (and a CLI warning on stderr)."""
    import logging

    from skillmanager.core.load.parse_cache import ParseCache
    from skillmanager.core.load.skill_file import load_body
    from skillmanager.core.manage import manifest
    from skillmanager.core.versions.profiles import default_profile
    from skillmanager.gui import problems

    (tmp_path / manifest.MANIFEST_NAME).write_text("{not json", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    problems.install_logged_problems()
    logger = logging.getLogger("skillmanager")
    try:
        assert manifest.load(tmp_path) == {}
        cache = ParseCache.open(default_profile(), cache_dir)
        cache.file.write_text("[]", encoding="utf-8")
        ParseCache.open(default_profile(), cache_dir)
        assert load_body((str(tmp_path / "gone" / "SKILL.md"), (0, 0, 0, 0, 0), 0, True, False)) == ""
        messages = [d.message for d in problems.workspace_problems(None)]
        assert any(str(tmp_path / manifest.MANIFEST_NAME) in m and "cannot be read" in m for m in messages)
        assert any(str(cache.file) in m and "damaged" in m for m in messages)
        assert any(str(tmp_path / "gone" / "SKILL.md") in m and "body is empty" in m for m in messages)
    finally:
        logger.removeHandler(problems.LOGGED)
        problems.LOGGED.problems.clear()


def test_a_panel_the_scan_could_not_compute_is_a_problem():
    """The engine keeps the window working when the listing or the usage counts fail; Problems says so."""
    from skillmanager.gui import problems
    from skillmanager.gui.engine import Snapshot

    snapshot = Snapshot(workspace=None, problems={"usage": "usage counts could not be read: OSError(13)"})
    found = problems.workspace_problems(snapshot)
    assert [(d.code, d.message) for d in found][:1] == [("app-panel", "usage counts could not be read: OSError(13)")]
