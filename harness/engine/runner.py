"""Run a RunConfig end to end: plugins -> tasks and model -> evaluator -> results files (`--rescore`: rescoring.py)."""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Optional

from harness.cache import default_cache_dir
from harness.config.run import RunConfig
from harness.config.schema import GroupConfig, parse_task_config
from harness.contract.messages import TaskInfo
from harness.contract.model import Model
from harness.data.filtered import scores_per_pipeline
from harness.data.hook_refs import check_group_hooks
from harness.data.lmms_task import LmmsTask
from harness.data.run_context import RunContext
from harness.data.task import Parsed, Task
from harness.engine import distributed
from harness.engine.evaluator import Evaluator
from harness.engine.fitting import per_clip_budget
from harness.engine.judging import RULE_JUDGE, JudgeClient
from harness.engine.model_loading import judge_entry, load_judge, load_model
from harness.engine.sample import Instance, SampleRecord
from harness.engine.seeding import Seeds, seed_generators
from harness.errors import ConfigError, UnknownNameError
from harness.frames.spec import FrameSpec
from harness.plugins.loading import PluginState, load_plugins
from harness.plugins.task_imports import check_task_imports
from harness.results.writer import (
    check_output_folder,
    safe_name,
    write_results,
    write_samples,
)
from harness.scoring.recording import (
    metric_message,
    model_info,
    record_instance,
    run_results,
    run_settings,
    score_in_order,
    score_recorded,
    task_run_config,
    with_samples_files,
)

log = logging.getLogger("harness.engine.runner")


@dataclass
class RunOutcome:
    """What a run produced (rank 0 only; other ranks get results=None)."""

    results: Optional[dict[str, Any]]
    results_path: Optional[Path] = None
    samples_paths: dict[str, Path] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    records: dict[str, list[dict]] = field(default_factory=dict)  # task -> per-sample records (rank 0)


def build_task(
    state: PluginState,
    name: str,
    data: Optional[Path] = None,
    cache_dir: Optional[Path] = None,
    run: RunContext = RunContext(),
) -> Task:
    """A runnable Task for a registered task name, built with the run's data root, cache dir and context."""
    entry = state.registry.get("task", name)
    cfg = parse_task_config(entry.extra["config"], entry.extra["path"])
    if isinstance(cfg, GroupConfig):
        raise ConfigError(f"'{name}' is a group, not a task")
    check_task_imports(name, cfg)  # a hook needing a missing package: refused now, naming the extra
    cls = LmmsTask if cfg.lmms is not None else Task
    path = Path(entry.extra["path"])
    task = cls(
        cfg, path.parent, entry.plugin, entry.plugin_version, config_path=path, data=data, cache_dir=cache_dir,
        run=run,
    )  # fmt: skip
    task.check_hooks()  # every hook resolved and held to its contract before any data or model loads
    task.resolve_aggregations(state.registry)
    return task


def expand_tasks(state: PluginState, names: list[str]) -> tuple[list[str], dict[str, GroupConfig]]:
    """Task names with groups expanded (recursively, order kept, no duplicates) and the groups seen."""
    order: list[str] = []
    groups: dict[str, GroupConfig] = {}

    def visit(name: str, trail: tuple) -> None:
        if name in trail:
            raise ConfigError(f"group cycle: {' -> '.join(trail + (name,))}")
        entry = state.registry.get("task", name)
        if entry.extra.get("group"):
            cfg = parse_task_config(entry.extra["config"], entry.extra["path"])
            cfg.metadata["_base_dir"] = str(Path(entry.extra["path"]).parent)
            check_group_hooks(name, cfg, Path(entry.extra["path"]))  # now: they run only after every model call
            groups[name] = cfg
            for member in cfg.task:
                visit(member, trail + (name,))
        elif name not in order:
            order.append(name)

    for n in names:
        visit(n, ())
    return order, groups


