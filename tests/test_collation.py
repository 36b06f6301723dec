"""locale_compare_key orders names as Bun's localeCompare (Claude Code 2.1.3xx's sort of skills and commands).

Golden: tests/golden/collation/bun-sorted.json, recorded with Bun (tests/oracle/measure_collation.py).
End to end, fuzz-reg-1011 (current) lists `deep:s86-1011` before `Kappa` before `s29-1011`.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillmanager.core.js.collation import locale_compare_key

GOLDEN = Path(__file__).resolve().parent / "golden" / "collation" / "bun-sorted.json"


def test_random_names_sort_as_bun_sorts_them():
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert len(data["names"]) >= 1000
    assert sorted(data["names"], key=locale_compare_key) == data["bun_order"]


@pytest.mark.parametrize("ordered", [
    ["a", "A", "a_b", "a-b", "a:b", "a.b", "a0", "a9", "ab", "aB", "Ab", "al-pha", "alpha", "B"],
    ["cafe", "café", "cafg"],
    ["o", "ø", "od", "oe", "œ", "p"],
    ["deep:s86-1011", "Kappa", "kappb", "s29-1011"],
])
def test_known_orders(ordered):
    assert sorted(reversed(ordered), key=locale_compare_key) == ordered
