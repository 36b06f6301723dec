"""Journeys of a new user through the real window: the row switch, several rows at once, the notice's Undo,
Edit > History, the budget banner's remedy; accessible names; the contrast of state colours.

Asserts read the model's data and the files on disk (never timings).
"""
from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QComboBox, QLineEdit, QPushButton  # noqa: E402

from skillmanager.gui import states  # noqa: E402
from skillmanager.gui.engine import skill_identity  # noqa: E402
from skillmanager.gui.models.registry_model import Column, Role  # noqa: E402
from skillmanager.gui.toggling import NOTICE_MS  # noqa: E402

LONG = 20_000


@pytest.fixture(params=["current", "legacy"])
def profile(request):
    return request.param


def _window(qtbot, tmp_path, monkeypatch, workspace):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "data"))
    from skillmanager.gui.context import AppContext
    from skillmanager.gui.main_window import MainWindow

    context = AppContext(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win = MainWindow(context, watch=False)
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    context.set_workspace(workspace)
    _settled(qtbot, win)
    return win


def _settled(qtbot, win):
    qtbot.waitUntil(lambda: win.context.snapshot is not None and not win.context.scanning
                    and not win.context.snapshot.partial and not win.context.tasks.busy("toggle-switch")
                    and not win.context.tasks.busy("toggle-remedy"), timeout=LONG)


@pytest.fixture()
def demo(qtbot, tmp_path, monkeypatch, profile):
    from skillmanager.core.demo import create_demo_workspace

    win = _window(qtbot, tmp_path, monkeypatch, create_demo_workspace(tmp_path / "demo", profile=profile))
    yield win
    win.context.wait_for_scans(5000)


def _index(win, name, source="project"):
    skill = next(s for s in win.context.snapshot.skills if s.name == name and s.source.value == source)
    return win.registry_panel.model.index_for_identity(skill_identity(skill))


def _switch(win, name, source="project"):
    return _index(win, name, source).siblingAtColumn(Column.State)


def _is_on(win, name, source="project"):
    return _switch(win, name, source).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked


def _wait_on(qtbot, win, name, on):
    qtbot.waitUntil(lambda: _is_on(win, name) is on, timeout=LONG)
    _settled(qtbot, win)


def test_row_switch_turns_a_skill_off_and_back(qtbot, demo, profile, tmp_path):
    win = demo
    model = win.registry_panel.model
    switch = _switch(win, "env-check")
    facts = switch.data(Role.Switch)
    assert facts.enabled and facts.is_on and "settings.local.json" in facts.tooltip
    assert switch.data(Qt.ItemDataRole.ToolTipRole) == facts.tooltip  # the tooltip names the file it writes
    assert model.flags(switch) & Qt.ItemFlag.ItemIsUserCheckable
    skill_md = _index(win, "env-check").data(Role.Skill).path
    before_md = skill_md.read_bytes()
    model.setData(switch, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    _wait_on(qtbot, win, "env-check", False)
    local = facts.target
    data = json.loads(local.read_text())
    if profile == "current":
        assert data["skillOverrides"]["env-check"] == "off"
    else:  # 2.1.88 has no skillOverrides: a deny rule in the same personal file
        assert "Skill(env-check)" in data["permissions"]["deny"]
    assert skill_md.read_bytes() == before_md  # one click never edits a SKILL.md
    # the notice says what changed and where, and names what its Undo undoes; it stays NOTICE_MS
    assert win.message_bar.topic == "notice" and str(local) in win.message_bar.message()
    assert win.message_bar.action_button.text() == "Undo env-check"
    assert win._notice_timer.interval() == NOTICE_MS and NOTICE_MS >= 5000 and win._notice_timer.isActive()
    assert "env-check" in win.undo_action.text()
    model.setData(_switch(win, "env-check"), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    _wait_on(qtbot, win, "env-check", True)


def test_space_turns_three_off_in_one_undoable_step(qtbot, demo, profile):
    win = demo
    panel = win.registry_panel
    names = [s.name for s in win.context.snapshot.skills
             if s.source.value == "project" and s.state.is_winner
             and win.context.snapshot.switches.get(skill_identity(s)) is not None
             and win.context.snapshot.switches[skill_identity(s)].enabled
             and win.context.snapshot.switches[skill_identity(s)].is_on][:3]
    assert len(names) == 3
    selection = panel.view.selectionModel()
    selection.clearSelection()
    for name in names:
        index = panel.proxy.from_registry(_index(win, name))
        selection.select(index, selection.SelectionFlag.Select | selection.SelectionFlag.Rows)
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_Space)
    for name in names:
        _wait_on(qtbot, win, name, False)
    assert len(win.toggles.history) == 1  # one change for the three
    entries = _journal()
    assert entries[-1]["summary"].startswith("3 skills")
    win.message_bar.action_button.click()  # the notice's Undo
    for name in names:
        _wait_on(qtbot, win, name, True)
    assert not win.toggles.history


def _journal():
    from skillmanager.core.edit import history

    return [e.to_json() for e in history.load_journal().entries]


def test_restore_from_history(qtbot, demo, profile):
    win = demo
    switch = _switch(win, "env-check")
    target = switch.data(Role.Switch).target
    existed = target.exists()
    before = target.read_bytes() if existed else None
    win.registry_panel.model.setData(switch, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    _wait_on(qtbot, win, "env-check", False)
    dialog = win.open_history()
    qtbot.waitUntil(lambda: dialog.tree.topLevelItemCount() >= 1)
    assert "env-check" in dialog.tree.topLevelItem(0).text(2)
    assert dialog.restore_button.isEnabled()
    dialog.restore_button.click()
    _wait_on(qtbot, win, "env-check", True)
    assert (target.read_bytes() if target.exists() else None) == before
    qtbot.waitUntil(lambda: dialog.tree.topLevelItem(0).text(1) == "restore")
    dialog.close()


def _crowded_home(tmp_path, profile):
    from skillmanager.core.load.workspace import Workspace

    home = tmp_path / "home"
    for i in range(40):
        folder = home / ".claude" / "skills" / f"tool-{i:02d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\ndescription: Tool {i} {'does a careful thing ' * (2 + i % 9)}\n---\nb\n")
    (home / "proj").mkdir()
    return Workspace.create(home=home, cwd=home / "proj", managed_root=None, profile=profile,
                            env={"HOME": str(home)}, budget=2600)


def test_budget_banner_remedy_applied_and_undone(qtbot, tmp_path, monkeypatch, profile):
    win = _window(qtbot, tmp_path, monkeypatch, _crowded_home(tmp_path, profile))
    panel = win.registry_panel
    snapshot = win.context.snapshot
    remedy = snapshot.remedy
    assert remedy is not None and panel.budget_banner.isVisible()
    assert remedy.headline in panel.budget_text.text()
    cut_before = {k for k, o in snapshot.outcomes.items() if o.cause == "budget"}
    assert cut_before
    before = {p: p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file()}
    panel.budget_apply.click()
    qtbot.waitUntil(lambda: win.context.snapshot.remedy is None and len(win.toggles.history) == 1, timeout=LONG)
    _settled(qtbot, win)
    after = win.context.snapshot
    assert not any(o.cause == "budget" for o in after.outcomes.values())
    assert not panel.budget_banner.isVisible()
    win.undo_action.trigger()
    qtbot.waitUntil(lambda: win.context.snapshot.remedy is not None, timeout=LONG)
    _settled(qtbot, win)
    assert {p: p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file()} == before
    win.context.wait_for_scans(5000)


def _unnamed(win):
    """Every visible interactive widget without an accessible name (or with only a glyph for one)."""
    missing = []
    from PySide6.QtWidgets import QWidget

    interactive = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView)
    for widget in win.findChildren(QWidget):
        if not isinstance(widget, interactive) or not widget.isVisibleTo(win):
            continue
        if widget.parent() is not None and isinstance(widget.parent(), (QComboBox, QAbstractItemView)):
            continue  # a combo's own popup / a view's internal editor
        name = widget.accessibleName() or (widget.text() if isinstance(widget, QAbstractButton) else "")
        if not name.strip() or name.strip() in ("✕", "…"):
            missing.append(f"{type(widget).__name__} {widget.objectName() or ''} {widget.toolTip()[:40]!r}")
    return missing


@pytest.mark.parametrize("profile", ["current"])
def test_every_interactive_widget_has_an_accessible_name(qtbot, demo):
    win = demo
    win.workspace_bar.show_advanced(True)  # the Advanced panel's fields too
    assert win.workspace_bar.home.isVisibleTo(win)
    assert not _unnamed(win), _unnamed(win)
    for page in range(win.tabs.count()):
        win.tabs.setCurrentIndex(page)
        assert not _unnamed(win), (win.tabs.tabText(page), _unnamed(win))


def test_state_colours_reach_aa_contrast_on_both_palettes(qapp):
    from skillmanager.gui.app import dark_palette
    from PySide6.QtGui import QPalette

    light_backgrounds = [QColor("#ffffff"), QColor("#f7f7f7"), QColor("#efefef")]
    dark = dark_palette()
    dark_backgrounds = [dark.color(QPalette.ColorRole.Base), dark.color(QPalette.ColorRole.AlternateBase),
                        dark.color(QPalette.ColorRole.Window)]
    def tinted(background):  # the review tint over a row background
        r, g, b, a = states.REVIEW_TINT
        return QColor(*(round(c * a / 255 + base * (1 - a / 255))
                        for c, base in zip((r, g, b), (background.red(), background.green(), background.blue()))))

    light_backgrounds += [tinted(b) for b in light_backgrounds]
    dark_backgrounds += [tinted(b) for b in dark_backgrounds]
    failures = []
    for level in ("danger", "error", "warning", "note"):  # a badge's finding count is text too
        for dark, backgrounds in ((False, light_backgrounds), (True, dark_backgrounds)):
            for background in backgrounds:
                ratio = states.contrast_ratio(states.badge_text_colour(level, dark=dark), background)
                if ratio < 4.5:
                    failures.append((level, dark, background.name(), round(ratio, 2)))
    for visual in states.Visual:
        for background in light_backgrounds:
            ratio = states.contrast_ratio(states.colour(visual, dark=False), background)
            if ratio < 4.5:
                failures.append((visual.value, "light", background.name(), round(ratio, 2)))
        for background in dark_backgrounds:
            ratio = states.contrast_ratio(states.colour(visual, dark=True), background)
            if ratio < 4.5:
                failures.append((visual.value, "dark", background.name(), round(ratio, 2)))
    assert not failures, failures
    assert states.contrast_ratio(QColor("#2e9d4f"), QColor("#ffffff")) < 4.5  # the old "Active" green fails


def test_filter_says_no_results_and_esc_clears(qtbot, demo):
    panel = demo.registry_panel
    panel.filter_edit.setFocus()
    qtbot.keyClicks(panel.filter_edit, "zzzz-no-such-skill")
    assert panel.no_results.isVisibleTo(panel) and "0 of" in panel.summary.text()
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Escape)
    assert panel.filter_edit.text() == "" and not panel.no_results.isVisibleTo(panel)
    time.sleep(0)  # nothing timed: the filter runs in the keystroke


