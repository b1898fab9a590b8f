"""A chat-completions server on 127.0.0.1 that answers some requests a byte at a time, forever in effect:
each byte comes well inside any read timeout, so only a total deadline ends the request."""

from __future__ import annotations

import json
import threading
import time

from servers.chat import ChatServer


class TrickleServer(ChatServer):
    """Every `every`-th request (1-based) is answered one byte per `gap` seconds, with a body of `size` bytes;
    the others at once. `trickled` counts the requests it trickled."""

    def __init__(self, every: int = 3, gap: float = 0.05, size: int = 100_000) -> None:
        self.every, self.gap, self.size = every, gap, size
        self.count = self.trickled = 0
        self.lock = threading.Lock()
        super().__init__()

    def reply(self, handler, body):
        with self.lock:
            self.count += 1
            slow = self.count % self.every == 0
            self.trickled += slow
        content = "A" * (self.size if slow else 1)
        payload = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        )
        if not slow:
            return self.send(handler, 200, payload.encode())
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        try:
            for byte in payload.encode():
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(self.gap)
        except OSError:  # the client hung up (its deadline): done
            return
