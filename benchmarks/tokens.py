"""Token-counting throughput over ~5 MB of skill bodies, per vocabulary, plus vocabulary load times.

    /work/venv312/bin/python benchmarks/tokens.py [--mb 5] [--corpus /work/shared/corpus]

Target: >= 5 MB/s for each vocabulary (median of --repeat counts).
Bodies are the corpus SKILL.md files concatenated repeatedly;
MB means 10**6 bytes of UTF-8. Load time is the first (hash-checked) load in a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillmanager.core.layers.tokens import count_tokens, get_encoding  # noqa: E402

TARGET_MB_S = 5.0


def skill_bodies(corpus: Path, megabytes: float) -> str:
    bodies = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("SKILL.md"))]
    if not bodies:
        raise SystemExit(f"no SKILL.md under {corpus}")
    chunk = "\n\n".join(bodies)
    need = int(megabytes * 1_000_000)
    text = chunk * (need // len(chunk.encode("utf-8")) + 1)
    return text.encode("utf-8")[:need].decode("utf-8", "ignore")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus"))
    parser.add_argument("--repeat", type=int, default=3, help="count this many times, report the median")
    args = parser.parse_args()
    text = skill_bodies(args.corpus, args.mb)
    size_mb = len(text.encode("utf-8")) / 1_000_000
    print(f"text: {size_mb:.2f} MB of skill bodies ({len(text):,} code points)")
    slow = False
    for vocabulary in ("claude", "o200k"):
        start = time.perf_counter()
        get_encoding(vocabulary)
        load = time.perf_counter() - start
        runs = []
        for _ in range(max(1, args.repeat)):  # median: the machine may be shared
            start = time.perf_counter()
            n = count_tokens(text, vocabulary)
            runs.append(time.perf_counter() - start)
        elapsed = statistics.median(runs)
        rate = size_mb / elapsed
        slow |= rate < TARGET_MB_S
        print(f"{vocabulary:7s} load {load:.2f} s  count {elapsed:.2f} s  {rate:.1f} MB/s  {n:,} tokens"
              f"  {'ok' if rate >= TARGET_MB_S else 'BELOW TARGET'} (target {TARGET_MB_S} MB/s)")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
