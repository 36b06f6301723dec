"""Preview tab: layer 1 (the exact listing + budget) beside layer 2 (the selected skill's expansion)."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (QCheckBox, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPlainTextEdit, QProgressBar, QPushButton, QSplitter, QStackedWidget, QTextBrowser,
                               QTextEdit, QVBoxLayout, QWidget)

from skillmanager.core.model import Skill
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot, expand_skill
from skillmanager.core.layers.listing_words import budget_notes, cut_reason_words


def monospace_font():
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def render_markdown(text: str) -> str:
    """Markdown → HTML with markdown-it-py (front matter blocks are recognised and left out)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(front_matter_plugin)
    return md.render(text)


MAX_CUTS_SHOWN = 300


def replace_text(editor: QPlainTextEdit, new: str) -> None:
    """Replace only the changed middle of the text: one edited entry must not re-lay out 5,000 lines."""
    old = editor.toPlainText()
    if old == new:
        return
    if not old or len(new) < 2000:
        editor.setPlainText(new)
        return
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    cursor = QTextCursor(editor.document())
    cursor.setPosition(start)
    cursor.setPosition(len(old) - end, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertText(new[start:len(new) - end])


class ListingView(QWidget):
    """Layer 1: what the model is sent at start-up, with the budget and every cut explained.
    The selected skill's entry is highlighted and scrolled into view; clicking an entry selects its skill."""

    skill_clicked = Signal(object)  # the Skill whose entry was clicked

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.heading = QLabel("<b>Listing</b> — the text Claude receives (layer 1)", self)
        self.meter = QProgressBar(self)
        self.meter.setTextVisible(False)  # the figures go in a label: text drawn on the bar can be hidden
        self.meter.setMaximumHeight(12)
        self.meter_text = QLabel(self)
        self.meter_label = QLabel(self)
        self.meter_label.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.cuts = QListWidget(self)
        self.cuts.setMaximumHeight(84)
        self.cuts.setWordWrap(True)  # the reason in plain words is long; wrap rather than scroll sideways
        self.cuts.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cuts.setToolTip("Entries the budget or the per-entry cap shortened, and why")
        self.cuts.currentRowChanged.connect(self._reveal_cut)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.meter_text)
        layout.addWidget(self.meter)
        layout.addWidget(self.meter_label)
        layout.addWidget(self.text, 1)
        layout.addWidget(QLabel("Cut or shortened entries:", self))
        layout.addWidget(self.cuts)
        self._cut_spans: list[tuple[int, int]] = []
        self._entry_spans: list[tuple[int, int, str]] = []  # (start, length, Skill.key) in listing order
        self._cut_selections: list = []
        self.current_key: str | None = None  # the entry highlighted for the selected skill
        self._shown_listing = None
        self.text.viewport().installEventFilter(self)  # a click on an entry selects its skill
        context.snapshot_changed.connect(self.apply_snapshot)
        context.selection_changed.connect(self.reveal_skill)

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        listing = snapshot.listing
        if listing is not None and listing is self._shown_listing:
            return  # a partial refresh: the rows changed, the listing follows in the next snapshot
        self._shown_listing = listing
        self.cuts.clear()
        self._cut_spans = []
        self._entry_spans = []
        if listing is None:
            why = snapshot.problems.get("listing") or snapshot.problems.get("registry") or "no workspace loaded"
            self.text.setPlainText("")
            self.meter.setRange(0, 1)
            self.meter.setValue(0)
            self.meter_text.setText("Budget: not available")
            self.meter_label.setText(f"Listing not available: {why}")
            return
        text = listing.text
        replace_text(self.text, text)
        totals = listing.totals
        budget, used = totals.budget, totals.used
        self.meter.setRange(0, max(budget, used, 1))
        self.meter.setValue(min(used, max(budget, used, 1)))
        self.meter_text.setText(f"<b>{used:,}</b> of {budget:,} characters of the listing budget"
                                + (" — <b>over budget</b>" if budget and used > budget else ""))
        if budget and used > budget:
            palette = self.meter.palette()
            palette.setColor(palette.ColorRole.Highlight, QColor("#d0453b"))
            self.meter.setPalette(palette)
        else:
            self.meter.setPalette(self.palette())
        self.meter_label.setText("; ".join(budget_notes(totals)))
        self._highlight_cuts(listing, text)

    def _highlight_cuts(self, listing, text: str) -> None:
        selections = []
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(214, 154, 28, 90))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        search_from = 0
        hidden_cuts = 0
        for entry in listing.entries:
            shown = entry.shown_text
            cut = entry.cut
            start = text.find(shown, search_from) if shown else -1
            if start >= 0:
                search_from = start + len(shown)
                if entry.key is not None:
                    self._entry_spans.append((start, len(shown), entry.key))
            if not cut:
                continue
            if len(self._cut_spans) >= MAX_CUTS_SHOWN:  # a huge registry: list the first ones, count the rest
                hidden_cuts += 1
                continue
            name, why, full = entry.name, entry.reasons, entry.full_text
            item = QListWidgetItem(f"{name} — {cut_reason_words(why)}")
            key = ", ".join(why)
            item.setToolTip((f"Sent: {shown}\n\nFull entry: {full}" if full else f"Sent: {shown}") + f"\n\n({key})")
            self.cuts.addItem(item)
            self._cut_spans.append((start, len(shown)))
            if start >= 0:
                selection = QTextEdit.ExtraSelection()
                cursor = QTextCursor(self.text.document())
                cursor.setPosition(start)
                cursor.setPosition(start + len(shown), QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selection.format = fmt
                selections.append(selection)
        self._cut_selections = selections
        self.text.setExtraSelections(selections)
        self.reveal_skill(self.context.selected_skill())
        if hidden_cuts:
            self.cuts.addItem(f"… and {hidden_cuts:,} more cut entries (not highlighted)")
        if not self._cut_spans:
            self.cuts.addItem("Nothing was cut: every entry is sent in full.")

    def entry_span(self, key: str | None) -> tuple[int, int] | None:
        for start, length, entry_key in self._entry_spans:
            if entry_key == key:
                return start, length
        return None

    def reveal_skill(self, skill: Skill | None) -> None:
        """Highlight the selected skill's entry and scroll it into view (nothing when it is not listed)."""
        key = skill.key if skill is not None else None
        span = self.entry_span(key)
        self.current_key = key if span is not None else None
        selections = list(self._cut_selections)
        if span is not None:
            start, length = span
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.text.document())
            cursor.setPosition(start)
            cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            highlight = QColor(self.palette().color(self.palette().ColorRole.Highlight))
            highlight.setAlpha(70)
            selection.format.setBackground(highlight)
            selections.append(selection)
            end = QTextCursor(self.text.document())
            end.setPosition(start + length)
            self.text.setTextCursor(end)  # the end, then the start: the whole entry comes into view
            self.text.ensureCursorVisible()
            end.setPosition(start)
            self.text.setTextCursor(end)
            self.text.ensureCursorVisible()
        self.text.setExtraSelections(selections)

    def key_at(self, position: int) -> str | None:
        for start, length, key in self._entry_spans:
            if start <= position <= start + length:
                return key
        return None

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        if (watched is self.text.viewport() and event.type() == QEvent.Type.MouseButtonRelease
                and event.button() == Qt.MouseButton.LeftButton and not self.text.textCursor().hasSelection()):
            self.select_at(self.text.cursorForPosition(event.position().toPoint()).position())
        return super().eventFilter(watched, event)

    def select_at(self, position: int) -> bool:
        """The entry at a text position selects its skill (a click on the listing)."""
        key = self.key_at(position)
        snapshot = self.context.snapshot
        if key is None or snapshot is None:
            return False
        skill = next((s for s in snapshot.skills if s.key == key), None)
        if skill is not None:
            self.skill_clicked.emit(skill)
        return skill is not None

    def _reveal_cut(self, row: int) -> None:
        if 0 <= row < len(self._cut_spans):
            start, length = self._cut_spans[row]
            if start >= 0:
                cursor = self.text.textCursor()
                cursor.setPosition(start)
                cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
                self.text.setTextCursor(cursor)
                self.text.ensureCursorVisible()


