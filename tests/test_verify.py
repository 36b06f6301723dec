"""`skillmanager verify`: the real Claude Code, sandboxed, against the engine's prediction.

Oracle tests (marked `oracle`) run the installed 2.1.88 cli.js and 2.1.332 binary (tests/locations.py), one at a
time: the shared oracle fixture and oracle fixtures with nested skills and `paths:` skills, a workspace built
from real corpus skills, an injected engine mismatch, and the safety test: a workspace whose settings `env`,
hooks (user, project, local, managed, plugin), MCP servers (live config, project, plugin), `apiKeyHelper` and
friends would each write a marker; after verify no marker exists, every byte under the workspace is unchanged,
and the CLI ran in a network namespace whose only interface is loopback. A control run without verify's
protections shows the same workspace does write markers. The refusals (exit 2) need no real CLI.
"""
from __future__ import annotations

import dataclasses
import io
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillmanager.cli import main
from skillmanager.core.verify import child as verify_child
from skillmanager.core.verify.capture import reduce_requests
from skillmanager.core.verify.fake_api import FakeMessagesApi
from skillmanager.core.verify.runner import DIFFERS, MATCHES, UNSAFE, VerifyOptions, run_verify
from skillmanager.core.verify.sandbox import (FAKE_API_KEY, PROXY_VARIABLES, RISKY_SETTINGS_KEYS, build_sandbox,
                                              clean_environment, clean_settings, probe_namespaces)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locations import CORPUS, CURRENT_CLI, LEGACY_CLI_JS, ORACLE, build_fixture, missing  # noqa: E402
from verify_workspaces import build_corpus_workspace, build_hostile_workspace, tree_state, write  # noqa: E402

CLIS = {"legacy": LEGACY_CLI_JS, "current": CURRENT_CLI}
VERSIONS = {"legacy": "2.1.88", "current": "2.1.332"}
FIXTURES = Path(__file__).resolve().parent / "oracle" / "fixtures"


def cli_for(profile: str) -> Path:
    path = CLIS[profile]
    if not path.is_file():
        pytest.skip(f"Claude Code {VERSIONS[profile]} is not installed at {path}")
    return path


def namespaces_or_skip() -> None:
    found = probe_namespaces()
    if not found.available:
        pytest.skip(f"private namespaces unavailable: {found.why_not}")


# --- pieces that need no real CLI ---------------------------------------------------------------------

def _post(port: int, body: dict) -> tuple[str, bytes]:
    data = json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
                     + f"content-length: {len(data)}\r\nconnection: close\r\n\r\n".encode() + data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, payload = b"".join(chunks).partition(b"\r\n\r\n")
    return head.decode(), payload


def test_fake_api_plays_reads_then_text_and_records_everything():
    api = FakeMessagesApi(["/p/a.ts", "/p/b.ts"]).start()
    try:
        main_loop = {"model": "m", "stream": True, "tools": [{"name": "Read"}, {"name": "Skill"}], "messages": []}
        head, payload = _post(api.port, main_loop)
        assert "text/event-stream" in head and b'"partial_json": "{\\"file_path\\": \\"/p/a.ts\\"}"' in payload
        head, payload = _post(api.port, {"model": "m", "messages": []})  # side request: no tools
        assert json.loads(payload)["content"][0]["type"] == "text"
        head, payload = _post(api.port, dict(main_loop, stream=False))
        assert json.loads(payload)["content"][0]["input"] == {"file_path": "/p/b.ts"}
        head, payload = _post(api.port, dict(main_loop, stream=False))
        assert json.loads(payload)["content"][0]["type"] == "text"  # the script ran out
        assert api.base_url.startswith("http://127.0.0.1:")
    finally:
        api.stop()
    assert [r["n"] for r in api.requests] == [1, 2, 3, 4]
    assert api.requests[0]["body"]["tools"][0]["name"] == "Read"


