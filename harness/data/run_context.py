"""What a task learns of its run, and what loading one split gave: two frozen values, never a task's mutable
state. A `Task` is built with its config, data root and cache (harness/data/task.py); these travel beside it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from harness.data.fetch import FetchedRelease


@dataclass(frozen=True)
class RunContext:
    """Per-run state a task needs: whether downloads show progress, the hub revision of releases fetched without
    --data, the names the run's model goes by (most specific first: lmms-eval tasks pick per-model prompts and
    generation settings by them) and the folder a task's own functions may write to (lmms-eval's
    `args.output_path`)."""

    progress: bool = True
    data_revision: Optional[str] = None
    model_names: tuple[str, ...] = ()
    output_dir: Optional[Path] = None


@dataclass(frozen=True)
class LoadedSplit:
    """One split as a task's loader gave it: the docs (each with a string `doc_id`), the rows it could not use
    (each {"reason", "detail"}), the dataset folder it read, the hub release it came from (without --data), and
    the folders whose absolute media paths its rows may name (set when the rows came through `datasets`)."""

    docs: list[dict[str, Any]]
    dropped: list[dict[str, str]] = field(default_factory=list)
    root: Optional[Path] = None
    release: Optional[FetchedRelease] = None
    media_roots: tuple[Path, ...] = ()
