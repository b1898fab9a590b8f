"""`python -m harness import tempcloze-official`: the public repository's per-item outputs become samples
and results by the --rescore path, equal to the public analysis report (eval_results/analyze.py), and
`compare` pairs a harness run with an imported model item by item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tempcloze_helpers import build_tempcloze, run_tasks, samples

from harness.cli.main import main
from harness.results.writer import validate_results

# option maps as the public eval.py writes them (letter -> clip kind)
S_MAP = {"A": "Rand3", "B": "GT", "C": "Rand1", "D": "Rand2"}
A_MAP = {"A": "Early", "B": "Late", "C": "GT", "D": "Wide"}
C_MAP = {"A": "Reverse", "B": "Shuffle", "C": "Loop", "D": "GT"}


def entry(omap: dict, answer, **extra) -> dict:
    expected = next(k for k, v in omap.items() if v == "GT")
    return {
        "correct": answer == expected,
        "answer": answer,
        "expected": expected,
        "reason": "because",
        "option_map": omap,
        **extra,
    }


def official_file(path: Path) -> Path:
    """Five videos in the format of the public eval.py (API run: Progression keyed "C").

    v1 (keyed by a release-style stem holding "|") all right; v2 S right, A -> Wide, C -> Reverse; v3 S -> Rand1, A right, C unparsable (the public
    run gave up after its retries: answer null, with an error, although the raw reply is a bare "C" that a
    lenient parser would read); v4 S right, A -> Early, C right; v5 only S, wrong (-> Rand2).
    """
    data = {
        "v1": {"S": entry(S_MAP, "B"), "A": entry(A_MAP, "C"), "C": entry(C_MAP, "D")},
        "v2": {"S": entry(S_MAP, "B"), "A": entry(A_MAP, "D"), "C": entry(C_MAP, "A")},
        "v3": {
            "S": entry(S_MAP, "C"),
            "A": entry(A_MAP, "C"),
            "C": entry(C_MAP, None, error="Cannot parse answer from response: C", raw_original="C"),
        },
        "v4": {"S": entry(S_MAP, "b"), "A": entry(A_MAP, "A"), "C": entry(C_MAP, "D")},
        "v5": {"S": entry(S_MAP, "D")},
    }
    # the release has stems holding "|" (e.g. "26k-11-2-3|P1|2374|2783"); one first would not confuse the reader
    data = {"26k-1|P1|0|9": data.pop("v1"), **data}
    path.write_text(json.dumps(data, indent=2))
    return path


# The public analyze.py report for that file, computed by its formulas (valid = answer in A-D after
# upper-casing; accuracies over valid entries; joint over stems with S, A and C all valid: v1, v2, v4).
OFFICIAL_REPORT = {
    "num_stems": 3,
    "skipped": 1,
    "S_acc": 3 / 5,  # v1 v2 v4 of v1..v5
    "A_acc": 2 / 4,  # v1 v3 of v1..v4
    "C_acc": 2 / 3,  # v1 v4 of v1 v2 v4
    "acc": 7 / 12,
    "S+A": 1 / 3,  # v1
    "S+C": 2 / 3,  # v1 v4
    "A+C": 1 / 3,  # v1
    "S+A+C": 1 / 3,  # v1
    "error_source": {
        "A": {"total": 2, "Early": {"count": 1, "pct": 0.5}, "Late": {"count": 0, "pct": 0.0},
              "Wide": {"count": 1, "pct": 0.5}},
        "C": {"total": 1, "Reverse": {"count": 1, "pct": 1.0}, "Shuffle": {"count": 0, "pct": 0.0},
              "Loop": {"count": 0, "pct": 0.0}},
    },
}  # fmt: skip


def as_official_report(tables: dict) -> dict:
    """The harness's tables written in the public report's fields (the mapping docs/benchmarks states)."""
    per, joint = tables["per_dimension"], tables["joint"]
    report = {
        "num_stems": joint["n_videos"],
        "skipped": tables["counts"]["n_invalid"],
        "S_acc": per["S"]["accuracy"],
        "A_acc": per["A"]["accuracy"],
        "C_acc": per["P"]["accuracy"],
        "acc": tables["overall"]["accuracy"],
        "S+A": joint["S+A"]["value"],
        "S+C": joint["S+P"]["value"],
        "A+C": joint["A+P"]["value"],
        "S+A+C": joint["all_3"]["value"],
        "error_source": {},
    }
    for dim, key in (("A", "A"), ("P", "C")):
        src = tables["error_sources"][dim]
        if not src["n_errors"]:  # the public report writes error_source.<dim> only when there are errors
            continue
        report["error_source"][key] = {
            "total": src["n_errors"],
            **{
                k: {"count": v["count"], "pct": round(v["share_of_errors"], 4)}
                for k, v in src["chosen"].items()
            },
        }
    return report


def _import(tmp_path: Path, *files: Path, commit: str = "1b9e1b87872aadb3f77a702fd2b6c7fb6094151a") -> Path:
    out = tmp_path / "imported"
    code = main(["import", "tempcloze-official", *map(str, files), "--out", str(out), "--commit", commit])
    assert code == 0
    return out


def test_imported_results_equal_the_official_analysis_report(tmp_path):
    src = official_file(tmp_path / "claude-x.json")
    out = _import(tmp_path, src)
    [results_path] = (out / "claude-x").glob("results_*.json")
    results = json.loads(results_path.read_text())
    validate_results(results)  # an ordinary results file
    res = results["task_results"]["tempcloze_all"]
    got, want = as_official_report(res["tables"]), dict(OFFICIAL_REPORT)
    assert got.pop("error_source") == want.pop("error_source")
    assert got == pytest.approx(want)
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(7 / 12)
    # provenance: the source file, its content hash, the repository commit; the numbers came by --rescore
    prov = results["imported_from"]
    assert prov["file"] == str(src) and prov["commit"].startswith("1b9e1b8") and len(prov["sha256"]) == 64
    assert prov["format"] == "eval" and prov["entries"] == 13 and prov["dropped"] == []
    assert results["rescored_from"] == [results["samples_files"]["tempcloze_all"]]
    assert results["model"]["name"] == "claude-x"
    # the samples file: harness doc ids (C -> P), the unparsable public reply kept but still invalid
    recs = {r["doc_id"]: r for r in samples_of(results_path, "tempcloze_all")}
    want = [f"{v}|{d}" for v in ("26k-1|P1|0|9", "v2", "v3", "v4") for d in "SAP"] + ["v5|S"]
    assert sorted(recs) == sorted(want)
    bad = recs["v3|P"]
    assert bad["parsed"]["valid"] is False and bad["imported"]["raw_original"] == "C"
    assert recs["v2|A"]["parsed"]["extra"]["chosen"] == "A/Wide"


def samples_of(results_path: Path, task: str) -> list[dict]:
    name = json.loads(results_path.read_text())["samples_files"][task]
    return [json.loads(x) for x in (results_path.parent / name).read_text().splitlines()]


def test_mixed_and_subset_files_import_into_their_tasks(tmp_path):
    mixed = {
        "m1": {**entry({"A": "Shuffle", "B": "Early", "C": "Rand3", "D": "GT"}, "A"),
               "option_dim": {"A": "C", "B": "A", "C": "S", "D": "GT"}, "error_dim": "C"},
        "m2": {**entry({"A": "GT", "B": "Late", "C": "Reverse", "D": "Rand1"}, "A"),
               "option_dim": {"A": "GT", "B": "A", "C": "C", "D": "S"}, "error_dim": None},
    }  # fmt: skip
    frames = {
        f"h1|{d}|{n}": {"num_frames": n, "answer": "B", "option_map": m, "correct": True}
        for d, m in (("S", S_MAP), ("C", C_MAP))
        for n in (8, 12)
    }
    perm = {f"h1|A|perm{p}": entry(A_MAP, "C" if p in "AB" else "D") for p in "ABCD"}
    paths = []
    for name, data in (("gemini-2.5-pro", mixed), ("frames_seed", frames), ("permutation_seed", perm)):
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
        paths.append(tmp_path / f"{name}.json")
    out = _import(tmp_path, *paths)
    mixed_res = json.loads(next((out / "gemini-2.5-pro").glob("results_*.json")).read_text())["task_results"]
    tb = mixed_res["tempcloze_mixed"]["tables"]["mixed"]
    assert tb["accuracy"] == 0.5 and tb["error_sources_by_dimension"]["chosen"]["P"]["count"] == 1
    seed = [json.loads(p.read_text()) for p in (out / "seed").glob("results_*.json")]
    tasks = {t: r for s in seed for t, r in s["task_results"].items()}
    assert sorted(tasks) == ["tempcloze_hard_frames12", "tempcloze_hard_frames8", "tempcloze_hard_reorder"]
    # frames: S answered B = GT (right), C answered B = Shuffle (wrong), at both densities
    assert tasks["tempcloze_hard_frames8"]["tables"]["per_dimension"]["S"]["accuracy"] == 1.0
    assert tasks["tempcloze_hard_frames12"]["tables"]["per_dimension"]["P"]["accuracy"] == 0.0
    reorder = tasks["tempcloze_hard_reorder"]["tables"]["reordering"]["overall"]
    assert reorder["accuracy_by_order"] == {"r0": 1.0, "r1": 1.0, "r2": 0.0, "r3": 0.0}
    assert reorder["accuracy_range"] == 1.0


def test_context_span_and_passk_files_import_into_their_tasks(tmp_path):
    be = {
        f"h1|S|{m}": {"mode": m, "answer": a, "option_map": S_MAP, "correct": a == "B"}
        for m, a in (("B", "B"), ("E", "A"), ("BE", "B"))
    }
    span = {
        f"h1|A|{c}": {"condition": c, "answer": "C" if c in ("K1", "Full") else "D", "option_map": A_MAP}
        for c in ("K1", "K4", "K8", "K12", "Full")
    }
    # pass@k: 5 repeats of h1|S (2 right), 3 of h1|C (the script keeps successful repeats only; 0 right)
    passk = {f"h1|S|r{i}": {"answer": "B" if i in (1, 3) else "A", "option_map": S_MAP} for i in range(5)}
    passk |= {f"h1|C|r{i}": {"answer": "A", "option_map": C_MAP} for i in range(3)}
    paths = []
    for name, data in (("be_m", be), ("boundary_k_m", span), ("passk_m", passk)):
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
        paths.append(tmp_path / f"{name}.json")
    out = _import(tmp_path, *paths)
    tasks = {
        t: r
        for p in (out / "m").glob("results_*.json")
        for t, r in json.loads(p.read_text())["task_results"].items()
    }
    acc = {t: r["metrics"]["accuracy"]["value"] for t, r in tasks.items() if "accuracy" in r["metrics"]}
    assert acc["tempcloze_hard_beginning"] == 1.0 and acc["tempcloze_hard_end"] == 0.0
    assert acc["tempcloze_hard"] == 1.0
    span_table = tasks["tempcloze_hard_span"]["tables"]["visible_span"]
    assert span_table["conditions"] == ["K1", "K4", "K8", "K12", "Full"]
    assert [span_table["by_condition"][c]["overall"]["accuracy"] for c in span_table["conditions"]] == [
        1,
        0,
        0,
        0,
        1,
    ]
    pk = tasks["tempcloze_hard_passk"]["tables"]["pass_at_k"]
    # plot_dims.py: pass@k = 1 - C(n-c, k)/C(n, k) per item with n >= k, averaged: S n=5 c=2, P n=3 c=0
    assert pk["per_dimension"]["S"]["pass@2"]["value"] == pytest.approx(1 - 3 / 10)
    assert pk["overall"]["pass@1"]["value"] == pytest.approx((2 / 5 + 0) / 2)
    assert pk["overall"]["pass@4"] == {"value": pytest.approx(1 - 0 / 5), "n": 1}
    assert pk["valid_samples_per_item"] == {"3": 1, "5": 1}


def test_malformed_entries_are_dropped_with_a_reason_and_bad_files_fail_clearly(tmp_path, capsys):
    data = {"v1": {"S": entry(S_MAP, "B"), "A": {"answer": "A", "option_map": {"A": "GT"}}}}
    (tmp_path / "m.json").write_text(json.dumps(data))
    out = _import(tmp_path, tmp_path / "m.json")
    results = json.loads(next((out / "m").glob("results_*.json")).read_text())
    [drop] = results["imported_from"]["dropped"]
    assert drop["key"] == "v1|A" and drop["reason"] == "malformed_entry" and "option_map" in drop["detail"]
    (tmp_path / "broken.json").write_text("{not json")
    code = main(["import", "tempcloze-official", str(tmp_path / "broken.json"), "--out", str(tmp_path / "o")])
    assert code != 0 and "broken.json is not valid JSON" in capsys.readouterr().err


def test_compare_pairs_a_harness_run_with_an_imported_model(tmp_path, capsys):
    root = build_tempcloze(tmp_path, 3, virtual=True)
    run = run_tasks(tmp_path, root / "tempcloze", ["tempcloze_all"], "oracle")
    # the imported model: the public format over the same items (same candidate orders), always "A"
    data: dict = {}
    for rec in samples(run, "tempcloze_all"):
        doc = rec["doc"]
        omap = {letter: kind for letter, kind in zip("ABCD", doc["option_kinds"], strict=True)}
        key = {"S": "S", "A": "A", "P": "C"}[doc["dimension"]]
        data.setdefault(doc["stem"], {})[key] = entry(omap, "A")
    (tmp_path / "always-a.json").write_text(json.dumps(data))
    out = _import(tmp_path, tmp_path / "always-a.json")
    imported = next((out / "always-a").glob("results_*.json"))
    capsys.readouterr()
    code = main(["compare", str(imported), str(run.results_path), "--tasks", "tempcloze_all"])
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("| tempcloze_all | **accuracy** |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # always "A" is right where GT sits under A; the oracle always: every item paired, delta = 1 - base
    base = sum(rec["doc"]["answer"] == "A" for rec in samples(run, "tempcloze_all")) / len(
        samples(run, "tempcloze_all")
    )
    assert cells[2] == f"{base:.4f}" and cells[3] == "1.0000"
    assert cells[6] == str(len(samples(run, "tempcloze_all"))) and cells[7] == "improved"
    assert code == 0


# ---- answer-less entries, all-error files and batches: as the public analyze.py counts them ---------------


def analyze_reference(data: dict) -> dict:
    """The public eval_results/analyze.py `analyze_model` report, its formulas restated (valid: a dict whose
    answer is A-D after strip/upper; accuracies over valid entries; joint over stems with S, A and C all
    valid; an empty cell is written 0)."""
    dims, valid_letters = ("S", "A", "C"), {"A", "B", "C", "D"}

    def is_valid(e):
        return (
            isinstance(e, dict)
            and isinstance(e.get("answer"), str)
            and e["answer"].strip().upper() in valid_letters
        )

    right, total, skipped = dict.fromkeys(dims, 0), dict.fromkeys(dims, 0), 0
    for entries in data.values():
        for d in dims:
            if d not in entries:
                continue
            if not is_valid(entries[d]):
                skipped += 1
                continue
            total[d] += 1
            right[d] += bool(entries[d].get("correct"))
    groups = {"S+A": "SA", "S+C": "SC", "A+C": "AC", "S+A+C": "SAC"}
    joint, stems = dict.fromkeys(groups, 0), 0
    for entries in data.values():
        if all(d in entries and is_valid(entries[d]) for d in dims):
            stems += 1
            for name, g in groups.items():
                joint[name] += all(entries[d].get("correct") for d in g)
    report = {"num_stems": stems, "skipped": skipped}
    report |= {f"{d}_acc": right[d] / total[d] if total[d] else 0 for d in dims}
    report["acc"] = sum(right.values()) / sum(total.values()) if sum(total.values()) else 0
    report |= {name: joint[name] / stems if stems else 0 for name in groups}
    return report


def harness_as_report(tables: dict) -> dict:
    """The harness's tables in the public report's fields, an empty cell (None, n = 0) written 0 as the
    public report writes it (docs/benchmarks/tempcloze.md)."""
    got = as_official_report(tables)
    got.pop("error_source")
    return {k: 0 if v is None else v for k, v in got.items()}


def vllm_error(omap: dict) -> dict:
    """An entry the public eval_vllm.py writes after its retries failed: no answer and no option_map."""
    return {"used_num_frames": 16, "correct": False, "answer": None,
            "expected": next(k for k, v in omap.items() if v == "GT"), "reason": None, "option_map": None,
            "error": "vLLM HTTP 400: Bad Request. too many images", "raw_original": None, "raw": None}  # fmt: skip


def nemotron_like(path: Path) -> dict:
    """A file shaped like the public open-model files: most entries answer-less with option_map null
    (eval_vllm.py), some answered, one answer-less entry keeping its option_map (eval.py), one `null`
    entry, one answer outside A-D, one dimension missing."""
    data: dict = {}
    for i in range(12):
        answered = i % 4 == 0
        data[f"s{i}"] = {
            "S": entry(S_MAP, "B" if i % 8 == 0 else "A") if answered else vllm_error(S_MAP),
            "A": entry(A_MAP, "C") if answered else vllm_error(A_MAP),
            "C": entry(C_MAP, "D") if answered or i == 5 else vllm_error(C_MAP),
        }
    data["s1"]["A"] = entry(A_MAP, None, error="Cannot parse answer from response: maybe C", raw_original="C")
    data["s2"]["S"] = None
    data["s3"]["A"] = entry(A_MAP, "E")
    del data["s6"]["C"]
    path.write_text(json.dumps(data, indent=2))
    return data


def test_compare_flags_a_new_run_whose_answers_are_all_invalid(tmp_path, capsys):
    """Before: the new run's headline was None (accuracy over valid answers: none) and the row said "ok", exit 0."""
    root = build_tempcloze(tmp_path, 3, virtual=True)
    run = run_tasks(tmp_path, root / "tempcloze", ["tempcloze_all"], "oracle")
    data: dict = {}
    for rec in samples(run, "tempcloze_all"):
        omap = dict(zip("ABCD", rec["doc"]["option_kinds"], strict=True))
        data.setdefault(rec["doc"]["stem"], {})[{"S": "S", "A": "A", "P": "C"}[rec["doc"]["dimension"]]] = (
            vllm_error(omap)
        )
    (tmp_path / "all-invalid.json").write_text(json.dumps(data))
    new = next((_import(tmp_path, tmp_path / "all-invalid.json") / "all-invalid").glob("results_*.json"))
    assert json.loads(new.read_text())["task_results"]["tempcloze_all"]["metrics"]["accuracy"]["value"] is None
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    code = main(["compare", str(run.results_path), str(new), "--tasks", "tempcloze_all", "--out", str(out)])
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("| tempcloze_all | **accuracy** |"))
    assert row.rstrip().endswith("| REGRESSION (no value) |") and code == 4
    delta = next(d for d in json.loads(out.read_text())["deltas"] if d["metric"] == "accuracy")
    assert delta["lost"] and delta["regression"] and delta["base"] == 1.0 and delta["new"] is None
    # a high threshold does not excuse a lost value; the reverse direction gates nothing
    assert main(["compare", str(run.results_path), str(new), "--tasks", "tempcloze_all", "--threshold", "1"]) == 4
    capsys.readouterr()
    assert main(["compare", str(new), str(run.results_path), "--tasks", "tempcloze_all"]) == 0
    assert "| no value in base |" in capsys.readouterr().out


