"""Benchmark IgnoreOracle on a 2,000-package monorepo with nested .gitignore files.

    /work/venv312/bin/python benchmarks/ignore_rules.py [--packages 2000]
Prints first-query cost (cold: parses the rule files on the path) and per-query latency when cached.
With git installed it also builds a real index (one tracked file per package, plus `git add -f`
files inside ignored dirs of every 3rd package) and times queries that must consult it.
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from skillmanager.core.simulator.ignore_rules import IgnoreOracle  # noqa: E402


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


def add_index(root: Path, packages: int) -> tuple[list[Path], float]:
    """Track files with real git; return ignored dirs (half hold force-added files) + git time."""
    ignored, tracked = [], [".gitignore"]
    for i in range(packages):
        pkg = root / "packages" / f"group{i % 40:02d}" / f"pkg{i:04d}"
        (pkg / "src" / "index.ts").write_text("x")
        tracked.append(str((pkg / "src" / "index.ts").relative_to(root)))
        for name in ("dist", "node_modules/dep") + (("generated",) if i % 3 == 0 else ()):
            (pkg / name / ".claude" / "skills").mkdir(parents=True, exist_ok=True)
            ignored.append(pkg / name)
        if i % 3 == 0:  # a tracked skill inside an ignored dir: git says "not ignored"
            f = pkg / "generated" / ".claude" / "skills" / "s" / "SKILL.md"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text("x")
            tracked.append(str(f.relative_to(root)))
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent), "PATH": "/usr/bin:/bin"}
    shutil.rmtree(root / ".git")
    t0 = time.perf_counter()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    (root / ".git" / "info" / "exclude").write_text("*.swp\n.idea/\n")
    subprocess.run(["git", "add", "-f", "--pathspec-from-file=-"], cwd=root, check=True, env=env,
                   input="\n".join(tracked).encode())
    return ignored, time.perf_counter() - t0


def timed(oracle: IgnoreOracle, sample: list[Path]) -> str:
    times = []
    for d in sample:
        t = time.perf_counter()
        oracle.check(d, is_dir=True)
        times.append(time.perf_counter() - t)
    times.sort()
    return (f"median {statistics.median(times) * 1e6:.1f} us, p99 {times[int(len(times) * 0.99)] * 1e6:.1f} us, "
            f"max {times[-1] * 1e6:.1f} us over {len(times)} queries")


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
            print(f"{label}: {timed(o, sample)}")

        if shutil.which("git") is None:
            print("git not installed: index benchmark skipped")
            return
        ignored, git_s = add_index(root, args.packages)
        print(f"git index built in {git_s:.1f} s ({(root / '.git' / 'index').stat().st_size} bytes)")
        oracle = IgnoreOracle(root)
        t0 = time.perf_counter()
        tracked = oracle.tracked_paths()
        n = len(tracked.files)
        parse = time.perf_counter() - t0
        t0 = time.perf_counter()
        ndirs = len(tracked.dirs)
        prefixes = time.perf_counter() - t0
        print(f"index parse: {parse * 1e3:.2f} ms for {n} entries; dir-prefix set: "
              f"{prefixes * 1e3:.2f} ms for {ndirs} dirs")
        for label, o in (("index-aware", oracle), ("--no-index model", IgnoreOracle(root, use_index=False))):
            for d in dirs + ignored:
                o.check(d, is_dir=True)
            print(f"{label}, not-ignored dirs: {timed(o, sample)}")
            ign_sample = [rnd.choice(ignored) for _ in range(args.queries)]
            print(f"{label}, dirs a rule ignores (index consulted when aware): {timed(o, ign_sample)}")
        skipped = sum(oracle.check(d, is_dir=True).ignored for d in ignored)
        print(f"ignored-by-rule dirs: {len(ignored)}, still ignored with the index: {skipped}")


if __name__ == "__main__":
    main()
