#!/usr/bin/env python3
"""The probe battery: a handful of real-CLI runs whose observations settle every feature and value the
profiles model (skillmanager/core/versions/features.py), for one Claude Code release.

    python3 tests/oracle/battery.py CLI [--out FILE.json] [--runs listing,invoke,...] [--keep-work]
    python3 tests/oracle/battery.py CLI --compare      # a release not in the timeline: what held, what changed

CLI is a `cli.js` or `bin/claude.exe` of an installed release (e.g. /work/cc-versions/2.1.150/node_modules/
@anthropic-ai/claude-code/...). Each run builds its fixture (this file is also the fixture script:
BATTERY_RUN=<run> python3 battery.py WORK), runs the CLI through /work/shared/oracle/run_oracle.sh against
the fake API, and each probe reads one observation from the request log. PROBES names, per feature or
value, the run, the fixture part and the observation that decides it; a probe answers None when the release
lacks what it needs (the reason is kept). Standalone: no project imports except --compare.
"""
from __future__ import annotations

import argparse
import json
import mmap
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record  # noqa: E402  (request-log helpers: load_requests, find_listing, reduce_turns …)

PLUGIN = "plug"
FRACTION = 0.0001  # skillListingBudgetFraction in the session run: a few hundred characters
GROUPED_DESC = ("grouped digits budget probe " * 9)[:240]  # the budgetgrouped run's one description


# ---------------------------------------------------------------- fixtures (run with BATTERY_RUN=<run>)

