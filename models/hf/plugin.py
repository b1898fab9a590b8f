"""Registers the `hf` adapter and its presets by "module:Class" strings, so nothing heavy imports here."""

from __future__ import annotations

from harness.hookspecs import hookimpl

_PRESETS = {
    "llava_video_7b": (
        "LlavaVideo7B",
        "LLaVA-Video-7B-Qwen2 (HF format), 80 frames as in CycliST, with its time instruction",
    ),
    "llava_video_72b": (
        "LlavaVideo72B",
        "LLaVA-Video-72B-Qwen2 (needs pretrained=converted folder), 80 frames",
    ),
    "llava_onevision_7b": ("LlavaOnevision7B", "LLaVA-OneVision-Qwen2-7B-OV, up to 160 frames"),
    "llava_onevision_72b": ("LlavaOnevision72B", "LLaVA-OneVision-Qwen2-72B-OV, up to 160 frames"),
    "llava_next_video_7b": (
        "LlavaNextVideo7B",
        "LLaVA-NeXT-Video-7B, 32 frames (24 fit its 4,096-token context)",
    ),
    "llava_next_video_34b": (
        "LlavaNextVideo34B",
        "LLaVA-NeXT-Video-34B, 32 frames (24 fit its 4,096-token context)",
    ),
    "qwen2_vl_2b": ("Qwen2VL2B", "Qwen2-VL-2B-Instruct, up to 768 frames (476 fit its 32,768-token context)"),
    "qwen2_vl_7b": ("Qwen2VL7B", "Qwen2-VL-7B-Instruct, up to 768 frames (476 fit its 32,768-token context)"),
    "qwen2_vl_72b": (
        "Qwen2VL72B",
        "Qwen2-VL-72B-Instruct, up to 768 frames (476 fit its 32,768-token context)",
    ),
    "qwen2_5_vl_3b": ("Qwen25VL3B", "Qwen2.5-VL-3B-Instruct, up to 768 frames"),
    "qwen2_5_vl_7b": ("Qwen25VL7B", "Qwen2.5-VL-7B-Instruct, up to 768 frames"),
    "qwen2_5_vl_32b": ("Qwen25VL32B", "Qwen2.5-VL-32B-Instruct, up to 768 frames"),
    "qwen2_5_vl_72b": ("Qwen25VL72B", "Qwen2.5-VL-72B-Instruct, up to 768 frames"),
    "internvl3_8b": ("InternVL3_8B", "InternVL3-8B (transformers-native), 32 frames"),
    "internvl3_38b": ("InternVL3_38B", "InternVL3-38B (transformers-native), 32 frames"),
    "internvl3_78b": ("InternVL3_78B", "InternVL3-78B (transformers-native), 32 frames"),
    "qwen3_vl_8b": ("Qwen3VL8B", "Qwen3-VL-8B-Instruct, up to 768 frames"),
    "qwen3_vl_32b": ("Qwen3VL32B", "Qwen3-VL-32B-Instruct, up to 768 frames"),
    "qwen3_vl_32b_thinking": ("Qwen3VL32BThinking", "Qwen3-VL-32B-Thinking, up to 768 frames"),
}
_REMOTE = {
    "internvideo2_5_8b": (
        "models.hf.internvideo:InternVideo25",
        "InternVideo2.5-Chat-8B (trust_remote_code), 160 frames as in CycliST",
    ),
}


@hookimpl
def register_models(register):
    """Register `hf` and every named preset (lazy references)."""
    register("hf", "models.hf.adapter:HFModel", description="any transformers video/image-text model")
    for name, (cls, description) in _PRESETS.items():
        register(name, f"models.hf.presets:{cls}", description=description)
    for name, (ref, description) in _REMOTE.items():
        register(name, ref, description=description)
