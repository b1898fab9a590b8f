"""BLEU-4 exactly as pycocoevalcap's Bleu scorer computes it (effective reference length 'closest').

Corpus BLEU sums clipped n-gram matches, candidate n-gram counts and closest reference lengths over all
samples, with pycocoevalcap's smoothing constants (1e-15 / 1e-9) and brevity penalty; the per-sample
scores are pycocoevalcap's per-image BLEU-4 values.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from harness_metrics.caption_inputs import caption_pairs

_TINY = 1e-15
_SMALL = 1e-9


def _ngrams(words: list[str], n: int) -> Counter:
    counts: Counter = Counter()
    for k in range(1, n + 1):
        counts.update(tuple(words[i : i + k]) for i in range(len(words) - k + 1))
    return counts


def _sample_stats(cand: str, refs: list[str], n: int) -> tuple[int, int, list[int], list[int]]:
    """(candidate length, closest reference length, guessed n-grams per order, clipped matches per order)."""
    words = cand.split()
    test_len = len(words)
    max_counts: dict[tuple, int] = {}
    ref_lens = []
    for ref in refs:
        ref_words = ref.split()
        ref_lens.append(len(ref_words))
        for gram, count in _ngrams(ref_words, n).items():
            if count > max_counts.get(gram, 0):
                max_counts[gram] = count
    closest = min((abs(length - test_len), length) for length in ref_lens)[1]
    guess = [max(0, test_len - k + 1) for k in range(1, n + 1)]
    correct = [0] * n
    for gram, count in _ngrams(words, n).items():
        correct[len(gram) - 1] += min(max_counts.get(gram, 0), count)
    return test_len, closest, guess, correct


def _bleu_from_totals(test_len: float, ref_len: float, guess: list[int], correct: list[int], n: int) -> float:
    score = 1.0
    for k in range(n):
        score *= float(correct[k] + _TINY) / (guess[k] + _SMALL)
    value = score ** (1.0 / n)
    ratio = (test_len + _TINY) / (ref_len + _SMALL)
    if ratio < 1:
        value *= math.exp(1 - 1 / ratio)
    return value


def bleu_scores(
    candidates: Any, references: Any, n: int = 4, tokenize: bool = True
) -> tuple[float, list[float]]:
    """(corpus BLEU-n, per-sample BLEU-n) as pycocoevalcap reports them."""
    cands, refs = caption_pairs(candidates, references, tokenize)
    total_test = total_ref = 0
    total_guess = [0] * n
    total_correct = [0] * n
    per_sample = []
    for cand, ref_list in zip(cands, refs, strict=False):
        test_len, ref_len, guess, correct = _sample_stats(cand, ref_list, n)
        total_test += test_len
        total_ref += ref_len
        for k in range(n):
            total_guess[k] += guess[k]
            total_correct[k] += correct[k]
        # pycocoevalcap's per-image BLEU uses the same formula on the sample's own counts.
        per_sample.append(_bleu_from_totals(test_len, ref_len, guess, correct, n))
    if not cands:
        return float("nan"), []
    return _bleu_from_totals(total_test, total_ref, total_guess, total_correct, n), per_sample


def bleu4(candidates: Any, references: Any, tokenize: bool = True) -> float:
    """Corpus BLEU-4 (pycocoevalcap Bleu, option 'closest'); tokenize=False takes pre-tokenized strings."""
    return bleu_scores(candidates, references, 4, tokenize)[0]


def bleu4_per_sample(candidates: Any, references: Any, tokenize: bool = True) -> list[float]:
    """Per-sample BLEU-4 as pycocoevalcap returns it (for per-sample logs and bootstrap CIs)."""
    return bleu_scores(candidates, references, 4, tokenize)[1]
