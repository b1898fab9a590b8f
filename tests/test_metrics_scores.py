"""Accuracy/MAE with INDEFINITE, set-matching P/R/F1, pass@k, flip rates, bootstrap CIs and BERTScore."""

import itertools
import math
import pickle

import numpy as np
import pytest

from harness_metrics import (
    INDEFINITE,
    BertScoreUnavailable,
    accuracy,
    bertscore,
    bootstrap_ci,
    flip_rates,
    mae,
    pass_at_k,
    precision_recall_f1,
)


def test_accuracy_and_mae_with_indefinite():
    preds = [2, INDEFINITE, 3, "indefinite", 5]
    refs = [2, 4, 1, 2, 5]
    assert accuracy(preds, refs) == pytest.approx(2 / 5)  # indefinite counts as wrong
    assert mae(preds, refs) == pytest.approx((0 + 2 + 0) / 3)  # and is left out of MAE
    assert math.isnan(mae([INDEFINITE], [1]))
    assert math.isnan(accuracy([], []))
    assert accuracy([INDEFINITE], [INDEFINITE]) == 0.0
    assert pickle.loads(pickle.dumps(INDEFINITE)) is INDEFINITE
    with pytest.raises(ValueError, match="sample 0"):
        mae(["two"], [2])
    with pytest.raises(ValueError, match="equal lengths"):
        accuracy([1], [1, 2])


def test_precision_recall_f1_hand_cases():
    assert precision_recall_f1([], []) == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "tp": 0.0,
        "fp": 0.0,
        "fn": 0.0,
    }
    assert precision_recall_f1([], ["a"])["f1"] == 0.0
    out = precision_recall_f1(["red cube", "blue sphere", "green cone"], ["red cube", "blue sphere"])
    assert (out["precision"], out["recall"]) == pytest.approx((2 / 3, 1.0))
    assert out["f1"] == pytest.approx(0.8)
    # Partial attributes match: "red" matches only the first truth, "red rubber" both -> maximum matching 2.
    truth = [{"color": "red", "material": "rubber"}, {"color": "red", "material": "metal"}]
    pred = [{"color": "red", "material": "metal"}, {"color": "red"}]

    def subset(p, t):
        return all(t.get(k) == v for k, v in p.items())

    assert precision_recall_f1(pred, truth, subset)["tp"] == 2.0


def test_precision_recall_f1_random_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(40):
        pred = list(rng.integers(0, 4, size=rng.integers(0, 5)))
        truth = list(rng.integers(0, 4, size=rng.integers(0, 5)))

        def match(a, b):
            return abs(int(a) - int(b)) <= 1

        best = 0
        size = max(len(pred), len(truth))
        for perm in itertools.permutations(range(size)):
            pairs = [(i, j) for i, j in enumerate(perm) if i < len(pred) and j < len(truth)]
            best = max(best, sum(match(pred[i], truth[j]) for i, j in pairs))
        assert precision_recall_f1(pred, truth, match)["tp"] == best


def test_pass_at_k_against_enumeration():
    for n, c, k in [(5, 2, 1), (5, 2, 3), (6, 0, 2), (4, 4, 2), (7, 3, 5)]:
        subsets = list(itertools.combinations([1] * c + [0] * (n - c), k))
        expected = sum(1 for s in subsets if any(s)) / len(subsets)
        assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)
    assert pass_at_k([5, 5], [0, 5], 1) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="k"):
        pass_at_k(3, 1, 4)


def test_flip_rates_hand_case():
    answers = ["GT", "GT", "GT", "GT"]
    choices = {
        "orig": ["GT", "A/Early", "GT", None],
        "reversed": ["GT", "A/Late", "S/Rand1", None],
        "shifted": ["GT", "A/Early", "GT", "GT"],
    }
    out = flip_rates(choices, answers)
    pairs = {(p["order_a"], p["order_b"]): p for p in out["pairs"]}
    # orig vs reversed: clips differ on items 1, 2 -> 2/4; correctness differs on item 2 only -> 1/4.
    assert pairs[("orig", "reversed")]["clip_flip_rate"] == 0.5
    assert pairs[("orig", "reversed")]["correctness_flip_rate"] == 0.25
    assert pairs[("orig", "shifted")]["clip_flip_rate"] == 0.25  # None vs GT
    assert pairs[("reversed", "shifted")]["correctness_flip_rate"] == 0.5
    assert out["clip_flip_rate"] == pytest.approx((0.5 + 0.25 + 0.75) / 3)
    with pytest.raises(ValueError, match="order 'b'"):
        flip_rates({"a": [1, 2], "b": [1]}, [1, 2])


