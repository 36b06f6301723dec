"""Scan benchmark: a synthetic monorepo of ~5,000 skills, measured three ways in one run.

1. the engine: `load_registry` (every source, settings, states);
2. the floor: read every SKILL.md and parse its front matter with PyYAML's C loader, nothing else;
3. skills-ref's `read_properties` on the same skill directories (the reference validator).
Targets: engine within 2x the floor; >= 10x faster per skill than skills-ref.
The machine may be shared: engine and floor run interleaved --repeat times and medians are compared
(wall clock and process CPU time); the first engine run (a fresh process's only scan, as at app start)
is shown too.
Usage: python benchmarks/scan.py [--skills 5000] [--packages 200] [--repeat 5] [--keep DIR]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.core.load.workspace import Workspace  # noqa: E402

BODY = "## Steps\n\n" + "\n".join(f"{i}. Do the thing number {i} carefully." for i in range(1, 30)) + "\n"


def _skill(path: Path, name: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Synthetic skill {name} for the scan benchmark.\n"
        f"when_to_use: When the user asks about {name}.\nallowed-tools: Read, Grep\n---\n# {name}\n\n{BODY}",
        encoding="utf-8")


def build(root: Path, skills: int, packages: int) -> tuple[Workspace, list[Path]]:
    home, repo = root / "home", root / "home" / "repo"
    (repo / ".git").mkdir(parents=True)
    dirs: list[Path] = []
    per_package = max(1, (skills - 200) // packages)
    for p in range(packages):  # nested package skills: walk-up only sees the cwd chain, so put the
        pkg = repo / "packages" / f"pkg{p:03d}"  # cwd at the deepest package and add the others as --add-dir
        for i in range(per_package):
            d = pkg / ".claude" / "skills" / f"p{p:03d}-s{i:02d}"
            _skill(d, d.name)
            dirs.append(d)
    for i in range(100):
        d = home / ".claude" / "skills" / f"user-{i:03d}"
        _skill(d, d.name)
        dirs.append(d)
    for i in range(50):
        d = root / "managed" / ".claude" / "skills" / f"managed-{i:03d}"
        _skill(d, d.name)
        dirs.append(d)
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "bench"}')
    for i in range(50):
        d = plugin / "skills" / f"plug-{i:03d}"
        _skill(d, d.name)
        dirs.append(d)
    packages_dirs = sorted((repo / "packages").iterdir())
    ws = Workspace.create(home=home, cwd=packages_dirs[0], managed_root=root / "managed",
                          add_dirs=packages_dirs[1:], plugin_dirs=[plugin], env={})
    return ws, dirs


def floor(dirs: list[Path]) -> int:
    loader = yaml.CSafeLoader
    count = 0
    for d in dirs:
        with open(d / "SKILL.md", "rb") as fh:
            text = fh.read().decode("utf-8")
        end = text.find("\n---", 4)
        if yaml.load(text[4:end], Loader=loader):
            count += 1
    return count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=5000)
    ap.add_argument("--packages", type=int, default=200)
    ap.add_argument("--keep", help="build the tree here and keep it")
    ap.add_argument("--ref-sample", type=int, default=500, help="skills-ref runs on this many skills (per-skill rate)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved engine/floor runs (medians reported)")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skillmanager-bench-"))
    ws, dirs = build(root, args.skills, args.packages)
    n = len(dirs)
    floor(dirs)  # warm the page cache for all three
    engine_wall, engine_cpu, floor_wall, floor_cpu = [], [], [], []
    registry = None
    for _ in range(max(1, args.repeat)):
        t0, c0 = time.perf_counter(), time.process_time()
        registry = load_registry(ws)
        engine_wall.append(time.perf_counter() - t0)
        engine_cpu.append(time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        floor(dirs)
        floor_wall.append(time.perf_counter() - t0)
        floor_cpu.append(time.process_time() - c0)
    t_engine, t_floor = statistics.median(engine_wall), statistics.median(floor_wall)
    t_ref = None
    try:
        from skills_ref import read_properties
        sample = dirs[:args.ref_sample]
        t0 = time.perf_counter()
        for d in sample:
            try:
                read_properties(d)
            except Exception:  # noqa: BLE001 - the reference may reject names; we time the attempt
                pass
        t_ref = (time.perf_counter() - t0) / len(sample)
    except ImportError:
        pass
    loaded = len([s for s in registry.skills if s.path is not None])
    print(f"skills on disk: {n}; engine loaded {loaded} (plus {len(registry.skills) - loaded} bundled/MCP)")
    print(f"engine scan:  {t_engine * 1000:8.1f} ms  ({t_engine / n * 1e6:6.1f} us/skill)  median of {len(engine_wall)};"
          f" first run {engine_wall[0] * 1000:.1f} ms")
    print(f"floor:        {t_floor * 1000:8.1f} ms  ({t_floor / n * 1e6:6.1f} us/skill)  ratio engine/floor = {t_engine / t_floor:.2f} (target <= 2)")
    print(f"CPU time:     engine {statistics.median(engine_cpu) * 1000:.1f} ms, floor {statistics.median(floor_cpu) * 1000:.1f} ms,"
          f" ratio {statistics.median(engine_cpu) / statistics.median(floor_cpu):.2f};"
          f" first run ratio {engine_cpu[0] / floor_cpu[0]:.2f}")
    if t_ref is not None:
        print(f"skills-ref:   {t_ref * n * 1000:8.1f} ms est. ({t_ref * 1e6:6.1f} us/skill over {min(n, args.ref_sample)})"
              f"  speed-up per skill = {t_ref / (t_engine / n):.1f}x (target >= 10)")
    else:
        print("skills-ref:   not installed")
    if not args.keep:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
