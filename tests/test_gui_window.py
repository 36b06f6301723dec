"""The real main window on the demo workspace, driven with pytest-qt (offscreen)."""
from __future__ import annotations

import os
import threading
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from skillmanager.gui.models.registry_model import Role  # noqa: E402
from gui_support import demo_window  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LONG = 20_000  # generous: latency is measured in benchmarks/gui.py, not asserted here


@pytest.fixture()
def window(qtbot, tmp_path):
    with demo_window(qtbot, tmp_path) as win:
        yield win


def _skill(win, name, kind=None):
    return next(s for s in win.context.snapshot.skills if s.name == name and (kind is None or s.kind == kind))


def _current_name(win):
    return win.registry_panel.view.currentIndex().data(Role.Name)


def test_selecting_a_skill_updates_detail_and_preview(qtbot, window):
    skill = _skill(window, "env-check")
    assert window.registry_panel.select_skill(skill)
    assert window.detail.title.text() == "env-check"
    assert window.detail.sentence.text().count("Listed in full")
    assert "env-check" in window.preview.listing.text.toPlainText()
    expansion = window.preview.expansion
    qtbot.waitUntil(lambda: expansion.result is not None, timeout=LONG)
    assert "Base directory for this skill:" in expansion.raw.toPlainText()
    # the inline shell is shown as "would run", with a button naming how many commands
    assert not expansion.shell_box.isHidden()
    assert expansion.run_button.text() == f"Run these {expansion.shell_list.count()} commands"
    assert "git branch --show-current" in expansion.shell_list.item(0).text() + expansion.shell_list.item(1).text() + (
        expansion.shell_list.item(2).text() if expansion.shell_list.count() > 2 else "")


def test_shadowed_skill_says_who_wins(window):
    shadowed = next(s for s in window.context.snapshot.skills if s.name == "commit-message" and not s.state.is_winner)
    window.registry_panel.select_skill(shadowed)
    assert window.detail.sentence.text().count("Shadowed by the managed policy skill")


def test_conditional_skill_says_when_it_activates(window):
    window.registry_panel.select_skill(_skill(window, "sql-review"))
    assert "Waiting: activates when a file matching `db/migrations/*.sql` is touched" in window.detail.sentence.text()


def test_editing_a_skill_on_disk_updates_the_tree_keeping_selection(qtbot, window):
    skill = _skill(window, "deploy", "skill")
    window.registry_panel.select_skill(skill)
    assert _current_name(window) == "deploy"
    qtbot.waitUntil(lambda: window.watcher.mode == "inotify" or window.watcher.mode.startswith("polling"),
                    timeout=LONG)
    skill.path.write_text(skill.path.read_text(encoding="utf-8").replace(
        "Deploy a platform service", "Roll out a platform service"), encoding="utf-8")

    def updated():
        current = window.registry_panel.view.currentIndex().data(Role.Skill)
        return current is not None and current.description.startswith("Roll out")

    qtbot.waitUntil(updated, timeout=LONG)
    assert _current_name(window) == "deploy"
    assert window.detail.title.text() == "deploy"
    # the rows update first; the listing follows once the engine has rebuilt it
    qtbot.waitUntil(lambda: "Roll out a platform service" in window.preview.listing.text.toPlainText(), timeout=LONG)
    assert _current_name(window) == "deploy"


def test_a_new_skills_dir_appears(qtbot, window):
    qtbot.waitUntil(lambda: window.watcher.mode == "inotify" or window.watcher.mode.startswith("polling"),
                    timeout=LONG)
    window.registry_panel.select_skill(_skill(window, "env-check"))
    new_dir = window.context.workspace.cwd / ".claude" / "skills" / "hotfix"
    new_dir.mkdir()
    (new_dir / "SKILL.md").write_text("---\ndescription: Ship an urgent fix.\n---\nBody\n", encoding="utf-8")
    model = window.registry_panel.model
    qtbot.waitUntil(lambda: any(s.name == "hotfix" for s in window.context.snapshot.skills)
                    and model.index_for_skill(_skill(window, "hotfix")).isValid(), timeout=LONG)
    assert _current_name(window) == "env-check"
    # a nested command folder too (`ops:rollback`)
    ops = window.context.workspace.cwd / ".claude" / "commands" / "ops"
    ops.mkdir()
    (ops / "rollback.md").write_text("---\ndescription: Roll back the last deploy.\n---\nRoll back.\n",
                                     encoding="utf-8")
    qtbot.waitUntil(lambda: any(s.name == "ops:rollback" for s in window.context.snapshot.skills), timeout=LONG)


