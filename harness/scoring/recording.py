"""Parse -> score -> record, and the results built from the records: the one scoring module of run,
`--rescore` and `import`.

A sample's answer is parsed and scored by its task here (`score_answer`: an answer the task cannot use is
scored as its invalid answer, a task that cannot score even that is a counted `score` error), into the
SampleRecord of a run (`record_instance`, `score_recorded`) or the samples-file line of a rescore or an import
(`score_record`); each task's records are scored once, in doc order, after the seeded generators are reset
(`score_in_order`); `--strict` checks an answer on arrival by parsing it only (`unusable_answer`). The results dict of all three is built here only (`run_results`,
`rescored_results`, `imported_draft`, from `task_run_config` and `results_header`), completed with lm-eval's
keys and validated by harness.results.models.Results before anyone writes it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Optional

from harness import __version__
from harness.config.filter_list import metric_key
from harness.config.schema import GroupConfig
from harness.contract.messages import Response
from harness.data.filtered import parse_all, parse_and_score, scores_per_pipeline
from harness.data.lmms_task import LmmsTask
from harness.data.task import Parsed, Task
from harness.engine.sample import Instance, SampleRecord, sample_error
from harness.engine.seeding import Seeds, preserved_generators, seed_generators
from harness.errors import HookContractError, StrictModeError
from harness.frames.spec import FrameSpec
from harness.plugins.references import load_hook
from harness.results.lm_eval_keys import add_lm_eval_keys, lm_eval_config, stderrs_of, task_hash
from harness.results.writer import (
    RESULTS_SCHEMA_VERSION,
    git_hash,
    package_versions,
    timestamp,
    validate_results,
)
from harness.scoring.completeness import mark_completeness
from harness.scoring.task_results import N_BOOTSTRAP, aggregate_group, aggregate_task

log = logging.getLogger("harness.scoring.recording")


def record_instance(inst: Instance) -> SampleRecord:
    """An instance's SampleRecord, not yet scored: what the model was asked and saw, its answer or its error.
    Every record is scored once, later, in doc order (`score_in_order`)."""
    task, doc = inst.task, inst.doc
    rec = SampleRecord(
        doc_id=doc["doc_id"],
        task=task.name,
        doc=task.logged_doc(doc),
        target=inst.target,
        prompt=inst.request.prompt_text() if inst.request else None,
        frames=inst.spec,
        media=inst.media_log,
        error=inst.error,
    )
    if inst.error is None and inst.response is not None:
        rec.raw = inst.response.text
        rec.structured = inst.response.structured
    return rec


def _strict_stop(task: str, doc_id: str, what: str) -> StrictModeError:
    return StrictModeError(f"task '{task}' doc '{doc_id}': {what}")


def check_arrived(inst: Instance, judge: Any = None) -> None:
    """`--strict`'s check of a finished instance, before the next model call: StrictModeError for an error
    (media, generation, ...) or an answer the task's parser cannot use (`unusable_answer`: parsed only)."""
    task, doc_id = inst.task.name, inst.doc["doc_id"]
    if inst.error is not None:
        raise _strict_stop(task, doc_id, f"{inst.error['kind']} error: {inst.error['message']}")
    if inst.response is not None:
        reason = unusable_answer(inst, judge)
        if reason is not None:
            raise _strict_stop(task, doc_id, f"the task could not use the answer: {reason}")


def unusable_answer(inst: Instance, judge: Any = None) -> Optional[str]:
    """Why the task's parser cannot use an arrived answer (None: it can): `--strict`'s check on arrival, so
    the run stops before the next model call. Only parses, and leaves the seeded generators as they were:
    the answer is scored once, later, in doc order, as in any run (`score_in_order`)."""
    task, doc = inst.task, inst.doc
    response = inst.response or Response(text="")

    def parse(resp: Response) -> Parsed:
        return task.parse(resp, doc, judge)

    with preserved_generators():
        try:
            parse_all(task, response, parse, doc)
        except HookContractError as exc:
            return str(exc)
        except Exception as exc:  # what score_answer would score as the task's invalid answer
            return task.hook_failure("parse", exc)
    return None


