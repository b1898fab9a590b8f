"""A corpus of hostile results and samples files (issue 37), generated from one good run: the frozen
version-1 run of tests/fixtures/results_v1, read as the current schema. Each case is (class, name, mutation);
`write_case` writes the run folder with the case applied. Nothing large is committed: the 50 MB strings and
deep nestings are made here, in tmp_path.

Classes (docs/reliability.md counts them): types (a wrong type in a field), nonfinite (NaN and infinities),
encoding (BOM, truncation, not UTF-8, not an object), size (long strings, deep nesting, a file over the
limit), special (FIFO, device, folder where a file goes), paths (samples files outside the folder), version.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.results.reading import read_results

FIXTURE = Path(__file__).parent / "fixtures" / "results_v1" / "counting"
TASK = "colors_qa"


def good_results() -> dict[str, Any]:
    """The fixture run as a current (version 2) results dict, as the harness writes it."""
    (path,) = FIXTURE.glob("results_*.json")
    data = copy.deepcopy(read_results(path).data)
    data.pop("upgraded_from_schema", None)
    return data


def write_run(folder: Path, results: Any, raw: bytes | None = None) -> Path:
    """The fixture's samples files and a results file (`results` as JSON, or the bytes `raw`) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for sp in FIXTURE.glob("samples_*.jsonl"):
        shutil.copy(sp, folder / sp.name)
    path = folder / "results_2026-12-02T09-20-03.209907.json"
    path.write_bytes(raw if raw is not None else json.dumps(results).encode("utf-8"))
    return path


def set_field(path: str, value: Any) -> Callable[[dict], dict]:
    """A mutation setting the dotted `path` (a missing last key: deleted when value is DELETE)."""

    def apply(data: dict) -> dict:
        node = data
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[k]
        if value is DELETE:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value
        return data

    return apply


DELETE = object()
M = f"task_results.{TASK}.metrics.accuracy"

#: (field, value) cases of a wrong type or a missing field: each must be refused naming the field
TYPE_CASES = [
    (f"{M}.value", "0.9"),
    (f"{M}.value", True),
    (f"{M}.value", [0.9]),
    (f"{M}.ci", "wide"),
    (f"{M}.ci", [0.1, 0.2, 0.3]),
    (f"{M}.n", 2.5),
    (f"task_results.{TASK}.metrics", [1, 2]),
    (f"task_results.{TASK}.n_rows", "24"),
    (f"task_results.{TASK}.n_rows", -1),
    (f"task_results.{TASK}.headline", 3),
    (f"task_results.{TASK}", "ok"),
    ("task_results", [1]),
    ("task_results", DELETE),
    ("model", "a model"),
    ("model.name", {"x": 1}),
    ("model.name", DELETE),
    ("model.name", "m" * 600),
    ("samples_files", 3),
    ("samples_files", ["samples_colors_qa.jsonl"]),
    ("samples_files.colors_qa", 7),
    ("config", []),
    ("config.tasks", "colors_qa"),
    (f"config.tasks.{TASK}.frame_spec_digest", 12),
    ("config.seed", "0"),
    ("results", None),
    (f"results.{TASK}.alias", 1),
    (f"results.{TASK}.accuracy,none", "high"),
    ("n-samples", {TASK: {"original": "24", "effective": 24}}),
    ("complete", "yes"),
    ("schema_version", "2"),
]

#: metric and other values that are no finite number, as JSON text replacing a sentinel string
NONFINITE_CASES = [
    (f"{M}.value", "NaN"),
    (f"{M}.value", "Infinity"),
    (f"{M}.value", "-Infinity"),
    (f"{M}.value", "1e999"),
    (f"{M}.ci", "[NaN, 1.0]"),
    (f"results.{TASK}.accuracy,none", "NaN"),
    ("date", "NaN"),
]

#: samples lines that must be refused naming the file, the line and the field
SAMPLE_CASES = [
    ("scores", "0.5"),
    ("scores", ["accuracy"]),
    ("doc", "a doc"),
    ("task", 5),
    ("parsed", "green"),
    ("error", "boom"),
    ("doc_id", [1]),
]
SAMPLE_NONFINITE = ['{"accuracy": NaN}', '{"accuracy": Infinity}', '{"accuracy": -1e400}']


def with_text(data: dict, path: str, text: str) -> bytes:
    """`data` as JSON with the value at `path` replaced by raw JSON `text` (NaN is not valid JSON: written raw)."""
    marker = "@@HOSTILE@@"
    set_field(path, marker)(data)
    return json.dumps(data).replace(f'"{marker}"', text).encode("utf-8")


def deep(depth: int) -> bytes:
    """A results object holding a list nested `depth` deep."""
    return b'{"model": ' + b"[" * depth + b"]" * depth + b"}"
