"""Workspace bar: project folder (with recent list), home, profile, model, add-dirs, plugin dirs."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QToolButton, QVBoxLayout,
                               QWidget)

from skillmanager.core.versions.profiles import DEFAULT_PROFILE, PROFILE_NAMES
from skillmanager.gui.engine import WorkspaceSpec

RECENT_LIMIT = 10


def _split_dirs(text: str) -> list[Path]:
    return [Path(p.strip()).expanduser() for p in text.split(os.pathsep) if p.strip()]


class WorkspaceBar(QWidget):
    """Edits a WorkspaceSpec; `apply_requested` carries the new spec when the user confirms a change."""

    apply_requested = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._spec: WorkspaceSpec | None = None
        self.project = QComboBox(self)
        self.project.setEditable(True)
        self.project.setMinimumContentsLength(20)
        self.project.setToolTip("Project folder (Claude Code's working directory); recent folders in the list")
        self.project.lineEdit().returnPressed.connect(self._emit)
        self.project.activated.connect(lambda _i: self._emit())
        browse = QToolButton(self)
        browse.setText("…")
        browse.setToolTip("Choose the project folder")
        browse.clicked.connect(self._browse)
        self.home = QLineEdit(self)
        self.home.setPlaceholderText("home (~)")
        self.home.setToolTip("Home directory whose ~/.claude is read")
        self.home.editingFinished.connect(self._emit_if_changed)
        self.profile = QComboBox(self)
        self.profile.addItems([DEFAULT_PROFILE, *(n for n in PROFILE_NAMES if n != DEFAULT_PROFILE)])
        self.profile.setToolTip("Claude Code version family whose rules are applied")
        self.profile.activated.connect(lambda _i: self._emit())
        self.model = QLineEdit(self)
        self.model.setPlaceholderText("model (profile default)")
        self.model.setToolTip("--model: changes the listing budget and placement")
        self.model.editingFinished.connect(self._emit_if_changed)
        self.add_dirs = QLineEdit(self)
        self.add_dirs.setPlaceholderText(f"add-dirs ({os.pathsep}-separated)")
        self.add_dirs.setToolTip("--add-dir directories")
        self.add_dirs.editingFinished.connect(self._emit_if_changed)
        self.plugin_dirs = QLineEdit(self)
        self.plugin_dirs.setPlaceholderText(f"plugin dirs ({os.pathsep}-separated)")
        self.plugin_dirs.setToolTip("--plugin-dir directories")
        self.plugin_dirs.editingFinished.connect(self._emit_if_changed)
        self.profile_note = QLabel(self)
        # Project, profile and model first; home and extra dirs wrap to a second row when the window is
        # narrow, so that no field is squeezed to a few unreadable characters.
        self._items: list[tuple[QWidget, int, bool]] = []  # widget, stretch, secondary
        for label, widget, stretch, secondary in (
                ("&Project", self.project, 3, False), (None, browse, 0, False), ("P&rofile", self.profile, 0, False),
                ("&Model", self.model, 1, False), ("H&ome", self.home, 1, True), ("A&dd-dirs", self.add_dirs, 1, True),
                ("Plu&gins", self.plugin_dirs, 1, True)):
            if label:
                caption = QLabel(label, self)
                caption.setBuddy(widget)  # Alt+letter focuses the field
                self._items.append((caption, 0, secondary))
            self._items.append((widget, stretch, secondary))
            if widget is not browse:
                widget.setMinimumWidth(90)
        self._items.append((self.profile_note, 0, True))
        self.rows = QVBoxLayout(self)
        self.rows.setContentsMargins(4, 2, 4, 2)
        self.rows.setSpacing(2)
        self.first_row, self.second_row = QHBoxLayout(), QHBoxLayout()
        self.rows.addLayout(self.first_row)
        self.rows.addLayout(self.second_row)
        self.two_rows: bool | None = None
        self._arrange(False)

    WRAP_BELOW = 1250  # px: below this width the bar takes two rows

    def _arrange(self, two_rows: bool) -> None:
        if two_rows == self.two_rows:
            return
        self.two_rows = two_rows
        for widget, _stretch, _secondary in self._items:
            self.first_row.removeWidget(widget)
            self.second_row.removeWidget(widget)
        for widget, stretch, secondary in self._items:
            (self.second_row if two_rows and secondary else self.first_row).addWidget(widget, stretch)
        self.updateGeometry()

    def resizeEvent(self, event) -> None:
        self._arrange(event.size().width() < self.WRAP_BELOW)
        super().resizeEvent(event)

    def set_recent(self, folders: list[str]) -> None:
        current = self.project.currentText()
        self.project.blockSignals(True)
        self.project.clear()
        self.project.addItems(folders[:RECENT_LIMIT])
        self.project.setCurrentText(current)
        self.project.blockSignals(False)

    def set_spec(self, spec: WorkspaceSpec) -> None:
        self._spec = spec
        self.project.setCurrentText(str(spec.cwd))
        self.home.setText(str(spec.home) if spec.home else "")
        index = (self.profile.findData(spec.claude_version) if spec.claude_version
                 else self.profile.findText(spec.profile))
        if index >= 0:
            self.profile.setCurrentIndex(index)
        self.model.setText(spec.model or "")
        self.add_dirs.setText(os.pathsep.join(str(p) for p in spec.add_dirs))
        self.plugin_dirs.setText(os.pathsep.join(str(p) for p in spec.plugin_dirs))

    def set_profile_note(self, text: str) -> None:
        self.profile_note.setText(text)
        self.profile_note.setToolTip(text)

    def add_installed_version(self, version: str) -> None:
        """Offer the installed claude's release (its exact features) beside the two aliases."""
        if self.profile.findData(version) < 0:
            self.profile.addItem(f"{version} (installed)", version)

    def current_spec(self) -> WorkspaceSpec:
        base = self._spec or WorkspaceSpec(cwd=Path.cwd())
        text = self.project.currentText().strip()
        return WorkspaceSpec(
            cwd=Path(text).expanduser() if text else base.cwd,
            home=Path(self.home.text()).expanduser() if self.home.text().strip() else None,
            managed_root=base.managed_root,
            add_dirs=_split_dirs(self.add_dirs.text()),
            plugin_dirs=_split_dirs(self.plugin_dirs.text()),
            mcp_skills_file=base.mcp_skills_file,
            profile=self.profile.currentText() if self.profile.currentData() is None else DEFAULT_PROFILE,
            claude_version=self.profile.currentData(),
            model=self.model.text().strip() or None,
            env=base.env,
        )

    def _emit_if_changed(self) -> None:
        if self._spec is None or self.current_spec() != self._spec:
            self._emit()

    def _emit(self) -> None:
        spec = self.current_spec()
        self._spec = spec
        self.apply_requested.emit(spec)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Project folder", self.project.currentText())
        if folder:
            self.project.setCurrentText(folder)
            self._emit()
