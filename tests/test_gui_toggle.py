"""Toggling from the detail pane, on the demo workspace (both profiles), with the file watcher running."""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from skillmanager.gui import states  # noqa: E402
from skillmanager.gui.engine import skill_identity  # noqa: E402
from skillmanager.gui.models.registry_model import Role  # noqa: E402

LONG = 20_000


@pytest.fixture(params=["current", "legacy"])
def profile(request):
    return request.param


@pytest.fixture()
def window(qtbot, tmp_path, monkeypatch, profile):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "data"))  # toggle backups go here
    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.gui.context import AppContext
    from skillmanager.gui.main_window import MainWindow

    context = AppContext(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win = MainWindow(context, watch=True)
    qtbot.addWidget(win)
    win.resize(1500, 900)
    win.show()
    context.set_workspace(create_demo_workspace(tmp_path / "demo", profile=profile))
    qtbot.waitUntil(lambda: context.snapshot is not None and not context.scanning, timeout=LONG)
    qtbot.waitUntil(lambda: win.watcher.mode == "inotify" or win.watcher.mode.startswith("polling"), timeout=LONG)
    time.sleep(0.3)  # the watch thread has its folders
    yield win
    win.watcher.stop()
    context.wait_for_scans(5000)


def _skill(win, name, source=None):
    return next(s for s in win.context.snapshot.skills
                if s.name == name and (source is None or s.source.value == source))


def _row_visual(win, name, source="project"):
    skill = _skill(win, name, source)
    return win.registry_panel.model.index_for_identity(skill_identity(skill)).data(Role.State)


def _until(predicate, timeout_ms=LONG) -> None:
    """Let the event loop run until `predicate()` (the toggle box works on the task runner)."""
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + timeout_ms / 1000
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        QTest.qWait(10)


def _shown(box):
    """The box once core's ToggleState (worked out off the UI thread) is shown."""
    _until(lambda: box.toggle_state is not None and not box.planning)
    return box


def _select(win, name, source="project"):
    assert win.registry_panel.select_skill(_skill(win, name, source))
    return _shown(win.detail.toggle)


def _planned(qtbot, box):
    """Plans are worked out on a worker thread: wait for the one the box asked for last."""
    qtbot.waitUntil(lambda: not box.planning and box.plan is not None, timeout=LONG)
    return box


def _choices(box):
    return [box.choice.itemData(i) for i in range(box.choice.count())]


def _settled(qtbot, win):
    qtbot.waitUntil(lambda: not win.context.scanning and not win.context.snapshot.partial, timeout=LONG)


def test_offers_the_states_the_profile_can_express(qtbot, window, profile):
    box = _select(window, "env-check")
    choices = _choices(box)
    if profile == "current":
        assert choices[:4] == ["on", "name-only", "user-invocable-only", "off"]
        assert "hidden" in choices and "blocked" in choices
        assert box.scope.currentData() == "local"  # the default for a project skill
    else:
        assert "name-only" not in choices and "off" not in choices
        assert set(choices) == {"on", "hidden", "blocked"}
        assert "do not exist there" in box.note.text()
    assert "(now)" in box.choice.itemText(choices.index("on"))
    _planned(qtbot, box)
    assert not box.apply_button.isEnabled()  # "on" is what is in force: nothing to write


def test_preview_says_which_file_and_change_before_writing(qtbot, window, profile):
    box = _select(window, "env-check")
    paths = window.context.snapshot.workspace.demo_paths
    if profile == "current":
        target = paths.cwd / ".claude" / "settings.local.json"
        assert box.choose("off", "local")
        _planned(qtbot, box)
        expected, in_diff = 'skillOverrides["env-check"]', '+    "env-check": "off"'
    else:
        target = paths.cwd / ".claude" / "skills" / "env-check" / "SKILL.md"
        assert box.choose("hidden")
        _planned(qtbot, box)
        expected = in_diff = "disable-model-invocation: true"
    before = target.read_bytes()
    assert str(target) in box.preview_text() and expected in box.preview_text()
    assert in_diff in box.diff.toPlainText()
    assert target.read_bytes() == before  # nothing written yet
    assert box.apply_button.isEnabled()


def test_toggle_updates_tree_listing_and_meter_at_once_without_bounce_back(qtbot, window, profile):
    context = window.context
    listing = window.preview.listing
    assert "env-check" in listing.text.toPlainText()
    meter_before = listing.meter_text.text()
    box = _select(window, "env-check")
    assert box.choose("off", "local") if profile == "current" else box.choose("hidden")
    _planned(qtbot, box)
    generation = context._generation
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(window.toggles.history), timeout=LONG)  # written on the task runner
    assert context._generation == generation + 1  # refreshed from the written file, not via the watcher
    refreshed: list[list[str]] = []  # the paths of every refresh from now on: the watcher's
    real_refresh = context.refresh
    context.refresh = lambda paths: (refreshed.append(sorted(str(p) for p in paths)), real_refresh(paths))[1]
    want = states.Visual.OFF if profile == "current" else states.Visual.HIDDEN
    qtbot.waitUntil(lambda: _row_visual(window, "env-check") is want, timeout=LONG)
    _settled(qtbot, window)
    assert "- env-check:" not in listing.text.toPlainText()
    assert listing.meter_text.text() != meter_before
    # the watcher sees our write a moment later: it is recognised and ignored
    qtbot.waitUntil(lambda: context.ignored_echoes > 0, timeout=LONG)
    # a change made by someone else after it: the watcher reports in order, so once that change is
    # refreshed, any bounce of our own write would already be among the refreshes
    other = window.context.snapshot.workspace.demo_paths.cwd / ".claude" / "skills" / "db-reset" / "SKILL.md"
    other.write_text(other.read_text(encoding="utf-8").replace("description:", "description: Edited —", 1),
                     encoding="utf-8")
    qtbot.waitUntil(lambda: any(str(other) in paths for paths in refreshed), timeout=LONG)
    _settled(qtbot, window)
    ours = [path for paths in refreshed for path in paths if path not in (str(other), str(other.parent))]
    assert not ours, f"the watcher bounced our own write back as a refresh: {ours}"
    assert context._generation == generation + 2
    assert _row_visual(window, "env-check") is want
    assert window.message_bar.topic == "notice" and window.message_bar.kind == "info"  # the notice, no error


