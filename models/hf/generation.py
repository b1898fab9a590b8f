"""Translate a task's generation kwargs into `model.generate` arguments.

Tasks speak lm-evaluation-harness's vocabulary (max_new_tokens or max_gen_toks, temperature with 0 meaning
greedy, do_sample, top_p, top_k, num_beams, n or num_return_sequences, until/stop strings, seed). Greedy is
the default. Stop strings are applied to the decoded text so batching never changes where text is cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

DEFAULT_MAX_NEW_TOKENS = 256

_PASS_THROUGH = (
    "top_p",
    "top_k",
    "num_beams",
    "repetition_penalty",
    "length_penalty",
    "min_new_tokens",
    "min_p",
)
_HARNESS_ONLY = (
    "until",
    "stop",
    "n",
    "num_return_sequences",
    "seed",
    "max_gen_toks",
    "max_tokens",
    "temperature",
)


@dataclass
class GenerationPlan:
    """What to pass to `generate`, plus what the adapter applies itself (samples per prompt, stops, seed)."""

    kwargs: dict[str, Any]
    num_samples: int = 1
    stop: list[str] = field(default_factory=list)
    seed: Optional[int] = None


def plan_generation(gen_kwargs: dict[str, Any], defaults: dict[str, Any]) -> GenerationPlan:
    """Merge preset defaults under the task's kwargs and normalise them (greedy unless asked otherwise)."""
    merged = {**defaults, **(gen_kwargs or {})}
    max_new = merged.get("max_new_tokens", merged.get("max_gen_toks", merged.get("max_tokens")))
    kwargs: dict[str, Any] = {
        "max_new_tokens": int(max_new) if max_new is not None else DEFAULT_MAX_NEW_TOKENS
    }
    temperature = merged.get("temperature")
    do_sample = merged.get("do_sample")
    if do_sample is None:
        do_sample = temperature is not None and float(temperature) > 0
    do_sample = bool(do_sample)
    kwargs["do_sample"] = do_sample
    if do_sample:
        if temperature is not None and float(temperature) > 0:
            kwargs["temperature"] = float(temperature)
        for key in ("top_p", "top_k", "min_p"):
            if merged.get(key) is not None:
                kwargs[key] = merged[key]
    for key in _PASS_THROUGH:
        if key in ("top_p", "top_k", "min_p"):
            continue
        if merged.get(key) is not None:
            kwargs[key] = merged[key]
    for key, value in merged.items():
        if (
            key not in kwargs
            and key not in _PASS_THROUGH
            and key not in _HARNESS_ONLY
            and key
            not in (
                "max_new_tokens",
                "do_sample",
            )
        ):
            kwargs[key] = value
    samples = int(merged.get("n") or merged.get("num_return_sequences") or 1)
    if samples > 1:
        kwargs["num_return_sequences"] = samples
        if not do_sample and int(kwargs.get("num_beams", 1)) < samples:
            raise ValueError(
                f"generation kwargs ask for n={samples} answers per prompt with greedy decoding, which would "
                "repeat one answer; set temperature > 0 (or do_sample: true) in the task's generation_kwargs"
            )
    stop = merged.get("until", merged.get("stop")) or []
    if isinstance(stop, str):
        stop = [stop]
    seed = merged.get("seed")
    return GenerationPlan(kwargs=kwargs, num_samples=samples, stop=[s for s in stop if s], seed=seed)


def cut_at_stop(text: str, stop: list[str]) -> str:
    """The text up to the earliest stop string (all of it when none occurs)."""
    cut = len(text)
    for s in stop:
        pos = text.find(s)
        if pos != -1:
            cut = min(cut, pos)
    return text[:cut]
