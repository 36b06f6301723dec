"""Simulator benchmark: per-step latency on a 2,000-package monorepo, once the registry is loaded.

The repo has 2,000 packages (`packages/pkg-NNNN/src/...`), each with its own `.claude/skills` (three
skills), a root `.gitignore` plus nested ones and `.git/info/exclude`, every tenth package ignored, and
200 root `paths:` skills. Steps Read files across the repo (new packages, repeats, ignored packages,
files outside any package). Target: median and p95 < 20 ms per step.
Usage: python benchmarks/simulate.py [--packages 2000] [--steps 1000] [--profile current] [--keep DIR]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.core.simulator.session import Session  # noqa: E402
from skillmanager.core.load.workspace import Workspace  # noqa: E402


def _skill(path: Path, description: str, paths: str | None = None) -> None:
    path.mkdir(parents=True, exist_ok=True)
    extra = f"paths: {paths}\n" if paths else ""
    (path / "SKILL.md").write_text(f"---\ndescription: {description}\n{extra}---\nBody of {path.name}.\n",
                                   encoding="utf-8")


def build(root: Path, packages: int) -> Path:
    home, repo = root / "home", root / "home" / "repo"
    (repo / ".git" / "info").mkdir(parents=True)
    (repo / ".git" / "info" / "exclude").write_text("vendor/\n*.log\n", encoding="utf-8")
    (repo / ".gitignore").write_text("node_modules/\ndist/\n" + "".join(
        f"packages/pkg-{p:04d}/\n" for p in range(0, packages, 10)) + "!packages/pkg-0000/\n", encoding="utf-8")
    for p in range(packages):
        pkg = repo / "packages" / f"pkg-{p:04d}"
        for s in ("lint", "test", "docs"):
            _skill(pkg / ".claude" / "skills" / f"{s}-{p:04d}", f"{s} helper for package {p}.")
        (pkg / "src" / "lib").mkdir(parents=True)
        (pkg / "src" / "lib" / "index.ts").write_text("export {};\n", encoding="utf-8")
        if p % 7 == 0:
            (pkg / ".gitignore").write_text("generated/\n", encoding="utf-8")
    for c in range(200):
        _skill(repo / ".claude" / "skills" / f"cond-{c:03d}", f"conditional {c}.",
               f'"packages/pkg-{c * 10 + 5:04d}/**, **/*.{{c{c},h{c}}}"')
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--profile", default="current", choices=("legacy", "current"))
    parser.add_argument("--keep", metavar="DIR", help="build the repo here and keep it")
    args = parser.parse_args()
    tmp = None if args.keep else tempfile.TemporaryDirectory()
    root = Path(args.keep or tmp.name)  # type: ignore[union-attr]
    started = time.perf_counter()
    repo = build(root, args.packages)
    print(f"built {args.packages} packages in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    workspace = Workspace.create(home=root / "home", cwd=repo, managed_root=None, profile=args.profile,
                                 env={"HOME": str(root / "home")})
    session = Session(load_registry(workspace))
    print(f"registry loaded in {(time.perf_counter() - started) * 1000:.0f} ms "
          f"({len(session.registry.skills)} start-up skills)")
    rng = random.Random(7)
    times: list[float] = []
    found = 0
    for i in range(args.steps):
        p = rng.randrange(args.packages)
        kind = i % 4
        rel = (f"packages/pkg-{p:04d}/src/lib/index.ts" if kind < 2 else
               f"packages/pkg-{p:04d}/generated/out.ts" if kind == 2 else f"tools/script-{p}.py")
        t0 = time.perf_counter()
        result = session.add_step("Read", rel)
        times.append((time.perf_counter() - t0) * 1000)
        found += len(result.discovered_dirs)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"{args.steps} steps ({args.profile}): median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, "
          f"max {times[-1]:.2f} ms; {found} dirs discovered, {len(session.available_skills())} skills available")
    ok = statistics.median(times) < 20 and p95 < 20
    print("target < 20 ms per step:", "met" if ok else "MISSED")
    if tmp is not None:
        tmp.cleanup()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