def test_conflicts_panel_lists_the_contested_names_and_selects(qtbot, window):
    panel = window.conflicts
    assert {"commit-message", "team-style", "deploy"} <= set(panel.contested_names())
    top = next(panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())
               if panel.tree.topLevelItem(i).text(0) == "deploy")
    panel.tree.setCurrentItem(top.child(1))  # the shadowed legacy command
    assert window.registry_panel.view.currentIndex().data(Role.Source) == "Legacy commands"


def test_simulator_read_step_shows_the_discovered_skill(qtbot, window):
    simulator = window.simulator
    qtbot.waitUntil(lambda: simulator.session is not None, timeout=LONG)
    target = window.context.workspace.cwd / "packages" / "api" / "src" / "server.ts"
    simulator.add_step("Read", target)
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    result = simulator.last_result
    assert simulator.steps_runner.worker_threads and threading.current_thread().name not in \
        simulator.steps_runner.worker_threads  # the step ran on the simulator's worker thread
    assert result is not None
    assert simulator.timeline.count() == 1
    assert "discovered" in simulator.timeline.item(0).text()
    html = simulator.step_view.toPlainText()
    assert "packages/api/.claude/skills" in html
    assert "api-conventions" in html
    simulator.step_back()
    qtbot.waitUntil(lambda: not simulator.busy, timeout=LONG)
    assert simulator.timeline.count() == 0


def test_about_dialog_lists_data_licences(window):
    dialog = window.show_about()
    titles = [dialog.findChild(type(dialog.children()[0]).__mro__[0]) for _ in range(1)]
    from PySide6.QtWidgets import QTabWidget

    tabs = dialog.findChild(QTabWidget)
    names = [tabs.tabText(i) for i in range(tabs.count())]
    assert "Libraries" in names and any(n.startswith("Data: ") for n in names)
    dialog.close()
    del titles


def test_smoke_test_exits_zero():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "skillmanager", "--smoke-test"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "smoke test: ok" in done.stdout


