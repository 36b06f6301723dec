"""The UI thread never reads a skill file: every open and folder listing of the workspace (and of the demo it is
copied from) made while the real window goes through the common journeys is recorded with its thread, through
Python's audit events (`open` covers builtins.open, io.open, os.open and pathlib; `os.scandir`/`os.listdir` the
folder listings), so a read cannot hide behind a helper or a `from os import …`."""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from skillmanager.core.demo import demo_source  # noqa: E402

LONG = 30_000
_READ_EVENTS = {"open", "os.scandir", "os.listdir"}


class ReadRecorder:
    """Reads of files under `roots` made on the main (GUI) thread, with where they came from."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [os.path.realpath(r) for r in roots] + [str(r) for r in roots]
        self.on_ui_thread: list[tuple[str, str, str]] = []  # (event, path, stack)
        self.elsewhere = 0  # reads of the same files on other threads (the hook sees them)
        self.paused = False

    def _inside(self, path) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        elif isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):
            return False  # a descriptor: its open was seen already
        return any(path == root or path.startswith(root + os.sep) for root in self.roots)

    def hear(self, event: str, args: tuple) -> None:
        if self.paused or event not in _READ_EVENTS or not args or not self._inside(args[0]):
            return
        if event == "open" and len(args) > 1 and isinstance(args[1], str) and set(args[1]) & set("wax"):
            return  # a write (the demo copy, a toggle): writes are not what this test is about
        if threading.current_thread() is threading.main_thread():
            stack = "".join(traceback.format_stack(limit=40)[:-2])
            self.on_ui_thread.append((event, str(args[0]), stack))
        else:
            self.elsewhere += 1

    @contextmanager
    def pause(self):
        """The test itself edits files (as another program would): not the GUI's reads."""
        self.paused = True
        try:
            yield
        finally:
            self.paused = False

    def report(self) -> str:
        """Each distinct place in skillmanager that read on the UI thread, once, with an example."""
        places: dict[str, tuple[int, str, str]] = {}
        for event, path, stack in self.on_ui_thread:
            ours = [line for line in stack.split("\n  File ") if "skillmanager/" in line]
            where = " <- ".join(_frame(line) for line in reversed(ours) if "/gui/" in line or line is ours[-1])
            count, example, _ = places.get(where, (0, f"{event} {path}", stack))
            places[where] = (count + 1, example, stack)
        lines = [f"{count}x {example}\n    at {where}" for where, (count, example, _) in places.items()]
        return f"{len(self.on_ui_thread)} reads on the UI thread:\n" + "\n".join(lines)


def _frame(line: str) -> str:
    """`skillmanager/gui/x.py:12 in f` from a formatted stack line."""
    head = line.split("\n")[0].strip().removeprefix("File ")
    path, _, rest = head.partition('", line ')
    number, _, function = rest.partition(", in ")
    return f"{path[path.rfind('skillmanager/'):]}:{number} in {function}"


_ACTIVE: list[ReadRecorder] = []


def _audit(event: str, args: tuple) -> None:
    if _ACTIVE and event in _READ_EVENTS:
        _ACTIVE[-1].hear(event, args)


sys.addaudithook(_audit)  # audit hooks cannot be removed: it does nothing while no recorder is active


