"""`transformers serve` (transformers' own OpenAI-compatible server) with video models treated as VLMs.

transformers 5.x classifies Qwen2-VL, LLaVA-OneVision, InternVL, ... as "multimodal" and then reads an
audio track from every video it is sent (`load_audio_from_video`), which fails for clips without audio
(and needs torchcodec for audio). Everything else (request parsing, video fetching and decoding, the
processor, generation) is the server's own code, unchanged: this launcher only pins that one detection.
Usage: python transformers_serve_vlm.py MODEL_FOLDER --port N [serve options]
"""

import sys

from transformers.cli.serving import model_manager, utils

# the class that detects a model's modality: ModelManager up to transformers 5.24, ModelLoader from 5.25
_OWNER = next(
    cls
    for cls in (getattr(model_manager, "ModelLoader", None), model_manager.ModelManager)
    if cls is not None and hasattr(cls, "get_model_modality")
)
_detect = _OWNER.get_model_modality


def _as_vlm(model, processor=None):
    modality = _detect(model, processor)
    return utils.Modality.VLM if modality == utils.Modality.MULTIMODAL else modality


_OWNER.get_model_modality = staticmethod(_as_vlm)

if __name__ == "__main__":
    from transformers.cli.transformers import main

    sys.argv = ["transformers", "serve", *sys.argv[1:]]
    main()
