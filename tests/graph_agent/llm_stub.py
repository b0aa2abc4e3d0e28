"""A loopback OpenAI-compatible chat-completions server that replays scripted replies.

The one stand-in the tests allow (DESIGN §8): the external LLM. It is a real HTTP server on
127.0.0.1 and a free port, so the real ``openai`` client (httpx2 underneath; respx cannot
intercept it) talks to it as it would to any endpoint. ``POST /v1/chat/completions`` pops the
next scripted reply; a reply may be a function of the request, which lets a scripted model
"obey" whatever a tool result told it (prompt injection). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any]
Script = list[Reply | Callable[[dict[str, Any]], Reply]]


def call(name: str, **arguments: Any) -> Reply:
    """A reply with one tool call."""
    return calls((name, arguments))


def calls(*named: tuple[str, dict[str, Any]]) -> Reply:
    """A reply with several tool calls (name, arguments) in one assistant message."""
    return {
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for i, (name, arguments) in enumerate(named)
        ]
    }


def text(content: str) -> Reply:
    """A plain assistant message (no tool call): the planner stops."""
    return {"content": content}


def failure(status: int, message: str = "stub failure") -> Reply:
    """An HTTP error from the endpoint."""
    return {"status": status, "error": message}


def slow(seconds: float, reply: Reply) -> Reply:
    """``reply``, sent after ``seconds`` (to trip the client's timeout)."""
    return {**reply, "delay": seconds}


def tool_results(request: dict[str, Any]) -> list[str]:
    """The contents of the tool messages in a recorded request, oldest first."""
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


class LLMStub:
    """The server; use as a context manager, set :attr:`script`, read :attr:`requests`."""

    def __init__(self) -> None:
        self.script: Script = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def play(self, *replies: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        """Replace the script and forget earlier requests."""
        with self._lock:
            self.script = list(replies)
            self.requests = []

    def __enter__(self) -> LLMStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if not self.script:
                return failure(500, "stub script exhausted")
            reply = self.script.pop(0)
        return reply(request) if callable(reply) else reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = stub._next(request)
                time.sleep(reply.get("delay", 0))
                if "status" in reply:
                    self._send(reply["status"], {"error": {"message": reply["error"]}})
                    return
                self._send(200, _completion(request, reply, len(stub.requests)))

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                return

        return Handler


def _completion(request: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    tool_calls = reply.get("tool_calls")
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-stub-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "stub"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
