"""ROUGE-L as pycocoevalcap's Rouge scorer computes it: F-measure with beta = 1.2 of the best LCS precision
and recall over the references, averaged over samples. The LCS length uses a bit-parallel algorithm
(Hyyro 2004) over Python integers instead of an O(n*m) table; the value is the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness_metrics.caption_inputs import caption_pairs

BETA = 1.2


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (bit-parallel)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    for i, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(b)) - 1
    v = full
    for tok in a:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def _sample_rouge(cand: str, refs: list[str]) -> float:
    # pycocoevalcap splits on single spaces (so an empty caption is one empty token).
    cand_tokens = cand.split(" ")
    best_p = best_r = 0.0
    for ref in refs:
        ref_tokens = ref.split(" ")
        lcs = lcs_length(ref_tokens, cand_tokens)
        best_p = max(best_p, lcs / float(len(cand_tokens)))
        best_r = max(best_r, lcs / float(len(ref_tokens)))
    if best_p != 0 and best_r != 0:
        return ((1 + BETA**2) * best_p * best_r) / float(best_r + BETA**2 * best_p)
    return 0.0


def rouge_l_per_sample(candidates: Any, references: Any, tokenize: bool = True) -> list[float]:
    """Per-sample ROUGE-L (pycocoevalcap Rouge, beta 1.2)."""
    cands, refs = caption_pairs(candidates, references, tokenize)
    return [_sample_rouge(c, r) for c, r in zip(cands, refs, strict=False)]


def rouge_l(candidates: Any, references: Any, tokenize: bool = True) -> float:
    """Mean ROUGE-L over samples (pycocoevalcap Rouge, beta 1.2); tokenize=False takes pre-tokenized strings."""
    scores = rouge_l_per_sample(candidates, references, tokenize)
    return float(np.mean(np.array(scores))) if scores else float("nan")
