"""Facts of the real checkpoints' published non-weight files, kept as test data (one definition of each fact).

Read through the stored hub pages (config.json, processor / preprocessor / video-processor configs,
chat templates, added_tokens.json, generation_config.json) and the authors' inference code. The tiny test
checkpoints (`tests/tiny_mirrors.py`) are built from these facts with only the sizes shrunk, and the tests
check the token budgets (`models/hf/budget.py`) against them. The adapters read none of this: they read the
real checkpoint's own files (the one constant table they need, qwen-vl-utils', is `harness_models.hf.recipes.
QWEN_VL_UTILS`). docs/models.md ("Published files and the tiny mirrors") says per checkpoint which files
were found in the stored pages and which were not.

Nothing here is guessed: a fact whose file was not found is left out (None), and the tiny checkpoint then
keeps the project's own value for it, which docs/models.md names.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- chat templates (verbatim)
# llava-hf/llava-onevision-qwen2-*-hf chat_template.json / processor_config.json (the -si and -ov
# conversions carry the same template): all images first, then all videos, then the texts of a turn.
LLAVA_ONEVISION_CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n'}}"
    "{# Render all images first #}{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>\\n' }}{% endfor %}"
    "{# Render all video then #}{% for content in message['content'] | selectattr('type', 'equalto', 'video') %}"
    "{{ '<video>\\n' }}{% endfor %}"
    "{# Render all text next #}{% if message['role'] != 'assistant' %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}{{ content['text'] }}{% endfor %}"
    "{% else %}{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{% generation %}{{ content['text'] }}{% endgeneration %}{% endfor %}{% endif %}"
    "{{'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

# llava-hf/LLaVA-NeXT-Video-7B-hf processor_config.json: USER:/ASSISTANT: with media first, texts joined by ' '.
LLAVA_NEXT_VIDEO_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] == 'system' %}{{ message['content'][0]['text'] }}"
    "{% else %}{{ message['role'].upper() + ': '}}{% endif %}"
    "{# Render all images first #}{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>\\n' }}{% endfor %}"
    "{# Render all images first #}{% for content in message['content'] | selectattr('type', 'equalto', 'video') %}"
    "{{ '<video>\\n' }}{% endfor %}"
    "{# Render all text next #}{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ content['text'] + ' '}}{% endfor %}{% endfor %}{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)

# Qwen/Qwen2-VL-*-Instruct and Qwen2.5-VL-*-Instruct chat template (tokenizer_config / chat_template.json):
# a default system turn, media in place.
QWEN2_VL_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}Picture {{ image_count.value }}: "
    "{% endif %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# --------------------------------------------------------------------------- special-token ids
QWEN2_BASE_TOKENS = {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}
# llava-hf/llava-onevision-qwen2-72b-ov-chat-hf added_tokens.json (the lmms-lab LLaVA-Video ones carry
# <image> 151646 as well); config.json image_token_index 151646.
LLAVA_ONEVISION_TOKENS = {**QWEN2_BASE_TOKENS, "<image>": 151646, "<video>": 151647}
# Qwen2-VL config.json: vision_start 151652, vision_end 151653, vision_pad 151654, image 151655, video 151656.
QWEN2_VL_TOKENS = {
    **QWEN2_BASE_TOKENS,
    "<|object_ref_start|>": 151646,
    "<|object_ref_end|>": 151647,
    "<|box_start|>": 151648,
    "<|box_end|>": 151649,
    "<|quad_start|>": 151650,
    "<|quad_end|>": 151651,
    "<|vision_start|>": 151652,
    "<|vision_end|>": 151653,
    "<|vision_pad|>": 151654,
    "<|image_pad|>": 151655,
    "<|video_pad|>": 151656,
}
# llava-hf/LLaVA-NeXT-Video-7B-hf config.json: video_token_index 32000, image_token_index 32001,
# text pad_token_id 0, vocab_size 32064 (Llama tokenizer: <unk> 0, <s> 1, </s> 2).
LLAVA_NEXT_VIDEO_TOKENS = {"<unk>": 0, "<s>": 1, "</s>": 2, "<video>": 32000, "<image>": 32001}

# --------------------------------------------------------------------------- per-family architecture facts
QWEN2_VL = {
    "vision": {"patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2},
    "context_length": 32768,
    "vocab_size": 152064,
    "tokens": QWEN2_VL_TOKENS,
    "eos": "<|im_end|>",
    "pad": "<|endoftext|>",
    "mrope_section": [16, 24, 24],
    "generation_config": None,
    "chat_template": QWEN2_VL_CHAT_TEMPLATE,
}
FAMILIES: dict[str, dict] = {
    "llava_onevision": {
        # llava-onevision-qwen2-7b-ov-hf config.json; LLaVA-Video-7B-Qwen2-hf is a conversion of the same arch.
        "vision": {"model_type": "siglip_vision_model", "image_size": 384, "patch_size": 14},
        "vision_feature_select_strategy": "full",
        "vision_feature_layer": -1,
        "vision_aspect_ratio": "anyres_max_9",
        "video_pooling": "bilinear 2x (ceil(patches / 2) per side) + one newline token per video",
        "context_length": 32768,
        "vocab_size": 152128,
        "tokens": LLAVA_ONEVISION_TOKENS,
        "eos": "<|im_end|>",
        "pad": "<|endoftext|>",
        "generation_config": {"bos_token_id": 151643, "eos_token_id": 151645},
        "chat_template": LLAVA_ONEVISION_CHAT_TEMPLATE,
    },
    "llava_next_video": {
        "vision": {"model_type": "clip_vision_model", "image_size": 336, "patch_size": 14},
        "vision_feature_select_strategy": "default",
        "vision_feature_layer": -2,
        "spatial_pool_stride": 2,
        "spatial_pool_mode": "average",
        "video_pooling": "2x2 average pooling of the 24x24 CLIP grid: 144 tokens per frame",
        # text_config.max_position_embeddings 4096; the published config writes "factor": 2.0 and
        # "type": "linear" as loose keys of text_config, not as a rope_scaling dict, so transformers
        # applies no rope scaling: the context the HF checkpoint runs with is 4096.
        "context_length": 4096,
        "text_config_quirk": {"factor": 2.0, "type": "linear"},
        "vocab_size": 32064,
        "tokens": LLAVA_NEXT_VIDEO_TOKENS,
        "eos": "</s>",
        "pad": "<unk>",
        "generation_config": None,
        "chat_template": LLAVA_NEXT_VIDEO_CHAT_TEMPLATE,
    },
    "qwen2_vl": QWEN2_VL,
    "qwen2_5_vl": {
        **QWEN2_VL,  # the same tokens, template and M-RoPE sections; a windowed vision tower, a longer context
        "vision": {**QWEN2_VL["vision"], "window_size": 112},
        # Qwen2.5-VL-7B-Instruct config.json max_position_embeddings 128000 (qwen-vl-utils MODEL_SEQ_LEN).
        "context_length": 128000,
    },
    "internvl": {
        # OpenGVLab/InternVL3-*-hf processor_config.json: image_seq_length 256 (448 px tile, patch 14,
        # pixel shuffle 0.5: (448 / 14)^2 / 4).
        "vision": {"image_size": 448, "patch_size": 14},
        "downsample_ratio": 0.5,
        "image_seq_length": 256,
        "context_length": 32768,  # config.json not stored: Qwen2.5-7B's context (the LLM of InternVL3-8B)
        "tokens": None,  # added_tokens.json listed (811 B) but its content is not stored
        "eos": "<|im_end|>",
        "pad": "<|endoftext|>",
        "generation_config": None,
        "chat_template": None,  # chat_template.jinja listed (481 B) but its content is not stored
    },
}
