"""The audit's high/critical findings on the real corpus equal the reviewed list (a new high must be reviewed)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillmanager.core.checks.audit import audit_paths, level_index

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
VERDICTS = Path(__file__).parent / "data" / "audit_real_corpus_verdicts.json"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside this checkout")
def test_real_corpus_highs_equal_the_reviewed_list():
    skills = sorted(p.parent for p in CORPUS.rglob("SKILL.md"))
    assert len(skills) == 1017
    current = sorted([f.file.resolve().relative_to(CORPUS).as_posix(), f.line, f.rule, f.severity]
                     for a in audit_paths(skills) for f in a.findings if level_index(f.severity) >= level_index("high"))
    reviewed = sorted(entry[:4] for entry in json.loads(VERDICTS.read_text())["findings"])
    assert current == reviewed
