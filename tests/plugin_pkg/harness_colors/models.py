"""A test model of the test plugin: answers like the oracle, logs every call, can be slowed down."""

from __future__ import annotations

import os
import time

from harness.api import Capabilities, Model, Response


class CountingModel(Model):
    """Appends one line per generated request to `log` (a file path), sleeps `delay` s per request.

    Every `wrong_every`-th doc (by a hash of its id) gets a wrong answer, so metrics are not trivially 1.
    Answers stream: `generate_iter` yields each as soon as it is made (a kill loses only the one in
    flight). `bad_unicode=1` appends a lone surrogate (invalid Unicode, as a JSON server may send) to
    every reply. `down=1` makes every call fail as a server that is down would (ConnectionError).
    """

    name = "counting"
    uses_hints = True
    capabilities = Capabilities(video=True, multi_video=True, images=True)

    def __init__(
        self,
        log: str = "",
        delay: float = 0.0,
        wrong_every: int = 0,
        max_frames: int = 0,
        down: int = 0,
        bad_unicode: int = 0,
        **kw,
    ):
        super().__init__(log=log, delay=delay, wrong_every=wrong_every, **kw)
        if int(bad_unicode):
            self.model_args["bad_unicode"] = 1
        self.bad_unicode = bool(int(bad_unicode))
        if max_frames:
            self.model_args["max_frames"] = max_frames
            self.capabilities = Capabilities(
                video=True, multi_video=True, images=True, max_frames=int(max_frames)
            )
        self.log, self.delay, self.wrong_every = log, float(delay), int(wrong_every)
        self.down = int(down)
        if self.down:
            self.model_args["down"] = self.down

    def generate(self, requests):
        return [response for _, response in self.generate_iter(requests)]

    def generate_iter(self, requests):
        if self.down:
            raise ConnectionError("connection refused: http://127.0.0.1:9/v1 (test server down)")
        for index, r in enumerate(requests):
            if self.delay:
                time.sleep(self.delay)
            if self.log:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(
                        f"{os.getpid()} {r.task} {r.doc_id} {len(r.videos()[0].frames) if r.videos() else 0}\n"
                    )
            answer = r.hints.get("oracle_answer", "")
            if self.wrong_every and sum(map(ord, r.doc_id)) % self.wrong_every == 0:
                answer = "purple"
            yield index, Response(text=f"The answer is {answer}." + ("\ud800" if self.bad_unicode else ""))
