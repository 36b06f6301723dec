#!/usr/bin/env python3
"""Seeded fuzz fixture for the registry and the layer-1 listing: random trees over every source.

    python3 tests/oracle/fuzz_registry.py WORK             # build; seed from $FUZZ_SEED (default 1)
    python3 tests/oracle/fuzz_registry.py --record-args N  # the record.py options that seed needs
    eval "python3 tests/oracle/record.py fuzz-reg --fixture-env FUZZ_SEED=N \
        $(python3 tests/oracle/fuzz_registry.py --record-args N) --name fuzz-reg-N --profile both"

A tree holds skills at the managed, user, project (cwd and walk-up parents, git or not) and add-dir
levels, legacy commands nested 0-3 dirs deep (with SKILL.md inside commands dirs), --plugin-dir
plugins (manifest with custom paths), symlinked skill dirs and SKILL.md files, names shared across
sources, random front matter (unicode, long text, block scalars, YAML oddities, encodings), settings
in every scope (skillOverrides, Skill deny rules, disableBundledSkills, malformed files). `plan(seed)`
picks the cwd, budget (SLASH_COMMAND_TOOL_CHAR_BUDGET) and model; steps.json holds Skill calls.
The same seed always builds the same tree (random.Random(seed), no clock, no hash order).
`FUZZ_SMALL=1` builds a reduced tree for committed goldens. Standalone: no project imports.
Extra add-dirs / plugin dirs are passed as `--add-dir $ORACLE_WORK/extra2` (run_oracle.sh's inner
script expands $ORACLE_WORK); tests replace `$ORACLE_WORK` with their own work dir.
"""
from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import sys

NAMES = ["alpha", "beta", "gamma", "delta", "shared", "clash", "dup", "omega", "pre-one", "pre-two", "pre:x",
         "al-pha", "zeta", "mu", "Kappa", "nu-1", "simplify", "review", "x_y", "caf\u00e9"]
MODELS = [None, None, "claude-sonnet-4-6", "claude-opus-4-7", "claude-sonnet-4-6[1m]"]
BUDGETS = [None, None, None, 400, 900, 1500, 2200, 3000, 4500, 6200, 7000, 9000, 12000]
OVERRIDE_VALUES = ["on", "name-only", "user-invocable-only", "off", "bogus", True]

UNICODE = ["\u65e5\u672c\u8a9e\u306e\u8aac\u660e\u3067\u3059", "\u6f22\u5b57\u304b\u306a\u4ea4\u3058\u308a",
           "\U0001F468\u200D\U0001F469\u200D\U0001F467 family", "\U0001F1EF\U0001F1F5 flag", "\U0001F44D\U0001F3FD ok",
           "e\u0301te\u0301 combining", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
           "\u05e9\u05dc\u05d5\u05dd", "\u00b1\u00a7 ambiguous \u2192 \u2026", "\uff21\uff22\uff23 fullwidth",
           "zero\u200bwidth", "\U0001F600\U0001F600", "\u2764\ufe0f heart", "\ud55c\uad6d\uc5b4",
           "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22", "caf\u00e9 na\u00efve", "\u0394\u03b5\u03bb\u03c4\u03b1"]
# Seeds from 1000 on also draw these (earlier seeds keep building the trees their goldens were recorded
# from): what current cleans or measures with its own rules -- Indic spacing marks, text-style emoji,
# a lone regional indicator, `<` `>`, tabs, soft hyphen, word joiner, VS16 after CJK, bidi override, ESC.
UNICODE_TEXT_EDGES = ["\u0939\u093f\u0928\u094d\u0926\u0940 \u0915\u093f\u0924\u093e\u092c\u0947\u0902",
                      "\u0ba4\u0bae\u0bbf\u0bb4\u0bcd", "\u261d \u270c \U0001F590", "\U0001F1E6 lone",
                      "<tag> a > b", "tab\there", "soft\u00adhyphen", "word\u2060joiner", "\u4e2d\ufe0f",
                      "\u202eevil\u202c", "\x1b[1mbold\x1b[0m", "\u0915" + "\u093e" * 10, "&lt; & <b>"]
