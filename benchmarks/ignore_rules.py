"""Benchmark IgnoreOracle on a 2,000-package monorepo with nested .gitignore files.

    /work/venv312/bin/python benchmarks/ignore_rules.py [--packages 2000]
Prints first-query cost (cold: parses the rule files on the path) and per-query latency when cached.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from skillmanager.core.ignore_rules import IgnoreOracle  # noqa: E402


def build(root: Path, packages: int) -> list[Path]:
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("*.swp\n.idea/\n")
    (root / ".gitignore").write_text("node_modules/\ndist/\n*.log\n!keep.log\n/coverage\n**/tmp/**\n")
    dirs = []
    for i in range(packages):
        group = root / "packages" / f"group{i % 40:02d}"
        pkg = group / f"pkg{i:04d}"
        (pkg / "src" / "deep" / "er").mkdir(parents=True)
        (pkg / ".claude" / "skills").mkdir(parents=True)
        if i % 3 == 0:
            (pkg / ".gitignore").write_text("generated/\n*.snap\n!important.snap\nbuild/**\n")
        if i % 40 == 0:
            (group / ".gitignore").write_text("fixtures/large/\n")
        dirs += [pkg, pkg / "src", pkg / "src" / "deep" / "er"]
    return dirs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mono"
        t0 = time.perf_counter()
        dirs = build(root, args.packages)
        print(f"built {args.packages} packages, {len(dirs)} dirs in {time.perf_counter() - t0:.1f} s")

        oracle = IgnoreOracle(root)
        t0 = time.perf_counter()
        oracle.check(dirs[0], is_dir=True)
        print(f"first query (cold, parses rule files on its path): {(time.perf_counter() - t0) * 1e3:.3f} ms")

        rnd = random.Random(1)
        sample = [rnd.choice(dirs) for _ in range(args.queries)]
        # cold pass over every package: each query may parse one new package .gitignore
        t0 = time.perf_counter()
        for d in dirs:
            oracle.check(d, is_dir=True)
        cold = (time.perf_counter() - t0) / len(dirs)
        print(f"first touch of every dir (loads {len(oracle._files)} rule files): {cold * 1e6:.1f} us/query")

        for label, o in (("cached, mtime checked", oracle),
                         ("cached, check_mtime=False", IgnoreOracle(root, check_mtime=False))):
            for d in dirs:
                o.check(d, is_dir=True)
            times = []
            for d in sample:
                t = time.perf_counter()
                o.check(d, is_dir=True)
                times.append(time.perf_counter() - t)
            times.sort()
            print(f"{label}: median {statistics.median(times) * 1e6:.1f} us, "
                  f"p99 {times[int(len(times) * 0.99)] * 1e6:.1f} us, max {times[-1] * 1e6:.1f} us "
                  f"over {len(times)} queries")


if __name__ == "__main__":
    main()
