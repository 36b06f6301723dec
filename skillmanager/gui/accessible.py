"""Accessible names for interactive widgets that have none yet: from the placeholder, the label that
names it, or the first clause of its tooltip (what a sighted user reads there)."""
from __future__ import annotations

import re

from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QComboBox, QLabel, QLineEdit, QWidget

INTERACTIVE = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView)


def derived_name(widget: QWidget) -> str:
    if isinstance(widget, QAbstractButton) and widget.text().strip(" &✕…"):
        return widget.text().replace("&", "")
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        return widget.placeholderText()
    if isinstance(widget, QComboBox) and widget.lineEdit() is not None and widget.lineEdit().placeholderText():
        return widget.lineEdit().placeholderText()
    parent = widget.parentWidget()
    if parent is not None:
        for label in parent.findChildren(QLabel):
            if label.buddy() is widget and label.text():
                return label.text().replace("&", "")
    tip = re.sub(r"<[^>]+>", "", widget.toolTip() or "").strip()
    if tip:
        return re.split(r"[.:;\n(]", tip, maxsplit=1)[0].strip()[:80]
    return ""


def name_unnamed(root: QWidget) -> list[QWidget]:
    """Give every interactive child without an accessible name a derived one; returns those left without."""
    left = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, INTERACTIVE) or widget.accessibleName():
            continue
        name = derived_name(widget)
        if name:
            widget.setAccessibleName(name)
        else:
            left.append(widget)
    return left
