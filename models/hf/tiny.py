"""Tiny, randomly initialised video-language models built from configs, for offline tests and benchmarks.

Each builder writes a complete checkpoint folder (config, weights, a locally trained tokenizer with the
family's special tokens, image/video processors and a chat template) that loads back with
`from_pretrained` under HF_HUB_OFFLINE=1. The chat templates follow each family's prompt layout
(ChatML for Qwen2-based models, `USER:/ASSISTANT:` for LLaVA-NeXT-Video) but are written here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

_CORPUS_WORDS = (
    "the a an of to in is are was what which how many color colour red green blue yellow gray brown purple cyan "
    "cube sphere cylinder cone rubber metal small large object objects video clip frame frames answer question "
    "yes no one two three four five zero left right before after middle first second third option choice "
    "clockwise counterclockwise orbit rotate move moving change changes describe scene cycle cycles"
).split()

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

_USER_ASSISTANT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'user' %}USER: {% elif message['role'] == 'assistant' %}ASSISTANT: {% endif %}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' %}<image>\n"
    "{% elif part['type'] == 'video' %}<video>\n{% endif %}"
    "{% endfor %}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def _chatml(image: str, video: str) -> str:
    return _CHATML_TEMPLATE.replace("{{ IMAGE }}", image).replace("{{ VIDEO }}", video)


def build_tokenizer(
    special_tokens: list[str],
    eos: str,
    pad: str,
    vocab_size: int = 300,
    named_tokens: dict[str, str] | None = None,
):
    """A byte-level BPE tokenizer trained on a small built-in corpus, with the family's special tokens.

    named_tokens maps attribute names to special tokens (`tokenizer.<name>` and `tokenizer.<name>_id`), as
    some processors (InternVL's) read their placeholder tokens from the tokenizer.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    corpus = [" ".join(_CORPUS_WORDS[i:] + _CORPUS_WORDS[:i]) for i in range(len(_CORPUS_WORDS))]
    tok.train_from_iterator(corpus, trainer=trainer)
    extra = {"extra_special_tokens": dict(named_tokens)} if named_tokens else {}
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=eos, pad_token=pad, padding_side="left", **extra
    )


def _qwen2_text_config(vocab_size: int, **extra):
    return dict(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        **extra,
    )


