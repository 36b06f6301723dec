#!/usr/bin/env python3
"""Record a golden capture of the real Claude Code CLI and reduce it to a small JSON file.

    python3 tests/oracle/record.py SCENARIO [--profile legacy|current|both] [--env K=V ...]
        [--args "..."] [--cwd REL] [--name OUTNAME] [--pre-hook CMD]
        [--fixture-env K=V ...] [--prompt TEXT] [--keep-work] [--reduce-only WORK]

Runs /work/shared/oracle/run_oracle.sh (the fake-API harness) with the fixture
tests/oracle/fixtures/SCENARIO.py (the shared build_fixture.py for `base`), reads
WORK/requests.jsonl and writes tests/golden/<OUTNAME or SCENARIO>/<profile>.json.
See tests/oracle/README.md for the reduced format. Standalone: no project imports.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_DIR = os.environ.get("ORACLE_DIR", os.path.join(os.path.dirname(REPO), "shared", "oracle"))
RUN_ORACLE = os.path.join(ORACLE_DIR, "run_oracle.sh")
SHARED_FIXTURE = os.path.join(ORACLE_DIR, "build_fixture.py")
_CLIS = os.environ.get("SKILLMANAGER_ORACLE_CLIS", os.path.join(os.path.dirname(REPO), "oracle-clis"))
DEFAULT_BINS = {
    "legacy": os.path.join(_CLIS, "legacy/node_modules/@anthropic-ai/claude-code/cli.js"),
    "current": os.path.join(_CLIS, "current/node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
}
BIN_ENV = {"legacy": "CLAUDE_LEGACY_BIN", "current": "CLAUDE_CURRENT_BIN"}
HEADER = "The following skills are available for use with the Skill tool:"
WRAPPED_HEADER = "<system-reminder>\n" + HEADER
# Claude Code's own skills (spec §4 plus names compiled into each binary). A Skill call on one of these
# names has its expansion masked unless the text comes from the fixture; listing entries are masked by
# position (OWN_ORDER below).
BUNDLED_NAMES = {
    "legacy": ["update-config", "simplify", "loop", "claude-api", "keybindings-help", "debug",
               "batch", "stuck", "remember", "verify", "schedule", "claude-in-chrome", "lorem-ipsum",
               "skillify", "dream"],
    "current": ["dataviz", "update-config", "keybindings-help", "code-review", "simplify",
                "fewer-permission-prompts", "loop", "claude-api", "workflow-authoring", "run",
                "plugin-authoring", "init", "security-review", "debug", "batch", "stuck", "remember",
                "verify", "schedule", "claude-in-chrome", "review", "pr-comments", "statusline"],
}
# Where Claude Code's own entries sit in a listing (masking goes by position, not by name alone: a user
# skill or command may reuse a bundled name, e.g. fuzz-reg seed 32's user `simplify`/`review` with a
# fallback description). legacy: the bundled skills come first, in registration order (src/skills/bundled/
# index.ts; captures show update-config, simplify, loop, claude-api). current: after the plugin skills, one
# run in this order (captures: base, deep-cwd, fuzz-reg-*), then the scoped --add-dir entries, then
# init and security-review.
OWN_ORDER = {
    "legacy": ["update-config", "keybindings-help", "verify", "debug", "lorem-ipsum", "skillify", "remember",
               "simplify", "batch", "stuck", "dream", "loop", "schedule", "claude-api", "claude-in-chrome"],
    "current": ["dataviz", "update-config", "keybindings-help", "code-review", "simplify",
                "fewer-permission-prompts", "loop", "claude-api", "workflow-authoring", "run", "plugin-authoring"],
}
CURRENT_TAIL = ("init", "security-review")
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
STRING_WIDTH_DIR = os.environ.get("STRING_WIDTH_DIR", os.path.join(tempfile.gettempdir(), "oracle-string-width"))


# ---------------------------------------------------------------- running the CLI

def cli_version(bin_path: str) -> str:
    """Version from the package.json next to the CLI (cli.js or bin/claude.exe)."""
    d = os.path.dirname(os.path.abspath(bin_path))
    for _ in range(3):
        pj = os.path.join(d, "package.json")
        if os.path.isfile(pj):
            try:
                with open(pj, encoding="utf-8") as f:
                    return json.load(f).get("version", "unknown")
            except (OSError, ValueError):
                break
        d = os.path.dirname(d)
    return "unknown"


def run_oracle(bin_path: str, fixture: str, work: str, opts) -> str:
    env = dict(os.environ)
    env["ORACLE_FIXTURE"] = fixture
    for k in ("ORACLE_CWD", "ORACLE_EXTRA_ENV", "ORACLE_EXTRA_ARGS", "ORACLE_PRE_HOOK", "ORACLE_PROMPT"):
        env.pop(k, None)
    if opts.cwd:
        env["ORACLE_CWD"] = opts.cwd
    if opts.env:
        env["ORACLE_EXTRA_ENV"] = " ".join(shlex.quote(kv) for kv in opts.env)
    if opts.args:
        env["ORACLE_EXTRA_ARGS"] = opts.args
    if opts.pre_hook:
        env["ORACLE_PRE_HOOK"] = opts.pre_hook
    if opts.prompt:
        env["ORACLE_PROMPT"] = opts.prompt
    for kv in opts.fixture_env or []:
        k, _, v = kv.partition("=")
        env[k] = v
    proc = subprocess.run(["bash", RUN_ORACLE, bin_path, work], env=env, capture_output=True, text=True)
    if proc.returncode != 0 and os.path.isfile(os.path.join(work, "cli_rc.txt")):
        # the capture is complete; only show_listing.py's printout failed (e.g. a lone surrogate)
        sys.stderr.write(f"note: run_oracle.sh exit {proc.returncode} after the CLI finished; reducing anyway\n")
    elif proc.returncode != 0:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit(f"run_oracle.sh failed ({proc.returncode}) in {work}")
    return proc.stdout


# ---------------------------------------------------------------- reading requests.jsonl

def load_requests(work: str) -> list[dict]:
    out = []
    with open(os.path.join(work, "requests.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if isinstance(rec.get("body"), dict):
                out.append(rec["body"])
    return out


def is_main_loop(body: dict) -> bool:
    names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    return "Read" in names and "Skill" in names


def blocks_of(msg: dict) -> list[dict]:
    c = msg.get("content")
    if isinstance(c, str):
        return [{"type": "text", "text": c}]
    return [b for b in c or [] if isinstance(b, dict)]


def result_text(block: dict) -> str:
    c = block.get("content")
    if isinstance(c, list):
        return "\n".join(x.get("text", json.dumps(x)) for x in c if isinstance(x, dict))
    return c if isinstance(c, str) else json.dumps(c)


def session_ids(bodies: list[dict]) -> set[str]:
    ids = set()
    for b in bodies:
        uid = (b.get("metadata") or {}).get("user_id")
        try:
            sid = json.loads(uid).get("session_id") if isinstance(uid, str) else None
        except ValueError:
            sid = UUID_RE.search(uid or "") and UUID_RE.search(uid).group(0)
        if sid:
            ids.add(sid)
    return ids


# ---------------------------------------------------------------- the listing

def find_listing(first: dict):
    """(placement, raw text, followed_by) of the layer-1 listing in the first main-loop request."""
    for msg in first.get("messages") or []:
        for b in blocks_of(msg):
            t = b.get("text") if b.get("type") == "text" else None
            if not t or HEADER not in t:
                continue
            if t.startswith(WRAPPED_HEADER):
                return "system-reminder", t, None
            start = t.index(HEADER)
            # Entries begin after "header\n\n" and end at the first blank line after them.
            body_start = start + len(HEADER) + 2
            end = t.find("\n\n", body_start)
            end = len(t) if end < 0 else end
            placement = "system" if msg.get("role") == "system" else "user-text"
            return placement, t[start:end], t[end:end + 20]
    return None, None, None


def split_entries(entries_text: str) -> list[str]:
    """Entries are joined by \\n; a new entry starts at a line beginning with '- '."""
    out: list[str] = []
    for line in entries_text.split("\n"):
        if line.startswith("- ") or not out:
            out.append(line)
        else:
            out[-1] += "\n" + line
    return out


def entry_name(entry: str) -> str:
    m = re.match(r"- (.+?)(?:: | \(|:?$)", entry.split("\n", 1)[0])
    return m.group(1) if m else ""


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def string_widths(texts: list[str]) -> list[int]:
    """Display widths by the npm string-width package (installed on demand in STRING_WIDTH_DIR)."""
    if not texts:
        return []
    mod = os.path.join(STRING_WIDTH_DIR, "node_modules", "string-width", "index.js")
    if not os.path.isfile(mod):
        os.makedirs(STRING_WIDTH_DIR, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", STRING_WIDTH_DIR, "string-width@8"], check=True)
    script = ("import sw from %s; let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>"
              "{console.log(JSON.stringify(JSON.parse(d).map(s=>sw(s))))});" % json.dumps("file://" + mod))
    proc = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(texts),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def fixture_texts(work: str) -> str:
    """The .md files the fixture wrote (used to tell a user skill from a bundled one)."""
    chunks = []
    for root, dirs, files in os.walk(work):
        dirs[:] = [d for d in dirs if d not in ("etc-copy", ".git", "debug", "projects")]
        for fn in files:
            p = os.path.join(root, fn)
            if not fn.endswith(".md") or not os.path.isfile(p) or os.path.getsize(p) > 200_000:
                continue
            try:
                with open(p, encoding="utf-8", errors="replace") as f:
                    chunks.append(f.read())
            except OSError:
                pass
    return "\n".join(chunks)


def _ordered_run(names: list[str], order: list[str]) -> list[int]:
    """Positions (into names) of a run whose names follow `order` strictly."""
    run, last = [], -1
    for i, name in enumerate(names):
        if name not in order or order.index(name) <= last:
            break
        run.append(i)
        last = order.index(name)
    return run


def own_entry_indexes(entries: list[str], profile: str) -> set[int]:
    """The entries Claude Code itself lists (by position, see OWN_ORDER)."""
    names = [entry_name(e) for e in entries]
    if profile == "legacy":
        return set(_ordered_run(names, OWN_ORDER["legacy"]))
    own: set[int] = set()
    order = OWN_ORDER["current"]
    start = None  # the last place a run of the bundled block can start: the block is the last such run
    for i in range(len(names) - 1, -1, -1):
        if names[i] in order and (i == 0 or names[i - 1] not in order
                                  or order.index(names[i - 1]) >= order.index(names[i])):
            start = i
            break
    if start is not None:
        own |= {start + k for k in _ordered_run(names[start:], order)}
    if own:  # only Claude Code's entries (and renamed --add-dir ones) follow the block: init, security-review
        own |= {i for i in range(max(own) + 1, len(names)) if names[i] in CURRENT_TAIL}
    else:  # no block: init / security-review only as the last entries (scoped --add-dir entries aside)
        for i in range(len(names) - 1, -1, -1):
            if "(scoped to " in entries[i]:
                continue
            if names[i] not in CURRENT_TAIL:
                break
            own.add(i)
    return own


def mask_bundled(listing_text: str, profile: str, fixture_blob: str) -> tuple[str, list[str]]:
    """Replace Claude Code's own entries by placeholders; return the new text and the masked names."""
    prefix, sep, rest = listing_text.partition(HEADER + "\n\n")
    if not sep:
        return listing_text, []
    trailer = ""
    # legacy ends the block with "\n</system-reminder>\n", current (claude-*-4-6 models) without the final
    # "\n": keep either closing tag out of the last entry (base-sonnet46/current.json).
    for closing in ("\n</system-reminder>\n", "\n</system-reminder>"):
        if rest.endswith(closing):
            rest, trailer = rest[: -len(closing)], closing
            break
    entries = split_entries(rest)
    own = own_entry_indexes(entries, profile)
    targets = []
    for i, e in enumerate(entries):
        name = entry_name(e)
        if i not in own:
            continue  # not in Claude Code's own block: a user skill or command that reuses a bundled name
        desc = e[len("- " + name):].lstrip(":").strip()
        if not desc:
            continue  # a bare "- name" carries no Anthropic text
        probe = desc.split("\n")[0][:40].rstrip("…")
        if probe and probe in fixture_blob:
            continue  # the fixture wrote this text: not a bundled entry
        targets.append(i)
    widths = string_widths([entries[i] for i in targets])
    masked = [entry_name(entries[i]) for i in targets]
    for i, w in zip(targets, widths):
        e = entries[i]
        entries[i] = f"- {entry_name(e)} [bundled entry: width {w}, length {utf16_len(e)}]"
    return prefix + sep + "\n".join(entries) + trailer, masked