def report_dropped(task: str, dropped: list[dict]) -> None:
    """Warn (stderr) about rows the loader could not use: how many, why, and the first few."""
    if not dropped:
        return
    reasons = Counter(d.get("reason", "other") for d in dropped)
    shown = "; ".join(d.get("detail") or d.get("reason", "") for d in dropped[:3])
    log.warning(
        "task '%s': %d row(s) dropped by the loader (%s), e.g. %s",
        task,
        len(dropped),
        ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())),
        shown,
    )


def check_loaded(task: Task, docs: list[dict], split: Optional[str]) -> None:
    """ConfigError (exit 2, before any model call) when a task's split gave no row at all."""
    if docs:
        return
    split = split or task.config.dataset.split
    where = f" in {task.data_root}" if task.data_root is not None else ""
    dropped = Counter(d.get("reason", "other") for d in task.dropped)
    why = (
        f"; all {len(task.dropped)} rows were dropped ({', '.join(f'{k}: {v}' for k, v in sorted(dropped.items()))}"
        f"; e.g. {task.dropped[0].get('detail', '')})"
        if task.dropped
        else ""
    )
    raise ConfigError(
        f"{task.where()}: split '{split}'{where} loaded 0 rows"
        f"{why}; check --data, --split and the task's dataset options"
    )


def check_metric_names(task: Task, docs: list[dict]) -> None:
    """ConfigError (exit 2, before any model call) when a metric the YAML declares is not a key the task's
    score hook returns; the keys are read from scoring an invalid answer to the first row (no model needed).
    A score hook that cannot score that probe is checked after the run instead
    (harness.scoring.recording.unreturned_metrics)."""
    task.filter_pipelines()  # a filter_list that cannot be built stops the run here
    if not docs or (isinstance(task, LmmsTask) and task.per_document_metrics):  # each doc returns its own metrics
        return
    try:
        probe = {p.name: Parsed(answer=None, valid=False, note="probe") for p in task.filter_pipelines()}
        if probe:
            keys = set(scores_per_pipeline(task, probe, task.target(docs[0]), docs[0]))
        else:
            keys = set(task.score(Parsed(answer=None, valid=False, note="probe"), task.target(docs[0]), docs[0]))
    except Exception:  # noqa: BLE001 - a hook that cannot score the probe is checked on real answers later
        return
    missing = [m.name for m in task.config.metrics if m.name not in keys]
    if missing:
        raise ConfigError(metric_message(task, missing, keys))


def _expand_reporting_broken(
    state: PluginState, names: list[str]
) -> tuple[list[str], dict[str, GroupConfig]]:
    """expand_tasks, naming the task files that failed to load: as a warning, or in the error when a
    requested name is unknown (it may be defined in one of them)."""
    broken = [f"{info.name}: {err}" for info in state.broken() for err in info.errors]
    try:
        out = expand_tasks(state, names)
    except UnknownNameError as exc:
        if not broken:
            raise
        raise ConfigError(
            f"{exc}\nthese plugins or task files failed to load:\n  " + "\n  ".join(broken)
        ) from None
    for line in broken:
        log.warning("plugin or task file failed to load: %s", line)
    return out


def model_family_names(model: Model, requested: str) -> tuple[str, ...]:
    """The names a task's per-model settings (lmms-eval's `lmms_eval_specific_kwargs`) may use for this model:
    the adapter's `lmms_eval_model` (the lmms-eval model it corresponds to), its name, the name asked for."""
    names = (model.lmms_eval_model, model.name, requested)
    return tuple(dict.fromkeys(n for n in names if n))


def lmms_output_path(output_path: Optional[Path], cache_dir: Optional[Path], model_name: str = "") -> Path:
    """Where lmms-eval task functions write submission files (their `args.output_path`, under which they make
    `submissions/`): the run's output folder, else `lmms_submissions/` in the cache dir (never the cwd)."""
    if output_path is not None:
        return Path(output_path) / safe_name(model_name) if model_name else Path(output_path)
    return Path(cache_dir or default_cache_dir()) / "lmms_submissions"


