"""Workspace bar: the project folder (with recent list) and which Claude Code is shown; an Advanced panel
for the release, model, home and extra folders."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QSizePolicy, QToolButton, QVBoxLayout, QWidget)

from skillmanager.core.versions.installed import shown_sentence
from skillmanager.core.versions.profiles import DEFAULT_PROFILE, PROFILE_NAMES, get_profile
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
        self.home.setPlaceholderText("your home folder (~)")
        self.home.setToolTip("The home folder whose ~/.claude is read (--home)")
        self.home.editingFinished.connect(self._emit_if_changed)
        self.profile = QComboBox(self)
        for name in (DEFAULT_PROFILE, *(n for n in PROFILE_NAMES if n != DEFAULT_PROFILE)):
            # the release in plain numbers; the data is the profile name the engine takes
            self.profile.addItem(f"Claude Code {get_profile(name).version_text} ({name})", name)
        self.profile.setToolTip("The Claude Code release whose rules are shown (--profile / --claude-version)")
        self.profile.activated.connect(lambda _i: self._emit())
        self.model = QLineEdit(self)
        self.model.setPlaceholderText("that version's default model")
        self.model.setToolTip("The model Claude Code runs (--model): it changes the listing budget")
        self.model.editingFinished.connect(self._emit_if_changed)
        self.add_dirs = QLineEdit(self)
        self.add_dirs.setPlaceholderText(f"none (folders separated by {os.pathsep})")
        self.add_dirs.setToolTip("Extra folders Claude Code is given (--add-dir); their .claude/skills count too")
        self.add_dirs.editingFinished.connect(self._emit_if_changed)
        self.plugin_dirs = QLineEdit(self)
        self.plugin_dirs.setPlaceholderText(f"none (folders separated by {os.pathsep})")
        self.plugin_dirs.setToolTip("Plugin folders loaded for the session (--plugin-dir)")
        self.plugin_dirs.editingFinished.connect(self._emit_if_changed)
        # The main bar is the project and a plain sentence about the installed Claude Code; the command
        # line's knobs (profile, model, home, extra folders) live in the Advanced panel below it.
        self.installed_note = QLabel(shown_sentence(None, None), self)
        self.installed_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.installed_note.setMinimumWidth(120)
        self.installed_note.setWordWrap(True)  # two short lines in a narrow window rather than a cut
        self.installed_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._found = None  # core InstalledClaude once detection has run
        self.advanced_button = QToolButton(self)
        self.advanced_button.setCheckable(True)
        self.advanced_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_button.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_button.setText("&Advanced")
        self.advanced_button.setAccessibleName("Advanced: Claude Code version, model, home and extra folders")
        self.advanced_button.setToolTip("Which Claude Code release and model to imitate, another home folder, "
                                        "extra skill and plugin folders (the command line's options)")
        self.advanced_button.toggled.connect(self.show_advanced)
        self.advanced = QFrame(self)
        self.advanced.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(self.advanced)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        for row, column, label, widget in (
                (0, 0, "Claude Code ve&rsion", self.profile), (0, 2, "&Model", self.model),
                (0, 4, "H&ome folder", self.home), (1, 0, "Extra skill fol&ders", self.add_dirs),
                (1, 2, "Plu&gin folders", self.plugin_dirs)):
            caption = QLabel(label, self.advanced)
            caption.setBuddy(widget)  # Alt+letter focuses the field
            widget.setParent(self.advanced)
            widget.setAccessibleName(label.replace("&", ""))
            widget.setMinimumWidth(90)
            grid.addWidget(caption, row, column)
            grid.addWidget(widget, row, column + 1, 1, 3 if row == 1 and column == 2 else 1)
        for column in (1, 3, 5):
            grid.setColumnStretch(column, 1)
        self.advanced.hide()
        project_label = QLabel("&Project", self)
        project_label.setBuddy(self.project)
        self.project.setAccessibleName("Project folder")
        browse.setAccessibleName("Choose the project folder")
        self.project.setMinimumWidth(160)
        top = QHBoxLayout()
        top.addWidget(project_label)
        top.addWidget(self.project, 3)
        top.addWidget(browse)
        top.addSpacing(8)
        top.addWidget(self.installed_note, 2)
        top.addWidget(self.advanced_button)
        self.rows = QVBoxLayout(self)
        self.rows.setContentsMargins(4, 2, 4, 2)
        self.rows.setSpacing(2)
        self.rows.addLayout(top)
        self.rows.addWidget(self.advanced)

    def show_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        self.advanced_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        if self.advanced_button.isChecked() != shown:
            self.advanced_button.setChecked(shown)

    def _note_advanced(self) -> None:
        """The closed panel still says how many of its options are in use."""
        spec = self._spec
        used = 0 if spec is None else sum(bool(v) for v in (
            spec.home, spec.model, spec.add_dirs, spec.plugin_dirs, spec.claude_version,
            spec.profile != DEFAULT_PROFILE))
        self.advanced_button.setText(f"&Advanced ({used} set)" if used else "&Advanced")

    def set_installed(self, found) -> None:
        """The detection's result (core InstalledClaude); its release joins the version choices."""
        self._found = found
        version = found.profile.version_text if found.profile is not None else None
        studied = {get_profile(name).version_text: i for i, name in enumerate(
            self.profile.itemData(i) for i in range(self.profile.count())) if name in PROFILE_NAMES}
        if version in studied:  # the installed release is a studied one: say so on its entry
            index = studied[version]
            if "installed" not in self.profile.itemText(index):
                self.profile.setItemText(index, self.profile.itemText(index)[:-1] + ", installed)")
        elif version and self.profile.findData(version) < 0:
            self.profile.addItem(f"Claude Code {version} (installed)", version)
        self.installed_note.setToolTip(found.note or found.version_text or "")
        self.set_shown_profile(self._shown)

    _shown = None

    def set_shown_profile(self, profile) -> None:
        """The release whose rules the loaded workspace applies (core Profile)."""
        self._shown = profile
        if self._found is not None:
            self.installed_note.setText(shown_sentence(self._found, profile))

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
        if spec.claude_version and self.profile.findData(spec.claude_version) < 0:
            self.profile.addItem(f"Claude Code {spec.claude_version}", spec.claude_version)
        index = self.profile.findData(spec.claude_version or spec.profile)
        if index >= 0:
            self.profile.setCurrentIndex(index)
        self.model.setText(spec.model or "")
        self.add_dirs.setText(os.pathsep.join(str(p) for p in spec.add_dirs))
        self.plugin_dirs.setText(os.pathsep.join(str(p) for p in spec.plugin_dirs))
        self._note_advanced()

    def current_spec(self) -> WorkspaceSpec:
        base = self._spec or WorkspaceSpec(cwd=Path.cwd())
        text = self.project.currentText().strip()
        chosen = self.profile.currentData() or DEFAULT_PROFILE  # a profile name or an exact release
        return WorkspaceSpec(
            cwd=Path(text).expanduser() if text else base.cwd,
            home=Path(self.home.text()).expanduser() if self.home.text().strip() else None,
            managed_root=base.managed_root,
            add_dirs=_split_dirs(self.add_dirs.text()),
            plugin_dirs=_split_dirs(self.plugin_dirs.text()),
            mcp_skills_file=base.mcp_skills_file,
            profile=chosen if chosen in PROFILE_NAMES else DEFAULT_PROFILE,
            claude_version=None if chosen in PROFILE_NAMES else chosen,
            model=self.model.text().strip() or None,
            env=base.env,
        )

    def _emit_if_changed(self) -> None:
        if self._spec is None or self.current_spec() != self._spec:
            self._emit()

    def _emit(self) -> None:
        spec = self.current_spec()
        self._spec = spec
        self._note_advanced()
        self.apply_requested.emit(spec)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Project folder", self.project.currentText())
        if folder:
            self.project.setCurrentText(folder)
            self._emit()
