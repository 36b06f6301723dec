"""Centre region: the selected skill — its state in a sentence, then front matter, diagnostics, audit, path."""
from __future__ import annotations

import html
import json

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from skillmanager.core.model import Skill
from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import audit_skill, skill_identity
from skillmanager.gui.toggling import ToggleController
from skillmanager.gui.widgets.toggle_box import ToggleBox
from skillmanager.gui.wording import short_path, source_sentence, state_sentence

# Plain words for front-matter keys; the exact key is kept in the row's tooltip.
_KEY_WORDS = {
    "description": "Description",
    "when_to_use": "When to use",
    "disable-model-invocation": "Hidden from Claude",
    "user-invocable": "Offered as /command",
    "paths": "Activates for files",
    "argument-hint": "Argument hint",
    "arguments": "Named arguments",
    "allowed-tools": "Allowed tools",
    "model": "Model",
    "context": "Context",
}


class DetailPane(QWidget):
    def __init__(self, context: AppContext, parent=None, controller: ToggleController | None = None):
        super().__init__(parent)
        self.context = context
        self.controller = controller or ToggleController(context, self)
        self.toggle = ToggleBox(context, self.controller, self)
        self.skill: Skill | None = None
        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.sentence = QLabel(self)
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_link)
        self.open_folder = QPushButton("Open folder", self)
        self.open_editor = QPushButton("Open in editor", self)
        self.open_folder.clicked.connect(lambda: self._open(folder=True))
        self.open_editor.clicked.connect(lambda: self._open(folder=False))
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_folder)
        buttons.addWidget(self.open_editor)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.sentence)
        layout.addWidget(self.toggle)
        layout.addWidget(self.browser, 1)
        layout.addLayout(buttons)
        context.selection_changed.connect(self.show_skill)
        self.show_skill(None)

    def show_skill(self, skill: Skill | None) -> None:
        self.skill = skill
        has_path = bool(skill is not None and skill.path)
        self.open_folder.setEnabled(has_path)
        self.open_editor.setEnabled(has_path)
        if skill is None:
            self.title.setText("No skill selected")
            self.sentence.setText("Pick a skill on the left to see what Claude sees of it and why.")
            self.browser.setHtml("")
            self.toggle.show_skill(None)
            return
        snapshot = self.context.snapshot
        identity = skill_identity(skill)
        entry = snapshot.entries.get(identity) if snapshot else None
        tokens = snapshot.tokens.get(identity, 0) if snapshot else 0
        home = getattr(snapshot.workspace, "home", None) if snapshot else None
        visual = states.visual_state(skill, entry)
        self.title.setText(skill.name)
        colour = states.colour(visual).name()
        self.sentence.setText(f"<span style='color:{colour}'>●</span> "
                              f"{html.escape(state_sentence(skill, entry, tokens, home))}")
        self.browser.setHtml(self._details_html(skill, entry, tokens, home))
        self.toggle.show_skill(skill)

    def _details_html(self, skill: Skill, entry, tokens: int, home) -> str:
        rows = [("Source", html.escape(source_sentence(skill, home)), "")]
        state = skill.state
        winner = state.shadowed_by or state.duplicate_of
        if winner is not None:
            rows.append(("Winner", f"<a href='skill:{html.escape(json.dumps(list(skill_identity(winner))))}'>"
                                   f"{html.escape(winner.name)} ({html.escape(winner.source.label)})</a>", ""))
        for decision in state.decided_by:
            where = short_path(decision.file, home) if decision.file else decision.scope
            rows.append(("Decided by", html.escape(f"{decision.kind}: {decision.rule or decision.value} — {where}"),
                         decision.kind))
        parts = ["<h3>Front matter</h3><table cellspacing='4'>"]
        for label, value, tip in rows:
            parts.append(f"<tr><td title='{html.escape(tip)}'><b>{label}</b></td><td>{value}</td></tr>")
        for key, value in skill.front_matter.items():
            word = _KEY_WORDS.get(key, key)
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            parts.append(f"<tr><td title='{html.escape(key)}'><b>{html.escape(word)}</b></td>"
                         f"<td>{html.escape(text)}</td></tr>")
        if not skill.front_matter:
            parts.append("<tr><td colspan='2'><i>No front matter.</i></td></tr>")
        parts.append("</table>")
        if skill.description_from_body:
            parts.append("<p><i>No description in the front matter: Claude uses the first line of the body.</i></p>")
        parts.append("<h3>Diagnostics</h3>")
        if skill.diagnostics:
            parts.append("<ul>")
            for d in skill.diagnostics:
                line = f" (line {d.line})" if d.line else ""
                parts.append(f"<li><b>{d.severity.value}</b>: {html.escape(d.message)}{line}</li>")
            parts.append("</ul>")
        else:
            parts.append("<p>None.</p>")
        parts.append("<h3>Audit</h3>")
        findings, why = audit_skill(skill)
        if findings is None:
            parts.append(f"<p><i>Audit not available: {html.escape(why)}</i></p>")
        elif findings:
            parts.append("<ul>")
            for f in findings:
                severity = getattr(getattr(f, "severity", None), "value", getattr(f, "severity", ""))
                line = getattr(f, "line", None)
                where = f" (line {line})" if line else ""
                message = getattr(f, "message", str(f))
                parts.append(f"<li><b>{html.escape(str(severity))}</b>: {html.escape(str(message))}{where}</li>")
            parts.append("</ul>")
        else:
            parts.append("<p>No findings.</p>")
        parts.append("<h3>Files and size</h3><table cellspacing='4'>")
        if skill.path:
            parts.append(f"<tr><td><b>Path</b></td><td><code>{html.escape(str(skill.path))}</code></td></tr>")
        if skill.realpath and skill.path and str(skill.realpath) != str(skill.path):
            parts.append(f"<tr><td><b>Real path</b></td><td><code>{html.escape(str(skill.realpath))}</code></td></tr>")
        parts.append(f"<tr><td><b>File size</b></td><td>{skill.size_bytes:,} bytes</td></tr>")
        listed = f"≈{tokens} tokens" if entry is not None else "not in the start-up listing"
        parts.append(f"<tr><td><b>Listing entry</b></td><td>{listed}</td></tr>")
        body_tokens = _body_tokens(skill.body)
        if body_tokens is not None:
            parts.append(f"<tr><td><b>Body when invoked</b></td><td>≈{body_tokens} tokens</td></tr>")
        parts.append("</table>")
        return "".join(parts)

    def _on_link(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("skill:"):
            identity = tuple(json.loads(text[len("skill:"):]))
            window = self.window()
            if hasattr(window, "select_identity"):
                window.select_identity(identity)

    def _open(self, folder: bool) -> None:
        if self.skill is None or self.skill.path is None:
            return
        target = self.skill.path.parent if folder else self.skill.path
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(target)))


def _body_tokens(body: str) -> int | None:
    try:
        from skillmanager.core.tokens import count_tokens

        return count_tokens(body)
    except Exception:  # noqa: BLE001 - tokenizer data missing: the row is simply left out
        return None
