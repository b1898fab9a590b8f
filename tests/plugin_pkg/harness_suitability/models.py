"""A scripted suitability model: "No." for the videos named in `reject`, "Yes." for every other one."""

from __future__ import annotations

from harness.api import Capabilities, Model, Response


class ScriptedSuitability(Model):
    """`reject`: stems to refuse, a list or a '+'-separated string (`reject=vid00+vid03`); every request
    must carry decoded frames, so the model also checks that the builder sent the video."""

    name = "scripted_suitability"
    capabilities = Capabilities(video=True, multi_video=False, images=True)

    def __init__(self, reject: list | str = ()):
        names = reject.split("+") if isinstance(reject, str) else list(reject)
        super().__init__(reject=sorted(n for n in names if n))
        self.reject = set(self.model_args["reject"])

    def generate(self, requests):
        out = []
        for r in requests:
            videos = r.videos()
            if not videos or videos[0].frames is None or videos[0].frames.ndim != 4:
                raise ValueError(f"request '{r.doc_id}' carries no decoded frames")
            out.append(Response(text="No." if r.doc_id in self.reject else "Yes, it is."))
        return out