def test_clean_settings_removes_every_risky_key(tmp_path):
    original = write(tmp_path / "settings.json", json.dumps({
        "env": {"A": "1"}, "hooks": {}, "apiKeyHelper": "x", "statusLine": {}, "awsAuthRefresh": "x",
        "otelHeadersHelper": "x", "permissions": {"deny": ["Skill(a)"]}, "skillOverrides": {"b": "off"}}))
    cleaned = clean_settings(original, tmp_path / "copy.json", "user")
    data = json.loads((tmp_path / "copy.json").read_text())
    assert data == {"permissions": {"deny": ["Skill(a)"]}, "skillOverrides": {"b": "off"}}
    assert set(cleaned.removed) == {"env", "hooks", "apiKeyHelper", "statusLine", "awsAuthRefresh", "otelHeadersHelper"}
    assert "removed" in cleaned.describe() and "hooks" in cleaned.describe()
    # a file no JSON reader takes but that names a risky key: the CLI gets an empty object, and the report says so
    broken = write(tmp_path / "broken.json", '{"hooks": {"SessionStart": [], }, // comment\n}')
    cleaned = clean_settings(broken, tmp_path / "broken-copy.json", "project")
    assert cleaned.unreadable and json.loads((tmp_path / "broken-copy.json").read_text()) == {}
    plain_broken = write(tmp_path / "plain.json", "{not json")
    cleaned = clean_settings(plain_broken, tmp_path / "plain-copy.json", "project")
    assert (tmp_path / "plain-copy.json").read_text() == "{not json" and not cleaned.removed


def test_sandboxed_process_sees_only_the_clean_environment(tmp_path):
    """The CLI's whole environment: a loopback base URL, a fake key, every proxy at a port nobody listens on."""
    box = build_sandbox(tmp_path / "box", config_home=tmp_path / "nohome", cwd=tmp_path, managed_root=None,
                        hide_default_managed=False)
    probe = write(tmp_path / "probe.py", textwrap.dedent("""
        import json, os, socket, sys, urllib.parse, urllib.request
        out = {"env": dict(os.environ)}
        proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
        try:
            socket.create_connection((proxy.hostname, proxy.port), timeout=3).close(); out["proxy"] = "connected"
        except ConnectionRefusedError:
            out["proxy"] = "refused"
        base = os.environ["ANTHROPIC_BASE_URL"]
        try:
            urllib.request.urlopen(base + "/v1/models", timeout=5)
        except urllib.error.HTTPError as error:
            out["base"] = error.code
        json.dump(out, open(sys.argv[1], "w"))
    """))
    env = clean_environment(box, [sys.executable, str(probe)])
    spec = {"argv": [sys.executable, str(probe), str(tmp_path / "out.json")], "cwd": str(tmp_path), "env": env,
            "read_paths": [], "timeout": 60, "network_namespace": False, "mount_namespace": False, "read_only": [],
            "overlays": [], "managed_copy": None, "scratch": str(box.root)}
    result = verify_child.run(spec)
    seen = json.loads((tmp_path / "out.json").read_text())
    assert result["cli_exit"] == 0 and result["requests"][0]["path"] == "/v1/models"
    assert seen["proxy"] == "refused" and seen["base"] == 404
    allowed = set(env) | set(PROXY_VARIABLES) | {"ANTHROPIC_BASE_URL", "NO_PROXY", "no_proxy"}
    assert set(seen["env"]) - {"PWD", "SHLVL", "_", "LC_CTYPE"} <= allowed
    assert seen["env"]["ANTHROPIC_API_KEY"] == FAKE_API_KEY
    assert seen["env"]["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert seen["env"]["HOME"] == str(box.home) and seen["env"]["CLAUDE_CONFIG_DIR"] == str(box.config_dir)
    for name in PROXY_VARIABLES:
        assert seen["env"][name] == seen["env"]["HTTPS_PROXY"]
    assert not any(k in seen["env"] for k in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "PYTHONPATH"))


def _fake_claude(tmp_path: Path, marker: Path) -> Path:
    """A stand-in `claude`: answers --version like 2.1.332, leaves a marker if it is ever run for real."""
    script = write(tmp_path / "fake-claude", f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo '2.1.332 (Claude Code)'; "
                                            f"exit 0; fi\ntouch {marker}\n")
    script.chmod(0o755)
    return script