def _clean_scores(scores: Any, items: frozenset = frozenset()) -> dict[str, Any]:
    """Scores as floats or None ("not applicable"); a value that is no finite number raises ValueError.

    `items` names corpus metrics (harness/scoring/aggregations.py), whose per-sample values are items of any JSON
    kind (a [answer, target] pair, lmms-eval's process_results dicts), kept as they are."""
    if not isinstance(scores, dict):
        raise HookContractError(f"the score hook returned {type(scores).__name__}, not a dict of metric values")
    out: dict[str, Any] = {}
    for k, v in scores.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out[str(k)] = None
            continue
        if str(k) in items:
            out[str(k)] = v
            continue
        value = float(v)  # TypeError / ValueError for a value that is no number
        if not math.isfinite(value):
            raise ValueError(f"score '{k}' is {value}")
        out[str(k)] = value
    return out


def _corpus_metrics(task: Task) -> frozenset:
    """Names of the task's corpus metrics, whose per-sample values are items rather than numbers."""
    return frozenset(m.name for m in task.config.metrics if task.aggregator(m).corpus)


RESCORED_ERRORS = ("parse", "score")  # the errors rescoring clears; harness-side ones (media, ...) stay


def score_answer(
    task: Task, raw: Optional[str], structured: Any, doc: dict, target: Any, judge: Any = None
) -> dict[str, Any]:
    """Parse an answer and score it against the target: the record fields to set (`parsed` and `scores`, or
    `error` alone).

    Whatever the model returned is an answer: when the task's parser or scorer cannot use it (it raises,
    or gives a score that is no finite number), the answer is scored as the task's invalid answer (wrong,
    or zero for dense metrics: the task's own score of an invalid `Parsed`), with the reason, naming the hook
    that raised, in `parsed.note` and `parsed.unusable`. A hook that returns a value of the wrong type breaks
    its contract (harness.contract.hooks): a counted `parse` or `score` error, as is a task that cannot score
    even an invalid answer, so a failure never leaves a sample out of a mean silently.
    """
    response = Response(text=raw or "", structured=structured)
    step = "parse"
    try:
        def parse(resp: Response) -> Parsed:  # every pipeline's parse runs before any score (filtered.py)
            nonlocal step
            step = "parse"
            parsed = task.parse(resp, doc, judge)
            step = "score"
            return parsed

        parsed, scores = parse_and_score(task, response, parse, target, doc)  # per filter pipeline, if any
        scores = _clean_scores(scores, _corpus_metrics(task))
    except HookContractError as exc:  # a task bug, not the model's answer: counted
        return {"error": sample_error(step, exc)}
    except Exception as exc:  # the answer is unusable: scored as the task's invalid answer
        return _scored_invalid(task, doc, target, step, task.hook_failure(step, exc))
    return {"parsed": parsed.to_json(), "scores": scores}


def _scored_invalid(task: Task, doc: dict, target: Any, step: str, unusable: str) -> dict[str, Any]:
    """The record fields of an answer the task's `step` hook could not use: its invalid answer's scores (per
    filter pipeline, if any), or a `score` error naming the hook once when the task cannot score an invalid
    answer either."""
    parsed = Parsed(answer=None, valid=False, note=f"answer not usable: {unusable}")
    try:
        invalid = {p.name: parsed for p in task.filter_pipelines()}
        raw_scores = scores_per_pipeline(task, invalid, target, doc) if invalid else task.score(parsed, target, doc)
        scores = _clean_scores(raw_scores, _corpus_metrics(task))
    except Exception as exc:  # the task cannot score an invalid answer either: a task bug, counted
        message = task.hook_failure("score", exc) if not isinstance(exc, HookContractError) else str(exc)
        if step != "score":  # the parser failed first: say so too (the score hook's own failure is said once)
            message += f" (scoring an invalid answer, after: {unusable})"
        return {"error": sample_error("score", message, type(exc).__name__)}
    return {"parsed": {**parsed.to_json(), "unusable": unusable}, "scores": scores}


def score_sample(task: Task, rec: SampleRecord, judge: Any = None) -> None:
    """Score a record's answer in place (see `score_answer`)."""
    for name, value in score_answer(task, rec.raw, rec.structured, rec.doc, rec.target, judge).items():
        setattr(rec, name, value)


