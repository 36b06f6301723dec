"""A fake Anthropic Messages API on 127.0.0.1: records every request and plays scripted Read calls.

Each main-loop request (its tool list has `Read`) is answered with the next scripted Read as a `tool_use`;
when the script runs out, or for any side request (titles, quotas), the answer is plain text. Replies are
SSE when the request asks for `stream: true`, JSON otherwise. It never connects anywhere itself.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"
FINAL_TEXT = "OK from the skillmanager verify fake server."
MAX_BODY = 64 * 1024 * 1024  # a request body larger than this is not read (the CLI never sends one)


class FakeMessagesApi:
    """Start with `start()`, read `requests` (one dict per request, in arrival order), stop with `stop()`."""

    def __init__(self, read_paths: list[str], *, max_requests: int = 200) -> None:
        self.read_paths = list(read_paths)
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self._next_read = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> "FakeMessagesApi":
        api = self

        class Handler(_Handler):
            owner = api

        self._server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="verify-fake-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def record(self, entry: dict[str, Any]) -> int:
        with self._lock:
            number = len(self.requests) + 1
            entry["n"] = number
            self.requests.append(entry)
            return number

    def reply_for(self, body: dict[str, Any]) -> tuple[str, Any]:
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        with self._lock:
            if "Read" in tools and self._next_read < len(self.read_paths):
                path = self.read_paths[self._next_read]
                self._next_read += 1
                return "tool_use", {"name": "Read", "input": {"file_path": path}}
        return "text", FINAL_TEXT


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owner: FakeMessagesApi

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _json(self, code: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self) -> None:
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "fake server"}})

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.owner.record({"method": "GET", "path": self.path})
        self._not_found()

    def do_HEAD(self) -> None:  # noqa: N802
        self.owner.record({"method": "HEAD", "path": self.path})
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if 0 < length <= MAX_BODY else b""
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            body = None
        n = self.owner.record({"method": "POST", "path": self.path,
                               "body": body if body is not None else raw[:2000].decode("utf-8", "replace")})
        path = self.path.split("?", 1)[0]
        if path.endswith("/v1/messages/count_tokens"):
            return self._json(200, {"input_tokens": 1000})
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            return self._not_found()
        kind, payload = self.owner.reply_for(body)
        self._answer(body, n, kind, payload)

    def _answer(self, body: dict[str, Any], n: int, kind: str, payload: Any) -> None:
        model = body.get("model", "claude-fake")
        message_id = f"msg_verify_{n}"
        usage = {"input_tokens": 100, "output_tokens": 5, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if kind == "tool_use":
            block = {"type": "tool_use", "id": f"toolu_verify_{n}", "name": payload["name"], "input": payload["input"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": payload}
            stop = "end_turn"
        if not body.get("stream"):
            return self._json(200, {"id": message_id, "type": "message", "role": "assistant", "model": model,
                                    "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        if kind == "tool_use":
            events += [("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                           "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                           "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})]
        else:
            events += [("content_block_start", {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "text", "text": ""}}),
                       ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": payload}})]
        events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                   ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 5}}),
                   ("message_stop", {"type": "message_stop"})]
        for event, data in events:
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