@contextmanager
def recording(roots: list[Path]):
    recorder = ReadRecorder(roots)
    _ACTIVE.append(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.remove(recorder)


@pytest.fixture()
def demo_tmp(tmp_path, monkeypatch):
    """The demo copy is made under this folder (tempfile's), so its reads can be told from any other."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "data"))  # toggle backups go here
    return folder


def _skill(win, name, source=None):
    return next(s for s in win.context.snapshot.skills
                if s.name == name and (source is None or s.source.value == source))


def _settled(qtbot, win) -> None:
    context = win.context
    qtbot.waitUntil(lambda: context.snapshot is not None and not context.scanning and not context.snapshot.partial,
                    timeout=LONG)


def test_the_common_journeys_read_no_skill_file_on_the_ui_thread(qtbot, tmp_path, demo_tmp):
    from skillmanager.gui import temp_dirs
    from skillmanager.gui.app import build_window

    with recording([demo_tmp, demo_source()]) as recorder:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        # the first scan of the demo (copied, then scanned, then checked)
        context, win = build_window(demo=True, settings=settings, watch=True)
        qtbot.addWidget(win)
        try:
            win.resize(1400, 860)
            win.show()
            _journeys(qtbot, win, recorder)
        finally:
            if win.watcher is not None:
                win.watcher.stop()
            context.wait_for_scans(5000)
    temp_dirs.remove_all()
    assert recorder.elsewhere > 50, "the recorder heard (almost) no reads at all: it is not listening"
    assert recorder.on_ui_thread == [], recorder.report()


def _journeys(qtbot, win, recorder: ReadRecorder) -> None:
    context = win.context
    _settled(qtbot, win)
    qtbot.waitUntil(lambda: bool(context.checks), timeout=LONG)
    paths = context.workspace.demo_paths

    # selecting skills: the detail pane, its checks, the toggle box and the expansion follow the selection
    for name, source in (("env-check", "project"), ("deploy", None), ("commit-message", None),
                         ("sql-review", None), ("team-style", None)):
        assert win.registry_panel.select_skill(_skill(win, name, source))
        qtbot.waitUntil(lambda: not win.detail.toggle.planning, timeout=LONG)
    expansion = win.preview.expansion
    qtbot.waitUntil(lambda: expansion.result is not None, timeout=LONG)

    # typing arguments in the Listing & expansion page
    win.tabs.setCurrentWidget(win.preview)
    assert win.registry_panel.select_skill(_skill(win, "deploy", "project"))
    qtbot.keyClicks(expansion.args_edit, "api staging")
    qtbot.waitUntil(lambda: expansion.result is not None, timeout=LONG)

    # a toggle: plan, apply, undo
    win.tabs.setCurrentWidget(win.skills_page)
    assert win.registry_panel.select_skill(_skill(win, "env-check", "project"))
    box = win.detail.toggle
    qtbot.waitUntil(lambda: box.toggle_state is not None and not box.planning, timeout=LONG)
    assert box.choose("off", "local")
    qtbot.waitUntil(lambda: not box.planning and box.plan is not None and box.apply_button.isEnabled(),
                    timeout=LONG)
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(win.toggles.history), timeout=LONG)
    _settled(qtbot, win)
    win.toggles.undo()
    qtbot.waitUntil(lambda: not win.toggles.history, timeout=LONG)
    _settled(qtbot, win)

    # a simulator step
    simulator = win.simulator
    win.tabs.setCurrentWidget(simulator)
    qtbot.waitUntil(lambda: simulator.session is not None, timeout=LONG)
    simulator.add_step("Read", paths.cwd / "packages" / "api" / "src" / "server.ts")
    qtbot.waitUntil(lambda: not simulator.busy and simulator.timeline.count() == 1, timeout=LONG)

    # a filter keystroke
    win.tabs.setCurrentWidget(win.skills_page)
    qtbot.keyClicks(win.registry_panel.filter_edit, "dep")
    qtbot.keyClicks(win.registry_panel.filter_edit, "\b\b\b")

    # a rescan the watcher triggers: another program edits a skill
    qtbot.waitUntil(lambda: win.watcher.mode == "inotify" or win.watcher.mode.startswith("polling"), timeout=LONG)
    deploy = _skill(win, "deploy", "project")
    with recorder.pause():
        deploy.path.write_text(deploy.path.read_text(encoding="utf-8").replace(
            "Deploy a platform service", "Roll out a platform service"), encoding="utf-8")
    qtbot.waitUntil(lambda: _skill(win, "deploy", "project").description.startswith("Roll out"), timeout=LONG)
    _settled(qtbot, win)

    # the conflicts compare, and turning the losing copy off
    page = win.conflicts
    win.tabs.setCurrentWidget(page)
    assert page.select_copy("commit-message", 1) is not None
    qtbot.waitUntil(lambda: page.comparison is not None and page.off_button.isEnabled(), timeout=LONG)
    page.off_button.click()
    qtbot.waitUntil(lambda: page.my_change is not None, timeout=LONG)
    _settled(qtbot, win)

    # the row switch in the tree
    from skillmanager.gui.models.registry_model import Column

    win.tabs.setCurrentWidget(win.skills_page)
    history = len(win.toggles.history)
    model = win.registry_panel.model
    index = model.index_for_skill(_skill(win, "env-check", "project")).siblingAtColumn(Column.State)
    model.setData(index, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    qtbot.waitUntil(lambda: len(win.toggles.history) == history + 1, timeout=LONG)
    _settled(qtbot, win)

    # renaming a skill (core/manage), then a new copy of the demo from the menu
    win.manage.rename(_skill(win, "deploy", "project"), "roll-out")
    qtbot.waitUntil(lambda: any(s.name == "roll-out" for s in context.snapshot.skills), timeout=LONG)
    _settled(qtbot, win)
    first = context.workspace
    win.demo_action.trigger()
    qtbot.waitUntil(lambda: context.workspace is not first and context.snapshot.workspace is context.workspace,
                    timeout=LONG)
    _settled(qtbot, win)
    context.wait_for_scans(10_000)