def score_recorded(task: Task, rec: SampleRecord, judge: Any = None, strict: bool = False) -> None:
    """Score a run's record (`score_in_order`); one that has an error (media, generation, ...) or no answer
    stays unscored, its error counted. `strict`: StrictModeError for a record left with an error or an answer
    the task's scorer could not use."""
    if rec.error is None and rec.raw is not None:
        score_sample(task, rec, judge)
    if strict and rec.error:
        raise _strict_stop(task.name, rec.doc_id, f"{rec.error['kind']} error: {rec.error['message']}")
    if strict and (rec.parsed or {}).get("unusable"):
        raise _strict_stop(task.name, rec.doc_id, f"the task could not use the answer: {rec.parsed['unusable']}")


def score_record(task: Task, rec: dict, judge: Any = None) -> None:
    """Score a samples-file line in place (`--rescore`, `import`): its `raw`, `structured`, `doc` and `target`
    (see `score_answer`)."""
    rec.update(score_answer(task, rec.get("raw"), rec.get("structured"), rec["doc"], rec["target"], judge))


def rescore_record(task: Task, rec: dict, judge: Any = None) -> None:
    """Score a samples-file line again (`--rescore`); harness-side errors stay errors."""
    if rec.get("error") and rec["error"]["kind"] not in RESCORED_ERRORS:
        return
    rec["error"] = None
    score_record(task, rec, judge)


def score_in_order(
    tasks: list, per_task: dict[str, list], score: Callable[[Any, Any], None], seeds: Seeds
) -> None:
    """`score(task, record)` every task's records in doc order after `seed_generators`, each task's answers
    handed to its `prepare_scoring` hook first, once: how a run (every rank's records, gathered on rank 0),
    `--rescore` and `import` score, each record once. Records are SampleRecords or samples-file lines."""
    for task in tasks:
        seed_generators(seeds)
        records = per_task.get(task.name, [])
        answers = [r if isinstance(r, dict) else r.answer() for r in records]
        task.prepare_scoring([a for a in answers if a.get("raw") is not None])  # what will be scored
        for rec in records:
            score(task, rec)


# -- the results, built from the records ---------------------------------------------------------------


def task_run_config(
    task: Task, spec: FrameSpec, effective: FrameSpec, overridden: bool = False, digest: Optional[str] = None
) -> dict[str, Any]:
    """`config.tasks[task]` (what compare and leaderboard match runs on): version, plugin, the frame spec and
    the effective one under the model's budget, their digest (`digest`: the one the samples logged)."""
    out = {
        "version": task.config.version,
        "plugin": task.plugin,
        "plugin_version": task.plugin_version,
        "frame_spec": spec.canonical(),
        "effective_frame_spec": effective.canonical(),
        "frame_spec_digest": digest or effective.digest(),
        "frames_overridden": overridden,
        "config": task.config.model_dump(mode="json"),
    }
    if task.release is not None:  # fetched from the hub: which commit, which files
        out["data_source"] = task.release.to_json()
    return out


def results_header(model: dict[str, Any], settings: dict[str, Any], created: str) -> dict[str, Any]:
    """The keys every results file starts with: schema and harness version, when, which model, which settings."""
    return {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "harness_version": __version__,
        "created": created,
        "model": model,
        "config": settings,
    }


def run_settings(
    tasks: dict[str, dict], requested: list[str], seed: int, model: str, model_args: Mapping[str, Any], **more: Any
) -> dict[str, Any]:
    """`config`: the run's task configs and settings, with lm-eval's keys (`more`: limit, batch_size, split,
    gen_kwargs, judge, world_size, cache_dir, seeds)."""
    seeds = more.pop("seeds", None)
    cache_dir = more.pop("cache_dir", None)
    base = {"limit": None, "batch_size": 1, "split": None, "gen_kwargs": None, "judge": None, "world_size": 1}
    return {
        "tasks": tasks,
        "requested": list(requested),
        "seed": seed,
        **base,
        **more,
        "package_versions": package_versions(),
        "git_hash": git_hash(),
        **lm_eval_config(model, model_args, cache_dir, N_BOOTSTRAP, seeds),
    }


