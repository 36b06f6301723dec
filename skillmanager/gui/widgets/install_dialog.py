"""Install…: pick a source and a target, see the preview (validation, audit, listing delta, clashes), then
install. A critical finding disables Install until the override box is ticked; a high one needs the
confirmation box. Staging and preview run off the UI thread (context.tasks)."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QPushButton,
                               QTextBrowser, QVBoxLayout)

from skillmanager.core.manage.preview_text import GATE_WORDS, budget_line, validation_groups

TARGETS = (("Personal (~/.claude/skills)", "personal"), ("This project (.claude/skills)", "project"),
           ("Another folder or nested package…", None))
SEVERITY_COLOURS = {"critical": "#c62828", "high": "#e65100", "medium": "#b8860b", "low": "#607d8b",
                    "info": "#607d8b", "error": "#c62828", "warning": "#b8860b"}


def _badge(text: str, level: str) -> str:
    colour = SEVERITY_COLOURS.get(level, "#607d8b")
    return f'<span style="color:{colour}; font-weight:600">{html.escape(text)}</span>'


def preview_html(preview) -> str:
    """The preview as rich text (core decides the words; this only lays them out)."""
    e = html.escape
    parts = []
    src = preview.source
    if src:
        commit = f" at {e(str(src['commit'])[:12])}" if src.get("commit") else ""
        parts.append(f"<p><b>Source</b>: {e(str(src.get('kind')))} <code>{e(str(src.get('location')))}</code>"
                     f"{commit}<br><b>Target</b>: <code>{e(str(preview.target.skills_dir))}</code> "
                     f"({e(preview.target.label)})</p>")
    for plan in preview.skills:
        parts.append(f"<h3>{e(plan.name)} <small>→ {e(str(plan.dest))}</small></h3>")
        for label, errors, warnings in validation_groups(plan):
            parts.append(f"<p><b>{e(label)}</b>: {len(errors)} error(s), {len(warnings)} warning(s)</p>")
            if errors or warnings:
                parts.append("<ul>")
                for d in errors + warnings:
                    parts.append(f"<li>{_badge(d.severity.value, d.severity.value)} {e(d.code.split(':', 1)[-1])}: "
                                 f"{e(d.message)}</li>")
                parts.append("</ul>")
        findings = plan.audit.findings if plan.audit else []
        if findings:
            parts.append(f"<p><b>Audit</b>: {len(findings)} finding(s)</p><ul>")
            for f in findings[:30]:
                parts.append(f"<li>{_badge(f.severity, f.severity)} <b>{e(f.rule)}</b> "
                             f"{e(f.file.name)}:{f.line}: {e(f.message)}</li>")
            parts.append("</ul>")
        else:
            parts.append("<p><b>Audit</b>: no findings</p>")
    parts.append(f"<p><b>{e(budget_line(preview))}</b></p>")
    delta = preview.delta
    if delta is not None and (delta.added or delta.shortened or delta.removed):
        parts.append("<table cellpadding=2>")
        after = {entry.name: entry for entry in delta.after.entries}
        for name in delta.added:
            parts.append(f"<tr><td>{_badge('new', 'info')}</td><td><code>{e(after[name].shown_text)}</code></td></tr>")
        for name, before, now in delta.shortened:
            parts.append(f"<tr><td>{_badge('shortened', 'medium')}</td><td><code>{e(before)}</code><br>→ "
                         f"<code>{e(now)}</code></td></tr>")
        for name in delta.removed:
            parts.append(f"<tr><td>{_badge('dropped', 'high')}</td><td><code>{e(name)}</code></td></tr>")
        parts.append("</table>")
    if preview.clashes:
        parts.append("<p><b>Name clashes</b></p><ul>" + "".join(f"<li>{e(c)}</li>" for c in preview.clashes)
                     + "</ul>")
    else:
        parts.append("<p><b>Name clashes</b>: none</p>")
    for note in preview.notes:
        parts.append(f"<p><i>{e(note)}</i></p>")
    gate = preview.gate
    level = {"ok": "info", "confirm": "high", "blocked": "critical", "refused": "critical"}[gate]
    parts.append(f"<p>{_badge(GATE_WORDS[gate], level)}</p>")
    if preview.gate_reason():
        parts.append(f"<p>{e(preview.gate_reason())}</p>")
    return "".join(parts)


class InstallDialog(QDialog):
    installed = Signal(object)  # core OperationResult

    def __init__(self, context, controller, parent=None, source: str = ""):
        super().__init__(parent)
        self.context, self.controller = context, controller
        self.setWindowTitle("Install skills")
        self.resize(820, 680)
        self.staged = None
        self.preview = None
        self.source_edit = QLineEdit(source, self)
        self.source_edit.setPlaceholderText("A folder, a .zip/.skill/.tar.gz file, or a git URL (https://…, git@…)")
        folder_button = QPushButton("Folder…", self)
        folder_button.clicked.connect(self._browse_folder)
        file_button = QPushButton("Archive…", self)
        file_button.clicked.connect(self._browse_archive)
        self.git_box = QCheckBox("Local folder is a git repository (record the commit for Update)", self)
        self.target_combo = QComboBox(self)
        for label, value in TARGETS:
            self.target_combo.addItem(label, value)
        self.target_combo.activated.connect(self._on_target)
        self.other_target = ""
        self.preview_button = QPushButton("Preview", self)
        self.preview_button.setDefault(True)
        self.preview_button.clicked.connect(self.start_preview)
        self.picks = QListWidget(self)
        self.picks.setMaximumHeight(110)
        self.picks.hide()
        self.picks.itemChanged.connect(lambda _item: self._refresh_preview())
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.confirm_box = QCheckBox("I have read the high findings and want to install it", self)
        self.override_box = QCheckBox("Override: install despite the critical finding (recorded in History)", self)
        for box in (self.confirm_box, self.override_box):
            box.hide()
            box.toggled.connect(self._update_buttons)
        self.buttons = QDialogButtonBox(self)
        self.install_button = self.buttons.addButton("Install", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.install_button.setEnabled(False)
        self.install_button.clicked.connect(self.install)
        self.buttons.rejected.connect(self.reject)

        source_row = QHBoxLayout()
        source_row.addWidget(self.source_edit, 1)
        source_row.addWidget(folder_button)
        source_row.addWidget(file_button)
        form = QFormLayout()
        form.addRow("Source", source_row)
        form.addRow("", self.git_box)
        target_row = QHBoxLayout()
        target_row.addWidget(self.target_combo, 1)
        target_row.addWidget(self.preview_button)
        form.addRow("Install into", target_row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.picks)
        layout.addWidget(self.status)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.confirm_box)
        layout.addWidget(self.override_box)
        layout.addWidget(self.buttons)
        self.setAcceptDrops(True)
        controller.failed.connect(self._on_failed)

    # --- input ------------------------------------------------------------------------------------
    def _browse_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Skill folder or repository")
        if folder:
            self.source_edit.setText(folder)
            self.start_preview()

    def _browse_archive(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Skill archive", "", "Archives (*.zip *.skill *.tar.gz *.tgz *.tar)")
        if path:
            self.source_edit.setText(path)
            self.start_preview()

    def _on_target(self, index: int) -> None:
        if self.target_combo.itemData(index) is None:
            folder = QFileDialog.getExistingDirectory(self, "Package or skills folder")
            if not folder:
                self.target_combo.setCurrentIndex(0)
                return
            self.other_target = folder
            self.target_combo.setItemText(index, folder)
        self._refresh_preview()

    def target_value(self) -> str:
        value = self.target_combo.currentData()
        return value if value is not None else self.other_target

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt API
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.source_edit.setText(urls[0].toLocalFile())
            self.start_preview()

    # --- preview -----------------------------------------------------------------------------------
    def start_preview(self) -> None:
        source = self.source_edit.text().strip()
        if not source:
            self.status.setText("Choose a folder, an archive or a repository first.")
            return
        self._drop_staged()
        self.preview = None
        self.picks.clear()
        self.picks.hide()
        self._set_busy("Fetching and checking…")
        git = self.git_box.isChecked()

        def work():
            from skillmanager.core.manage.sources import stage

            return stage(source, git=git)

        self.context.tasks.run(("install", "stage"), work, self._on_staged, self._on_failed)

    def _on_staged(self, staged) -> None:
        self.staged = staged
        self.picks.blockSignals(True)
        for candidate in staged.candidates:
            item = QListWidgetItem(f"{candidate.name}    ({candidate.rel})", self.picks)
            item.setData(Qt.ItemDataRole.UserRole, candidate.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if len(staged.candidates) == 1 else Qt.CheckState.Unchecked)
        self.picks.blockSignals(False)
        self.picks.setVisible(len(staged.candidates) > 1)
        if len(staged.candidates) > 1:
            self.status.setText(f"This source holds {len(staged.candidates)} skills: tick the ones to install.")
            self.browser.clear()
            self._update_buttons()
            return
        self._refresh_preview()

    def picked_names(self) -> list[str]:
        return [self.picks.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.picks.count())
                if self.picks.item(i).checkState() == Qt.CheckState.Checked]

    def set_picked(self, names) -> None:
        for i in range(self.picks.count()):
            item = self.picks.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) in names
                               else Qt.CheckState.Unchecked)

    def _refresh_preview(self) -> None:
        if self.staged is None:
            return
        names = self.picked_names()
        if not names:
            self.preview = None
            self.browser.clear()
            self._update_buttons()
            return
        staged, workspace, to = self.staged, self.controller.workspace, self.target_value()
        self._set_busy("Computing the preview…")

        def work():
            from skillmanager.core.manage.preview import preview_install, resolve_target

            picks = staged.pick(names)
            src = {"kind": staged.kind, "location": staged.location, "commit": staged.commit}
            return preview_install(workspace, resolve_target(workspace, to),
                                   [(c.name, c.staged_dir, c.rel) for c in picks], source=src)

        self.context.tasks.run(("install", "preview"), work, self._on_preview, self._on_failed)

    def _on_preview(self, preview) -> None:
        self.preview = preview
        self.status.setText("")
        self.browser.setHtml(preview_html(preview))
        self.confirm_box.setVisible(preview.gate == "confirm")
        self.override_box.setVisible(preview.gate == "blocked")
        self.confirm_box.setChecked(False)
        self.override_box.setChecked(False)
        self._update_buttons()

    def _on_failed(self, error) -> None:
        self.status.setText(f"<span style='color:#c62828'>{html.escape(str(error))}</span>")
        self.preview_button.setEnabled(True)
        self._update_buttons()

    def _set_busy(self, text: str) -> None:
        self.status.setText(text)
        self.install_button.setEnabled(False)

    def _update_buttons(self) -> None:
        preview = self.preview
        self.preview_button.setEnabled(True)
        if preview is None:
            self.install_button.setEnabled(False)
            return
        gate = preview.gate
        allowed = gate == "ok" or (gate == "confirm" and self.confirm_box.isChecked()) or \
            (gate == "blocked" and self.override_box.isChecked())
        self.install_button.setEnabled(allowed)

    # --- install -----------------------------------------------------------------------------------
    def install(self) -> None:
        if self.preview is None:
            return
        self.install_button.setEnabled(False)
        self.controller.install(self.preview, confirm_high=self.confirm_box.isChecked(),
                                force=self.override_box.isChecked(), done=self._on_installed)

    def _on_installed(self, result) -> None:
        self.installed.emit(result)
        self._drop_staged()
        self.accept()

    def _drop_staged(self) -> None:
        if self.staged is not None:
            self.staged.cleanup()
            self.staged = None

    def done(self, code: int) -> None:  # accept / reject / close
        self._drop_staged()
        try:
            self.controller.failed.disconnect(self._on_failed)
        except (RuntimeError, TypeError):
            pass
        super().done(code)
