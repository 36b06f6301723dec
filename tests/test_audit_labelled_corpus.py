"""The labelled corpus (tests/data/audit_corpus): detection >= 90 %, false alarms <= 5 %, asserted.

Each skill folder carries label.json: {"malicious": bool, "techniques": [...], "expected_min_severity": level,
"holdout": bool}. The holdout part was written before the rules it exercises (its first-run figures are in
benchmarks/README.md).
A malicious skill is detected when its worst finding reaches expected_min_severity; a benign skill is a
false alarm when it has a high or critical finding.
"""
from __future__ import annotations

import json
from pathlib import Path

from skillmanager.core.checks.audit import audit_skill, level_index

CORPUS = Path(__file__).parent / "data" / "audit_corpus"
BLIND = Path(__file__).parent / "data" / "audit_blind"  # second blind set ("blind_2"), first run in benchmarks/README.md


def _cases():
    labels = sorted(CORPUS.glob("*/*/label.json")) + sorted(BLIND.glob("*/*/label.json"))
    return [(label.parent, json.loads(label.read_text())) for label in labels]


def test_corpus_is_large_and_labelled():
    cases = _cases()
    assert sum(label["malicious"] for _, label in cases) >= 130 and sum(not label["malicious"] for _, label in cases) >= 80
    holdout = [label for _, label in cases if label.get("holdout")]
    assert sum(label["malicious"] for label in holdout) >= 50 and sum(not label["malicious"] for label in holdout) >= 30
    for folder, label in cases:
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
        assert "expected_min_severity" not in text and "label.json" not in text  # labels live outside SKILL.md


def test_detection_and_false_alarm_rates():
    detected = missed = alarms = benign = 0
    misses, false_alarms = [], []
    for folder, label in _cases():
        worst = audit_skill(folder / "SKILL.md").max_severity
        if label["malicious"]:
            ok = worst is not None and level_index(worst) >= level_index(label["expected_min_severity"])
            detected += ok
            missed += not ok
            if not ok:
                misses.append(folder.name)
        else:
            benign += 1
            if worst is not None and level_index(worst) >= level_index("high"):
                alarms += 1
                false_alarms.append(folder.name)
    assert detected / (detected + missed) >= 0.90, misses
    assert alarms / benign <= 0.05, false_alarms


def test_rates_per_technique():
    """Each technique on its own: >= 90 % of its malicious skills detected, <= 5 % of its benign skills
    raised to high (with fewer than 20 benign skills of a technique that means none)."""
    found: dict[str, list[int]] = {}
    alarms: dict[str, list[int]] = {}
    for folder, label in _cases():
        worst = audit_skill(folder / "SKILL.md").max_severity
        level = level_index(worst) if worst is not None else -1
        for tech in label["techniques"]:
            if label["malicious"]:
                row = found.setdefault(tech, [0, 0])
                row[0] += level >= level_index(label["expected_min_severity"])
            else:
                row = alarms.setdefault(tech, [0, 0])
                row[0] += level >= level_index("high")
            row[1] += 1
    assert {t: r for t, r in found.items() if r[0] / r[1] < 0.90} == {}
    assert {t: r for t, r in alarms.items() if r[0] / r[1] > 0.05} == {}
