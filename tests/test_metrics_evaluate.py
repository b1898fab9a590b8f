"""The ap50, flip_rates and bootstrap_ci `evaluate` modules: loaded offline from their folders with
evaluate.load(path), fed JSON-encoded rows, and equal to the pure functions on the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import harness_metrics as metrics
from harness_metrics import ap50, bootstrap_ci, encode_rle, flip_rates

MODULES = Path(metrics.__file__).parent / "evaluate_modules"


@pytest.fixture(scope="module")
def evaluate_offline(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("HF_HUB_OFFLINE", "1")
    patch.setenv("HF_DATASETS_OFFLINE", "1")
    patch.setenv("HF_HOME", str(tmp_path_factory.mktemp("hf")))
    yield pytest.importorskip("evaluate")
    patch.undo()


@pytest.fixture(scope="module")
def load(evaluate_offline):
    loaded = {}

    def get(name):
        if name not in loaded:
            loaded[name] = evaluate_offline.load(str(MODULES / name))
        return loaded[name]

    return get


def _detections(seed, images=6):
    """Per-image ground truth and jittered, scored detections (some missed, some spurious)."""
    rng = np.random.default_rng(seed)
    gts, dts = [], []
    for _ in range(images):
        truth, found = [], []
        for _ in range(int(rng.integers(0, 4))):
            x, y = rng.uniform(0, 200, 2)
            w, h = rng.uniform(10, 60, 2)
            category = int(rng.integers(1, 3))
            truth.append({"bbox": [x, y, w, h], "category_id": category})
            if rng.random() < 0.8:
                jitter = rng.normal(0, 4, 4)
                found.append(
                    {
                        "bbox": [x + jitter[0], y + jitter[1], w + jitter[2], h + jitter[3]],
                        "score": float(rng.random()),
                        "category_id": category,
                    }
                )
        if rng.random() < 0.5:
            found.append({"bbox": [5.0, 5.0, 20.0, 20.0], "score": float(rng.random()), "category_id": 1})
        gts.append(truth)
        dts.append(found)
    return gts, dts


def _flat(per_image):
    return [{**a, "image_id": i} for i, items in enumerate(per_image) for a in items]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ap50_module_equals_the_function_on_boxes(load, seed):
    gts, dts = _detections(seed)
    out = load("ap50").compute(
        predictions=[json.dumps(d) for d in dts], references=[json.dumps(g) for g in gts]
    )
    expected = ap50(_flat(dts), _flat(gts))
    assert 0 < expected < 1, "the case must be neither perfect nor empty"
    assert out == {"ap50": pytest.approx(expected, abs=1e-12)}


def test_ap50_module_of_the_ground_truth_itself_is_one(load):
    gts, _ = _detections(3)
    perfect = [[{**a, "score": 1.0} for a in g] for g in gts]
    out = load("ap50").compute(
        predictions=[json.dumps(p) for p in perfect], references=[json.dumps(g) for g in gts]
    )
    assert out["ap50"] == pytest.approx(1.0)


def test_ap50_module_on_rle_masks(load):
    truth = np.zeros((3, 40, 40), dtype=bool)
    truth[0, 5:20, 5:20] = True
    truth[1, 10:30, 20:35] = True
    truth[2, 0:8, 0:40] = True
    pred = np.zeros_like(truth)
    pred[0, 6:20, 5:21] = True  # IoU > 0.5
    pred[1, 28:40, 0:10] = True  # a miss
    pred[2, 0:8, 0:36] = True  # IoU 0.9
    gt_rles, dt_rles = encode_rle(truth), encode_rle(pred)
    references = [json.dumps([{"segmentation": r}]) for r in gt_rles]
    predictions = [
        json.dumps([{"segmentation": r, "score": s}]) for r, s in zip(dt_rles, (0.9, 0.8, 0.7), strict=True)
    ]
    out = load("ap50").compute(predictions=predictions, references=references, iou_type="segm")
    flat_gt = [{"image_id": i, "segmentation": r} for i, r in enumerate(gt_rles)]
    flat_dt = [
        {"image_id": i, "segmentation": r, "score": s}
        for i, (r, s) in enumerate(zip(dt_rles, (0.9, 0.8, 0.7), strict=True))
    ]
    expected = ap50(flat_dt, flat_gt, iou_type="segm")
    assert 0 < expected < 1
    assert out["ap50"] == pytest.approx(expected, abs=1e-12)


def test_ap50_module_names_the_bad_row(load):
    with pytest.raises(ValueError, match=r"predictions\[1\]: not valid JSON"):
        load("ap50").compute(predictions=["[]", "[{"], references=["[]", "[]"])
    with pytest.raises(ValueError, match=r"references\[0\]\[0\]: image_id 7 differs from the row number 0"):
        load("ap50").compute(
            predictions=["[]"], references=[json.dumps([{"image_id": 7, "bbox": [0, 0, 1, 1]}])]
        )
    with pytest.raises(ValueError, match=r"predictions\[0\]: expected a list"):
        load("ap50").compute(predictions=['{"bbox": [0, 0, 1, 1]}'], references=["[]"])


def test_flip_rates_module_equals_the_function(load):
    rng = np.random.default_rng(4)
    clips = ["GT", "A/Early", "B/Late", None]
    orders = ["original", "reversed", "shuffled"]
    answers = ["GT"] * 25
    choices = {o: [clips[int(rng.integers(0, 4))] for _ in answers] for o in orders}
    rows = [json.dumps({o: choices[o][i] for o in orders}) for i in range(len(answers))]
    out = load("flip_rates").compute(predictions=rows, references=answers)
    expected = flip_rates(choices, answers)
    assert out["pairs"] == expected["pairs"]
    assert out["clip_flip_rate"] == pytest.approx(expected["clip_flip_rate"])
    assert out["correctness_flip_rate"] == pytest.approx(expected["correctness_flip_rate"])
    assert 0 < out["clip_flip_rate"] < 1 and len(out["pairs"]) == 3


def test_flip_rates_module_refuses_rows_with_other_orders(load):
    rows = [json.dumps({"a": "GT", "b": "GT"}), json.dumps({"a": "GT", "c": "GT"})]
    with pytest.raises(ValueError, match=r"predictions\[1\]: orders \['a', 'c'\] differ"):
        load("flip_rates").compute(predictions=rows, references=["GT", "GT"])
    with pytest.raises(ValueError, match=r"predictions\[0\]\['a'\]: expected a clip identity"):
        load("flip_rates").compute(predictions=[json.dumps({"a": 3, "b": "GT"})], references=["GT"])


def test_bootstrap_ci_module_equals_the_function_clustered_and_not(load):
    rng = np.random.default_rng(5)
    videos = [f"video{v}" for v in range(12) for _ in range(int(rng.integers(1, 6)))]
    values = [float(rng.random() < 0.6) for _ in videos]
    module = load("bootstrap_ci")
    out = module.compute(predictions=values, references=videos, n_resamples=500, seed=3)
    assert (out["low"], out["high"]) == pytest.approx(bootstrap_ci(values, videos, n_resamples=500, seed=3))
    assert out["estimate"] == pytest.approx(np.mean(values))
    assert out["low"] < out["estimate"] < out["high"]
    flat = module.compute(predictions=values, references=videos, n_resamples=500, seed=3, clustered=False)
    assert (flat["low"], flat["high"]) == pytest.approx(bootstrap_ci(values, None, n_resamples=500, seed=3))
    median = module.compute(predictions=values, references=videos, n_resamples=200, statistic=np.median)
    assert (median["low"], median["high"]) == pytest.approx(
        bootstrap_ci(values, videos, n_resamples=200, statistic=np.median)
    )


def test_bootstrap_ci_module_rejects_nan_values(load):
    with pytest.raises(ValueError, match="NaN"):
        load("bootstrap_ci").compute(predictions=[1.0, float("nan")], references=["v0", "v1"])


MASK = np.zeros((8, 8), np.uint8)
MASK[2:5, 2:6] = 1


@pytest.mark.parametrize(
    "name, predictions, references, key, value",
    [
        ("jaccard", "rle", "rle", "jaccard", 1.0),
        ("boundary_f", "rle", "rle", "boundary_f", 1.0),
        ("ciou", "rle", "rle", "ciou", 1.0),
        ("giou", "rle", "rle", "giou", 1.0),
        ("j_and_f", "rles", "rles", "J&F", 1.0),
        ("rouge_l", ["a red cube"], [["a red cube"]], "rouge_l", 1.0),
        (
            "cider_d",
            ["a red cube moves left", "two spheres spin in place"],
            [["a red cube moves left"], ["two spheres spin in place"]],
            "cider_d",
            10.0,
        ),  # 4+ words: all n-grams
    ],
)
def test_every_mask_and_caption_module_loads_and_scores_a_perfect_match(
    load, name, predictions, references, key, value
):
    rle = encode_rle(MASK[None].astype(bool))[0]
    shapes = {"rle": [rle], "rles": [[rle, rle]]}

    def rows(x):
        return shapes[x] if isinstance(x, str) else x

    out = load(name).compute(predictions=rows(predictions), references=rows(references))
    assert out[key] == pytest.approx(value)