def test_answer_less_entries_count_as_invalid_in_the_strict_accuracy_and_the_invalid_total(tmp_path):
    data = nemotron_like(tmp_path / "NVIDIA-Nemotron-like.json")
    out = _import(tmp_path, tmp_path / "NVIDIA-Nemotron-like.json")
    results = json.loads(next((out / "NVIDIA-Nemotron-like").glob("results_*.json")).read_text())
    res = results["task_results"]["tempcloze_all"]
    want = analyze_reference(data)
    assert harness_as_report(res["tables"]) == pytest.approx(want)
    assert res["n_invalid"] == want["skipped"] == 25 and res["n_dropped"] == 0
    assert results["imported_from"]["dropped"] == [] and res["n_scored"] == 35
    correct = res["tables"]["counts"]["n_correct"]
    # before: the 25 answer-less entries were dropped and strict accuracy equalled the headline
    assert res["metrics"]["accuracy_strict"]["value"] == pytest.approx(correct / 35)
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(correct / 10)
    recs = {
        r["doc_id"]: r
        for r in samples_of(next((out / "NVIDIA-Nemotron-like").glob("results_*.json")), "tempcloze_all")
    }
    assert recs["s1|A"]["parsed"]["valid"] is False and recs["s1|A"]["imported"]["raw_original"] == "C"
    assert recs["s3|S"]["doc"]["options"] == [] and recs["s3|S"]["target"] == "B"