# ---------------------------------------------------------------- turns

def reduce_turns(last: dict) -> list[dict]:
    msgs = last.get("messages") or []
    turns = []
    for i, m in enumerate(msgs):
        if m.get("role") != "assistant":
            continue
        for b in blocks_of(m):
            if b.get("type") != "tool_use":
                continue
            turn = {"tool": b.get("name"), "input": b.get("input"), "tool_result": None,
                    "extra_texts": [], "system_texts": []}
            for j in range(i + 1, len(msgs)):
                n = msgs[j]
                if n.get("role") == "assistant":
                    break
                for nb in blocks_of(n):
                    if n.get("role") == "system":
                        if nb.get("type") == "text":
                            turn["system_texts"].append(nb.get("text", ""))
                    elif nb.get("type") == "tool_result":
                        if nb.get("tool_use_id") == b.get("id"):
                            turn["tool_result"] = result_text(nb)
                            if nb.get("is_error"):
                                turn["is_error"] = True
                    elif nb.get("type") == "text":
                        turn["extra_texts"].append(nb.get("text", ""))
            turns.append(turn)
    return turns


def scrub(obj, work: str, sids: set[str]):
    if isinstance(obj, str):
        obj = obj.replace(work, "<WORK>")
        for s in sids:
            obj = obj.replace(s, "<SESSION_ID>")
        return obj
    if isinstance(obj, list):
        return [scrub(x, work, sids) for x in obj]
    if isinstance(obj, dict):
        return {k: scrub(v, work, sids) for k, v in obj.items()}
    return obj


