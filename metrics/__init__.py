"""Pure metric functions for the harness: numpy (and pycocotools) in, numbers out.

This package imports nothing else of the project. The metrics registered with the plugin registry
(harness_metrics.plugin) and loadable as local `evaluate` modules (metrics/evaluate_modules) are the rows of one
table, metrics/table.py.
"""

from harness_metrics.answers import INDEFINITE, accuracy, is_indefinite, mae
from harness_metrics.bertscore import BertScoreUnavailable, bertscore
from harness_metrics.bleu import bleu4, bleu4_per_sample
from harness_metrics.bootstrap import bootstrap_ci
from harness_metrics.cider import cider_d, cider_d_per_sample
from harness_metrics.coco_ap import ap50
from harness_metrics.davis import boundary_f, davis_statistics, j_and_f, jaccard
from harness_metrics.grounding import box_iou, ciou, giou, giou_boxes, per_query_iou
from harness_metrics.masks import decode_rle, encode_rle, xywh_to_xyxy, xyxy_to_xywh
from harness_metrics.order_flips import flip_rates
from harness_metrics.pass_at_k import pass_at_k
from harness_metrics.ptb_tokenizer import ptb_tokenize
from harness_metrics.rouge import rouge_l, rouge_l_per_sample
from harness_metrics.set_matching import precision_recall_f1

__all__ = [
    "INDEFINITE",
    "BertScoreUnavailable",
    "accuracy",
    "ap50",
    "bertscore",
    "bleu4",
    "bleu4_per_sample",
    "bootstrap_ci",
    "boundary_f",
    "box_iou",
    "cider_d",
    "cider_d_per_sample",
    "ciou",
    "davis_statistics",
    "decode_rle",
    "encode_rle",
    "flip_rates",
    "giou",
    "giou_boxes",
    "is_indefinite",
    "j_and_f",
    "jaccard",
    "mae",
    "pass_at_k",
    "per_query_iou",
    "precision_recall_f1",
    "ptb_tokenize",
    "rouge_l",
    "rouge_l_per_sample",
    "xywh_to_xyxy",
    "xyxy_to_xywh",
]