def test_an_all_error_file_imports_as_all_invalid_with_empty_cells_none(tmp_path):
    data = {
        f"m{i}": {d: vllm_error(m) for d, m in (("S", S_MAP), ("A", A_MAP), ("C", C_MAP))} for i in range(4)
    }
    (tmp_path / "Molmo2-8B.json").write_text(json.dumps(data))
    out = _import(tmp_path, tmp_path / "Molmo2-8B.json")
    results = json.loads(next((out / "Molmo2-8B").glob("results_*.json")).read_text())
    res = results["task_results"]["tempcloze_all"]
    assert res["n_invalid"] == 12 and res["n_scored"] == 12 and results["complete"] is True
    tables = res["tables"]
    # one rule for empty cells: None (n 0 beside it), where the public report writes 0
    assert tables["per_dimension"]["S"]["accuracy"] is None and tables["joint"]["all_3"] == {
        "value": None, "count": 0, "n": 0}  # fmt: skip
    assert tables["mean_over_dimensions"]["accuracy"] is None
    assert res["metrics"]["accuracy"]["value"] is None and res["metrics"]["accuracy_strict"]["value"] == 0.0
    assert tables["joint_strict"]["all_3"] == {"value": 0.0, "count": 0, "n": 4}
    assert harness_as_report(tables) == analyze_reference(data)


