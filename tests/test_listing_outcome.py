"""Each skill's outcome in the real start-up listing, and the budget remedy.

The outcomes are checked against listings the real Claude Code sent (tests/golden/base*/<profile>.json,
recorded with the oracle harness on the oracle fixture, forced budgets included): a name the CLI sent as
`- name` is "name-only", a description it cut (ending in `…`) is "shortened", a name it did not send is
"not-listed". The remedy is checked by applying it and reading the listing the engine then builds.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skillmanager.cli import main
from skillmanager.core.edit.batch import plan_batch
from skillmanager.core.edit.toggle import apply_plan, undo
from skillmanager.core.layers.listing import CUT_BUDGET, CUT_NAMES_ONLY_LEVEL, HEADER, build_listing
from skillmanager.core.layers.listing_outcome import Outcome, listing_outcomes
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.rules.remedy import budget_remedy
from test_listing_oracle import _golden_cases, _golden_options, entries_of, entry_name, work  # noqa: F401

OUTCOMES = {o.value for o in Outcome}


def list_json(root: Path, profile: str, *extra: str) -> list[dict]:
    out = io.StringIO()
    code = main(["list", "--json", "--profile", profile, "--home", str(root / "home"), "--cwd",
                 str(root / "home" / "proj"), "--managed-dir", str(root / "managed" / "claude-code"), "--add-dir",
                 str(root / "extra"), "--plugin-dir", str(root / "plugin"), *extra], out=out)
    assert code in (0, 1)
    return json.loads(out.getvalue())


def _golden_kind(line: str, name: str) -> str:
    if line.rstrip() == f"- {name}":
        return "name-only"
    return "shortened" if line.rstrip().endswith("\u2026") else "full"


@pytest.mark.parametrize(("path", "profile"), _golden_cases())
def test_outcome_agrees_with_what_the_real_cli_sent(work, path, profile):  # noqa: F811
    data = json.loads(path.read_text(encoding="utf-8"))
    listing = data.get("listing") or {}
    expected = listing.get("text", "") if isinstance(listing, dict) else listing
    if HEADER not in expected:
        pytest.skip(f"{path} holds no listing")
    skills = list_json(work, profile, *_golden_options(data))
    names = sorted({s["name"] for s in skills}, key=len, reverse=True)
    sent: dict[str, list[str]] = {}
    for line in entries_of(expected):  # the longest of our names the line is an entry of (`plug:cmd` before `plug`)
        name = next((n for n in names if line.rstrip() == f"- {n}" or line.startswith((f"- {n}: ", f"- {n} ("))),
                    entry_name(line))
        sent.setdefault(name, []).append(line)
    for item in skills:  # present and never null on every entry
        assert item["listing_outcome"] in OUTCOMES, item["name"]
        assert item["reasons"]["listing_outcome"], item["name"]
        assert item["listed"] in ("full", "name-only", "no")
    checked = 0
    for name in {s["name"] for s in skills}:
        copies = [s for s in skills if s["name"] == name]
        ours = sorted(s["listing_outcome"] for s in copies if s["listing_outcome"] != "not-listed")
        if any(s["source"] in ("bundled", "builtin-command") for s in copies):
            assert all(o == "full" for o in ours)  # Claude Code's own entries: as it writes them
            continue
        theirs = sorted(_golden_kind(line, name) for line in sent.get(name, []))
        if name in ("legacy-cmd", "frontend:build", "nodesc") and profile == "legacy":
            theirs = sorted(set(theirs))  # unstable ripgrep order / copies: compare kinds only
            ours = sorted(set(ours))
        assert ours == theirs, (name, ours, theirs)
        checked += 1
    assert checked >= 5


def _home(tmp_path: Path, count: int = 12) -> Path:
    skills = tmp_path / "home" / ".claude" / "skills"
    for i in range(count):
        folder = skills / f"skill-{i:02d}"
        folder.mkdir(parents=True)
        words = "describes a careful step " + "x" * (15 * i)  # 40 to 205 characters: under both per-entry caps
        (folder / "SKILL.md").write_text(f"---\ndescription: Skill {i} {words}.\n---\nbody\n", encoding="utf-8")
    (tmp_path / "home" / "proj").mkdir()
    return tmp_path


def _registry(root: Path, profile: str, budget: int):
    ws = Workspace.create(home=root / "home", cwd=root / "home" / "proj", managed_root=None, profile=profile,
                          env={"HOME": str(root / "home")}, budget=budget)
    return load_registry(ws)


def _budget_cuts(registry) -> list[str]:
    return [e.name for e in build_listing(registry).entries
            if CUT_BUDGET in e.reasons or CUT_NAMES_ONLY_LEVEL in e.reasons]


@pytest.mark.parametrize(("profile", "state"), [("current", "name-only"), ("legacy", "hidden")])
def test_budget_remedy_applied_leaves_no_cut_and_undoes(tmp_path, monkeypatch, profile, state):
    monkeypatch.setenv("SKILLMANAGER_DATA_DIR", str(tmp_path / "appdata"))
    root = _home(tmp_path)
    budget = build_listing(_registry(root, profile, 1_000_000)).totals.full_total - 400
    registry = _registry(root, profile, budget)
    listing = build_listing(registry)
    outcomes = listing_outcomes(registry, listing)
    assert _budget_cuts(registry), "the fixture must overflow the budget"
    cut = [k for k, o in outcomes.items() if o.outcome in (Outcome.SHORTENED, Outcome.NAME_ONLY)]
    remedy = budget_remedy(registry, listing, outcomes)
    assert remedy is not None and remedy.state == state and remedy.enough
    assert remedy.cut_count == len(cut) and f"{len(cut)} descriptions are cut" in remedy.headline
    assert remedy.names[0] == "skill-11"  # the largest first when no usage is known
    usage = {s.key: (0 if s.name == "skill-03" else 50) for s in registry.skills}
    ranked = budget_remedy(registry, listing, outcomes, usage)
    assert ranked.names[0] == "skill-03"  # the unused one goes first
    before = {p: p.read_bytes() for p in (root / "home").rglob("*") if p.is_file()}
    by_key = {s.key: s for s in registry.skills}
    plan = plan_batch(registry, [(by_key[k], remedy.state) for k in remedy.keys], label="budget remedy")
    assert plan.ok and plan.edits
    applied = apply_plan(plan)
    after = _registry(root, profile, budget)
    assert _budget_cuts(after) == []
    outcomes_after = listing_outcomes(after)
    assert not any(o.outcome is Outcome.SHORTENED for o in outcomes_after.values())
    if profile == "legacy":  # 2.1.88 has no skillOverrides: nothing in settings, only front matter
        assert not (root / "home" / ".claude" / "settings.json").exists()
        assert len(plan.edits) == len(remedy.keys)
    else:  # one settings file, written once, holding every name
        assert len(plan.edits) == 1
        written = json.loads(plan.edits[0].path.read_text())["skillOverrides"]
        assert written == {name: "name-only" for name in remedy.names}
        assert all(outcomes_after[k].outcome is Outcome.NAME_ONLY and outcomes_after[k].cause == "setting"
                   for k in remedy.keys)
    undo(applied)
    restored = {p: p.read_bytes() for p in (root / "home").rglob("*") if p.is_file()}
    assert restored == before
    assert _budget_cuts(_registry(root, profile, budget)) == _budget_cuts(registry)


def test_no_remedy_when_everything_fits(tmp_path):
    root = _home(tmp_path, 3)
    registry = _registry(root, "current", 100_000)
    listing = build_listing(registry)
    outcomes = listing_outcomes(registry, listing)
    assert budget_remedy(registry, listing, outcomes) is None
    assert {o.outcome for k, o in outcomes.items() if "skill-" in k} == {Outcome.FULL}