def _apply_limit(task: Task, docs: list[dict], limit) -> list[dict]:
    """The first `limit` docs (a fraction of them when limit < 1); ConfigError when that selects none."""
    if limit is None:
        return docs
    if isinstance(limit, float) and limit < 1:
        chosen = docs[: int(len(docs) * limit)]
    else:
        chosen = docs[: int(limit)]
    if not chosen:
        raise ConfigError(
            f"task '{task.name}': --limit {limit} selects 0 of its {len(docs)} rows; give a count of at least 1 "
            f"or a fraction of at least 1/{len(docs)}, or leave --limit out to run every row"
        )
    return chosen


def _prepared_instances(
    model: Model, task_docs: list[tuple[Task, list[dict]]], data: Optional[Path]
) -> list[Instance]:
    """Every (task, doc) as an Instance, after telling the model about each task (`prepare_task`: where a
    baseline reads the answer space or the training-split prior, and refuses a task it cannot work on)."""
    instances: list[Instance] = []
    for task, docs in task_docs:
        info = TaskInfo(task.name, task.answer_space(docs), prior=lambda t=task: t.prior_table(data))
        model.prepare_task(info)
        instances.extend(Instance(len(instances), task, d) for d in docs)
    return instances


def _load_tasks(
    tasks: list[Task], cfg: RunConfig
) -> tuple[dict[str, tuple[int, list[dict]]], list[tuple[Task, list[dict]]]]:
    """Each task's split loaded and checked (rows, drops, metric names): task -> (rows loaded, rows dropped),
    and each task holding its split with the docs the run evaluates (--limit applied)."""
    loaded: dict[str, tuple[int, list[dict]]] = {}
    task_docs: list[tuple[Task, list[dict]]] = []
    for task in tasks:
        split = task.load_split(cfg.data, cfg.split)
        task = task.with_split(split)
        loaded[task.name] = (len(split.docs), list(split.dropped))
        report_dropped(task.name, task.dropped)
        check_loaded(task, split.docs, cfg.split)
        check_metric_names(task, split.docs)
        task_docs.append((task, _apply_limit(task, split.docs, cfg.limit)))
    return loaded, task_docs


def run(cfg: RunConfig, state: Optional[PluginState] = None) -> RunOutcome:
    """Evaluate cfg.model on cfg.tasks; rank 0 writes results (and samples with log_samples)."""
    start_time = time.time()
    check_output_folder(cfg.output_path)  # a file there: exit 2 now, not after the model calls
    seeds = Seeds(random_seed=cfg.seed)
    seed_generators(seeds)  # loaders and process_docs see lmms-eval's seeded generators
    state = state or load_plugins(cfg.include_path)
    names, groups = _expand_reporting_broken(state, cfg.tasks)
    context = RunContext(progress=cfg.progress, data_revision=cfg.data_revision)
    tasks = [build_task(state, n, cfg.data, cfg.cache_dir, context) for n in names]
    state.registry.get("model", cfg.model)  # names are cheap to check: an unknown one fails first
    if cfg.judge and cfg.judge != RULE_JUDGE:
        judge_entry(state, cfg.judge)
    # data before the model: a missing or malformed dataset stops the run before a large model loads
    loaded, task_docs = _load_tasks(tasks, cfg)
    model = load_model(state, cfg.model, cfg.model_args, [t for t, _ in task_docs])
    model_name = model.display_name or cfg.model
    if cfg.output_path is not None:
        check_output_folder(Path(cfg.output_path) / safe_name(model_name))
    context = replace(
        context,
        model_names=model_family_names(model, cfg.model),
        output_dir=lmms_output_path(cfg.output_path, cfg.cache_dir, model_name),
    )
    task_docs = [(t.with_run(context), docs) for t, docs in task_docs]  # the tasks as the model's run sees them
    tasks = [t for t, _ in task_docs]
    judge = None
    rank, world = distributed.world()
    try:
        instances = _prepared_instances(model, task_docs, cfg.data)  # a refusal comes before the judge loads
        evaluator = Evaluator(cfg, model, tasks)
        if cfg.judge and cfg.judge != RULE_JUDGE:
            judge_model = load_judge(state, cfg.judge, cfg.judge_args)
            judge = JudgeClient(cfg.judge, judge_model, evaluator.responses)
            evaluator.judge = judge
        mine = distributed.shard(instances, rank, world, _video_of)  # a video's samples on one rank
        evaluator.run_instances(mine)
        records = [(inst.index, record_instance(inst)) for inst in mine]  # scored below, once, on rank 0
    finally:
        model.close()
    gathered = distributed.gather_to_rank0(records)
    if gathered is None:
        return RunOutcome(results=None, stats=evaluator.stats)
    by_index = sorted((pair for part in gathered for pair in part), key=lambda p: p[0])
    scored: dict[str, list[SampleRecord]] = {t.name: [] for t in tasks}
    for _, rec in by_index:
        scored[rec.task].append(rec)
    score = partial(score_recorded, judge=judge, strict=cfg.strict)
    score_in_order(tasks, scored, score, seeds)  # doc order, as one process does with any ranks
    frames = {t.name: effective_frame_spec(t, scored[t.name], cfg, model) for t in tasks}
    per_task = {name: [rec.to_json() for rec in recs] for name, recs in scored.items()}  # the samples' lines
    results = _results(cfg, model, model_name, tasks, groups, per_task, judge, world, loaded, frames, start_time)
    out = write_outputs(cfg, model_name, results, per_task)
    out.stats = evaluator.stats
    out.records = per_task
    return out


