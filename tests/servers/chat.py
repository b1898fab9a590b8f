"""A chat-completions endpoint on 127.0.0.1 for the tests and benchmarks of the OpenAI-compatible adapter.

Every POST's JSON body goes to `reply(handler, body)`, which a subclass scripts and answers with `send`; the
server runs on its own thread (an ephemeral port, `url` ending in /v1) until `close()`.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    """The transport of a scripted chat-completions server; subclasses implement `reply`."""

    def __init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as separate writes

            def log_message(self, *args):
                pass

            def do_POST(self):
                server.handle(self, json.loads(self.rfile.read(int(self.headers["Content-Length"]))))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def handle(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        """One request (a subclass may wrap `reply`, e.g. to count requests in flight)."""
        self.reply(handler, body)

    def reply(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        """Answer one request with `send`."""
        raise NotImplementedError

    @staticmethod
    def send(handler: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict | None = None) -> None:
        """One JSON response: status, payload bytes as given, extra headers."""
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(payload)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
