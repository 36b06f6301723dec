"""Registry fuzz goldens recorded with the real Claude Code CLI (tests/golden/fuzz-reg-<seed>/<profile>.json,
plus tests/golden/reg-yaml-probe: YAML edge cases that the fuzz turned up, one skill each).

Each golden's tree comes from tests/oracle/fuzz_registry.py (seeded; FUZZ_SEED / FUZZ_SMALL in the golden's
fixture_env). The Workspace mirrors how run_oracle.sh ran the CLI: cwd, $HOME, /etc/claude-code from
WORK/managed/claude-code, `--add-dir WORK/extra`, `--plugin-dir WORK/plugin`, then the recorded args
(`--add-dir $ORACLE_WORK/extra2`, `--plugin-dir …`, `--model …`) and SLASH_COMMAND_TOOL_CHAR_BUDGET.
`compare_golden` lists every difference (listing: wrapper and non-bundled entries byte for byte, bundled
by name and measured width, 2.1.88's legacy commands as a set; every Skill call: launch line or refusal,
and the injected block). `python -m tests.test_registry_fuzz DIR...` compares recordings outside the tree
(the campaign: tests/oracle/fuzz_registry_campaign.py).
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from skillmanager.core.layers.expansion import expand
from skillmanager.core.layers.listing import build_listing, entry_width
from skillmanager.core.js.textwidth import utf16_len
from skillmanager.core.model import SourceKind
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.load.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_registry_scenarios import MEASURED_MODEL, VARIANTS, _PLACEHOLDER, entry_name, split_listing  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"


def build_fixture(data: dict, work: Path) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, **(data.get("fixture_env") or {}))
    subprocess.run([sys.executable, str(REPO / data["fixture"]), str(work)], check=True, capture_output=True, env=env)
    return work


def _args(data: dict, work: Path) -> list[str]:
    return [a.replace("$ORACLE_WORK", str(work)) for a in data.get("args") or []]


def _option_values(args: list[str], option: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == option]


def workspace_for(work: Path, data: dict, profile: str) -> Workspace:
    args = _args(data, work)
    env = {"HOME": str(work / "home"), **(data.get("env") or {})}
    budget = env.get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
    managed = work / "managed" / "claude-code"
    adds = ([work / "extra"] if (work / "extra").is_dir() else []) + [Path(p) for p in _option_values(args, "--add-dir")]
    plugins = ([work / "plugin"] if (work / "plugin").is_dir() else []) + \
        [Path(p) for p in _option_values(args, "--plugin-dir")]
    models = _option_values(args, "--model")
    return Workspace.create(home=work / "home", cwd=work / (data.get("cwd") or "home/proj"),
                            managed_root=managed if managed.is_dir() else None, add_dirs=adds, plugin_dirs=plugins,
                            profile=profile, model=models[0] if models else None, env=env,
                            budget=int(budget) if budget else None)


def compare_listing(data: dict, registry, profile: str) -> list[str]:
    golden = data["listing"]
    ours = build_listing(registry)
    if golden is None:
        return [] if not ours.text else [f"listing: CLI sent none, ours has {len(ours.entries)} entries"]
    problems: list[str] = []
    want_head, want, want_tail = split_listing(golden["text"])
    got_head, got, got_tail = split_listing(ours.text) if ours.text else ("", [], "")
    if (got_head, got_tail) != (want_head, want_tail):
        problems.append(f"listing wrapper: {(got_head, got_tail)!r} != {(want_head, want_tail)!r}")
    legacy_cmds = {s.name for s in registry.skills if s.source is SourceKind.COMMAND} if profile == "legacy" else set()
    bundled = {s.name for s in registry.skills if s.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)}
    # 2.1.88 reads a plugin's commands with concurrent readdir/readFile (walkPluginMarkdown.ts: pushed as each
    # read finishes), so their order within the plugin varies (seed 1002): compare each run of them sorted.
    # Its plugin skills too (loadPluginCommands.ts: readdir, then a push as each SKILL.md read finishes; 1025, 1030).
    plugin_cmds = {s.name for s in registry.skills if s.source in (SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL)} \
        if profile == "legacy" else set()
    mine = _sorted_runs([e for e in got if entry_name(e) not in legacy_cmds], plugin_cmds)
    theirs = _sorted_runs([e for e in want if entry_name(e) not in legacy_cmds], plugin_cmds)
    if [entry_name(e) for e in mine] != [entry_name(e) for e in theirs]:
        problems.append(f"listing order/names:\n  ours  {[entry_name(e) for e in mine]}\n  theirs "
                        f"{[entry_name(e) for e in theirs]}")
    elif sorted(e for e in got if entry_name(e) in legacy_cmds) != sorted(e for e in want if entry_name(e) in legacy_cmds):
        problems.append(f"legacy commands:\n  ours  {sorted(e for e in got if entry_name(e) in legacy_cmds)}\n"
                        f"  theirs {sorted(e for e in want if entry_name(e) in legacy_cmds)}")
    measured = data.get("model") == MEASURED_MODEL[profile]
    if not problems:
        for a, b in zip(mine, theirs):
            pa, pb = _PLACEHOLDER.match(a), _PLACEHOLDER.match(b)
            if pb and not pa:  # record.py masked a user entry that reuses a bundled name (description = fallback)
                if (entry_width(a, get_profile(profile)), utf16_len(a)) != (int(pb.group(2)), int(pb.group(3))):
                    problems.append(f"masked entry {entry_name(b)}: ours {a!r} ({entry_width(a)}/{utf16_len(a)}) "
                                    f"theirs {b!r}")
                continue
            if entry_name(b) in bundled and pa and pb:
                if measured and pa.group(2) != pb.group(2):
                    problems.append(f"bundled width {entry_name(b)}: {pa.group(2)} != {pb.group(2)}")
                continue
            if a != b:
                problems.append(f"entry:\n  ours   {a!r}\n  theirs {b!r}")
    return problems


def _sorted_runs(entries: list[str], names: set[str]) -> list[str]:
    """Each maximal run of consecutive entries whose names are in `names`, sorted; the rest in place."""
    out: list[str] = []
    run: list[str] = []
    for entry in entries + [None]:
        if entry is not None and entry_name(entry) in names:
            run.append(entry)
            continue
        out += sorted(run)
        run = []
        if entry is not None:
            out.append(entry)
    return out


def _local(text: str, work: Path) -> str:
    """A recorded text with the paths of this rebuild (run_oracle.sh mounted WORK/managed/claude-code on /etc)."""
    return text.replace("<WORK>", str(work)).replace("/etc/claude-code/", str(work / "managed" / "claude-code") + "/")


def compare_turns(data: dict, registry, work: Path) -> list[str]:
    problems = []
    for turn in data["turns"]:
        if turn["tool"] != "Skill":
            continue
        texts = [_local(t, work) for t in turn.get("extra_texts") or []]
        if any(t.startswith("Skill /") and "is already loaded above" in t for t in texts):
            continue  # current remembers earlier expansions (a session effect)
        expected = _local(turn["tool_result"], work).split("\n\n<system-reminder>")[0]
        name = turn["input"]["skill"]
        result = expand(registry, name, args=turn["input"].get("args"), session_id="<SESSION_ID>")
        if result.forked:  # a sub-agent ran it: the result line, then the sub-agent's (fake server's) answer
            if not expected.startswith(result.tool_result):
                problems.append(f"Skill {name!r}: ours {result.tool_result!r}… (forked) theirs {expected!r}")
            prompts = [_local(t, work) for t in data.get("subagent_prompts") or []]
            if result.block is not None and prompts and result.block not in prompts:
                problems.append(f"Skill {name!r} sub-agent prompt:\n  ours   {result.block!r}\n  theirs {prompts!r}")
            continue
        got = result.refusal if result.is_error else result.launch_line
        if got != expected or result.is_error != bool(turn.get("is_error", False)):
            problems.append(f"Skill {name!r}: ours {got!r} (error={result.is_error}) theirs {expected!r}")
            continue
        if result.is_error or any(t.startswith("[bundled expansion:") for t in texts):
            continue
        # Every expansion is compared, with or without a `Base directory` line (a command's block too, and a
        # .claude/commands SKILL.md whose block starts with it: seeds 22, 38). The expansion is the first text.
        if not texts:
            problems.append(f"Skill {name!r}: the CLI recorded no expansion text")
            continue
        block = texts[0]
        if any(t.startswith(VARIANTS) for t in texts) and block.endswith("\n"):
            block = block[:-1]
        if result.block != block:
            problems.append(f"Skill {name!r} block:\n  ours   {result.block!r}\n  theirs {block!r}")
    return problems


def compare_golden(data: dict, work: Path) -> list[str]:
    profile = data["profile"]
    registry = load_registry(workspace_for(work, data, profile))
    return compare_listing(data, registry, profile) + compare_turns(data, registry, work)


def _cases() -> list:
    cases = []
    for directory in sorted(GOLDEN.glob("fuzz-reg-*")) + [GOLDEN / "reg-yaml-probe"]:
        for profile in ("legacy", "current"):
            if (directory / f"{profile}.json").exists():
                cases.append(pytest.param(directory / f"{profile}.json", id=f"{directory.name}-{profile}"))
    return cases


@pytest.mark.parametrize("path", _cases())
def test_fuzz_golden(path, tmp_path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["cli_exit"] == "cli exit: 0", "incomplete recording: re-record it (see produced_by)"
    work = build_fixture(data, tmp_path / "work")
    steps = [s["input"] for s in json.loads((work / "steps.json").read_text()) if s["name"] == "Skill"]
    assert [t["input"] for t in data["turns"] if t["tool"] == "Skill"] == steps  # every call was recorded
    assert compare_golden(data, work) == []


def test_fuzz_goldens_exist():
    assert len(_cases()) >= 12


def test_generator_is_reproducible(tmp_path):
    """The same seed builds the same tree (the goldens depend on it)."""
    def snapshot(root: Path) -> dict:
        out = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                rel = str(p.relative_to(root))
                out[rel] = os.readlink(p) if p.is_symlink() else (p.read_bytes() if p.is_file() else None)
        return out
    data = {"fixture": "tests/oracle/fixtures/fuzz-reg.py", "fixture_env": {"FUZZ_SEED": "5"}}
    assert snapshot(build_fixture(data, tmp_path / "a")) == snapshot(build_fixture(data, tmp_path / "b"))


if __name__ == "__main__":  # compare recordings: python -m tests.test_registry_fuzz /tmp/fuzzreg/<seed>/legacy.json …
    import tempfile
    total = 0
    for arg in sys.argv[1:]:
        data = json.loads(Path(arg).read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as tmp:
            work = build_fixture(data, Path(tmp) / "work")
            problems = compare_golden(data, work)
        total += len(problems)
        n = len(split_listing(data["listing"]["text"])[1]) if data.get("listing") else 0
        turns = sum(1 for t in data["turns"] if t["tool"] == "Skill")
        print(f"== {arg}: {n} entries, {turns} Skill calls, {len(problems)} problems "
              f"({data['cli_exit']}; {shlex.join(data.get('args') or [])} {data.get('env')})")
        for p in problems:
            print("  - " + p.replace(str(work), "<WORK>") if False else "  - " + p)
    sys.exit(1 if total else 0)
