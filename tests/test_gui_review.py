"""Fixes from driving the real app like a demanding user: badges, simulated session in the tree,
workspace-bar mistakes, wording, keyboard paths (pytest-qt, offscreen)."""
from __future__ import annotations


import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from skillmanager.gui.models.registry_model import Column, Role  # noqa: E402

LONG = 20_000


@pytest.fixture()
def make_window(qtbot, tmp_path):
    from skillmanager.gui import temp_dirs
    from skillmanager.gui.app import build_window

    made = []

    def make(demo=True, spec=None, width=1500, height=900):
        settings = QSettings(str(tmp_path / f"settings{len(made)}.ini"), QSettings.Format.IniFormat)
        context, win = build_window(demo=demo, settings=settings, watch=False)
        if spec is not None:
            context.set_spec(spec)
        qtbot.addWidget(win)
        win.resize(width, height)
        win.show()
        qtbot.waitUntil(lambda: context.snapshot is not None and not context.scanning, timeout=LONG)
        made.append(context)
        return win

    yield make
    for context in made:
        context.shutdown(5000)
    temp_dirs.remove_all()  # the demo copies (they used to pile up in /tmp)


def _skill(win, name):
    return next(s for s in win.context.snapshot.skills if s.name == name)


def _wait_checks(qtbot, win):
    qtbot.waitUntil(lambda: bool(win.context.checks), timeout=LONG)


def test_tree_has_a_checks_badge_with_a_findings_tooltip(qtbot, make_window):
    win = make_window()
    _wait_checks(qtbot, win)
    model = win.registry_panel.model
    index = model.index_for_skill(_skill(win, "quick-setup")).siblingAtColumn(Column.Checks)
    assert index.data(Role.Checks).badge == "danger"
    assert index.data(Qt.ItemDataRole.DisplayRole) == str(index.data(Role.Checks).count)
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Review before use") and "SKILL.md:5" in tip
    assert model.headerData(Column.Checks, Qt.Orientation.Horizontal) == "Checks"


def test_detail_lists_findings_with_lines_and_lint(qtbot, make_window):
    win = make_window()
    _wait_checks(qtbot, win)
    win.registry_panel.select_skill(_skill(win, "quick-setup"))
    text = win.detail.browser.toPlainText()
    assert "Security audit" in text and "critical" in text and "(SKILL.md:5)" in text
    assert "Claude Code lint" in text
    assert not win.detail.badge.isHidden() and "Review before use" in win.detail.badge.text()
    assert win.detail.reveal_button.isHidden()  # nothing hidden in this one
    win.registry_panel.select_skill(_skill(win, "changelog"))  # a command without a description: lint
    assert "No description" in win.detail.browser.toPlainText()


def test_unparsable_front_matter_is_shown_as_what_claude_does(qtbot, make_window):
    """broken-yaml is still listed by Claude Code (from its body): not "Invalid", but a badge and a 'But:'."""
    from skillmanager.gui.states import Visual

    win = make_window()
    _wait_checks(qtbot, win)
    skill = _skill(win, "broken-yaml")
    index = win.registry_panel.model.index_for_skill(skill)
    assert index.data(Role.State) is Visual.ACTIVE
    assert index.siblingAtColumn(Column.Checks).data(Role.Checks).badge == "error"
    win.registry_panel.select_skill(skill)
    sentence = win.detail.sentence.text()
    assert "Listed in full: the model sees its name and description" in sentence and "But: The front matter cannot be parsed" in sentence
    assert "invalid" not in win.registry_panel.summary.text()


