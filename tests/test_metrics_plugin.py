"""Registration through pluggy, loading as local `evaluate` modules, and the bench script's fast run."""

import ast
import importlib
from pathlib import Path

import pluggy
import pytest

import harness_metrics as metrics
from harness_metrics import plugin

MODULES = Path(metrics.__file__).parent / "evaluate_modules"


def test_plugin_registers_every_public_metric_lazily():
    manager = pluggy.PluginManager("harness")
    registered = {}

    def register(name, factory, description=""):
        registered[name] = (factory, description)

    manager.register(plugin)
    manager.hook.register_metrics(register=register)
    expected = {
        "jaccard",
        "boundary_f",
        "j_and_f",
        "ciou",
        "giou",
        "giou_boxes",
        "ap50",
        "bleu4",
        "rouge_l",
        "cider_d",
        "bertscore",
        "accuracy",
        "mae",
        "precision_recall_f1",
        "pass_at_k",
        "flip_rates",
        "bootstrap_ci",
    }
    assert set(registered) == expected
    for _name, (reference, description) in registered.items():
        module, attr = reference.split(":")
        assert callable(getattr(importlib.import_module(module), attr))
        assert description and "\n" not in description
        assert getattr(metrics, attr) is getattr(importlib.import_module(module), attr)


def test_metrics_package_does_not_import_the_project_or_evaluate():
    for path in Path(metrics.__file__).parent.glob("*.py"):
        tops = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                tops |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                tops.add(node.module.split(".")[0])
        assert not tops & {"harness", "harness_tasks", "harness_models", "harness_builders"}, path
        assert "evaluate" not in tops, path


def test_accuracy_loads_as_local_evaluate_module(evaluate_offline):
    module = evaluate_offline.load(str(MODULES / "accuracy"))
    out = module.compute(predictions=["yes", "indefinite", "2"], references=["yes", "no", "3"])
    assert out == {"accuracy": pytest.approx(1 / 3)}


def test_caption_metrics_load_as_local_evaluate_modules(evaluate_offline):
    cands = ["a red cube moves to the left", "the blue sphere rotates"]
    refs = [["a red cube moves left", "the red cube slides to the left"], ["a blue sphere is rotating"]]
    assert evaluate_offline.load(str(MODULES / "cider_d")).compute(predictions=cands, references=refs)[
        "cider_d"
    ] == pytest.approx(metrics.cider_d(cands, refs))
    assert evaluate_offline.load(str(MODULES / "bleu4")).compute(predictions=cands, references=refs)[
        "bleu4"
    ] == pytest.approx(metrics.bleu4(cands, refs))


def test_every_evaluate_module_folder_is_named_for_its_script():
    folders = [p for p in MODULES.iterdir() if p.is_dir() and not p.name.startswith("_")]
    assert len(folders) >= 10
    for folder in folders:
        assert (folder / f"{folder.name}.py").is_file()


def test_bench_fast_run_reports_both_figures():
    bench = importlib.import_module("bench.bench_metrics") if Path("bench/__init__.py").exists() else None
    if bench is None:
        spec = importlib.util.spec_from_file_location(
            "bench_metrics", Path(__file__).parents[1] / "bench" / "bench_metrics.py"
        )
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
    rows = bench.run(fast=True)
    assert len(rows) == 2
    for row in rows:
        assert {"figure", "ours", "baseline", "ratio", "unit", "target"} <= set(row)
        assert row["ours"] > 0 and row["baseline"] > 0