def finish_results(
    results: dict[str, Any],
    tasks: list[Task],
    per_task: dict[str, list[dict]],
    n_original: dict[str, int],
    max_error_rate: float,
    timing: Optional[dict[str, float]] = None,
) -> dict[str, Any]:
    """Completeness, lm-eval's keys and validation (harness.results.models.Results) of a built results dict."""
    mark_completeness(results, max_error_rate)
    for t in tasks:
        reason = unreturned_metrics(t, per_task.get(t.name, []))
        if reason:
            results["complete"] = False
            results["incomplete_reasons"].append(reason)
    hashes = {name: task_hash(recs) for name, recs in per_task.items()}
    add_lm_eval_keys(results, stderrs_of(tasks, per_task), n_original, timing, hashes)
    validate_results(results)
    return results


def metric_message(task: Task, missing: list[str], keys: set[str]) -> str:
    """Why declared metrics are not what the score hook returns (a task config bug), naming both."""
    return (
        f"{task.where()}: metric(s) "
        f"{', '.join(repr(m) for m in missing)} declared under `metrics:` but the score hook returns "
        f"{', '.join(sorted(keys)) or 'no keys'}; rename the metric to one of those keys"
    )


def unreturned_metrics(task: Task, records: list[dict]) -> Optional[str]:
    """A reason (for the results' incomplete_reasons) when scored samples never returned a declared metric;
    none for a task whose documents return their own metric sets (a metric no scored document returned is not
    applicable to any of them: n 0, no value)."""
    scored = [r for r in records if not r.get("error")]
    if not scored or (isinstance(task, LmmsTask) and task.per_document_metrics):
        return None
    keys = {k for r in scored for k in (r.get("scores") or {})}
    missing = [m.name for m in task.config.metrics if m.name not in keys]
    return metric_message(task, missing, keys) if missing else None


def rescored_results(
    original: Optional[dict[str, Any]],
    tasks: list[Task],
    per_task: dict[str, list[dict]],
    seed: int,
    model_name: str,
    rescored_from: Optional[list[str]] = None,
    created: Optional[str] = None,
) -> dict[str, Any]:
    """The results of a `--rescore` (or an import): the original results file's model, settings and loader
    accounting carried over (none: what the samples tell, the model named `model_name`), every metric from
    the records as scored again. `rescored_from`: the samples files' names (a rescore); `created`: the
    timestamp (an import's, shared with its samples files; default now)."""
    if original:
        results = {k: v for k, v in original.items() if k != "upgraded_from_schema"}
    else:
        model = {"name": model_name, "identity": {}, "capabilities": {}}
        results = {**results_header(model, {"seed": seed, "judge": None, **lm_eval_config("unknown", {}, None,
                                                                                        N_BOOTSTRAP)}, ""),
                   "group_results": {}}
    results["config"] = dict(results.get("config") or {})
    logged = {t.name: _logged_config(t, per_task[t.name]) for t in tasks}
    results["config"]["tasks"] = {**logged, **(results["config"].get("tasks") or {})}
    results["task_results"] = {}
    for t in tasks:
        before = (original or {}).get("task_results", {}).get(t.name) or {}
        n_rows = before["n_rows"] - before.get("n_dropped", 0) if "n_rows" in before else None
        results["task_results"][t.name] = aggregate_task(
            t, per_task[t.name], seed, n_rows, before.get("dropped_examples", []), before.get("dropped") or {}
        )
    results["created"] = created or timestamp()
    results["samples_files"] = {}
    if rescored_from is not None:
        results["rescored_from"] = list(rescored_from)
    original_n = {k: v.get("original", 0) for k, v in (results.get("n-samples") or {}).items()}
    return finish_results(results, tasks, per_task, original_n, results.get("max_error_rate", 0.0))


def _logged_config(task: Task, records: list[dict]) -> dict[str, Any]:
    """config.tasks[task] for a rescore without its results file: the task's own config and frame spec,
    and the frame spec digest the samples logged (what compare and leaderboard match runs on)."""
    digests = {r.get("frame_spec") for r in records if r.get("frame_spec")}
    spec = task.config.frames
    return task_run_config(task, spec, spec, False, digests.pop() if len(digests) == 1 else None)