def _shown_names(win):
    proxy = win.registry_panel.proxy
    names = set()
    for row in range(proxy.rowCount()):
        group = proxy.index(row, 0)
        for child in range(proxy.rowCount(group)):
            name = proxy.index(child, 0, group).data(Role.Name)
            if proxy.index(child, 0, group).data(Role.Skill) is not None:
                names.add(name)
    return names


@pytest.mark.parametrize("profile", ["current"])
def test_filter_chips_count_and_show_core_buckets_and_esc_clears(qtbot, demo):
    from skillmanager.core.rules.buckets import Bucket

    win = demo
    panel = win.registry_panel
    qtbot.waitUntil(lambda: len(win.context.checks) >= 20, timeout=LONG)  # the audit / lint badges are in
    model = panel.model
    counts = model.bucket_counts()
    for bucket, chip in panel.chips.items():
        assert chip.text() == f"{bucket.word} {counts[bucket]:,}" and chip.accessibleName()
    total = len(win.context.snapshot.skills)

    qtbot.mouseClick(panel.chips[Bucket.NEEDS_REVIEW], Qt.MouseButton.LeftButton)
    assert _shown_names(win) == {"quick-setup", "broken-yaml"}  # a piped download; front matter that fails
    assert panel.summary.text().startswith(f"2 of {total:,} shown")
    for name in ("quick-setup", "broken-yaml"):
        row = _index(win, name)
        for column in Column:  # the whole row is coloured
            assert row.siblingAtColumn(column).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert _index(win, "broken-yaml").siblingAtColumn(Column.Checks).data(Role.Checks).badge == "error"

    qtbot.mouseClick(panel.chips[Bucket.OFF], Qt.MouseButton.LeftButton)  # one chip at a time
    assert not panel.chips[Bucket.NEEDS_REVIEW].isChecked()
    assert _shown_names(win) == {"db-reset", "scratchpad"}
    panel.filter_edit.setFocus()
    qtbot.keyClicks(panel.filter_edit, "scratch")
    assert _shown_names(win) == {"scratchpad"}
    qtbot.keyClicks(panel.filter_edit, "-zzz")
    assert panel.no_results.isVisibleTo(panel) and "Off" in panel.no_results.text()
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Escape)  # the text first…
    assert panel.filter_edit.text() == "" and panel.chips[Bucket.OFF].isChecked()
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Escape)  # …then the chip
    assert not any(chip.isChecked() for chip in panel.chips.values())
    assert panel.summary.text().startswith(f"{total:,} skills and commands")
    assert {"db-reset", "standup-notes", "quick-setup"} <= _shown_names(win)

    qtbot.mouseClick(panel.chips[Bucket.CONFLICTS], Qt.MouseButton.LeftButton)
    shown = _shown_names(win)
    assert "commit-message" in shown and "standup-notes" not in shown
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key.Key_Escape)  # Esc in the list clears the chip too
    assert not panel.model.filtering and "standup-notes" in _shown_names(win)
    qtbot.mouseClick(panel.chips[Bucket.CONFLICTS], Qt.MouseButton.LeftButton)
    win.registry_panel.select_skill(next(s for s in win.context.snapshot.skills if s.name == "standup-notes"))
    assert not panel.model.filtering  # selecting a skill the chip hides brings every row back


