"""`oracle`: returns the task's own rendering of the target, so a correct pipeline scores 100 %."""

from __future__ import annotations

from typing import ClassVar

from harness.api import Capabilities, Model, Request, Response


class OracleModel(Model):
    """Answers with the target (text, or text plus structured output such as RLE masks)."""

    name = "oracle"
    uses_hints = True
    accepted_args: ClassVar[tuple[str, ...]] = ()
    capabilities = Capabilities(
        video=True,
        multi_video=True,
        images=True,
        max_frames=1,
        structured_outputs=frozenset({"masks", "boxes"}),
    )

    def generate(self, requests: list[Request]) -> list[Response]:
        out = []
        for r in requests:
            answer = r.hints.get("oracle_answer", "")
            if isinstance(answer, dict):
                out.append(Response(text=answer.get("text", ""), structured=answer.get("structured")))
            else:
                out.append(Response(text=str(answer)))
        return out
