#!/usr/bin/env python3
"""The version timeline from battery results: which feature values each installed release shows, and where
they flip between neighbouring releases.

    python3 tests/oracle/timeline.py RESULTS_DIR            # one battery JSON per release (battery.py --out)
    python3 tests/oracle/timeline.py --run CLI... --results RESULTS_DIR   # run the battery first, then print
    python3 tests/oracle/timeline.py --write [RESULTS_DIR]   # regenerate resources/data/claude_versions.json,
                                                             # bundled_skills.json and tests/golden/timeline/
    python3 tests/oracle/timeline.py --merge PROBE RESULTS_DIR  # one new probe's answers: its timeline only

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


def step_at(steps: list[dict], version: str) -> dict:
    """The timeline step that holds at `version` (the first one before the first)."""
    found = steps[0]
    for step in steps:
        if version_key(step["since"]) <= version_key(version):
            found = step
    return found


def compare(result: dict) -> tuple[list[str], list[str], list[str]]:
    """(held, changed, unanswered) lines for one battery result against the data file at its version."""
    sys.path.insert(0, HERE)
    import battery  # noqa: PLC0415
    with open(DATA, encoding="utf-8") as f:
        data = json.load(f)
    with open(BUNDLED_DATA, encoding="utf-8") as f:
        bundled = json.load(f)
    version = result["version"]
    held, changed, unanswered = [], [], []
    for group in ("features", "values"):
        for name, entry in data[group].items():
            step = step_at(entry["timeline"], version)
            run, part, _ = battery.PROBES[FOLLOWS.get(name, (name, None))[0]]
            how = f"{run} run, {part}"
            if name == "bundled":
                measured = result.get("bundled_measured")
                observed = None if measured is None else [[n, length] for n, _w, length in measured]
                expected = [[e["name"], e["length"]] for e in bundled[step["value"]]["entries"]]
            else:
                observed, expected = data_value(name, result["found"]), step["value"]
            if observed is None:
                unanswered.append(f"{name}: not observed ({result.get('notes', {}).get(name, how)})")
            elif observed == expected:
                held.append(f"{name}: {json.dumps(observed, ensure_ascii=False)[:80]}")
            else:
                changed.append(f"{name}: timeline {json.dumps(expected, ensure_ascii=False)} (since {step['since']}, "
                               f"last seen on {step['observed'][-1]}), observed {json.dumps(observed, ensure_ascii=False)}"
                               f" -- {how}")
    return held, changed, unanswered


def compare_text(result: dict) -> str:
    """What held and what changed for one release against the timeline's value at that release."""
    held, changed, unanswered = compare(result)
    parts = [f"Claude Code {result['version']}: {len(held)} held, {len(changed)} changed, "
             f"{len(unanswered)} not observed"]
    for title, lines in (("changed", changed), ("not observed", unanswered), ("held", held)):
        if lines:
            parts.append(f"{title}:\n  " + "\n  ".join(lines))
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- the data file from battery results

RELEASES = os.path.join(HERE, "..", "golden", "timeline", "releases.json")
OBSERVATIONS = os.path.join(HERE, "..", "golden", "timeline", "observations.json")
BUNDLED_DATA = os.path.join(HERE, "..", "..", "resources", "data", "bundled_skills.json")
FAMILY = {"cli.js (node)": "Claude Code with a readable cli.js (runs on node)",
          "native binary": "Claude Code native binary (Bun)"}
SOURCE_ORDER = {  # the source_order probe's answer -> SourceKind values in load order
    "bundled-first": ["bundled", "managed", "user", "project", "add-dir", "command", "plugin-command",
                      "plugin-skill", "mcp"],
    "bundled-after-plugins": ["managed", "user", "project", "add-dir", "command", "plugin-command",
                              "plugin-skill", "bundled", "builtin-command", "mcp"],
}
UNDECIDED = {"SKILL_DIRS_CASE_INSENSITIVE_ORDER": "skill dirs listed in read order: SKILL_DIRS_IN_READ_ORDER"}
BUILTIN_COMMANDS = {"init", "security-review"}  # built-in prompt commands listed after the bundled skills
# commands order: one run shows it out of order (True) or cannot tell (None); taken with COMMANDS_SORTED_BY_NAME
FOLLOWS = {"UNSTABLE_COMMAND_AND_PLUGIN_ORDER": ("COMMANDS_SORTED_BY_NAME", lambda sorted_: not sorted_)}