def test_refuses_without_namespaces_when_project_settings_run_commands(tmp_path):
    ws = build_hostile_workspace(tmp_path / "ws", tmp_path / "markers")
    ran = tmp_path / "cli-ran"
    before = tree_state(tmp_path / "ws")
    out, err = io.StringIO(), io.StringIO()
    import contextlib
    with contextlib.redirect_stderr(err):
        code = main(["verify", "--claude", str(_fake_claude(tmp_path, ran)), "--no-namespaces", "--home",
                     str(ws["home"]), "--cwd", str(ws["cwd"]), "--plugin-dir", str(ws["plugin_dirs"][0]),
                     "--no-managed", "--read", ws["reads"][0], "--json"], out=out)
    report = json.loads(out.getvalue())
    assert code == 2 and report["status"] == UNSAFE and report["exit_code"] == 2
    assert ".claude/settings.json" in report["reason"] and "mount namespace" in report["reason"]
    assert "verify cannot run" in err.getvalue()
    assert any("private network and mount namespaces" in p for p in report["not_applied"])
    assert any(r.startswith("project settings") and "hooks" in r for r in report["removed_settings"])
    assert not ran.exists() and list((tmp_path / "markers").iterdir()) == []
    assert tree_state(tmp_path / "ws") == before


def test_refuses_a_managed_dir_without_a_mount_namespace(tmp_path):
    """--managed-dir must appear to the CLI as /etc/claude-code: impossible without a private mount namespace."""
    ran = tmp_path / "cli-ran"
    write(tmp_path / "managed" / ".claude" / "skills" / "m" / "SKILL.md", "---\ndescription: m\n---\n")
    (tmp_path / "home").mkdir()
    report = run_verify(VerifyOptions(claude=str(_fake_claude(tmp_path, ran)), home=str(tmp_path / "home"),
                                      cwd=str(tmp_path / "home"), managed_dir=str(tmp_path / "managed"),
                                      use_namespaces=False))
    assert report.status == UNSAFE and report.exit_code == 2
    assert "--managed-dir needs a private mount namespace" in report.reason and not ran.exists()


def test_refuses_without_a_claude(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    err = io.StringIO()
    import contextlib
    with contextlib.redirect_stderr(err):
        code = main(["verify", "--cwd", str(tmp_path), "--home", str(tmp_path)], out=io.StringIO())
    assert code == 2 and "no `claude` on PATH" in err.getvalue()


def test_reduce_requests_reads_listing_and_deltas():
    header = "The following skills are available for use with the Skill tool:"
    first = {"model": "m", "tools": [{"name": "Read"}, {"name": "Skill"}], "messages": [
        {"role": "user", "content": [{"type": "text", "text": f"<system-reminder>\n{header}\n\n- a: A\n</system-reminder>\n"}]}]}
    last = dict(first, messages=first["messages"] + [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content":
            f"1\tx\n\n<system-reminder>\n{header}\n\n- b: B\n</system-reminder>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/y"}}]},
        {"role": "system", "content": "New skills discovered in p/.claude/skills, now available via the Skill tool:\n- c"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "1\ty"}]}])
    capture = reduce_requests([{"body": first}, {"body": {"model": "m", "messages": []}}, {"body": last}])
    assert capture.listing.placement == "system-reminder" and "- a: A" in capture.listing.text
    assert [s.path for s in capture.steps] == ["/x", "/y"]
    assert capture.steps[0].placement == "tool_result" and capture.steps[0].blocks == [f"{header}\n\n- b: B"]
    assert capture.steps[1].placement == "system" and capture.steps[1].blocks[0].startswith("New skills discovered")


# --- the real CLIs -----------------------------------------------------------------------------------------

