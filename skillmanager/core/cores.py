"""How many CPU cores this process may run on: what the worker processes (badges, a first scan's parse-ahead)
are sized by."""
from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (a container's or a taskset's on Linux), else the machine's; at least 1."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
