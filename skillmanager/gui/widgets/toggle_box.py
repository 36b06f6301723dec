"""The toggle control of the detail pane: what is in force, the states this profile can express, and
— before anything is written — which file changes and how (core.toggle's plan preview)."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QStandardItemModel, QSyntaxHighlighter, QTextCharFormat
from PySide6.QtWidgets import (QComboBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton,
                               QVBoxLayout)

from skillmanager.core.model import Skill
from skillmanager.core.versions.features import Feature
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import skill_identity
from skillmanager.gui.toggling import ToggleController, toggle_module

# Plain words for each state a control asks for; the mechanism is named in the tooltip.
CHOICE_WORDS = {
    "on": "On — listed and callable",
    "name-only": "Name only — listed without description",
    "user-invocable-only": "Only as /command — hidden from Claude",
    "off": "Off — not listed, not callable",
    "hidden": "Hidden from Claude (front matter)",
    "unhide": "Not hidden (remove the front-matter line)",
    "blocked": "Blocked (deny rule: still listed)",
    "unblock": "Not blocked (remove the deny rule)",
}
LEGACY_ON_WORDS = "On — not hidden, not blocked"
SCOPE_WORDS = {"user": "user settings (~/.claude)", "project": "project settings (shared)",
               "local": "local settings (only you)"}
LEGACY_NOTE = ("Claude Code 2.1.88 has no skillOverrides: “name only” and “off” do not exist there. "
               "It can hide a skill from Claude (a front-matter line) or block it (a deny rule, the skill stays "
               "listed).")


def _waiting(skill: Skill) -> bool:
    """A conditional (paths:) skill not yet activated: neither listed nor callable whatever the setting."""
    return bool(skill.state.conditional and not skill.state.active)


def _deny_words(state) -> str:
    """Where the deny rule that blocks the skill lives, from core's ToggleState."""
    rule = state.deny_rule
    if rule is None:
        return "blocked by a deny rule"
    where = SCOPE_WORDS.get(rule.scope, f"{rule.scope} settings")
    return f"blocked by the deny rule {rule.text} in {where}"


def on_choice_words(state, skill: Skill) -> str:
    """The "on" choice worded so it is true for this skill: for a waiting or blocked skill "on" is only what
    this setting says, not what Claude gets."""
    legacy = not state.profile.supports(Feature.SKILL_OVERRIDES)
    caveats = []
    if _waiting(skill):
        caveats.append("the skill is still waiting for a matching file")
    if state.blocked:
        caveats.append(_deny_words(state))
    if not caveats:
        return LEGACY_ON_WORDS if legacy else CHOICE_WORDS["on"]
    return ("Not hidden" if legacy else "On (this setting)") + " — " + "; ".join(caveats)


