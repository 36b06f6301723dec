"""Whole-process benchmark: `skillmanager` commands as a user runs them, against processes that do the least.

On realistic workspaces (benchmarks/realistic.py; the packages passed as --add-dir), interleaved rounds,
medians of wall time:
- `skillmanager listing` with an empty $XDG_CACHE_HOME (first run) and again (repeat run: nothing changed, so
  the stored answer is replayed after every traced input is stat'd; commands/output_memo.py) against the floor
  process: Python reading every SKILL.md and parsing its front matter with CSafeLoader, on one core. A first run
  with two usable cores forks a child that parses the last skills dirs (core/load/parse_ahead.py): its CPU is
  counted (wait4 includes the waited-for child), and the same run without it is printed too. Also printed: a repeat
  run whose memo misses (an extra environment variable changes its key), so the whole load and listing run
  on the warm parse cache. Targets: first run <= 1.5x the floor, repeat run <= 0.5x; 20k/5k first run <= 4.6.
- `skillmanager list` on 150 skills against `python -c "import yaml"` (target <= 2.5x) and `python -c pass`.
- `skillmanager list --json` on the largest size against the same work in process (target <= 1.2x).
Byte code is cached as for an installed app (PYTHONDONTWRITEBYTECODE is dropped; a warm-up run writes it).
Usage: python benchmarks/cli.py [--sizes 5000,20000] [--repeat 5] [--keep DIR]
"""
from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realistic  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FLOOR_SCRIPT = """
import sys, yaml
loader = yaml.CSafeLoader
n = 0
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8")
    end = text.find("\\n---", 4)
    try:
        n += bool(yaml.load(text[4:end], Loader=loader))
    except yaml.YAMLError:
        pass
print(n)
"""


def _env(cache_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SKILLMANAGER_CACHE_DIR")}
    env["PYTHONPATH"] = str(ROOT)
    env["XDG_CACHE_HOME"] = str(cache_home)
    return env


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """(wall seconds, peak RSS KB of the child, CPU seconds of the child)."""
    t0 = time.perf_counter()
    # from ROOT: `python -m` looks in the working dir first, so another checkout there would be what ran
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv[:6])}")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def _sm(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "skillmanager", *args]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5000,20000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", help="build the trees under this dir and keep them (reused when present)")
    ap.add_argument("--parts", default="listing,list,json",
                    help="which measurements: listing (whole-process listing per size), list (150 skills), json")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    print(realistic.corpus_note())
    print(realistic.machine(), "|", realistic.MACHINE_NOTE)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skillmanager-cli-"))
    sizes = [int(s) for s in args.sizes.split(",")]
    first_run: dict[int, float] = {}
    for size in sizes if "listing" in parts else ():
        ws = realistic.build_or_reuse(base / f"ws{size}", size)
        listing = _sm(["listing", *ws.cli_args(), "--no-managed"])
        file_list = base / f"files{size}.txt"
        file_list.write_text("\n".join(map(str, ws.files)), encoding="utf-8")
        floor = [sys.executable, "-c", FLOOR_SCRIPT, str(file_list)]
        warm_cache, empty_cache = base / f"xdg-warm{size}", base / f"xdg-empty{size}"
        shutil.rmtree(warm_cache, ignore_errors=True)
        time.sleep(2.1)  # a tree written in the last 2 s is racily clean: no answer would be stored for it
        _run(listing, _env(warm_cache))  # writes byte code, the warm parse cache and the stored answer
        realistic.age_cache(warm_cache / "skillmanager")

        def first():
            shutil.rmtree(empty_cache, ignore_errors=True)
            return _run(listing, _env(empty_cache))

        misses = iter(range(1_000_000))

        def memo_missed():  # a key no memo has: the whole command runs on the warm parse cache
            return _run(listing, {**_env(warm_cache), "SKILLMANAGER_BENCH_MISS": str(next(misses))})

        def first_one_core():  # the same first run without its parse-ahead child (core/load/parse_ahead.py)
            shutil.rmtree(empty_cache, ignore_errors=True)
            return _run(listing, {**_env(empty_cache), "SKILLMANAGER_FORK": "0"})

        rounds = {"floor process (read + CSafeLoader)": lambda: _run(floor, _env(empty_cache)),
                  "skillmanager listing, empty cache": first,
                  "  empty cache, no parse-ahead child": first_one_core,
                  "skillmanager listing, repeat run": lambda: _run(listing, _env(warm_cache)),
                  "  repeat run, memo missed (parse cache)": memo_missed}
        times = {name: [] for name in rounds}
        cpu = {name: [] for name in rounds}
        for r in range(args.repeat):
            names = list(rounds)
            for name in names[r % len(names):] + names[:r % len(names)]:
                wall, _rss, used = rounds[name]()
                times[name].append(wall)
                cpu[name].append(used)
        med = {name: statistics.median(v) * 1000 for name, v in times.items()}
        med_cpu = {name: statistics.median(v) * 1000 for name, v in cpu.items()}
        fl = med["floor process (read + CSafeLoader)"]
        fl_cpu = med_cpu["floor process (read + CSafeLoader)"]
        first_run[size] = med["skillmanager listing, empty cache"]
        print(f"\n{size} skills, whole processes, median of {args.repeat} interleaved rounds (wall; CPU of the process "
              "and of the parse-ahead child it waited for):")
        for name, ms in med.items():
            print(f"  {name:38s} {ms:8.0f} ms  {ms / fl:5.2f}x floor   CPU {med_cpu[name]:6.0f} ms "
                  f"{med_cpu[name] / fl_cpu:5.2f}x")
        for clock, values, anchor in (("wall", med, fl), ("CPU", med_cpu, fl_cpu)):
            first_ratio = values["skillmanager listing, empty cache"] / anchor
            repeat_ratio = values["skillmanager listing, repeat run"] / anchor
            print(f"  targets ({clock}): first run <= 1.5x floor: {first_ratio:.2f}x "
                  f"{'met' if first_ratio <= 1.5 else 'NOT met'}; repeat run <= 0.5x: {repeat_ratio:.2f}x "
                  f"{'met' if repeat_ratio <= 0.5 else 'NOT met'}")
    if len(first_run) > 1:
        a, b = sizes[0], sizes[-1]
        ratio = first_run[b] / first_run[a]
        print(f"\nfirst run {b}/{a}: {ratio:.2f} (target <= 4.6: {'met' if ratio <= 4.6 else 'NOT met'}); "
              f"growth {realistic.slope([(a, first_run[a]), (b, first_run[b])])}")

    if "list" in parts:
        _list_150(base, args.repeat)
    if "json" in parts:
        _list_json(base, sizes[-1], args.repeat)
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