def _from_fixture(text: str, blob: str) -> bool:
    """True when the text is a system-reminder or its first body line was written by the fixture."""
    if text.startswith("<system-reminder>"):
        return True
    lines = [l for l in text.split("\n") if l.strip() and not l.startswith("Base directory for this skill:")]
    return bool(lines) and lines[0][:40] in blob


def subagent_prompts(bodies: list[dict], last: dict) -> list[str]:
    """`Base directory for this skill:` texts sent in requests other than the main loop's last one."""
    seen = {b.get("text") for m in last.get("messages") or [] for b in blocks_of(m) if b.get("type") == "text"}
    out: list[str] = []
    for body in bodies:
        if body is last:
            continue
        for m in body.get("messages") or []:
            for b in blocks_of(m):
                text = b.get("text") if b.get("type") == "text" else None
                if text and text.startswith("Base directory for this skill:") and text not in seen and text not in out:
                    out.append(text)
    return out


def reduce_capture(work: str, profile: str, meta: dict) -> dict:
    bodies = load_requests(work)
    main = [b for b in bodies if is_main_loop(b)]
    if not main:
        raise SystemExit(f"no main-loop request in {work}/requests.jsonl (see {work}/cli_stderr.txt)")
    sids = session_ids(bodies)
    placement, text, followed_by = find_listing(main[0])
    listing = None
    if text is not None:
        masked, bundled = mask_bundled(text, profile, fixture_texts(work))
        listing = {"placement": placement, "text": masked, "bundled": bundled}
        if followed_by is not None:
            listing["followed_by"] = followed_by
    last = max(main, key=lambda b: len(b.get("messages") or []))
    out = dict(meta)
    out.update({"model": main[0].get("model"), "session_ids_seen": len(sids), "listing": listing,
                "turns": reduce_turns(last)})
    prompts = subagent_prompts(bodies, last)
    if prompts:  # `context: fork` skills: what each sub-agent was given (probe-fork)
        out["subagent_prompts"] = prompts
    blob = fixture_texts(work)
    bundled_names = set(BUNDLED_NAMES["legacy"]) | set(BUNDLED_NAMES["current"])
    for t in out["turns"]:  # bundled text must never leak through a turn either
        skill_name = str((t.get("input") or {}).get("skill", "")).lstrip("/") if t["tool"] == "Skill" else ""
        if skill_name in bundled_names:
            t["extra_texts"] = [x if _from_fixture(x, blob) else f"[bundled expansion: length {utf16_len(x)}]"
                                for x in t["extra_texts"]]
        for k in ("extra_texts", "system_texts"):
            t[k] = [mask_bundled(x, profile, "")[0] if HEADER in x and x.startswith(WRAPPED_HEADER) else x
                    for x in t[k]]
    with open(os.path.join(work, "cli_rc.txt"), encoding="utf-8") as f:
        out["cli_exit"] = f.read().strip()
    return scrub(out, work, sids)


