"""CIDEr-D as pycocoevalcap's Cider scorer computes it (the COCO caption server's "CIDEr").

For n = 1..4: tf-idf vectors (term count x (log N - log max(1, df))) with document frequency taken over
the references of the evaluated corpus (N samples); similarity is the clipped dot product
sum min(v_c, v_r) * v_r divided by the norms, times a Gaussian length penalty exp(-delta^2 / (2 sigma^2))
with sigma = 6, where delta is the difference in bigram counts (pycocoevalcap's length). The score is the
mean over n of the mean over references, times 10.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from harness_metrics.caption_inputs import caption_pairs

_ORDERS = 4


def _counts(sentence: str, n: int) -> list[Counter]:
    """n-gram counts of a space-tokenized sentence, one Counter per order 1..n."""
    words = sentence.split()
    return [Counter(zip(*(words[i:] for i in range(k)), strict=False)) for k in range(1, n + 1)]


def _vector(counts: list[Counter], idf: dict) -> tuple[list[dict], list[float], int]:
    """Per-order tf-idf weights, their norms, and the length (number of bigrams, as pycocoevalcap)."""
    vecs = [{gram: float(tf) * idf[gram] for gram, tf in order.items()} for order in counts]
    norms = [math.sqrt(sum(v * v for v in vec.values())) for vec in vecs]
    length = sum(counts[1].values()) if len(counts) > 1 else 0
    return vecs, norms, length


def cider_d_scores(
    candidates: Any, references: Any, tokenize: bool = True, sigma: float = 6.0, n: int = _ORDERS
) -> tuple[float, list[float]]:
    """(corpus CIDEr-D, per-sample CIDEr-D); the corpus value is the mean of the per-sample values."""
    cands, refs = caption_pairs(candidates, references, tokenize)
    if not cands:
        return float("nan"), []
    cand_counts = [_counts(c, n) for c in cands]
    ref_counts = [[_counts(r, n) for r in ref_list] for ref_list in refs]
    doc_freq: Counter = Counter()
    for sample_refs in ref_counts:
        doc_freq.update(set().union(*(order.keys() for ref in sample_refs for order in ref)))
    log_n = math.log(float(len(cands)))

    class _Idf(dict):
        def __missing__(self, gram: tuple) -> float:
            value = log_n - math.log(max(1.0, float(doc_freq.get(gram, 0))))
            self[gram] = value
            return value

    idf = _Idf()
    two_sigma_sq = 2 * sigma**2
    scores = []
    for counts, sample_refs in zip(cand_counts, ref_counts, strict=False):
        vec_c, norm_c, len_c = _vector(counts, idf)
        total = [0.0] * n
        for ref in sample_refs:
            vec_r, norm_r, len_r = _vector(ref, idf)
            delta = float(len_c - len_r)
            penalty = math.e ** (-(delta**2) / two_sigma_sq)
            for k in range(n):
                hyp_k, ref_k = vec_c[k], vec_r[k]
                # Clipped dot product (only shared n-grams contribute).
                val = sum(min(hyp_k[g], ref_k[g]) * ref_k[g] for g in hyp_k.keys() & ref_k.keys())
                if norm_c[k] != 0 and norm_r[k] != 0:
                    val /= norm_c[k] * norm_r[k]
                total[k] += val * penalty
        score = sum(total) / n
        score /= len(sample_refs)
        scores.append(score * 10.0)
    return sum(scores) / len(scores), scores


def cider_d(candidates: Any, references: Any, tokenize: bool = True, sigma: float = 6.0) -> float:
    """Corpus CIDEr-D (pycocoevalcap Cider: sigma 6, x10, df over the evaluated corpus)."""
    return cider_d_scores(candidates, references, tokenize, sigma)[0]


def cider_d_per_sample(
    candidates: Any, references: Any, tokenize: bool = True, sigma: float = 6.0
) -> list[float]:
    """Per-sample CIDEr-D (document frequency still taken over the whole evaluated corpus)."""
    return cider_d_scores(candidates, references, tokenize, sigma)[1]