def test_quitting_during_a_scan_is_quiet_and_removes_the_temp_folders(tmp_path):
    """app.main() waits for (cancels) running scans and removes the demo copy it made."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = (
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from skillmanager.gui import app as gui_app\n"
        "QTimer.singleShot(30, app.quit)  # while the first scan of the demo runs\n"
        "print('exit', gui_app.main(demo=True))\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(temp), HOME=str(tmp_path / "home"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), SKILLMANAGER_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Signal source has been deleted" not in done.stderr
    assert "Error calling Python override" not in done.stderr
    assert [p.name for p in temp.iterdir() if p.name.startswith("skillmanager-")] == []


def test_smoke_test_leaves_no_temp_folder(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "skillmanager", "--smoke-test"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("skillmanager-")] == []


def test_about_lists_bundled_licences_when_frozen(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QTabWidget, QTextBrowser

    from skillmanager.gui.widgets import about_dialog

    folder = tmp_path / "licenses"
    (folder / "PySide6").mkdir(parents=True)
    (folder / "PySide6" / "LICENSE.LGPL3").write_text("GNU LESSER GENERAL PUBLIC LICENSE\n", encoding="utf-8")
    (folder / "PyYAML.txt").write_text("MIT License, PyYAML\n", encoding="utf-8")
    assert about_dialog.bundled_licences_folder() is None  # not frozen: no such tab
    monkeypatch.setattr(about_dialog, "bundled_licences_folder", lambda: folder)
    dialog = window.show_about()
    tabs = dialog.findChild(QTabWidget)
    names = [tabs.tabText(i) for i in range(tabs.count())]
    assert "Bundled licences" in names and "Data: o200k_base" in names
    text = tabs.widget(names.index("Bundled licences")).findChild(QTextBrowser) or tabs.widget(
        names.index("Bundled licences"))
    plain = text.toPlainText()
    assert "PySide6/LICENSE.LGPL3" in plain and "MIT License, PyYAML" in plain
    dialog.close()


def test_app_icon_is_the_real_artwork():
    from skillmanager.core.resources import resource_path
    from skillmanager.gui import states

    icon = states.app_icon()
    assert not icon.isNull()
    assert 256 in [s.width() for s in icon.availableSizes()]
    assert resource_path("icons", "app", "skillmanager.svg").exists()
    assert not resource_path("icons", "skillmanager.svg").exists()  # the old placeholder is gone


def test_filter_keeps_groups_open_and_bottom_texts_differ(qtbot, window):
    panel = window.registry_panel
    panel.filter_edit.setText("release-notes")
    names = {panel.proxy.index(r, 0, panel.proxy.index(g, 0)).data(Role.Name)
             for g in range(panel.proxy.rowCount()) for r in range(panel.proxy.rowCount(panel.proxy.index(g, 0)))}
    assert names and all(n.endswith("release-notes") for n in names)
    assert all(panel.view.isExpanded(panel.proxy.index(g, 0)) for g in range(panel.proxy.rowCount()))
    panel.filter_edit.clear()
    assert panel.proxy.rowCount() > 5
    assert all(panel.view.isFirstColumnSpanned(g, panel.proxy.index(g, 0).parent())
               for g in range(panel.proxy.rowCount()))
    summary = panel.summary.text()
    assert "contested" in summary and "waiting" in summary
    assert window.statusBar().currentMessage() != summary
    assert "skills loaded" not in window.statusBar().currentMessage()


def test_conflicts_panel_shows_a_renamed_add_dir_copy(window):
    """current renames a clashing --add-dir skill `extra:release-notes` (registry fuzz finding 11): the panel
    shows the project copy winning and the renamed copy with the reason, not as shadowed."""
    panel = window.conflicts
    top = next(panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())
               if panel.tree.topLevelItem(i).text(0) == "release-notes")
    assert top.child(0).text(0) == "wins" and top.child(0).text(1) == "Project"
    renamed = top.child(1)
    assert renamed.text(0) == "renamed extra:release-notes"
    assert renamed.text(2) == "../../extra/.claude/skills/release-notes"  # the folder, relative to the project
    assert "renamed" in panel.summary.text()
    panel.tree.setCurrentItem(renamed)
    assert "is listed as extra:release-notes because ../.claude/skills/release-notes already has the name" in \
        panel.reason.text() and panel.reason.wordWrap()
    assert window.registry_panel.view.currentIndex().data(Role.Name) == "extra:release-notes"


def test_no_skill_picked_shows_what_needs_attention_and_the_legend(qtbot, window):
    from skillmanager.core.glossary import OVERVIEW_ATTENTION, STATE_LEGEND
    from skillmanager.core.rules.buckets import Bucket

    qtbot.waitUntil(lambda: bool(window.registry_panel.model.bucket_counts().get(Bucket.CONFLICTS)), timeout=LONG)
    window.detail.show_skill(None)
    text = window.detail.browser.toPlainText()
    counts = window.registry_panel.model.bucket_counts()
    assert OVERVIEW_ATTENTION in text
    assert f"{Bucket.CONFLICTS.word}: {counts[Bucket.CONFLICTS]:,}" in text  # the demo has clashes
    assert all(word in text for word, _sentence in STATE_LEGEND.values())
    assert window.detail.toggle.isHidden()  # no empty, disabled toggle form while nothing is picked
    # a count is a link to its filter chip
    from PySide6.QtCore import QUrl

    window.detail._on_link(QUrl("bucket:conflicts"))
    assert window.registry_panel.chips[Bucket.CONFLICTS].isChecked()
    assert window.registry_panel.model.bucket is Bucket.CONFLICTS


def test_badge_icons_keep_their_colours_on_a_selected_row():
    from PySide6.QtGui import QIcon

    from skillmanager.gui import states

    icon = states.badge_icon("warning")
    normal = icon.pixmap(16, 16, QIcon.Mode.Normal).toImage()
    selected = icon.pixmap(16, 16, QIcon.Mode.Selected).toImage()
    assert normal == selected  # not blended into the highlight colour by the style


def test_toggle_choice_shows_its_full_words_when_elided(qtbot, window):
    assert window.registry_panel.select_skill(_skill(window, "env-check"))
    choice = window.detail.toggle.choice
    qtbot.waitUntil(lambda: choice.count() > 0, timeout=LONG)
    assert choice.toolTip() == choice.currentText()
    widest = max(choice.fontMetrics().horizontalAdvance(choice.itemText(i)) for i in range(choice.count()))
    assert choice.view().minimumWidth() >= widest


def test_summary_groups_thousands_in_every_count(window, monkeypatch):
    """Under the tree every count reads as the chips do: 4,981, not 4981."""
    panel = window.registry_panel
    monkeypatch.setattr(panel, "_counts", lambda snapshot: (5013, 983, 0, 0, 4981))
    panel._summarise(panel.model.snapshot)
    text = panel.summary.text()
    assert "5,013 skills and commands" in text and "4,981 cut in the listing" in text and "983 contested" in text
