"""Audit benchmark: detection on the labelled corpus, false alarms, speed on the real corpus.

1. Labelled corpus (tests/data/audit_corpus/{malicious,benign}/*/label.json): detection rate
   (malicious skills whose worst finding reaches their expected_min_severity) and false-alarm rate
   (benign skills with a high or critical finding), overall, for the holdout part (written before the
   rules it exercises) and per technique. Targets: >= 90 % / <= 5 %.
2. The Cisco skill-scanner (`cisco-ai-skill-scanner`, static + behavioural analyzers, no LLM) on the
   same corpus, when a separate venv holding it is found (--cisco PATH to its `skill-scanner`, default
   /work/cisco-venv/bin/skill-scanner), scored the same way from its per-skill max_severity.
3. Speed over ../shared/corpus (every SKILL.md): a first run as `skillmanager audit` makes it (each skill's
   key, its audit, its report stored in an empty audit cache, the file written) and audit_skill alone, against
   the read-only floor (reading every file of each skill folder), all measured in this run, interleaved
   --repeat times, medians of wall clock and process CPU time, with the ratio; then a repeat run through the
   persistent audit cache, and a new process's first skill.
Usage: python benchmarks/audit.py [--repeat 3] [--cisco PATH|none]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from skillmanager.core.checks.audit import audit_skill, level_index  # noqa: E402
from skillmanager.core.checks.audit_cache import AuditCache, audit_many  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "tests" / "data" / "audit_corpus"
BLIND = ROOT / "tests" / "data" / "audit_blind"  # second blind set, written before the rules it exercises
REAL = Path(os.environ.get("SKILLMANAGER_CORPUS", ROOT.parent / "shared" / "corpus"))
if not REAL.is_dir():  # a worktree elsewhere: the machine's shared corpus
    REAL = Path("/work/shared/corpus")


def labelled() -> list[tuple[Path, dict]]:
    labels = sorted(LABELLED.glob("*/*/label.json")) + sorted(BLIND.glob("*/*/label.json"))
    return [(label.parent, json.loads(label.read_text())) for label in labels]


def score(verdicts: dict[Path, str | None], cases: list[tuple[Path, dict]]) -> dict:
    """verdicts: skill folder -> worst severity (None: clean)."""
    per_tech: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_benign: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # technique -> [false alarms, benign skills]
    found = missed = alarms = benign = 0
    misses, false_alarms = [], []
    for folder, label in cases:
        worst = verdicts.get(folder)
        if label["malicious"]:
            ok = worst is not None and level_index(worst) >= level_index(label["expected_min_severity"])
            found += ok
            missed += not ok
            if not ok:
                misses.append(f"{folder.name} ({worst}, wanted {label['expected_min_severity']})")
            for tech in label["techniques"]:
                per_tech[tech][0] += ok
                per_tech[tech][1] += 1
        else:
            benign += 1
            alarm = worst is not None and level_index(worst) >= level_index("high")
            alarms += alarm
            for tech in label["techniques"]:
                per_benign[tech][0] += alarm
                per_benign[tech][1] += 1
            if alarm:
                false_alarms.append(f"{folder.name} ({worst})")
    return {"detection": found / max(found + missed, 1), "false_alarms": alarms / max(benign, 1),
            "malicious": found + missed, "benign": benign, "per_technique": dict(per_tech),
            "per_benign_technique": dict(per_benign), "misses": misses,
            "false_alarm_list": false_alarms}


def ours(cases: list[tuple[Path, dict]]) -> dict[Path, str | None]:
    return {folder: audit_skill(folder / "SKILL.md").max_severity for folder, _ in cases}


def cisco(cases: list[tuple[Path, dict]], exe: Path, scratch: Path) -> dict[Path, str | None] | str:
    """Static + behavioural analyzers (no LLM, no cloud), one `scan-all` over copies of the skills without
    their label files. A skill's verdict is the scanner's own `max_severity`."""
    if not exe.exists():
        return f"not installed ({exe} missing)"
    names = {}
    for folder, _ in cases:
        copy = scratch / f"{folder.parent.name}-{folder.name}"
        shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns("label.json"))
        names[copy.name] = folder
    proc = subprocess.run([str(exe), "scan-all", str(scratch), "--format", "json", "--use-behavioral", "--compact"],
                          capture_output=True, text=True, timeout=3600)
    try:
        results = json.loads(proc.stdout[proc.stdout.index("{"):])["results"]
    except (ValueError, KeyError):
        return f"could not read its output (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
    verdicts: dict[Path, str | None] = {folder: None for folder in names.values()}
    for result in results:
        folder = names.get(Path(result.get("skill_path", "")).name)
        level = str(result.get("max_severity") or "").lower()
        if folder is not None:
            verdicts[folder] = level if level in ("info", "low", "medium", "high", "critical") else None
    return verdicts


def print_score(title: str, result: dict) -> None:
    print(f"{title}: detection {result['detection']:.1%} of {result['malicious']} malicious, "
          f"false alarms {result['false_alarms']:.1%} of {result['benign']} benign")


def speed(repeat: int) -> None:
    skills = sorted(p.parent for p in REAL.rglob("SKILL.md"))
    if not skills:
        print("speed: ../shared/corpus not found")
        return

    def floor() -> None:
        for folder in skills:
            for entry in os.scandir(folder):
                if entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb") as handle:
                        handle.read()

    def audit() -> None:
        for folder in skills:
            audit_skill(folder / "SKILL.md")

    targets = [(folder / "SKILL.md", None) for folder in skills]

    def first_run() -> None:
        # what `skillmanager audit` does with an empty cache: each skill's key (a walk of its folder), its audit,
        # its report stored, the cache file written
        with tempfile.TemporaryDirectory() as scratch:
            audit_many(targets, cache=AuditCache.open_for_audit(Path(scratch)))

    names = {"floor": "read-only floor", "audit": "audit_skill alone", "first": "first run (empty audit cache)"}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    audit()  # warm the file cache and the regex cache
    for _ in range(repeat):
        for name, fn in (("floor", floor), ("audit", audit), ("first", first_run)):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            runs[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    count = len(skills)
    med = {name: (statistics.median(w for w, _ in r) / count * 1e3, statistics.median(c for _, c in r) / count * 1e3)
           for name, r in runs.items()}
    print(f"speed over {count} real skills (median of {repeat}):")
    for name, title in names.items():
        print(f"  {title:30} {med[name][0]:.3f} ms/skill wall, {med[name][1]:.3f} ms/skill CPU")
    print(f"  first run / floor: {med['first'][0] / med['floor'][0]:.1f}x wall, {med['first'][1] / med['floor'][1]:.1f}x "
          f"CPU  (target <= 0.5 ms/skill: {'met' if med['first'][1] <= 0.5 else 'NOT met'} in CPU)")
    repeat_run(skills, repeat)
    first_skill(skills[0], repeat)


_FIRST = """
import sys, time
from pathlib import Path
start = time.process_time()
from skillmanager.core.checks.audit import audit_skill
imported = time.process_time()
audit_skill(Path(sys.argv[1]))
print(imported - start, time.process_time() - imported)
"""


def first_skill(skill: Path, repeat: int) -> None:
    """What the timings above leave out (they warm up first): a new process's import and first audit, which
    derives the rules' word gates and needles unless an earlier process kept them (audit_derived_cache)."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SKILLMANAGER_NO_RULE_CACHE")}
        env.update(PYTHONPATH=str(ROOT), SKILLMANAGER_CACHE_DIR=scratch)
        runs: dict[str, list[tuple[float, float]]] = {"empty": [], "kept": []}
        for _ in range(repeat):
            for name in ("empty", "kept"):
                if name == "empty":
                    for old in Path(scratch).glob("audit-rules-*.json"):
                        old.unlink()
                out = subprocess.run([sys.executable, "-c", _FIRST, str(skill / "SKILL.md")], env=env, cwd=ROOT,
                                     capture_output=True, text=True, check=True).stdout.split()  # (cwd: see cli.py)
                runs[name].append((float(out[0]), float(out[1])))
    for name, title in (("empty", "no rules kept (a first process)"), ("kept", "rules kept by an earlier process")):
        imported = statistics.median(i for i, _ in runs[name]) * 1e3
        first = statistics.median(f for _, f in runs[name]) * 1e3
        print(f"  new process, {title}: import {imported:.0f} ms, first skill {first:.0f} ms CPU")


