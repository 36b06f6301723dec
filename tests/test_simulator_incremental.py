"""The simulator's incremental offering (new copies merged into a name's group, sort keys computed once)
gives exactly what working every touched group out again gives, on monorepos whose packages share names."""
from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.simulator import session as session_module
from skillmanager.core.simulator.session import Session


def _skill(path: Path, text: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(text, encoding="utf-8")


def _monorepo(root: Path, packages: int, names: list[str], seed: int) -> Path:
    rng = random.Random(seed)
    repo = root / "home" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("packages/pkg-03/\n", encoding="utf-8")
    for p in range(packages):
        pkg = repo / "packages" / f"pkg-{p:02d}"
        for name in rng.sample(names, k=min(len(names), rng.randint(1, 3))):
            _skill(pkg / ".claude" / "skills" / name, f"---\ndescription: {name} for {p}\n---\nbody\n")
        (pkg / "src").mkdir(parents=True)
        (pkg / "src" / "a.ts").write_text("x\n", encoding="utf-8")
    _skill(repo / ".claude" / "skills" / names[0], "---\ndescription: start-up copy\n---\nb\n")
    _skill(repo / ".claude" / "skills" / "cond", "---\ndescription: conditional\npaths: packages/pkg-05/**\n---\nb\n")
    _skill(repo / "packages" / "pkg-05" / ".claude" / "skills" / "cond", "---\ndescription: nested cond\n---\nb\n")
    (root / "home" / ".claude").mkdir(parents=True, exist_ok=True)
    return repo


def _run(repo: Path, home: Path, reads: list[str], profile: str) -> list[dict]:
    workspace = Workspace.create(home=home, cwd=repo, managed_root=None, profile=profile, env={"HOME": str(home)})
    session = Session(load_registry(workspace))
    return [session.add_step("Read", rel).to_json() for rel in reads]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.lists(st.integers(0, 11), min_size=1, max_size=25))
def test_incremental_offers_equal_full_recomputation(tmp_path_factory, monkeypatch_seed, order):
    root = tmp_path_factory.mktemp("mono")
    repo = _monorepo(root, 12, ["lint", "test", "docs", "Lint"], monkeypatch_seed)
    reads = [f"packages/pkg-{p:02d}/src/a.ts" for p in order]
    incremental = _run(repo, root / "home", reads, "current")
    original = Session._offer_more
    try:
        Session._offer_more = lambda self, name, notes: None  # every touched group worked out again
        full = _run(repo, root / "home", reads, "current")
    finally:
        Session._offer_more = original
    assert incremental == full
    assert session_module.Session._offer_more is original