WORDS = ["Use", "this", "skill", "when", "the", "user", "asks", "about", "deploys", "tests", "logs", "data",
         "review", "a", "pull", "request", "and", "checks", "files", "quickly"]


def _sentence(rng: random.Random, n: int | None = None) -> str:
    n = n or rng.randint(2, 12)
    parts = [rng.choice(WORDS) if rng.random() < 0.8 else rng.choice(UNICODE) for _ in range(n)]
    return " ".join(parts)


def _long(rng: random.Random) -> str:
    size = rng.choice([240, 249, 250, 251, 300, 700, 1535, 1536, 1537, 2100])
    out = ""
    while len(out) < size:
        out += (_sentence(rng) + " ")
    return out[:size].strip() or "x"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _description(rng: random.Random) -> list[str]:
    """YAML lines for the description (possibly none)."""
    r = rng.random()
    s = _sentence(rng)
    if r < 0.10:
        return []  # fallback from the body
    if r < 0.30:
        return [f"description: {s}"]
    if r < 0.40:
        return [f"description: {_quote(s)}"]
    if r < 0.48:
        return [f"description: {_quote(_long(rng))}"]
    if r < 0.52:
        return ["description: |", f"  {s}", f"  {_sentence(rng)}"] + (["", ""] if rng.random() < 0.5 else [])
    if r < 0.56:
        return ["description: >", f"  {s}", f"  {_sentence(rng)}"]
    if r < 0.60:
        return [f"description: {_quote(s + chr(10) + _sentence(rng))}"]
    if r < 0.64:
        return [f"description: {s}: with a colon"]  # broken YAML → quoting retry
    if r < 0.67:
        return [f"description: {s} # a comment"]
    if r < 0.70:
        return [f"description: '{s} it''s'"]
    if r < 0.73:
        return ["description: " + rng.choice(["yes", "on", "True", "42", "1.50", "0x1F", "1e3", "null", "~", "''",
                                              '""', "-7", ".inf", "2024-01-01"])]
    if r < 0.76:
        return ["description: [one, two]"] if rng.random() < 0.5 else ["description:", "  k: v"]
    if r < 0.79:
        return [f"description: &anc {s}", "other: *anc"]
    if r < 0.82:
        return [f"description: {s}", f"description: {_sentence(rng)}"]  # duplicate key
    if r < 0.85:
        return [f"description:\t{s}"]  # tab after the colon
    if r < 0.88:
        return [f"description: {s} --- tail"]
    if r < 0.91:
        return [f"description:    {s}   "]
    if r < 0.94:
        return ["description: " + _quote("  " + s + "\t")]
    return [f"description: {rng.choice(UNICODE)} {s}"]


def _when(rng: random.Random) -> list[str]:
    r = rng.random()
    s = _sentence(rng)
    if r < 0.6:
        return []
    if r < 0.72:
        return [f"when_to_use: {s}"]
    if r < 0.78:
        return ["when_to_use: |", f"  {s}", f"  {_sentence(rng)}"]
    if r < 0.82:
        return ["when_to_use: |+", f"  {s}", "", ""]
    if r < 0.86:
        return ["when_to_use: >-", f"  {s}", f"  {_sentence(rng)}"]
    if r < 0.90:
        return [f"when_to_use: {_quote(_long(rng))}"]
    if r < 0.94:
        return ["when_to_use: 12"]
    return ["when_to_use: " + _quote(s + "\n")]


def _flags(rng: random.Random, names: list[str]) -> list[str]:
    out = []
    r = rng.random()
    if r < 0.15:
        out.append("disable-model-invocation: " + rng.choice(["true", '"true"', "True", "yes", "on", "1", "false",
                                                            "YES", "no", "1.0", "'1.0'", "y"]))
    if rng.random() < 0.1:
        out.append("user-invocable: " + rng.choice(["false", "no", "off", '"false"', "true"]))
    if rng.random() < 0.15:
        out.append("name: " + rng.choice(["my-display", "Bad Name!", rng.choice(names), "\u540d\u524d",
                                          "disp.v2", "other:thing", _quote("quoted-disp"), "UPPER"]))
    if rng.random() < 0.08:
        out.append("paths: " + rng.choice(["src/**", '"**"', "[docs/*.md]", "'*.py, lib/**'"]))
    if rng.random() < 0.05:
        out.append("allowed-tools: [Read]")
    return out


