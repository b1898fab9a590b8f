"""The one table of the project's metrics: registration, descriptions and the `evaluate` modules read it.

Adding a metric is one function (in a module of this package) and one row here; then
`python -m harness_metrics.evaluate_modules` writes its `evaluate` module folder. A row says:
- `function`: the pure function, as a lazy "module:function" reference (what the plugin registers);
- `summary`: one line on what it computes (`harness ls metrics`, the first sentence of the module's description);
- `example`: what one `evaluate` row (example) holds, the compute() keywords and what compute() returns;
- `predictions`, `references`: the `evaluate` input columns (metrics/evaluate_modules/features.py reads them:
  "string", "int64", "float64", "rle" (a COCO RLE dict), "[x]" (a list of x); "a | b" gives alternative
  typings, paired by position across the two columns);
- `call`: how the module hands its rows to the function (metrics/evaluate_modules/calls.py defines each).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricRow:
    """One metric: its function, what it computes, and how its `evaluate` module takes rows."""

    name: str
    function: str
    summary: str
    example: str
    predictions: str
    references: str
    call: str = "corpus"

    @property
    def description(self) -> str:
        """The `evaluate` module's description: the summary, then what one row holds."""
        return f"{self.summary[0].upper()}{self.summary[1:]}. {self.example}"


_CAPTION_ROWS = (
    "One example = one candidate caption and its list of reference captions; compute(tokenize=False) takes "
    "space-tokenized strings instead of PTB-tokenizing them."
)