def _fixture_options(work: Path, profile: str, reads: list[str], cwd: str = "home/proj") -> VerifyOptions:
    managed = work / "managed" / "claude-code"
    return VerifyOptions(claude=str(cli_for(profile)), reads=reads, home=str(work / "home"), cwd=str(work / cwd),
                         managed_dir=str(managed) if managed.is_dir() else None, no_managed=not managed.is_dir(),
                         add_dirs=[str(work / "extra")] if (work / "extra").is_dir() else [],
                         plugin_dirs=[str(work / "plugin")] if (work / "plugin").is_dir() else [], timeout=120)


def _build(script: Path, root: Path, **env: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    subprocess.run([sys.executable, str(script), str(root)], check=True, capture_output=True,
                   env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", ORACLE_WORK=str(root),
                            **env))
    return root


def _reads(work: Path) -> list[str]:
    steps = json.loads((work / "steps.json").read_text(encoding="utf-8"))
    return [s["input"]["file_path"] for s in steps if s["name"] == "Read"]


@pytest.fixture(scope="module")
def base_work(tmp_path_factory) -> Path:
    if not (ORACLE / "build_fixture.py").exists():
        missing(f"the oracle fixture builder is missing ({ORACLE / 'build_fixture.py'})")
    return build_fixture(ORACLE / "build_fixture.py", tmp_path_factory.mktemp("verify-base").resolve())


@pytest.mark.oracle
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_base_fixture_matches_through_the_cli(base_work, profile, tmp_path):
    """The shared oracle fixture (every source kind, a managed dir, --add-dir, --plugin-dir, a nested package,
    a gitignored one) through `skillmanager verify --json`: exit 0, every section matches."""
    namespaces_or_skip()
    options = _fixture_options(base_work, profile, _reads(base_work))
    out = io.StringIO()
    args = ["verify", "--json", "--claude", options.claude, "--home", options.home, "--cwd", options.cwd,
            "--managed-dir", options.managed_dir, "--add-dir", options.add_dirs[0], "--plugin-dir",
            options.plugin_dirs[0]] + [a for r in options.reads for a in ("--read", r)]
    before = tree_state(base_work)
    code = main(args, out=out)
    report = json.loads(out.getvalue())
    assert code == 0, "\n".join(report.get("sections") and [json.dumps(s) for s in report["sections"]] or [report["reason"]])
    assert report["version"] == VERSIONS[profile] and report["profile"] == profile
    titles = {s["title"]: s for s in report["sections"]}
    assert titles["start-up listing"]["status"] == "matches" and int(titles["start-up listing"]["detail"].split()[0]) > 20
    assert "listing entr" in titles["Read packages/api/src/x.ts"]["detail"]  # the nested package was announced
    assert titles["Read packages/ignored/y.ts"]["detail"] == "nothing new"  # the gitignored one was not
    assert any("managed copy over /etc/claude-code" in p for p in report["protections"])
    assert tree_state(base_work) == before


@pytest.mark.oracle
@pytest.mark.parametrize("scenario, cwd", [("deep-cwd", "home/outer/repo/a/b"), ("marketplace-plugin", "home/proj"),
                                           ("sim-two-levels", "home/proj"), ("sim-user-paths", "home/proj"),
                                           ("sim-subdir-cwd", "home/proj/sub"), ("overrides-precedence", "home/proj")])
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_oracle_fixtures_match(scenario, cwd, profile, tmp_path):
    namespaces_or_skip()
    work = _build(FIXTURES / f"{scenario}.py", tmp_path / "w")
    report = run_verify(_fixture_options(work, profile, _reads(work), cwd))
    assert report.status == MATCHES, "\n".join(report.lines())
    assert report.sections[0].title == "start-up listing"


