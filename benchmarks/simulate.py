"""Simulator benchmark: per-step latency on a 2,000-package monorepo whose packages share skill names.

Real corpus files, ~60 names recurring across packages (so nested copies clash and are scoped, and some
clash with start-up skills), every tenth package gitignored, 200 root `paths:` skills
(benchmarks/realistic.py: build_monorepo). Steps Read files across the repo: new packages, repeats,
ignored packages, files outside any package. Prints median / p95 per step, p95 of the first and the last
quarter of the steps (flat = the cost does not grow with what was discovered) and, as the anchor,
`python -c pass` measured in the same run. Target: p95 < 10 ms, flat.
Usage: python benchmarks/simulate.py [--packages 2000] [--steps 1000] [--profile current] [--keep DIR]
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realistic  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.core.simulator.session import Session  # noqa: E402
from skillmanager.core.load.workspace import Workspace  # noqa: E402


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def run_steps(repo: Path, home: Path, packages: int, steps: int, profile: str, seed: int = 7):
    workspace = Workspace.create(home=home, cwd=repo, managed_root=None, profile=profile, env={"HOME": str(home)})
    session = Session(load_registry(workspace))
    rng = random.Random(seed)
    times: list[float] = []
    cpu: list[float] = []  # CPU time of each step: on a loaded machine wall time mostly measures waiting for a core
    found = 0
    results = []
    for i in range(steps):
        p = rng.randrange(packages)
        kind = i % 4
        rel = (f"packages/pkg-{p:04d}/src/lib/index.ts" if kind < 2 else
               f"packages/pkg-{p:04d}/generated/out.ts" if kind == 2 else f"tools/script-{p}.py")
        t0, c0 = time.perf_counter(), time.thread_time()
        result = session.add_step("Read", rel)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        found += len(result.discovered_dirs)
        results.append(result)
    run_steps.cpu = cpu  # type: ignore[attr-defined]
    return session, times, found, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--profile", default="current", choices=("legacy", "current"))
    parser.add_argument("--names", type=int, default=3, help="distinct skill names shared by the packages")
    parser.add_argument("--keep", metavar="DIR", help="build the repo here and keep it")
    args = parser.parse_args()
    print(realistic.corpus_note(), "|", realistic.machine(), "|", realistic.MACHINE_NOTE)
    tmp = None if args.keep else tempfile.TemporaryDirectory()
    root = Path(args.keep or tmp.name)  # type: ignore[union-attr]
    repo = root / "home" / "repo"
    if not repo.exists():
        started = time.perf_counter()
        repo = realistic.build_monorepo(root, args.packages, names=args.names)
        print(f"built {args.packages} packages in {time.perf_counter() - started:.1f} s")
    session, times, found, _ = run_steps(repo, root / "home", args.packages, args.steps, args.profile)
    quarter = max(1, len(times) // 4)
    pass_runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        pass_runs.append((time.perf_counter() - t0) * 1000)
    anchor = statistics.median(pass_runs)
    p95 = _p95(times)
    print(f"{args.steps} steps ({args.profile}), {found} dirs discovered, {len(session.available_skills())} skills "
          f"available: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, max {max(times):.2f} ms")
    cpu = run_steps.cpu  # type: ignore[attr-defined]
    print(f"CPU time per step: median {statistics.median(cpu):.2f} ms, p95 {_p95(cpu):.2f} ms; growth: p95 first "
          f"quarter {_p95(cpu[:quarter]):.2f} ms, last quarter {_p95(cpu[-quarter:]):.2f} ms")
    first, last = _p95(times[:quarter]), _p95(times[-quarter:])
    print(f"growth: p95 first quarter {first:.2f} ms, last quarter {last:.2f} ms (ratio {last / first:.2f}; flat ~ 1)")
    print(f"anchor: python -c pass {anchor:.1f} ms; p95 step = {p95 / anchor:.2f}x of it; target p95 < 10 ms: "
          f"{'met' if p95 < 10 else 'NOT met'}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
