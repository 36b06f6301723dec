"""Start the desktop app: `skillmanager` (no command), `skillmanager --demo`, `skillmanager --smoke-test`."""
from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from skillmanager import __version__
from skillmanager.gui import states, temp_dirs

ORGANISATION = "skillmanager"
APPLICATION = "skillmanager"
SMOKE_WATCHDOG_MS = 20_000


def _make_application(argv: list[str]) -> QApplication:
    app = QApplication.instance()
    if app is None:
        # Qt 6 scales for high-DPI screens by itself; keep fractional factors exact rather than rounded.
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(argv)
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationVersion(__version__)
    app.setApplicationDisplayName("skillmanager")
    app.setDesktopFileName("skillmanager")
    app.setWindowIcon(states.app_icon())
    _follow_colour_scheme(app)
    return app


def _follow_colour_scheme(app: QApplication) -> None:
    """Light or dark from the platform (Qt's style hints); SKILLMANAGER_COLOR_SCHEME=dark|light forces one."""
    forced = os.environ.get("SKILLMANAGER_COLOR_SCHEME", "").lower()
    hints = app.styleHints()
    if forced in ("dark", "light") and hasattr(hints, "setColorScheme"):
        hints.setColorScheme(Qt.ColorScheme.Dark if forced == "dark" else Qt.ColorScheme.Light)
    scheme = hints.colorScheme()
    dark = forced == "dark" or (forced != "light" and scheme is Qt.ColorScheme.Dark)
    if dark and app.palette().color(QPalette.ColorRole.Window).lightness() > 128:
        # The platform theme did not switch (e.g. offscreen/Xvfb): use Fusion's palette with dark colours.
        app.setStyle("Fusion")
        app.setPalette(dark_palette())


def dark_palette() -> QPalette:
    from PySide6.QtGui import QColor

    palette = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#2b2d30", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#26282b",
        QPalette.ColorRole.ToolTipBase: "#3c3f41", QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#35373a",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Highlight: "#2f65ca", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#6ea8fe", QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Mid: "#4a4d50", QPalette.ColorRole.Dark: "#202124", QPalette.ColorRole.Light: "#45484c",
    }
    for role, value in colours.items():
        palette.setColor(role, QColor(value))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7d82"))
    return palette


def _install_excepthook(exit_code_on_error: bool) -> list[str]:
    """Exceptions in Qt slots do not stop the event loop: record them; in smoke-test mode, exit 1."""
    errors: list[str] = []
    previous = sys.excepthook

    def hook(kind, value, tb):
        text = "".join(traceback.format_exception(kind, value, tb))
        errors.append(text)
        sys.stderr.write(text)
        if exit_code_on_error:
            app = QApplication.instance()
            if app is not None:
                app.exit(1)
        elif previous is not sys.__excepthook__:
            previous(kind, value, tb)

    sys.excepthook = hook
    return errors


def _settings(smoke_test: bool) -> QSettings:
    if smoke_test:  # never touch the user's saved state from a smoke test
        import tempfile

        folder = temp_dirs.register(tempfile.mkdtemp(prefix="skillmanager-smoke-"))
        return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    return QSettings()


def build_window(demo: bool, smoke_test: bool = False, settings: QSettings | None = None, watch: bool = True):
    from skillmanager.gui.context import AppContext
    from skillmanager.gui.engine import WorkspaceSpec
    from skillmanager.gui.main_window import MainWindow

    context = AppContext(settings or _settings(smoke_test))
    window = MainWindow(context, watch=watch)
    window.restore_state()
    if demo or smoke_test:
        open_new_demo(context)
    else:
        context.set_spec(_saved_spec(context.settings) or WorkspaceSpec(cwd=Path.cwd()))
    return context, window


def open_new_demo(context, **overrides) -> None:
    """Copy the demo on the task runner (a few hundred files and a `git init`), then show it."""
    context.status_message.emit("Copying the demo workspace…")
    context.tasks.run("demo", lambda: new_demo_workspace(**overrides), context.set_workspace,
                      lambda error: context.scan_failed.emit(f"the demo workspace could not be made: {error}"))


