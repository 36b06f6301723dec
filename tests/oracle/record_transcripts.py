#!/usr/bin/env python3
"""Record Claude Code's own session transcripts with the real CLIs and keep the lines that say which
skills were used.

    python3 tests/oracle/record_transcripts.py [--profile legacy|current|both] [--keep-work]

Runs /work/shared/oracle/run_oracle.sh with tests/oracle/fixtures/usage-transcripts.py and the prompt
`/proj-skill alpha beta` (the user types a skill); the fake model then calls the Skill tool on
`user-skill`. Claude Code writes the session to home/.claude/projects/<slug>/<session>.jsonl; this
script keeps the transcript lines whose `type` is in KEEP_TYPES (the conversation and the small
bookkeeping lines around it; attachments and request snapshots carry Claude Code's own prompt text and
are dropped), replaces the temporary work dir by /WORK and writes
tests/golden/transcripts/<profile>.jsonl. Standalone: no project imports (see record.py).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (run_oracle, cli_version, DEFAULT_BINS)

FIXTURE_REL = "tests/oracle/fixtures/usage-transcripts.py"
PROMPT = "/proj-skill alpha beta"
KEEP_TYPES = ("user", "assistant", "queue-operation", "last-prompt", "tools-used")
OUT_DIR = os.path.join(record.REPO, "tests", "golden", "transcripts")


def transcript_files(work: str) -> list[str]:
    return sorted(glob.glob(os.path.join(work, "home", ".claude", "projects", "*", "*.jsonl")))


def trim(lines: list[str], work: str) -> list[str]:
    """The kept lines, byte-for-byte as written except the work dir (and its slug) made neutral."""
    slug = work.replace("/", "-").replace(".", "-")
    out = []
    for line in lines:
        try:
            kind = json.loads(line).get("type")
        except ValueError:
            continue
        if kind in KEEP_TYPES:
            out.append(line.rstrip("\n").replace(work, "/WORK").replace(slug, "-WORK"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=["legacy", "current", "both"], default="both")
    ap.add_argument("--keep-work", action="store_true")
    opts = ap.parse_args(argv)
    fixture = os.path.join(record.REPO, FIXTURE_REL)
    os.makedirs(OUT_DIR, exist_ok=True)
    for profile in ["legacy", "current"] if opts.profile == "both" else [opts.profile]:
        bin_path = os.environ.get(record.BIN_ENV[profile]) or record.DEFAULT_BINS[profile]
        work = os.path.realpath(tempfile.mkdtemp(prefix=f"cc-transcripts-{profile}-"))
        run_opts = SimpleNamespace(cwd="", env=[], args="", pre_hook="", prompt=PROMPT, fixture_env=[])
        record.run_oracle(bin_path, fixture, work, run_opts)
        files = transcript_files(work)
        if len(files) != 1:
            raise SystemExit(f"{profile}: expected one transcript, found {files} in {work}")
        with open(files[0], encoding="utf-8") as f:
            kept = trim(f.readlines(), work)
        path = os.path.join(OUT_DIR, f"{profile}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(kept) + "\n")
        print(f"{profile} ({record.cli_version(bin_path)}): wrote {os.path.relpath(path, record.REPO)} "
              f"({len(kept)} lines)" + (f" work={work}" if opts.keep_work else ""))
        if not opts.keep_work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
