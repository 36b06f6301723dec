#!/usr/bin/env python3
"""Record how Bun's `localeCompare` (ICU root collation, what Claude Code 2.1.3xx sorts skill and command
names with) orders seeded random names, for tests/test_collation.py.

    BUN_BIN=/path/to/bun python3 tests/oracle/measure_collation.py [--count 1500] [--seed 2026]

Writes tests/golden/collation/bun-sorted.json: the names in input order and in Bun's order (a stable sort).
The alphabet is what skillmanager claims to order exactly: printable ASCII, Latin letters with marks in
both cases, ß ø æ œ ł and a ligature. Bun from npm as in measure_bun_width.py. Plain python3, no project
imports.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_bun_width import REPO, find_bun  # noqa: E402

ALPHABET = [chr(c) for c in range(0x20, 0x7F)] + list("éÉèüÜöñÑçÇåÅâßøØæÆœłŁﬁ") + ["e\u0301", "a\u0308"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bun")
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7))) for _ in range(args.count)]
    bun = find_bun(args.bun)
    script = ("const fs=require('fs');const n=JSON.parse(fs.readFileSync(process.argv[2],'utf8'));"
              "fs.writeFileSync(process.argv[3],JSON.stringify(n.map((s,i)=>[s,i]).sort((a,b)=>"
              "a[0].localeCompare(b[0])||a[1]-b[1]).map(x=>x[0])));")
    with tempfile.TemporaryDirectory() as tmp:
        src, out, js = (os.path.join(tmp, f) for f in ("in.json", "out.json", "sort.js"))
        with open(src, "w", encoding="utf-8") as f:
            json.dump(names, f)
        with open(js, "w", encoding="utf-8") as f:
            f.write(script)
        subprocess.run([bun, js, src, out], check=True)
        with open(out, encoding="utf-8") as f:
            ordered = json.load(f)
        version = subprocess.run([bun, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    target = os.path.join(REPO, "tests", "golden", "collation", "bun-sorted.json")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        json.dump({"produced_by": f"python3 tests/oracle/measure_collation.py --count {args.count} --seed {args.seed}",
                   "bun_version": version, "names": names, "bun_order": ordered}, f, ensure_ascii=False)
        f.write("\n")
    print(f"{len(names)} names (Bun {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
