"""Listing benchmark: the layer-1 listing built from a real registry, and token counting.

The registry is loaded from a realistic workspace (benchmarks/realistic.py: real corpus files, shared names,
~6 % display names, when_to_use, 200 --add-dir packages), so entries come through `entries_from_registry`,
display names are resolved and descriptions are cleaned and measured as in the app. At each size (default
1,000 / 5,000 / 20,000), a second workspace gives every skill a display name (the O(N^2) case of the issue).
Figures: the first listing in the process (cold: width and cleaning caches empty) and the median of
interleaved warm runs, for both profiles; a growth slope between the smallest and largest size. Anchor: the
time to read the entries' description strings once (a loop over the registry) in the same run.
Token counting: skillmanager's counter against tiktoken's own encoder on the same text (~5 MB of bodies).
Targets (issue): 5,000 < 30 ms, 20,000 < 120 ms, linear.
Usage: python benchmarks/listing.py [--sizes 1000,5000,20000] [--repeat 7] [--keep DIR]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realistic  # noqa: E402
from skillmanager.core.layers.listing import build_listing  # noqa: E402
from skillmanager.core.rules.registry import load_registry  # noqa: E402
from skillmanager.core.versions.profiles import get_profile  # noqa: E402

def measure(registry, repeat: int) -> dict[str, tuple[float, float, float]]:
    """profile -> (first run ms, warm median ms, warm median CPU ms); the profiles' warm runs interleaved.
    CPU time is printed beside wall time: on a loaded machine wall time mostly measures waiting for a core."""
    out: dict[str, tuple[float, float, float]] = {}
    first = {}
    for profile in ("legacy", "current"):
        t0 = time.perf_counter()
        build_listing(registry, get_profile(profile))
        first[profile] = (time.perf_counter() - t0) * 1000
    wall: dict[str, list[float]] = {"legacy": [], "current": []}
    cpu: dict[str, list[float]] = {"legacy": [], "current": []}
    for _ in range(repeat):
        for profile in ("legacy", "current"):
            t0, c0 = time.perf_counter(), time.process_time()
            build_listing(registry, get_profile(profile))
            wall[profile].append((time.perf_counter() - t0) * 1000)
            cpu[profile].append((time.process_time() - c0) * 1000)
    for profile in ("legacy", "current"):
        out[profile] = (first[profile], statistics.median(wall[profile]), statistics.median(cpu[profile]))
    return out


def anchor_ms(registry, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        total = 0
        for skill in registry.skills:
            total += len(skill.name) + len(skill.description)
        runs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(runs)


def tokens(mb: float) -> None:
    import unicodedata

    from skillmanager.core.layers.tokens import count_tokens, get_encoding
    texts = [text for _name, text in realistic.corpus_files()]
    body = "\n\n".join(texts)
    need = int(mb * 1_000_000)
    text = (body * (need // max(len(body.encode("utf-8")), 1) + 1)).encode("utf-8")[:need].decode("utf-8", "ignore")
    count_tokens("warm up")
    t0 = time.perf_counter()
    ours = count_tokens(text)
    seconds = time.perf_counter() - t0
    # Anchor: tiktoken's public encode on the same vocabulary and text, as @anthropic-ai/tokenizer calls it
    # (NFKC, every special token allowed). tiktoken.get_encoding("cl100k_base") would download its data;
    # the shipped vocabulary is already a tiktoken.Encoding.
    encoding = get_encoding("claude")
    normalised = unicodedata.normalize("NFKC", text)
    t0 = time.perf_counter()
    direct = len(encoding.encode(normalised, allowed_special="all"))
    direct_s = time.perf_counter() - t0
    same = "same count" if direct == ours else f"DIFFERENT count {direct:,}"
    anchor = (f"; tiktoken direct (Encoding.encode on the NFKC text, same vocabulary): {direct_s:.2f} s, "
              f"{seconds / direct_s:.2f}x, {same}")
    size = len(text.encode("utf-8")) / 1e6
    print(f"token counting: {ours:,} tokens in {seconds:.2f} s = {size / seconds:.1f} MB/s{anchor}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--keep", help="build the trees under this dir and keep them (reused when present)")
    args = ap.parse_args()
    print(realistic.corpus_note())
    print(realistic.machine(), "|", realistic.MACHINE_NOTE)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skillmanager-listing-"))
    rows: dict[str, list[tuple[int, float]]] = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        for variant, share in (("realistic", 0.06), ("every skill with a display name", 1.0)):
            root = base / (f"ws{size}" if share == 0.06 else f"ws{size}-names")
            ws = realistic.build_or_reuse(root, size, display_share=share)
            workspace = ws.workspace()
            workspace.managed_root = None
            registry = load_registry(workspace)
            figures = measure(registry, args.repeat)
            anchor = anchor_ms(registry, args.repeat)
            shown_names = sum(1 for s in registry.skills if s.display_name)
            print(f"\n{size} skills, {variant} ({shown_names} display names), median of {args.repeat} warm runs:")
            for profile, (cold, warm, warm_cpu) in figures.items():
                target = 30 if size <= 5000 else 120
                print(f"  listing {profile:7s}: first {cold:7.1f} ms, warm {warm:7.1f} ms (CPU {warm_cpu:7.1f} ms)  "
                      f"({warm / max(anchor, 1e-6):.0f}x the anchor {anchor:.2f} ms)"
                      + (f"  target < {target} ms: wall {'met' if warm < target else 'NOT met'}, CPU "
                         f"{'met' if warm_cpu < target else 'NOT met'}" if size in (5000, 20000) else ""))
                rows.setdefault(f"{variant}, {profile}", []).append((size, warm))
                rows.setdefault(f"{variant}, {profile}, CPU", []).append((size, warm_cpu))
    for name, points in rows.items():
        if len(points) > 1:
            print(f"growth ({name}, warm): {realistic.slope(points)}")
    tokens(args.mb)
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
