"""New skill…: name, description, when to use, optional `paths:`; validated as it is typed (the same
checks as `skillmanager new`, run off the UI thread), the SKILL.md shown as it will be written."""
from __future__ import annotations

import html

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QVBoxLayout)

from skillmanager.core.manage.names import name_problem
from skillmanager.core.manage.operations import skill_template
from skillmanager.core.versions.profiles import default_profile


class NewSkillDialog(QDialog):
    def __init__(self, context, controller, parent=None):
        super().__init__(parent)
        self.context, self.controller = context, controller
        self.setWindowTitle("New skill")
        self.resize(640, 560)
        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText("e.g. release-notes (the folder name; / invokes it)")
        self.description_edit = QLineEdit(self)
        self.description_edit.setPlaceholderText("What it does: the model reads this to decide when to use it")
        self.when_edit = QLineEdit(self)
        self.when_edit.setPlaceholderText("Optional: when to use it (added to the listing entry)")
        self.paths_edit = QLineEdit(self)
        self.paths_edit.setPlaceholderText("Optional: globs, comma-separated (listed once a matching file is touched)")
        self.target_combo = QComboBox(self)
        self.target_combo.addItem("Personal (~/.claude/skills)", "personal")
        self.target_combo.addItem("This project (.claude/skills)", "project")
        self.findings = QLabel(self)
        self.findings.setWordWrap(True)
        self.text_view = QPlainTextEdit(self)
        self.text_view.setReadOnly(True)
        self.buttons = QDialogButtonBox(self)
        self.create_button = self.buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.create_button.clicked.connect(self.create)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        form.addRow("Description", self.description_edit)
        form.addRow("When to use", self.when_edit)
        form.addRow("paths:", self.paths_edit)
        form.addRow("Create in", self.target_combo)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.findings)
        layout.addWidget(self.text_view, 1)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.validate)
        for edit in (self.name_edit, self.description_edit, self.when_edit, self.paths_edit):
            edit.textChanged.connect(self._timer.start)
        self.blocking: list[str] = []
        self.validate()

    def values(self):
        paths = [p.strip() for p in self.paths_edit.text().split(",") if p.strip()]
        return (self.name_edit.text().strip(), self.description_edit.text(), self.when_edit.text() or None, paths)

    def validate(self) -> None:
        name, description, when, paths = self.values()
        self.text_view.setPlainText(skill_template(name or "my-skill", description, when, paths))
        problems = []
        if not name:
            problems.append("A name is needed.")
        elif name_problem(name):
            problems.append(f"The name cannot be used: {name_problem(name)}.")
        if not description.strip():
            problems.append("A description is needed: the model reads it to decide when to use the skill.")
        self.blocking = problems
        if problems:
            self._show(problems, [])
            return
        self.findings.setText("Checking…")
        self.create_button.setEnabled(False)
        profile = self.controller.workspace.profile if self.controller.workspace is not None else default_profile()

        def work():
            from skillmanager.core.manage.template import template_findings  # the CLI's check, shared

            return template_findings(name, skill_template(name, description, when, paths), profile)

        self.context.tasks.run(("new-skill", "validate"), work, self._on_findings)

    def _on_findings(self, findings) -> None:
        from skillmanager.core.manage.template import blocking_findings, is_portability_finding

        blocking = blocking_findings(findings)
        errors = [f"{d.code}: {d.message}" for d in blocking]
        notes = [f"{'Agent Skills standard (portability; Claude Code loads it)' if is_portability_finding(d) else 'Claude Code'}"
                 f" {d.severity.value}: {d.message}" for d in findings if d not in blocking]
        self.blocking = errors
        self._show(errors, notes)

    def _show(self, errors: list[str], notes: list[str]) -> None:
        lines = [f"<span style='color:#c62828'>{html.escape(e)}</span>" for e in errors]
        lines += [f"<span style='color:#8a6d00'>{html.escape(n)}</span>" for n in notes]
        self.findings.setText("<br>".join(lines) if lines else "<span style='color:#2e7d32'>Valid.</span>")
        self.create_button.setEnabled(not errors)

    def create(self) -> None:
        from skillmanager.core.manage.preview import resolve_target

        name, description, when, paths = self.values()
        if self.blocking:
            return
        target = resolve_target(self.controller.workspace, self.target_combo.currentData())
        self.controller.create(target.skills_dir, name, description, when, paths, done=lambda _r: self.accept())
