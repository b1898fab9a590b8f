"""LLM judges: any registered model can judge free-form answers; calls are cached like model calls.

Tasks receive a JudgeClient as the third argument of their parse hook (None when no `--judge` is given, or
`--judge rule`: the task's own rule judge)
and call `ask(prompt, template_id=...)`. The results record the judge's identity and a hash of every
judge prompt template used, so runs with different judges or prompts are never compared silently.
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional

from harness.cache.keys import response_key
from harness.cache.responses import ResponseCache
from harness.contract.messages import Message, Request, TextPart
from harness.contract.model import Model

JUDGE_GEN = {"temperature": 0.0, "max_new_tokens": 256}
#: `--judge rule`: each task's own rule-based judge, what a run uses without --judge (no model is called)
RULE_JUDGE = "rule"
RULE_JUDGE_HELP = "each task's own rule-based judge (the default without --judge; no model is called)"


class JudgeClient:
    """A model used as a judge, with a response cache in front."""

    def __init__(self, name: str, model: Model, cache: Optional[ResponseCache] = None):
        self.name = name
        self.model = model
        self.cache = cache
        self.template_hashes: dict[str, str] = {}
        self.calls = 0

    def register_template(self, template_id: str, template_text: str) -> None:
        """Record the hash of a judge prompt template (shown in results)."""
        self.template_hashes[template_id] = hashlib.sha256(template_text.encode()).hexdigest()[:16]

    def ask(
        self, prompt: str, template_id: str = "default", gen_kwargs: Optional[dict[str, Any]] = None
    ) -> str:
        """The judge's reply to `prompt` (temperature 0 unless overridden), from the cache when possible."""
        gen = {**JUDGE_GEN, **(gen_kwargs or {})}
        messages = [Message("user", [TextPart(prompt)])]
        key = response_key(self.model.identity(), gen, messages, None, "judge")
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit["response"]["text"]
        reply = self.model.generate([Request(messages, gen, None, f"judge:{template_id}", "", {})])[0]
        self.calls += 1
        if self.cache is not None:
            self.cache.put_many(
                [(key, {"response": reply.to_json(), "media": []}, f"judge:{self.name}", template_id)]
            )
        return reply.text

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "identity": self.model.identity(),
            "prompt_hashes": dict(sorted(self.template_hashes.items())),
        }
