"""Listing & expansion page: layer 1 (the exact listing + budget) beside layer 2 (a skill's expansion)."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFrame, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPlainTextEdit, QProgressBar, QPushButton, QSplitter, QStackedWidget,
                               QTextBrowser, QTextEdit, QToolButton, QVBoxLayout, QWidget)

from skillmanager.core.model import Skill
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot, expand_skill, skill_identity
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


def replace_text(editor: QPlainTextEdit, new: str) -> tuple[int, int] | None:
    """Replace only the changed middle of the text: one edited entry must not re-lay out 5,000 lines.
    Returns the replaced part of the new text, (start, end) (None: unchanged); the text on either side is
    the same characters as before (cursors there keep marking them)."""
    old = editor.toPlainText()
    if old == new:
        return None
    if not old or len(new) < 2000:
        editor.setPlainText(new)
        return 0, len(new)
    limit = min(len(old), len(new))
    start = _common_length(old, new, limit, forward=True)
    end = _common_length(old, new, limit - start, forward=False)
    cursor = QTextCursor(editor.document())
    cursor.setPosition(start)
    cursor.setPosition(len(old) - end, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertText(new[start:len(new) - end])
    return start, len(new) - end


def _common_length(old: str, new: str, limit: int, forward: bool) -> int:
    """How many characters `old` and `new` share at their start (or end), up to `limit`: compared a block at
    a time (a character loop over a 150 KB listing took ~10 ms), then halved within the first block that
    differs."""
    def same(a: int, b: int) -> bool:  # the characters a..b from the start (or from the end) are equal
        if forward:
            return old[a:b] == new[a:b]
        return old[len(old) - b:len(old) - a] == new[len(new) - b:len(new) - a]

    done, block = 0, 4096
    while done < limit:
        step = min(block, limit - done)
        if not same(done, done + step):
            low, high = done, done + step  # equal up to low, a difference before high
            while high - low > 1:
                middle = (low + high) // 2
                if same(low, middle):
                    low = middle
                else:
                    high = middle
            return low
        done += step
    return limit


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
        self._entry_spans: list[tuple[int, int, str]] | None = []  # see _spans
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
        self._cut_spans = []
        self._entry_spans = None  # worked out when first asked for (a click, the selected skill's entry)
        if listing is None:
            self.cuts.clear()
            self._cuts_shown = None
            why = snapshot.problems.get("listing") or snapshot.problems.get("registry") or "no workspace loaded"
            self.text.setPlainText("")
            self.meter.setRange(0, 1)
            self.meter.setValue(0)
            self.meter_text.setText("Budget: not available")
            self.meter_label.setText(f"Listing not available: {why}")
            return
        text = listing.text
        replaced = replace_text(self.text, text)
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
        self._highlight_cuts(listing, text, replaced)

    _cuts_shown: list | None = None  # what the cut list shows: (name, reasons, texts, found in the text) per cut

    def _highlight_cuts(self, listing, text: str, replaced: tuple[int, int] | None = (0, 1 << 62)) -> None:
        """The cut list and the cut entries' highlights. `replaced`: the part of the text just replaced (None:
        nothing); a highlight clear of it still marks the same characters (Qt moves its cursors along)."""
        search_from = 0
        hidden_cuts = 0
        cuts = []
        for at, entry in enumerate(listing.entries):
            shown = entry.shown_text
            start = text.find(shown, search_from) if shown else -1
            if start >= 0:
                search_from = start + len(shown)
            if not entry.cut:
                continue
            if len(self._cut_spans) >= MAX_CUTS_SHOWN:  # a huge registry: list the first ones, count the rest
                hidden_cuts = sum(1 for later in listing.entries[at:] if later.cut)
                break
            self._cut_spans.append((start, len(shown)))
            cuts.append((entry.name, tuple(entry.reasons), shown, entry.full_text, start >= 0))
        cuts.append(hidden_cuts)
        touched = replaced is not None and any(
            found and start <= replaced[1] and start + length >= replaced[0]
            for (start, length), (_n, _w, _s, _f, found) in zip(self._cut_spans, cuts))
        if cuts != self._cuts_shown or touched:  # else an edit left the list and its highlights as they were
            self._cuts_shown = cuts
            self._show_cuts(cuts[:-1], self._cut_spans, hidden_cuts)
        self.reveal_skill(self.context.selected_skill())

    def _show_cuts(self, cuts: list, spans: list[tuple[int, int]], hidden_cuts: int) -> None:
        self.cuts.clear()
        selections = []
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(214, 154, 28, 90))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        for (name, why, shown, full, found), (start, length) in zip(cuts, spans):
            item = QListWidgetItem(f"{name} — {cut_reason_words(list(why))}")
            key = ", ".join(why)
            item.setToolTip((f"Sent: {shown}\n\nFull entry: {full}" if full else f"Sent: {shown}") + f"\n\n({key})")
            self.cuts.addItem(item)
            if found:
                selection = QTextEdit.ExtraSelection()
                cursor = QTextCursor(self.text.document())
                cursor.setPosition(start)
                cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
                selection.cursor = cursor
                selection.format = fmt
                selections.append(selection)
        self._cut_selections = selections
        self.text.setExtraSelections(selections)
        if hidden_cuts:
            self.cuts.addItem(f"… and {hidden_cuts:,} more cut entries (not highlighted)")
        if not cuts:
            self.cuts.addItem("Nothing was cut: every entry is sent in full.")
        # as tall as its lines, up to four: the listing text keeps the room on short windows
        rows = min(self.cuts.count(), 4)
        self.cuts.setFixedHeight(rows * self.cuts.sizeHintForRow(0) + 2 * self.cuts.frameWidth() + 4)

    def _spans(self) -> list[tuple[int, int, str]]:
        """(start, length, Skill.key) of every entry in the shown text, in listing order."""
        if self._entry_spans is None:
            self._entry_spans = []
            listing = self._shown_listing
            text = listing.text if listing is not None else ""  # what replace_text made the shown text
            search_from = 0
            for entry in listing.entries if listing is not None else ():
                shown = entry.shown_text
                start = text.find(shown, search_from) if shown else -1
                if start >= 0:
                    search_from = start + len(shown)
                    if entry.key is not None:
                        self._entry_spans.append((start, len(shown), entry.key))
        return self._entry_spans

    def entry_span(self, key: str | None) -> tuple[int, int] | None:
        if key is None:
            return None
        for start, length, entry_key in self._spans():
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
        for start, length, key in self._spans():
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
    """Layer 2: the skill's body as invoking it would inject it (core.layers.expansion_view), with a plain
    banner when Claude Code would refuse the model's call or ask first; shell commands folded, run only on request."""

    pick_requested = Signal(object)  # a skill picked in the combo box (the window selects it in the tree)

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.skill: Skill | None = None
        self.result = None  # the expansion.ExpansionResult the body came from
        self.view = None  # core expansion_view.ExpansionView
        self.heading = QLabel("<b>Expansion</b> — what invoking the skill injects (layer 2)", self)
        self.picker = QComboBox(self)
        self.picker.setToolTip("The skill to expand (the same selection as the Skills page)")
        self.picker.setMinimumContentsLength(16)
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.activated.connect(self._picked)
        self._picker_identities: list[tuple] = []  # the picker's rows (skill identities), in order
        self.args_edit = QLineEdit(self)
        self.args_edit.setPlaceholderText("Arguments, as typed after /name")
        self.args_edit.textChanged.connect(lambda _t: self.refresh())
        self.banner = QFrame(self)
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.banner.setAutoFillBackground(True)
        self.banner_text = QLabel(self.banner)
        self.banner_text.setWordWrap(True)
        self.refusal_button = QPushButton("Show Claude Code's exact answer", self.banner)
        self.refusal_button.setCheckable(True)
        self.refusal_button.toggled.connect(self._show_refusal)
        self.refusal_text = QPlainTextEdit(self.banner)
        self.refusal_text.setReadOnly(True)
        self.refusal_text.setFont(monospace_font())
        self.refusal_text.setMaximumHeight(70)
        self.refusal_text.hide()
        banner_layout = QVBoxLayout(self.banner)
        banner_layout.setContentsMargins(6, 4, 6, 4)
        banner_row = QHBoxLayout()
        banner_row.addWidget(self.banner_text, 1)
        banner_row.addWidget(self.refusal_button, 0, Qt.AlignmentFlag.AlignTop)
        banner_layout.addLayout(banner_row)
        banner_layout.addWidget(self.refusal_text)
        self.banner.hide()
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
        # folded: one line with the count and the worst verdict; unfolded: each command with its verdict
        self.shell_box = QWidget(self)
        self.shell_toggle = QToolButton(self.shell_box)
        self.shell_toggle.setCheckable(True)
        self.shell_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.shell_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.shell_toggle.setAutoRaise(True)
        self.shell_toggle.toggled.connect(self._fold_shell)
        self.shell_list = QListWidget(self.shell_box)
        self.shell_list.setAccessibleName("Inline shell commands and their audit verdicts")
        self.shell_list.setWordWrap(True)
        self.shell_list.setMaximumHeight(110)
        self.run_button = QPushButton(self.shell_box)
        self.run_button.setToolTip("Runs the commands on your machine, in the project folder, once")
        self.run_button.clicked.connect(self._run_shell)
        shell_layout = QVBoxLayout(self.shell_box)
        shell_layout.setContentsMargins(0, 0, 0, 0)
        shell_row = QHBoxLayout()
        shell_row.addWidget(self.shell_toggle)
        shell_row.addStretch(1)
        shell_row.addWidget(self.run_button)
        shell_layout.addLayout(shell_row)
        shell_layout.addWidget(self.shell_list)
        self.shell_list.hide()
        self.shell_box.hide()
        top = QHBoxLayout()
        top.addWidget(self.picker)
        top.addWidget(self.args_edit, 1)
        top.addWidget(self.raw_toggle)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addLayout(top)
        layout.addWidget(self.banner)
        layout.addWidget(self.note)
        layout.addWidget(self.launch)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.shell_box)
        context.selection_changed.connect(self.show_skill)
        context.snapshot_changed.connect(self._on_snapshot)
        self.show_skill(None)

    # --- the skill picker ----------------------------------------------------------------------
    def _on_snapshot(self, snapshot: Snapshot) -> None:
        # a refresh that kept every row (changed_rows) keeps the picker's names and identities
        if not snapshot.partial and snapshot.changed_rows is None:
            self.picker.blockSignals(True)
            self.picker.clear()
            self._picker_identities = []
            for skill in snapshot.skills:
                if skill.path is not None:
                    self.picker.addItem(f"{skill.name} ({skill.source.label.lower()})", len(self._picker_identities))
                    self._picker_identities.append(skill_identity(skill))
            self._sync_picker()
            self.picker.blockSignals(False)
        self.refresh()

    def _sync_picker(self) -> None:
        identity = skill_identity(self.skill) if self.skill is not None else None
        index = self._picker_identities.index(identity) if identity in self._picker_identities else -1
        self.picker.blockSignals(True)
        self.picker.setCurrentIndex(index)
        self.picker.blockSignals(False)

    def _picked(self, index: int) -> None:
        snapshot = self.context.snapshot
        identity = self._picker_identities[index] if 0 <= index < len(self._picker_identities) else None
        skill = snapshot.find(identity) if snapshot is not None and identity is not None else None
        if skill is not None:
            self.pick_requested.emit(skill)

    # --- the expansion -------------------------------------------------------------------------
    def show_skill(self, skill: Skill | None) -> None:
        self.skill = skill
        hint = str((skill.front_matter or {}).get("argument-hint") or "") if skill is not None else ""
        self.args_edit.setPlaceholderText(f"Arguments: {hint}" if hint else "Arguments, as typed after /name")
        self._sync_picker()
        self.refresh()

    def refresh(self) -> None:
        registry = self.context.registry
        skill = self.skill
        if skill is None or registry is None:
            self.shell_box.hide()
            self.banner.hide()
            self.note.hide()
            self.launch.setText("")
            self._set_text("Select a skill to see what invoking it would inject.", markdown=False)
            return
        args = self.args_edit.text()
        self.result = None  # until the worker answers for this skill and these arguments
        from skillmanager.core.checks.shell_verdicts import preview_expansion

        self.context.tasks.run(("expansion", id(self)), lambda: preview_expansion(registry, skill, args),
                               lambda view: self._show_view(skill, view), self._show_failure)

    def _show_failure(self, error: BaseException) -> None:
        self.result = None
        self.view = None
        self.launch.setText("")
        self.banner.hide()
        self.shell_box.hide()
        self._set_text(f"Expansion not available: {error}", markdown=False)

    def _show_view(self, skill: Skill, view) -> None:
        """Core's view of `skill` (delivered on the UI thread by the task runner)."""
        self.view = view
        self.result = view.result
        result = view.result
        self.launch.setText(str(view.launch_line or ""))
        self.note.hide()
        resolved = getattr(result, "skill", None)
        notes = []
        if getattr(result, "forked", False):
            first_line = str(getattr(result, "tool_result", "") or "").split("\n", 1)[0]
            self.launch.setText(first_line)
            notes.append("Runs in a sub-agent (context: fork): the text below is the sub-agent's prompt; the "
                         "conversation receives only the line above and the sub-agent's final answer.")
        elif resolved is not None and resolved is not skill and view.reaches_model:
            notes.append(f"Invoking “{skill.name}” runs the {resolved.source.label.lower()} copy: "
                         "the selected one is shadowed.")
        if not view.body and not view.banner:
            notes.extend(view.notes)
        if notes:
            self.note.setText(" ".join(notes))
            self.note.show()
        if view.banner:
            self.banner_text.setText(view.banner)
            self.refusal_text.setPlainText(view.refusal or "")
            self.refusal_button.setVisible(bool(view.refusal))
            self.refusal_button.setChecked(False)
            self._tint_banner()
            self.banner.show()
        else:
            self.banner.hide()
        self._set_text(view.body, markdown=view.reaches_model)
        self._fill_shell(view)

    def _tint_banner(self) -> None:
        """A light wash of the highlight colour over the window colour: noticed, in either palette."""
        palette = self.palette()
        window, accent = palette.color(palette.ColorRole.Window), palette.color(palette.ColorRole.Highlight)
        mixed = QColor.fromRgbF(*(w * 0.82 + a * 0.18 for w, a in zip(window.getRgbF()[:3], accent.getRgbF()[:3])))
        tinted = self.banner.palette()
        tinted.setColor(tinted.ColorRole.Window, mixed)
        self.banner.setPalette(tinted)

    def _fill_shell(self, view) -> None:
        self.shell_list.clear()
        if not view.shell:
            self.shell_box.hide()
            return
        for verdict in view.shell:
            item = QListWidgetItem(f"$ {verdict.command}\n    audit: {verdict.verdict}")
            item.setFont(monospace_font())
            self.shell_list.addItem(item)
        from skillmanager.core.checks.shell_verdicts import worst_level

        count = len(view.shell)
        worst = worst_level(view.shell)
        worst_text = f" — worst audit verdict: {worst}" if worst else " — no audit finding"
        self.shell_toggle.setText(f"Inline shell: {count} command{'' if count == 1 else 's'} would run when "
                                  f"invoked{worst_text}")
        self.run_button.setText("Run this command" if count == 1 else f"Run these {count} commands")
        self.run_button.setEnabled(view.call != "none")
        self.shell_box.show()

    def _fold_shell(self, unfolded: bool) -> None:
        self.shell_toggle.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)
        self.shell_list.setVisible(unfolded)

    def _show_refusal(self, shown: bool) -> None:
        self.refusal_text.setVisible(shown)
        self.refusal_button.setText("Hide Claude Code's answer" if shown else "Show Claude Code's exact answer")

    def _set_text(self, text: str, markdown: bool) -> None:
        self.raw.setPlainText(text)
        if markdown:
            self.rendered.setHtml(render_markdown(text))
        else:
            self.rendered.setHtml(f"<pre style='white-space: pre-wrap'>{html.escape(text)}</pre>")
        self._show_mode(self.raw_toggle.isChecked())

    def _show_mode(self, raw: bool) -> None:
        self.stack.setCurrentWidget(self.raw if raw else self.rendered)

    def _run_shell(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        if self.skill is None or self.context.registry is None or self.view is None or self.view.call == "none":
            return
        count = len(self.view.shell)
        answer = QMessageBox.question(
            self, "Run inline shell", f"Run {count} command{'' if count == 1 else 's'} of {self.skill.name} on your "
            f"machine, in {self.context.registry.workspace.cwd}?\n\n"
            + "\n".join(f"$ {v.command}  ({v.verdict})" for v in self.view.shell))
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.run_button.setEnabled(False)
        self.run_button.setText("Running…")
        registry, name, args, call = self.context.registry, self.skill.name, self.args_edit.text(), self.view.call
        self.context.tasks.run(("shell", id(self)),
                               lambda: expand_skill(registry, name, args, run_shell=True, as_user=call == "user",
                                                    assume_allowed=call == "allowed"),
                               self._shell_done, self._shell_failed)

    def _shell_failed(self, error: BaseException) -> None:
        self.run_button.setEnabled(True)
        self.run_button.setText(f"Failed: {error}")

    def _shell_done(self, result) -> None:
        self.run_button.setEnabled(True)
        self.run_button.setText("Ran once — edit the arguments or reselect to preview again")
        block = getattr(result, "block", "") or getattr(result, "refusal", "") or ""
        self._set_text(block, markdown=True)


WIDE_WINDOW = 1280  # the listing and the expansion side by side from this window width


class PreviewPanel(QWidget):
    """The listing and the expansion: side by side in a window at least WIDE_WINDOW wide, stacked below that."""

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

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        wide = self.window().width() >= WIDE_WINDOW
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if orientation != self.splitter.orientation() or not self._sized:
            self.splitter.setOrientation(orientation)
            total = event.size().width() if wide else event.size().height()
            # stacked, the expansion gets the larger share: the banner and the shell line sit above its body
            self.splitter.setSizes([total * 9 // 20, total - total * 9 // 20] if wide
                                   else [total * 9 // 20, total - total * 9 // 20])
            self._sized = True
        super().resizeEvent(event)
