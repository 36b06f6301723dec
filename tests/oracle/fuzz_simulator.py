#!/usr/bin/env python3
"""Differential fuzzing of the session simulator against the real CLIs (seeded, reproducible).

    python3 tests/oracle/fuzz_simulator.py plan SEED            # print the scenario (cwd, args, steps)
    python3 tests/oracle/fuzz_simulator.py record SEED [--profile legacy|current|both] [--sonnet]
                                                       [--out DIR]   # run record.py (default out /tmp/fuzz-sim)
    /work/venv312/bin/python tests/oracle/fuzz_simulator.py compare GOLDEN.json [...]   # replay in Session

`generate(seed)` builds a random monorepo spec (nested `.claude/skills` at random depths, name clashes
across levels and with start-up skills, `paths:` skills with random patterns, random .gitignore files and
.git/info/exclude, a symlinked package, sometimes a subdirectory cwd) and a random Read/Edit/Write
sequence. `write(work, spec)` materialises it; tests/oracle/fixtures/fuzz-sim.py calls it with the seed
from `FUZZ_SEED`, so record.py runs it like any other fixture. Only plain python3 at module level (the
fixture runs under the system python); `compare` imports skillmanager lazily.

Reproducibility: a seed always builds the same tree. Seeds >= 200 add generator-v2 features (negated
.gitignore pairs, deeper cwd) without touching what seeds < 200 build. Committed goldens carry
`spec_sha1` (spec_fingerprint): if generate() changes what a seed builds, tests/test_session_fuzz.py says
to re-record (`record SEED --profile P --out tests/golden`, then `adopt`).
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

NAMES = ["alpha", "beta", "gamma", "delta", "clash", "shared", "lint", "fmt", "deploy", "docs-helper",
         "api-kit", "web-kit", "omega", "zeta"]
TOP_DIRS = ["packages", "apps", "libs", "tools", "src", "services"]
SUB_DIRS = ["api", "web", "core", "ui", "db", "cli", "hold", "gen", "keep", "drop", "vendor", "lib", "docs"]
FILES = ["a.ts", "b.py", "README.md", "c.tsx", "d.js", "e.json"]


# ---------------------------------------------------------------- the random spec

def generate(seed: int) -> dict:
    rng = random.Random(seed)
    spec: dict = {"seed": seed, "files": {}, "symlinks": [], "steps": [], "git": ["home/proj"]}
    files = spec["files"]
    desc_n = [0]

    def add_skill(rel_dir: str, level: str, name: str, paths=None, dmi=False) -> None:
        desc_n[0] += 1
        front = [f"description: {level} {name} skill number {desc_n[0]}."]
        if paths is not None:
            front.append(paths)
        if dmi:
            front.append("disable-model-invocation: true")
        files[f"{rel_dir}/{name}/SKILL.md"] = "---\n" + "\n".join(front) + "\n---\n" + f"{level} {name} body\n"

    # the project tree: dirs relative to home/proj, depth 1..4
    dirs: list[str] = []
    for top in rng.sample(TOP_DIRS, rng.randint(1, 3)):
        dirs.append(top)
        frontier = [top]
        while frontier:
            parent = frontier.pop()
            depth = parent.count("/") + 1
            if depth >= 4:
                continue
            for sub in rng.sample(SUB_DIRS, rng.randint(0 if depth > 1 else 1, 3)):
                d = f"{parent}/{sub}"
                dirs.append(d)
                if rng.random() < 0.6:
                    frontier.append(d)
    dirs.sort()
    # a symlinked package dir (git sees a symlink; discovery does not resolve it)
    link_target = None
    candidates = [d for d in dirs if d.count("/") == 1]
    if candidates and rng.random() < 0.4:
        link_target = rng.choice(candidates)
        link = os.path.dirname(link_target) + "/link"
        if link not in dirs:
            spec["symlinks"].append([f"home/proj/{link}", os.path.basename(link_target)])
        else:
            link_target = None
    # the cwd: the repo root or a subdirectory of it
    cwd_rel = ""
    if rng.random() < 0.4:
        cwd_rel = rng.choice([d for d in dirs if d.count("/") <= (2 if seed >= 200 else 1)])
    spec["cwd"] = "home/proj" + (f"/{cwd_rel}" if cwd_rel else "")

    def under_cwd(d: str) -> str:
        """A `paths:` pattern base: the dir relative to the cwd (patterns are cwd-relative)."""
        if cwd_rel and d.startswith(cwd_rel + "/"):
            return d[len(cwd_rel) + 1:]
        return d

    def random_paths() -> str:
        d = rng.choice(dirs)
        base = under_cwd(d)
        name = os.path.basename(d)
        pats = rng.choice([
            [f"{base}/**"], ["**/*.ts"], ["*.md"], [f"{base}/**/*.{{ts,tsx}}"], [f"/{base}"], [name],
            [f"{base}/**", f"!{base}/b.py"], [f"{base}/*.py"], [f"{base}/"], ["**/gen/**"], ["**"],
            [f"./{base}/**"], [f"{base}/**/*.js", "*.json"], [f"{name}/*.tsx"], [f"**/{name}/a.ts"],
        ])
        if len(pats) > 1 and rng.random() < 0.5:
            return "paths: " + json.dumps(", ".join(pats))
        if rng.random() < 0.5:
            return "paths:\n" + "\n".join(f"  - {json.dumps(p)}" for p in pats)
        return "paths: " + json.dumps(pats[0])

    def random_skills(rel_dir: str, level: str, lo: int, hi: int) -> None:
        for name in rng.sample(NAMES, rng.randint(lo, hi)):
            paths = random_paths() if rng.random() < 0.4 else None
            add_skill(rel_dir, level, name, paths, dmi=rng.random() < 0.05)

    # start-up sources
    random_skills("home/.claude/skills", "user", 0, 4)
    if rng.random() < 0.5:
        for name in rng.sample(NAMES, rng.randint(1, 2)):
            files[f"home/.claude/commands/{name}.md"] = f"---\ndescription: user command {name}.\n---\ncmd\n"
    random_skills("home/proj/.claude/skills", "project", 0, 3)
    if rng.random() < 0.4:
        name = rng.choice(NAMES)
        files[f"home/proj/.claude/commands/{name}.md"] = f"---\ndescription: project command {name}.\n---\ncmd\n"
    if cwd_rel:
        random_skills(f"home/proj/{cwd_rel}/.claude/skills", "cwd", 0, 2)
    if rng.random() < 0.4:
        random_skills("extra/.claude/skills", "add-dir", 1, 2)
    if rng.random() < 0.3:
        files["plugin/.claude-plugin/plugin.json"] = '{"name": "fuzzplug", "version": "0.0.1"}\n'
        for name in rng.sample(NAMES, rng.randint(1, 2)):
            add_skill("plugin/skills", "plugin", name)
    # nested skills dirs, files, .gitignore files
    for d in dirs:
        if rng.random() < 0.55:
            random_skills(f"home/proj/{d}/.claude/skills", f"nested {d}", 1, 3)
        for fn in rng.sample(FILES, rng.randint(1, 2)):
            files[f"home/proj/{d}/{fn}"] = f"content {d}/{fn}\n"
    rules = []
    for _ in range(rng.randint(0, 3)):
        d = rng.choice(dirs)
        name = os.path.basename(d)
        rules.append(rng.choice([f"{d}/", f"/{d}", f"**/{name}/", name, f"{os.path.dirname(d) or d}/*",
                                 f"!{d}", ".claude/", f"{d}/.claude/"]))
    if seed >= 200:  # generator v2 (seeds < 200 build exactly what their committed goldens recorded)
        for _ in range(rng.randint(0, 2)):  # a broad rule re-included by a negation
            d = rng.choice([x for x in dirs if "/" in x] or dirs)
            parent = os.path.dirname(d) or d
            rules += rng.choice([[f"{parent}/*", f"!{d}"], [f"{parent}/**", f"!{d}/"],
                                 [f"/{parent}/*/", f"!/{d}/"], [f"**/{os.path.basename(d)}", f"!{d}"]])
    if rules:
        files["home/proj/.gitignore"] = "\n".join(rules) + "\n"
    for d in rng.sample(dirs, min(len(dirs), rng.randint(0, 2))):
        sub = [x for x in dirs if x.startswith(d + "/")]
        if sub:
            rel = os.path.relpath(rng.choice(sub), d)
            files[f"home/proj/{d}/.gitignore"] = rng.choice([f"{rel}/", f"/{rel}", f"{os.path.basename(rel)}",
                                                             "skills/", ".claude/"]) + "\n"
    if rng.random() < 0.3:
        spec["exclude"] = rng.choice(dirs) + "/\n"
    files["home/other/outside.txt"] = "outside\n"

    # the steps
    pool = sorted(f[len("home/proj/"):] for f in files if f.startswith("home/proj/") and "/.claude/" not in f
                  and not f.endswith(".gitignore"))
    if link_target:
        pool += [f"{os.path.dirname(link_target)}/link/{p[len(link_target) + 1:]}" for p in pool
                 if p.startswith(link_target + "/")]
    pool.append("../other/outside.txt")
    # Edit candidates: real files only (a symlinked twin would share the content)
    content = {p: f"content {p}" for p in pool if not p.startswith("..") and p in
               {f[len("home/proj/"):] for f in files}}
    read: set[str] = set()
    edits = rng.random() < 0.6
    new_n = 0
    for _ in range(rng.randint(10, 20)):
        r = rng.random()
        if not edits or r < 0.6:
            p = rng.choice(sorted(read)) if read and rng.random() < 0.15 else rng.choice(pool)
            spec["steps"].append({"op": "Read", "rel": p})
            read.add(p)
        elif r < 0.8:
            if not content:
                continue
            p = rng.choice(sorted(read & set(content))) if (read & set(content)) and rng.random() < 0.8 \
                else rng.choice(sorted(content))
            old = content[p]
            spec["steps"].append({"op": "Edit", "rel": p, "old": old, "new": old + " edited"})
            if p in read:
                content[p] = old + " edited"
            else:  # legacy refuses an unread Edit, current performs it: never edit this file again
                del content[p]
        else:
            new_n += 1
            d = rng.choice(dirs)
            p = f"{d}/new{new_n}.ts"
            spec["steps"].append({"op": "Write", "rel": p, "text": f"new {new_n}\n"})
            read.add(p)
    spec["needs_edits"] = any(s["op"] != "Read" for s in spec["steps"])
    # cwd-relative for the record: steps are resolved against home/proj (not the cwd)
    return spec


# ---------------------------------------------------------------- materialise

def write(work: str, spec: dict) -> list[dict]:
    """Write the tree under `work`, git-init, return the steps.json list (absolute paths)."""
    for rel, text in spec["files"].items():
        path = os.path.join(work, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    for rel, target in spec["symlinks"]:
        os.symlink(target, os.path.join(work, rel))
    proj = os.path.join(work, "home/proj")
    os.makedirs(proj, exist_ok=True)
    subprocess.run(["git", "init", "-q", proj], check=False)
    if spec.get("exclude"):
        with open(os.path.join(proj, ".git/info/exclude"), "a", encoding="utf-8") as f:
            f.write(spec["exclude"])
    os.makedirs(os.path.join(work, "home/.claude"), exist_ok=True)
    with open(os.path.join(work, "home/.claude/settings.json"), "w") as f:
        json.dump({"permissions": {"allow": ["Read", "Skill", "Edit", "Write"]}}, f)
    with open(os.path.join(work, "home/.claude.json"), "w") as f:
        f.write('{"hasCompletedOnboarding": true, "numStartups": 5, "bypassPermissionsModeAccepted": true}\n')
    steps = []
    for s in spec["steps"]:
        path = os.path.normpath(os.path.join(proj, s["rel"]))
        if s["op"] == "Read":
            steps.append({"name": "Read", "input": {"file_path": path}})
        elif s["op"] == "Edit":
            steps.append({"name": "Edit", "input": {"file_path": path, "old_string": s["old"],
                                                    "new_string": s["new"]}})
        else:
            steps.append({"name": "Write", "input": {"file_path": path, "content": s["text"]}})
    with open(os.path.join(work, "steps.json"), "w") as f:
        json.dump(steps, f, indent=1)
    return steps


def spec_fingerprint(seed: int) -> str:
    """Changes whenever generate() changes what a seed builds: committed goldens then need re-recording."""
    import hashlib

    return hashlib.sha1(json.dumps(generate(seed), sort_keys=True).encode("utf-8")).hexdigest()


def record_args(spec: dict) -> list[str]:
    args = "--max-turns 40" + (" --permission-mode acceptEdits" if spec["needs_edits"] else "")
    out = ["--args", args, "--fixture-env", f"FUZZ_SEED={spec['seed']}"]
    if spec["cwd"] != "home/proj":
        out += ["--cwd", spec["cwd"]]
    return out


# ---------------------------------------------------------------- compare with the simulator

SKILL_BLOCK = re.compile(r"(?:^|\n\n)(The following skills are available for use with the Skill tool:|New skills discovered in )")
REMINDER = re.compile(r"<system-reminder>\n(.*?)\n</system-reminder>", re.S)
LISTING_HEADER = "The following skills are available for use with the Skill tool:\n\n"
FILE_OPS = ("Read", "Edit", "Write")


def golden_blocks(turn: dict, reminder_placed: bool) -> list[str]:
    """The skill blocks the CLI sent for one tool call (same normalisation as test_session_golden)."""
    if not reminder_placed:  # split_blocks drops the harness parts (nudges) that may share a message
        return [m for m in turn.get("system_texts", []) if SKILL_BLOCK.search(m)]
    texts = [turn.get("tool_result") or "", *turn.get("extra_texts", [])]
    return [b for t in texts for b in REMINDER.findall(t) if SKILL_BLOCK.match(b)]


BLOCK_START = re.compile(r"\n\n(?=New skills discovered in |The following skills are available for use)")


def split_blocks(blocks: list[str]) -> tuple[list[str], list[str]]:
    """(discovery blocks, listing entries) of one step; system messages may hold several blocks."""
    found, entries = [], []
    for block in blocks:
        for part in BLOCK_START.split(block):
            if part.startswith(LISTING_HEADER):  # harness text (a nudge) may share the system message
                entries.extend(part[len(LISTING_HEADER):].split("\n\n")[0].split("\n"))
            elif part.startswith("New skills discovered in "):
                found.append(part)
    return found, entries


def replay(golden: dict, work: str):
    """(ours, theirs, steps, session): per file-op call, the skill blocks each side sent."""
    from skillmanager.core.rules.registry import load_registry
    from skillmanager.core.simulator.session import Session
    from skillmanager.core.load.workspace import Workspace

    home = os.path.join(work, "home")
    model = None
    args = golden.get("args", [])
    if "--model" in args:
        model = args[args.index("--model") + 1]
    extra, plugin = os.path.join(work, "extra"), os.path.join(work, "plugin")
    ws = Workspace.create(home=home, cwd=os.path.join(work, golden["cwd"]), managed_root=None,
                          profile=golden["profile"], model=model, env={"HOME": home},
                          add_dirs=[extra] if os.path.isdir(extra) else [],
                          plugin_dirs=[plugin] if os.path.isdir(plugin) else [])
    session = Session(load_registry(ws))
    reminder_placed = golden["profile"] == "legacy" or bool(model and "4-6" in model)
    ours, theirs, steps = [], [], []
    for turn in golden["turns"]:
        if turn["tool"] not in FILE_OPS:
            continue
        path = turn["input"]["file_path"].replace("<WORK>", work)
        old_string = turn["input"].get("old_string") if turn["tool"] == "Edit" else None
        result = session.add_step(turn["tool"], path, old_string=old_string)  # the literal call, as recorded
        expected = "tool_result" if reminder_placed else "system"
        assert not result.model_text or result.placement == expected, (result.index, result.placement)
        if reminder_placed:
            ours.append(REMINDER.findall(result.model_text))
        else:
            ours.append([result.model_text] if result.model_text else [])
        theirs.append(golden_blocks(turn, reminder_placed))
        steps.append((turn["tool"], turn["input"]["file_path"], turn.get("is_error", False)))
    return ours, theirs, steps, session


def _entry_name(entry: str) -> str:
    return entry.split(": ", 1)[0]


def diff_steps(ours: list[list[str]], theirs: list[list[str]]) -> list[int]:
    """Indexes (0-based) of the steps that differ.

    Exact comparison (blocks, entries and their order), with one tolerance: the listing entries of a
    step may arrive one call late. Both CLIs load a new skills dir without awaiting it (legacy
    `addSkillDirectories(...).catch()`; current's "New skills discovered" block is sent on time but its
    listing can lag, fuzz-sim-5), so entries the CLI did not send at step N must all arrive at step N+1,
    ahead of or among that step's own entries, which may lag in turn. Late entries match by name (the
    race decides their order, and a nearer copy loaded meanwhile may have replaced the body). Entries
    still late after the last recorded call cannot be checked (no later call to carry them)."""
    bad = []
    carry: list[str] = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        found_a, mine = split_blocks(a)
        found_b, real = split_blocks(b)
        if found_a != found_b:
            bad.append(i)
            carry = []
            continue
        if not carry and mine == real:
            continue
        rest = list(real)
        late_names = [_entry_name(e) for e in carry]
        for name in late_names:  # everything late must arrive now
            hit = next((e for e in rest if _entry_name(e) == name), None)
            if hit is None:
                break
            rest.remove(hit)
        else:
            # this step's own entries: the ones sent keep their order, the others may be late
            sent = [e for e in mine if e in rest]
            if sorted(sent) == sorted(rest) and \
                    [e for e in rest if e in sent] == sent:
                carry = [e for e in mine if e not in rest]
                continue
        bad.append(i)
        carry = []
    return bad


def compare(golden_path: str, verbose: bool = True) -> tuple[int, int]:
    import tempfile

    if REPO not in sys.path:
        sys.path.insert(0, REPO)

    golden = json.load(open(golden_path, encoding="utf-8"))
    seed = int(golden["fixture_env"]["FUZZ_SEED"])
    work = os.path.realpath(tempfile.mkdtemp(prefix="fuzz-cmp-"))
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run([sys.executable, os.path.join(HERE, "fixtures", "fuzz-sim.py"), work], check=True,
                   capture_output=True, env=dict(env, FUZZ_SEED=str(seed)))
    ours, theirs, steps, _ = replay(golden, work)
    bad = diff_steps(ours, theirs)
    if verbose:
        print(f"{golden_path}: {len(steps)} steps, {len(bad)} mismatches")
        for i in bad:
            print(f"  step {i + 1} {steps[i]}")
            print("    ours  :", json.dumps(ours[i])[:3000])
            print("    theirs:", json.dumps(theirs[i])[:3000])
    return len(steps), len(bad)


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "help"
    if cmd == "plan":
        print(json.dumps(generate(int(argv[1])), indent=1))
        return 0
    if cmd == "record":
        seed = int(argv[1])
        rest = argv[2:]
        out = "/tmp/fuzz-sim"
        if "--out" in rest:
            i = rest.index("--out")
            out = os.path.abspath(rest[i + 1])
            rest = rest[:i] + rest[i + 2:]
        spec = generate(seed)
        args = record_args(spec)
        name = f"fuzz-sim-{seed}"
        if "--sonnet" in rest:
            rest.remove("--sonnet")
            args[1] += " --model claude-sonnet-4-6"
            name += "-sonnet"
        cmd_line = [sys.executable, os.path.join(HERE, "record.py"), "fuzz-sim", *args,
                    "--name", os.path.join(out, name), *rest]
        return subprocess.run(cmd_line).returncode
    if cmd == "adopt":  # copy recorded captures into tests/golden with the spec fingerprint
        for p in argv[1:]:
            g = json.load(open(p, encoding="utf-8"))
            seed = int(g["fixture_env"]["FUZZ_SEED"])
            name = os.path.basename(os.path.dirname(os.path.abspath(p)))
            sonnet = " --sonnet" if name.endswith("-sonnet") else ""
            g["produced_by"] = (f"python3 tests/oracle/fuzz_simulator.py record {seed} --profile {g['profile']}"
                                f"{sonnet} --out tests/golden")
            g["spec_sha1"] = spec_fingerprint(seed)
            dest = os.path.join(REPO, "tests", "golden", name)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, os.path.basename(p)), "w", encoding="utf-8") as f:
                f.write(json.dumps(g, indent=1, ensure_ascii=False) + "\n")
            print("adopted", os.path.join(dest, os.path.basename(p)))
        return 0
    if cmd == "compare":
        total = bad = 0
        for p in argv[1:]:
            n, b = compare(p)
            total, bad = total + n, bad + b
        print(f"TOTAL {total} steps, {bad} mismatches")
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
