"""The grid file (YAML): which models on which tasks, with the run command's options, validated up front.

Every option the run command takes keeps its flag's name and meaning; a bad value is a ConfigError (exit 2)
of one line naming the file and the field, before any model call.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.config.run import parse_frames, parse_kv
from harness.config.yaml_files import read_yaml
from harness.errors import ConfigError
from harness.scoring.completeness import DEFAULT_MAX_ERROR_RATE

EXECUTORS = ("local", "ray", "slurm")
KV = Union[str, dict[str, Any]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())


class ModelEntry(_Strict):
    """One row of the grid: a registered model with its arguments (the run command's --model_args etc.)."""

    model: str = Field(min_length=1)
    model_args: KV = ""
    name: Optional[str] = Field(default=None, min_length=1)
    batch_size: Optional[int] = Field(default=None, ge=1)
    judge: Optional[str] = None
    judge_args: KV = ""
    gpus: Optional[float] = Field(default=None, ge=0)

    def args(self) -> dict[str, Any]:
        """model_args as a dict (a `k=v,...` string parsed as the run command parses --model_args)."""
        return _kv(self.model_args, "model_args")


class SlurmBlock(_Strict):
    """What submitit needs to submit each model's cells as a SLURM job."""

    partition: Optional[str] = None
    time: int = Field(default=60, ge=1, description="minutes per job")
    gpus: Optional[int] = Field(default=None, ge=0, description="GPUs per job (default: the model entry's)")
    account: Optional[str] = None
    cpus: int = Field(default=4, ge=1)
    mem_gb: Optional[int] = Field(default=None, ge=1)
    #: submitit's cluster: None picks SLURM when sbatch is on PATH; "local" runs the jobs as local processes
    #: through submitit's LocalExecutor (what the tests use where SLURM's daemons do not start)
    cluster: Optional[Literal["slurm", "local", "debug"]] = None


class GridFile(_Strict):
    """The whole grid file (docs/cli.md, "The grid file")."""

    output_path: Path
    tasks: list[str] = Field(min_length=1)
    models: list[ModelEntry] = Field(min_length=1)
    executor: Literal["local", "ray", "slurm"] = "local"
    max_parallel: int = Field(default=1, ge=1)
    ray_address: Optional[str] = None
    slurm: SlurmBlock = SlurmBlock()
    # the run command's options, same names and meaning
    data: Optional[Path] = None
    data_revision: Optional[str] = None
    split: Optional[str] = None
    include_path: list[str] = []
    frames: Optional[str] = None
    limit: Optional[float] = Field(default=None, gt=0)
    batch_size: int = Field(default=1, ge=1)
    log_samples: bool = False
    seed: int = 0
    cache_dir: Optional[Path] = None
    no_cache: bool = False
    judge: Optional[str] = None
    judge_args: KV = ""
    gen_kwargs: KV = ""
    strict: bool = False
    max_error_rate: float = Field(default=DEFAULT_MAX_ERROR_RATE, ge=0, le=1)
    allow_external_symlinks: bool = False

    @field_validator("include_path", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("tasks", mode="before")
    @classmethod
    def _task_list(cls, value: Any) -> Any:
        return [t.strip() for t in value.split(",") if t.strip()] if isinstance(value, str) else value

    def run_limit(self) -> Optional[Union[int, float]]:
        """--limit as the run command reads it: a count when >= 1, a fraction below."""
        return int(self.limit) if self.limit is not None and self.limit >= 1 else self.limit


def _kv(value: KV, field: str) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else parse_kv(value, field)


def _field_name(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def parse_grid(data: dict[str, Any], where: str) -> GridFile:
    """A validated GridFile; ConfigError naming `where` and the first bad field otherwise."""
    try:
        grid = GridFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{where}: field '{_field_name(err['loc'])}': {err['msg']}{more}") from None
    _checked(where, "frames", lambda: parse_frames(grid.frames))
    _checked(where, "judge_args", lambda: _kv(grid.judge_args, "judge_args"))
    _checked(where, "gen_kwargs", lambda: _kv(grid.gen_kwargs, "gen_kwargs"))
    for i, entry in enumerate(grid.models):
        _checked(where, f"models[{i}].model_args", entry.args)
        _checked(where, f"models[{i}].judge_args", lambda e=entry: _kv(e.judge_args, "judge_args"))
    return grid


def _checked(where: str, field: str, check) -> None:
    try:
        check()
    except ConfigError as exc:
        raise ConfigError(f"{where}: field '{field}': {exc}") from None


def load_grid(path: Path) -> GridFile:
    """Read and validate a grid file; paths in it are read relative to the current folder, as flags are."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"grid file {path}: no such file")
    return parse_grid(read_yaml(path), str(path))


def absolute(path: Optional[Path]) -> Optional[str]:
    """A path as an absolute string (workers on other nodes or in other folders read the same place)."""
    return None if path is None else os.path.abspath(os.path.expanduser(str(path)))
