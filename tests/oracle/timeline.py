#!/usr/bin/env python3
"""The version timeline from battery results: which feature values each installed release shows, and where
they flip between neighbouring releases.

    python3 tests/oracle/timeline.py RESULTS_DIR            # one battery JSON per release (battery.py --out)
    python3 tests/oracle/timeline.py --run CLI... --results RESULTS_DIR   # run the battery first, then print

A flip between two neighbouring observed releases is an interval ("after" A, first seen B); it is located
only when no release between A and B was published (bisect by installing the ones in between).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "resources", "data", "claude_versions.json")


def version_key(version: str) -> tuple:
    return tuple(int(part) for part in version.split("."))


def load_results(directory: str) -> list[dict]:
    results = []
    for path in glob.glob(os.path.join(directory, "*.json")):
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
        if result.get("version"):
            results.append(result)
    return sorted(results, key=lambda r: version_key(r["version"]))


def flips(results: list[dict]) -> dict[str, list[tuple[str, str, object, object]]]:
    """Per probe: (after, since, old, new) for each change between neighbouring releases that answered."""
    changes: dict[str, list] = {}
    names = sorted({name for r in results for name in r["found"]})
    for name in names:
        seen = [(r["version"], r["found"][name]) for r in results if r["found"].get(name) is not None]
        for (a, old), (b, new) in zip(seen, seen[1:]):
            if old != new:
                changes.setdefault(name, []).append((a, b, old, new))
    return changes


def timeline_text(results: list[dict]) -> str:
    lines = [f"releases: {', '.join(r['version'] for r in results)}"]
    for name, steps in flips(results).items():
        for a, b, old, new in steps:
            lines.append(f"{name}: {json.dumps(old, ensure_ascii=False)} -> {json.dumps(new, ensure_ascii=False)}"
                         f" after {a}, seen {b}")
    return "\n".join(lines) + "\n"


def compare_text(result: dict) -> str:
    """What held and what changed for one release against the timeline's value at that release."""
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    from skillmanager.core.versions.features import Feature  # noqa: PLC0415
    from skillmanager.core.versions.profiles import profile_for  # noqa: PLC0415
    profile = profile_for(result["version"])
    values = {"per_entry_cap": profile.per_entry_cap, "default_model": profile.default_model}
    held, changed = [], []
    for name, value in sorted(result["found"].items()):
        if value is None:
            continue
        if name in Feature.__members__:
            expected = profile.supports(Feature[name])
        elif name in values:
            expected = values[name]
        else:
            continue
        (held if expected == value else changed).append(f"{name}: timeline {expected!r}, observed {value!r}")
    return "held:\n  " + "\n  ".join(held) + "\nchanged:\n  " + "\n  ".join(changed) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default="/work/cc-versions/results")
    parser.add_argument("--run", nargs="*", default=[], help="CLIs to run the battery on first")
    args = parser.parse_args(argv)
    os.makedirs(args.results, exist_ok=True)
    for cli in args.run:
        out = os.path.join(args.results, "run.json")
        subprocess.run([sys.executable, os.path.join(HERE, "battery.py"), cli, "--jobs", "1", "--out", out], check=True)
        with open(out, encoding="utf-8") as f:
            version = json.load(f)["version"]
        os.replace(out, os.path.join(args.results, f"{version}.json"))
    sys.stdout.write(timeline_text(load_results(args.results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
