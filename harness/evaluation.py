"""`harness.evaluate(...)`: an evaluation run as a Python function (lm-eval's `simple_evaluate`), the one the
command line's run calls too.

Its keyword arguments are the run's flags (docs/cli.md), named as the flags are; where the command line takes a
comma list or a repeated flag (`--tasks`, `--include_path`) it takes a list (a comma string works too), and where
it takes `k=v,...` (`--model_args`, `--gen_kwargs`, `--judge_args`) a dict (or the same string). Errors are the
documented exceptions of harness.errors (ConfigError: exit 2 on the command line, MissingDependencyError and
ModelLoadError: 3, ...), raised, never an exit.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from harness.config.generation import check_generation
from harness.config.run import RunConfig, parse_frames, parse_kv
from harness.data.media import ALLOW_EXTERNAL_SYMLINKS
from harness.engine import runner
from harness.engine.runner import RunOutcome
from harness.errors import ConfigError
from harness.frames.spec import FrameSpec
from harness.plugins.loading import PluginState, load_plugins
from harness.scoring.completeness import DEFAULT_MAX_ERROR_RATE, check_max_error_rate

PathLike = Union[str, os.PathLike]


def evaluate(
    tasks: Union[str, Sequence[str]],
    model: str,
    model_args: Union[str, Mapping[str, Any]] = "",
    *,
    data: Optional[PathLike] = None,
    include_path: Union[PathLike, Sequence[PathLike]] = (),
    output_path: Optional[PathLike] = None,
    log_samples: bool = False,
    limit: Optional[Union[int, float]] = None,
    batch_size: int = 1,
    cache_dir: Optional[PathLike] = None,
    no_cache: bool = False,
    seed: int = 0,
    judge: Optional[str] = None,
    judge_args: Union[str, Mapping[str, Any]] = "",
    frames: Optional[Union[str, FrameSpec]] = None,
    data_revision: Optional[str] = None,
    split: Optional[str] = None,
    gen_kwargs: Union[str, Mapping[str, Any]] = "",
    strict: bool = False,
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE,
    allow_external_symlinks: bool = False,
    no_progress: bool = False,
) -> Optional[dict[str, Any]]:
    """Evaluate `model` on `tasks` and return the results (the dict written to `results_<stamp>.json`, see
    docs/results.md; files are written only with `output_path`). An incomplete run returns its results with
    `"complete": false` (the command line's exit 5); under torchrun only rank 0 gets the results, the other
    ranks None. Raises harness.errors.HarnessError subclasses for what the command line reports with an exit
    code (a config or data problem: ConfigError; an unknown name: UnknownNameError; a missing extra:
    MissingDependencyError; --strict: StrictModeError)."""
    cfg = run_config(**locals())  # the arguments, exactly as named above
    return execute(cfg).results


def execute(cfg: RunConfig, state: Optional[PluginState] = None) -> RunOutcome:
    """Run a checked RunConfig (plugins loaded once, unless given): the outcome with the results, the files
    written and the per-sample records (what the command line prints its summary from)."""
    token = ALLOW_EXTERNAL_SYMLINKS.set(cfg.allow_external_symlinks)
    try:
        return runner.run(cfg, state or load_plugins(cfg.include_path))
    finally:
        ALLOW_EXTERNAL_SYMLINKS.reset(token)


def run_config(**flags: Any) -> RunConfig:
    """The RunConfig of the run's flags (`evaluate`'s keyword arguments, the command line's flags), checked:
    ConfigError naming the flag for a value that cannot be used."""
    names = _names(flags.pop("tasks", None) or "")
    if not names or not flags.get("model"):
        raise ConfigError("--tasks and --model are required (see `python -m harness --help`)")
    data, limit = flags.pop("data", None), flags.pop("limit", None)
    if flags.get("data_revision") and data is not None:
        raise ConfigError(
            "--data_revision pins the hub release a task fetches without --data; with --data the local "
            "folder is read as it is: drop one of the two"
        )
    if isinstance(limit, (int, float)) and not isinstance(limit, bool) and math.isfinite(limit) and limit >= 1:
        limit = int(limit)  # an infinity stays a float: RunConfig refuses it, naming --limit
    paths = flags.pop("include_path", ())
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    frames = flags.pop("frames", None)
    output_path, cache_dir = flags.pop("output_path", None), flags.pop("cache_dir", None)
    return RunConfig(
        tasks=names,
        model_args=_kv(flags.pop("model_args", ""), "--model_args"),
        limit=limit,
        output_path=Path(output_path) if output_path is not None else None,
        cache_dir=Path(cache_dir) if cache_dir is not None else None,
        include_path=[str(p) for p in paths],
        judge_args=_kv(flags.pop("judge_args", ""), "--judge_args"),
        frames=frames if isinstance(frames, FrameSpec) or frames is None else parse_frames(frames),
        data=Path(data) if data is not None else None,
        max_error_rate=check_max_error_rate(flags.pop("max_error_rate", DEFAULT_MAX_ERROR_RATE)),
        gen_kwargs=check_generation(_kv(flags.pop("gen_kwargs", ""), "--gen_kwargs"), "--gen_kwargs"),
        progress=not flags.pop("no_progress", False),
        **flags,
    )


def _names(tasks: Union[str, Sequence[str]]) -> list[str]:
    items = tasks.split(",") if isinstance(tasks, str) else list(tasks)
    return [t.strip() for t in items if t and t.strip()]


def _kv(value: Union[str, Mapping[str, Any], None], flag: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    return parse_kv(value, flag)