def test_check_progress_is_counted_in_the_status_bar(qtbot, tmp_path, monkeypatch):
    from skillmanager.core.load.workspace import Workspace

    home = tmp_path / "home"
    for number in range(210):
        folder = home / ".claude" / "skills" / f"note-{number:03d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: note-{number:03d}\ndescription: Notes number {number}.\n---\n"
                                         "Write the note.\n", encoding="utf-8")
    (tmp_path / "project").mkdir()
    workspace = Workspace.create(home=home, cwd=tmp_path / "project", managed_root=None, env={"HOME": str(home)})
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "data"))
    from skillmanager.gui.context import AppContext
    from skillmanager.gui.main_window import MainWindow

    context = AppContext(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win = MainWindow(context, watch=False)
    qtbot.addWidget(win)
    reports, messages = [], []
    context.checks_progress.connect(lambda checked, total: reports.append((checked, total)))
    win.statusBar().messageChanged.connect(messages.append)
    win.show()
    context.set_workspace(workspace)
    qtbot.waitUntil(lambda: bool(reports) and reports[-1][0] == reports[-1][1] and len(context.checks) == 210,
                    timeout=LONG)
    assert reports[0] == (0, 210) and (100, 210) in reports and reports[-1] == (210, 210)
    assert "Checking 100 of 210 skills for risky commands and mistakes…" in messages
    assert not win.statusBar().currentMessage().startswith("Checking")  # the scan's line is back
    context.wait_for_scans(5000)


@pytest.mark.parametrize("profile", ["current"])
def test_row_menu_and_the_listing_follow_each_other(qtbot, demo, tmp_path):
    from PySide6.QtGui import QGuiApplication

    win = demo
    panel = win.registry_panel
    listing = win.preview.listing
    skill = next(s for s in win.context.snapshot.skills if s.name == "standup-notes")
    index = panel.proxy.from_registry(_index(win, "standup-notes", "user"))
    panel.select_skill(skill)
    # selecting a skill highlights its entry in the listing and scrolls it into view
    assert listing.current_key == skill.key
    start, length = listing.entry_span(skill.key)
    assert listing.text.toPlainText()[start:start + length].startswith("- standup-notes:")
    assert listing.text.textCursor().position() == start
    # clicking another entry selects that skill in the tree
    other = next(s for s in win.context.snapshot.skills if s.name == "incident-runbook")
    other_start, _ = listing.entry_span(other.key)
    assert listing.select_at(other_start + 3)
    assert win.context.selected_skill() is not None and win.context.selected_skill().key == other.key
    assert panel.view.currentIndex().data(Role.Name) == "incident-runbook"
    assert not listing.select_at(0)  # the header line belongs to no skill

    menu = panel._row_menu(skill, index)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts[:5] == ["Turn off", "Open folder", "Open in editor", "Copy name", "Show in listing"]
    assert {"&Rename…", "&Delete"} <= set(texts)  # the Skills menu's row actions follow
    actions = {a.text(): a for a in menu.actions()}
    actions["Copy name"].trigger()
    assert QGuiApplication.clipboard().text() == "standup-notes"
    win.tabs.setCurrentIndex(1)
    actions["Show in listing"].trigger()
    assert win.tabs.currentWidget() is win.preview and listing.current_key == skill.key
    hidden = next(s for s in win.context.snapshot.skills if s.name == "scaffold-component")
    hidden_index = panel.proxy.from_registry(_index(win, "scaffold-component"))
    {a.text(): a for a in panel._row_menu(hidden, hidden_index).actions()}["Show in listing"].trigger()
    reason = win.context.snapshot.outcomes[skill_identity(hidden)].reason
    assert listing.current_key is None and win.message_bar.message() == f"scaffold-component is not in the listing: {reason}"
    panel.select_skill(skill)
    actions["Turn off"].trigger()
    qtbot.waitUntil(
        lambda: _switch(win, "standup-notes", "user").data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked,
        timeout=LONG)
    _settled(qtbot, win)
    written = json.loads((win.context.snapshot.workspace.home / ".claude" / "settings.json").read_text())
    assert written["skillOverrides"]["standup-notes"] == "off"


def test_first_run_on_an_empty_home_welcomes_and_opens_the_demo(qtbot, tmp_path, monkeypatch):
    from skillmanager.core.load.workspace import Workspace

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    workspace = Workspace.create(home=home, cwd=tmp_path / "project", managed_root=None, env={"HOME": str(home)})
    win = _window(qtbot, tmp_path, monkeypatch, workspace)
    qtbot.waitUntil(lambda: win.banner.isVisible(), timeout=LONG)
    assert "no skills of your own" in win.banner_text.text()
    buttons = [b.text() for b in (win.banner_personal, win.banner_open, win.banner_button)]
    assert buttons == ["My personal skills", "Open a project folder…", "Try the demo"]
    assert not _unnamed(win), _unnamed(win)
    # a page of its own: it stands in for the pages, and the first focus is its first choice, not a path field
    assert win.tabs.isHidden()
    assert win.focusWidget() is win.banner_personal
    # recent projects are one click each on the page
    earlier = tmp_path / "earlier-project"
    earlier.mkdir()
    win._remember(str(earlier))
    win._fill_recent_menu()
    recent = [b for b in win.banner.findChildren(QPushButton) if b.text() == str(earlier)]
    assert len(recent) == 1 and win.banner_recent_title.isVisibleTo(win.banner)
    # "Show Claude Code's own skills" leaves the welcome for the pages; the welcome can come back
    qtbot.mouseClick(win.banner_close, Qt.MouseButton.LeftButton)
    assert win.banner.isHidden() and win.tabs.isVisible()
    win.banner.show()
    assert win.tabs.isHidden()
    qtbot.mouseClick(win.banner_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(win.context.workspace, "demo_paths", None) is not None, timeout=LONG)
    _settled(qtbot, win)
    names = {s.name for s in win.context.snapshot.skills}
    assert {"quick-setup", "standup-notes", "sql-review"} <= names and win.banner.isHidden()
    assert win.tabs.isVisible()
    win.context.wait_for_scans(5000)



def test_checks_step_aside_while_the_user_types(qtbot, tmp_path, monkeypatch):
    """A keystroke in the filter asks the background checks to wait (the UI thread then has the GIL)."""
    from skillmanager.core.checks.skill_checks import ChecksCache
    from skillmanager.core.demo import create_demo_workspace
    from skillmanager.gui.context import ChecksWorker

    win = _window(qtbot, tmp_path, monkeypatch, create_demo_workspace(tmp_path / "demo"))
    before = time.monotonic()
    qtbot.keyClicks(win.registry_panel.filter_edit, "s")
    assert win.context._quiet_until >= before + win.context.QUIET_S
    seen = []
    win.registry_panel.proxy.rowsRemoved.connect(lambda *_: seen.append(win.context._quiet_until))
    qtbot.keyClicks(win.registry_panel.filter_edit, "tandup")
    assert seen and all(q == float("inf") for q in seen)  # the checks wait all through the filter's work
    consulted = []

    def quiet_until():  # "typing" for the first three looks, then quiet
        consulted.append(1)
        return time.monotonic() + 60 if len(consulted) <= 3 else 0.0

    import threading

    worker = ChecksWorker(win.context.snapshot, ChecksCache(), 1, threading.Event(), quiet_until)
    done = []
    worker.signals.done.connect(lambda generation, results: done.append(results))
    worker.run()
    with_files = sum(1 for s in win.context.snapshot.skills if s.path is not None)
    assert len(consulted) > 3 and done and len(done[-1]) == with_files
    win.context.wait_for_scans(5000)


@pytest.mark.parametrize("profile", ["current"])
def test_help_guide_has_the_legend_of_states_checks_and_filters(qtbot, demo):
    from skillmanager.core.glossary import BADGE_LEGEND, STATE_LEGEND
    from skillmanager.core.rules.buckets import Bucket

    dialog = demo.show_guide()
    qtbot.addWidget(dialog)
    text = dialog.browser.toPlainText()
    for word, sentence in list(STATE_LEGEND.values()) + list(BADGE_LEGEND.values()):
        assert word in text and sentence in text
    for bucket in Bucket:
        assert bucket.meaning in text
    assert states.BADGE_WORDS["error"] == "Error" and states.BADGE_WORDS["danger"] == "Review before use"