class ToggleBox(QGroupBox):
    state_shown = Signal(object)  # core ToggleState of the skill shown (tests and screenshots read it)

    def __init__(self, context: AppContext, controller: ToggleController, parent=None):
        super().__init__("Turn on or off", parent)
        self.context = context
        self.controller = controller
        self.skill: Skill | None = None
        self.toggle_state = None
        self.planning = False  # a plan is being worked out on a worker thread
        self.plan = None
        self._controls: list = []

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.blocked = QLabel(self)
        self.blocked.setWordWrap(True)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.choice = QComboBox(self)
        self.choice.setAccessibleName("How Claude Code should treat this skill")
        self.choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(16)
        self.choice.currentIndexChanged.connect(self._on_choice)
        self.scope = QComboBox(self)
        self.scope.setAccessibleName("Settings file to write")
        for scope in ("user", "project", "local"):
            self.scope.addItem(SCOPE_WORDS[scope], scope)
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.scope.setMinimumContentsLength(10)
        self.scope.setToolTip("Which settings file gets the change: user (~/.claude/settings.json), project "
                              "(.claude/settings.json, shared with the team) or local (.claude/settings.local.json)")
        self.scope.currentIndexChanged.connect(self._replan)
        self.scope_label = QLabel("in", self)
        self.preview = QLabel(self)
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff = QPlainTextEdit(self)
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setMaximumHeight(self.diff.fontMetrics().lineSpacing() * 8 + 12)
        self.diff.setToolTip("The exact change (unified diff) that Apply writes")
        self._highlighter = _DiffHighlighter(self.diff.document())
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.setToolTip("Write the change shown above")
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton("Undo", self)
        self.undo_button.setToolTip("Put back what the last toggle replaced (Ctrl+Z)")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(controller.undo)
        controller.undo_changed.connect(self.undo_button.setEnabled)

        row = QGridLayout()
        row.addWidget(QLabel("Change to", self), 0, 0)
        row.addWidget(self.choice, 0, 1)
        row.addWidget(self.scope_label, 1, 0, Qt.AlignmentFlag.AlignRight)
        row.addWidget(self.scope, 1, 1)
        row.setColumnStretch(1, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.summary)
        layout.addWidget(self.blocked)
        layout.addWidget(self.note)
        layout.addLayout(row)
        layout.addWidget(self.preview)
        layout.addWidget(self.diff)
        layout.addLayout(buttons)
        self.show_skill(None)

    # --- showing ------------------------------------------------------------------------------
    def show_skill(self, skill: Skill | None) -> None:
        """Show `skill`'s state: core works it out on the task runner (it re-reads the settings files)."""
        same = skill is not None and self.skill is not None and skill_identity(skill) == skill_identity(self.skill)
        self.skill = skill
        registry = self.context.registry
        self.plan = None  # a plan of the previous skill (or files) must not be applied to this one
        self.apply_button.setEnabled(False)
        if skill is None or registry is None:
            self.toggle_state = None
            self.planning = False
            self.setEnabled(False)
            self.summary.setText("Pick a skill to see whether it is on, and what decides it.")
            for widget in (self.blocked, self.note, self.preview, self.diff):
                widget.hide()
            self._fill_choices([])
            return
        self.setEnabled(True)
        if not same:
            self.toggle_state = None
            self.summary.setText("Working out what is in force…")
            for widget in (self.blocked, self.note, self.preview, self.diff):
                widget.hide()
            self._fill_choices([])
        self.planning = True
        self.context.tasks.run(("toggle-state", id(self)),
                               lambda: toggle_module().effective_toggle_state(registry, skill),
                               lambda state: self._show_state(skill, state),
                               lambda error: self._state_failed(skill, error))

    def _state_failed(self, skill: Skill, error: BaseException) -> None:
        if skill is not self.skill:
            return
        self.planning = False
        self.toggle_state = None
        self.summary.setText(f"The on/off state could not be worked out: {error}")
        self._fill_choices([])

    def _show_state(self, skill: Skill, state) -> None:
        """Core's ToggleState of `skill`, delivered on the UI thread by the task runner. A refresh of the same
        skill keeps what the user picked meanwhile (the choices of another skill were cleared)."""
        if skill is not self.skill:
            return
        chosen = self._selected_control()
        keep = (chosen.state, self.scope.currentData()) if chosen is not None and not chosen.active else None
        self.toggle_state = state
        self.summary.setText(state.summary)
        self.blocked.setVisible(bool(state.blocked_summary))
        if state.blocked_summary:
            self.blocked.setText(f"<span style='color:#d0453b'>●</span> {html.escape(state.blocked_summary)}")
        notes = []
        if state.locked:
            notes.append(state.locked_reason)
        if not state.profile.supports(Feature.SKILL_OVERRIDES):
            notes.append(LEGACY_NOTE)
        if not skill.state.is_winner:
            notes.append(f"This copy is not the one Claude uses. Settings work per name: a skillOverrides value "
                         f"or a deny rule for “{skill.name}” applies to the copy that wins.")
        if not state.editable_files:
            notes.append(state.editable_reason)
        if state.overrides_ignored:
            notes.append(state.overrides_ignored)
        self.note.setText("\n".join(dict.fromkeys(n for n in notes if n)))
        self.note.setVisible(bool(notes))
        self._fill_choices(state.offered_controls, keep)
        self.choice.setEnabled(not state.locked)
        self.state_shown.emit(state)

    def _fill_choices(self, controls: list, keep: tuple[str, str | None] | None = None) -> None:
        self._controls = controls
        self.choice.blockSignals(True)
        self.choice.clear()
        legacy = self.toggle_state is not None and not self.toggle_state.profile.supports(Feature.SKILL_OVERRIDES)
        model: QStandardItemModel = self.choice.model()
        current = 0
        for index, control in enumerate(controls):
            if control.state == "on" and self.toggle_state is not None and self.skill is not None:
                words = on_choice_words(self.toggle_state, self.skill)
            else:
                words = LEGACY_ON_WORDS if legacy and control.state == "on" else CHOICE_WORDS.get(control.state,
                                                                                                    control.state)
            if control.active:
                words += "  (now)"
                current = index
            self.choice.addItem(words, control.state)
            item = model.item(index)
            item.setToolTip(control.reason)
            if not control.enabled and not control.active:
                item.setEnabled(False)
        kept = next((i for i, c in enumerate(controls) if keep is not None and c.state == keep[0]
                     and (c.enabled or c.active)), None)
        self.choice.setCurrentIndex((current if kept is None else kept) if controls else -1)
        self.choice.blockSignals(False)
        # a narrow pane elides the closed box: the list opens wide enough for every choice in full
        metrics = self.choice.view().fontMetrics()
        widest = max((metrics.horizontalAdvance(self.choice.itemText(i)) for i in range(self.choice.count())),
                     default=0)
        self.choice.view().setMinimumWidth(widest + 32)
        self._on_choice()
        if kept is not None and keep is not None and keep[1] is not None and self.scope.isEnabled():
            index = self.scope.findData(keep[1])
            if index >= 0 and index != self.scope.currentIndex():
                self.scope.setCurrentIndex(index)  # → _replan

    def _selected_control(self):
        index = self.choice.currentIndex()
        return self._controls[index] if 0 <= index < len(self._controls) else None

    # --- planning -----------------------------------------------------------------------------
    def _on_choice(self) -> None:
        """A new choice starts from its own scope: the file that decides now, else the default."""
        control = self._selected_control()
        self.choice.setToolTip(self.choice.currentText())  # the full words when the box is too narrow for them
        if control is not None and control.scope in ("user", "project", "local"):
            self.scope.blockSignals(True)
            self.scope.setCurrentIndex(self.scope.findData(control.scope))
            self.scope.blockSignals(False)
        self._replan()

    def _replan(self) -> None:
        control = self._selected_control()
        registry = self.context.registry
        self.plan = None
        uses_scope = control is not None and control.state in ("on", "name-only", "user-invocable-only", "off",
                                                               "blocked") and control.scope not in (None,
                                                                                                    "front-matter")
        self.scope.setEnabled(uses_scope and not (self.toggle_state and self.toggle_state.locked))
        self.scope_label.setEnabled(self.scope.isEnabled())
        if control is None or self.skill is None or registry is None:
            self.planning = False
            self.preview.hide()
            self.diff.hide()
            self.apply_button.setEnabled(False)
            return
        scope = self.scope.currentData() if uses_scope else None
        skill, state = self.skill, control.state
        self.planning = True
        self.apply_button.setEnabled(False)
        self.context.tasks.run(("toggle-plan", id(self)),
                               lambda: toggle_module().plan_toggle(registry, skill, state, scope),
                               lambda plan: self._show_plan(plan) if skill is self.skill else None)

    def _show_plan(self, plan) -> None:
        """The planned change, delivered on the UI thread by the task runner."""
        self.planning = False
        self.plan = plan
        self.preview.show()
        if not plan.ok:
            self.preview.setText(f"<span style='color:#d0453b'>Not possible:</span> {html.escape(plan.refusal)}")
            self.diff.hide()
        elif not plan.edits:
            self.preview.setText(html.escape(plan.message or "Nothing to change."))
            self.diff.hide()
        else:
            lines = [f"<b>Will write</b> <code>{html.escape(str(e.path))}</code>"
                     f"{' (new file)' if e.creates else ''}: {html.escape(e.change)}" for e in plan.edits]
            lines += [f"<i>{html.escape(note)}</i>" for note in plan.notes]
            self.preview.setText("<br>".join(lines))
            self.diff.setPlainText(_hunks(plan.diff))
            self.diff.show()
            self._scroll_to_first_change()
        self.apply_button.setEnabled(plan.ok and bool(plan.edits) and self.toggle_state is not None
                                     and not self.toggle_state.locked)

    def _scroll_to_first_change(self) -> None:
        document = self.diff.document()
        for number in range(document.blockCount()):
            text = document.findBlockByNumber(number).text()
            if text[:1] in "+-" and not text.startswith(("+++", "---")):
                cursor = self.diff.textCursor()
                cursor.setPosition(document.findBlockByNumber(max(0, number - 2)).position())
                self.diff.setTextCursor(cursor)
                self.diff.ensureCursorVisible()
                return

    def preview_text(self) -> str:
        """The preview as plain text (what the user reads)."""
        from PySide6.QtGui import QTextDocument

        document = QTextDocument()
        document.setHtml(self.preview.text())
        return document.toPlainText() if self.preview.isVisibleTo(self) else ""

    def choose(self, state: str, scope: str | None = None) -> bool:
        """Pick a choice (and scope) as the user would; False when it is not offered."""
        index = self.choice.findData(state)
        if index < 0:
            return False
        if index != self.choice.currentIndex():
            self.choice.setCurrentIndex(index)  # → _on_choice
        else:
            self._on_choice()
        if scope is not None and self.scope.isEnabled():
            self.scope.setCurrentIndex(self.scope.findData(scope))  # → _replan when it changes
        return True

    def apply(self) -> bool:
        if self.plan is None:
            return False
        return self.controller.apply(self.plan, self.skill)


def _hunks(diff: str) -> str:
    """The diff without its ---/+++ header: the file is named just above it."""
    return "".join(line for line in diff.splitlines(keepends=True) if not line.startswith(("--- ", "+++ ")))


class _DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red (colours that read on light and dark palettes)."""

    def __init__(self, document):
        super().__init__(document)
        self.formats = {}
        for mark, colour in (("+", "#2e9d4f"), ("-", "#d0453b"), ("@", "#8a8f98")):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            self.formats[mark] = fmt

    def highlightBlock(self, text: str) -> None:
        fmt = self.formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)
