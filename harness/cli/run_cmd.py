"""`python -m harness --tasks ... --model ...`: the evaluation run (flag names follow lm-evaluation-harness); the
flags become `harness.evaluate`'s keyword arguments (harness/evaluation.py), which runs it."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from harness.cli.commands import commands_help
from harness.cli.verbosity import VERBOSITY_LEVELS
from harness.config.run import RunConfig
from harness.engine import rescoring
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, ConfigError
from harness.evaluation import execute, run_config
from harness.plugins.loading import load_plugins
from harness.report.console import run_summary
from harness.scoring.completeness import DEFAULT_MAX_ERROR_RATE, first_errors, is_complete


class _RunParser(argparse.ArgumentParser):
    """The run's parser; its help ends with every registered subcommand (listed only when help is shown)."""

    def format_help(self) -> str:
        self.epilog = commands_help()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    p = _RunParser(
        prog="python -m harness",
        description="Evaluate a video language model on tasks.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tasks", help="comma-separated task or group names (`python -m harness ls tasks`)")
    p.add_argument(
        "--model",
        help="registered model name (`python -m harness ls models`); a,b,c: each model in turn, same arguments",
    )
    p.add_argument("--model_args", default="", help="k=v,... passed to the model adapter")
    p.add_argument("--limit", type=float, default=None, help="samples per task (a fraction when < 1)")
    p.add_argument("--batch_size", type=int, default=1)
    p.add_argument(
        "--output_path", type=Path, default=None, help="folder for results (OUT/<model>/results_*.json)"
    )
    p.add_argument("--log_samples", action="store_true", help="also write samples_<task>_<timestamp>.jsonl")
    p.add_argument(
        "--cache_dir",
        type=Path,
        default=None,
        help="cache folder (default: $HARNESS_CACHE_DIR or ~/.cache/video-harness)",
    )
    p.add_argument(
        "--no_cache", action="store_true", help="neither read nor write the response and frame caches"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--include_path", action="append", default=[], help="folder of task YAMLs (repeatable)")
    p.add_argument("--judge", default=None, help="a registered model or judge that judges free-form answers")
    p.add_argument("--judge_args", default="", help="k=v,... for the judge model")
    p.add_argument(
        "--frames", default=None, help="override the tasks' frame spec, e.g. uniform:16,max_side=448"
    )
    p.add_argument(
        "--data",
        type=Path,
        default=None,
        help="local dataset root for the tasks (without it, each task fetches its release from the HF hub)",
    )
    p.add_argument(
        "--data_revision",
        default=None,
        help="hub revision (branch, tag or commit) of the releases fetched without --data",
    )
    p.add_argument("--split", default=None, help="dataset split (default: each task's configured split)")
    p.add_argument("--gen_kwargs", default="", help="k=v,... overriding the tasks' generation kwargs")
    p.add_argument("--strict", action="store_true", help="stop at the first per-sample error")
    p.add_argument(
        "--max_error_rate",
        type=float,
        default=DEFAULT_MAX_ERROR_RATE,
        help="largest share of errored samples a task may have before the run is incomplete (exit 5); default 0",
    )
    p.add_argument(
        "--allow_external_symlinks",
        action="store_true",
        help="let symlinks inside a dataset root point outside it (their frames go to the model; "
        "see docs/reliability.md)",
    )
    p.add_argument(
        "--rescore",
        nargs="+",
        type=Path,
        default=None,
        help="recompute metrics from samples files (no model)",
    )
    p.add_argument("--no_progress", action="store_true")
    p.add_argument(
        "--verbosity",
        choices=VERBOSITY_LEVELS,
        type=str.upper,
        default="WARNING",
        help="log level (handled before the subcommand, so it works with every subcommand)",
    )
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.rescore:
        state = load_plugins(args.include_path)
        out = rescoring.rescore(args.rescore, args.include_path, args.output_path, args.seed, state)
        _print_summary(out, state)
        if out.results_path:
            print(f"results: {out.results_path}", file=sys.stderr)
        return _exit_code(out.results)
    flags = {k: v for k, v in vars(args).items() if k not in ("rescore", "verbosity")}
    cfg = run_config(**flags)
    state = load_plugins(cfg.include_path)
    models = [m.strip() for m in cfg.model.split(",") if m.strip()]  # --model a,b,c: each as its own run
    if not models:
        raise ConfigError(f"--model '{cfg.model}': no model name (see `python -m harness ls models`)")
    for name in models:  # every name checked before the first model runs
        state.registry.get("model", name)
    return max(_run_model(replace(cfg, model=name), state) for name in models)


def _run_model(cfg: RunConfig, state) -> int:
    """One model's run, its summary and its exit code (a run of its own, as `--model NAME` alone)."""
    out = execute(cfg, state)
    if out.results is None:  # not rank 0
        return EXIT_OK
    _print_summary(out, state)
    print(
        f"cache hits {out.stats.get('cache_hits', 0)}, generated {out.stats.get('generated', 0)}",
        file=sys.stderr,
    )
    if out.results_path:
        print(f"results: {out.results_path}", file=sys.stderr)
    return _exit_code(out.results)


def _exit_code(results: dict) -> int:
    """EXIT_OK, or EXIT_INCOMPLETE with the reasons and the first errors on stderr."""
    if is_complete(results):
        return EXIT_OK
    print('incomplete run (exit 5); the results file says "complete": false:', file=sys.stderr)
    for reason in results.get("incomplete_reasons", []):
        print(f"  {reason}", file=sys.stderr)
    n_errors = sum(int(r.get("n_errors", 0)) for r in results.get("task_results", {}).values())
    shown = first_errors(results)
    if shown:
        print(f"first {len(shown)} of {n_errors} errors:", file=sys.stderr)
        for line in shown:
            print(f"  {line}", file=sys.stderr)
    return EXIT_INCOMPLETE


def _print_summary(out, state) -> None:
    """The run's summary, its benchmarks' headline tables and the report command (harness.report.console)."""
    print(run_summary(out.results, out.records, state.registry, out.results_path))
