"""Conflicts page: every contested name, why each copy wins or loses (both folders named), the two copies
side by side, and what can be done: turn the losing copy off, open either folder, reveal it in the tree.

The words, the comparison and the switch all come from core.rules.conflict_words; the write goes through
the ToggleController, so it is previewed in words first, undoable and kept in History.
"""
from __future__ import annotations

import html
import os

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QPushButton, QSplitter, QTableWidget,
                               QTableWidgetItem, QTextBrowser, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.pages.catch_up import CatchUpPage
from skillmanager.gui.engine import Snapshot, skill_identity

_IDENTITY = Qt.ItemDataRole.UserRole
_NAME = Qt.ItemDataRole.UserRole + 1
_WORDS = Qt.ItemDataRole.UserRole + 2  # (ConflictWords, LoserWords | None)


class ConflictsPage(CatchUpPage):
    identity_clicked = Signal(object)  # a copy was picked: select it in the registry
    reveal_requested = Signal(object)  # "Reveal in tree": show the Skills page with this copy selected

    def __init__(self, context: AppContext, parent=None, controller=None):
        super().__init__(parent)
        self.context = context
        self.controller = controller  # gui.toggling.ToggleController (writes, undo, History)
        self.current = None  # (ConflictWords, LoserWords | None) of the selected row
        self.comparison = None
        self.turn_off = None  # core conflict_words.TurnOff for the selected loser
        self.my_change = None  # the AppliedChange this page made last (its Undo button)
        self.summary = QLabel("No workspace loaded yet.", self)
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setAccessibleName("Contested names and their copies")
        self.tree.setHeaderLabels(["Name / copy", "Source", "Folder"])
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(self._on_current)
        self.reason = QLabel("Pick a copy to see why it wins or loses.", self)
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.off_button = QPushButton("Turn this copy off", self)
        self.off_button.clicked.connect(self.turn_loser_off)
        self.undo_button = QPushButton("Undo", self)
        self.undo_button.clicked.connect(self.undo)
        self.open_winner = QPushButton("Open the winner's folder", self)
        self.open_winner.clicked.connect(lambda: self.open_folder("winner"))
        self.open_copy = QPushButton("Open this copy's folder", self)
        self.open_copy.clicked.connect(lambda: self.open_folder("copy"))
        self.reveal_button = QPushButton("Reveal in tree", self)
        self.reveal_button.clicked.connect(self._reveal)
        self.explanation = QLabel(self)
        self.explanation.setWordWrap(True)
        self.compare_summary = QLabel(self)
        self.compare_summary.setWordWrap(True)
        self.front_matter = QTableWidget(0, 3, self)
        self.front_matter.setAccessibleName("Front matter of the two copies")
        self.front_matter.setHorizontalHeaderLabels(["Key", "Winner", "This copy"])
        self.front_matter.horizontalHeader().setStretchLastSection(True)
        self.front_matter.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.front_matter.verticalHeader().hide()
        self.front_matter.setWordWrap(True)
        self.body_diff = QTextBrowser(self)

        actions = QHBoxLayout()
        for button in (self.off_button, self.undo_button, self.open_winner, self.open_copy, self.reveal_button):
            actions.addWidget(button)
        actions.addStretch(1)
        detail = QWidget(self)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.reason)
        detail_layout.addLayout(actions)
        detail_layout.addWidget(self.explanation)
        detail_layout.addWidget(QLabel("<b>The two copies side by side</b>", detail))
        detail_layout.addWidget(self.compare_summary)
        compare = QSplitter(Qt.Orientation.Vertical, detail)
        compare.addWidget(self.front_matter)
        compare.addWidget(self.body_diff)
        compare.setStretchFactor(1, 2)
        detail_layout.addWidget(compare, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(detail)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([400, 600])  # the tree keeps room for the folder column
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.splitter, 1)
        context.snapshot_changed.connect(self.apply_snapshot)
        if controller is not None:
            controller.undo_changed.connect(lambda _on: self._update_buttons())
        self._update_buttons()

    def contested_names(self) -> list[str]:
        return [self.tree.topLevelItem(i).data(0, _NAME) for i in range(self.tree.topLevelItemCount())]

    def _untouched_by(self, snapshot: Snapshot) -> bool:
        """An incremental refresh that kept every row in place and changed no copy of a contested name leaves
        the contested names and their words as they are (a file edit cannot change a skill's name)."""
        if snapshot.changed_rows is None:
            return False
        contested = set(self.contested_names())
        for identity in snapshot.changed_rows:
            skill = snapshot.find(identity)
            if skill is None or (skill.scoped_from or skill.name) in contested or skill.name in contested:
                return False
        return True

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.partial:
            return  # only rows changed; the full snapshot follows
        if self._stale is None and self._untouched_by(snapshot):
            return
        if snapshot.changed_rows is not None and not self.isVisible():
            if self._stale is None:  # the words name the old registry's skills: let them go until shown
                self.tree.clear()
                self.current = None
            self._stale = snapshot  # a file edit while another page is shown: rebuilt when this page shows
            return
        self._stale = None
        selected = self.current[1].skill if self.current and self.current[1] else None
        selected_identity = skill_identity(selected) if selected is not None else None
        self.tree.clear()
        self.current = None
        registry = snapshot.registry
        if registry is None:
            why = snapshot.problems.get("registry", "no workspace is loaded")
            self.summary.setText(f"Conflicts not available: {why}")
            self._show(None)
            return
        from skillmanager.core.rules.conflict_words import conflict_words

        conflicts = conflict_words(registry)
        renamed = any(loser.renamed for c in conflicts for loser in c.losers)
        self.summary.setText(
            f"{len(conflicts)} contested names. The first copy found wins; the others are shadowed"
            + (" (or, for a clashing --add-dir skill in Claude Code 2.1.3xx, renamed)" if renamed else "")
            + ". Pick a copy to compare it with the winner." if conflicts else "No two skills share a name.")
        restore = None
        for words in conflicts:
            winner = words.winner
            top = QTreeWidgetItem([words.name, "", f"{1 + len(words.losers)} copies"])
            top.setData(0, _IDENTITY, skill_identity(winner))
            top.setData(0, _NAME, words.name)
            top.setData(0, _WORDS, (words, None))
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            win = QTreeWidgetItem(["wins", winner.source.label, words.winner_folder])
            win.setIcon(0, states.icon(states.Visual.ACTIVE))
            win.setData(0, _IDENTITY, skill_identity(winner))
            win.setData(0, _WORDS, (words, None))
            win.setToolTip(2, str(winner.path or ""))
            top.addChild(win)
            for loser in words.losers:
                label = ("same file" if loser.same_file else f"renamed {loser.skill.name}" if loser.renamed
                         else "shadowed")
                row = QTreeWidgetItem([label, loser.skill.source.label, loser.folder])
                row.setIcon(0, states.icon(states.visual_state(loser.skill) if loser.renamed
                                           else states.Visual.SHADOWED))
                row.setData(0, _IDENTITY, skill_identity(loser.skill))
                row.setData(0, _WORDS, (words, loser))
                row.setToolTip(0, loser.sentence)
                row.setToolTip(2, str(loser.skill.path or ""))
                top.addChild(row)
                if selected_identity is not None and skill_identity(loser.skill) == selected_identity:
                    restore = row
            top.setExpanded(True)
        if restore is not None:  # the same copy again, without selecting it in the registry (a rescan is no click)
            self.tree.blockSignals(True)
            self.tree.setCurrentItem(restore)
            self.tree.blockSignals(False)
            self._show(restore.data(0, _WORDS))
        else:
            self._show(None)

    def select_copy(self, name: str, which: int = 1) -> QTreeWidgetItem | None:
        """Select a conflict's copy (0: the winner, 1…: the losers in order)."""
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top.data(0, _NAME) == name and which < top.childCount():
                self.tree.setCurrentItem(top.child(which))
                return top.child(which)
        return None

    def _on_current(self, current: QTreeWidgetItem | None, _previous) -> None:
        if current is None:
            self._show(None)
            return
        identity = current.data(0, _IDENTITY)
        self._show(current.data(0, _WORDS))
        if identity is not None:
            self.identity_clicked.emit(tuple(identity))

    def _show(self, words) -> None:
        self.current = words
        self.comparison = None
        self.turn_off = None
        self.front_matter.setRowCount(0)
        self.body_diff.clear()
        self.compare_summary.setText("")
        self.explanation.setText("")
        if words is None:
            self.reason.setText("Pick a copy to see why it wins or loses.")
            self._update_buttons()
            return
        conflict, loser = words
        if loser is None:
            self.reason.setText(f"{conflict.winner_folder} wins {conflict.name}: it comes first in Claude Code's "
                                "order. Pick one of the other copies to compare it with this one.")
            self._update_buttons()
            return
        self.reason.setText(loser.sentence)
        registry = self.context.registry
        workspace = registry.workspace if registry is not None else None
        if registry is None:
            return
        from skillmanager.core.edit.copy_switch import plan_turn_off_copy
        from skillmanager.core.rules.conflict_words import compare_copies

        winner, skill = conflict.winner, loser.skill

        def work():
            return (compare_copies(winner, skill, workspace.cwd, getattr(workspace, "home", None)),
                    plan_turn_off_copy(registry, skill))

        self.context.tasks.run(("conflict-compare", id(self)), work, lambda found: self._compared(words, found))
        self._update_buttons()

    def _compared(self, words, found) -> None:
        if words is not self.current:
            return
        self.comparison, self.turn_off = found
        comparison = self.comparison
        self.compare_summary.setText(comparison.summary)
        self.front_matter.setRowCount(len(comparison.front_matter))
        for row, item in enumerate(comparison.front_matter):
            cells = [item.key, item.winner, item.loser]
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                if not item.same:
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                self.front_matter.setItem(row, column, cell)
        self.front_matter.resizeRowsToContents()
        self.body_diff.setHtml(_diff_html(comparison.body_diff, self.palette()))
        self.explanation.setText(self.turn_off.explanation)
        self._update_buttons()

    def _update_buttons(self) -> None:
        loser = self.current[1] if self.current else None
        plan = self.turn_off.plan if self.turn_off is not None else None
        self.off_button.setEnabled(loser is not None and plan is not None and plan.ok and bool(plan.edits)
                                   and self.controller is not None)
        self.undo_button.setEnabled(self.my_change is not None and self.controller is not None
                                    and bool(self.controller.history) and self.controller.history[-1] is self.my_change)
        self.open_winner.setEnabled(self.current is not None and self.current[0].winner.path is not None)
        self.open_copy.setEnabled(loser is not None and loser.skill.path is not None)
        self.reveal_button.setEnabled(self.current is not None)

    # --- actions -------------------------------------------------------------------------------
    def turn_loser_off(self) -> bool:
        if self.controller is None or self.turn_off is None or self.turn_off.plan is None or not self.current:
            return False
        loser = self.current[1]

        def written(change) -> None:
            self.my_change = change
            self._update_buttons()

        ok = self.controller.apply(self.turn_off.plan, loser.skill if loser else None, on_done=written)
        self._update_buttons()
        return ok

    def undo(self) -> bool:
        if self.controller is None or self.my_change is None:
            return False
        ok = self.controller.undo_change(self.my_change)
        if ok:
            self.my_change = None
        self._update_buttons()
        return ok

    def folder_of(self, which: str) -> str | None:
        if not self.current:
            return None
        conflict, loser = self.current
        skill = conflict.winner if which == "winner" or loser is None else loser.skill
        return os.path.dirname(str(skill.path)) if skill.path else None

    def open_folder(self, which: str) -> None:
        folder = self.folder_of(which)
        if folder:
            QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    def _reveal(self) -> None:
        item = self.tree.currentItem()
        identity = item.data(0, _IDENTITY) if item is not None else None
        if identity is not None:
            self.reveal_requested.emit(tuple(identity))


def _diff_html(lines: list[str], palette) -> str:
    if not lines:
        return "<p>The bodies are identical.</p>"
    added, removed = "rgba(46,160,67,0.25)", "rgba(218,54,51,0.25)"
    out = ["<pre style='white-space: pre-wrap'>"]
    for line in lines:
        text = html.escape(line)
        if line.startswith("+") and not line.startswith("+++"):
            out.append(f"<span style='background-color:{added}'>{text}</span>")
        elif line.startswith("-") and not line.startswith("---"):
            out.append(f"<span style='background-color:{removed}'>{text}</span>")
        else:
            out.append(text)
    return "\n".join(out) + "</pre>"
