"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted replies, recorded requests.

openai 3.x talks HTTPX2, which respx cannot intercept, so tests talk to this server over loopback instead.
It implements `POST /v1/chat/completions` (plain and `stream=True` as server-sent events) and `GET /v1/models`.

    # tests/ is on sys.path under pytest
    from llm_server import LLMServer, invalid_json, reject_response_format, reply_json, sleep

    with LLMServer() as server:                       # a thread on 127.0.0.1:<free port>
        server.script(reply_json({"answer": 42}))     # replies are used in order, one per request...
        server.default = reply_json({"answer": 0})    # ...then the default (an error if None)
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)
        ...
        server.requests[-1].json["messages"]          # what the client sent
        server.requests[-1].headers["authorization"]  # "Bearer test-key"

Behaviours are functions `(RecordedRequest) -> Reply`; build your own or use the factories below:
`reply_json(obj)` / `reply_text(text)` (message content), `status(code, message)` (an API error),
`reject_response_format(then)` (400 when the request carries response_format, else `then`), `sleep(seconds,
then)` (reply late, to trip the client's timeout; cut short when the server closes), `invalid_json()`.
`LLMServer(reject_response_format=True)` makes every request with response_format fail with 400 regardless of
the script, as servers without structured output do.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    json: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.json.get("messages", []))

    def text(self) -> str:
        """All message contents joined: what to search for a prompt's wording."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


@dataclass
class Reply:
    status: int = 200
    content: str | None = None              # the assistant message content (status 200)
    error: dict[str, Any] | None = None     # the error body (status >= 400)
    delay: float = 0.0                      # seconds to wait before answering
    extra: dict[str, Any] = field(default_factory=dict)  # merged into the completion object


Behaviour = Callable[[RecordedRequest], Reply]


def reply_text(text: str, delay: float = 0.0) -> Behaviour:
    return lambda request: Reply(content=text, delay=delay)


def reply_json(obj: Any, delay: float = 0.0) -> Behaviour:
    return reply_text(json.dumps(obj, ensure_ascii=False), delay)


def status(code: int, message: str = "scripted error", type_: str = "invalid_request_error") -> Behaviour:
    return lambda request: Reply(code, error={"error": {"message": message, "type": type_, "code": None}})


def invalid_json() -> Behaviour:
    return reply_text('{"star": {"situation": "unterminated')


def reject_response_format(then: Behaviour | None = None) -> Behaviour:
    """400 if the request asks for response_format (like servers without structured output), else `then`."""
    def behave(request: RecordedRequest) -> Reply:
        if "response_format" in request.json or then is None:
            return Reply(400, error={"error": {"message": "response_format is not supported",
                                               "type": "invalid_request_error", "param": "response_format",
                                               "code": None}})
        return then(request)
    return behave


def sleep(seconds: float, then: Behaviour | None = None) -> Behaviour:
    def behave(request: RecordedRequest) -> Reply:
        reply = (then or reply_text("{}"))(request)
        reply.delay = seconds
        return reply
    return behave


class LLMServer:
    """See the module docstring. Thread-safe: handlers run in their own threads."""

    def __init__(self, *, reject_response_format: bool = False, model: str = "test-model") -> None:
        self.reject_response_format = reject_response_format
        self.model = model
        self.default: Behaviour | None = None
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._httpd.daemon_threads = True
        # A short poll interval so close() returns at once (shutdown waits for the next poll).
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), name="llm-server", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *behaviours: Behaviour) -> LLMServer:
        with self._lock:
            self._queue.extend(behaviours)
        return self

    def start(self) -> LLMServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes sleeping handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- used by the handler ---------------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> Behaviour | None:
        with self._lock:
            self.requests.append(request)
            if self.reject_response_format and "response_format" in request.json:
                return reject_response_format()
            return self._queue.popleft() if self._queue else self.default

    def _wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; False when the server closed meanwhile."""
        return not self._closing.wait(seconds)


def _handler_class(server: LLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                models = [{"id": server.model, "object": "model", "owned_by": "test"}]
                self._send(200, {"object": "list", "data": models})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            request = RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                server._record(request)
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            behaviour = server._record(request)
            if behaviour is None:
                self._send(500, {"error": {"message": "LLMServer: no scripted reply left", "type": "server_error"}})
                return
            reply = behaviour(request)
            if reply.delay and not server._wait(reply.delay):
                return
            if reply.status >= 400:
                self._send(reply.status, reply.error or {"error": {"message": "error", "type": "server_error"}})
            elif body.get("stream"):
                self._stream(reply, body)
            else:
                self._send(200, _completion(reply, body, server.model))

        def _send(self, code: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            try:
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to tell it

        def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
            base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body.get("model", server.model)}
            text = reply.content or ""
            pieces = [text[i:i + 16] for i in range(0, len(text), 16)] or [""]
            def chunk(delta: dict[str, str], finish: str | None = None) -> dict[str, Any]:
                return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

            chunks = [chunk({"role": "assistant", "content": ""}), *(chunk({"content": p}) for p in pieces)]
            chunks.append(chunk({}, "stop"))
            try:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for c in chunks:
                    self.wfile.write(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

    return Handler


def _completion(reply: Reply, body: dict[str, Any], model: str) -> dict[str, Any]:
    content = reply.content or ""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", model),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": len(content.split()), "total_tokens": len(content.split())},
        **reply.extra,
    }