def _fixture(run: str, root: str) -> None:
    def w(rel, text):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))

    def skill(rel_dir, front, body="body\n"):
        w(f"{rel_dir}/SKILL.md", ("---\n" + front.rstrip("\n") + "\n---\n" if front is not None else "") + body)

    def wjson(rel, obj):
        w(rel, json.dumps(obj, indent=1) + "\n")

    proj, user, P = "home/proj/.claude/skills", "home/.claude/skills", os.path.join(root, "home/proj")
    settings: dict = {"permissions": {"allow": ["Read", "Edit", "Write"]}}
    steps: list = []

    def call(name, args=None):
        steps.append({"name": "Skill", "input": {"skill": name, **({"args": args} if args is not None else {})}})

    if run == "listing":
        w(f"{proj}/bom/SKILL.md", "\ufeff---\ndescription: bom-desc\n---\nbom body\n")
        skill(f"{proj}/lenient", "description: lenient-desc\ndisable-model-invocation: yes")
        skill(f"{proj}/dupkey", "description: first-desc\ndescription: second-desc")
        skill(f"{proj}/wtu", "description: wtu-desc\nwhen_to_use: |-\n  line one\n  line two")  # |-: no blank line
        skill(f"{proj}/long", "description: " + "L" * 1700)
        skill(f"{proj}/emoji", "description: " + "\U0001F600" * 900)
        skill(f"{proj}/dn-dir", "name: dn-shown\ndescription: dn-desc")
        skill(f"{proj}/Beta-case", "description: beta-desc")
        skill(f"{proj}/alpha-case", "description: alpha-desc")
        skill(f"{proj}/dup", "description: dup-project")
        skill(f"{user}/dup", "description: dup-user")
        skill(f"{proj}/ov-skill", "description: ov-desc")
        skill(f"{proj}/surr", None, "a" * 96 + "\U0001F600 and more text after it\n")
        skill(f"{proj}/dup2", "description: dup2-project")
        w("home/.claude/commands/zz-user.md", "---\ndescription: zz-user-desc\n---\nzz body\n")
        w("home/proj/.claude/commands/aa-proj.md", "---\ndescription: aa-proj-desc\n---\naa body\n")
        w("home/proj/.claude/commands/mm-proj.md", "---\ndescription: mm-proj-desc\n---\nmm body\n")
        skill("extra/.claude/skills/extra-skill", "description: extra-desc")
        skill("extra/.claude/skills/dup2", "description: dup2-extra")
        w("extra/.claude/commands/extra-cmd.md", "---\ndescription: extra-cmd-desc\n---\nextra cmd body\n")
        wjson("plugin/.claude-plugin/plugin.json", {"name": PLUGIN, "version": "0.0.1", "description": "battery"})
        skill("plugin/skills/pre:x", "description: prex-desc")
        skill("plugin/skills/pdir", "description: pdir-desc")
        wjson("plugin2/.claude-plugin/plugin.json", {"name": "plugtwo", "version": "0.0.1", "description": "b2",
                                                     "skills": ["./more"]})
        skill("plugin2/more/m-skill", "description: m-desc")
        skill("plugin2/skills/kept-skill", "description: kept-desc")
        settings["skillOverrides"] = {"ov-skill": "name-only"}
    elif run == "invoke":
        skill(f"{proj}/long2", "description: " + "M" * 700)
        skill(f"{user}/dmi-only", "description: dmi-only-desc\ndisable-model-invocation: true")
        skill(f"{proj}/ask-me", "description: ask-desc\nallowed-tools: Bash(echo:*)")
        skill(f"{proj}/ask-proj", "description: ask-proj-desc\nallowed-tools: Bash(echo:*)")
        skill(f"{proj}/args-skill", "description: args-desc",
              "A0=[$0] A1=[$1] A9=[$9] P=[${CLAUDE_PROJECT_DIR}]\n")
        skill(f"{proj}/aaa-first", "name: target\ndescription: aaa-desc", "BODY-AAA\n")
        skill(f"{proj}/target", "description: target-desc", "BODY-TARGET\n")
        skill(f"{proj}/zzz-last", "name: mtarget\ndescription: zzz-desc", "BODY-ZZZ\n")  # the same pair, other order
        skill(f"{proj}/mtarget", "description: mtarget-desc", "BODY-MTARGET\n")
        skill(f"{user}/dmi-y", "description: dmi-y-user\ndisable-model-invocation: true", "BODY-DMI-USER\n")
        skill(f"{proj}/dmi-y", "description: dmi-y-project", "BODY-DMI-PROJECT\n")
        skill(f"{user}/pc", "name: pc-shown\ndescription: pc-skill\ndisable-model-invocation: true")
        w("home/proj/.claude/commands/pc.md", "---\ndescription: pc-command\n---\npc command body\n")
        skill(f"{proj}/deny-dir", "name: deny-shown\ndescription: deny-desc", "BODY-DENY\n")
        skill(f"{proj}/globax", "description: glob-desc", "BODY-GLOB\n")
        skill(f"{proj}/wpre-a", "description: wpre-desc", "BODY-WPRE\n")
        wjson("plugin/.claude-plugin/plugin.json", {"name": PLUGIN, "version": "0.0.1", "description": "battery"})
        skill("plugin/skills/pdn", "name: pdn-shown\ndescription: pdn-desc", "BODY-PDN\n")
        skill("plugin/skills/twin", "name: shared-alias\ndescription: twin-desc", "BODY-TWIN\n")
        w("plugin/commands/twin2.md", "---\nname: shared-alias\ndescription: twin2-desc\n---\nBODY-TWIN2\n")
        settings.update({"skillListingMaxDescChars": 300, "disableBundledSkills": True})
        settings["permissions"]["deny"] = ["Skill(deny-dir)", "Skill(skill:glo*x)", "Skill(wpre *)"]
        wjson("home/proj/.claude/settings.json", {"permissions": {"allow": ["Skill(ask-proj)"]}})
        call("long22")
        call("dmi-only")
        call("ask-me")
        call("args-skill", "x | y")
        call("target")
        call("mtarget")
        call("dmi-y")
        call("pc-shown")
        call("deny-shown")
        call("globax")
        call("wpre-a")
        call("ask-proj")
        call(f"{PLUGIN}:pdn-shown")
        call("shared-alias")
    elif run == "session":
        skill(f"{proj}/cond", "description: cond-root\npaths: src/**", "BODY-COND-ROOT\n")
        skill("home/proj/packages/c/.claude/skills/cond", "description: cond-nested", "BODY-COND-NESTED\n")
        w("home/proj/packages/c/src/z.ts", "z\n")
        for i in range(8):
            skill(f"{proj}/fill-{i}", f"description: filler {i} " + "f" * 60)
        skill("home/proj/packages/a/.claude/skills/a-skill", "description: a-desc")
        skill("home/proj/packages/b/.claude/skills/b-skill", "description: b-desc")
        w("home/proj/packages/a/src/x.ts", "export const x = 1;\n")
        w("home/proj/packages/b/src/y.ts", "export const y = 1;\n")
        w("home/proj/src/one.ts", "1\n")
        w("home/proj/src/two.ts", "2\n")
        settings["skillListingBudgetFraction"] = FRACTION
        wjson("managed/claude-code/managed-settings.json", {"skillOverrides": {"review": "off"}})
        wjson("managed/claude-code/managed-settings.d/10-bad.json",
              {"skillOverrides": {"md-plain": True, "md-off": "off"}, "permissions": {"deny": ["Skill(md-deny)"]}})
        skill(f"{proj}/md-deny", "description: md-deny-desc", "BODY-MD-DENY\n")
        steps += [{"name": "Read", "input": {"file_path": f"{P}/src/one.ts"}},
                  {"name": "Read", "input": {"file_path": f"{P}/packages/c/src/z.ts"}},
                  {"name": "Skill", "input": {"skill": "cond"}},
                  {"name": "Read", "input": {"file_path": f"{P}/src/two.ts"}},
                  {"name": "Skill", "input": {"skill": "cond"}},
                  {"name": "Read", "input": {"file_path": f"{P}/packages/a/src/x.ts"}},
                  {"name": "Edit", "input": {"file_path": f"{P}/packages/b/src/y.ts", "old_string": "y = 1",
                                             "new_string": "y = 2"}},
                  {"name": "Skill", "input": {"skill": "md-deny"}}]
    elif run == "budget":
        for i in range(10):
            skill(f"{proj}/bud-{i:02d}", f"description: budget skill {i} " + "b" * 40)  # 55 characters
    elif run == "budgetgrouped":  # the budget written with a digit group separator (SLASH_COMMAND_TOOL_CHAR_BUDGET=1,000)
        skill(f"{proj}/grouped", "description: " + GROUPED_DESC)
    elif run == "badmanaged":
        skill(f"{proj}/plain", "description: plain-desc")
        w("managed/claude-code/managed-settings.json", "{ not json\n")
    else:
        raise SystemExit(f"unknown run {run}")
    wjson("home/.claude/settings.json", settings)
    w("home/.claude.json", '{"hasCompletedOnboarding": true, "numStartups": 5, "bypassPermissionsModeAccepted": true}\n')
    with open(os.path.join(root, "steps.json"), "w") as f:
        json.dump(steps, f, indent=1)
    os.makedirs(P, exist_ok=True)
    subprocess.run(["git", "init", "-q", P], check=False)
    print(root)


