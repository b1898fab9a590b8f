"""Tiny, randomly initialised video-language models that mirror the real checkpoints, for offline tests.

Each builder writes a complete checkpoint folder (config, weights, tokenizer, image/video processors, chat
template) that loads back with `from_pretrained` under HF_HUB_OFFLINE=1. Everything the published files say
is kept (`tests/published_facts.py`): special-token ids and vocabulary size, patch sizes, pooling, feature
layers, context length, chat template, generation config. Only sizes are shrunk for speed: hidden sizes and
layer counts, and the image side of the fixed-resolution encoders (LLaVA 56 px instead of 384 / 336,
InternVL 56 px instead of 448, patch size kept, so per-frame token counts shrink by the same rule). Where a
file was not found (InternVL3's tokens and chat template, Qwen3-VL), the project's own value is used and
docs/models.md says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import published_facts as published

_CORPUS_WORDS = (
    "the a an of to in is are was what which how many color colour red green blue yellow gray brown purple cyan "
    "cube sphere cylinder cone rubber metal small large object objects video clip frame frames answer question "
    "yes no one two three four five zero left right before after middle first second third option choice "
    "clockwise counterclockwise orbit rotate move moving change changes describe scene cycle cycles"
).split()

# The project's own template, for checkpoints whose published chat template was not found (InternVL3-hf).
_CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' %}{{ IMAGE }}"
    "{% elif part['type'] == 'video' %}{{ VIDEO }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_LOW_IDS = 1000  # special tokens below this id sit inside the base vocabulary (Llama's <unk>, <s>, </s>)


def _chatml(image: str, video: str) -> str:
    return _CHATML_TEMPLATE.replace("{{ IMAGE }}", image).replace("{{ VIDEO }}", video)


def build_tokenizer(
    special_ids: dict[str, int],
    eos: str,
    pad: str,
    vocab_size: int = 300,
    named_tokens: dict[str, str] | None = None,
):
    """A byte-level BPE tokenizer trained on a small built-in corpus, with special tokens at the given ids.

    The trained pieces take the lowest free ids, unused filler pieces fill the vocabulary up to the first
    high special id, and the high specials follow in id order (gaps filled with `<|unused_N|>`), so every
    special token gets exactly its published id. named_tokens maps attribute names to special tokens
    (`tokenizer.<name>` and `tokenizer.<name>_id`), as some processors (InternVL's) read them there.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    trained = Tokenizer(models.BPE(unk_token=None))
    trained.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    corpus = [" ".join(_CORPUS_WORDS[i:] + _CORPUS_WORDS[:i]) for i in range(len(_CORPUS_WORDS))]
    trained.train_from_iterator(corpus, trainer=trainer)
    state = json.loads(trained.to_str())["model"]
    pieces = [t for t, _ in sorted(state["vocab"].items(), key=lambda kv: kv[1])]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in state["merges"]]
    low = {t: i for t, i in special_ids.items() if i < _LOW_IDS}
    high = sorted(((i, t) for t, i in special_ids.items() if i >= _LOW_IDS))
    vocab = dict(low)
    taken = set(low.values())
    next_id = 0
    for piece in pieces:
        while next_id in taken:
            next_id += 1
        vocab[piece] = next_id
        taken.add(next_id)
        next_id += 1
    top = high[0][0] if high else next_id
    for i in range(top):
        if i not in taken:
            vocab[f"<|unused_{i}|>"] = i
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in low])
    if high:
        by_id = dict(high)
        for i in range(high[0][0], high[-1][0] + 1):
            tok.add_special_tokens(
                [AddedToken(by_id.get(i, f"<|unused_{i}|>"), special=True, normalized=False)]
            )
    extra = {"extra_special_tokens": dict(named_tokens)} if named_tokens else {}
    out = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=eos, pad_token=pad, padding_side="left", **extra
    )
    for token, i in special_ids.items():
        got = out.convert_tokens_to_ids(token)
        if got != i:
            raise AssertionError(f"tiny tokenizer: {token} got id {got}, published {i}")
    return out


