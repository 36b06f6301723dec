"""skillmanager: see which Claude Code skills exist, which win, and what the model is sent."""

__version__ = "0.1.0"
