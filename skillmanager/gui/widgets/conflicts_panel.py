"""Conflicts tab: every contested name, the copy that wins and the shadowed copies with the reason."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot, skill_identity
from skillmanager.gui.wording import short_path

_IDENTITY = Qt.ItemDataRole.UserRole


def _renamed_from(skill) -> str | None:
    """The bare name a clashing --add-dir skill had before current renamed it `{dir}:{name}` (registry.py)."""
    return skill.scoped_from


class ConflictsPanel(QWidget):
    identity_clicked = Signal(object)

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.summary = QLabel("No workspace loaded yet.", self)
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setAccessibleName("Contested names and their copies")
        self.tree.setHeaderLabels(["Name / copy", "Source", "Why"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setWordWrap(True)  # the reasons are sentences: wrap where Qt can, full text in the tooltip
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(self._on_current)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        context.snapshot_changed.connect(self.apply_snapshot)

    def contested_names(self) -> list[str]:
        return [self.tree.topLevelItem(i).data(0, _IDENTITY + 1) for i in range(self.tree.topLevelItemCount())]

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.partial:
            return  # only rows changed; the full snapshot follows
        self.tree.clear()
        registry = snapshot.registry
        conflicts_of = getattr(registry, "conflicts", None)
        if registry is None or not callable(conflicts_of):
            why = snapshot.problems.get("registry", "the registry engine does not report conflicts yet")
            self.summary.setText(f"Conflicts not available: {why}")
            return
        conflicts = list(conflicts_of())
        home = getattr(snapshot.workspace, "home", None)
        renamed = any(_renamed_from(loser) for c in conflicts for loser, _ in c.losers)
        self.summary.setText(
            f"{len(conflicts)} contested names. The first copy found wins; the others are shadowed"
            + (" (or, for a clashing --add-dir skill in Claude Code 2.1.3xx, renamed)" if renamed else "")
            + ". Click a copy to select it in the tree." if conflicts else "No two skills share a name.")
        for conflict in conflicts:
            winner = conflict.winner
            top = QTreeWidgetItem([conflict.name, "", f"{1 + len(conflict.losers)} copies"])
            top.setData(0, _IDENTITY, skill_identity(winner))
            top.setData(0, _IDENTITY + 1, conflict.name)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            win = QTreeWidgetItem(["wins", winner.source.label, "First in precedence order: this copy is used."])
            win.setToolTip(0, short_path(winner.path, home))
            win.setToolTip(1, short_path(winner.path, home))
            win.setIcon(0, states.icon(states.Visual.ACTIVE))
            win.setData(0, _IDENTITY, skill_identity(winner))
            top.addChild(win)
            for loser, reason in conflict.losers:
                if _renamed_from(loser):  # current: a separate skill under a scoped name (registry fuzz finding 11)
                    row = QTreeWidgetItem([f"renamed {loser.name}", loser.source.label, str(reason)])
                    row.setIcon(0, states.icon(states.visual_state(loser)))
                else:
                    row = QTreeWidgetItem(["shadowed", loser.source.label, str(reason)])
                    row.setIcon(0, states.icon(states.Visual.SHADOWED))
                row.setToolTip(0, short_path(loser.path, home))
                row.setToolTip(1, short_path(loser.path, home))
                row.setToolTip(2, str(reason))
                row.setData(0, _IDENTITY, skill_identity(loser))
                top.addChild(row)
            top.setExpanded(True)

    def _on_current(self, current: QTreeWidgetItem | None, _previous) -> None:
        if current is not None:
            identity = current.data(0, _IDENTITY)
            if identity is not None:
                self.identity_clicked.emit(tuple(identity))