def data_value(name: str, found: dict) -> object:
    """A battery answer in the data file's terms (None: the run could not tell). Not for `bundled`."""
    probe, derive = FOLLOWS.get(name, (name, None))
    value = found.get(probe)
    if value is None:
        return None
    if derive is not None:
        return derive(value)
    if name == "family":
        return FAMILY[value]
    if name == "source_order":
        return SOURCE_ORDER[value]
    return value


def release_order() -> list[str]:
    with open(RELEASES, encoding="utf-8") as f:
        return [v for v, _ in json.load(f)["releases"]]


def _bundled_keys(ran: list[dict], bundled: dict) -> dict[str, str]:
    """Release -> key in bundled_skills.json; a new key (the first release that showed it) per new entry set.
    Adds the new sets to `bundled`, measured by battery.py (names, widths, lengths; never the text); sets from an
    earlier write are measured again."""
    for key in [k for k in bundled if k not in ("legacy", "current")]:
        del bundled[key]
    known = {json.dumps([[e["name"], e["length"]] for e in v["entries"]]): k for k, v in bundled.items()}
    aliases = {e["name"]: e for e in bundled.get("current", {}).get("entries", [])}
    keys = {}
    for r in ran:
        measured = r.get("bundled_measured")
        sig = json.dumps([[n, length] for n, _w, length in measured]) if measured is not None else None
        if sig is None:
            continue
        if sig not in known:
            key = r["version"]
            entries = []
            for name, width, length in measured:
                entry = {"name": name, "width": width, "length": length,
                         "kind": "builtin-command" if name in BUILTIN_COMMANDS else "bundled"}
                for extra in ("aliases", "context"):  # read from the 2.1.332 binary; assumed unchanged
                    if extra in aliases.get(name, {}):
                        entry[extra] = aliases[name][extra]
                entries.append(entry)
            bundled[key] = {"source": f"Measured by tests/oracle/battery.py on Claude Code {key} (first listing, "
                            "entries as sent): width by string-width, length in UTF-16 units; aliases and context "
                            "as read from the 2.1.332 binary. Names and sizes only.", "entries": entries}
            known[sig] = key
        keys[r["version"]] = known[sig]
    return keys


def _steps(seen: list[tuple[str, object]], order: list[str], errors: dict[str, str], evidence: str,
           extra: dict[str, str], undecided: dict[str, str]) -> list[dict]:
    """Runs of equal values -> timeline steps with 'since', 'after', 'located', 'observed', 'evidence'."""
    runs: list[list] = []
    for version, value in seen:
        if runs and runs[-1][0] == value:
            runs[-1][1].append(version)
        else:
            runs.append([value, [version]])
    steps = []
    for index, (value, versions) in enumerate(runs):
        text = f"{evidence}: {json.dumps(value, ensure_ascii=False)} on {len(versions)} release(s)"
        step = {"since": versions[0], "value": value, "observed": versions}
        goldens = {v: extra[v] for v in versions if v in extra}
        if index:
            after = runs[index - 1][1][-1]
            between = order[order.index(after) + 1:order.index(versions[0])]
            broken = [v for v in between if v in errors]
            unsure = [v for v in between if v in undecided]
            step["after"] = after
            step["located"] = not between
            if broken:
                step["not_runnable"] = broken
                text += f"; {', '.join(broken)} between could not be run ({errors[broken[0]]})"
            if unsure:
                step["undecided"] = unsure
                text += (f"; on {len(unsure)} release(s) between ({unsure[0]}-{unsure[-1]}) the probe could not "
                         f"tell ({undecided[unsure[0]]})")
            untried = len(between) - len(broken) - len(unsure)
            if untried:
                step["untried"] = untried
                text += f"; {untried} release(s) between were not run"
            if between:
                text += "; bounded: the releases between take the earlier value"
        step["evidence"] = text
        if goldens:
            step["goldens"] = goldens
        steps.append(step)
    return steps


