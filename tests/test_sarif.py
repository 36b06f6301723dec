"""`audit --sarif` validates against the SARIF 2.1.0 JSON schema (committed file, offline)."""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import jsonschema

from skillmanager.core.checks.audit import audit_paths
from skillmanager.core.checks.sarif import to_sarif

DATA = Path(__file__).parent / "data"
SCHEMA_SHA256 = "1c49a0f2b60444c71bb14878e21e0d882198eff4c539861b133093ad89ed798c"  # see SARIF_SCHEMA_SOURCE.md


def _schema():
    raw = (DATA / "sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256
    return json.loads(raw)


def _validate(document):
    schema = _schema()
    validator_cls = jsonschema.validators.validator_for(schema)
    validator_cls.check_schema(schema)
    errors = sorted(validator_cls(schema).iter_errors(document), key=str)
    assert errors == [], [e.message for e in errors[:5]]


def test_sarif_of_every_audit_case_is_valid():
    audits = audit_paths(sorted((DATA / "audit_cases").iterdir()))
    document = to_sarif(audits, base=DATA)
    _validate(document)
    results = document["runs"][0]["results"]
    assert len(results) == sum(len(a.findings) for a in audits) > 10
    assert {r["level"] for r in results} == {"error", "warning", "note"}
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)


def test_schema_rejects_a_broken_log():
    broken = to_sarif([])
    broken["version"] = "2.0"
    try:
        _validate(broken)
    except AssertionError:
        return
    raise AssertionError("the schema accepted version 2.0")


def test_cli_sarif_output_is_valid():
    from skillmanager.cli import main
    out = io.StringIO()
    assert main(["audit", str(DATA / "audit_cases" / "download-exec"), "--sarif"], out) == 1
    _validate(json.loads(out.getvalue()))