def _body(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.1:
        return ""
    if r < 0.2:
        return "\n\n"
    if r < 0.35:
        return "# " + _sentence(rng) + "\n\nbody\n"
    if r < 0.45:
        return "## " + _long(rng)[:rng.choice([99, 100, 101, 140])] + "\n"
    if r < 0.5:
        return "\n\n   " + _sentence(rng) + "\n"
    return _sentence(rng) + "\nmore body text\n"


def _document(rng: random.Random, names: list[str]) -> str:
    lines = _description(rng) + _when(rng) + _flags(rng, names)
    rng.shuffle(lines) if rng.random() < 0.1 and all(not l.startswith(" ") and l for l in lines) else None
    body = _body(rng)
    r = rng.random()
    if r < 0.06:
        text = body  # no front matter
    elif r < 0.09:
        text = "---\n" + "\n".join(lines) + "\n---"  # front matter only, no newline
    else:
        text = "---\n" + "\n".join(lines) + ("\n" if lines else "") + "---\n" + body
    enc = rng.random()
    if enc < 0.07:
        text = text.replace("\n", "\r\n")
    elif enc < 0.12:
        text = "\ufeff" + text
    elif enc < 0.15:
        text = text.rstrip("\n")
    return text


def plan(seed: int, small: bool = False) -> dict:
    """Run options for a seed (independent of the tree's own random stream)."""
    rng = random.Random(seed * 7919 + 1)
    git = rng.random() < 0.6
    depth = rng.randint(0, 2)
    cwd = "home/outer/repo" + "".join(["/a", "/b"][:depth])
    extra_adds = rng.randint(0, 1)
    extra_plugins = rng.randint(0, 1) if not small else 0
    return {"git": git, "cwd": cwd, "model": rng.choice(MODELS), "budget": rng.choice(BUDGETS),
            "extra_adds": extra_adds, "extra_plugins": extra_plugins}


def record_args(seed: int, small: bool = False) -> list[str]:
    p = plan(seed, small)
    args = ["--max-turns", "40"]
    if p["model"]:
        args += ["--model", p["model"]]
    for k in range(p["extra_adds"]):
        args += ["--add-dir", f"$ORACLE_WORK/extra{k + 2}"]
    for k in range(p["extra_plugins"]):
        args += ["--plugin-dir", f"$ORACLE_WORK/plugin{k + 2}"]
    out = ["--cwd", p["cwd"], "--args", " ".join(args)]
    if p["budget"]:
        out += ["--env", f"SLASH_COMMAND_TOOL_CHAR_BUDGET={p['budget']}"]
    if small:
        out += ["--fixture-env", "FUZZ_SMALL=1"]
    return out


class Tree:
    def __init__(self, root: str):
        self.root = root
        self.files: dict[str, str] = {}
        self.links: list[tuple[str, str]] = []  # (link rel path, target relative to the link's dir)

    def write(self, rel: str, text: str) -> None:
        self.files[rel] = text

    def flush(self) -> None:
        for rel, text in self.files.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(text.encode("utf-8", "surrogatepass"))
        for rel, target in self.links:
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.lexists(path):
                os.symlink(target, path)


def build(root: str, seed: int, small: bool = False) -> dict:
    p = plan(seed, small)
    if seed >= 1000:
        UNICODE.extend(e for e in UNICODE_TEXT_EDGES if e not in UNICODE)
    rng = random.Random(seed)
    tree = Tree(root)
    names = list(NAMES)
    rng.shuffle(names)
    pool = names[: (8 if small else 14)]
    used: list[str] = []  # every skill/command name created, for Skill calls and settings keys
    displays: list[str] = []

    def pick() -> str:
        return rng.choice(pool) if rng.random() < 0.75 else f"s{rng.randint(0, 99)}-{seed}"

    def skill_dirs(base: str, count: int) -> list[str]:
        made = []
        for _ in range(count):
            name = pick()
            if f"{base}/{name}" in made:
                continue
            doc = _document(rng, pool)
            tree.write(f"{base}/{name}/SKILL.md", doc)
            made.append(f"{base}/{name}")
            used.append(name)
            for line in doc.splitlines():
                if line.startswith("name: "):
                    displays.append(line[6:].strip().strip('"'))
        return made

    scale = 1 if small else 2
    levels = ["home/outer/repo", "home/outer/repo/a", "home/outer/repo/a/b"][: 1 + p["cwd"].count("/") - 2]
    made: list[str] = []
    made += skill_dirs("managed/claude-code/.claude/skills", rng.randint(0, scale))
    made += skill_dirs("home/.claude/skills", rng.randint(1, 2 * scale))
    made += skill_dirs("home/outer/.claude/skills", rng.randint(0, scale))  # above the git root
    for level in levels:
        made += skill_dirs(f"{level}/.claude/skills", rng.randint(1, 2 * scale))
    add_dirs = ["extra"] + [f"extra{k + 2}" for k in range(p["extra_adds"])]
    for add in add_dirs:
        made += skill_dirs(f"{add}/.claude/skills", rng.randint(0, scale))
    for add in add_dirs:
        os.makedirs(os.path.join(root, add), exist_ok=True)

    # legacy commands: user, project levels, add-dirs (current lists those), nested 0-3 dirs
    cmd_roots = ["home/.claude/commands"] + [f"{lv}/.claude/commands" for lv in levels] + \
        [f"{a}/.claude/commands" for a in add_dirs]
    if rng.random() < 0.3:
        cmd_roots.append("managed/claude-code/.claude/commands")
    for croot in cmd_roots:
        for _ in range(rng.randint(0, scale + 1)):
            depth = rng.choice([0, 0, 1, 2, 3])
            dirs = [rng.choice(["ns", "grp", "a", "deep"]) for _ in range(depth)]
            name = pick()
            if rng.random() < 0.2:  # SKILL.md inside a commands dir (named after its folder)
                rel = "/".join([croot, *dirs, name, "SKILL.md"])
                if rng.random() < 0.5:
                    tree.write("/".join([croot, *dirs, name, "sibling.md"]), "---\ndescription: ignored sibling\n---\nx\n")
            else:
                rel = "/".join([croot, *dirs, name + ".md"])
            tree.write(rel, _document(rng, pool))
            used.append(":".join([*dirs, name]))

    # symlinks: a skill dir linked under another name / another source; a SKILL.md file linked
    for _ in range(rng.randint(0, 2 * scale)):
        if not made:
            break
        target = rng.choice(made)
        if target.startswith("managed/"):
            continue  # run_oracle.sh copies managed/ to /etc: a link into WORK/managed is another file there
        dest_base = rng.choice(["home/.claude/skills", f"{levels[-1]}/.claude/skills", "extra/.claude/skills",
                                f"{levels[0]}/.claude/skills"])
        name = pick()
        link = f"{dest_base}/{name}"
        if link in made or any(rel.startswith(link + "/") for rel in tree.files):
            continue
        rel_target = os.path.relpath(os.path.join(root, target), os.path.join(root, dest_base))
        if rng.random() < 0.6:
            tree.links.append((link, rel_target))
        else:
            tree.links.append((link + "/SKILL.md", os.path.join(os.path.relpath(
                os.path.join(root, target), os.path.join(root, link)), "SKILL.md")))
        used.append(name)

    # --plugin-dir plugins
    plugin_names = []
    for k, pdir in enumerate(["plugin"] + [f"plugin{j + 2}" for j in range(p["extra_plugins"])]):
        if k == 0 and rng.random() < 0.15:
            continue  # no plugin at all
        pname = rng.choice(["fzp", "tools", "shared", "kit"]) + str(k)
        manifest: dict = {"name": pname, "version": "0.0.1"}
        skills_dir, cmds_dir = "skills", "commands"
        r = rng.random()
        if r < 0.3:
            skills_dir = "custom-skills"
            manifest["skills"] = "./custom-skills"
        if rng.random() < 0.3:
            cmds_dir = "cmds"
            manifest["commands"] = ["./cmds"]
        tree.write(f"{pdir}/.claude-plugin/plugin.json", json.dumps(manifest) + "\n")
        for _ in range(rng.randint(1, 2 * scale)):
            name = pick()
            tree.write(f"{pdir}/{skills_dir}/{name}/SKILL.md", _document(rng, pool))
            used.append(f"{pname}:{name}")
        for _ in range(rng.randint(0, scale)):
            name = pick()
            tree.write(f"{pdir}/{cmds_dir}/{name}.md", _document(rng, pool))
            used.append(f"{pname}:{name}")
        if skills_dir != "skills" and rng.random() < 0.5:  # default dir ignored when the manifest names one
            tree.write(f"{pdir}/skills/ignored-{k}/SKILL.md", "---\ndescription: not loaded\n---\nx\n")
        plugin_names.append(pname)

    # settings in every scope
    def settings_obj(allow: bool) -> dict:
        obj: dict = {"permissions": {"allow": ["Read", "Skill"]}} if allow else {}
        if rng.random() < 0.5:
            keys = [rng.choice(used + ["loop", "simplify", "debug"] + [f"{pn}:x" for pn in plugin_names])
                    for _ in range(rng.randint(1, 4))]
            obj["skillOverrides"] = {k: rng.choice(OVERRIDE_VALUES) for k in keys}
        if rng.random() < 0.3:
            deny = []
            for _ in range(rng.randint(1, 2)):
                n = rng.choice(used) if used else "alpha"
                deny.append(rng.choice([f"Skill({n})", f"Skill(/{n})", f"Skill({n[:3]}:*)", f"Skill({n[:3]} *)",
                                        f"Skill({n[:2]}*)", "Skill(pre:*)", "Skill(pre *)", "Skill(pre-*)"]))
            obj.setdefault("permissions", {})["deny"] = deny
        if rng.random() < 0.1:
            obj["disableBundledSkills"] = rng.random() < 0.8
        return obj

    tree.write("home/.claude/settings.json", json.dumps(settings_obj(True), ensure_ascii=False, indent=1) + "\n")
    cwd = p["cwd"]
    for rel, chance in ((f"{cwd}/.claude/settings.json", 0.4), (f"{cwd}/.claude/settings.local.json", 0.3),
                        ("managed/claude-code/managed-settings.json", 0.3),
                        ("managed/claude-code/managed-settings.d/10-a.json", 0.2),
                        ("managed/claude-code/managed-settings.d/20-b.json", 0.15),
                        ("home/outer/repo/.claude/settings.json", 0.2)):
        if rng.random() < chance and rel not in tree.files:
            if rng.random() < 0.12 and not rel.startswith("managed/"):  # a malformed managed file stops current
                tree.write(rel, '{"skillOverrides": {"alpha": "off",}\n')  # malformed: ignored whole
            else:
                tree.write(rel, json.dumps(settings_obj(False), ensure_ascii=False) + "\n")
    tree.write("home/.claude.json", '{"hasCompletedOnboarding": true, "numStartups": 5, '
                                    '"bypassPermissionsModeAccepted": true}\n')

    # Skill calls
    steps = []
    candidates = list(dict.fromkeys(used + displays))
    for _ in range(4 if small else 8):
        if not candidates:
            break
        name = rng.choice(candidates)
        r = rng.random()
        if r < 0.1:
            name = "/" + name
        elif r < 0.15:
            name = name.upper()
        elif r < 0.2:
            name = name.split(":")[-1]
        steps.append({"name": "Skill", "input": {"skill": name, "args": "x"}})
    tree.flush()
    with open(os.path.join(root, "steps.json"), "w") as f:
        json.dump(steps, f, indent=1)
    for d in (p["cwd"], "extra"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    if p["git"]:
        subprocess.run(["git", "init", "-q", os.path.join(root, "home/outer/repo")], check=False)
    return {"plan": p, "steps": steps, "files": sorted(tree.files)}


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--record-args":
        small = len(sys.argv) > 3 and sys.argv[3] == "small"
        print(" ".join(shlex.quote(a) for a in record_args(int(sys.argv[2]), small)))
        sys.exit(0)
    root = os.path.abspath(sys.argv[1])
    build(root, int(os.environ.get("FUZZ_SEED", "1")), small=os.environ.get("FUZZ_SMALL") == "1")
    print(root)
