"""A page that may skip snapshots while another page is shown, and catches up when it is shown again."""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

from skillmanager.gui.engine import Snapshot


class CatchUpPage(QWidget):
    """Subclasses set `_stale` to the snapshot they skipped (rebuilding a hidden page on every file edit cost
    hundreds of ms) and clear it in `apply_snapshot`; showing the page applies it."""

    _stale: Snapshot | None = None

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        raise NotImplementedError

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._stale is not None:
            self.apply_snapshot(self._stale)
