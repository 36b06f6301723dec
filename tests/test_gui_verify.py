"""Tools ▸ Check with my Claude Code: the dialog runs core.verify off the UI thread and shows its report."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skillmanager.core.load.workspace import Workspace
from skillmanager.core.verify.sandbox import probe_namespaces
from skillmanager.gui.widgets.verify_dialog import VerifyDialog

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gui_support import demo_window  # noqa: E402
from locations import CURRENT_CLI, ORACLE, build_fixture, missing  # noqa: E402
from verify_workspaces import build_hostile_workspace, tree_state, write  # noqa: E402

RUN_TIMEOUT_MS = 120_000


def test_menu_opens_the_dialog_on_the_shown_workspace(qtbot, tmp_path):
    with demo_window(qtbot, tmp_path) as win:
        action = next(a for menu in win.menuBar().actions() if menu.text() == "&Tools"
                      for a in menu.menu().actions() if a.text() == "&Check with my Claude Code…")
        assert action is not None
        dialog = win.show_verify()
        qtbot.addWidget(dialog)
        assert dialog.workspace.cwd == win.context.registry.workspace.cwd
        dialog.close()


def test_dialog_shows_the_refusal(qtbot, tmp_path):
    ws = build_hostile_workspace(tmp_path / "ws", tmp_path / "markers")
    ran = tmp_path / "cli-ran"
    claude = write(tmp_path / "fake-claude", f"#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.332 (Claude Code)' "
                                             f"&& exit 0\ntouch {ran}\n")
    claude.chmod(0o755)
    before = tree_state(tmp_path / "ws")
    workspace = Workspace.create(home=ws["home"], cwd=ws["cwd"], managed_root=None, plugin_dirs=ws["plugin_dirs"])
    dialog = VerifyDialog(workspace, use_namespaces=False)
    qtbot.addWidget(dialog)
    dialog.claude_edit.setText(str(claude))
    dialog.add_reads(ws["reads"])
    dialog.start()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=RUN_TIMEOUT_MS)
    assert dialog.status.text().startswith("Could not run safely:") and "settings.json" in dialog.status.text()
    assert "result: cannot run" in dialog.output.toPlainText() and dialog.copy_button.isEnabled()
    assert not ran.exists() and list((tmp_path / "markers").iterdir()) == []
    assert tree_state(tmp_path / "ws") == before


@pytest.mark.oracle
def test_dialog_reports_a_match_with_the_real_cli(qtbot, tmp_path):
    if not CURRENT_CLI.is_file():
        missing(f"Claude Code 2.1.332 is not installed at {CURRENT_CLI}")
    if not (ORACLE / "build_fixture.py").is_file():
        missing(f"the oracle fixture builder is missing ({ORACLE / 'build_fixture.py'})")
    if not probe_namespaces().available:
        pytest.skip("private namespaces unavailable")
    work = build_fixture(ORACLE / "build_fixture.py", tmp_path.resolve() / "w")
    workspace = Workspace.create(home=work / "home", cwd=work / "home" / "proj",
                                 managed_root=work / "managed" / "claude-code", add_dirs=[work / "extra"],
                                 plugin_dirs=[work / "plugin"])
    dialog = VerifyDialog(workspace)
    qtbot.addWidget(dialog)
    dialog.claude_edit.setText(str(CURRENT_CLI))
    dialog.add_reads([str(work / "home/proj/packages/api/src/x.ts")])
    dialog.start()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=RUN_TIMEOUT_MS)
    assert dialog.status.text() == "Everything matches.", dialog.output.toPlainText()
    assert "Read packages/api/src/x.ts: matches" in dialog.output.toPlainText()