def test_bootstrap_ci_deterministic_and_sensible():
    rng = np.random.default_rng(0)
    values = rng.normal(0.6, 0.1, size=400).tolist()
    low, high = bootstrap_ci(values, seed=3)
    assert (low, high) == bootstrap_ci(values, seed=3)
    assert low < np.mean(values) < high
    se = np.std(values, ddof=1) / np.sqrt(len(values))
    assert high - low == pytest.approx(2 * 1.96 * se, rel=0.2)
    assert bootstrap_ci([]) != bootstrap_ci([])  # (nan, nan)
    assert all(math.isnan(v) for v in bootstrap_ci([]))
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)


def test_clustered_bootstrap_resamples_whole_clusters():
    # 20 videos with 10 identical answers each: questions are not independent, so the clustered
    # interval must be much wider than the item-level one.
    video_scores = np.repeat(np.random.default_rng(1).random(20), 10)
    clusters = np.repeat(np.arange(20), 10).tolist()
    item = bootstrap_ci(video_scores.tolist(), seed=0)
    clustered = bootstrap_ci(video_scores.tolist(), clusters=clusters, seed=0)
    assert clustered[1] - clustered[0] > 2 * (item[1] - item[0])
    # A custom statistic sees all items of the drawn clusters (here: median of the mean with that path).
    custom = bootstrap_ci(
        video_scores.tolist(), clusters=clusters, seed=0, statistic=np.mean, n_resamples=300
    )
    assert custom[0] < video_scores.mean() < custom[1]
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_ci([0.1, float("nan")])
    with pytest.raises(ValueError, match="one per value"):
        bootstrap_ci([0.1, 0.2], clusters=["a"])


def test_clustered_bootstrap_matches_straightforward_resampling():
    values = [0.0, 1.0, 1.0, 0.5, 0.2]
    clusters = ["a", "a", "b", "c", "c"]
    got = bootstrap_ci(values, clusters=clusters, seed=7, n_resamples=200)
    via_statistic = bootstrap_ci(values, clusters=clusters, seed=7, n_resamples=200, statistic=np.mean)
    assert got == pytest.approx(via_statistic, abs=1e-12)


def test_bertscore_without_model_says_how_to_provide_one(monkeypatch):
    monkeypatch.delenv("HARNESS_BERTSCORE_MODEL", raising=False)
    with pytest.raises(BertScoreUnavailable, match="model_path"):
        bertscore(["a cube"], [["a cube"]])
    with pytest.raises(BertScoreUnavailable, match="not a folder"):
        bertscore(["a cube"], [["a cube"]], model_path="/nonexistent/model", num_layers=2)


def test_bertscore_with_tiny_local_model(tmp_path, monkeypatch):
    pytest.importorskip("bert_score")
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    words = "[PAD] [UNK] [CLS] [SEP] [MASK] a the red blue cube sphere moves left right".split()
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    transformers.BertTokenizer(str(tmp_path / "vocab.txt"), model_max_length=64).save_pretrained(tmp_path)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
    )
    transformers.BertModel(config).save_pretrained(tmp_path)
    out = bertscore(
        ["a red cube moves left", "the sphere"],
        [["a red cube moves left"], ["a blue cube", "the sphere"]],
        model_path=tmp_path,
        num_layers=2,
    )
    assert out["f1_per_sample"][0] == pytest.approx(1.0, abs=1e-5)  # identical to its reference
    assert out["f1_per_sample"][1] == pytest.approx(1.0, abs=1e-5)  # max over references
    assert 0.0 < out["f1"] <= 1.0 + 1e-6
