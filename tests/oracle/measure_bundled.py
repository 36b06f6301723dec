"""Measure Claude Code's bundled skill entries in real captures and write resources/data/bundled_skills.json.

Only names and sizes are written, never the text (it is Anthropic's). Usage:

    python tests/oracle/measure_bundled.py \
        --legacy /work/shared/oracle/captured_2.1.88.txt \
        --current /work/shared/oracle/captured_2.1.332.txt \
        [--out resources/data/bundled_skills.json] [--check]

A source is either a run_oracle.sh capture (text) or a fake-server request log (requests.jsonl).
The first full listing in it is split into entries; every entry whose name is one of the bundled
names below is measured as sent: width = skillmanager.core.js.textwidth.display_width (Claude Code's
stringWidth), length = UTF-16 code units. `--check` only compares with the existing file.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from skillmanager.core.js.textwidth import display_width, utf16_len  # noqa: E402

HEADER = "The following skills are available for use with the Skill tool:\n\n"
# Names seen in each version's listing (spec §4), in listing order.
BUNDLED = {
    "legacy": ["update-config", "simplify", "loop", "claude-api"],
    "current": ["dataviz", "update-config", "keybindings-help", "code-review", "simplify",
                "fewer-permission-prompts", "loop", "claude-api", "workflow-authoring", "run",
                "plugin-authoring", "init", "security-review"],
}
BUILTIN_COMMANDS = {"init", "security-review"}  # current's built-in prompt commands (not source "bundled")
# Aliases a bundled skill is registered with in the 2.1.332 binary (`Jc({name:"code-review",aliases:["review"],…`):
# skillOverrides and the Skill tool's lookup reach it by them too (fuzz-reg seed 1030: `"review": "off"` hides it).
ALIASES = {"current": {"code-review": ["review"]}}
# Bundled skills the model's Skill call runs in a sub-agent (code-review's `getContext` returns "fork"; fuzz-reg
# seed 1037: `Skill review` → `Skill "review" completed (forked execution).`).
CONTEXT = {"current": {"code-review": "fork"}}
_ENTRY_START = re.compile(r"\n(?=- [^\s:]+(?::|\n|$))")


def first_listing(source: Path) -> str:
    """The entries block of the first listing in a capture or a request log."""
    text = source.read_text(encoding="utf-8")
    if source.suffix == ".jsonl":
        text = _first_listing_from_log(text)
    start = text.index(HEADER) + len(HEADER)
    end_candidates = [i for i in (text.find("\n</system-reminder>", start), text.find("\n\n", start)) if i >= 0]
    return text[start:min(end_candidates)]


def _first_listing_from_log(log: str) -> str:
    for line in log.splitlines():
        body = json.loads(line).get("body") or {}
        for message in body.get("messages") or []:
            content = message.get("content")
            blocks = [{"text": content}] if isinstance(content, str) else content or []
            for block in blocks:
                if HEADER in (block.get("text") or ""):
                    return block["text"]
    raise ValueError("no skill listing in the request log")


def measure(entries_block: str, profile: str) -> list[dict]:
    entries = _ENTRY_START.split(entries_block)
    by_name = {}
    for entry in entries:
        name = re.match(r"- ([^\s:]+)", entry).group(1)
        by_name.setdefault(name, entry)
    out = []
    for name in BUNDLED[profile]:
        if name not in by_name:
            raise ValueError(f"{profile}: bundled entry {name!r} not in the capture")
        entry = by_name[name]
        kind = "builtin-command" if profile == "current" and name in BUILTIN_COMMANDS else "bundled"
        item = {"name": name, "width": display_width(entry), "length": utf16_len(entry), "kind": kind}
        if name in ALIASES.get(profile, {}):
            item["aliases"] = ALIASES[profile][name]
        if name in CONTEXT.get(profile, {}):
            item["context"] = CONTEXT[profile][name]
        out.append(item)
    return out


def build(legacy: Path, current: Path) -> dict:
    data = {}
    for profile, source, version in (("legacy", legacy, "2.1.88"), ("current", current, "2.1.332")):
        data[profile] = {
            "source": (f"Measured by tests/oracle/measure_bundled.py from {source.name} (Claude Code {version}, "
                       "first listing, full entries as sent): width = display_width, length = UTF-16 units. "
                       "Names and sizes only; the descriptions are Anthropic's and are not stored."),
            "entries": measure(first_listing(source), profile),
        }
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legacy", type=Path, default=Path("/work/shared/oracle/captured_2.1.88.txt"))
    parser.add_argument("--current", type=Path, default=Path("/work/shared/oracle/captured_2.1.332.txt"))
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "data" / "bundled_skills.json")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    data = build(args.legacy, args.current)
    if args.check:
        existing = json.loads(args.out.read_text(encoding="utf-8"))
        same = all(existing[p]["entries"] == data[p]["entries"] for p in data)
        print("bundled sizes match" if same else "bundled sizes DIFFER")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.is_file():  # keep the sets tests/oracle/timeline.py measured on other releases
        data = {**json.loads(args.out.read_text(encoding="utf-8")), **data}
    args.out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