def repeat_run(skills: list[Path], repeat: int) -> None:
    """A repeat run through the persistent audit cache (what `skillmanager audit` does without --no-cache),
    with the cache file made older than every stamp so entries are served, and checked equal to fresh audits."""
    targets = [(folder / "SKILL.md", None) for folder in skills]
    with tempfile.TemporaryDirectory() as scratch:
        fresh = audit_many(targets, cache=AuditCache.open_for_audit(Path(scratch)))
        cache = AuditCache.open_for_audit(Path(scratch))
        later = cache.racy_after + 10**12
        os.utime(cache.file, ns=(later, later))
        times = []
        for _ in range(repeat):
            cache = AuditCache.open_for_audit(Path(scratch))
            wall, cpu = time.perf_counter(), time.process_time()
            served = audit_many(targets, cache=cache)
            times.append((time.perf_counter() - wall, time.process_time() - cpu))
        same = [a.to_json() for a in served] == [a.to_json() for a in fresh]
    wall = statistics.median(w for w, _ in times) / len(skills) * 1e3
    cpu = statistics.median(c for _, c in times) / len(skills) * 1e3
    print(f"  repeat run through the audit cache: {wall:.3f} ms/skill wall, {cpu:.3f} ms/skill CPU "
          f"({cache.hits} of {len(skills)} served; equal to fresh audits: {same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cisco", default="/work/cisco-venv/bin/skill-scanner")
    args = parser.parse_args()
    cases = labelled()
    verdicts = ours(cases)
    mine = score(verdicts, cases)
    mine["verdicts"] = verdicts
    print_score("skillmanager audit", mine)
    cisco_result = None
    if args.cisco != "none":
        with tempfile.TemporaryDirectory() as scratch:
            verdicts = cisco(cases, Path(args.cisco), Path(scratch))
        if isinstance(verdicts, str):
            print(f"cisco skill-scanner: {verdicts}")
        else:
            cisco_result = score(verdicts, cases)
            cisco_result["verdicts"] = verdicts
            print_score("cisco skill-scanner (static + behavioural)", cisco_result)
    parts = (("holdout part (written before the rules it exercises)",
              lambda label: label.get("holdout") and not label.get("written_after_rules")),
             ("blind part written after the rules", lambda label: label.get("written_after_rules")),
             ("second blind set (tests/data/audit_blind)", lambda label: label.get("blind_2")))
    for title, member in parts:
        part = [(folder, label) for folder, label in cases if member(label)]
        if part:
            print_score(f"  {title}", score(mine["verdicts"], part))
            if cisco_result:
                print_score(f"  {title}, cisco", score(cisco_result["verdicts"], part))
    print("per technique, malicious (detected / total):")
    for tech, (ok, total) in sorted(mine["per_technique"].items()):
        theirs = cisco_result["per_technique"].get(tech, [0, 0]) if cisco_result else None
        print(f"  {tech:24} ours {ok:3}/{total:<3} {ok / total:6.1%}" +
              (f"  cisco {theirs[0]:3}/{theirs[1]:<3} {theirs[0] / max(theirs[1], 1):6.1%}" if theirs else ""))
    print("per technique, benign (false alarms / total):")
    for tech, (bad, total) in sorted(mine["per_benign_technique"].items()):
        theirs = cisco_result["per_benign_technique"].get(tech, [0, 0]) if cisco_result else None
        print(f"  {tech:24} ours {bad:3}/{total:<3} {bad / total:6.1%}" +
              (f"  cisco {theirs[0]:3}/{theirs[1]:<3} {theirs[0] / max(theirs[1], 1):6.1%}" if theirs else ""))
    if mine["misses"]:
        print("missed:", ", ".join(mine["misses"]))
    if mine["false_alarm_list"]:
        print("false alarms:", ", ".join(mine["false_alarm_list"]))
    speed(args.repeat)


if __name__ == "__main__":
    main()
