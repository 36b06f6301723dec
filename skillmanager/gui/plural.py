"""Counts in sentences (no imports, so every GUI module can use it)."""


def counted(count: int, noun: str) -> str:
    """`1 problem`, `3 problems`: a count with its noun, plural when the count is not one."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