# ---------------------------------------------------------------- runs

RUNS = {  # run -> (extra CLI args, extra CLI env)
    "listing": ("--plugin-dir ../../plugin2", ""),
    "invoke": ("--model claude-sonnet-4-6 --max-turns 30", ""),
    "session": ("--model claude-opus-5-5 --max-turns 20 --debug --permission-mode acceptEdits", ""),
    "budget": ("--model claude-sonnet-4-6", ""),  # the budget: set from the listing run's bundled entries
    "budgetgrouped": ("--model claude-sonnet-4-6", "SLASH_COMMAND_TOOL_CHAR_BUDGET=1,000"),
    "badmanaged": ("", ""),
    "binary": None,  # not a CLI run: the release's own files are read (values no request shows)
}


class Capture:
    """What one run sent: the first main-loop request's listing, the turns, the debug log."""

    def __init__(self, work: str):
        self.work = work
        bodies = record.load_requests(work) if os.path.isfile(os.path.join(work, "requests.jsonl")) else []
        self.main = [b for b in bodies if record.is_main_loop(b)]
        self.started = bool(self.main)
        self.model = self.main[0].get("model") if self.main else None
        self.placement, self.listing, _ = record.find_listing(self.main[0]) if self.main else (None, None, None)
        body = self.listing or ""
        if body.startswith(record.WRAPPED_HEADER):
            body = body[len(record.WRAPPED_HEADER):]
            body = body[:body.rfind("</system-reminder>")].strip("\n")
        else:
            body = body[len(record.HEADER):].strip("\n")
        self.entries = record.split_entries(body) if body else []
        last = max(self.main, key=lambda b: len(b.get("messages") or [])) if self.main else {}
        self.turns = record.reduce_turns(last) if last else []
        self.fixture = set()  # every dir and file stem the fixture made (skill dirs, command files)
        for _base, dirs, files in os.walk(work):
            self.fixture.update(dirs)
            self.fixture.update(f[:-3] if f.endswith(".md") else f for f in files)
        self.debug = ""
        debug_dir = os.path.join(work, "home", ".claude", "debug")
        for name in sorted(os.listdir(debug_dir)) if os.path.isdir(debug_dir) else []:
            try:
                with open(os.path.join(debug_dir, name), encoding="utf-8", errors="replace") as f:
                    self.debug += f.read()
            except OSError:
                pass

    def entry(self, name: str) -> str | None:
        for e in self.entries:
            if record.entry_name(e) == name:
                return e
        return None

    def names(self) -> list[str]:
        return [record.entry_name(e) for e in self.entries]

    def result(self, skill: str) -> str:
        for t in self.turns:
            if t["tool"] == "Skill" and (t.get("input") or {}).get("skill") == skill:
                return (t.get("tool_result") or "") + "\n" + "\n".join(t.get("extra_texts") or [])
        return ""

    def turn(self, tool: str, path_part: str) -> dict | None:
        for t in self.turns:
            if t["tool"] == tool and path_part in str((t.get("input") or {}).get("file_path", "")):
                return t
        return None


