"""A loopback server speaking OpenAI's ``POST /v1/chat/completions`` (for tests and benches).

``FakeOpenAI(reply)`` listens on 127.0.0.1 (a free port); ``reply(messages)`` (the request's
``messages`` list) returns the assistant text. ``calls`` counts the completions served.
Use as a context manager; ``base_url`` is what ``llm.base_url`` takes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAI"]

Reply = Callable[[list[dict[str, Any]]], str]


class FakeOpenAI:
    """A chat-completions endpoint on loopback whose replies come from ``reply``."""

    def __init__(self, reply: Reply, model: str = "gpt-4o-mini") -> None:
        self.reply = reply
        self.model = model
        self.calls = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                text = outer.reply(list(body.get("messages", [])))
                with outer._lock:
                    outer.calls += 1
                words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
                self._send(200, {
                    "id": f"chatcmpl-fake{outer.calls}",
                    "object": "chat.completion",
                    "created": 1741569952,
                    "model": outer.model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": words, "completion_tokens": len(text.split()),
                              "total_tokens": words + len(text.split())},
                })

            def _send(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
