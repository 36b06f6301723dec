"""A non-modal message bar above the main area (KMessageWidget style): an error or a note with its
reason, closed by the user or replaced by the next message; never blocks the window."""
from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton

_STYLES = {  # border and a light tint that reads on both palettes
    "error": ("#d0453b", "rgba(208, 69, 59, 0.14)"),
    "info": ("#3a7bd5", "rgba(58, 123, 213, 0.12)"),
}


class MessageBar(QFrame):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("message-bar")
        self.kind = "info"
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextFormat(self.text.textFormat().PlainText)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss")
        self.close_button.clicked.connect(self.hide)
        self.action_button = QToolButton(self)  # an optional "Show" that takes the user to the cause
        self.action_button.hide()
        self.action_button.clicked.connect(self._on_action)
        self._action = None
        self.topic = ""  # what the shown message is about (e.g. "problems"), so its owner can retract it
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.action_button)
        layout.addWidget(self.close_button)
        self.hide()

    def show_message(self, text: str, kind: str = "error", action: tuple[str, object] | None = None,
                     topic: str = "") -> None:
        """`action` = (button text, callback) for a one-click way to the cause; `topic` names the message."""
        self.kind = kind
        self.topic = topic
        self._action = action[1] if action else None
        self.action_button.setText(action[0] if action else "")
        self.action_button.setVisible(action is not None)
        border, tint = _STYLES.get(kind, _STYLES["info"])
        self.setStyleSheet(f"QFrame#message-bar {{ border: 1px solid {border}; border-radius: 4px; "
                           f"background: {tint}; }}")
        prefix = "Could not do that: " if kind == "error" else ""
        self.text.setText(prefix + text)
        self.text.setForegroundRole(QPalette.ColorRole.WindowText)
        self.show()

    def _on_action(self) -> None:
        if callable(self._action):
            self._action()

    def retract(self, topic: str) -> None:
        """Hide the bar if it still shows the message about `topic` (errors of other actions stay)."""
        if self.topic == topic and self.isVisible():
            self.hide()

    def message(self) -> str:
        return self.text.text() if self.isVisible() else ""
