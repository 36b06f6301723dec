"""About: version, licences of the bundled data (resources/tokenizers/*.LICENSE) and of the libraries."""
from __future__ import annotations

import html
import importlib.metadata
import platform
import sys
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QTextBrowser, QVBoxLayout

from skillmanager import __version__
from skillmanager.core.resources import resource_path, resources_root
from skillmanager.gui import states

LIBRARIES = (
    ("PySide6 / Qt", "PySide6-Essentials", "LGPL-3.0 (Qt for Python and Qt)"),
    ("PyYAML", "PyYAML", "MIT"),
    ("pathspec", "pathspec", "MPL-2.0"),
    ("watchfiles", "watchfiles", "MIT"),
    ("tiktoken", "tiktoken", "MIT"),
    ("markdown-it-py", "markdown-it-py", "MIT"),
    ("mdit-py-plugins", "mdit-py-plugins", "MIT"),
)


def _installed(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "bundled"


def data_licences() -> list[tuple[str, str]]:
    """The tokenizer data's licences (resources/tokenizers/*.LICENSE), one (name, text) each."""
    folder = resource_path("tokenizers")
    if not folder.is_dir():
        return []
    return [(path.stem, path.read_text(encoding="utf-8", errors="replace"))
            for path in sorted(folder.glob("*.LICENSE"))]


def bundled_licences_folder() -> Path | None:
    """The `licenses/` folder a packaged (frozen) build ships next to its resources, if there is one."""
    folder = resources_root().parent / "licenses"
    return folder if getattr(sys, "frozen", False) and folder.is_dir() else None


def bundled_licences(folder: Path | None = None) -> list[tuple[str, str]]:
    """(file name, text) of every file in the bundled licences folder (empty when not frozen)."""
    folder = folder if folder is not None else bundled_licences_folder()
    if folder is None:
        return []
    out = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            out.append((path.relative_to(folder).as_posix(), path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return out


class AboutDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("About skillmanager")
        self.setWindowIcon(states.app_icon())
        header = QLabel(
            f"<h2>skillmanager {html.escape(__version__)}</h2>"
            "<p>See every Claude Code skill, which one wins, and exactly what the model is sent.</p>"
            f"<p>Python {platform.python_version()}, PySide6 {pyside_version}, Qt {qVersion()}</p>"
            "<p>The demo workspace (File → Open demo workspace, or <code>--demo</code>) is a temporary copy: "
            "edit and toggle freely — it is removed when you quit.</p>", self)
        header.setWordWrap(True)
        tabs = QTabWidget(self)
        libraries = QTextBrowser(self)
        rows = "".join(f"<tr><td>{html.escape(name)}</td><td>{html.escape(_installed(dist))}</td>"
                       f"<td>{html.escape(licence)}</td></tr>" for name, dist, licence in LIBRARIES)
        libraries.setHtml(f"<table cellspacing='6'><tr><th>Library</th><th>Version</th><th>Licence</th></tr>"
                          f"{rows}</table>")
        tabs.addTab(libraries, "Libraries")
        for name, text in data_licences():
            view = QTextBrowser(self)
            view.setPlainText(text)
            tabs.addTab(view, f"Data: {name}")
        self.add_licences_tab(tabs, bundled_licences())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(header)
        layout.addWidget(tabs, 1)
        layout.addWidget(buttons)
        self.resize(620, 480)

    def add_licences_tab(self, tabs: QTabWidget, licences: list[tuple[str, str]]) -> None:
        """One tab listing the packaged build's licences folder, each file in full."""
        if not licences:
            return
        view = QTextBrowser(self)
        parts = ["<p>Licences of everything bundled in this build (the <code>licenses</code> folder):</p><ul>"]
        parts += [f"<li><a href='#{i}'>{html.escape(name)}</a></li>" for i, (name, _t) in enumerate(licences)]
        parts.append("</ul>")
        for i, (name, text) in enumerate(licences):
            parts.append(f"<h3><a name='{i}'></a>{html.escape(name)}</h3><pre>{html.escape(text)}</pre>")
        view.setHtml("".join(parts))
        tabs.addTab(view, "Bundled licences")