def _list_150(base: Path, repeat: int) -> None:
    """`list` on 150 skills against a bare interpreter: wall time and CPU time of the children (on a loaded
    machine the wall time mostly measures waiting for a core)."""
    small = realistic.build_or_reuse(base / "ws150", 150, 5)
    env = _env(base / "xdg-small")
    small_list = _sm(["list", *small.cli_args(), "--no-managed"])
    _run(small_list, env)
    realistic.age_cache(base / "xdg-small" / "skillmanager")
    rounds = {"python -c pass": [sys.executable, "-c", "pass"],
              'python -c "import yaml"': [sys.executable, "-c", "import yaml"],
              "skillmanager list (150 skills)": small_list}
    wall: dict[str, list[float]] = {name: [] for name in rounds}
    cpu: dict[str, list[float]] = {name: [] for name in rounds}
    count = max(repeat, 7)
    for r in range(count):
        names = list(rounds)
        for name in names[r % 3:] + names[:r % 3]:
            elapsed, _rss, used = _run(rounds[name], env)
            wall[name].append(elapsed)
            cpu[name].append(used)
    print(f"\n`skillmanager list`, 150 skills, median of {count} interleaved rounds:")
    for label, figures in (("wall", wall), ("CPU", cpu)):
        med = {name: statistics.median(v) * 1000 for name, v in figures.items()}
        ratio = med["skillmanager list (150 skills)"] / med['python -c "import yaml"']
        print(f"  {label}: " + ", ".join(f"{name} {ms:.1f} ms" for name, ms in med.items()))
        print(f"  {label} ratio to `import yaml`: {ratio:.2f}x (target <= 2.5x: {'met' if ratio <= 2.5 else 'NOT met'});"
              f" to `pass`: {med['skillmanager list (150 skills)'] / med['python -c pass']:.2f}x")


def _list_json(base: Path, size: int, repeat: int) -> None:
    """`list --json` on the largest size: the process against the same work in process, interleaved."""
    ws = realistic.build_or_reuse(base / f"ws{size}", size)
    argv = ["list", "--json", *ws.cli_args(), "--no-managed", "--no-cache"]
    from skillmanager import cli
    proc_wall, proc_cpu, in_wall, in_cpu = [], [], [], []
    for _ in range(max(3, repeat // 2)):
        elapsed, _rss, used = _run(_sm(argv), _env(base / "xdg-json"))
        proc_wall.append(elapsed)
        proc_cpu.append(used)
        sink = io.StringIO()
        t0, c0 = time.perf_counter(), time.process_time()
        cli.main(argv, out=sink)
        in_wall.append(time.perf_counter() - t0)
        in_cpu.append(time.process_time() - c0)
    for label, p_values, q_values in (("wall", proc_wall, in_wall), ("CPU", proc_cpu, in_cpu)):
        p, q = statistics.median(p_values) * 1000, statistics.median(q_values) * 1000
        print(f"\n`list --json`, {size} skills, {label}: process {p:.0f} ms, in process {q:.0f} ms: {p / q:.2f}x "
              f"(target <= 1.2x: {'met' if p / q <= 1.2 else 'NOT met'})")
    # memory per skill: benchmarks/scan.py (tracemalloc); the children's peak RSS read here was not reliable


if __name__ == "__main__":
    raise SystemExit(main())