@pytest.mark.oracle
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_corpus_workspace_matches(profile, tmp_path):
    """69 real corpus skills: user, project, `paths:` (activated by a Read), a nested package (discovered by a
    Read), commands and a plugin; legacy's listing is over its budget, so its cut level is compared too."""
    namespaces_or_skip()
    if not CORPUS.is_dir():
        missing(f"the corpus is missing ({CORPUS})")
    ws = build_corpus_workspace(tmp_path / "ws")
    before = tree_state(tmp_path / "ws")
    report = run_verify(VerifyOptions(claude=str(cli_for(profile)), reads=ws["reads"], home=str(ws["home"]),
                                      cwd=str(ws["cwd"]), plugin_dirs=[str(p) for p in ws["plugin_dirs"]],
                                      no_managed=True, timeout=120))
    assert report.status == MATCHES, "\n".join(report.lines())
    details = [s.detail for s in report.sections]
    assert int(details[0].split()[0]) >= 60
    if profile == "legacy":
        listing = io.StringIO()
        main(["listing", "--json", "--profile", profile, "--home", str(ws["home"]), "--cwd", str(ws["cwd"]),
              "--plugin-dir", str(ws["plugin_dirs"][0]), "--no-managed"], out=listing)
        assert json.loads(listing.getvalue())["totals"]["level"] == "truncated"
    assert "listing entr" in details[1] and "listing entr" in details[2]  # discovery, then `paths:` activation
    assert tree_state(tmp_path / "ws") == before


@pytest.mark.oracle
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_detects_an_injected_engine_mismatch(base_work, profile):
    """The same run, with the engine's per-entry cap lowered: verify reports differing lines naming the feature."""
    namespaces_or_skip()

    def smaller_cap(registry):
        registry.profile = dataclasses.replace(registry.profile, per_entry_cap=40)
        return registry

    report = run_verify(_fixture_options(base_work, profile, _reads(base_work)), adjust_registry=smaller_cap)
    assert report.status == DIFFERS and report.exit_code == 1
    listing = report.sections[0]
    assert listing.status == "differs"
    texts = [d for d in listing.differences if d.what.startswith("entry ") and d.engine and d.claude]
    assert texts and all(len(d.engine) < len(d.claude) for d in texts)
    assert all(any(f.startswith("per_entry_cap=40") for f in d.features) for d in texts)
    assert "result: differs" in report.lines()[-1]


@pytest.mark.oracle
def test_without_namespaces_it_says_so_and_keeps_traffic_on_loopback(base_work):
    """Where the OS gives no namespace verify still runs a workspace whose settings carry no risky key, says which
    protections it lacks, and the CLI's environment leaves it only loopback: the base URL, and proxies at a
    port nobody listens on."""
    report = run_verify(dataclasses.replace(_fixture_options(base_work, "current", _reads(base_work)),
                                            managed_dir=None, no_managed=False, use_namespaces=False))
    assert report.status == MATCHES, "\n".join(report.lines())
    assert any(p.startswith("private network and mount namespaces: private namespaces were turned off")
               for p in report.not_applied)
    assert "read-only project: needs a mount namespace" in report.not_applied
    assert not any("private network namespace" in p or p.startswith("read-only") for p in report.protections)
    env = report.environment
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    proxy_ports = {env[name].rsplit(":", 1)[1] for name in PROXY_VARIABLES}
    assert len(proxy_ports) == 1 and all(env[name].startswith("http://127.0.0.1:") for name in PROXY_VARIABLES)
    assert proxy_ports != {env["ANTHROPIC_BASE_URL"].rsplit(":", 1)[1]}
    assert "ANTHROPIC_API_KEY" not in env and env["HOME"] != str(base_work / "home")


@pytest.mark.oracle
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_without_namespaces_flags_and_copies_still_run_nothing(profile, tmp_path):
    """No namespace: the project's own settings files are gone (verify would refuse them), everything else of the
    hostile workspace stays: plugin hooks and MCP server, the live config's and the project's MCP servers, the
    user settings' env, hooks and helpers. The copies, `--settings {disableAllHooks}` and `--strict-mcp-config`
    alone keep every marker away, and no byte of the workspace changes."""
    markers = tmp_path / "markers"
    ws = build_hostile_workspace(tmp_path / "ws", markers)
    for name in ("settings.json", "settings.local.json"):
        (ws["cwd"] / ".claude" / name).unlink()
    before = tree_state(tmp_path / "ws")
    report = run_verify(VerifyOptions(claude=str(cli_for(profile)), reads=ws["reads"], home=str(ws["home"]),
                                      cwd=str(ws["cwd"]), plugin_dirs=[str(p) for p in ws["plugin_dirs"]],
                                      no_managed=True, use_namespaces=False, timeout=120))
    assert report.status == MATCHES, "\n".join(report.lines())
    assert any(r.startswith("user settings") and "hooks" in r for r in report.removed_settings)
    assert sorted(markers.iterdir()) == []
    assert tree_state(tmp_path / "ws") == before


