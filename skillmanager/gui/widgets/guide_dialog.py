"""Help > Guide: a short guide and the legend of states (the words of docs/glossary.md)."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

from skillmanager.core.glossary import BADGE_LEGEND, GUIDE, STATE_LEGEND
from skillmanager.core.rules.buckets import Bucket
from skillmanager.gui import states


class GuideDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Guide and legend")
        self.resize(620, 560)
        self.browser = QTextBrowser(self)
        self.browser.setAccessibleName("Guide")
        rows = []
        for visual in states.Visual:
            word, sentence = STATE_LEGEND[visual.value]
            rows.append(f"<tr><td style='color:{states.colour(visual).name()}'><b>{html.escape(word)}</b></td>"
                        f"<td>{html.escape(sentence)}</td></tr>")
        guide = "".join(f"<p>{html.escape(p)}</p>" for p in GUIDE)
        badges = "".join(f"<tr><td style='color:{states.badge_text_colour(level).name()}'><b>{html.escape(word)}</b></td>"
                         f"<td>{html.escape(sentence)}</td></tr>" for level, (word, sentence) in BADGE_LEGEND.items())
        chips = "".join(f"<tr><td><b>{html.escape(b.word)}</b></td><td>{html.escape(b.meaning)}</td></tr>"
                        for b in Bucket)
        self.browser.setHtml(f"<h3>What you see</h3>{guide}<h3>States</h3><table cellspacing='6'>"
                             + "".join(rows) + "</table><h3>Checks</h3><table cellspacing='6'>" + badges
                             + "</table><h3>Filters</h3><table cellspacing='6'>" + chips + "</table>")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
