"""`evaluate` module for metrics.j_and_f: evaluate.load("<this folder>") works offline.

DAVIS J&F; one example = one object track (a list of per-frame COCO RLE masks); returns the mean of each statistic over objects.
"""

import evaluate

from metrics.davis import j_and_f
from metrics.evaluate_modules.info import metric_info, rle

DESCRIPTION = "DAVIS J&F; one example = one object track (a list of per-frame COCO RLE masks); returns the mean of each statistic over objects."


def _rles(frames):
    """Rebuild per-frame RLE dicts from the Arrow columns evaluate hands over."""
    if isinstance(frames, dict):
        return [{"size": s, "counts": c} for s, c in zip(frames["size"], frames["counts"], strict=False)]
    return list(frames)


class JAndF(evaluate.Metric):
    """DAVIS J&F; one example = one object track (a list of per-frame COCO RLE masks); returns the mean of each statistic over objects."""

    def _info(self):
        return metric_info(DESCRIPTION, [rle()], [rle()])

    def _compute(self, predictions, references):
        rows = [j_and_f(_rles(p), _rles(r)) for p, r in zip(predictions, references, strict=False)]
        return {k: sum(row[k] for row in rows) / len(rows) for k in rows[0]} if rows else {}
