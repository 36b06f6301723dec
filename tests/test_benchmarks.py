"""The benchmarks measure the right thing: their workspaces have the documented shape and the fast paths they
time give what the slow paths give there. (Not timed: speed is printed by the benchmarks, not asserted.)"""
from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from skillmanager.core.versions.profiles import get_profile

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import realistic  # noqa: E402
from skillmanager import cli  # noqa: E402
from skillmanager.commands.common import skill_to_json  # noqa: E402
from skillmanager.core.layers import listing as listing_module  # noqa: E402
from skillmanager.core.load import parse_cache  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return realistic.build(tmp_path_factory.mktemp("realistic"), 400, packages=20)


def test_realistic_workspace_has_the_documented_shape(small):
    assert len(small.files) == 400
    where = Counter("personal" if small.home / ".claude" in p.parents else "plugin" if small.plugin in p.parents
                    else "package" if any(d in p.parents for d in small.add_dirs) else "project" for p in small.files)
    assert where == {"personal": 40, "project": 40, "package": 300, "plugin": 20}
    names = Counter(p.parent.name for p in small.files)
    assert max(names.values()) > 1  # packages share skill names
    workspace = small.workspace()
    workspace.managed_root = None
    registry = load_registry(workspace)
    assert sum(1 for s in registry.skills if s.path is not None) == 400
    assert any(s.display_name for s in registry.skills)
    assert any(s.when_to_use for s in registry.skills)
    assert len({s.group for s in registry.skills if s.path is not None}) >= 20


def test_floor_and_reference_read_every_file(small):
    assert realistic.floor_scan(small.files) >= 390  # files whose front matter is a mapping
    counted = realistic.skills_ref_scan(small.files[:20])
    assert counted is None or 0 < counted <= 20


def test_scan_benchmark_paths_agree(small, tmp_path):
    workspace = small.workspace()
    workspace.managed_root = None
    fresh = load_registry(workspace)
    cache = parse_cache.ParseCache.open(workspace.profile, tmp_path)
    with parse_cache.using(cache):
        load_registry(workspace)
    realistic.age_cache(tmp_path)
    cache = parse_cache.ParseCache.open(workspace.profile, tmp_path)
    with parse_cache.using(cache):
        cached = load_registry(workspace)
    assert cache.misses == 0 and cache.hits == 400
    assert [(skill_to_json(s), s.body) for s in cached.skills] == [(skill_to_json(s), s.body) for s in fresh.skills]


def test_listing_benchmark_paths_agree(small):
    workspace = small.workspace()
    workspace.managed_root = None
    registry = load_registry(workspace)
    for profile in map(get_profile, ("legacy", "current")):
        listing_module._ROW_TEXT.clear()
        first = listing_module.build_listing(registry, profile)
        again = listing_module.build_listing(registry, profile)
        assert again.text == first.text
        assert [e.to_json() for e in again.entries] == [e.to_json() for e in first.entries]
        # the dict lookup of display names answers as the linear scan does
        entries = listing_module.entries_from_registry(registry, profile, listed_only=False)
        index = listing_module.NameIndex(entries)
        for entry in entries:
            for name in (entry.name, entry.display_name or entry.name, "nope"):
                assert index.resolve(name) is listing_module._resolve(name, entries)


def test_whole_process_listing_is_the_same_with_and_without_the_cache(small, tmp_path, monkeypatch):
    monkeypatch.setenv(parse_cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    args = ["listing", *small.cli_args(), "--no-managed"]
    outputs = []
    for extra in (["--no-cache"], [], []):
        out = io.StringIO()
        assert cli.main(args + extra, out=out) == 0
        outputs.append(out.getvalue())
        realistic.age_cache(tmp_path / "cache")
    assert outputs[0] == outputs[1] == outputs[2]


def test_simulator_monorepo_shares_names(tmp_path):
    repo = realistic.build_monorepo(tmp_path, packages=30, names=3)
    names = Counter(p.parent.name for p in (repo / "packages").rglob("SKILL.md"))
    assert len(names) == 3 and min(names.values()) >= 20


@pytest.mark.parametrize("script", ["scan.py", "listing.py", "simulate.py", "cli.py", "gui.py", "claude_code_load.py"])
def test_benchmark_scripts_start(script):
    """Each script parses its options (a broken import or option table fails here, not in a long run)."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"], capture_output=True,
                            text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
                                                         "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()


def test_listing_from_a_registry_equals_the_listing_of_its_adapted_entries(tmp_path):
    """build_listing resolves display names against the registry's skills; the general path adapts every
    loaded skill into a ListingEntry and scans them. Every skill has a display name here."""
    workspace = realistic.build(tmp_path / "ws", skills=300, packages=12, display_share=1.0).workspace()
    workspace.managed_root = None
    registry = load_registry(workspace)
    for profile in map(get_profile, ("legacy", "current")):
        fast = listing_module.build_listing(registry, profile)
        entries = listing_module.entries_from_registry(registry, profile)
        every = listing_module.entries_from_registry(registry, profile, listed_only=False)
        facts = listing_module.budget_facts(profile, model=registry.model or None,
                                            context_window=workspace.context_window, budget=workspace.budget,
                                            settings=registry.settings)
        general = listing_module.format_listing(entries, profile, facts, settings=registry.settings,
                                                all_entries=every, model=registry.model or None)
        assert fast.text == general.text
        assert [e.to_json() for e in fast.entries] == [e.to_json() for e in general.entries]
        assert [e.shown_name for e in fast.entries] == [listing_module.shown_name(e, profile, every) for e in entries]
        assert " (" in fast.body or profile.name == "legacy"  # display names shown in current
