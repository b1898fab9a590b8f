"""`evaluate` module for metrics.flip_rates: evaluate.load("<this folder>") works offline.

Clip flip rate and correctness flip rate under candidate reordering; one example = one item, its choices
under every order a JSON object (see the description below).
"""

import datasets
import evaluate

from metrics.evaluate_modules.json_rows import decode_row
from metrics.order_flips import flip_rates

_DESCRIPTION = (
    "Clip flip rate (chosen clip differs) and correctness flip rate (right/wrong differs) for every pair of "
    "candidate orders, and their means over pairs. One example = one item. predictions: a JSON object "
    'mapping each order name to the clip chosen under that order, e.g. {"original": "GT", "reversed": '
    '"A/Early", "shuffled": null} (null = no clip could be parsed: a choice of its own, and wrong); every '
    "row names the same orders, and pairs follow the first row's key order. references: the correct clip "
    "as a plain string. Returns {'clip_flip_rate', 'correctness_flip_rate', 'pairs': [{order_a, order_b, "
    "clip_flip_rate, correctness_flip_rate, n_items}]}."
)
_SHAPE = "an object mapping order names to the chosen clip (a string, or null when unparsed)"


def _choices(predictions):
    """Rows of {order: clip} as order -> list of clips, checking every row names the same orders."""
    orders = None
    choices = {}
    for row, text in enumerate(predictions):
        chosen = decode_row(text, "predictions", row, dict, _SHAPE)
        if orders is None:
            orders = list(chosen)
            choices = {order: [] for order in orders}
        elif set(chosen) != set(orders):
            raise ValueError(
                f"predictions[{row}]: orders {sorted(chosen)} differ from row 0's {sorted(orders)}; every item "
                "must be asked under the same candidate orders"
            )
        for order in orders:
            clip = chosen[order]
            if clip is not None and not isinstance(clip, str):
                raise ValueError(
                    f"predictions[{row}][{order!r}]: expected a clip identity string or null, got {clip!r}"
                )
            choices[order].append(clip)
    return choices


class FlipRates(evaluate.Metric):
    """Order-flip rates over items given as rows of JSON-encoded choices per order."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation="",
            inputs_description="See docs/metrics.md in the video-harness repository.",
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references):
        if not predictions:
            raise ValueError("flip_rates: no items; expected at least one row")
        return flip_rates(_choices(predictions), list(references))
