"""The listing, its cut reasons and token counts after a one-file refresh (core.rules.incremental, then
build_listing(previous=...), listing_outcomes(previous=...) and the engine's token counts reusing what the
previous refresh measured) equal a listing built from scratch after a full load, for any edit sequence."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from skillmanager.core.layers.listing import build_listing
from skillmanager.core.layers.listing_outcome import OutcomeReuse, listing_outcomes
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.incremental import refresh_paths, skill_identity
from skillmanager.core.rules.registry import load_registry
from support import four_source_tree, skill_md, write

_NAMES = ["alpha", "beta", "gamma", "Zed"]
_PLACES = ["user", "project", "add-dir", "add-dir-2"]
# a `name:` may be another skill's name (it then resolves to that skill: no bracket), or a clean display name
_DISPLAY = ["beta", "gamma", "Shown-One", "Shown-Two", "bad name!"]
_OPS = st.lists(st.one_of(
    st.tuples(st.sampled_from(["edit", "add", "remove", "break", "hide", "when"]), st.sampled_from(_PLACES),
              st.sampled_from(_NAMES), st.integers(0, 60)),
    st.tuples(st.just("display"), st.sampled_from(_PLACES), st.sampled_from(_NAMES), st.sampled_from(_DISPLAY)),
    st.tuples(st.just("toggle"), st.just("settings"), st.sampled_from(_NAMES),
              st.sampled_from(["on", "name-only", "off", "user-invocable-only"])),
), min_size=1, max_size=6)




def make_workspace(root: Path, profile: str, budget: str) -> tuple[Workspace, dict[str, Path], Path]:
    home, cwd, add_dirs, bases = four_source_tree(root, _NAMES[:3], words=30)
    write(bases["user"] / "Zed" / "SKILL.md", skill_md("user Zed", "name: Shown-One\n"))
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    workspace = Workspace.create(home=home, cwd=cwd, managed_root=False, add_dirs=add_dirs, env=env,
                                 profile=profile, budget=int(budget))
    return workspace, bases, home / ".claude/settings.json"


def apply(op: tuple, bases: dict[str, Path], settings: Path, step: int) -> list[Path]:
    """Change the files as an editor would; the paths a watcher reports."""
    kind, where, name, arg = op
    if kind == "toggle":
        overrides = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
        overrides.setdefault("skillOverrides", {})[name] = arg
        return [write(settings, json.dumps(overrides))]
    path = bases[where] / name / "SKILL.md"
    exists = path.exists()
    if kind == "add" or (kind == "edit" and exists):
        write(path, skill_md(f"{where} {name} {step} " + "more " * arg))
    elif kind == "remove" and path.parent.exists():
        shutil.rmtree(path.parent)
    elif kind == "break" and exists:
        path.write_text("---\ndescription: [unclosed\nname: x\n---\nbody\n", encoding="utf-8")
    elif kind == "hide" and exists:
        path.write_text(skill_md(f"{where} {name}", "disable-model-invocation: true\n"), encoding="utf-8")
    elif kind == "when" and exists:
        path.write_text(skill_md(f"{where} {name}", f"when_to_use: when {'asked ' * arg}\n"), encoding="utf-8")
    elif kind == "display" and exists:
        path.write_text(skill_md(f"{where} {name} {step}", f"name: {arg}\n"), encoding="utf-8")
    return [path, path.parent]


def listing_view(listing) -> dict:
    """Everything a listing says: its text, totals, and per entry the shown text and why it is cut."""
    return {"text": listing.text, "totals": listing.totals.to_json(),
            "entries": [(e.name, e.shown_name, e.kind, e.full_text, e.shown_text, e.width, e.shown_width,
                         e.length, e.cut, e.why, list(e.reasons), e.fixed, e.placeholder, e.key)
                        for e in listing.entries]}


@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# budgets where the listing is cut everywhere, cut in part (an edit elsewhere moves the cut) and not at all
@given(ops=_OPS, profile=st.sampled_from(["current", "legacy"]),
       budget=st.sampled_from(["400", "1500", "2500", "3200", "7000", "8200", "100000"]))
def test_incremental_listing_equals_a_listing_from_scratch(tmp_path_factory, ops, profile, budget):
    workspace, bases, settings = make_workspace(tmp_path_factory.mktemp("listing"), profile, budget)
    registry = load_registry(workspace)
    listing = build_listing(registry, reusable=True)
    reuse = OutcomeReuse()
    listing_outcomes(registry, listing, keep=reuse)
    for step, op in enumerate(ops):
        paths = apply(op, bases, settings, step)
        delta = refresh_paths(registry, [str(p) for p in paths])
        registry = delta.registry
        listing = build_listing(registry, previous=listing)
        kept = OutcomeReuse()
        outcomes = listing_outcomes(registry, listing, previous=reuse, keep=kept)
        reuse = kept
        fresh_registry = load_registry(workspace)
        fresh = build_listing(fresh_registry)
        assert listing_view(listing) == listing_view(fresh), (op, delta.reason)
        assert outcomes == listing_outcomes(fresh_registry, fresh), op


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, profile=st.sampled_from(["current", "legacy"]),
       budget=st.sampled_from(["1500", "3200", "7000", "8200"]))
def test_the_engines_listing_cut_reasons_and_token_counts_equal_a_fresh_scan(tmp_path_factory, ops, profile, budget):
    """The window's refresh (engine.refresh_incremental) against engine.scan: listing text, each entry's cut
    reasons and shown text, token counts, outcomes, contested names and the budget remedy."""
    from skillmanager.gui.engine import refresh_incremental, scan

    workspace, bases, settings = make_workspace(tmp_path_factory.mktemp("engine"), profile, budget)
    snapshot = scan(workspace)
    for step, op in enumerate(ops):
        paths = apply(op, bases, settings, step)
        snapshot = refresh_incremental(snapshot, [str(p) for p in paths]) or snapshot
        fresh = scan(workspace)
        assert snapshot.listing.text == fresh.listing.text, op
        assert {k: (e.shown_text, list(e.reasons)) for k, e in snapshot.entries.items()} == \
            {k: (e.shown_text, list(e.reasons)) for k, e in fresh.entries.items()}, op
        assert snapshot.tokens == fresh.tokens, op
        assert snapshot.outcomes == fresh.outcomes, op
        assert snapshot.contested == fresh.contested, op
        assert snapshot.conflict_count == fresh.conflict_count, op
        assert snapshot.remedy == fresh.remedy, op


def test_a_one_file_edit_measures_and_counts_only_that_entry(tmp_path, monkeypatch):
    """Every entry, row and result but those of the skills the refresh replaced (the edited file and the
    copies of its name, which are re-decided) is the previous listing's own object, and only their shown
    texts have their tokens counted again."""
    from skillmanager.gui import engine

    workspace, bases, _settings = make_workspace(tmp_path, "current", "100000")
    snapshot = engine.scan(workspace)
    before = snapshot.listing
    edited = bases["project"] / "gamma" / "SKILL.md"
    write(edited, skill_md("project gamma, edited"))
    counted: list[str] = []
    real = engine._cached_tokens
    monkeypatch.setattr(engine, "_cached_tokens", lambda text: counted.append(text) or real(text))
    deltas = []
    after = engine.refresh_incremental(snapshot, [str(edited)], on_rows=lambda _partial, delta: deltas.append(delta))
    replaced = {skill_identity(skill) for skill in deltas[0].changed}
    assert {identity[2] for identity in replaced} == {"gamma", "extra:gamma", "extra2:gamma"}
    old_entries = {skill_identity(skill): entry for skill, entry in before.reusable.entries.values()}
    fresh_entries = [(skill_identity(skill), entry) for skill, entry in after.listing.reusable.entries.values()]
    remade = {identity for identity, entry in fresh_entries if old_entries.get(identity) is not entry}
    assert remade and remade <= replaced and len(fresh_entries) > 3 * len(remade)
    assert sorted(counted) == sorted(after.entries[identity].shown_text for identity in remade)
    old_results = {id(result) for result in before.entries}
    assert {e.key for e in after.listing.entries if id(e) not in old_results} == \
        {after.entries[identity].key for identity in remade}
    assert listing_view(after.listing) == listing_view(engine.scan(workspace).listing)
