#!/usr/bin/env python3
"""Bisect where each probed feature or value changes between two releases of Claude Code.

    python3 tests/oracle/bisect_releases.py [--from 2.1.88] [--to 2.1.332] [--results DIR] [--cache DIR]
        [--max-installs N] [--skip PROBE,...]

Results (one battery JSON per release, battery.py --out) live in --results, releases are installed into
--cache by install_release.sh; both stay outside the repository. Each round takes every change seen
between two neighbouring observed releases, installs the release halfway between them (by the
registry's release list, tests/golden/timeline/releases.json) and runs the battery on it, until every
change sits between adjacent releases. A release that cannot be installed or run is recorded as such
(`{"version": …, "error": …}`) and its neighbours are tried instead; the change is then bounded by the
nearest releases that ran. Probes in --skip do not drive the bisection (they are still recorded).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import timeline  # noqa: E402

RELEASES = os.path.join(HERE, "..", "golden", "timeline", "releases.json")
CACHE = "/root/.cache/cc-versions"


def releases(first: str, last: str) -> list[str]:
    with open(RELEASES, encoding="utf-8") as f:
        names = [v for v, _ in json.load(f)["releases"]]
    lo, hi = timeline.version_key(first), timeline.version_key(last)
    return [v for v in names if lo <= timeline.version_key(v) <= hi]


def load_all(results_dir: str) -> dict[str, dict]:
    out = {}
    for name in os.listdir(results_dir):
        if name.endswith(".json"):
            with open(os.path.join(results_dir, name), encoding="utf-8") as f:
                data = json.load(f)
            if data.get("version"):
                out[data["version"]] = data
    return out


def open_intervals(results: dict[str, dict], order: list[str], skip: set[str]) -> list[tuple[str, str, str]]:
    """(probe, after, since) for every change whose two releases have an untried release between them."""
    ran = [_with_none_as_state(results[v]) for v in order if v in results and "found" in results[v]]
    out = []
    for probe, steps in timeline.flips(ran).items():
        if probe in skip:
            continue
        for a, b, _old, _new in steps:
            between = order[order.index(a) + 1:order.index(b)]
            if any(not tried(results, v, probe) for v in between):
                out.append((probe, a, b))
    return out


def tried(results: dict[str, dict], version: str, probe: str) -> bool:
    """The release was run with the probe's run (a bisection step may have made only some runs), or cannot run."""
    data = results.get(version)
    if data is None:
        return False
    if "error" in data:
        return True
    undecided_for_want_of_a_run = data["found"].get(probe) is None and \
        data.get("notes", {}).get(probe, "").startswith("needs")
    return probe in data["found"] and not undecided_for_want_of_a_run


def _with_none_as_state(result: dict) -> dict:
    """A probe that could not decide in a run that did start is a state of its own for bisection (e.g. skill dirs
    in neither sort order): its edges are located like any change."""
    notes = result.get("notes", {})
    found = {k: ("<undecided>" if v is None and not notes.get(k, "not observable").startswith(("made no", "needs",
                                                                                              "the "))
                 else v) for k, v in result["found"].items()}
    return {**result, "found": found}


def pick(order: list[str], done: set[str], a: str, b: str) -> str | None:
    """The untried release nearest the middle of (a, b)."""
    between = order[order.index(a) + 1:order.index(b)]
    mid = (len(between) - 1) / 2
    candidates = sorted((abs(i - mid), v) for i, v in enumerate(between) if v not in done)
    return candidates[0][1] if candidates else None


def run_release(version: str, results_dir: str, cache: str, keep: bool = True, runs: str | None = None) -> dict:
    out = os.path.join(results_dir, f"{version}.json")
    earlier = load_all(results_dir).get(version) if os.path.isfile(out) else None
    inst = subprocess.run(["bash", os.path.join(HERE, "install_release.sh"), version, cache],
                          capture_output=True, text=True)
    if inst.returncode != 0:
        data = {"version": version, "error": f"install: {inst.stderr.strip()[-300:]}"}
    else:
        cli = inst.stdout.strip().splitlines()[-1]
        done = subprocess.run(["nice", "-n", "10", sys.executable, os.path.join(HERE, "battery.py"), cli,
                               "--out", out, "--jobs", "2", *(["--runs", runs] if runs else [])],
                              capture_output=True, text=True, timeout=1800)
        if done.returncode != 0 or not os.path.isfile(out):
            data = {"version": version, "error": f"battery: {done.stderr.strip()[-300:]}"}
        else:
            with open(out, encoding="utf-8") as f:
                data = json.load(f)
            if not any(v is not None for v in data["found"].values()):
                data = {"version": version, "error": "the CLI made no request in any run", "notes": data["notes"]}
            elif earlier and "found" in earlier:  # the runs made before stay; these add to them
                earlier["found"].update(data["found"])
                earlier["notes"] = {**earlier.get("notes", {}), **data["notes"]}
                earlier.update({k: data[k] for k in ("bundled_measured",) if k in data})
                data = earlier
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    if not keep:  # a release is 250-400 MB; install_release.sh installs it again when needed
        shutil.rmtree(os.path.join(cache, version), ignore_errors=True)
    return data


