"""Shared pytest setup (keep minimal: other test modules rely on it)."""
import os

# Qt tests run without a display: use the offscreen platform unless the caller chose one.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
