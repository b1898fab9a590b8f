"""Shared input handling for the caption metrics: candidates and references in, token lists out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_metrics.ptb_java import tokenize_captions


def caption_pairs(
    candidates: Any, references: Any, tokenize: bool = True
) -> tuple[list[str], list[list[str]]]:
    """Validate (candidates, references) and return tokenized strings, one candidate and >= 1 references each.

    candidates: a list of strings (one per sample) or a dict id -> string; references: a list of lists of
    strings or a dict id -> list of strings (same ids). With tokenize=False strings are used as they are
    (already space-tokenized, as pycocoevalcap's scorers expect). With tokenize=True the references and the
    candidates are tokenized in one batch each (as COCOEvalCap does) by `harness_metrics.ptb_java.tokenize_captions`:
    pycocoevalcap's Java PTBTokenizer where Java is installed, else the Python port.
    """
    if isinstance(candidates, Mapping) or isinstance(references, Mapping):
        if not (isinstance(candidates, Mapping) and isinstance(references, Mapping)):
            raise ValueError(
                "candidates and references: pass both as dicts keyed by sample id, or both as lists"
            )
        if set(candidates) != set(references):
            missing = sorted(set(candidates) ^ set(references), key=str)[:5]
            raise ValueError(
                f"candidates and references have different sample ids (e.g. {missing}); expected the same keys"
            )
        keys = list(candidates)
        candidates = [candidates[k] for k in keys]
        references = [references[k] for k in keys]
    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        raise ValueError(
            f"candidates: expected a list of strings (one per sample), got {type(candidates).__name__}"
        )
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise ValueError(f"references: expected a list of lists of strings, got {type(references).__name__}")
    if len(candidates) != len(references):
        raise ValueError(
            f"got {len(candidates)} candidates and {len(references)} reference lists; expected one of each per sample"
        )
    cands: list[str] = []
    refs: list[list[str]] = []
    for i, (cand, ref_list) in enumerate(zip(candidates, references, strict=False)):
        if not isinstance(cand, str):
            raise ValueError(f"candidates[{i}]: expected a string, got {type(cand).__name__}")
        if isinstance(ref_list, str) or not isinstance(ref_list, Sequence) or len(ref_list) == 0:
            raise ValueError(f"references[{i}]: expected a non-empty list of reference strings")
        if not all(isinstance(r, str) for r in ref_list):
            raise ValueError(f"references[{i}]: every reference must be a string")
        cands.append(cand)
        refs.append(list(ref_list))
    if tokenize:
        cands = tokenize_captions(cands)
        flat = tokenize_captions([r for ref_list in refs for r in ref_list])
        out, k = [], 0
        for ref_list in refs:
            out.append(flat[k : k + len(ref_list)])
            k += len(ref_list)
        refs = out
    return cands, refs