def build_data(results: list[dict], old: dict, bundled: dict) -> dict:
    """claude_versions.json from battery results (sorted by version) and the file it replaces."""
    sys.path.insert(0, HERE)
    import battery  # noqa: PLC0415
    order = release_order()
    ran = [r for r in results if "found" in r]
    errors = {r["version"]: r["error"] for r in results if "error" in r}
    keys = _bundled_keys(ran, bundled)
    data = {k: old[k] for k in ("about", "aliases")}
    data["about"] = data["about"].split(" 'located'")[0] + (
        " 'located': true when 'after' and 'since' are adjacent releases on the registry "
        "(tests/golden/timeline/releases.json); otherwise the releases between take the earlier value and the "
        "step says why (not run, or could not be run). Regenerate: python3 tests/oracle/timeline.py --write.")
    data["studied"] = [r["version"] for r in ran]
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    from skillmanager.core.versions.features import VALUE_NAMES, Feature  # noqa: PLC0415
    for group, names in (("features", [f.value for f in Feature]), ("values", list(VALUE_NAMES))):
        data[group] = {}
        for name in names:
            extra = {}  # the recorded goldens that first settled a value on a studied release
            for step in old[group].get(name, {}).get("timeline", []):
                goldens = step.get("goldens") or (None if step["evidence"].startswith("battery.py") else
                                                  {step["observed"][0]: step["evidence"]})
                extra.update(goldens or {})
            probe = FOLLOWS.get(name, (name, None))[0]
            run, part, _ = battery.PROBES[probe]
            evidence = f"battery.py {run} run, {part}"
            seen, undecided = [], {}
            for r in ran:
                value = keys.get(r["version"]) if name == "bundled" else data_value(name, r["found"])
                if value is not None:
                    seen.append((r["version"], value))
                elif name != "bundled" and probe in r["found"] and \
                        not r.get("notes", {}).get(probe, "").startswith(("needs", "the ")):
                    undecided[r["version"]] = r.get("notes", {}).get(probe) or UNDECIDED.get(probe, "no answer")
            if name in FOLLOWS:
                evidence = (f"taken with {probe} ({evidence}): once commands are sorted by name one order holds; "
                            f"{name} itself ({battery.PROBES[name][1]}) can only show disorder")
            data[group][name] = {"timeline": _steps(seen, order, errors, evidence, extra, undecided)}
    return data


def observations(results: list[dict]) -> dict:
    """The small golden kept in the repository: every probe's answer per release (no CLI text)."""
    return {"produced_by": "python3 tests/oracle/timeline.py --write (from tests/oracle/bisect_releases.py results)",
            "releases": {r["version"]: ({"error": r["error"]} if "error" in r else r["found"]) for r in results}}


def _dump(obj: dict) -> str:
    """One line per timeline step / release, so diffs stay readable."""
    lines = ["{"]
    items = list(obj.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f" {json.dumps(key)}: {{")
            inner = list(value.items())
            for j, (k2, v2) in enumerate(inner):
                c2 = "," if j + 1 < len(inner) else ""
                if isinstance(v2, dict) and list(v2) == ["timeline"]:
                    steps = ",\n".join("   " + json.dumps(s, ensure_ascii=False) for s in v2["timeline"])
                    lines.append(f'  {json.dumps(k2)}: {{"timeline": [\n{steps}\n  ]}}{c2}')
                else:
                    lines.append(f"  {json.dumps(k2)}: {json.dumps(v2, ensure_ascii=False)}{c2}")
            lines.append(f" }}{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    return "\n".join(lines) + "\n}\n"


