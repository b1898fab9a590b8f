"""A chat-completions server on 127.0.0.1 that answers the first `fast` requests at once and holds every later
one (until `close()` or `hold` seconds): a run against it has answers that arrived and requests in flight."""

from __future__ import annotations

import json
import threading

from servers.chat import ChatServer


class HoldingServer(ChatServer):
    """`answered` counts the replies written in full; `held` the requests kept waiting."""

    def __init__(self, fast: int = 6, hold: float = 60.0) -> None:
        self.fast, self.hold = fast, hold
        self.count = self.answered = self.held = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        super().__init__()

    def reply(self, handler, body):
        with self.lock:
            self.count += 1
            slow = self.count > self.fast
            self.held += slow
        if slow:
            self.release.wait(self.hold)
        text = json.dumps(body["messages"])[-60:]
        payload = {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"answer {text}"}}]}
        try:
            self.send(handler, 200, json.dumps(payload).encode())
            handler.wfile.flush()
        except OSError:
            return
        with self.lock:
            self.answered += 1

    def close(self) -> None:
        self.release.set()
        super().close()
