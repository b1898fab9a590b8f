"""Registers every public metric with the harness plugin registry (entry point `metrics = metrics.plugin`).

The hook marker is defined here with the project name "harness" so that this package stays free of any
import of the core; metrics are registered as "module:function" strings to keep imports lazy.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookimpl = pluggy.HookimplMarker("harness")

# name -> (reference, one-line description)
METRICS: dict[str, tuple[str, str]] = {
    "jaccard": (
        "metrics.davis:jaccard",
        "DAVIS region similarity J per frame (|P and G| / |P or G|, 1 if both empty)",
    ),
    "boundary_f": (
        "metrics.davis:boundary_f",
        "DAVIS contour accuracy F per frame (seg2bmap, disk tolerance 0.008 x diagonal)",
    ),
    "j_and_f": ("metrics.davis:j_and_f", "DAVIS J&F with J/F mean, recall and decay for one object"),
    "ciou": (
        "metrics.grounding:ciou",
        "cumulative IoU (LISA): sum of intersections / (sum of unions + 1e-10) over all frames",
    ),
    "giou": (
        "metrics.grounding:giou",
        "LISA gIoU: mean per-image (per-frame) IoU, 1 when both masks are empty",
    ),
    "giou_boxes": ("metrics.grounding:giou_boxes", "mean per-query IoU of [x, y, w, h] grounding boxes"),
    "ap50": ("metrics.coco_ap:ap50", "COCO AP at IoU 0.5 for boxes or masks (pycocotools COCOeval)"),
    "bleu4": ("metrics.bleu:bleu4", "corpus BLEU-4 as pycocoevalcap (closest reference length)"),
    "rouge_l": ("metrics.rouge:rouge_l", "ROUGE-L F-measure, beta 1.2, as pycocoevalcap"),
    "cider_d": (
        "metrics.cider:cider_d",
        "CIDEr-D (sigma 6, x10, df over the evaluated corpus) as pycocoevalcap",
    ),
    "bertscore": ("metrics.bertscore:bertscore", "BERTScore P/R/F1 via bert-score with a local model path"),
    "accuracy": (
        "metrics.answers:accuracy",
        "fraction of exact answers; INDEFINITE counts as wrong (CycliST)",
    ),
    "mae": ("metrics.answers:mae", "mean absolute error excluding INDEFINITE answers (CycliST)"),
    "precision_recall_f1": (
        "metrics.set_matching:precision_recall_f1",
        "P/R/F1 of set matching, maximum one-to-one",
    ),
    "pass_at_k": ("metrics.pass_at_k:pass_at_k", "unbiased pass@k = 1 - C(n-c, k) / C(n, k)"),
    "flip_rates": (
        "metrics.order_flips:flip_rates",
        "clip and correctness flip rates for every pair of candidate orders",
    ),
    "bootstrap_ci": (
        "metrics.bootstrap:bootstrap_ci",
        "percentile bootstrap CI, optionally clustered by video",
    ),
}


@hookimpl
def register_metrics(register: Callable[..., None]) -> None:
    """Register each metric by name with its "module:function" reference and a one-line description."""
    for name, (reference, description) in METRICS.items():
        register(name, reference, description=description)
