#!/usr/bin/env python3
"""Measure Bun.stringWidth, the width function under Claude Code 2.1.3xx's listing budget.

Writes
  resources/data/bun_string_width.json  every code point whose width is not 1, as [start, end, width] ranges
  tests/golden/bun-width/cases.json     seeded random strings (emoji sequences, marks, ANSI, surrogates…)
                                        with the width Bun gave each

Bun comes from the npm registry (`@oven/bun-linux-x64`, the release nearest the one inside the claude
binary: `strings claude | grep 'Bun v'` printed 1.4.6, npm had 1.4.5). Plain python3, no project imports:

    python3 tests/oracle/measure_bun_width.py [--bun PATH] [--cases N] [--seed S]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DIR = "/tmp/oracle-bun"
PACKAGE = "@oven/bun-linux-x64@1.4.5"

# Pieces the random strings are made of: the places where width rules meet.
ALPHABET = [
    "a", "Z", " ", "1", "#", "*", "\t", "\n", "\x00", "\x7f", "\x1b", "[", "]", "m", "3", ";", "\\", "\x07",
    "\x9b", "\x9c", "\x85", "\u00ad", "é", "e\u0301", "\u0301", "\u0591", "\u064b", "\u05d0", "\u0627",
    "\u0915", "\u093e", "\u093f", "\u094d", "\u0903", "\u0937", "\u0bcd", "\u0e01", "\u0e31", "\u0e33",
    "\u1100", "\u1161", "\u11a8", "\uac00", "\u4e2d", "\u3000", "\uff21", "\uff71", "\u2026", "\u2014",
    "\u2192", "\u00b7", "\u2460", "\u261d", "\u270c", "\u26a0", "\u2764", "\u263a", "\u2614", "\u231a",
    "\u200b", "\u200c", "\u200d", "\u200e", "\u2060", "\u2066", "\ufeff", "\ufe0e", "\ufe0f", "\u20e3",
    "\u20dd", "\U0001f600", "\U0001f44d", "\U0001f3fd", "\U0001f3fb", "\U0001f468", "\U0001f469",
    "\U0001f467", "\U0001f3f3", "\U0001f308", "\U0001f1ef", "\U0001f1f5", "\U0001f1fa", "\U0001f3cb",
    "\U0001f590", "\U0001f3f4", "\U000e0067", "\U000e0062", "\U000e007f", "\U0001f9d1", "\U0001f4bb",
    "\U00020000", "\U000e0100", "\ud800", "\udc00", "\U0010fffd", "\u0378", "\u17a4", "\u3248",
]


def find_bun(path):
    if path:
        return path
    if os.environ.get("BUN_BIN"):
        return os.environ["BUN_BIN"]
    target = os.path.join(DEFAULT_DIR, "node_modules", "@oven", "bun-linux-x64", "bin", "bun")
    if not os.path.exists(target):
        os.makedirs(DEFAULT_DIR, exist_ok=True)
        subprocess.run(["npm", "install", "--no-save", "--silent", PACKAGE], cwd=DEFAULT_DIR, check=True)
    return target


def bun_widths(bun, strings):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.json")
        out = os.path.join(tmp, "out.json")
        with open(src, "w", encoding="utf-8") as f:
            f.write(json.dumps(strings, ensure_ascii=True))  # \ud800 escapes keep lone surrogates
        script = os.path.join(tmp, "measure.js")
        with open(script, "w", encoding="utf-8") as f:
            f.write("const fs=require('fs');const [src,out]=process.argv.slice(-2);"
                    "const t=JSON.parse(fs.readFileSync(src,'utf8'));"
                    "fs.writeFileSync(out,JSON.stringify(t.map(s=>Bun.stringWidth(s))));\n")
        subprocess.run([bun, script, src, out], check=True)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def bun_version(bun):
    return subprocess.run([bun, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def code_point_ranges(bun):
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    widths = bun_widths(bun, [chr(cp) for cp in points])
    ranges = []
    for cp, width in zip(points, widths):
        if width == 1:
            continue
        if ranges and ranges[-1][2] == width and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, width])
    return ranges


def random_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        cases.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bun")
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    bun = find_bun(args.bun)
    version = bun_version(bun)
    produced_by = f"python3 tests/oracle/measure_bun_width.py --cases {args.cases} --seed {args.seed} (Bun {version})"
    table = {"produced_by": produced_by, "bun_version": version,
             "note": "Bun.stringWidth of each code point alone; listed only where it is not 1 (surrogates: 0).",
             "ranges": code_point_ranges(bun)}
    with open(os.path.join(REPO, "resources", "data", "bun_string_width.json"), "w", encoding="utf-8") as f:
        json.dump(table, f, separators=(",", ":"))
        f.write("\n")
    cases = random_cases(args.cases, args.seed)
    widths = bun_widths(bun, cases)
    golden_dir = os.path.join(REPO, "tests", "golden", "bun-width")
    os.makedirs(golden_dir, exist_ok=True)
    with open(os.path.join(golden_dir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump({"produced_by": produced_by, "bun_version": version,
                   "cases": [[s, w] for s, w in zip(cases, widths)]}, f, ensure_ascii=True, indent=0)
        f.write("\n")
    print(f"{len(table['ranges'])} ranges, {len(cases)} cases (Bun {version})", file=sys.stderr)


if __name__ == "__main__":
    main()
