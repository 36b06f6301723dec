#!/usr/bin/env python3
"""Record where Claude Code takes the listing budget from (tests/golden/budget-env-*/<profile>.json).

    python3 tests/oracle/record_budget_env.py [CASE ...] [--profile legacy|current|both]

Each case runs tests/oracle/record.py on fixtures/budget-env.py with SLASH_COMMAND_TOOL_CHAR_BUDGET in the CLI's
environment (`env`) and/or in the `env` block of settings scopes (`settings`, the fixture's BUDGET_SETTINGS).
`{at}` is the fixture's full listing width (the budget at which nothing is cut) and `{below}` one less, per
profile (FULL_WIDTH: the engine's width, confirmed by the `at` / `below` pair); `{below,}` is `{below}` with a
thousands separator. A value that cuts the listing is read; one that leaves it whole is not (or is >= {at}).
Each golden's `produced_by` holds the exact record.py command. Standalone: no project imports.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FULL_WIDTH = {"legacy": 1160, "current": 6484}
BIG = "99999"  # far above either full width: the listing stays whole
# name: (process environment value or None, {settings scope: value})
CASES: dict[str, tuple[str | None, dict]] = {
    "at": ("{at}", {}),
    "below": ("{below}", {}),
    "300": ("300", {}),
    "zero": ("0", {}),
    "negative": ("-5", {}),
    "abc": ("abc", {}),
    "empty": ("", {}),
    "float": ("{below}.9", {}),
    "padded": (" {below} ", {}),
    "thousands": ("{below,}", {}),
    "hex": ("0x10", {}),
    "user": (None, {"user": "{below}"}),
    "project": (None, {"project": "{below}"}),
    "local": (None, {"local": "{below}"}),
    "managed": (None, {"managed": "{below}"}),
    "global": (None, {"global": "{below}"}),
    "user-number": (None, {"user": "#{below}"}),  # `#` → a JSON number, not a string
    "env-below-user-big": ("{below}", {"user": BIG}),
    "env-big-user-below": (BIG, {"user": "{below}"}),
    "env-below-user-empty": ("{below}", {"user": ""}),
    "user-below-project-big": (None, {"user": "{below}", "project": BIG}),
    "project-below-local-big": (None, {"project": "{below}", "local": BIG}),
    "local-big-managed-below": (None, {"local": BIG, "managed": "{below}"}),
    "global-below-user-big": (None, {"global": "{below}", "user": BIG}),
    # the same env blocks set ANTHROPIC_MODEL, which picks the model (and so the window) before settings `model` does
    "model-in-settings-env": (None, {"user": {"env": {"ANTHROPIC_MODEL": "claude-opus-4-6"}},
                                     "project": {"model": "claude-sonnet-4-5"}}),
    # `env` must be an object: written as a string, is the whole file (its `model` too) rejected? The control
    # has the same `model` beside a valid `env`.
    "env-object-model": (None, {"project": {"env": {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "{below}"},
                                            "model": "claude-opus-4-6"}}),
    "env-not-object": (None, {"project": {"env": "SLASH_COMMAND_TOOL_CHAR_BUDGET={below}",
                                          "model": "claude-opus-4-6"}}),
}


def fill(value, profile: str):
    at = FULL_WIDTH[profile]
    if isinstance(value, dict):
        return {k: fill(v, profile) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    text = value.replace("{at}", str(at)).replace("{below}", str(at - 1)).replace("{below,}", f"{at - 1:,}")
    return int(text[1:]) if text.startswith("#") else text


def command(case: str, profile: str) -> list[str]:
    env_value, settings = CASES[case]
    argv = [sys.executable, os.path.join(HERE, "record.py"), "budget-env", "--profile", profile,
            "--name", f"budget-env-{case}"]
    if env_value is not None:
        argv += ["--env", f"SLASH_COMMAND_TOOL_CHAR_BUDGET={fill(env_value, profile)}"]
    if settings:
        argv += ["--fixture-env", "BUDGET_SETTINGS=" + json.dumps(fill(settings, profile), separators=(",", ":"))]
    return argv


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help=f"default: all ({', '.join(CASES)})")
    ap.add_argument("--profile", choices=["legacy", "current", "both"], default="both")
    opts = ap.parse_args(argv)
    unknown = [c for c in opts.cases if c not in CASES]
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(unknown)}")
    profiles = ["legacy", "current"] if opts.profile == "both" else [opts.profile]
    failed = 0
    for case in opts.cases or list(CASES):
        for profile in profiles:
            proc = subprocess.run(command(case, profile), cwd=os.path.dirname(os.path.dirname(HERE)))
            failed += proc.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