def build_llava_onevision(out: str | Path, image_size: int = 32, patch_size: int = 8) -> Path:
    """LLaVA-OneVision (SigLIP + Qwen2): the architecture of LLaVA-OneVision and LLaVA-Video."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    out = Path(out)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"]
    tokenizer = build_tokenizer(specials, eos="<|im_end|>", pad="<|endoftext|>")
    vocab = len(tokenizer)
    pinpoints = [[image_size, image_size], [image_size, 2 * image_size], [2 * image_size, image_size]]
    config = LlavaOnevisionConfig(
        text_config={"model_type": "qwen2", **_qwen2_text_config(vocab)},
        vision_config={
            "model_type": "siglip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch_size,
        },
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        video_token_index=tokenizer.convert_tokens_to_ids("<video>"),
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        image_grid_pinpoints=pinpoints,
        vision_aspect_ratio="anyres_max_9",
    )
    torch.manual_seed(0)
    model = LlavaOnevisionForConditionalGeneration(config).eval()
    size = {"height": image_size, "width": image_size}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=size, image_grid_pinpoints=pinpoints),
        video_processor=LlavaOnevisionVideoProcessor(size=size),
        tokenizer=tokenizer,
        num_image_tokens=(image_size // patch_size) ** 2,
        vision_feature_select_strategy="full",
        chat_template=_chatml("<image>", "<video>"),
    )
    _save(model, processor, tokenizer, out)
    return out


def build_llava_next_video(out: str | Path, image_size: int = 32, patch_size: int = 8) -> Path:
    """LLaVA-NeXT-Video (CLIP + Llama, 2x2 average pooling of video features)."""
    import torch
    from transformers import (
        LlavaNextImageProcessor,
        LlavaNextVideoConfig,
        LlavaNextVideoForConditionalGeneration,
        LlavaNextVideoProcessor,
        LlavaNextVideoVideoProcessor,
    )

    out = Path(out)
    specials = ["<unk>", "<s>", "</s>", "<image>", "<video>"]
    tokenizer = build_tokenizer(specials, eos="</s>", pad="<unk>")
    vocab = len(tokenizer)
    pinpoints = [[image_size, image_size], [image_size, 2 * image_size], [2 * image_size, image_size]]
    config = LlavaNextVideoConfig(
        text_config={
            "model_type": "llama",
            "vocab_size": vocab,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 4,
            "max_position_embeddings": 4096,
            "pad_token_id": tokenizer.pad_token_id,
            "eos_token_id": tokenizer.eos_token_id,
        },
        vision_config={
            "model_type": "clip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch_size,
            "projection_dim": 32,
        },
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        video_token_index=tokenizer.convert_tokens_to_ids("<video>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
        image_grid_pinpoints=pinpoints,
        spatial_pool_stride=2,
        spatial_pool_mode="average",
    )
    torch.manual_seed(0)
    model = LlavaNextVideoForConditionalGeneration(config).eval()
    size = {"shortest_edge": image_size}
    crop = {"height": image_size, "width": image_size}
    processor = LlavaNextVideoProcessor(
        video_processor=LlavaNextVideoVideoProcessor(size=size, crop_size=crop),
        image_processor=LlavaNextImageProcessor(size=size, crop_size=crop, image_grid_pinpoints=pinpoints),
        tokenizer=tokenizer,
        patch_size=patch_size,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_USER_ASSISTANT_TEMPLATE,
    )
    _save(model, processor, tokenizer, out)
    return out


def _build_qwen_vl(out: str | Path, version: str) -> Path:
    import torch
    from transformers import AutoProcessor  # noqa: F401  (keeps the processor classes registered)

    if version == "2":
        from transformers import Qwen2VLConfig as Config
        from transformers import Qwen2VLForConditionalGeneration as Model
        from transformers import Qwen2VLProcessor as Processor
    else:
        from transformers import Qwen2_5_VLConfig as Config
        from transformers import Qwen2_5_VLForConditionalGeneration as Model
        from transformers import Qwen2_5_VLProcessor as Processor
    from transformers import Qwen2VLImageProcessor, Qwen2VLVideoProcessor

    out = Path(out)
    specials = [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|vision_start|>",
        "<|vision_end|>",
        "<|image_pad|>",
        "<|video_pad|>",
    ]
    tokenizer = build_tokenizer(specials, eos="<|im_end|>", pad="<|endoftext|>")
    vocab = len(tokenizer)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in specials}
    vision = {
        "depth": 2,
        "num_heads": 4,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
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
            window_size=56,
        )
    # head_dim 8: the three M-RoPE sections (time, height, width) must add up to head_dim / 2.
    rope = {"rope_type": "default", "mrope_section": [1, 1, 2], "rope_theta": 10000.0}
    text = _qwen2_text_config(
        vocab,
        rope_parameters=rope,
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
    )
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
        video_processor=Qwen2VLVideoProcessor(
            size={"shortest_edge": 28 * 28, "longest_edge": 56 * 56 * 4}, cap_pixels_per_frame=True
        ),
        tokenizer=tokenizer,
        chat_template=_chatml(
            "<|vision_start|><|image_pad|><|vision_end|>", "<|vision_start|><|video_pad|><|vision_end|>"
        ),
    )
    _save(model, processor, tokenizer, out)
    return out


def build_qwen2_vl(out: str | Path) -> Path:
    """Qwen2-VL (native-resolution ViT with 2x2 token merge + Qwen2 with M-RoPE)."""
    return _build_qwen_vl(out, "2")


def build_qwen2_5_vl(out: str | Path) -> Path:
    """Qwen2.5-VL (windowed-attention ViT + Qwen2 with time-aligned M-RoPE)."""
    return _build_qwen_vl(out, "2.5")


def build_internvl(out: str | Path, image_size: int = 32, patch_size: int = 8) -> Path:
    """InternVL (InternViT + MLP projector with 2x2 pixel shuffle + Qwen2), transformers-native, as InternVL3-hf.

    Each video frame is one tile: `Frame{i}: <img><IMG_CONTEXT>...</img>` with (image/patch)^2 / 4 context
    tokens, so the video placeholder `<video>` disappears from the expanded prompt.
    """
    import torch
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
    )

    out = Path(out)
    named = {
        "start_image_token": "<img>",
        "end_image_token": "</img>",
        "context_image_token": "<IMG_CONTEXT>",
        "video_token": "<video>",
    }
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *named.values()]
    tokenizer = build_tokenizer(specials, eos="<|im_end|>", pad="<|endoftext|>", named_tokens=named)
    vocab = len(tokenizer)
    downsample = 0.5
    seq_length = int((image_size // patch_size) ** 2 * downsample**2)
    text = _qwen2_text_config(vocab, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    config = InternVLConfig(
        text_config={"model_type": "qwen2", **text},
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": image_size,
            "patch_size": patch_size,
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
    _save(model, processor, tokenizer, out)
    return out


def _save(model, processor, tokenizer, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(out)
    processor.save_pretrained(out)


BUILDERS: dict[str, Callable[[str | Path], Path]] = {
    "llava_onevision": build_llava_onevision,
    "llava_next_video": build_llava_next_video,
    "qwen2_vl": build_qwen2_vl,
    "qwen2_5_vl": build_qwen2_5_vl,
    "internvl": build_internvl,
}