def new_demo_workspace(**overrides):
    """A fresh copy of the demo in the temp dir; the copy is removed when the app exits."""
    from skillmanager.core.demo import create_demo_workspace

    workspace = create_demo_workspace(**overrides)
    temp_dirs.register(workspace.demo_paths.root)
    return workspace


def _saved_spec(settings: QSettings):
    from skillmanager.core.versions.profiles import DEFAULT_PROFILE
    from skillmanager.gui.engine import WorkspaceSpec

    cwd = settings.value("workspace/cwd", "")
    if not cwd or not Path(str(cwd)).is_dir():
        return None
    home = settings.value("workspace/home", "") or None
    as_list = lambda v: [Path(str(p)) for p in ([v] if isinstance(v, str) else (v or [])) if p]  # noqa: E731
    return WorkspaceSpec(cwd=Path(str(cwd)), home=Path(str(home)) if home else None,
                         profile=str(settings.value("workspace/profile", DEFAULT_PROFILE) or DEFAULT_PROFILE),
                         claude_version=str(settings.value("workspace/claude_version", "") or "") or None,
                         model=str(settings.value("workspace/model", "") or "") or None,
                         add_dirs=as_list(settings.value("workspace/add_dirs", [])),
                         plugin_dirs=as_list(settings.value("workspace/plugin_dirs", [])))


def main(demo: bool = False, smoke_test: bool = False) -> int:
    if smoke_test and not os.environ.get("QT_QPA_PLATFORM") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = _make_application(sys.argv[:1])
    errors = _install_excepthook(exit_code_on_error=smoke_test)
    from skillmanager.gui.problems import install_logged_problems

    install_logged_problems()  # the skillmanager logger's warnings become Problems rows
    if smoke_test:
        return _smoke_test(app, errors)
    context, window = build_window(demo)
    window.show()
    try:
        return app.exec()
    finally:
        _shut_down(context, window)


def _shut_down(context, window) -> None:
    """Quitting: stop the watcher, let running scans stop (they emit nothing more), then remove the
    temp folders we made (the demo copy is scratch space, as the status bar and About say)."""
    if window.watcher is not None:
        window.watcher.stop()
    context.shutdown(10_000)
    window.close()  # saves the window state…
    context.settings.sync()  # …now, so that nothing rewrites a removed settings folder later
    temp_dirs.remove_all()


def _smoke_test(app: QApplication, errors: list[str]) -> int:
    """Main window on the demo, the listing rendered, one expansion rendered, a grab; 0 or 1, never hangs."""
    context, window = build_window(demo=True, smoke_test=True, watch=False)
    window.show()
    outcome = {"code": 1, "why": "timed out"}

    def watchdog() -> None:
        sys.stderr.write("smoke test: watchdog fired (no result within 20 s)\n")
        app.exit(1)

    def finish(snapshot) -> None:
        listing_text = window.preview.listing.text.toPlainText()
        if not listing_text.strip():
            raise RuntimeError(f"the listing is empty ({'; '.join(snapshot.problems.values())})")
        skill = next((s for s in snapshot.skills if s.state.is_winner and s.path is not None), None)
        if skill is None:
            raise RuntimeError("the demo has no skill to expand")
        window.registry_panel.select_skill(skill)
        poll.timeout.connect(lambda: expanded(snapshot, skill, listing_text))
        poll.start(20)  # the expansion is computed on a worker thread

    def expanded(snapshot, skill, listing_text: str) -> None:
        expansion = window.preview.expansion
        if expansion.result is None:
            return
        poll.stop()
        image = window.grab()
        if image.isNull():
            raise RuntimeError("grabbing the window failed")
        outcome.update(code=0, why="")
        print(f"smoke test: ok — {len(snapshot.skills)} skills, listing {len(listing_text)} chars, "
              f"expanded {skill.name}, window {image.width()}x{image.height()}")
        app.exit(0)

    poll = QTimer()
    context.snapshot_changed.connect(finish)
    context.scan_failed.connect(lambda message: (sys.stderr.write(f"smoke test: scan failed: {message}\n"),
                                                 app.exit(1)))
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(watchdog)
    timer.start(SMOKE_WATCHDOG_MS)
    code = app.exec()
    timer.stop()
    _shut_down(context, window)
    if errors:
        return 1
    return code or outcome["code"]
