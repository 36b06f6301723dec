"""The part of `verify` that runs inside the private namespaces (or plainly, when there are none).

`python -m skillmanager.core.verify.child SPEC.json` (the frozen app: `skillmanager __verify-child SPEC.json`):
brings up loopback, applies the read-only and bind mounts, starts the fake API, holds a closed local port
for the proxy variables, runs the CLI under its clean environment with a time limit, and writes what it
recorded (and which protections took effect) to the spec's `result` path.
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .fake_api import LOOPBACK, FakeMessagesApi
from .sandbox import PROXY_VARIABLES

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def interfaces() -> list[str]:
    return sorted(name for _, name in socket.if_nameindex())


def _mount(*args: str) -> str | None:
    """None on success, else the error text."""
    proc = subprocess.run(["mount", *args], capture_output=True, text=True)
    return None if proc.returncode == 0 else (proc.stderr.strip() or f"mount exited {proc.returncode}")


def _remount_read_only(target: str) -> str | None:
    """In a user namespace the flags a mount already has (nosuid, nodev, noexec) are locked: keep them."""
    error = None
    for extra in ("", ",nosuid,nodev", ",nosuid,nodev,noexec"):
        error = _mount("-o", "remount,bind,ro" + extra, target)
        if error is None:
            return None
    return error


def read_only(path: str) -> str | None:
    return _mount("--rbind", path, path) or _remount_read_only(path)


def bind_read_only(source: str, target: str) -> str | None:
    return _mount("--bind", source, target) or _remount_read_only(target)


def managed_over_etc(copy: str, scratch: str) -> str | None:
    """Show `copy` as /etc/claude-code in this mount namespace only."""
    if os.path.isdir("/etc/claude-code"):
        return bind_read_only(copy, "/etc/claude-code")
    etc_copy = os.path.join(scratch, "etc-copy")  # no mount point yet: a copy of /etc that has one
    os.makedirs(etc_copy, exist_ok=True)
    proc = subprocess.run(["cp", "-a", "/etc/.", etc_copy], capture_output=True, text=True)
    if proc.returncode != 0 and not os.path.exists(os.path.join(etc_copy, "passwd")):
        return f"cannot copy /etc: {proc.stderr.strip()[:200]}"
    os.makedirs(os.path.join(etc_copy, "claude-code"), exist_ok=True)
    return _mount("--bind", etc_copy, "/etc") or bind_read_only(copy, "/etc/claude-code")


def run(spec: dict[str, Any]) -> dict[str, Any]:
    applied: list[str] = []
    failed: list[str] = []
    if spec["network_namespace"]:
        try:
            loopback_up()
        except OSError as error:
            failed.append(f"loopback: {error}")
        names = interfaces()
        if names == ["lo"]:
            applied.append("private network namespace: the only interface is loopback")
        else:
            failed.append(f"network namespace has interfaces {names}")
    if spec["mount_namespace"]:
        for path in spec["read_only"]:
            problem = read_only(path)
            (failed if problem else applied).append(f"read-only {path}" + (f": {problem}" if problem else ""))
        for source, target in spec["overlays"]:
            problem = bind_read_only(source, target)
            (failed if problem else applied).append(
                f"cleaned copy over {target}" + (f": {problem}" if problem else ""))
        if spec.get("managed_copy"):
            problem = managed_over_etc(spec["managed_copy"], spec["scratch"])
            (failed if problem else applied).append(
                "managed copy over /etc/claude-code" + (f": {problem}" if problem else ""))
    result: dict[str, Any] = {"applied": applied, "failed": failed, "requests": [], "cli_exit": None,
                              "timed_out": False, "stderr_tail": "", "stdout_tail": "", "env": {}}
    if failed and spec.get("stop_on_failure", True):
        return result
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    closed.bind((LOOPBACK, 0))  # bound, never listening: every connection to it is refused
    closed_url = f"http://{LOOPBACK}:{closed.getsockname()[1]}"
    api = FakeMessagesApi(spec["read_paths"], max_requests=spec.get("max_requests", 200)).start()
    env = dict(spec["env"])
    env["ANTHROPIC_BASE_URL"] = api.base_url
    for name in PROXY_VARIABLES:
        env[name] = closed_url
    env["NO_PROXY"] = env["no_proxy"] = f"{LOOPBACK},localhost"
    result["env"] = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
    out_path, err_path = Path(spec["scratch"]) / "cli_stdout.txt", Path(spec["scratch"]) / "cli_stderr.txt"
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, start_new_session=True)
            try:
                result["cli_exit"] = proc.wait(timeout=spec["timeout"])
            except subprocess.TimeoutExpired:
                result["timed_out"] = True
            finally:
                try:  # whatever the CLI left behind in its process group goes too
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                proc.wait()
    except OSError as error:
        result["failed"].append(f"cannot start the CLI: {error}")
    finally:
        time.sleep(0.05)
        api.stop()
        closed.close()
    result["requests"] = api.requests
    for key, path in (("stdout_tail", out_path), ("stderr_tail", err_path)):
        try:
            result[key] = path.read_bytes()[-4000:].decode("utf-8", "replace")
        except OSError:
            pass
    return result


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = run(spec)
    Path(spec["result"]).write_text(json.dumps(result, ensure_ascii=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