def test_one_unreadable_file_is_reported_and_the_batch_goes_on(tmp_path, capsys):
    official_file(tmp_path / "first.json")
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "last.json").write_text("\ufeff" + json.dumps({"v1": {"S": entry(S_MAP, "B")}}))  # a BOM
    files = [tmp_path / n for n in ("first.json", "broken.json", "missing.json", "last.json")]
    code = main(["import", "tempcloze-official", *map(str, files), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "broken.json is not valid JSON" in err and "missing.json is not a file" in err
    assert "2 of 4 files not imported" in err
    assert list((tmp_path / "o" / "first").glob("results_*.json"))
    assert list((tmp_path / "o" / "last").glob("results_*.json"))


def test_an_entry_of_the_mixed_analysis_without_an_answer_is_invalid_not_dropped(tmp_path):
    ok = {**entry({"A": "Shuffle", "B": "Early", "C": "Rand3", "D": "GT"}, "D"),
          "option_dim": {"A": "C", "B": "A", "C": "S", "D": "GT"}, "error_dim": None}  # fmt: skip
    data = {"m1": ok, "m2": {**ok, "answer": None, "option_map": None, "option_dim": None}}
    (tmp_path / "mixed-model.json").write_text(json.dumps(data))
    out = _import(tmp_path, tmp_path / "mixed-model.json")
    res = json.loads(next((out / "mixed-model").glob("results_*.json")).read_text())["task_results"]
    tb = res["tempcloze_mixed"]
    assert tb["n_invalid"] == 1 and tb["metrics"]["accuracy_strict"]["value"] == 0.5
    assert tb["metrics"]["accuracy"]["value"] == 1.0