def _control_run(ws: dict, profile: str, scratch: Path, markers: Path) -> list[str]:
    """The hostile workspace under the real CLI WITHOUT verify's copies, cleaning or flags (still in a private
    network namespace, with the fake API): the markers it leaves show the workspace is live."""
    scratch.mkdir()
    command = [str(cli_for(profile))] if profile == "current" else ["node", str(cli_for(profile))]
    spec = {"argv": [*command, "-p", "hello", "--max-turns", "4", "--plugin-dir", str(ws["plugin_dirs"][0])],
            "cwd": str(ws["cwd"]), "env": {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(ws["home"]),
                                           "ANTHROPIC_API_KEY": "sk-ant-fake", "TERM": "dumb"},
            "read_paths": ws["reads"], "timeout": 25, "network_namespace": True, "mount_namespace": False,
            "read_only": [], "overlays": [], "managed_copy": None, "scratch": str(scratch),
            "result": str(scratch / "result.json")}
    (scratch / "spec.json").write_text(json.dumps(spec))
    namespaces = probe_namespaces()
    subprocess.run([*namespaces.prefix, sys.executable, "-m", "skillmanager.core.verify.child", str(scratch / "spec.json")],
                   check=True, capture_output=True, timeout=150,
                   env={"PATH": os.environ["PATH"], "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    return sorted(p.name for p in markers.iterdir())


@pytest.mark.oracle
@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_verify_runs_nothing_from_the_workspace(profile, tmp_path):
    """The safety test. Settings `env` (BASH_ENV, NODE_OPTIONS, a base-URL and proxy redirect), hooks in user,
    project, local, managed and plugin config, MCP servers in the live ~/.claude.json, the project and the
    plugin, `apiKeyHelper`, `awsAuthRefresh`, `otelHeadersHelper`, `statusLine`: each would write a marker.
    After verify: no marker, every byte under the workspace (home, project, plugin, managed dir) unchanged, the
    CLI's traffic all reached the fake API (the redirect in `env` was not applied), and the CLI ran in a
    network namespace whose only interface is loopback. The control run shows the markers do appear when the
    same CLI reads the same workspace unprotected."""
    namespaces_or_skip()
    markers = tmp_path / "markers"
    ws = build_hostile_workspace(tmp_path / "ws", markers)
    before = tree_state(tmp_path / "ws")
    report = run_verify(VerifyOptions(claude=str(cli_for(profile)), reads=ws["reads"], home=str(ws["home"]),
                                      cwd=str(ws["cwd"]), plugin_dirs=[str(p) for p in ws["plugin_dirs"]],
                                      managed_dir=str(ws["managed"]), timeout=120))
    assert report.status == MATCHES, "\n".join(report.lines())
    assert sorted(markers.iterdir()) == []
    assert tree_state(tmp_path / "ws") == before
    assert "private network namespace: the only interface is loopback" in report.protections
    assert any(p.startswith("read-only ") and p.endswith(str(ws["cwd"])) for p in report.protections)
    assert any(p.startswith("cleaned copy over ") and p.endswith("settings.local.json") for p in report.protections)
    for scope in ("user", "project", "local", "managed"):
        line = next(r for r in report.removed_settings if r.startswith(f"{scope} settings"))
        for key in ("env", "hooks", "apiKeyHelper", "awsAuthRefresh", "otelHeadersHelper", "statusLine"):
            assert key in line and key in RISKY_SETTINGS_KEYS
    listing = report.sections[0]
    assert listing.status == "matches" and report.sections[1].detail != "nothing new"
    # control: the same workspace, the same CLI, without verify's protections
    left = _control_run(ws, profile, tmp_path / "control", markers)
    expected = {f"hook-{scope}-SessionStart" for scope in ("user", "project", "local", "plugin")} | \
        {"mcp-project", "mcp-plugin", "mcp-live-config", "apikey-local"}
    assert expected <= set(left), left


def test_compare_reads_accepts_a_late_delivery_and_reports_a_real_difference():
    from types import SimpleNamespace

    from skillmanager.core.verify.capture import CapturedStep
    from skillmanager.core.verify.compare import ListingComparer, compare_reads
    from skillmanager.core.versions.profiles import get_profile

    header = "The following skills are available for use with the Skill tool:"

    def predicted(*entries):
        if not entries:
            return SimpleNamespace(model_text="", placement=None, messages=[])
        text = f"\n\n<system-reminder>\n{header}\n\n" + "\n".join(entries) + "\n</system-reminder>"
        return SimpleNamespace(model_text=text, placement="tool_result", messages=[])

    def captured(*entries):
        blocks = [f"{header}\n\n" + "\n".join(entries)] if entries else []
        return CapturedStep("/f", "tool_result" if entries else None, blocks)

    profile = get_profile("legacy")
    comparer = ListingComparer(SimpleNamespace(skills=[]), profile, True)
    late = compare_reads(["Read a", "Read b"], [predicted("- a: A"), predicted("- b: B")],
                         [captured(), captured("- b: B", "- a: A")], comparer)
    assert [s.status for s in late] == ["late", "matches"]
    wrong = compare_reads(["Read a"], [predicted("- a: A")], [captured("- a: A changed")], comparer)
    assert wrong[0].status == "differs"
    difference = wrong[0].differences[0]
    assert (difference.engine, difference.claude) == ("- a: A", "- a: A changed")
    assert "per_entry_cap=250" in difference.features  # one text is the other with more: a cap or the budget
    missing = compare_reads(["Read a", "Read b"], [predicted("- a: A"), predicted()], [captured("- a: A")], comparer)
    assert missing[1].status == "differs" and "never made this Read" in missing[1].differences[0].what


@pytest.mark.oracle
def test_user_namespace_mode_applies_every_protection(base_work, monkeypatch):
    """What a non-root user gets (`unshare -r -m -n`): the same protections, the mounts made inside a user
    namespace (where a mount's nosuid/nodev flags are locked and must be kept on the read-only remount)."""
    namespaces_or_skip()
    import shutil

    from skillmanager.core.verify import runner, sandbox

    if subprocess.run(["unshare", "-r", "-m", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("user namespaces are not permitted here")
    monkeypatch.setattr(runner, "probe_namespaces", lambda enabled=True: sandbox.Namespaces(
        [shutil.which("unshare"), "-r", "-m", "-n", "--"], True, True))
    before = tree_state(base_work)
    report = run_verify(_fixture_options(base_work, "current", _reads(base_work)))
    assert report.status == MATCHES, "\n".join(report.lines())
    assert "private network namespace: the only interface is loopback" in report.protections
    assert "managed copy over /etc/claude-code" in report.protections
    assert any(p == f"read-only {base_work / 'home' / 'proj'}" for p in report.protections)
    assert tree_state(base_work) == before


def test_the_cli_entry_runs_the_sandboxed_half(tmp_path):
    """`skillmanager __verify-child SPEC` (how the frozen app starts the part that runs in the namespaces)."""
    spec = {"argv": [sys.executable, "-c", "import os; print(os.environ['ANTHROPIC_BASE_URL'])"], "cwd": str(tmp_path),
            "env": {"PATH": "/usr/bin:/bin"}, "read_paths": [], "timeout": 30, "network_namespace": False,
            "mount_namespace": False, "read_only": [], "overlays": [], "managed_copy": None, "scratch": str(tmp_path),
            "result": str(tmp_path / "result.json")}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    assert main(["__verify-child", str(tmp_path / "spec.json")]) == 0
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["cli_exit"] == 0 and result["stdout_tail"].startswith("http://127.0.0.1:")
