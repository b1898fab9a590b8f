"""BERTScore through the bert-score package, with a model the user provides as a local path.

No model hub is assumed: the model (e.g. roberta-large saved with save_pretrained, layer 17 as bert-score
uses by default) must be given by path, either as `model_path` or in the HARNESS_BERTSCORE_MODEL
environment variable. Without one the function raises an error that says how to provide it (never 0).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness_metrics.caption_inputs import caption_pairs

MODEL_ENV = "HARNESS_BERTSCORE_MODEL"
LAYERS_ENV = "HARNESS_BERTSCORE_LAYERS"


class BertScoreUnavailable(RuntimeError):
    """BERTScore cannot run here: no model path was given, the path is missing, or bert-score is absent."""


def _resolve_model(model_path: str | os.PathLike | None, num_layers: int | None) -> tuple[str, int]:
    path = model_path if model_path is not None else os.environ.get(MODEL_ENV)
    if not path:
        raise BertScoreUnavailable(
            "bertscore: no model given. Pass model_path='/path/to/model' (a folder saved with "
            "save_pretrained, e.g. roberta-large) and num_layers (17 for roberta-large), or set "
            f"{MODEL_ENV}=/path/to/model and {LAYERS_ENV}=17."
        )
    if not Path(path).is_dir():
        raise BertScoreUnavailable(
            f"bertscore: model path {str(path)!r} is not a folder; expected a transformers model saved with save_pretrained"
        )
    layers = num_layers if num_layers is not None else os.environ.get(LAYERS_ENV)
    if layers is None:
        raise BertScoreUnavailable(
            f"bertscore: num_layers is required for a local model ({path}); bert-score's defaults are per "
            f"hub name (17 for roberta-large). Pass num_layers=... or set {LAYERS_ENV}."
        )
    return str(path), int(layers)


def bertscore(
    candidates: Any,
    references: Any,
    model_path: str | os.PathLike | None = None,
    num_layers: int | None = None,
    batch_size: int = 64,
    device: str | None = None,
    idf: bool = False,
) -> dict[str, Any]:
    """BERTScore P/R/F1 (means, and F1 per sample) of candidates against their references (max over refs).

    Raw strings are scored (no PTB tokenization), as bert-score does. Requires the `bertscore` extra.
    """
    cands, refs = caption_pairs(candidates, references, tokenize=False)
    path, layers = _resolve_model(model_path, num_layers)
    try:
        import bert_score
    except ImportError:
        raise BertScoreUnavailable(
            "bertscore: the bert-score package is not installed; install it with pip install 'video-harness[bertscore]'"
        ) from None
    if not cands:
        return {"precision": float("nan"), "recall": float("nan"), "f1": float("nan"), "f1_per_sample": []}
    precision, recall, f1 = bert_score.score(
        cands,
        refs,
        model_type=path,
        num_layers=layers,
        batch_size=batch_size,
        device=device or "cpu",
        idf=idf,
    )
    return {
        "precision": float(precision.mean()),
        "recall": float(recall.mean()),
        "f1": float(f1.mean()),
        "f1_per_sample": [float(v) for v in f1],
    }
