#!/usr/bin/env python3
"""Seeded fuzz fixture for layer 2 (Skill expansion): many skills whose bodies and front matter
exercise argument substitution, and Skill calls with awkward argument strings.

    python3 tests/oracle/fuzz_expansion.py WORK            # seed from $FUZZ_SEED (default 1)
    python3 tests/oracle/record.py fuzz-expand --fixture-env FUZZ_SEED=7 --args "--max-turns 40" \
        --name fuzz-expand-7 --profile both

The same seed always builds the same tree and steps (random.Random(seed), no clock, no hash order).
`FUZZ_SMALL=1` builds a reduced variant (fewer skills and calls) for committed goldens.
Inline shell never comes from the random part: bodies and args contain no `!` at all, except the
fixed `sh-echo` skill (`!`echo …``) called with fixed harmless args.
Standalone (no project imports): run_oracle.sh runs it as the fixture script.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

WORDS = ["alpha", "beta", "x", "file.txt", "src/app.py", "--flag", "-v", "a=b", "42", "0", "über", "日本語",
         "😀", "naïve", "Ω", "tab\there", "~", "~/x", "{a,b}", "ARGUMENTS", "end."]
ARG_PIECES = [
    "'single quoted'", '"double quoted"', '"dq $HOME"', "'sq $HOME'", '"a\\"b"', "'it''s'", "a\"b\"c",
    "d'e'f", '""', "''", '"', "'", "\\ ", "\\\"", "\\\\", "\\$HOME", "\\", "|", "||", ";", "&&", "&", ">",
    ">>", "<", "2>&1", "<(x)", "$VAR", "${VAR}", "${}", "${X", "$(whoami)", "`id`", "$((1+2))", "*.py",
    "src/**/x.ts", "?", "[ab]", "#comment", "a#b", "\n", "\t", "  ", "$$", "$&", "$`", "$'", "x$$y", "$1",
    "$0", "$ARGUMENTS", "$ARGUMENTS[0]", "${CLAUDE_SKILL_DIR}", "${CLAUDE_SESSION_ID}", "$name", "(", ")",
    "a;b", "a|b", "a>b", "{", "}", "$'ansi\\n'", '$"loc"', "x=1", "FOO=bar", "\\\n", "\r\n", "\u00a0",
    "\u3000", "\ufeff", "é", "中文", "🎉", "e\u0301",
]
BODY_PIECES = [
    "$ARGUMENTS", "$ARGUMENTS[0]", "$ARGUMENTS[1]", "$ARGUMENTS[2]", "$ARGUMENTS[9]", "$ARGUMENTS[10]",
    "$0", "$1", "$2", "$3", "$9", "$10", "$01", "$1x", "$1_", "$1-", "$1.", "${1}", "$-1", "$", "$$", "$$0",
    "$$ARGUMENTS", "\\$", "\\$0", "\\$1", "\\\\$0", "\\$ARGUMENTS", "\\\\$ARGUMENTS", "$ARGUMENTSX",
    "$ARGUMENTS_x", "$ARGUMENTS[", "$ARGUMENTS[]", "$ARGUMENTS[x]", "$arguments", "${ARGUMENTS}",
    "${CLAUDE_SKILL_DIR}", "${CLAUDE_SESSION_ID}", "$CLAUDE_SKILL_DIR", "${claude_skill_dir}",
    "${CLAUDE_PROJECT_DIR}", "${CLAUDE_PLUGIN_ROOT}", "\\", "\\\\", "日本語", "😀", "emoji 🎉 mix",
    "e\u0301", "\t", "text", "more text", "[", "]", "{", "}", "(x)", "$&", "$`", "$'", "|", "#", "\"q\"", "'q'",
]
ARG_NAME_POOL = ["first", "second", "a", "ab", "abc", "my-arg", "my", "x_y", "1", "12", "café", "名前", "😀",
                 "ARGUMENTS", "ARG", "n0", "0n", "first", "a.b", "x+", "-", "$", "name", "Name", "long-name-here"]
# names that legacy uses as regex source and Python/JS might disagree on are kept to a few simple ones


def _body(rng: random.Random, names: list[str]) -> str:
    refs = ["$" + n for n in names] + ["$" + n + "[0]" for n in names[:1]] + ["$" + n + "-tail" for n in names[:1]]
    pool = BODY_PIECES + refs * 3
    lines = []
    for _ in range(rng.randint(1, 4)):
        parts = [rng.choice(pool) if rng.random() < 0.6 else rng.choice(WORDS) for _ in range(rng.randint(1, 7))]
        seps = [rng.choice([" ", " ", "", "-", ":", "/"]) for _ in parts]
        lines.append("".join(p + s for p, s in zip(parts, seps)).rstrip())
    return "\n".join("[" + line + "]" if rng.random() < 0.3 else line for line in lines) + "\n"


def _arguments_front(rng: random.Random) -> tuple[str | None, list[str]]:
    """(YAML line(s) or None, the names as written — the engine decides which are valid)."""
    roll = rng.random()
    if roll < 0.35:
        return None, []
    names = [rng.choice(ARG_NAME_POOL) for _ in range(rng.randint(1, 4))]
    if roll < 0.7:
        return "arguments: " + json.dumps(names, ensure_ascii=False), names
    if roll < 0.85:
        return "arguments: " + " ".join(names), names  # string form (YAML plain scalar)
    return "arguments:\n" + "".join(f"  - {json.dumps(n, ensure_ascii=False)}\n" for n in names).rstrip("\n"), names


def _args(rng: random.Random) -> str | None:
    roll = rng.random()
    if roll < 0.06:
        return None
    if roll < 0.10:
        return ""
    if roll < 0.13:
        return rng.choice(["   ", "\t", "\n"])
    if roll < 0.15:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(800, 1200)))  # long (UTF-16 > 4k)
    if roll < 0.16:
        return "w " * 5200  # > 10,000 chars: current's parser gives up (whitespace split)
    out = []
    for _ in range(rng.randint(1, 7)):
        out.append(rng.choice(ARG_PIECES) if rng.random() < 0.55 else rng.choice(WORDS))
        out.append(rng.choice([" ", " ", " ", "", "\t", "  "]))
    return "".join(out).strip(" ") if rng.random() < 0.8 else "".join(out)


def _encode(text: str, rng: random.Random, kind: str) -> str:
    if kind == "crlf":
        return text.replace("\n", "\r\n")
    if kind == "bom":
        return "\ufeff" + text
    if kind == "no-newline":
        return text.rstrip("\n")
    return text


def build(root: str, seed: int, small: bool = False) -> dict:
    rng = random.Random(seed)
    home = os.path.join(root, "home")
    proj = os.path.join(home, "proj")
    os.makedirs(proj, exist_ok=True)
    files: dict[str, str] = {}
    skills: list[dict] = []  # {"name", "kind", "has_args"}
    n_skills = 8 if small else 22
    for k in range(n_skills):
        name = f"fz{seed}-s{k}"
        front_lines = [f"description: Fuzz skill {k} of seed {seed}."]
        arg_line, names = _arguments_front(rng)
        if arg_line:
            front_lines.append(arg_line)
        flag = rng.random()
        if flag < 0.08:
            front_lines.append("disable-model-invocation: true")
        elif flag < 0.16:
            front_lines.append("user-invocable: false")
        elif flag < 0.20:
            front_lines.append("disable-model-invocation: false")
        shape = rng.random()
        body = _body(rng, [n for n in names if isinstance(n, str)])
        if shape < 0.06:
            body = ""  # empty body
        elif shape < 0.10:
            body = "\n\n" + body + "\n\n"  # leading blanks dropped, trailing kept
        text = "---\n" + "\n".join(front_lines) + "\n---\n" + body
        if shape >= 0.06 and shape < 0.08:
            text = "---\n" + "\n".join(front_lines) + "\n---"  # front matter only, no newline
        enc = rng.choice(["plain"] * 6 + ["crlf", "bom", "no-newline"])
        files[f"home/proj/.claude/skills/{name}/SKILL.md"] = _encode(text, rng, enc)
        skills.append({"name": name, "dmi": "disable-model-invocation: true" in front_lines})
    # user-level skills, one without front matter
    for k in range(1 if small else 3):
        name = f"fz{seed}-u{k}"
        body = _body(rng, [])
        text = body if k == 0 else f"---\ndescription: User fuzz skill {k}.\n---\n{body}"
        files[f"home/.claude/skills/{name}/SKILL.md"] = text
        skills.append({"name": name, "dmi": False})
    # legacy commands, nested dirs (name = dir:dir:file)
    for k in range(2 if small else 5):
        depth = rng.randint(0, 2)
        dirs = [f"g{seed}{chr(97 + d)}" for d in range(depth)]
        base = f"fz{seed}-c{k}"
        arg_line, names = _arguments_front(rng)
        front = f"---\ndescription: Fuzz command {k}.\n" + (arg_line + "\n" if arg_line else "") + "---\n"
        body = _body(rng, [n for n in names if isinstance(n, str)])
        text = (front if rng.random() < 0.8 else "") + body
        rel = "/".join(["home/proj/.claude/commands", *dirs, base + ".md"])
        files[rel] = _encode(text, rng, rng.choice(["plain"] * 4 + ["crlf", "no-newline"]))
        skills.append({"name": ":".join([*dirs, base]), "dmi": False})
    # a --plugin-dir plugin (WORK/plugin): skills named plugin:name, one bare name shared with a command
    plugin = f"fzp{seed}"
    files["plugin/.claude-plugin/plugin.json"] = json.dumps({"name": plugin, "version": "0.0.1",
                                                             "description": "fuzz plugin"}) + "\n"
    for k in range(1 if small else 2):
        arg_line, names = _arguments_front(rng)
        front = f"---\ndescription: Fuzz plugin skill {k}.\n" + (arg_line + "\n" if arg_line else "") + "---\n"
        files[f"plugin/skills/ps{k}/SKILL.md"] = front + _body(rng, [n for n in names if isinstance(n, str)])
        skills.append({"name": f"{plugin}:ps{k}", "dmi": False})
    files["plugin/commands/fzshared.md"] = "---\ndescription: Plugin command.\n---\nplugin cmd $ARGUMENTS\n"
    files[f"home/proj/.claude/commands/g{seed}x/fzshared.md"] = "---\ndescription: Project command.\n---\nproj cmd\n"
    # fixed harmless inline shell: arguments are substituted before the shell runs (no glob characters:
    # legacy asks before running `echo [x]`)
    files["home/proj/.claude/skills/sh-echo/SKILL.md"] = (
        "---\ndescription: Fixed inline shell echo.\n---\nout: !`echo x-$0-$1`\nraw $ARGUMENTS\n")
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    steps = []
    callable_skills = [s for s in skills]
    n_calls = 14 if small else 32
    seen: set[tuple[str, str | None]] = set()
    steps.append({"name": "Skill", "input": {"skill": "sh-echo", "args": "hello 'big world'"}})
    while len(steps) < n_calls - 6:
        target = rng.choice(callable_skills)["name"]
        args = _args(rng)
        if (target, args) in seen:
            continue
        seen.add((target, args))
        inp = {"skill": ("/" + target) if rng.random() < 0.05 else target}
        if args is not None:
            inp["args"] = args
        steps.append({"name": "Skill", "input": inp})
    # unknown names: case-only, typos (edit distance 1-2), suffix of a command name, near built-in commands
    some = rng.choice(skills)["name"]
    cmd = next((s["name"] for s in skills if ":" in s["name"]), some)
    wrongs = [some.upper(), some[:-1], some + "zz", cmd.split(":")[-1], "ps0", "fzshared",
              rng.choice(["hlep", "compat", "revew", "clera", "cost2", "modle", "contxt"])]
    for wrong in wrongs[:3] + wrongs[4:] if small else wrongs:
        steps.append({"name": "Skill", "input": {"skill": wrong, "args": "a b"}})
    allow = ["Read", "Skill"]
    settings_path = os.path.join(home, ".claude", "settings.json")
    os.makedirs(os.path.dirname(settings_path), exist_ok=True)
    with open(settings_path, "w") as f:
        json.dump({"permissions": {"allow": allow}}, f)
    with open(os.path.join(home, ".claude.json"), "w") as f:
        f.write('{"hasCompletedOnboarding": true, "numStartups": 5, "bypassPermissionsModeAccepted": true}\n')
    with open(os.path.join(root, "steps.json"), "w") as f:
        json.dump(steps, f, indent=1)
    subprocess.run(["git", "init", "-q", proj], check=False)
    return {"files": sorted(files), "steps": steps}


if __name__ == "__main__":
    root = os.path.abspath(sys.argv[1])
    build(root, int(os.environ.get("FUZZ_SEED", "1")), small=os.environ.get("FUZZ_SMALL") == "1")
    print(root)
