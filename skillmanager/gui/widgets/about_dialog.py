"""About: version, licences of the bundled data (resources/tokenizers/*.LICENSE) and of the libraries."""
from __future__ import annotations

import html
import importlib.metadata
import platform

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QTextBrowser, QVBoxLayout

from skillmanager import __version__
from skillmanager.core.resources import resource_path
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
    folder = resource_path("tokenizers")
    if not folder.is_dir():
        return []
    return [(path.stem, path.read_text(encoding="utf-8", errors="replace"))
            for path in sorted(folder.glob("*.LICENSE"))]


class AboutDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("About skillmanager")
        self.setWindowIcon(states.app_icon())
        header = QLabel(
            f"<h2>skillmanager {html.escape(__version__)}</h2>"
            "<p>See every Claude Code skill, which one wins, and exactly what the model is sent.</p>"
            f"<p>Python {platform.python_version()}, PySide6 {pyside_version}, Qt {qVersion()}</p>", self)
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
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(header)
        layout.addWidget(tabs, 1)
        layout.addWidget(buttons)
        self.resize(620, 480)
