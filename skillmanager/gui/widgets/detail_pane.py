"""Centre region: the selected skill — its state in a sentence, then front matter, diagnostics, audit, path."""
from __future__ import annotations

import html
import json
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from skillmanager.core.model import Severity, Skill
from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import skill_identity
from skillmanager.gui.toggling import ToggleController
from skillmanager.gui.widgets.toggle_box import ToggleBox
from skillmanager.gui.wording import short_path, source_sentence, state_sentence
from skillmanager.gui.plural import counted

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
        self.problem = None  # a core Diagnostic from the Problems group, shown instead of a skill
        self._body_tokens: dict[tuple, int | None] = {}  # (identity, content key) -> tokens of the body
        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title.setFont(font)
        self.badge = QLabel(self)  # the audit / lint badge, as in the tree's Checks column
        self.badge.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.badge.setWordWrap(True)
        self.badge.hide()
        self.simulated = QLabel(self)  # what the simulator's session did to this skill, marked as simulated
        self.simulated.setWordWrap(True)
        self.simulated.hide()
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
        self.reveal_button = QPushButton("Reveal hidden characters", self)
        self.reveal_button.setCheckable(True)
        self.reveal_button.setToolTip("Show the file with invisible and direction-changing characters made visible")
        self.reveal_button.toggled.connect(self._show_revealed)
        self.reveal_button.hide()
        self.revealed = QPlainTextEdit(self)
        self.revealed.setReadOnly(True)
        self.revealed.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.revealed.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_folder)
        buttons.addWidget(self.open_editor)
        buttons.addWidget(self.reveal_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.sentence)
        layout.addWidget(self.simulated)
        layout.addWidget(self.badge)
        layout.addWidget(self.toggle)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.revealed, 1)
        layout.addLayout(buttons)
        context.selection_changed.connect(self.show_skill)
        context.snapshot_changed.connect(self._recheck_problem)
        context.rows_changed.connect(lambda snapshot, _delta: self._recheck_problem(snapshot))
        context.checks_changed.connect(self._on_checks)
        context.simulation_changed.connect(self._on_checks)
        self.show_skill(None)

    def _on_checks(self, _results) -> None:
        if self.skill is not None:
            self.show_skill(self.skill)  # the audit / lint of the shown skill may have arrived

    def _show_revealed(self, on: bool) -> None:
        self.revealed.setVisible(on)
        if not on or self.skill is None or self.skill.path is None:
            return
        path = self.skill.path

        def reveal() -> str:
            from skillmanager.core.checks.audit import reveal_hidden
            from skillmanager.core.load.safe_read import read_text_file

            read = read_text_file(path)
            text = read.text if read.text is not None else "; ".join(d.message for d in read.diagnostics)
            return reveal_hidden(text)

        def show(text: str) -> None:
            if self.skill is not None and self.skill.path == path:
                self.revealed.setPlainText(text)

        self.revealed.setPlainText("Reading…")
        self.context.tasks.run(("reveal-hidden", id(self)), reveal, show)

    def show_skill(self, skill: Skill | None) -> None:
        if skill is not self.skill or skill is None:
            self.reveal_button.setChecked(False)
        self.skill = skill
        self.problem = None
        self.toggle.show()
        self.open_editor.setText("Open in editor")
        has_path = bool(skill is not None and skill.path)
        self.open_folder.setEnabled(has_path)
        self.open_editor.setEnabled(has_path)
        if skill is None:
            self.title.setText("No skill selected")
            self.sentence.setText("Pick a skill on the left to see what Claude sees of it and why.")
            self.browser.setHtml(self._overview_html())
            self.toggle.show_skill(None)
            self.toggle.hide()  # an empty, disabled form says nothing: the overview takes the room
            self._show_badge(None)
            self.simulated.hide()
            self.reveal_button.hide()
            return
        snapshot = self.context.snapshot
        identity = skill_identity(skill)
        entry = snapshot.entries.get(identity) if snapshot else None
        tokens = snapshot.tokens.get(identity, 0) if snapshot else 0
        home = getattr(snapshot.workspace, "home", None) if snapshot else None
        outcome = snapshot.outcomes.get(identity) if snapshot else None
        visual = states.visual_state(skill, entry, outcome)
        self.title.setText(skill.name)
        colour = states.colour(visual).name()
        self.sentence.setText(f"<span style='color:{colour}'>●</span> "
                              f"{html.escape(state_sentence(skill, entry, tokens, home, outcome))}")
        added = self.context.simulated_addition(skill)
        self.simulated.setVisible(added is not None)
        if added is not None:
            self.simulated.setText(f"<i>Simulated session:</i> {html.escape(added.detail)}"
                                   + (f", offered as <b>{html.escape(added.name)}</b>" if added.name != skill.name else "")
                                   + ". A fresh start does not have this.")
        checks = self.context.checks_for(skill)
        self._show_badge(checks)
        self.reveal_button.setVisible(bool(checks is not None and checks.hidden_unicode))
        if self.reveal_button.isChecked():
            self._show_revealed(True)
        self._render_details()
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
            if isinstance(value, str):
                text = value
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                text = ", ".join(value)  # a list of patterns or tools reads better without JSON brackets
            else:
                text = json.dumps(value, ensure_ascii=False, default=str)
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
        parts.extend(self._checks_html(skill))
        parts.append("<h3>Files and size</h3><table cellspacing='4'>")
        if skill.path:
            parts.append(f"<tr><td><b>Path</b></td><td><code>{html.escape(str(skill.path))}</code></td></tr>")
        if skill.realpath and skill.path and str(skill.realpath) != str(skill.path):
            parts.append(f"<tr><td><b>Real path</b></td><td><code>{html.escape(str(skill.realpath))}</code></td></tr>")
        parts.append(f"<tr><td><b>File size</b></td><td>{skill.size_bytes:,} bytes</td></tr>")
        listed = f"≈{tokens} tokens" if entry is not None else "not in the start-up listing"
        parts.append(f"<tr><td><b>Listing entry</b></td><td>{listed}</td></tr>")
        body_tokens = self._body_tokens_of(skill)
        if body_tokens is not None:
            parts.append(f"<tr><td><b>Body when invoked</b></td><td>{body_tokens}</td></tr>")
        parts.append("</table>")
        return "".join(parts)

    def _body_tokens_of(self, skill: Skill) -> str | None:
        """The body's token count in words; the body is read and counted on the task runner, then the details
        are shown again (a skill is re-counted when its file changed)."""
        key = (skill_identity(skill), skill.content_key)
        if key in self._body_tokens:
            count = self._body_tokens[key]
            return f"≈{count} tokens" if count is not None else None

        def counted_body(count) -> None:
            if len(self._body_tokens) > 500:
                self._body_tokens.clear()
            self._body_tokens[key] = count
            if self.skill is skill and self.problem is None:
                self._render_details()

        self.context.tasks.run(("body-tokens", id(self)), lambda: _body_tokens(skill.body), counted_body)
        return "counting…"

    def _render_details(self) -> None:
        skill, snapshot = self.skill, self.context.snapshot
        if skill is None:
            return
        identity = skill_identity(skill)
        entry = snapshot.entries.get(identity) if snapshot else None
        tokens = snapshot.tokens.get(identity, 0) if snapshot else 0
        home = getattr(snapshot.workspace, "home", None) if snapshot else None
        scroll = self.browser.verticalScrollBar().value()
        self.browser.setHtml(self._details_html(skill, entry, tokens, home))
        self.browser.verticalScrollBar().setValue(scroll)  # a refresh of the same skill keeps the place

    def _show_badge(self, checks) -> None:
        if checks is None or checks.badge is None:
            self.badge.hide()
            return
        colour = states.badge_colour(checks.badge).name()
        count = checks.count
        self.badge.setText(f"<span style='color:{colour}'>▲</span> <b>{states.BADGE_WORDS[checks.badge]}</b> — "
                           f"{counted(count, 'audit or lint finding')}, listed below")
        self.badge.setToolTip(states.badge_tooltip(checks))
        self.badge.show()

    def _checks_html(self, skill: Skill) -> list[str]:
        """Audit findings and Claude Code lint, from the checks computed off the UI thread."""
        parts = ["<h3>Security audit</h3>"]
        checks = self.context.checks_for(skill)
        if skill.path is None:
            return parts + ["<p><i>Not audited: this skill has no file of its own (built in).</i></p>"]
        if checks is None:
            return parts + ["<p><i>Checking…</i></p>"]
        base = skill.path.parent

        def where(path, line) -> str:
            try:
                name = Path(path).relative_to(base).as_posix()
            except ValueError:
                name = Path(path).name
            return f"{name}:{line}" if line else name

        if checks.findings:
            parts.append("<ul>")
            for f in checks.findings:
                evidence = f"<br><code>{html.escape(f.evidence)}</code>" if f.evidence else ""
                parts.append(f"<li><b>{html.escape(f.severity)}</b> — {html.escape(f.message)} "
                             f"<span title='{html.escape(f.rule_id)} {html.escape(f.rule)}'>"
                             f"({html.escape(where(f.file, f.line))})</span>{evidence}</li>")
            parts.append("</ul>")
        else:
            parts.append("<p>No findings.</p>")
        if checks.hidden_unicode:
            parts.append("<p>This skill contains hidden characters: press <b>Reveal hidden characters</b> "
                         "below to see them.</p>")
        for note in checks.notes:
            parts.append(f"<p><i>{html.escape(note)}</i></p>")
        parts.append("<h3>Claude Code lint</h3>")
        if checks.lint:
            parts.append("<ul>")
            for d in checks.lint:
                line = f" (line {d.line})" if d.line else ""
                parts.append(f"<li title='{html.escape(d.code)}'><b>{d.severity.value}</b>: "
                             f"{html.escape(d.message)}{line}</li>")
            parts.append("</ul>")
        else:
            parts.append("<p>No findings" + (" beyond the diagnostics above" if skill.diagnostics else "") + ".</p>")
        return parts

    def set_counts(self, counts: dict) -> None:
        """The filter chips' counts ({Bucket: n}, decided by core): the overview shown while no skill is picked."""
        self.counts = dict(counts)
        if self.skill is None and self.problem is None:
            self.browser.setHtml(self._overview_html())

    def _overview_html(self) -> str:
        """With no skill picked: what needs attention first (each a link to its filter), then the legend."""
        from skillmanager.core.glossary import OVERVIEW_ATTENTION, OVERVIEW_CALM, OVERVIEW_LEGEND, STATE_LEGEND
        from skillmanager.core.rules.buckets import Bucket

        counts = getattr(self, "counts", {})
        attention = [b for b in (Bucket.NEEDS_REVIEW, Bucket.SHORTENED, Bucket.CONFLICTS) if counts.get(b)]
        if attention:
            items = "".join(f"<li><a href='bucket:{b.value}'>{html.escape(b.word)}: {counts[b]:,}</a> — "
                            f"{html.escape(b.meaning)}</li>" for b in attention)
            parts = [f"<h3>{html.escape(OVERVIEW_ATTENTION)}</h3><ul>{items}</ul>"]
        elif counts:
            parts = [f"<h3>{html.escape(OVERVIEW_CALM[0])}</h3><p>{html.escape(OVERVIEW_CALM[1])}</p>"]
        else:
            parts = []
        rows = "".join(f"<tr><td style='color:{states.colour(v).name()}'><b>{html.escape(STATE_LEGEND[v.value][0])}"
                       f"</b></td><td>{html.escape(STATE_LEGEND[v.value][1])}</td></tr>" for v in states.Visual)
        parts.append(f"<h3>{html.escape(OVERVIEW_LEGEND)}</h3><table cellspacing='4'>{rows}</table>")
        return "".join(parts)

    def _on_link(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("bucket:"):
            from skillmanager.core.rules.buckets import Bucket

            window = self.window()
            if hasattr(window, "registry_panel"):
                window.registry_panel.choose_bucket(Bucket(text[len("bucket:"):]))
            return
        if text.startswith("skill:"):
            identity = tuple(json.loads(text[len("skill:"):]))
            window = self.window()
            if hasattr(window, "select_identity"):
                window.select_identity(identity)

    def _open(self, folder: bool) -> None:
        path = self.problem.path if self.problem is not None else (self.skill.path if self.skill else None)
        if path is None:
            return
        path = Path(path)
        target = path if path.is_dir() else (path.parent if folder else path)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(target)))

    # --- a workspace problem (the Problems group) ----------------------------------------------
    def _recheck_problem(self, snapshot) -> None:
        """A rescan: a problem that was fixed on disk leaves the pane (the same one stays shown)."""
        if self.problem is None:
            return
        from skillmanager.gui.problems import problem_keys, workspace_problems

        found = workspace_problems(snapshot)
        shown = problem_keys([self.problem])[0]
        if shown not in problem_keys(found):
            self.show_skill(None)

    def show_problem(self, diagnostic) -> None:
        """Show a workspace diagnostic: plain message first, then where and what Claude Code does."""
        if diagnostic is None:
            if self.problem is not None:
                self.show_skill(None)
            return
        from skillmanager.gui import problems as words

        self.show_skill(None)
        self.problem = diagnostic
        snapshot = self.context.snapshot
        home = getattr(snapshot.workspace, "home", None) if snapshot else None
        cwd = getattr(snapshot.workspace, "cwd", None) if snapshot else None
        self.toggle.hide()  # nothing to turn on or off here
        path = Path(diagnostic.path) if diagnostic.path else None
        is_dir = bool(path is not None and path.is_dir())
        self.open_folder.setEnabled(path is not None)
        self.open_editor.setEnabled(path is not None and not is_dir)
        self.open_editor.setText("Open in editor")
        self.title.setText(f"{words.severity_word(diagnostic)} in {path.name}" if path is not None
                           else words.severity_word(diagnostic))
        colour = {Severity.ERROR: "#d0453b", Severity.WARNING: "#c98a00"}.get(diagnostic.severity, "#3a7bd5")
        self.sentence.setText(f"<span style='color:{colour}'>●</span> {html.escape(words.plain_message(diagnostic))}")
        rows = []
        if path is not None:
            rows.append(("File", f"<code>{html.escape(words.location(diagnostic, home, cwd))}</code>", ""))
            if diagnostic.line:
                rows.append(("Line", str(diagnostic.line), ""))
        rows.append(("Kind", html.escape(words.severity_word(diagnostic)), ""))
        rows.append(("Code", f"<code>{html.escape(diagnostic.code)}</code>", "A stable id, as in the CLI's JSON"))
        parts = ["<h3>Problem</h3><table cellspacing='4'>"]
        for label, value, tip in rows:
            parts.append(f"<tr><td title='{html.escape(tip)}'><b>{label}</b></td><td>{value}</td></tr>")
        parts.append("</table>")
        parts.append(f"<p>{html.escape(diagnostic.message)}</p>")
        parts.append("<p><i>Fix the file and save it: this list updates by itself.</i></p>")
        self.browser.setHtml("".join(parts))


def _body_tokens(body: str) -> int | None:
    try:
        from skillmanager.core.layers.tokens import count_tokens

        return count_tokens(body)
    except Exception:  # noqa: BLE001 - tokenizer data missing: the row is simply left out
        return None
