"""Canary for the PySide6 refcount bug: 6.12 on Python 3.11 loses a reference to True/None on every
signal emit carrying them (the process aborts after a few hundred emits). On 3.12+ True and None are
immortal, so the refcount check passes trivially there; the dependency marker is what protects 3.11."""
from __future__ import annotations

import sys
from importlib.metadata import version

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QObject, Signal  # noqa: E402

EMITS = 3000


class _Emitter(QObject):
    carried = Signal(object)


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


@pytest.mark.parametrize("value", [True, None, False])
def test_emitting_singletons_keeps_their_refcount(qapp, value):
    emitter = _Emitter()
    received = []
    emitter.carried.connect(lambda v: received.append(v is value))
    before = sys.getrefcount(value)
    for _ in range(EMITS):
        emitter.carried.emit(value)
    received_all = all(received) and len(received) == EMITS
    received.clear()
    after = sys.getrefcount(value)
    assert received_all
    assert abs(after - before) <= 2, f"refcount of {value!r} drifted from {before} to {after}"


def test_environment_marker_invariant():
    """Python < 3.12 must run PySide6 < 6.12 (pyproject's environment markers)."""
    pyside = _version_tuple(version("PySide6-Essentials") if _has("PySide6-Essentials") else version("PySide6"))
    if sys.version_info < (3, 12):
        assert pyside < (6, 12), f"PySide6 {pyside} on Python {sys.version_info[:2]} corrupts refcounts"
    else:
        assert pyside >= (6, 8)


def _has(dist: str) -> bool:
    try:
        version(dist)
        return True
    except Exception:  # noqa: BLE001
        return False