def _qwen2_text_config(vocab_size: int, context: int, **extra):
    return dict(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=context,
        tie_word_embeddings=False,
        **extra,
    )


def _fact(family: str) -> dict:
    return published.FAMILIES[family]


def build_llava_onevision(out: str | Path, image_size: int = 56) -> Path:
    """LLaVA-OneVision / LLaVA-Video (SigLIP patch 14 + Qwen2), as llava-hf/llava-onevision-qwen2-7b-ov-hf."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    fact = _fact("llava_onevision")
    out = Path(out)
    tokens = fact["tokens"]
    tokenizer = build_tokenizer(tokens, eos=fact["eos"], pad=fact["pad"])
    patch = fact["vision"]["patch_size"]
    pinpoints = [[image_size, image_size], [image_size, 2 * image_size], [2 * image_size, image_size]]
    config = LlavaOnevisionConfig(
        text_config={"model_type": "qwen2", **_qwen2_text_config(fact["vocab_size"], fact["context_length"])},
        vision_config={
            "model_type": fact["vision"]["model_type"],
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch,
        },
        image_token_index=tokens["<image>"],
        video_token_index=tokens["<video>"],
        vision_feature_select_strategy=fact["vision_feature_select_strategy"],
        vision_feature_layer=fact["vision_feature_layer"],
        image_grid_pinpoints=pinpoints,
        vision_aspect_ratio=fact["vision_aspect_ratio"],
    )
    torch.manual_seed(0)
    model = LlavaOnevisionForConditionalGeneration(config).eval()
    size = {"height": image_size, "width": image_size}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=size, image_grid_pinpoints=pinpoints),
        video_processor=LlavaOnevisionVideoProcessor(size=size),
        tokenizer=tokenizer,
        num_image_tokens=(image_size // patch) ** 2,
        vision_feature_select_strategy=fact["vision_feature_select_strategy"],
        chat_template=fact["chat_template"],
    )
    _save(model, processor, tokenizer, out, fact["generation_config"])
    return out


def build_llava_next_video(out: str | Path, image_size: int = 56) -> Path:
    """LLaVA-NeXT-Video (CLIP patch 14 + Llama, 2x2 average pooling), as llava-hf/LLaVA-NeXT-Video-7B-hf.

    The published text_config's loose `factor`/`type` keys are kept: transformers applies no rope scaling
    from them, so the context stays 4096 as with the real checkpoint."""
    import torch
    from transformers import (
        LlavaNextImageProcessor,
        LlavaNextVideoConfig,
        LlavaNextVideoForConditionalGeneration,
        LlavaNextVideoProcessor,
        LlavaNextVideoVideoProcessor,
    )

    fact = _fact("llava_next_video")
    out = Path(out)
    tokens = fact["tokens"]
    tokenizer = build_tokenizer(tokens, eos=fact["eos"], pad=fact["pad"])
    patch = fact["vision"]["patch_size"]
    pinpoints = [[image_size, image_size], [image_size, 2 * image_size], [2 * image_size, image_size]]
    config = LlavaNextVideoConfig(
        text_config={
            "model_type": "llama",
            "vocab_size": fact["vocab_size"],
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 4,
            "max_position_embeddings": fact["context_length"],
            "pad_token_id": tokens["<unk>"],
            "bos_token_id": tokens["<s>"],
            "eos_token_id": tokens["</s>"],
            **fact["text_config_quirk"],
        },
        vision_config={
            "model_type": fact["vision"]["model_type"],
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch,
            "projection_dim": 32,
        },
        image_token_index=tokens["<image>"],
        video_token_index=tokens["<video>"],
        vision_feature_select_strategy=fact["vision_feature_select_strategy"],
        vision_feature_layer=fact["vision_feature_layer"],
        image_grid_pinpoints=pinpoints,
        spatial_pool_stride=fact["spatial_pool_stride"],
        spatial_pool_mode=fact["spatial_pool_mode"],
    )
    torch.manual_seed(0)
    model = LlavaNextVideoForConditionalGeneration(config).eval()
    size = {"shortest_edge": image_size}
    crop = {"height": image_size, "width": image_size}
    processor = LlavaNextVideoProcessor(
        video_processor=LlavaNextVideoVideoProcessor(size=size, crop_size=crop),
        image_processor=LlavaNextImageProcessor(size=size, crop_size=crop, image_grid_pinpoints=pinpoints),
        tokenizer=tokenizer,
        patch_size=patch,
        vision_feature_select_strategy=fact["vision_feature_select_strategy"],
        num_additional_image_tokens=1,
        chat_template=fact["chat_template"],
    )
    _save(model, processor, tokenizer, out, None)
    return out


def _build_qwen_vl(out: str | Path, version: str) -> Path:
    import torch
    from transformers import Qwen2VLImageProcessor, Qwen2VLVideoProcessor

    if version == "2":
        from transformers import Qwen2VLConfig as Config
        from transformers import Qwen2VLForConditionalGeneration as Model
        from transformers import Qwen2VLProcessor as Processor

        fact = _fact("qwen2_vl")
    else:
        from transformers import Qwen2_5_VLConfig as Config
        from transformers import Qwen2_5_VLForConditionalGeneration as Model
        from transformers import Qwen2_5_VLProcessor as Processor

        fact = _fact("qwen2_5_vl")
    out = Path(out)
    ids = fact["tokens"]
    tokenizer = build_tokenizer(ids, eos=fact["eos"], pad=fact["pad"])
    v = fact["vision"]
    vision = {
        "depth": 2,
        "num_heads": 4,
        "patch_size": v["patch_size"],
        "spatial_merge_size": v["spatial_merge_size"],
        "temporal_patch_size": v["temporal_patch_size"],
        "in_chans": 3,
    }
    if version == "2":
        vision.update(embed_dim=32, hidden_size=32, mlp_ratio=2)
    else:
        vision.update(
            hidden_size=32,
            intermediate_size=64,
            out_hidden_size=32,
            fullatt_block_indexes=[1],
            window_size=v["window_size"],
        )
    # published mrope_section [16, 24, 24] for head_dim 128; the same 2:3:3 split for head_dim 16
    scale = sum(fact["mrope_section"]) // 8
    rope = {
        "rope_type": "default",
        "mrope_section": [s // scale for s in fact["mrope_section"]],
        "rope_theta": 1e6,
    }
    text = dict(
        _qwen2_text_config(fact["vocab_size"], fact["context_length"], rope_parameters=rope),
        hidden_size=64,
        num_attention_heads=4,
        num_key_value_heads=2,
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
    )
    if version != "2":
        vision["out_hidden_size"] = 64
    else:
        vision["hidden_size"] = 64
    config = Config(
        text_config={**text, "model_type": "qwen2_vl_text" if version == "2" else "qwen2_5_vl_text"},
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    model = Model(config).eval()
    processor = Processor(
        image_processor=Qwen2VLImageProcessor(size={"shortest_edge": 28 * 28, "longest_edge": 56 * 56}),
        video_processor=Qwen2VLVideoProcessor(cap_pixels_per_frame=True),
        tokenizer=tokenizer,
        chat_template=fact["chat_template"],
    )
    _save(model, processor, tokenizer, out, None)
    return out


def build_qwen2_vl(out: str | Path) -> Path:
    """Qwen2-VL (native-resolution ViT with 2x2 token merge + Qwen2 with M-RoPE), as Qwen2-VL-7B-Instruct."""
    return _build_qwen_vl(out, "2")


def build_qwen2_5_vl(out: str | Path) -> Path:
    """Qwen2.5-VL (windowed-attention ViT + Qwen2 with time-aligned M-RoPE), as Qwen2.5-VL-7B-Instruct."""
    return _build_qwen_vl(out, "2.5")


def build_qwen3_vl(out: str | Path) -> Path:
    """Qwen3-VL (patch 16, 2x2 merge, deepstack, text timestamps per frame pair) with the Qwen2-VL token ids.

    No Qwen3-VL file was found in the stored pages: ids, template and sizes are transformers' defaults."""
    import torch
    from transformers import (
        Qwen2VLImageProcessor,
        Qwen3VLConfig,
        Qwen3VLForConditionalGeneration,
        Qwen3VLProcessor,
        Qwen3VLVideoProcessor,
    )

    fact = _fact("qwen2_vl")
    out = Path(out)
    ids = fact["tokens"]
    tokenizer = build_tokenizer(ids, eos=fact["eos"], pad=fact["pad"])
    text = dict(
        _qwen2_text_config(152064, 262144),
        hidden_size=64,
        head_dim=16,
        rope_parameters={"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 5e6},
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
    )
    config = Qwen3VLConfig(
        text_config=text,
        vision_config={
            "depth": 2,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_heads": 4,
            "patch_size": 16,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "out_hidden_size": 64,
            "num_position_embeddings": 64,
            "deepstack_visual_indexes": [1],
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    model = Qwen3VLForConditionalGeneration(config).eval()
    processor = Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessor(
            patch_size=16, size={"shortest_edge": 32 * 32, "longest_edge": 64 * 64}
        ),
        video_processor=Qwen3VLVideoProcessor(
            size={"shortest_edge": 4 * 32 * 32, "longest_edge": 16 * 32 * 32}, do_sample_frames=False
        ),
        tokenizer=tokenizer,
        chat_template=fact["chat_template"],
    )
    _save(model, processor, tokenizer, out, None)
    return out


def build_internvl(out: str | Path, image_size: int = 56) -> Path:
    """InternVL (InternViT patch 14 + MLP projector with 2x2 pixel shuffle + Qwen2), as InternVL3-8B-hf.

    Each video frame is one tile: `Frame{i}: <img><IMG_CONTEXT>...</img>` with (image/patch)^2 / 4 context
    tokens (256 at the published 448 px; 4 at 56 px here), so the video placeholder `<video>` disappears from
    the expanded prompt. Token ids and the chat template were not found: the project's own are used."""
    import torch
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
    )

    fact = _fact("internvl")
    out = Path(out)
    named = {
        "start_image_token": "<img>",
        "end_image_token": "</img>",
        "context_image_token": "<IMG_CONTEXT>",
        "video_token": "<video>",
    }
    ids = {**published.QWEN2_BASE_TOKENS}
    for i, token in enumerate(named.values()):
        ids[token] = 151646 + i
    tokenizer = build_tokenizer(ids, eos=fact["eos"], pad=fact["pad"], named_tokens=named)
    patch = fact["vision"]["patch_size"]
    downsample = fact["downsample_ratio"]
    seq_length = int((image_size // patch) ** 2 * downsample**2)
    text = _qwen2_text_config(
        len(tokenizer),
        fact["context_length"],
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    config = InternVLConfig(
        text_config={"model_type": "qwen2", **text},
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch,
        },
        image_token_id=tokenizer.convert_tokens_to_ids("<IMG_CONTEXT>"),
        image_seq_length=seq_length,
        downsample_ratio=downsample,
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).eval()
    size = {"height": image_size, "width": image_size}
    processor = InternVLProcessor(
        image_processor=GotOcr2ImageProcessor(size=size, max_patches=4),
        video_processor=InternVLVideoProcessor(size=size),
        tokenizer=tokenizer,
        image_seq_length=seq_length,
        chat_template=_chatml("<IMG_CONTEXT>\n", "<video>\n"),
    )
    _save(model, processor, tokenizer, out, None)
    return out


def _save(model, processor, tokenizer, out: Path, generation: dict | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    for key, value in (generation or {}).items():
        setattr(model.generation_config, key, value)
    model.save_pretrained(out)
    processor.save_pretrained(out)


BUILDERS: dict[str, Callable[[str | Path], Path]] = {
    "llava_onevision": build_llava_onevision,
    "llava_next_video": build_llava_next_video,
    "qwen2_vl": build_qwen2_vl,
    "qwen2_5_vl": build_qwen2_5_vl,
    "qwen3_vl": build_qwen3_vl,
    "internvl": build_internvl,
}