def _video_of(inst: Instance) -> Optional[str]:
    """The video a sample's row names (its task's media field), for sharding ranks by video."""
    field = inst.task.config.media_field
    value = inst.doc.get(field) if field else None
    return value if isinstance(value, str) else None


def effective_frame_spec(task: Task, records: list[SampleRecord], cfg: RunConfig, model: Model) -> FrameSpec:
    """The frame spec a task's samples were decoded under: the one its first built sample recorded (the task's
    spec under the model's per-clip budget, harness.engine.evaluator.Evaluator.sample_frames); with no built
    sample, the task's spec under the budget of one clip."""
    for rec in records:
        if rec.frames is not None:
            return rec.frames
    return (cfg.frames or task.config.frames).capped(per_clip_budget(model.capabilities, 1))


def _cache_location(cfg: RunConfig) -> Optional[Path]:
    """The response cache folder the run used (lm-eval's `use_cache`), None with --no_cache."""
    return None if cfg.no_cache else (cfg.cache_dir or default_cache_dir())


def _results(cfg: RunConfig, model: Model, model_name: str, tasks: list[Task], groups: dict, per_task: dict,
             judge: Any, world: int, loaded: dict, frames: dict, start_time: float) -> dict[str, Any]:
    """The run's results, built by the scoring module from its records and settings."""
    task_cfgs = {
        t.name: task_run_config(t, cfg.frames or t.config.frames, frames[t.name], cfg.frames is not None)
        for t in tasks
    }
    settings = run_settings(
        task_cfgs, cfg.tasks, cfg.seed, cfg.model, cfg.model_args,
        limit=cfg.limit, batch_size=cfg.batch_size, split=cfg.split, gen_kwargs=cfg.gen_kwargs,
        judge=judge.describe() if judge else None, world_size=world, cache_dir=_cache_location(cfg),
        seeds=Seeds(random_seed=cfg.seed).to_config(),
    )
    info = model_info(model_name, model.identity(), model.capabilities)
    timing = {"start_time": start_time, "end_time": time.time()}
    return run_results(info, settings, tasks, per_task, loaded, groups, cfg.max_error_rate, timing)


def write_outputs(
    cfg: RunConfig, model_name: str, results: dict, per_task: dict[str, list[dict]]
) -> RunOutcome:
    """Write samples (with log_samples) then the results file, all atomically."""
    out = RunOutcome(results=results)
    if cfg.output_path is None:
        return out
    folder = Path(cfg.output_path) / safe_name(model_name)
    stamp = results["created"]
    if cfg.log_samples:
        for task_name, recs in per_task.items():
            path = folder / f"samples_{safe_name(task_name)}_{stamp}.jsonl"
            write_samples(path, recs)
            out.samples_paths[task_name] = path
    out.results_path = folder / f"results_{stamp}.json"
    write_results(out.results_path, with_samples_files(results, {t: p.name for t, p in out.samples_paths.items()}))
    return out
