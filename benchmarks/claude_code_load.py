"""Claude Code's own skill load, as an anchor: time from starting the real CLI to its first API request,
on the realistic workspace minus the same on an empty one (what its skill scan and listing cost), against
`skillmanager listing` on the same workspace (first run and repeat run), interleaved, medians.

Runs the CLIs installed beside the checkout (../oracle-clis, see tests/locations.py) against the oracle's
fake API server (../shared/oracle/fake_anthropic.py) on 127.0.0.1, inside a private network namespace when
`unshare -n` works. Prints "not available" and exits 0 when no CLI or node is installed.
Target (issue): skillmanager repeat run < 1/4 of Claude Code's load.
Usage: python benchmarks/claude_code_load.py [--skills 5000] [--repeat 5] [--cli current|legacy] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realistic  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLIS = ROOT.parent / "oracle-clis"
if not CLIS.is_dir():
    CLIS = Path("/work/oracle-clis")
FAKE_SERVER = realistic.CORPUS.parent / "oracle" / "fake_anthropic.py"
CLI_PATHS = {"current": ["node_modules/@anthropic-ai/claude-code/bin/claude.exe"],
             "legacy": ["node_modules/@anthropic-ai/claude-code/cli.js"]}

DRIVER = r"""
import json, os, subprocess, sys, time
work, server, argv, cwd, home = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
subprocess.run(["ip", "link", "set", "lo", "up"], stderr=subprocess.DEVNULL)
log, port_file = os.path.join(work, "requests.jsonl"), os.path.join(work, "port")
for f in (log, port_file):
    if os.path.exists(f):
        os.unlink(f)
open(log, "w").close()
steps = os.path.join(work, "steps.json")
open(steps, "w").write("[]")
srv = subprocess.Popen([sys.executable, server, "--log", log, "--port-file", port_file, "--steps", steps,
                        "--max-requests", "20", "--lifetime", "120"])
for _ in range(100):
    if os.path.exists(port_file) and open(port_file).read().strip():
        break
    time.sleep(0.05)
port = open(port_file).read().strip()
env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TERM": "dumb", "USER": "bench", "SHELL": "/bin/bash",
       "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "sk-ant-fake-bench",
       "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
       "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1"}
t0 = time.perf_counter()
cli = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
elapsed = None
while time.perf_counter() - t0 < 100:
    with open(log, encoding="utf-8") as fh:
        if any('"POST"' in line and "/v1/messages" in line and '"system"' in line for line in fh):
            elapsed = time.perf_counter() - t0
            break
    if cli.poll() is not None:
        break
    time.sleep(0.002)
cli.kill(); cli.wait(); srv.kill(); srv.wait()
print(json.dumps(elapsed))
"""


def find_cli(which: str) -> list[str] | None:
    for rel in CLI_PATHS[which]:
        path = CLIS / which / rel
        if path.is_file():
            if path.suffix == ".js":
                node = shutil.which("node")
                return [node, str(path)] if node else None
            return [str(path)]
    return None


def time_cli(cli: list[str], ws_home: Path, cwd: Path, extra: list[str], work: Path) -> float | None:
    work.mkdir(parents=True, exist_ok=True)
    argv = [*cli, "-p", "hello", "--max-turns", "1", *extra]
    driver = [sys.executable, "-c", DRIVER, str(work), str(FAKE_SERVER), json.dumps(argv), str(cwd), str(ws_home)]
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        driver = ["unshare", "-n", *driver]
    out = subprocess.run(driver, capture_output=True, text=True, timeout=300)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli", default="current", choices=("current", "legacy"))
    ap.add_argument("--keep")
    args = ap.parse_args()
    print(realistic.corpus_note())
    print(realistic.machine(), "|", realistic.MACHINE_NOTE)
    cli = find_cli(args.cli)
    if cli is None or not FAKE_SERVER.is_file():
        print(f"Claude Code CLI ({args.cli}) or the fake API server not available: no anchor measured")
        return 0
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skillmanager-cc-"))
    ws = realistic.build_or_reuse(base / f"ws{args.skills}", args.skills)
    empty = base / "empty"
    (empty / "home" / "repo" / ".git").mkdir(parents=True, exist_ok=True)
    cc_extra = []
    for d in ws.add_dirs:
        cc_extra += ["--add-dir", str(d)]
    cc_extra += ["--plugin-dir", str(ws.plugin)]
    from cli import _env, _run, _sm  # the whole-process helpers of benchmarks/cli.py
    listing = _sm(["listing", *ws.cli_args(), "--no-managed"])
    warm = base / "xdg-warm"
    _run(listing, _env(warm))
    realistic.age_cache(warm / "skillmanager")

    def first_run():
        shutil.rmtree(base / "xdg-empty", ignore_errors=True)
        return _run(listing, _env(base / "xdg-empty"))[0]

    rounds = {
        "Claude Code, realistic workspace": lambda: time_cli(cli, ws.home, ws.cwd, cc_extra, base / "cc-work"),
        "Claude Code, empty workspace": lambda: time_cli(cli, empty / "home", empty / "home" / "repo", [],
                                                         base / "cc-empty"),
        "skillmanager listing, first run": first_run,
        "skillmanager listing, repeat run": lambda: _run(listing, _env(warm))[0],
    }
    times: dict[str, list[float]] = {name: [] for name in rounds}
    for r in range(args.repeat):
        names = list(rounds)
        for name in names[r % len(names):] + names[:r % len(names)]:
            value = rounds[name]()
            if value is not None:
                times[name].append(value)
    med = {name: statistics.median(v) * 1000 for name, v in times.items() if v}
    if "Claude Code, realistic workspace" not in med or "Claude Code, empty workspace" not in med:
        print("Claude Code did not reach its first API request: no anchor measured")
        return 0
    load = med["Claude Code, realistic workspace"] - med["Claude Code, empty workspace"]
    print(f"\n{args.skills} skills, median of {args.repeat} interleaved rounds ({args.cli} CLI):")
    for name, ms in med.items():
        print(f"  {name:36s} {ms:8.0f} ms")
    print(f"  Claude Code's own load (realistic - empty): {load:.0f} ms")
    for name in ("skillmanager listing, first run", "skillmanager listing, repeat run"):
        print(f"  {name}: {med[name] / load:.2f}x Claude Code's load")
    ratio = med["skillmanager listing, repeat run"] / load
    print(f"  target repeat run < 1/4 of it: {ratio:.2f} {'met' if ratio < 0.25 else 'NOT met'}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