def refresh(results_dir: str, cache: str, runs: str, only: set[str] | None = None) -> None:
    """Run some battery runs again on every release already run (after a probe or fixture changed) and merge."""
    for version, data in sorted(load_all(results_dir).items(), key=lambda kv: timeline.version_key(kv[0])):
        if "found" not in data or (only and version not in only):
            continue
        path = os.path.join(results_dir, f"{version}.json")
        cli = subprocess.run(["bash", os.path.join(HERE, "install_release.sh"), version, cache],
                             capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        done = subprocess.run(["nice", "-n", "10", sys.executable, os.path.join(HERE, "battery.py"), cli,
                               "--runs", runs, "--jobs", "2"], capture_output=True, text=True, timeout=1800, check=True)
        fresh = json.loads(done.stdout)
        data["found"].update(fresh["found"])
        data["notes"] = {k: v for k, v in data.get("notes", {}).items() if k not in fresh["found"]}
        data["notes"].update(fresh["notes"])
        if "bundled_measured" in fresh:
            data["bundled_measured"] = fresh["bundled_measured"]
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(path + ".tmp", path)
        print(f"refreshed {version}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", default="2.1.88")
    parser.add_argument("--to", dest="last", default="2.1.332")
    parser.add_argument("--results", default=os.path.join(CACHE, "results"))
    parser.add_argument("--cache", default=CACHE)
    parser.add_argument("--max-installs", type=int, default=40)
    parser.add_argument("--keep-installs", action="store_true", help="keep each release installed after its run")
    parser.add_argument("--only-needed-runs", action="store_true",
                        help="run only the battery runs whose probes change in the interval being halved")
    parser.add_argument("--skip", default="bundled", help="probes that do not drive the bisection")
    parser.add_argument("--refresh", metavar="RUNS", help="only re-run these battery runs (listing,invoke,…) on "
                        "every release already run, and merge")
    parser.add_argument("--versions", help="with --refresh: only these releases (comma-separated)")
    args = parser.parse_args(argv)
    if args.refresh:
        refresh(args.results, args.cache, args.refresh, set(args.versions.split(",")) if args.versions else None)
        return 0
    os.makedirs(args.results, exist_ok=True)
    order = releases(args.first, args.last)
    skip = {s for s in args.skip.split(",") if s}
    installs = 0
    for end in (args.first, args.last):
        if end not in load_all(args.results):
            run_release(end, args.results, args.cache)
            installs += 1
    while installs < args.max_installs:
        results = load_all(args.results)
        intervals = open_intervals(results, order, skip)
        if not intervals:
            print("every change is between adjacent releases (or releases that could not run)")
            break
        # the widest interval first: one install there halves the most uncertainty
        intervals.sort(key=lambda t: -(order.index(t[2]) - order.index(t[1])))
        probe, a, b = intervals[0]
        version = pick(order, {v for v in results if tried(results, v, probe)}, a, b)
        if version is None:
            continue
        width = order.index(b) - order.index(a)
        print(f"[{installs + 1}] {version}  ({probe}: after {a}, seen {b}; {width - 1} releases between;"
              f" {len(intervals)} open)", flush=True)
        runs = None
        if args.only_needed_runs:  # the runs whose probes change around this release; the rest agree on both sides
            import battery  # noqa: PLC0415
            at = order.index(version)
            needed = {battery.PROBES[p][0] for p, lo, hi in intervals if order.index(lo) < at < order.index(hi)
                      and p in battery.PROBES}
            needed |= {battery.PROBES[n][0] for p, lo, hi in intervals if order.index(lo) < at < order.index(hi)
                       for n in battery.NEEDS.get(p, ())}  # what a probe refines is read from its own run
            needed |= {"listing"} if "budget" in needed else set()
            runs = ",".join(r for r in battery.RUNS if r in needed | {"binary"})
            print(f"    runs: {runs}", flush=True)
        data = run_release(version, args.results, args.cache, args.keep_installs, runs)
        if "error" in data:
            print(f"    could not run: {data['error']}", flush=True)
        installs += 1
    ran = [r for r in load_all(args.results).values() if "found" in r]
    sys.stdout.write(timeline.timeline_text(sorted(ran, key=lambda r: timeline.version_key(r["version"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