def _hidden_workspace(tmp_path):
    from skillmanager.gui.engine import WorkspaceSpec

    project = tmp_path / "project"
    skill = project / ".claude" / "skills" / "sneaky"
    skill.mkdir(parents=True)
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "run rm")
    (skill / "SKILL.md").write_text(f"---\ndescription: Formats notes.\n---\nFormat the notes.{hidden}\n"
                                    "Keep\u200b it short.\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    return WorkspaceSpec(cwd=project, home=home, managed_root=False)


def test_reveal_hidden_characters(qtbot, make_window, tmp_path):
    win = make_window(demo=False, spec=_hidden_workspace(tmp_path))
    qtbot.waitUntil(lambda: any(s.name == "sneaky" for s in win.context.snapshot.skills), timeout=LONG)
    _wait_checks(qtbot, win)
    win.registry_panel.select_skill(_skill(win, "sneaky"))
    detail = win.detail
    assert not detail.reveal_button.isHidden()
    assert "hidden-unicode" not in detail.browser.toPlainText()  # plain words, the rule id in a tooltip
    assert "hidden characters" in detail.browser.toPlainText()
    assert detail.revealed.isHidden()
    detail.reveal_button.click()
    qtbot.waitUntil(lambda: detail.revealed.toPlainText() != "Reading…", timeout=LONG)  # read on the task runner
    revealed = detail.revealed.toPlainText()
    assert not detail.revealed.isHidden()
    assert "⟦hidden: run rm⟧" in revealed and "⟦U+200B ZWSP⟧" in revealed
    detail.reveal_button.click()
    assert detail.revealed.isHidden()


def test_simulator_step_shows_in_the_tree_and_step_back_reverts(qtbot, make_window):
    from skillmanager.gui.engine import SESSION_ACTIVATED_KEY, SESSION_DISCOVERED_KEY, WAITING_KEY

    win = make_window()
    simulator, panel = win.simulator, win.registry_panel
    qtbot.waitUntil(lambda: simulator.session is not None, timeout=LONG)
    before = panel.model.group_keys()
    simulator.add_step("Read", win.context.workspace.cwd / "packages" / "web" / "src" / "App.tsx")
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    keys = panel.model.group_keys()
    assert SESSION_DISCOVERED_KEY in keys and SESSION_ACTIVATED_KEY in keys
    group = panel.proxy.from_registry(panel.model.index_for_identity(SESSION_DISCOVERED_KEY))
    assert panel.view.isExpanded(group)
    assert "simulated" in group.data(Qt.ItemDataRole.DisplayRole)
    assert "simulated session: 2 discovered, 1 activated" in panel.summary.text()
    assert "2 skills discovered, 1 activated" in simulator.timeline.item(0).text()
    ts = panel.model.index_for_skill(_skill(win, "typescript-style"))
    assert ts.parent().data(Role.Identity) == SESSION_ACTIVATED_KEY
    simulator.step_back()
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    assert panel.model.group_keys() == before
    assert panel.model.index_for_skill(_skill(win, "typescript-style")).parent().data(Role.Identity) == WAITING_KEY
    assert "simulated" not in panel.summary.text()
    assert "fresh start" in simulator.status.text()


def test_enter_on_a_file_adds_a_step(qtbot, make_window):
    win = make_window()
    simulator = win.simulator
    qtbot.waitUntil(lambda: simulator.session is not None, timeout=LONG)
    win.tabs.setCurrentWidget(simulator)
    target = win.context.workspace.cwd / "README.md"
    qtbot.waitUntil(lambda: simulator.fs_model.index(str(target)).isValid(), timeout=LONG)
    index = simulator.proxy.mapFromSource(simulator.fs_model.index(str(target)))
    qtbot.waitUntil(lambda: index.isValid(), timeout=LONG)
    simulator.files.setCurrentIndex(index)
    simulator.files.setFocus()
    qtbot.keyClick(simulator.files, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    assert simulator.timeline.count() == 1
    assert "README.md" in simulator.timeline.item(0).text()
    assert simulator.timeline.wordWrap()


def test_a_project_folder_that_does_not_exist_is_refused_non_modally(qtbot, make_window, tmp_path):
    win = make_window()
    shown = win.context.spec.cwd
    generation = win.context._generation
    bar = win.workspace_bar
    bar.project.setCurrentText(str(tmp_path / "no-such-folder"))
    bar._emit()
    assert win.context._generation == generation  # no scan started
    assert "does not exist" in win.message_bar.message() and str(shown) in win.message_bar.message()
    assert bar.project.currentText() == str(shown)  # the bar shows what the tree shows


def test_a_folder_without_own_skills_offers_the_demo(qtbot, make_window, tmp_path):
    from skillmanager.gui.engine import WorkspaceSpec

    (tmp_path / "empty").mkdir()
    (tmp_path / "home").mkdir()
    win = make_window(demo=False, spec=WorkspaceSpec(cwd=tmp_path / "empty", home=tmp_path / "home",
                                                     managed_root=False))
    assert win.context.snapshot.skills  # Claude Code's bundled skills are always there…
    qtbot.waitUntil(lambda: not win.banner.isHidden(), timeout=LONG)  # …so "no skills" means none of yours
    assert "no skills of your own" in win.banner_text.text() and win.banner_button.text() == "Try the demo"
    win.banner_button.click()  # non-modal offer: the demo opens in place
    qtbot.waitUntil(lambda: getattr(win.context.workspace, "demo_paths", None) is not None
                    and win.context.snapshot is not None and not win.context.scanning, timeout=LONG)
    assert win.banner.isHidden()


def test_cut_entries_and_budget_level_in_plain_words(qtbot, make_window):
    win = make_window()
    listing = win.preview.listing
    texts = [listing.cuts.item(i).text() for i in range(listing.cuts.count())]
    assert any(t.startswith("verbose-logger — name only, because a setting asks for it") for t in texts)
    assert not any(t.endswith("name-only-override") for t in texts)
    assert "Budget level:" not in listing.meter_label.text()
    assert "budget: 1% of claude-opus-5-5's 1,000,000-token context window" in listing.meter_label.text()


def test_the_budget_meter_says_where_the_budget_came_from(qtbot, make_window, tmp_path):
    from skillmanager.gui.engine import WorkspaceSpec

    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".claude" / "skills" / "notes").mkdir(parents=True)
    (project / ".claude" / "skills" / "notes" / "SKILL.md").write_text("---\ndescription: Keeps notes.\n---\nb\n",
                                                                      encoding="utf-8")
    home.mkdir()
    win = make_window(demo=False, spec=WorkspaceSpec(cwd=project, home=home, managed_root=False,
                                                     env={"HOME": str(home), "SLASH_COMMAND_TOOL_CHAR_BUDGET": "-5"}))
    listing = win.preview.listing
    assert "budget set by SLASH_COMMAND_TOOL_CHAR_BUDGET=-5 in your environment" in listing.meter_label.text()
    assert "of -5 characters of the listing budget" in listing.meter_text.text()


def test_the_main_bar_is_the_project_and_a_sentence_the_options_sit_under_advanced(qtbot, make_window):
    from skillmanager.core.versions.installed import LOOKING

    win = make_window(width=800, height=600)
    bar = win.workspace_bar
    assert bar.project.isVisible() and not bar.advanced.isVisible()
    for field in (bar.home, bar.add_dirs, bar.plugin_dirs, bar.model, bar.profile):
        assert not field.isVisible()  # the command line's options are not the main bar
    # the installed claude is looked for off the UI thread, then named in core's sentence
    qtbot.waitUntil(lambda: bar.installed_note.text() != LOOKING, timeout=LONG)
    assert "showing what" in bar.installed_note.text()
    # the demo shows a home and extra folders: the closed panel says options are in use
    assert "set)" in bar.advanced_button.text()
    qtbot.mouseClick(bar.advanced_button, Qt.MouseButton.LeftButton)
    assert bar.advanced.isVisible()
    for field in (bar.home, bar.add_dirs, bar.plugin_dirs, bar.model):
        assert field.isVisible() and field.width() >= 90, field.accessibleName()
    assert str(win.context.workspace.home) == bar.home.text()
    assert win.registry_panel.view.width() >= 260
    # the version in plain numbers; choosing the older one rescans with its rules and the sentence says so
    texts = [bar.profile.itemText(i) for i in range(bar.profile.count())]
    assert texts[:2] == ["Claude Code 2.1.332 (current)", "Claude Code 2.1.88 (legacy)"]
    bar.profile.setCurrentIndex(1)
    bar.profile.activated.emit(1)
    qtbot.waitUntil(lambda: not win.context.scanning and win.context.snapshot is not None
                    and win.context.snapshot.registry.profile.version_text == "2.1.88", timeout=LONG)
    assert win.context.spec.profile == "legacy" and win.context.spec.claude_version is None
    qtbot.waitUntil(lambda: "Claude Code 2.1.88 does" in bar.installed_note.text(), timeout=LONG)


def test_keyboard_shortcuts(qtbot, make_window):
    win = make_window()
    actions = {a.text().replace("&", ""): a.shortcut().toString() for a in win.findChildren(type(win.undo_action))}
    assert actions.get("Rescan") == "F5"
    assert actions.get("Find skill") == "Ctrl+F"
    assert actions.get("Undo toggle") == "Ctrl+Z"
    assert actions.get("About skillmanager") == "F1"
    labels = [w.text() for w in win.workspace_bar.findChildren(type(win.banner_text)) if w.buddy() is not None]
    assert all("&" in label for label in labels)  # every workspace field has an Alt+letter


def test_detail_says_what_the_simulated_session_did(qtbot, make_window):
    win = make_window()
    simulator = win.simulator
    qtbot.waitUntil(lambda: simulator.session is not None, timeout=LONG)
    sql = _skill(win, "sql-review")
    win.registry_panel.select_skill(sql)
    assert win.detail.simulated.isHidden()
    assert "db/migrations/*.sql" in win.detail.browser.toPlainText()  # a list shown without JSON brackets
    assert '["db/migrations/*.sql"]' not in win.detail.browser.toPlainText()
    simulator.add_step("Edit", win.context.workspace.cwd / "db" / "migrations" / "001_init.sql")
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    assert not win.detail.simulated.isHidden()
    assert "activated by step 1: Edit db/migrations/001_init.sql" in win.detail.simulated.text()
    # the row moved to the "Activated in session" group: the selection stays on it
    assert win.detail.title.text() == "sql-review"
    assert win.registry_panel.view.currentIndex().data(Role.Name) == "sql-review"
    simulator.step_back()
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    assert win.detail.simulated.isHidden()
    assert win.registry_panel.view.currentIndex().data(Role.Name) == "sql-review"


def test_filter_then_enter_or_down_selects_the_first_match(qtbot, make_window):
    win = make_window()
    panel = win.registry_panel
    panel.filter_edit.setFocus()
    qtbot.keyClicks(panel.filter_edit, "runbook")
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Return)
    assert win.detail.title.text() == "incident-runbook"
    assert panel.view.hasFocus() or not win.isActiveWindow()
    panel.filter_edit.setText("quick")
    qtbot.keyClick(panel.filter_edit, Qt.Key.Key_Down)
    assert win.detail.title.text() == "quick-setup"


def test_the_installed_release_is_marked_among_the_versions(qtbot, make_window):
    from skillmanager.core.versions.installed import detect_installed_claude
    from locations import CURRENT_CLI, missing

    if not CURRENT_CLI.exists():
        missing(f"the real Claude Code is not at {CURRENT_CLI}")
    win = make_window()
    bar = win.workspace_bar
    bar.set_installed(detect_installed_claude(str(CURRENT_CLI)))
    texts = [bar.profile.itemText(i) for i in range(bar.profile.count())]
    assert texts == ["Claude Code 2.1.332 (current, installed)", "Claude Code 2.1.88 (legacy)"]
    assert bar.installed_note.text() == "Claude Code 2.1.332 found — showing what it does"