def model_info(name: str, identity: dict[str, Any], capabilities: Any = None) -> dict[str, Any]:
    """`model`: the display name, the identity (adapter, args, checkpoint) and the capabilities it declared."""
    caps = {}
    if capabilities is not None:
        caps = {
            "video": capabilities.video,
            "multi_video": capabilities.multi_video,
            "images": capabilities.images,
            "max_frames": capabilities.max_frames,
            "structured_outputs": sorted(capabilities.structured_outputs),
        }
    return {"name": name, "identity": identity, "capabilities": caps}


def run_results(
    model: dict[str, Any],
    settings: dict[str, Any],
    tasks: list[Task],
    per_task: dict[str, list[dict]],
    loaded: dict[str, tuple[int, list[dict]]],
    groups: dict[str, GroupConfig],
    max_error_rate: float,
    timing: dict[str, float],
) -> dict[str, Any]:
    """The results of a run: per task its metrics from the records and the loader's accounting (`loaded`: task
    -> rows the loader gave, rows it dropped), the groups' entries, completeness and lm-eval's keys; validated."""
    seed = settings.get("seed") or 0
    results = results_header(model, settings, timestamp())
    results["task_results"] = {t.name: aggregate_task(t, per_task[t.name], seed, *loaded[t.name]) for t in tasks}
    results["group_results"] = {g: group_entry(g, groups, results["task_results"]) for g in groups}
    results["samples_files"] = {}
    return finish_results(results, tasks, per_task, {k: n for k, (n, _) in loaded.items()}, max_error_rate, timing)


def group_entry(name: str, groups: dict[str, GroupConfig], task_results: dict) -> dict:
    """A group's aggregate metrics, plus the tables of its aggregate hook (paper tables across members)."""
    cfg = groups[name]
    base = Path(cfg.metadata.get("_base_dir", "."))
    spec = [  # every entry of lm-eval's aggregate_metric_list, per filter pipeline
        (metric_key(m.metric, f), m.weight_by_size, None if m.aggregation == "mean" else
         load_hook(m.aggregation, base, group_field(name, f"aggregate_metric_list[{i}].aggregation")))
        for i, m in enumerate(cfg.aggregate_metric_list)
        for f in m.filter_list
    ]
    out = aggregate_group(name, _leaf_members(name, groups), task_results, cfg.aggregate, spec)
    if cfg.hooks.aggregate:
        hook = load_hook(cfg.hooks.aggregate, base, group_field(name, "hooks.aggregate"))
        try:
            out["tables"] = hook({t: task_results[t] for t in out["tasks"]})
        except Exception as exc:  # a plugin bug: the results file is still written, the run is incomplete
            out["tables_error"] = f"aggregate hook raised {type(exc).__name__}: {exc}"
            log.warning("group '%s': %s", name, out["tables_error"])
    return out


def group_field(group: str, field_name: str) -> str:
    """How errors name a group's field: "group 'G' field 'F'"."""
    return f"group '{group}' field '{field_name}'"


def _leaf_members(group: str, groups: dict[str, GroupConfig]) -> list[str]:
    out = []
    for m in groups[group].task:
        out.extend(_leaf_members(m, groups) if m in groups else [m])
    return out


def imported_draft(model: str, provenance: dict[str, Any], configs: dict[str, dict], created: str) -> dict[str, Any]:
    """What an `import` writes before its samples are rescored (rescore carries it over): the model, the task
    configs, the source it came from; no numbers yet (`rescored_results` computes them)."""
    settings = run_settings(configs, list(configs), 0, model, {}, split="test", gen_kwargs="")
    return {
        **results_header(model_info(model, {"imported": provenance}), settings, created),
        "imported_from": provenance,
        "task_results": {},
        "group_results": {},
        "samples_files": {},
    }


def with_samples_files(results: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`results` naming the samples files written beside it (task -> file name); returned."""
    results["samples_files"] = dict(names)
    return results
