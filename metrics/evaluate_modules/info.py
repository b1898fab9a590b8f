"""Shared pieces of the local `evaluate` modules: the MetricInfo they all return and common input shapes."""

from __future__ import annotations

from typing import Any

import datasets
import evaluate


def rle() -> dict[str, Any]:
    """One mask as COCO RLE: {"size": [h, w], "counts": str}."""
    return {"size": datasets.Sequence(datasets.Value("int64")), "counts": datasets.Value("string")}


def captions() -> tuple[Any, Any]:
    """(predictions, references) of caption metrics: one candidate string, a list of reference strings."""
    return datasets.Value("string"), datasets.Sequence(datasets.Value("string"))


def metric_info(description: str, predictions: Any, references: Any) -> evaluate.MetricInfo:
    """The MetricInfo of a harness metric with these input columns."""
    return evaluate.MetricInfo(
        description=description,
        citation="",
        inputs_description="See docs/metrics.md in the video-harness repository.",
        features=datasets.Features({"predictions": predictions, "references": references}),
    )
