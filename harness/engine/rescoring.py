"""`--rescore`: parsed answers, scores and every metric recomputed from samples files with the current task
code, no model; the results file beside the samples (any schema version) is carried over (docs/results.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

from harness.data.run_context import RunContext
from harness.engine.runner import RunOutcome, build_task, lmms_output_path
from harness.engine.seeding import Seeds
from harness.plugins.loading import PluginState, load_plugins
from harness.results.reading import read_results, read_samples
from harness.results.writer import check_output_folder, write_results
from harness.scoring.recording import rescore_record, rescored_results, score_in_order


def _rescore_seeds(recorded: dict[str, Any], seed: int) -> Seeds:
    """The seeds a rescore sets: those the original run recorded; lmms-eval's defaults (Python's `random`:
    the run's --seed) for a generator it recorded none for (a file written before the harness seeded them)."""

    def pick(key: str, default: int) -> int:
        value = recorded.get(key)
        return default if value is None else value

    return Seeds(
        random_seed=pick("random_seed", seed),
        numpy_seed=pick("numpy_seed", Seeds.numpy_seed),
        torch_seed=pick("torch_seed", Seeds.torch_seed),
    )


def rescore(
    samples_files: list[Path],
    include_path: list[str],
    output_path: Optional[Path],
    seed: int = 0,
    state: Optional[PluginState] = None,
) -> RunOutcome:
    """Recompute parsed answers, scores and metrics from samples files, with no model; the results file
    written beside the samples is carried over."""
    check_output_folder(output_path)
    state = state or load_plugins(include_path)
    per_task: dict[str, list[dict]] = {}
    original: Optional[dict[str, Any]] = None
    for path in samples_files:
        path = Path(path)
        m = re.match(r"samples_.+_(\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl$", path.name)
        if m and original is None:
            candidate = path.parent / f"results_{m.group(1)}.json"
            if candidate.exists():  # read and validated (any schema version) by the one results reader
                original = read_results(candidate).data
        for rec in read_samples(path, required=("task", "doc", "target")):
            per_task.setdefault(rec["task"], []).append(rec)
    folder = Path(samples_files[0]).parent.name if samples_files else "model"
    names = [Path(p).name for p in samples_files]
    results = score_records(per_task, state, original, seed, folder, output_path, names)
    out = RunOutcome(results=results, records=per_task)
    if output_path is not None:
        out.results_path = Path(output_path) / f"results_rescored_{results['created']}.json"
        write_results(out.results_path, results)
    return out


def score_records(
    per_task: dict[str, list[dict]],
    state: PluginState,
    original: Optional[dict[str, Any]],
    seed: int,
    model_name: str,
    output_path: Optional[Path] = None,
    rescored_from: Optional[list[str]] = None,
    created: Optional[str] = None,
) -> dict[str, Any]:
    """Score samples-file lines in place (once each, in doc order, with the seeds `original` recorded) and
    build their results: `--rescore` and `import`. `original`: the results to carry over (the file beside the
    samples, an import's draft); `rescored_from`: the samples files' names (a rescore)."""
    tasks = [build_task(state, name) for name in per_task]
    recorded = (original or {}).get("config") or {}
    seed = recorded.get("seed", seed)
    seeds = _rescore_seeds(recorded, seed)
    tasks = [t.with_run(RunContext(output_dir=lmms_output_path(output_path, None))) for t in tasks]
    score_in_order(tasks, per_task, rescore_record, seeds)
    results = rescored_results(original, tasks, per_task, seed, model_name, rescored_from, created)
    results["config"].update(seeds.to_config())  # the seeds this rescore set (a file of schema 1 may lack them)
    return results
