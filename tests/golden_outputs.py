"""Digests of a run's results and samples files with what legitimately varies between runs taken out.

Used to show that a change which should not change behaviour (a refactor, a file move) leaves every value
of every output file as it was: timestamps, the git hash, package versions and the output folder's path are
normalised away, everything else is hashed. `HARNESS_UPDATE_GOLDEN=1 pytest ...` rewrites the stored digests
after a change that is meant to alter outputs (say so in the commit message).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"
# keys whose values differ between two runs of the same command on the same inputs
VOLATILE_KEYS = {
    "git_hash", "package_versions", "transformers_version", "date", "timestamp", "start_time", "end_time",
    "total_evaluation_time_seconds",
}
TIMESTAMP = re.compile(r"_?\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d+")


def _normalise(value, root: str):
    if isinstance(value, dict):
        return {k: "<volatile>" if k in VOLATILE_KEYS else _normalise(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v, root) for v in value]
    if isinstance(value, str):
        return TIMESTAMP.sub("<ts>", value.replace(root, "<root>"))
    return value


def output_digests(out_dir: Path) -> dict[str, str]:
    """file name (timestamps removed) -> sha256 of its normalised content, for every results/samples file."""
    root = str(Path(out_dir).resolve())
    digests: dict[str, str] = {}
    for path in sorted(Path(root).rglob("*.json*")):
        if not path.name.startswith(("results_", "samples_")):
            continue
        text = path.read_text(encoding="utf-8")
        docs = [json.loads(line) for line in text.splitlines()] if path.suffix == ".jsonl" else [json.loads(text)]
        canonical = json.dumps(_normalise(docs, root), sort_keys=True, ensure_ascii=False)
        name = TIMESTAMP.sub("", str(path.relative_to(root)))
        if path.name.startswith("results_"):  # one per run: name it by the tasks it holds (lm-eval's `results`
            tasks = docs[0].get("task_results", docs[0].get("results", {}))  # also lists groups)
            name = name.replace(".json", f"[{','.join(sorted(tasks))}].json")
        assert name not in digests, f"two output files normalise to one name: {name}"
        digests[name] = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return digests


def check_against_golden(name: str, digests: dict[str, str]) -> list[str]:
    """Differences from tests/golden/<name>.json (empty when equal); rewrites it under HARNESS_UPDATE_GOLDEN=1."""
    path = GOLDEN / f"{name}.json"
    if os.environ.get("HARNESS_UPDATE_GOLDEN") == "1":
        path.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return []
    stored = json.loads(path.read_text(encoding="utf-8"))
    problems = [f"missing now: {k}" for k in sorted(set(stored) - set(digests))]
    problems += [f"new file: {k}" for k in sorted(set(digests) - set(stored))]
    problems += [f"values differ: {k}" for k in sorted(set(stored) & set(digests)) if stored[k] != digests[k]]
    return problems
