"""The quick filters' buckets (core.rules.buckets) on the demo workspace, whose skills are built to be
one of each case: a deny rule, an override "off", a name-only setting, clashing names, a front matter that
does not parse, a piped download, path-conditional skills; and a budget too small for every description."""
from __future__ import annotations

import pytest

from skillmanager.core.checks.skill_checks import check_skill
from skillmanager.core.demo import create_demo_workspace
from skillmanager.core.edit.switch import switch_facts
from skillmanager.core.layers.listing import build_listing
from skillmanager.core.layers.listing_outcome import listing_outcomes
from skillmanager.core.model import SourceKind
from skillmanager.core.rules.buckets import Bucket, bucket_counts, contested_names, skill_buckets
from skillmanager.core.rules.registry import load_registry


def _buckets(workspace, with_checks=True):
    registry = load_registry(workspace)
    outcomes = listing_outcomes(registry, build_listing(registry))
    contested = contested_names(registry)
    found = {}
    for skill in registry.skills:
        own = skill.source not in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)
        is_on = switch_facts(registry, skill).is_on if own and skill.state.is_winner else None
        badge = (check_skill(skill.path, kind=skill.kind, name=skill.name, profile=registry.profile,
                             known=skill.diagnostics).badge if with_checks and skill.path else None)
        found[(skill.name, skill.source.value)] = skill_buckets(skill, is_on=is_on, outcome=outcomes.get(skill.key),
                                                               badge=badge, contested=contested)
    return found


@pytest.mark.parametrize("profile", ["current", "legacy"])
def test_each_kind_of_skill_lands_in_its_buckets(tmp_path, profile):
    found = _buckets(create_demo_workspace(tmp_path / "demo", profile=profile))
    assert Bucket.OFF in found[("db-reset", "project")]  # a deny rule
    assert Bucket.ON in found[("standup-notes", "user")] and Bucket.OFF not in found[("standup-notes", "user")]
    assert found[("commit-message", "user")] == {Bucket.CONFLICTS}  # a shadowed copy: neither on nor off
    assert {Bucket.CONFLICTS, Bucket.ON} <= found[("commit-message", "managed")]
    assert Bucket.WAITING in found[("sql-review", "project")]
    assert Bucket.NEEDS_REVIEW in found[("quick-setup", "project")]  # curl | sh: a critical finding
    assert Bucket.NEEDS_REVIEW in found[("broken-yaml", "project")]  # front matter that does not parse
    assert Bucket.NEEDS_REVIEW not in found[("env-check", "project")]  # medium findings: worth a look only
    assert Bucket.SHORTENED not in found[("verbose-logger", "project")]  # name only by its own setting
    shortened = {key for key, b in found.items() if Bucket.SHORTENED in b}
    # the default budget fits the demo; 2.1.88 also caps each description (incident-runbook's is longer)
    assert shortened == (set() if profile == "current" else {("incident-runbook", "project")})
    bundled = [b for (name, source), b in found.items() if source == "bundled"]
    assert bundled and all(b == {Bucket.ON} for b in bundled)


def test_parse_errors_need_review_before_the_checks_ran(tmp_path):
    found = _buckets(create_demo_workspace(tmp_path / "demo"), with_checks=False)
    assert Bucket.NEEDS_REVIEW in found[("broken-yaml", "project")]
    assert Bucket.NEEDS_REVIEW not in found[("quick-setup", "project")]  # its finding comes with the checks


def test_a_small_budget_fills_shortened_and_counts_cover_every_bucket(tmp_path):
    found = _buckets(create_demo_workspace(tmp_path / "demo", budget=1800), with_checks=False)
    shortened = {key for key, b in found.items() if Bucket.SHORTENED in b}
    assert ("standup-notes", "user") in shortened and not any(source == "bundled" for _n, source in shortened)
    assert ("verbose-logger", "project") not in shortened
    counts = bucket_counts(found.values())
    assert set(counts) == set(Bucket) and counts[Bucket.SHORTENED] == len(shortened)
    assert counts[Bucket.ON] + counts[Bucket.OFF] == sum(1 for b in found.values() if b & {Bucket.ON, Bucket.OFF})
