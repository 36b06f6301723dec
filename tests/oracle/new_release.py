#!/usr/bin/env python3
"""A new Claude Code release in minutes: install it, run the probe battery, print which features held and
which changed against the timeline (resources/data/claude_versions.json), with the evidence.

    python3 tests/oracle/new_release.py 2.1.333 [--cache DIR] [--results DIR]

Exit 0: every feature and value held (adding the release is a data change: `python3 tests/oracle/timeline.py
--write` picks up the saved result); 1: something changed (the lines say what, and which run and fixture part
showed it); 2: the release could not be installed or run. Needs root, node and npm, like record.py.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import battery  # noqa: E402
import timeline  # noqa: E402

CACHE = "/root/.cache/cc-versions"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version")
    parser.add_argument("--cache", default=CACHE, help="where releases are installed (outside the repository)")
    parser.add_argument("--results", default=os.path.join(CACHE, "results"), help="where the battery result goes")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+", args.version):
        print(f"error: not a release number: {args.version!r}", file=sys.stderr)
        return 2
    installed = subprocess.run(["bash", os.path.join(HERE, "install_release.sh"), args.version, args.cache],
                               capture_output=True, text=True)
    if installed.returncode != 0:
        print(f"error: {installed.stderr.strip() or 'install failed'}", file=sys.stderr)
        return 2
    cli = installed.stdout.strip().splitlines()[-1]
    result = battery.run_battery(cli, list(battery.RUNS))
    if not any(value is not None for name, value in result["found"].items() if battery.PROBES[name][0] != "binary"):
        print(f"error: Claude Code {args.version} made no request in any battery run: {result['notes']}",
              file=sys.stderr)
        return 2
    os.makedirs(args.results, exist_ok=True)
    out = os.path.join(args.results, f"{args.version}.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, ensure_ascii=False)
        f.write("\n")
    _held, changed, _unanswered = timeline.compare(result)
    sys.stdout.write(timeline.compare_text(result))
    print(f"battery result: {out}")
    if changed:
        print("changed: a new timeline step (bisect_releases.py --to this release locates it), or a new feature if no "
              "existing one explains the difference")
        return 1
    print("every answered probe held: `python3 tests/oracle/timeline.py --write` adds the release as data")
    return 0


if __name__ == "__main__":
    sys.exit(main())