class ExpansionView(QWidget):
    """Layer 2: what invoking the selected skill injects, rendered or raw; shell only on request."""

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.skill: Skill | None = None
        self.result = None
        self.heading = QLabel("<b>Expansion</b> — what invoking the skill injects (layer 2)", self)
        self.args_edit = QLineEdit(self)
        self.args_edit.setPlaceholderText("Arguments, as typed after /name")
        self.args_edit.textChanged.connect(lambda _t: self.refresh())
        self.as_user = QCheckBox("Typed as /name", self)
        self.as_user.setToolTip("Expand as if you typed /name, instead of Claude calling the Skill tool")
        self.as_user.toggled.connect(lambda _c: self.refresh())
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.hide()
        self.raw_toggle = QCheckBox("Raw", self)
        self.raw_toggle.setToolTip("Show the exact text instead of rendered Markdown")
        self.raw_toggle.toggled.connect(self._show_mode)
        self.launch = QLabel(self)
        self.launch.setFont(monospace_font())
        self.launch.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rendered = QTextBrowser(self)
        self.rendered.setOpenExternalLinks(False)
        self.raw = QPlainTextEdit(self)
        self.raw.setReadOnly(True)
        self.raw.setFont(monospace_font())
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.rendered)
        self.stack.addWidget(self.raw)
        self.shell_box = QGroupBox("Inline shell — would run (nothing runs unless you press the button)", self)
        self.shell_list = QListWidget(self.shell_box)
        self.shell_list.setFont(monospace_font())
        self.shell_list.setMaximumHeight(90)
        self.run_button = QPushButton(self.shell_box)
        self.run_button.clicked.connect(self._run_shell)
        shell_layout = QVBoxLayout(self.shell_box)
        shell_layout.addWidget(self.shell_list)
        shell_layout.addWidget(self.run_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.shell_box.hide()
        top = QHBoxLayout()
        top.addWidget(self.args_edit, 1)
        top.addWidget(self.as_user)
        top.addWidget(self.raw_toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.launch)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.shell_box)
        context.selection_changed.connect(self.show_skill)
        context.snapshot_changed.connect(lambda _s: self.refresh())
        self.show_skill(None)

    def show_skill(self, skill: Skill | None) -> None:
        self.skill = skill
        self.refresh()

    def refresh(self) -> None:
        registry = self.context.registry
        skill = self.skill
        self.shell_box.hide()
        self.note.hide()
        if skill is None or registry is None:
            self.launch.setText("")
            self._set_text("Select a skill to see what invoking it would inject.", markdown=False)
            return
        args, as_user = self.args_edit.text(), self.as_user.isChecked()
        self.result = None  # until the worker answers for this skill and these arguments
        self.context.tasks.run(("expansion", id(self)),
                               lambda: expand_skill(registry, skill.name, args, as_user=as_user),
                               lambda result: self._show_result(skill, result), self._show_failure)

    def _show_failure(self, error: BaseException) -> None:
        self.result = None
        self.launch.setText("")
        self._set_text(f"Expansion not available: {error}", markdown=False)

    def _show_result(self, skill: Skill, result) -> None:
        """The engine's answer for `skill` (delivered on the UI thread by the task runner)."""
        self.result = result
        self.launch.setText(str(getattr(result, "launch_line", "") or ""))
        resolved = getattr(result, "skill", None)
        if getattr(result, "forked", False):
            first_line = str(getattr(result, "tool_result", "") or "").split("\n", 1)[0]
            self.launch.setText(first_line)
            self.note.setText("Runs in a sub-agent (context: fork): the text below is the sub-agent's prompt; the "
                              "conversation receives only the line above and the sub-agent's final answer.")
            self.note.show()
        elif resolved is not None and resolved is not skill:
            self.note.setText(f"Invoking “{skill.name}” runs the {resolved.source.label.lower()} copy: "
                              "the selected one is shadowed.")
            self.note.show()
        refusal = getattr(result, "refusal", None)
        if refusal:
            self._set_text(str(refusal), markdown=False)
            return
        block = getattr(result, "block", "") or ""
        self._set_text(block, markdown=True)
        snippets = list(getattr(result, "shell_snippets", []) or [])
        if snippets:
            self.shell_list.clear()
            for snippet in snippets:
                self.shell_list.addItem(f"$ {getattr(snippet, 'command', snippet)}")
            count = len(snippets)
            self.run_button.setText("Run this command" if count == 1 else f"Run these {count} commands")
            self.run_button.setEnabled(bool(getattr(result, "shell_allowed", True)))
            self.shell_box.show()

    def _set_text(self, text: str, markdown: bool) -> None:
        self.raw.setPlainText(text)
        if markdown:
            self.rendered.setHtml(render_markdown(text))
        else:
            self.rendered.setHtml(f"<p><i>{html.escape(text)}</i></p>")
        self._show_mode(self.raw_toggle.isChecked())

    def _show_mode(self, raw: bool) -> None:
        self.stack.setCurrentWidget(self.raw if raw else self.rendered)

    def _run_shell(self) -> None:
        if self.skill is None or self.context.registry is None:
            return
        self.run_button.setEnabled(False)
        self.run_button.setText("Running…")
        registry, name, args, as_user = (self.context.registry, self.skill.name, self.args_edit.text(),
                                         self.as_user.isChecked())
        self.context.tasks.run(("shell", id(self)),
                               lambda: expand_skill(registry, name, args, run_shell=True, as_user=as_user),
                               self._shell_done, self._shell_failed)

    def _shell_failed(self, error: BaseException) -> None:
        self.run_button.setEnabled(True)
        self.run_button.setText(f"Failed: {error}")

    def _shell_done(self, result) -> None:
        self.run_button.setEnabled(True)
        self.run_button.setText("Ran once — edit the arguments or reselect to preview again")
        block = getattr(result, "block", "") or ""
        self._set_text(block, markdown=True)


class PreviewPanel(QWidget):
    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.listing = ListingView(context, self)
        self.expansion = ExpansionView(context, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.listing)
        self.splitter.addWidget(self.expansion)
        self.splitter.setChildrenCollapsible(False)
        self._sized = False
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)

    def resizeEvent(self, event) -> None:  # side by side when there is room, stacked otherwise
        wide = event.size().width() >= 760
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if orientation != self.splitter.orientation() or not self._sized:
            self.splitter.setOrientation(orientation)
            # stacked, the expansion needs the larger share: its inline-shell box takes a fixed height
            total = event.size().width() if wide else event.size().height()
            self.splitter.setSizes([total // 2, total - total // 2] if wide else [total * 9 // 20, total * 11 // 20])
            self._sized = True
        super().resizeEvent(event)