METRICS: tuple[MetricRow, ...] = (
    MetricRow(
        "jaccard",
        "harness_metrics.davis:jaccard",
        "DAVIS region similarity J per frame (|P and G| / |P or G|, 1 if both empty)",
        "One example = one frame mask as COCO RLE; returns the mean J over examples.",
        "rle",
        "rle",
        call="frame_mean",
    ),
    MetricRow(
        "boundary_f",
        "harness_metrics.davis:boundary_f",
        "DAVIS contour accuracy F per frame (seg2bmap, disk tolerance 0.008 x diagonal)",
        "One example = one frame mask as COCO RLE; returns the mean F over examples.",
        "rle",
        "rle",
        call="frame_mean",
    ),
    MetricRow(
        "j_and_f",
        "harness_metrics.davis:j_and_f",
        "DAVIS J&F with J/F mean, recall and decay for one object",
        "One example = one object track (a list of per-frame COCO RLE masks); returns the mean of each "
        "statistic over objects.",
        "[rle]",
        "[rle]",
        call="track_mean",
    ),
    MetricRow(
        "ciou",
        "harness_metrics.grounding:ciou",
        "cumulative IoU (LISA): sum of intersections / (sum of unions + 1e-10) over all frames",
        "0 when all masks are empty. One example = one query mask as COCO RLE.",
        "rle",
        "rle",
    ),
    MetricRow(
        "giou",
        "harness_metrics.grounding:giou",
        "LISA gIoU: mean per-image (per-frame) IoU, 1 when both masks are empty",
        "Per image I / (U + 1e-5). One example = one image (frame) mask as COCO RLE.",
        "rle",
        "rle",
    ),
    MetricRow(
        "giou_boxes",
        "harness_metrics.grounding:giou_boxes",
        "mean per-query IoU of [x, y, w, h] grounding boxes",
        "One example = one query's box [x, y, w, h].",
        "[float64]",
        "[float64]",
    ),
    MetricRow(
        "ap50",
        "harness_metrics.coco_ap:ap50",
        "COCO AP at IoU 0.5 for boxes or masks (pycocotools COCOeval)",
        "All areas, 100 detections per image. One example = one image (its row number is its image id). "
        'predictions: a JSON list of that image\'s detections, each {"bbox": [x, y, w, h], "score": s} '
        '(iou_type="bbox") or {"segmentation": {"size": [H, W], "counts": RLE string}, "score": s} '
        '(iou_type="segm"), with an optional "category_id" (default 1). references: a JSON list of its '
        'ground-truth objects, the same without "score", with an optional "iscrowd". An image without '
        'objects is "[]". Pass iou_type="segm" to compute() for masks. Returns {\'ap50\': value}, nan when '
        "no image has ground truth.",
        "string",
        "string",
        call="json_detections",
    ),
    MetricRow(
        "bleu4",
        "harness_metrics.bleu:bleu4",
        "corpus BLEU-4 as pycocoevalcap (closest reference length)",
        _CAPTION_ROWS,
        "string",
        "[string]",
    ),
    MetricRow(
        "rouge_l",
        "harness_metrics.rouge:rouge_l",
        "ROUGE-L F-measure, beta 1.2, as pycocoevalcap",
        _CAPTION_ROWS,
        "string",
        "[string]",
    ),
    MetricRow(
        "cider_d",
        "harness_metrics.cider:cider_d",
        "CIDEr-D (sigma 6, x10, df over the evaluated corpus) as pycocoevalcap",
        _CAPTION_ROWS,
        "string",
        "[string]",
    ),
    MetricRow(
        "bertscore",
        "harness_metrics.bertscore:bertscore",
        "BERTScore P/R/F1 via bert-score with a local model path",
        "One example = one candidate caption and its list of reference captions (raw strings); compute() "
        "takes model_path, num_layers, batch_size (64) and device, and returns the function's P/R/F1.",
        "string",
        "[string]",
        call="as_returned",
    ),
    MetricRow(
        "accuracy",
        "harness_metrics.answers:accuracy",
        "fraction of exact answers; INDEFINITE counts as wrong (CycliST)",
        "One example = one answer and its target, both strings, integers or floats; the answer "
        "'indefinite' counts as wrong.",
        "string | int64 | float64",
        "string | int64 | float64",
    ),
    MetricRow(
        "mae",
        "harness_metrics.answers:mae",
        "mean absolute error excluding INDEFINITE answers (CycliST)",
        "One example = one answer as a string (so 'indefinite' can be passed) and its numeric target.",
        "string",
        "float64",
    ),
    MetricRow(
        "precision_recall_f1",
        "harness_metrics.set_matching:precision_recall_f1",
        "P/R/F1 of set matching, maximum one-to-one",
        "One example = one predicted and one true set of strings (exact item equality); returns precision, "
        "recall and f1, each averaged over examples.",
        "[string]",
        "[string]",
        call="set_mean",
    ),
    MetricRow(
        "pass_at_k",
        "harness_metrics.pass_at_k:pass_at_k",
        "unbiased pass@k = 1 - C(n-c, k) / C(n, k)",
        "One example = one problem: predictions = the correctness of each of its n samples (0/1), "
        "references = unused (pass 1). compute(k=1) returns {'pass@k': mean over problems}.",
        "[int64]",
        "int64",
        call="samples_per_problem",
    ),
    MetricRow(
        "flip_rates",
        "harness_metrics.order_flips:flip_rates",
        "clip and correctness flip rates for every pair of candidate orders",
        "Clip flip rate: the chosen clip differs; correctness flip rate: right/wrong differs; and their "
        "means over pairs. One example = one item. predictions: a JSON object mapping each order name to "
        'the clip chosen under that order, e.g. {"original": "GT", "reversed": "A/Early", "shuffled": null} '
        "(null = no clip could be parsed: a choice of its own, and wrong); every row names the same orders, "
        "and pairs follow the first row's key order. references: the correct clip as a plain string. "
        "Returns {'clip_flip_rate', 'correctness_flip_rate', 'pairs': [{order_a, order_b, clip_flip_rate, "
        "correctness_flip_rate, n_items}]}.",
        "string",
        "string",
        call="json_orders",
    ),
    MetricRow(
        "bootstrap_ci",
        "harness_metrics.bootstrap:bootstrap_ci",
        "percentile bootstrap CI, optionally clustered by video",
        "Numpy percentile (linear) of the mean of per-item values, or of compute(statistic=callable). One "
        "example = one item. predictions: the item's value (a float, e.g. 1.0 / 0.0 for right / wrong; NaN "
        "is rejected). references: the item's cluster id as a string (e.g. its video): whole clusters are "
        "drawn with replacement. Pass clustered=False to draw items independently (references are then "
        "ignored). compute() also takes n_resamples (1000), confidence (0.95) and seed (0). Returns "
        "{'estimate': statistic of all values, 'low', 'high'}.",
        "float64",
        "string",
        call="clustered_values",
    ),
)

BY_NAME: dict[str, MetricRow] = {row.name: row for row in METRICS}


def metric_row(name: str) -> MetricRow:
    """The table's row for `name`; a KeyError names the known metrics."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"metric '{name}' is not in metrics/table.py; known: {', '.join(BY_NAME)}") from None