EFFORT_LIST = re.compile(rb'\[(?:"(?:low|medium|high|xhigh|max)",?){4,5}\]')


class BinaryCapture:
    """The release's CLI file read as bytes: the string arrays compiled into it."""

    started = True

    def __init__(self, cli: str):
        with open(cli, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            self.effort_lists = {m.group().decode() for m in EFFORT_LIST.finditer(data)}


def _effort_levels(c: BinaryCapture) -> list[str] | None:
    """The `effort:` values: the longest low…max list compiled in (2.1.332 also holds a list without max)."""
    lists = [json.loads(t) for t in c.effort_lists if t.endswith('"max"]')]
    return max(lists, key=len) if lists else None


def _grouped_budget_read(c: Capture) -> bool | None:
    """The budgetgrouped run: the probe entry shortened (a cut or the name only) means `1,000` was read."""
    entry = c.entry("grouped")
    return None if entry is None else entry != f"- grouped: {GROUPED_DESC.strip()}"


def run_cli(cli: str, run: str, keep: bool, cli_env: str | None = None) -> Capture:
    work = tempfile.mkdtemp(prefix=f"battery-{run}-")
    env = dict(os.environ, ORACLE_FIXTURE=os.path.abspath(__file__), BATTERY_RUN=run)
    args, default_env = RUNS[run]
    cli_env = default_env if cli_env is None else cli_env
    for k in ("ORACLE_CWD", "ORACLE_PRE_HOOK", "ORACLE_PROMPT"):
        env.pop(k, None)
    env["ORACLE_EXTRA_ARGS"], env["ORACLE_EXTRA_ENV"] = args, cli_env
    subprocess.run(["bash", record.RUN_ORACLE, cli, work], env=env, capture_output=True, text=True)
    capture = Capture(work)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return capture


# ---------------------------------------------------------------- probes: name -> (run, what decides it)

LAUNCH = "Launching skill:"


def _launched(c: Capture, skill: str, body: str | None = None) -> bool:
    text = c.result(skill)
    return LAUNCH in text and (body is None or body in text)


def _fixture_names(c: Capture) -> set[str]:
    return c.fixture


def _bundled_names(c: Capture, fixture: set[str]) -> list[str]:
    return [n for n in c.names() if n.split(":")[0] not in fixture and not n.startswith(PLUGIN + ":")
            and n.split(" (")[0] not in fixture and not n.startswith(("extra:", "plugtwo:"))]


def _turn_texts(t: dict) -> str:
    return "\n".join([t.get("tool_result") or "", *(t.get("extra_texts") or []), *(t.get("system_texts") or [])])


def _reoffered(c: Capture) -> bool | None:
    """`Skill cond` runs the nested copy after packages/c was read, and the root copy again after the next
    matching touch (2.1.88 re-stores `paths:` skills as conditional after every load; fuzz-sim-201)."""
    runs = [_turn_texts(t) for t in c.turns if t["tool"] == "Skill" and (t.get("input") or {}).get("skill") == "cond"]
    if len(runs) != 2:
        return None
    return "BODY-COND-NESTED" in runs[0] and "BODY-COND-ROOT" in runs[1]


def _exact_first(c: Capture) -> bool | None:
    """A first-match lookup and an exact-name-first one differ only when the `name:` copy comes first; releases
    that list skill dirs in readdir order put either pair that way round, so each pair decides when it is."""
    for carrier, exact, body in (("aaa-first", "target", "BODY-TARGET"), ("zzz-last", "mtarget", "BODY-MTARGET")):
        names = c.names()
        if carrier in names and exact in names and names.index(carrier) < names.index(exact):
            return body in c.result(exact)
    return None


PROJECT_DIRS = {"Beta-case", "alpha-case", "bom", "dn-dir", "dupkey", "emoji", "lenient", "long", "ov-skill", "surr",
                "wtu"}  # the listing run's project skill dirs that no other source repeats


def _dir_order(c: Capture) -> str | None:
    """How the project's skill dirs are ordered in the listing: "code-unit", "locale" or "read" (neither)."""
    listed = [n for n in c.names() if n in PROJECT_DIRS]
    if len(listed) < 6 or not {"alpha-case", "Beta-case"} <= set(listed) or len(set(listed)) != len(listed):
        return None
    if listed == sorted(listed):
        return "code-unit"
    if listed == sorted(listed, key=lambda n: (n.lower(), n)):
        return "locale"
    return "read"


def _desc(entry: str | None) -> str | None:
    return entry.split(": ", 1)[1] if entry and ": " in entry else None


def _utf16(s: str) -> int:
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def _out_of_order(c, names: list[str]) -> bool:
    seen = [n for n in c.names() if n in names]
    return len(seen) == len(names) and seen != sorted(seen)


PROBES = {
    # feature or value: (run, fixture part, observation)
    "STRIPS_BOM": ("listing", "bom: U+FEFF before the front matter", lambda c: c.entry("bom") == "- bom: bom-desc"),
    "LENIENT_BOOLEANS": ("listing", "lenient: disable-model-invocation: yes", lambda c: c.entry("lenient") is None),
    "YAML_LAST_KEY_WINS": ("listing", "dupkey: description twice", lambda c: "second-desc" in (c.entry("dupkey") or "")),
    "WHEN_TO_USE_NEWLINES_TO_SPACES": ("listing", "wtu: a two-line when_to_use",
                                       lambda c: "line one line two" in (c.entry("wtu") or "")),
    "per_entry_cap": ("listing", "long: a 1700-character description",
                      lambda c: _utf16(_desc(c.entry("long")) or "")),
    "REQUEST_UTF8_REPLACES_LONE_SURROGATES": ("listing", "emoji: 900 emoji, cut inside one by the cap",
                                              lambda c: "\ufffd" in (c.entry("emoji") or "")),
    "DISPLAY_NAME_IN_BRACKETS": ("listing", "dn-dir: name: dn-shown", lambda c: c.entry("dn-dir") is not None
                                 and c.entry("dn-dir").startswith("- dn-dir (dn-shown)")),
    "SKILL_DIRS_CASE_INSENSITIVE_ORDER": ("listing", "alpha-case and Beta-case in one dir",
                                          lambda c: {"locale": True, "code-unit": False}.get(_dir_order(c))),
    # some releases list a skills dir in the order the directory is read (neither sort)
    "SKILL_DIRS_IN_READ_ORDER": ("listing", "the project's skill dirs: sorted by code unit, by locale, or neither",
                                 lambda c: _dir_order(c) == "read"),
    "LISTING_KEEPS_EVERY_COPY": ("listing", "dup in user and project skills", lambda c: c.names().count("dup") > 1),
    "SKILL_OVERRIDES": ("listing", "skillOverrides ov-skill: name-only", lambda c: c.entry("ov-skill") == "- ov-skill"),
    "FALLBACK_DESCRIPTION_LONE_SURROGATE_TO_SPACE": ("listing", "surr: no description, an emoji at the 97-unit cut",
                                                     lambda c: ("a" * 96 + " ...") in (c.entry("surr") or "")),
    "COMMANDS_SORTED_BY_NAME": ("listing", "user zz-user.md, project aa-proj.md",
                                lambda c: c.names().index("aa-proj") < c.names().index("zz-user")),
    # one run cannot show an order that varies between runs: commands out of name order within one project
    # say True; in order, the run cannot tell (None), and 2.1.88's value stays the recorded one
    "UNSTABLE_COMMAND_AND_PLUGIN_ORDER": ("listing", "project .claude/commands aa-proj.md, mm-proj.md",
                                          lambda c: True if _out_of_order(c, ["aa-proj", "mm-proj"]) else None),
    "ADD_DIR_COMMANDS": ("listing", "--add-dir extra with .claude/commands/extra-cmd.md",
                         lambda c: "extra-cmd" in c.names()),
    "ADD_DIR_CLASH_SCOPED": ("listing", "dup2 in the project and in --add-dir extra", lambda c: "extra:dup2" in c.names()),
    "PLUGIN_SKILL_COLON_TO_DASH": ("listing", "plugin skill dir pre:x", lambda c: f"{PLUGIN}:pre-x" in c.names()),
    "PLUGIN_DEFAULT_SKILLS_DIR_KEPT": ("listing", "plugin2 manifest skills: ./more, and skills/kept-skill",
                                       lambda c: "plugtwo:kept-skill" in c.names()
                                       if "plugtwo:m-skill" in c.names() else None),
    "source_order": ("listing", "bundled entries before or after the project's",
                     lambda c: "bundled-first" if c.names() and _bundled_names(c, _fixture_names(c))[:1] == c.names()[:1]
                     else "bundled-after-plugins"),
    "bundled": ("listing", "the entries the fixture did not make",
                lambda c: [(n, _utf16(c.entry(n) or "")) for n in _bundled_names(c, _fixture_names(c))]),
    "default_model": ("listing", "no --model", lambda c: c.model),
    "BUN_STRING_WIDTH": ("listing", "the runtime: a native (Bun) binary or cli.js on node",
                         lambda c: c.runtime == "bun"),
    "family": ("listing", "the package: cli.js on node, or a native binary",
               lambda c: "cli.js (node)" if c.runtime == "node" else "native binary"),
    # invoke (--model claude-sonnet-4-6: a <system-reminder> in every release)
    "LISTING_TRAILING_NEWLINE": ("invoke", "the reminder's last characters",
                                 lambda c: c.listing.endswith("</system-reminder>\n")
                                 if c.placement == "system-reminder" else None),
    "MAX_DESC_CHARS_SETTING": ("invoke", "skillListingMaxDescChars 300, long2: 700 characters",
                               lambda c: _utf16(_desc(c.entry("long2")) or "") == 300),
    # built-in plugin skills and commands (plugin-authoring, init …) stay; these three are bundled in every release
    "DISABLE_BUNDLED_SKILLS": ("invoke", "disableBundledSkills: true: update-config, simplify, loop gone",
                               lambda c: not {"update-config", "simplify", "loop"} & set(c.names())),
    "bundled_kept_when_disabled": ("invoke", "disableBundledSkills: true: the entries the fixture did not make",
                                   lambda c: sorted(_bundled_names(c, _fixture_names(c)))
                                   if not {"update-config", "simplify", "loop"} & set(c.names()) else []),
    "UNKNOWN_SKILL_HINTS": ("invoke", "Skill long22 (long2 exists)", lambda c: "Did you mean" in c.result("long22")),
    "DMI_REFUSAL_EXPLAINS": ("invoke", "Skill dmi-only", lambda c: "Ask the user to run" in c.result("dmi-only")),
    "ASK_SUGGESTS_ALLOW_RULE": ("invoke", "Skill ask-me (allowed-tools, no allow rule)",
                                lambda c: "settings.local.json" in c.result("ask-me")),
    "ARGS_SPLIT_SHELL_QUOTE": ("invoke", "Skill args-skill 'x | y': $1", lambda c: "A1=[y]" in c.result("args-skill")),
    "ARGS_SUBSTITUTION_SINGLE_PASS": ("invoke", "Skill args-skill: $9 with two words",
                                      lambda c: "A9=[$9]" in c.result("args-skill")),
    "EXPANSION_VARS_ESCAPED": ("invoke", "Skill args-skill: ${CLAUDE_PROJECT_DIR}",
                               lambda c: "P=[${CLAUDE_PROJECT_DIR}]" not in c.result("args-skill")
                               if "P=[" in c.result("args-skill") else None),
    "EXACT_NAME_BEFORE_DISPLAY_NAME": ("invoke", "Skill target / mtarget: dir target vs aaa-first with name: target"
                                       " (zzz-last with name: mtarget), the pair whose name: copy is listed first",
                                       lambda c: _exact_first(c)),
    "DMI_YIELDS_NAME": ("invoke", "Skill dmi-y: user copy dmi, project copy not",
                        lambda c: "BODY-DMI-PROJECT" in c.result("dmi-y")),
    "SKILL_TOOL_ONE_COMMAND_PER_NAME": ("invoke", "Skill pc-shown: a dmi skill displaced by command pc",
                                        lambda c: "Unknown skill" in c.result("pc-shown")),
    "DENY_RULES_MATCH_DISPLAY_NAME": ("invoke", "Skill deny-shown, deny Skill(deny-dir)",
                                      lambda c: not _launched(c, "deny-shown")),
    "SKILL_RULE_GLOB_FORM": ("invoke", "Skill globax, deny Skill(skill:glo*x)", lambda c: not _launched(c, "globax")),
    "SKILL_RULE_WORD_PREFIX_FORM": ("invoke", "Skill wpre-a, deny Skill(wpre *)", lambda c: not _launched(c, "wpre-a")),
    "PROJECT_SKILL_ALLOW_RULES_IGNORED": ("invoke", "Skill ask-proj, allowed in project settings",
                                          lambda c: not _launched(c, "ask-proj")),
    "PLUGIN_DISPLAY_NAME_PREFIXED": ("invoke", f"Skill {PLUGIN}:pdn-shown", lambda c: _launched(c, f"{PLUGIN}:pdn-shown")),
    "PLUGIN_NAME_ALIAS": ("invoke", "Skill shared-alias: a plugin skill and command both name it",
                          lambda c: "Several skills match that name" in c.result("shared-alias")),
    # session (--model claude-opus-5-5, skillListingBudgetFraction, managed settings, --debug)
    "MODEL_AWARE_BUDGET": ("session", "--model claude-opus-5-5: where the listing goes", lambda c: c.placement == "system"),
    "BUDGET_FRACTION_SETTING": ("session", f"skillListingBudgetFraction {FRACTION}",
                                lambda c: any(e.startswith("- fill-") and ": " not in e for e in c.entries)
                                or not any(e.startswith("- fill-") for e in c.entries)),
    "NEW_SKILLS_DISCOVERED_MESSAGE": ("session", "Read packages/a/src/x.ts",
                                      lambda c: any("New skills discovered in" in s for t in c.turns
                                                    for s in t.get("system_texts") or [])),
    "WRITE_TOOLS_NEED_PRIOR_READ": ("session", "Edit packages/b/src/y.ts, not read",
                                    lambda c: "has not been read yet" in ((c.turn("Edit", "packages/b") or {})
                                                                          .get("tool_result") or "")),
    "CONDITIONAL_REACTIVATES": ("session", "Read src/one.ts (cond: paths src/**), packages/c/src/z.ts (a nested "
                                "cond), Skill cond, Read src/two.ts, Skill cond: the root copy back",
                                lambda c: _reoffered(c)),
    "MANAGED_BAD_OVERRIDES_DROPPED_ALONE": ("session", "managed drop-in: a bad skillOverrides value beside a deny rule",
                                            lambda c: not _launched(c, "md-deny")),
    "BUNDLED_ALIASES_IN_POLICY_OVERRIDES": ("session", "managed skillOverrides review: off (code-review's alias)",
                                            lambda c: "code-review" not in c.names()),
    # budget (SLASH_COMMAND_TOOL_CHAR_BUDGET=300)
    "LISTING_PRIORITY_MODE": ("budget", "ten 55-character descriptions, a budget of the bundled entries + 420: "
                              "a common shorter description (levels) or some full, some names only (priority)",
                              lambda c: not any(e.startswith("- bud-") and e.endswith("\u2026") for e in c.entries)
                              if any(e.startswith("- bud-") for e in c.entries) else None),
    # budgetgrouped (SLASH_COMMAND_TOOL_CHAR_BUDGET=1,000, --model claude-sonnet-4-6: 8,000 when the value is ignored)
    "BUDGET_ENV_GROUPED_DIGITS": ("budgetgrouped", "SLASH_COMMAND_TOOL_CHAR_BUDGET=1,000 and one 240-character "
                                  "description: cut when `1,000` is read as a number, whole when it is ignored",
                                  lambda c: _grouped_budget_read(c)),
    # binary
    "effort_levels": ("binary", 'the `["low",…,"max"]` arrays compiled into the CLI', _effort_levels),
    # badmanaged
    "MANAGED_INVALID_JSON_REFUSES_START": ("badmanaged", "managed-settings.json is not JSON", lambda c: not c.started),
}


NEEDS = {"BUNDLED_ALIASES_IN_POLICY_OVERRIDES": ("SKILL_OVERRIDES", "bundled"),
         "MANAGED_BAD_OVERRIDES_DROPPED_ALONE": ("SKILL_OVERRIDES",),
         "BUDGET_FRACTION_SETTING": ("MODEL_AWARE_BUDGET",)}  # probes that only mean something when these hold


def _applies(name: str, found: dict) -> bool | None:
    """False when what the probe refines is absent; None when a run that would tell was not made."""
    needs = NEEDS.get(name, ())
    if any(found.get(n) is None for n in needs):
        return None
    if name == "BUNDLED_ALIASES_IN_POLICY_OVERRIDES":
        return found["SKILL_OVERRIDES"] is True and any(n == "code-review" for n, _ in found["bundled"])
    return all(found[n] is True for n in needs)


def run_battery(cli: str, runs: list[str], keep: bool = False, jobs: int = 2) -> dict:
    runtime = "node" if cli.endswith(".js") else "bun"
    first = [r for r in runs if r not in ("budget", "binary")]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        captures = dict(zip(first, pool.map(lambda r: run_cli(cli, r, keep), first)))
    if "binary" in runs:
        captures["binary"] = BinaryCapture(cli)
    if "budget" in runs:
        bundled = captures["listing"].entries if "listing" in captures else []
        fixture = captures["listing"].fixture if "listing" in captures else set()
        own = sum(len(e) + 1 for e in bundled if record.entry_name(e) in _bundled_names(captures["listing"], fixture)) \
            if bundled else 0
        captures["budget"] = run_cli(cli, "budget", keep, f"SLASH_COMMAND_TOOL_CHAR_BUDGET={own + 420}")
    found, notes = {}, {}
    for name, (run, _part, observe) in PROBES.items():
        if run not in captures:
            continue
        capture = captures[run]
        capture.runtime = runtime
        if not capture.started and run != "badmanaged":
            found[name], notes[name] = None, f"the {run} run made no request"
            continue
        try:
            found[name] = observe(capture)
        except (ValueError, TypeError, AttributeError, IndexError) as error:
            found[name], notes[name] = None, f"not observable: {type(error).__name__}: {error}"
    for name in list(found):
        applies = _applies(name, found)
        if found[name] is not None and applies is None:
            found[name] = None
            notes[name] = f"needs {', '.join(NEEDS[name])}, not observed in this battery"
        elif found[name] is not None and not applies:
            found[name] = False
            notes[name] = "vacuous here (what it refines is absent)"
    result = {"cli": cli, "version": record.cli_version(cli), "runtime": runtime, "found": found, "notes": notes}
    listing = captures.get("listing")
    if listing is not None and listing.started:
        result["bundled_measured"] = measure_bundled(listing)
    return result


def measure_bundled(c: Capture) -> list[list]:
    """[name, width, length] of each bundled entry as sent (widths by npm string-width, as record.py masks them)."""
    names = _bundled_names(c, _fixture_names(c))
    texts = [c.entry(n) or "" for n in names]
    try:
        widths = record.string_widths(texts) if texts else []
    except (OSError, subprocess.SubprocessError, ValueError):
        widths = [None] * len(texts)
    return [[n, w, _utf16(t)] for n, w, t in zip(names, widths, texts)]


def main(argv=None) -> int:
    if os.environ.get("BATTERY_RUN"):
        _fixture(os.environ["BATTERY_RUN"], sys.argv[1])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli")
    parser.add_argument("--runs", default=",".join(RUNS))
    parser.add_argument("--out")
    parser.add_argument("--keep-work", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--compare", action="store_true",
                        help="print which features held and which changed against the timeline's last release")
    args = parser.parse_args(argv)
    result = run_battery(args.cli, [r for r in args.runs.split(",") if r], args.keep_work, args.jobs)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    if args.compare:
        import timeline  # noqa: PLC0415  (needs the project)
        sys.stdout.write(timeline.compare_text(result))
        return 0
    if not args.out:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
