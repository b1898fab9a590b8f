"""TempCloze's "not applicable" paths against the rule "a score never improves because something failed"
(docs/reliability.md, TempCloze): what fails is counted, and every figure that leaves it out has a strict
figure beside it that counts it wrong."""

from __future__ import annotations

from harness_tasks.tempcloze.aggregate import aggregate


def record(stem: str, dim: str, valid: bool, right: bool) -> dict:
    """A scored TempCloze sample as the evaluator logs it (target A)."""
    answer = ("A" if right else "B") if valid else None
    return {
        "doc": {"stem": stem, "dimension": dim, "rotation": 0},
        "target": "A",
        "parsed": {"answer": answer, "valid": valid, "extra": {"chosen_kind": None if right else "Rand1"}},
        "error": None,
    }


def model(a_valid: bool) -> list[dict]:
    """Four videos answered right on S and P; on A, wrong (a_valid) or with no usable answer at all."""
    return [
        rec
        for v in ("v1", "v2", "v3", "v4")
        for rec in (record(v, "S", True, True), record(v, "A", a_valid, False), record(v, "P", True, True))
    ]


def test_a_dimension_whose_answers_all_failed_never_raises_the_mean_or_the_joint_figures():
    tries = aggregate(model(a_valid=True), None)
    fails = aggregate(model(a_valid=False), None)
    assert tries["mean_over_dimensions"]["accuracy"] == round(2 / 3, 10)
    # before: the empty A cell was left out and the mean of S and P (1.0) beat the model that tried
    assert fails["mean_over_dimensions"]["accuracy"] is None
    assert (
        fails["mean_over_dimensions"]["accuracy_strict"] == tries["mean_over_dimensions"]["accuracy_strict"]
    )
    # the public joint table leaves out every video with an invalid answer; the strict one counts it wrong
    assert fails["joint"]["n_videos"] == 0 and fails["joint"]["all_3"]["value"] is None
    assert (
        fails["joint_strict"]["all_3"] == tries["joint_strict"]["all_3"] == {"value": 0.0, "count": 0, "n": 4}
    )
    assert fails["joint_strict"]["S+P"]["value"] == tries["joint_strict"]["S+P"]["value"] == 1.0
    assert fails["counts"]["n_invalid"] == 4 and fails["counts"]["accuracy_strict"] < 1.0