def test_undo_is_one_click_and_ctrl_z(qtbot, window, profile):
    paths = window.context.snapshot.workspace.demo_paths
    target = (paths.cwd / ".claude" / "settings.local.json" if profile == "current"
              else paths.cwd / ".claude" / "skills" / "env-check" / "SKILL.md")
    original = target.read_bytes() if target.exists() else None
    state = "name-only" if profile == "current" else "hidden"
    want = states.Visual.NAME_ONLY if profile == "current" else states.Visual.HIDDEN

    for how in ("button", "ctrl+z"):
        box = _select(window, "env-check")
        box.choose(state, "local" if profile == "current" else None)
        assert _planned(qtbot, box).apply()
        qtbot.waitUntil(lambda: _row_visual(window, "env-check") is want, timeout=LONG)
        _settled(qtbot, window)
        assert window.undo_action.isEnabled() and box.undo_button.isEnabled()
        if how == "button":
            qtbot.mouseClick(box.undo_button, Qt.MouseButton.LeftButton)
        else:
            window.activateWindow()
            window.registry_panel.view.setFocus()
            qtbot.keyClick(window.registry_panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: _row_visual(window, "env-check") is states.Visual.ACTIVE, timeout=LONG)
        assert (target.read_bytes() if target.exists() else None) == original
        _settled(qtbot, window)
    assert not window.undo_action.isEnabled()


def test_external_change_and_unparseable_file_show_in_the_message_bar(qtbot, window, profile):
    paths = window.context.snapshot.workspace.demo_paths
    box = _select(window, "env-check")
    box.choose("blocked", "local")  # both profiles: a deny rule in the local settings
    _planned(qtbot, box)
    settings = paths.cwd / ".claude" / "settings.local.json"
    assert str(settings) in box.preview_text()
    data = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
    data.setdefault("permissions", {}).setdefault("deny", []).append("Skill(other-thing)")
    window.watcher.stop()  # the edit below must reach the toggle before any refresh re-plans it
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    box.apply()  # refused on the task runner: the file is re-read there
    qtbot.waitUntil(lambda: window.message_bar.isVisible() and not window.toggles.writing, timeout=LONG)
    assert "changed" in window.message_bar.message()
    assert "Skill(env-check)" not in settings.read_text(encoding="utf-8")  # nothing written
    assert not window.toggles.history

    window.message_bar.hide()
    settings.write_text("{ this is not json", encoding="utf-8")
    box.apply()
    qtbot.waitUntil(lambda: window.message_bar.isVisible() and not window.toggles.writing, timeout=LONG)
    assert str(settings) in window.message_bar.message()
    assert not window.toggles.history
    assert settings.read_text(encoding="utf-8") == "{ this is not json"  # left byte-identical


