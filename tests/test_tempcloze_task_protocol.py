"""TempCloze task plugin: the public protocol's pure parts (frame indices, seeded order, rotations, answer
parsing, chance levels) and the loader on a hand-written release-layout item."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_in
from harness.api import DataError, FrameSpec, Response
from harness.frames.sampler import sample_indices
from harness_tasks.tempcloze.aggregate import chance_levels
from harness_tasks.tempcloze.loader import load
from harness_tasks.tempcloze.parsing import parse, parse_letter
from harness_tasks.tempcloze.protocol import public_frame_indices, rotate, seeded_order

# The task's frame spec (tasks/tempcloze/configs/_base.yaml).
TASK_SPEC = FrameSpec(strategy="segment", count=16, trim=1, max_height=360)

# Hand-computed: 1 + int((i + 0.5) * 58 / 16) for i = 0..15 (a 60-frame clip).
HAND_60 = [2, 6, 10, 13, 17, 20, 24, 28, 31, 35, 39, 42, 46, 49, 53, 57]


def test_frame_indices_match_the_public_formula_by_hand():
    assert public_frame_indices(60) == HAND_60
    assert sample_indices(60, TASK_SPEC, fps=10.0) == HAND_60
    # N - 2 < 16: n = N - 2 frames, 1 + int(i + 0.5) = 1 + i
    assert sample_indices(10, TASK_SPEC, fps=10.0) == [1, 2, 3, 4, 5, 6, 7, 8]
    # single-frame protocol: 1 + int(0.5 * (N - 2))
    assert sample_indices(60, TASK_SPEC.model_copy(update={"count": 1}), fps=10.0) == [30]
    for n in (3, 17, 18, 33, 100, 481):
        for count in (1, 8, 16, 32):
            spec = TASK_SPEC.model_copy(update={"count": count})
            assert sample_indices(n, spec, 30.0) == public_frame_indices(n, count), (n, count)


def test_candidate_order_is_the_public_seeded_shuffle():
    # Pinned from random.Random("42:GF6TR:S").shuffle([GT, Rand1, Rand2, Rand3]) as in the public eval.py;
    # Progression is seeded with the public key "C".
    s = seeded_order(42, "GF6TR", "S", ["GT", "S/Rand1", "S/Rand2", "S/Rand3"])
    assert s == ["S/Rand3", "GT", "S/Rand1", "S/Rand2"]
    p = seeded_order(42, "GF6TR", "P", ["GT", "C/Reverse", "C/Shuffle", "C/Loop"])
    assert p == ["C/Shuffle", "GT", "C/Loop", "C/Reverse"]
    other = seeded_order(7, "GF6TR", "S", ["GT", "S/Rand1", "S/Rand2", "S/Rand3"])
    assert sorted(other) == sorted(s)


def test_rotations_are_cyclic_right_shifts():
    base = ["a", "b", "c", "d"]
    assert [rotate(base, k) for k in range(4)] == [
        ["a", "b", "c", "d"],
        ["d", "a", "b", "c"],
        ["c", "d", "a", "b"],
        ["b", "c", "d", "a"],
    ]


@pytest.mark.parametrize(
    ("text", "letter", "via"),
    [
        ('{"answer": "B", "reason": "fits"}', "B", "json"),
        ('```json\n{"answer": "c", "reason": "x"}\n```', "C", "fenced_json"),
        ('Sure. {"answer": "<D>", "reason": "the {end}"} done', "D", "braces"),
        ("A", "A", "bare_letter"),
        ("Answer: (b).", "B", "bare_letter"),
        ('{"answer": "E", "reason": ""}', None, None),
        ('{"answer": "A, B"}', None, None),
        ("I think the first one", None, None),
        ("a", None, None),
        ("", None, None),
    ],
)
def test_lenient_answer_parsing(text, letter, via):
    got, _, how = parse_letter(text)
    assert got == letter
    if letter:
        assert how == via


def test_parse_marks_invalid_and_names_the_chosen_clip():
    doc = {"options": ["A/Wide", "GT", "A/Early", "A/Late"], "n_samples": 1}
    ok = parse(Response(text='{"answer": "A", "reason": "r"}'), doc)
    assert ok.valid and ok.answer == "A"
    assert (
        ok.extra["chosen"] == "A/Wide"
        and ok.extra["chosen_kind"] == "Wide"
        and ok.extra["chosen_dimension"] == "A"
    )
    bad = parse(Response(text="no idea"), doc)
    assert not bad.valid and bad.answer is None and "no answer letter" in bad.note


def test_chance_levels_are_binomial():
    c = chance_levels()
    assert c["accuracy"] == 0.25
    assert c["at_least_1"] == pytest.approx(1 - 0.75**3)
    assert c["at_least_2"] == pytest.approx(3 * 0.25**2 * 0.75 + 0.25**3)
    assert c["all_3"] == pytest.approx(0.25**3)
    assert c["pair"] == pytest.approx(0.0625)


# -- the release layout, written by hand ------------------------------------------------------------------
CLIPS = ["before", "GT", "after", "S/Rand1", "S/Rand2", "S/Rand3", "A/Early", "A/Late", "A/Wide"]


@pytest.fixture(scope="module")
def release_root(tmp_path_factory) -> Path:
    """One stem in the release layout, Progression under P/ (as some public scripts store it)."""
    from harness.frames.writer import write_video

    root = tmp_path_factory.mktemp("release")
    stem = root / "choices" / "vid-1|P1|0|40"
    for i, name in enumerate([*CLIPS, "P/Reverse", "P/Shuffle", "P/Loop"]):
        frames = [
            np.full((24, 32, 3), (10 * i + t) % 256, np.uint8) for t in range(60 if name == "before" else 20)
        ]
        write_video(stem / f"{name}.mp4", frames, fps=10)
    (root / "mixed_ids.json").write_text(
        json.dumps([{"stem": "vid-1|P1|0|40", "S": "S/Rand2.mp4", "A": "A/Wide.mp4", "P": "C/Loop.mp4"}])
    )
    return root


def test_loader_reads_the_release_layout(release_root):
    docs = load(release_root, "test", {})
    assert [d["id"] for d in docs] == ["vid-1|P1|0|40|S", "vid-1|P1|0|40|A", "vid-1|P1|0|40|P"]
    prog = docs[2]
    assert prog["mode"] == "files" and prog["order_source"] == "seeded"
    assert prog["options"] == seeded_order(
        42, "vid-1|P1|0|40", "P", ["GT", "C/Reverse", "C/Shuffle", "C/Loop"]
    )
    assert prog["clips"]["C/Loop"]["path"] == "choices/vid-1|P1|0|40/P/Loop.mp4"  # P/ fallback
    assert prog["options"][ord(prog["answer"]) - 65] == "GT"
    mixed = load(release_root, "test", {"subset": "mixed"})
    assert mixed[0]["options"] == seeded_order(
        42, "vid-1|P1|0|40", None, ["GT", "S/Rand2", "A/Wide", "C/Loop"]
    )
    assert mixed[0]["option_dims"][mixed[0]["options"].index("C/Loop")] == "P"


def test_loader_errors_name_the_file_and_the_fix(release_root, tmp_path):
    with pytest.raises(
        DataError,
        match=r"no items in .*looked for choices, TempCloze/choices .*harness build tempcloze.*huggingface-cli download CedPei/TempCloze",
    ):
        load(tmp_path, "test", {})
    with pytest.raises(DataError, match=r"subset_ids.json not found.*tempcloze-hard"):
        load(release_root, "test", {"subset": "hard"})
    with pytest.raises(DataError, match=r"no 'train' split"):
        load(release_root, "train", {})
    with pytest.raises(DataError, match=r"unknown dataset option"):
        load(release_root, "test", {"colour": 1})


def test_hard_uses_the_release_fixed_permutations(release_root, tmp_path):
    import shutil

    root = tmp_path / "r"
    shutil.copytree(release_root, root)
    (root / "subset_ids.json").write_text(json.dumps(["vid-1|P1|0|40"]))
    fixed = [["S/Rand2.mp4", False], ["S/Rand1.mp4", False], ["GT.mp4", True], ["S/Rand3.mp4", False]]
    (root / "subset").mkdir()
    (root / "subset" / "fixed_permutations.json").write_text(json.dumps({"vid-1|P1|0|40|S": fixed}))
    docs = {d["dimension"]: d for d in load(root, "test", {"subset": "hard", "rotations": [0, 1, 2, 3]})}
    assert len(load(root, "test", {"subset": "hard", "rotations": [0, 1, 2, 3]})) == 12
    assert docs["S"]["order_source"] == "fixed_permutations"
    assert docs["A"]["order_source"] == "seeded"  # not listed: the seeded order
    s = [d for d in load(root, "test", {"subset": "hard", "rotations": [0, 1]}) if d["dimension"] == "S"]
    assert s[0]["options"] == ["S/Rand2", "S/Rand1", "GT", "S/Rand3"] and s[0]["answer"] == "C"
    assert s[1]["options"] == ["S/Rand3", "S/Rand2", "S/Rand1", "GT"] and s[1]["answer"] == "D"


def test_requests_use_the_hand_checked_indices_and_labels(release_root, tmp_path):
    out = run_in(tmp_path, ["tempcloze_all"], "tempcloze_edge", release_root)
    res = out.results["task_results"]["tempcloze_all"]
    assert res["n_samples"] == 3 and res["n_errors"] == 0
    lines = [json.loads(x) for x in out.samples_paths["tempcloze_all"].read_text().splitlines()]
    for rec in lines:
        media = rec["media"]
        assert [m["label"] for m in media] == ["[BEGINNING]", "[END]"] + [f"[Candidate {c}]" for c in "ABCD"]
        assert media[0]["indices"] == HAND_60  # before.mp4 has 60 frames
        # 20 frames: 1 + int((i + 0.5) * 18 / 16), by hand
        assert all(
            m["indices"] == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18] for m in media[1:]
        )
        shown = [m["path"].split("/", 2)[2].removesuffix(".mp4") for m in media[2:]]
        assert [s.replace("P/", "C/") for s in shown] == rec["doc"]["options"]
        assert rec["prompt"].startswith("You are given:\n- **BEGINNING**")


def _request(before, after, cands):
    from harness.api import Message, Request, TextPart, VideoPart, VideoRef

    parts = [TextPart("prompt")]
    clips = [("[BEGINNING]", before), ("[END]", after)] + [(f"[Candidate {k}]", v) for k, v in cands.items()]
    for label, frames in clips:
        if frames is not None:
            parts += [TextPart(label), VideoPart(ref=VideoRef(path="x.mp4"), frames=frames, label=label)]
    return Request([Message("user", parts)])


def _pattern(t0: int, n: int, step: int = 1) -> np.ndarray:
    """Frames of a bright bar sliding right, starting at column t0 (deterministic texture)."""
    rng = np.random.default_rng(0)
    base = rng.integers(0, 255, (32, 96, 3), dtype=np.uint8)
    return np.stack([np.roll(base, -(t0 + step * t), axis=1)[:, :48] for t in range(n)])


def test_edge_baseline_picks_the_clip_that_continues_the_context():
    from harness_tasks.tempcloze.baselines.edge import EdgeModel

    before, gt, after = _pattern(0, 16), _pattern(16, 16), _pattern(32, 16)
    cands = {"A": _pattern(40, 16), "B": gt[::-1].copy(), "C": gt, "D": _pattern(5, 16)}
    resp = EdgeModel().generate([_request(before, after, cands)])[0]
    assert json.loads(resp.text)["answer"] == "C"
    assert set(resp.structured["scores"]) == set("ABCD")
    assert sum(resp.structured["probabilities"].values()) == pytest.approx(1.0, abs=1e-5)
    # one context side only (context-direction requests) still answers
    only_begin = EdgeModel().generate([_request(before, None, cands)])[0]
    assert json.loads(only_begin.text)["answer"] in "ABCD"
    # no labelled clips: an empty (invalid) answer, not an exception
    assert EdgeModel().generate([_request(None, None, {})])[0].text == ""


def test_single_frame_baseline_uses_one_frame_per_clip():
    from harness_tasks.tempcloze.baselines.single_frame import SingleFrameModel

    before, after = _pattern(0, 16), _pattern(32, 16)
    gt = _pattern(16, 16)
    reversed_gt = gt[::-1].copy()
    # only the middle frame counts: GT and its reversal differ there, frames elsewhere are irrelevant
    cands = {"A": _pattern(70, 16), "B": gt, "C": _pattern(80, 16), "D": reversed_gt}
    model = SingleFrameModel()
    scores = model.scores(_request(before, after, cands))
    assert max(scores, key=scores.get) in ("B", "D")
    changed = gt.copy()
    changed[:8] = 0  # frames before the middle one do not change the score
    assert model.scores(_request(before, after, {**cands, "B": changed}))["B"] == pytest.approx(scores["B"])
