"""Scan benchmark on realistic workspaces (benchmarks/realistic.py): the engine against its anchors.

In process, interleaved runs, medians, at each size (default 1,000 and 5,000 skills; add 20000):
- engine: `load_registry` without the parse cache (every source, settings, states: a first run);
- engine, repeat run: `load_registry` through a warm parse cache (what a second `skillmanager` run does);
- floor: read every SKILL.md and parse its front matter with PyYAML's CSafeLoader, nothing else;
- skills-ref: `read_properties` on every skill directory (the reference implementation).
Each is measured warm (files in the page cache) and cold (evicted with posix_fadvise before every run).
Targets (issue): engine <= 1.5x the floor, warm and cold; >= 15x faster than skills-ref warm, >= 10x cold.
The growth slope is the exponent between the smallest and the largest size (1.0 = linear).
Usage: python benchmarks/scan.py [--sizes 1000,5000] [--repeat 5] [--keep DIR]
"""
from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realistic  # noqa: E402
from skillmanager.core.load import parse_cache  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402


def measure(ws: realistic.RealisticWorkspace, repeat: int, cold: bool,
            cache_dir: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU milliseconds of each run."""
    workspace = ws.workspace()
    workspace.managed_root = None
    cache = parse_cache.ParseCache.open(workspace.profile, cache_dir)
    with parse_cache.using(cache):
        load_registry(workspace)  # fills the cache (files older than it: no racy entries)
    realistic.age_cache(cache_dir)

    def engine():
        load_registry(workspace)

    def engine_cached():
        warm = parse_cache.ParseCache.open(workspace.profile, cache_dir)
        with parse_cache.using(warm):
            load_registry(workspace)
        assert warm.misses == 0, warm.misses

    runs = {"engine": engine, "engine, repeat run (parse cache)": engine_cached,
            "floor (read + CSafeLoader)": lambda: realistic.floor_scan(ws.files)}
    if realistic.skills_ref_scan(ws.files[:1]) is not None:
        runs["skills-ref read_properties"] = lambda: realistic.skills_ref_scan(ws.files)
    before = (lambda _name: realistic.drop_page_cache(ws.files)) if cold else (lambda _name: gc.collect())
    cpu: dict[str, list[float]] = {}
    times = realistic.interleaved(runs, repeat, before=before, cpu=cpu)
    return ({name: realistic.median_ms(values) for name, values in times.items()},
            {name: realistic.median_ms(values) for name, values in cpu.items()})


def memory(ws: realistic.RealisticWorkspace) -> None:
    """Memory the loaded registry keeps per skill (tracemalloc), and what holding every body would add."""
    import tracemalloc
    workspace = ws.workspace()
    workspace.managed_root = None
    load_registry(workspace)  # module-level caches filled outside the measurement
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    registry = load_registry(workspace)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    files = [s for s in registry.skills if s.path is not None]
    bodies = sum(sys.getsizeof(s.body) for s in files[:500]) / max(1, min(500, len(files)))
    size = sum(s.size_bytes for s in files) / max(1, len(files))
    # what the app shows of a skill: its name, display name, description and when_to_use strings
    shown = sum(sys.getsizeof(text) for s in registry.skills
                for text in (s.name, s.display_name, s.description, s.when_to_use) if text) / len(registry.skills)
    beyond = (kept - shown * len(registry.skills)) / len(files) / 1024
    print(f"memory: the registry keeps {kept / len(files) / 1024:.1f} KB per skill (file {size / 1024:.1f} KB on "
          f"average; bodies stay on disk, holding them would add {bodies / 1024:.1f} KB per skill); the shown "
          f"texts are {shown / 1024:.1f} KB of it, {beyond:.1f} KB beyond them: target <= 4 KB per skill beyond "
          f"what is shown {'met' if beyond <= 4 else 'NOT met'}")
    del registry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--packages", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (medians reported)")
    ap.add_argument("--keep", help="build the trees under this dir and keep them (reused when present)")
    args = ap.parse_args()
    print(realistic.corpus_note())
    print(realistic.machine(), "|", realistic.MACHINE_NOTE)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skillmanager-scan-"))
    results: dict[int, dict[str, dict[str, float]]] = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        ws = realistic.build_or_reuse(base / f"ws{size}", size, args.packages)
        cache_dir = base / f"cache{size}"
        shutil.rmtree(cache_dir, ignore_errors=True)
        results[size] = {}
        for mode in ("warm", "cold"):
            figures, cpu = measure(ws, args.repeat, mode == "cold", cache_dir)
            results[size][mode] = figures
            floor = figures["floor (read + CSafeLoader)"]
            ref = figures.get("skills-ref read_properties")
            cpu_floor, cpu_ref = cpu["floor (read + CSafeLoader)"], cpu.get("skills-ref read_properties")
            print(f"\n{size} skills, {mode} page cache, median of {args.repeat} interleaved rounds "
                  "(wall; CPU in brackets, which leaves out waiting for the disk and for other processes):")
            for name, ms in figures.items():
                print(f"  {name:36s} {ms:9.1f} ms  ({ms / size * 1000:6.1f} us/skill)  "
                      f"{ms / floor:5.2f}x floor" + (f"  {ref / ms:5.1f}x faster than skills-ref" if ref else "")
                      + f"  [CPU {cpu[name]:7.1f} ms, {cpu[name] / cpu_floor:5.2f}x floor"
                      + (f", {cpu_ref / cpu[name]:5.1f}x faster]" if cpu_ref else "]"))
            target_ref = 15 if mode == "warm" else 10
            engine = figures["engine"]
            print(f"  target engine <= 1.5x floor: {engine / floor:.2f}x "
                  f"{'met' if engine / floor <= 1.5 else 'NOT met'}"
                  + (f"; >= {target_ref}x faster than skills-ref: {ref / engine:.1f}x "
                     f"{'met' if ref / engine >= target_ref else 'NOT met'}" if ref else "; skills-ref not installed"))
    memory(realistic.build_or_reuse(base / f"ws{max(results)}", max(results), args.packages))
    sizes = sorted(results)
    if len(sizes) > 1:
        for name in ("engine", "engine, repeat run (parse cache)", "floor (read + CSafeLoader)"):
            print(f"growth of {name} (warm): {realistic.slope([(n, results[n]['warm'][name]) for n in sizes])}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