def test_files_that_are_not_ours_get_settings_level_controls_only(window, profile):
    plugin = next(s for s in window.context.snapshot.skills if s.source.value == "plugin-skill")
    assert window.registry_panel.select_skill(plugin)
    box = _shown(window.detail.toggle)
    model = box.choice.model()
    enabled = {box.choice.itemData(i): model.item(i).isEnabled() for i in range(box.choice.count())}
    assert enabled.get("hidden") is False  # its front matter is not ours to edit
    assert enabled.get("blocked") is True  # a deny rule in settings still works
    assert "not yours to edit" in box.note.text()
    if profile == "current":
        assert enabled["off"] is False and "ignores skillOverrides" in box.note.text()


def test_deny_rule_reads_blocked_but_still_listed(window, profile):
    box = _select(window, "db-reset")
    assert box.blocked.isVisible()
    assert "blocked but still listed" in box.blocked.text().lower()
    assert "unblock" in _choices(box)


def test_managed_policy_locks_the_control(qtbot, window, profile):
    if profile != "current":
        pytest.skip("skillOverrides (and so a managed lock on them) exist only in the current profile")
    paths = window.context.snapshot.workspace.demo_paths
    managed = paths.managed_root / "managed-settings.json"
    data = json.loads(managed.read_text(encoding="utf-8"))
    data["skillOverrides"] = {"env-check": "name-only"}
    managed.write_text(json.dumps(data, indent=2), encoding="utf-8")
    qtbot.waitUntil(lambda: _row_visual(window, "env-check") is states.Visual.NAME_ONLY, timeout=LONG)
    _settled(qtbot, window)
    box = _select(window, "env-check")
    assert not box.choice.isEnabled() and not box.apply_button.isEnabled()
    assert "Managed policy" in box.note.text()


def test_a_higher_scope_that_decides_disables_apply_with_the_reason(qtbot, window, profile):
    if profile != "current":
        pytest.skip("scopes of skillOverrides exist only in the current profile")
    box = _select(window, "verbose-logger")  # name-only in the local settings of the demo
    assert "(now)" in box.choice.itemText(box.choice.findData("name-only"))
    assert box.scope.currentData() == "local"  # the file that decides now is offered first
    box.choose("off", "user")
    _planned(qtbot, box)
    assert not box.apply_button.isEnabled()
    text = box.preview_text()
    assert "Not possible" in text and "takes priority over user settings" in text


def test_on_wording_is_true_for_waiting_and_blocked_skills(window, profile):
    """The "on" choice and the summary never claim "listed and callable" for a skill that is not."""
    box = _select(window, "sql-review")  # paths: → waiting until a matching file is touched
    assert _row_visual(window, "sql-review") is states.Visual.CONDITIONAL
    on = box.choice.itemText(box.choice.findData("on"))
    assert "still waiting for a matching file" in on and "(now)" in on
    assert "callable" not in on and "not blocked" not in on
    assert box.summary.text().startswith("On (this setting), but still waiting: not listed and not callable")

    box = _select(window, "db-reset")  # Skill(db-reset) deny rule in the project settings
    assert _row_visual(window, "db-reset") is states.Visual.BLOCKED
    assert box.toggle_state.blocked and box.toggle_state.deny_rule.scope == "project"
    on = box.choice.itemText(box.choice.findData("on"))
    assert "blocked by the deny rule Skill(db-reset) in project settings" in on and "(now)" in on
    assert "callable" not in on and "not blocked" not in on
    assert "blocked" in box.summary.text() and "callable by the model" not in box.summary.text()

    box = _select(window, "env-check")  # an ordinary skill keeps the plain words
    on = box.choice.itemText(box.choice.findData("on"))
    assert on.startswith("On — listed and callable" if profile == "current" else "On — not hidden, not blocked")