def write(results_dir: str) -> None:
    results = load_results(results_dir)
    if not any("found" in r for r in results):
        raise SystemExit(f"no battery results in {results_dir}: nothing written")
    with open(DATA, encoding="utf-8") as f:
        old = json.load(f)
    with open(BUNDLED_DATA, encoding="utf-8") as f:
        bundled = json.load(f)
    data = build_data(results, old, bundled)
    for path, text in ((DATA, _dump(data)), (OBSERVATIONS, _dump(observations(results))),
                       (BUNDLED_DATA, json.dumps(bundled, indent=2, ensure_ascii=False) + "\n")):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


def merge_probe(probe: str, results_dir: str) -> None:
    """Add one probe's answers from battery results (e.g. a bisection run with only its run) to the golden
    observations and rewrite that feature's or value's timeline alone; every other timeline stays as it is (their
    raw results need not be at hand). Releases new to the observations join `studied`, as a bisection step's
    partial run does in `write`."""
    sys.path.insert(0, HERE)
    import battery  # noqa: PLC0415
    if probe not in battery.PROBES or probe in FOLLOWS or probe == "bundled":
        raise SystemExit(f"{probe}: not a probe that answers for itself in tests/oracle/battery.py")
    with open(DATA, encoding="utf-8") as f:
        data = json.load(f)
    with open(OBSERVATIONS, encoding="utf-8") as f:
        releases = json.load(f)["releases"]
    added = [r for r in load_results(results_dir) if "found" in r and probe in r["found"]]
    if not added:
        raise SystemExit(f"no answers for {probe} in {results_dir}: nothing written")
    for r in added:
        seen = releases.setdefault(r["version"], {})
        if "error" in seen:
            raise SystemExit(f"{r['version']} is recorded as not runnable; run the whole battery there instead")
        seen[probe] = r["found"][probe]
    releases = dict(sorted(releases.items(), key=lambda kv: version_key(kv[0])))
    group = "features" if probe in data["features"] or probe not in data["values"] else "values"
    run, part, _ = battery.PROBES[probe]
    ordered = [(v, seen) for v, seen in releases.items() if "error" not in seen]
    answers = [(v, data_value(probe, seen)) for v, seen in ordered]
    undecided = {v: UNDECIDED.get(probe, "no answer") for v, seen in ordered if probe in seen and seen[probe] is None}
    errors = {v: seen["error"] for v, seen in releases.items() if "error" in seen}
    data[group][probe] = {"timeline": _steps([(v, a) for v, a in answers if a is not None], release_order(), errors,
                                             f"battery.py {run} run, {part}", {}, undecided)}
    data["studied"] = [v for v, _ in ordered]
    data[group] = dict(sorted(data[group].items(), key=lambda kv: _declared_order(group).index(kv[0])))
    for path, text in ((DATA, _dump(data)),
                       (OBSERVATIONS, _dump({"produced_by": observations([])["produced_by"], "releases": releases}))):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


def _declared_order(group: str) -> list[str]:
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    from skillmanager.core.versions.features import VALUE_NAMES, Feature  # noqa: PLC0415
    return [f.value for f in Feature] if group == "features" else list(VALUE_NAMES)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default="/root/.cache/cc-versions/results")
    parser.add_argument("--run", nargs="*", default=[], help="CLIs to run the battery on first")
    parser.add_argument("--write", action="store_true",
                        help="rewrite resources/data/claude_versions.json, bundled_skills.json and the golden")
    parser.add_argument("--merge", metavar="PROBE", help="add PROBE's answers from RESULTS to the golden "
                        "observations and rewrite its timeline only (the other timelines are kept)")
    args = parser.parse_args(argv)
    if args.merge:
        merge_probe(args.merge, args.results)
        return 0
    if args.write:
        write(args.results)
        return 0
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