# ---------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--profile", choices=["legacy", "current", "both"], default="both")
    ap.add_argument("--env", action="append", default=[], metavar="K=V", help="extra CLI environment (repeatable)")
    ap.add_argument("--args", default="", help="extra CLI arguments, one shell string")
    ap.add_argument("--cwd", default="", help="CLI cwd relative to WORK (default home/proj)")
    ap.add_argument("--name", default="", help="output dir name under tests/golden (default SCENARIO)")
    ap.add_argument("--pre-hook", default="", help="shell command run in WORK before the CLI starts")
    ap.add_argument("--fixture-env", action="append", default=[], metavar="K=V",
                    help="environment for the fixture script (e.g. ORACLE_SKILL_OVERRIDES=...)")
    ap.add_argument("--prompt", default="", help="prompt text (default: hello)")
    ap.add_argument("--keep-work", action="store_true", help="keep the WORK dir and print its path")
    ap.add_argument("--reduce-only", default="", metavar="WORK", help="reduce an existing WORK dir, do not run")
    opts = ap.parse_args(argv)

    if opts.scenario == "base":
        fixture, fixture_rel = SHARED_FIXTURE, SHARED_FIXTURE
    else:
        fixture_rel = f"tests/oracle/fixtures/{opts.scenario}.py"
        fixture = os.path.join(REPO, fixture_rel)
        if not os.path.isfile(fixture):
            raise SystemExit(f"no fixture {fixture}")
    profiles = ["legacy", "current"] if opts.profile == "both" else [opts.profile]
    out_dir = os.path.join(REPO, "tests", "golden", opts.name or opts.scenario)
    produced_by = "python3 tests/oracle/record.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    for profile in profiles:
        bin_path = os.environ.get(BIN_ENV[profile]) or DEFAULT_BINS[profile]
        work = opts.reduce_only or tempfile.mkdtemp(prefix=f"cc-oracle-{profile}-")
        work = os.path.realpath(work)
        if not opts.reduce_only:
            run_oracle(bin_path, fixture, work, opts)
        meta = {"produced_by": produced_by, "cli_version": cli_version(bin_path), "profile": profile,
                "fixture": fixture_rel, "cwd": opts.cwd or "home/proj",
                "env": dict(kv.partition("=")[::2] for kv in opts.env),
                "fixture_env": dict(kv.partition("=")[::2] for kv in opts.fixture_env),
                "args": shlex.split(opts.args), "pre_hook": opts.pre_hook or None,
                "prompt": opts.prompt or "hello"}
        reduced = reduce_capture(work, profile, meta)
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"{profile}.json")
        text = json.dumps(reduced, indent=1, ensure_ascii=False)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a cut landed inside a surrogate pair: keep it as \ud83d escapes
            data = json.dumps(reduced, indent=1, ensure_ascii=True).encode("ascii")
        with open(path, "wb") as f:
            f.write(data + b"\n")
        print(f"{profile}: wrote {os.path.relpath(path, REPO)} ({reduced['cli_exit']}, "
              f"{len(reduced['turns'])} turns)" + (f" work={work}" if opts.keep_work or opts.reduce_only else ""))
        if not opts.keep_work and not opts.reduce_only:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
