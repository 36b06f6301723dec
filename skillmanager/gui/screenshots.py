"""Render the real main window on the demo workspace to PNGs (for the README).

    python -m skillmanager.gui.screenshots docs/screenshots [--dark] [--suffix -dark]

Offscreen unless QT_QPA_PLATFORM / DISPLAY say otherwise (works under Xvfb too). Writes
tree.png (the Skills page: registry tree + detail), preview.png (listing and expansion), preview-refused.png
(a skill Claude Code asks about first: banner, body, the curl | sh verdict), conflicts.png (two copies compared),
simulator.png (after three steps: a discovery, an ignored folder with its rule, an activation),
needs-review.png (the filter chip), advanced.png (the Advanced panel open), toggle.png
(the detail pane's toggle control previewing a change) and install-preview.png (Install… on a shared skill
with a high audit finding).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the main window on the demo workspace to PNGs")
    parser.add_argument("out", type=Path)
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--suffix", default="")
    parser.add_argument("--size", default="1600x950")
    options = parser.parse_args(argv)
    if not os.environ.get("QT_QPA_PLATFORM") and not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["SKILLMANAGER_COLOR_SCHEME"] = "dark" if options.dark else "light"

    from PySide6.QtCore import QSettings, QTimer

    from skillmanager.gui import app as app_module

    app = app_module._make_application(sys.argv[:1])
    errors = app_module._install_excepthook(exit_code_on_error=True)
    import tempfile

    from skillmanager.gui import temp_dirs

    settings_dir = temp_dirs.register(tempfile.mkdtemp(prefix="skillmanager-shots-"))
    from skillmanager.core.app_dirs import DATA_DIR_ENV

    # History shows this run's change only, not the journal of whoever renders
    os.environ.setdefault(DATA_DIR_ENV, str(settings_dir / "data"))
    settings = QSettings(str(settings_dir / "settings.ini"), QSettings.Format.IniFormat)
    options.out.mkdir(parents=True, exist_ok=True)
    context, window = app_module.build_window(demo=True, settings=settings, watch=False)
    width, height = (int(v) for v in options.size.split("x"))
    window.resize(width, height)
    window.show()

    def shoot(name: str) -> None:
        for _ in range(5):
            app.processEvents()
        window.grab().save(str(options.out / f"{name}{options.suffix}.png"))

    def run(_checks) -> None:  # after the first scan and its audit / lint badges
        context.checks_changed.disconnect(run)
        snapshot = context.snapshot
        skills = {s.name: s for s in snapshot.skills if s.state.is_winner}
        window.registry_panel.select_skill(skills["env-check"])
        window.tabs.setCurrentWidget(window.preview)
        expansion = window.preview.expansion
        wait_then(lambda: expansion.view is not None and expansion.skill is skills["env-check"],
                  lambda: (shoot("preview"), shoot_refused(skills)))

    def shoot_refused(skills) -> None:
        """quick-setup pre-approves Bash: Claude Code asks first. The banner, the body and the curl | sh verdict."""
        expansion = window.preview.expansion
        expansion.view = None
        window.registry_panel.select_skill(skills["quick-setup"])

        def shot() -> None:
            expansion.shell_toggle.setChecked(window.width() >= 1280)  # folded where room is short
            shoot("preview-refused")
            window.tabs.setCurrentWidget(window.skills_page)
            shoot("tree")
            shoot_chip_and_advanced()
            window.tabs.setCurrentWidget(window.conflicts)
            window.conflicts.select_copy("commit-message", 1)
            wait_then(lambda: window.conflicts.comparison is not None,
                      lambda: (shoot("conflicts"), shoot_simulator(skills)))
        wait_then(lambda: expansion.view is not None, shot)

    def shoot_simulator(skills) -> None:
        """Three steps: a discovery, a folder git ignores (with its rule) and an activation."""
        snapshot = context.snapshot
        simulator = window.simulator
        window.tabs.setCurrentWidget(simulator)
        cwd = Path(snapshot.workspace.cwd)
        simulator.add_step("Read", cwd / "packages" / "api" / "src" / "server.ts")
        simulator.add_step("Read", cwd / "vendor" / "old-sdk" / "index.js")
        simulator.add_step("Edit", cwd / "db" / "migrations" / "001_init.sql")
        simulator.wait_idle()
        simulator.timeline.setCurrentRow(0)  # the discovery and the exact text the model received
        for folder in ("packages", "packages/api", "db", "db/migrations"):
            simulator.files.expand(simulator.proxy.mapFromSource(simulator.fs_model.index(str(cwd / folder))))

        def marked() -> bool:
            facts = simulator.proxy.facts
            return (str(cwd / "packages" / "api") in facts and str(cwd / "vendor") in facts
                    and str(cwd / "db" / "migrations" / "001_init.sql") in facts and simulator.suggestions.count() > 0)
        wait_then(marked, lambda: QTimer.singleShot(300, lambda: (shoot("simulator"), shoot_toggle(skills))))

    def shoot_chip_and_advanced() -> None:
        """The "Needs review" filter chip in use; then the Advanced panel open."""
        from skillmanager.core.rules.buckets import Bucket

        panel = window.registry_panel
        panel.choose_bucket(Bucket.NEEDS_REVIEW)
        shoot("needs-review")
        panel.choose_bucket(None)
        window.workspace_bar.show_advanced(True)
        shoot("advanced")
        window.workspace_bar.show_advanced(False)

    def shoot_toggle(skills) -> None:
        """The toggle control: a project skill, "off" chosen in local settings, the preview before Apply."""
        window.tabs.setCurrentWidget(window.skills_page)
        window.registry_panel.select_skill(skills["env-check"])
        box = window.detail.toggle
        box.choose("off", "local") if box.choice.findData("off") >= 0 else box.choose("hidden")
        for _ in range(5):
            app.processEvents()
        window.detail.grab().save(str(options.out / f"toggle{options.suffix}.png"))
        shoot_notice(skills)

    def wait_then(condition, then, tries: int = 400) -> None:
        if condition() or tries <= 0:
            then()
        else:
            QTimer.singleShot(50, lambda: wait_then(condition, then, tries - 1))

    def settled() -> bool:
        snap = context.snapshot
        return snap is not None and not context.scanning and not snap.partial and not context.tasks.busy("toggle-switch")

    def shoot_notice(skills) -> None:
        """The row switch turned env-check off: the notice with its Undo; then Edit > History."""
        from PySide6.QtCore import Qt

        from skillmanager.gui.engine import skill_identity
        from skillmanager.gui.models.registry_model import Column

        model = window.registry_panel.model
        index = model.index_for_identity(skill_identity(skills["env-check"])).siblingAtColumn(Column.State)
        model.setData(index, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)

        def after() -> None:
            shoot("notice")
            dialog = window.open_history()
            for _ in range(5):
                app.processEvents()
            dialog.grab().save(str(options.out / f"history{options.suffix}.png"))
            dialog.close()
            window.context.set_workspace(app_module.new_demo_workspace(profile=context.profile_name, budget=1800))
            wait_then(lambda: settled() and context.snapshot.remedy is not None, shoot_banner)
        wait_then(lambda: bool(window.toggles.history) and settled() and window.message_bar.isVisible(), after)

    def shoot_banner() -> None:
        shoot("budget-banner")
        window.context.set_workspace(_empty_home())
        wait_then(lambda: settled() and window.banner.isVisible(), lambda: (shoot("welcome"), shoot_install()))

    def _empty_home():
        from skillmanager.core.load.workspace import Workspace

        home = temp_dirs.register(tempfile.mkdtemp(prefix="skillmanager-empty-home-"))
        (home / "project").mkdir()
        return Workspace.create(home=home, cwd=home / "project", managed_root=None, env={"HOME": str(home)})

    def shoot_install() -> None:
        """The install preview of a shared skill that pre-approves every shell command (a high finding)."""
        source = temp_dirs.register(tempfile.mkdtemp(prefix="skillmanager-shots-src-")) / "release-train"
        source.mkdir()
        (source / "SKILL.md").write_text(
            "---\nname: release-train\ndescription: Cuts a release branch, bumps versions in every package and "
            "drafts the changelog from merged pull requests.\nwhen_to_use: When the user asks to prepare, cut or "
            "ship a release.\nallowed-tools: Bash\n---\n# Release train\n\nRun `scripts/bump.sh` for each "
            "package, then summarise.\n", encoding="utf-8")
        dialog = window.open_install(str(source))
        dialog.resize(900, 760)

        def wait() -> None:
            if dialog.preview is None:
                QTimer.singleShot(100, wait)
                return
            for _ in range(5):
                app.processEvents()
            dialog.grab().save(str(options.out / f"install-preview{options.suffix}.png"))
            dialog.reject()
            app.exit(0)

        wait()

    context.checks_changed.connect(run)
    QTimer.singleShot(60_000, lambda: app.exit(1))
    code = app.exec()
    app_module._shut_down(context, window)  # the demo copy is removed
    return 1 if errors else code


if __name__ == "__main__":
    raise SystemExit(main())
