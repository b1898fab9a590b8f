"""The run configuration (what the CLI's flags mean), and parsers for `k=v,...` and `--frames` values."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from pydantic import ValidationError

from harness.errors import ConfigError
from harness.frames.spec import FrameSpec


def parse_kv(text: Optional[str], flag: str) -> dict[str, Any]:
    """Parse `k=v,k2=v2` (values as JSON where they parse: numbers, true/false, null) or a JSON object."""
    if not text:
        return {}
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{flag}: not valid JSON ({exc.msg})") from exc
        if not isinstance(value, dict):
            raise ConfigError(f"{flag}: expected a JSON object")
        return value
    out: dict[str, Any] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{flag}: '{item}' is not of the form key=value")
        raw = raw.strip()
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def parse_frames(text: Optional[str]) -> Optional[FrameSpec]:
    """`--frames`: `uniform:16`, `fps:2`, `all`, optionally followed by `,max_side=448,...`, or k=v pairs."""
    if not text:
        return None
    head, _, rest = text.partition(",")
    fields: dict[str, Any] = {}
    if "=" in head:
        fields = parse_kv(text, "--frames")
    else:
        strategy, _, amount = head.partition(":")
        fields["strategy"] = strategy
        if amount:
            try:
                fields["rate" if strategy == "fps" else "count"] = (
                    float(amount) if strategy == "fps" else int(amount)
                )
            except ValueError:
                raise ConfigError(
                    f"--frames '{text}': '{amount}' is not a {'rate' if strategy == 'fps' else 'frame count'}"
                ) from None
        fields.update(parse_kv(rest, "--frames"))
    try:
        return FrameSpec(**fields)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'spec'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"--frames '{text}': {msgs}") from None


@dataclass
class RunConfig:
    """Everything that defines one run of the evaluator."""

    tasks: list[str]
    model: str
    model_args: dict[str, Any] = field(default_factory=dict)
    limit: Optional[Union[int, float]] = None
    batch_size: int = 1
    output_path: Optional[Path] = None
    log_samples: bool = False
    cache_dir: Optional[Path] = None
    no_cache: bool = False
    seed: int = 0
    include_path: list[str] = field(default_factory=list)
    judge: Optional[str] = None
    judge_args: dict[str, Any] = field(default_factory=dict)
    frames: Optional[FrameSpec] = None
    data: Optional[Path] = None
    data_revision: Optional[str] = None
    split: Optional[str] = None
    strict: bool = False
    max_error_rate: float = 0.0
    gen_kwargs: dict[str, Any] = field(default_factory=dict)
    progress: bool = True
    #: not a flag: called as on_progress(done, total) while the model answers the run's samples (a grid
    #: worker's cell status, harness.engine.progress); the run's own, so nothing is patched process-wide
    on_progress: Optional[Callable[[int, int], None]] = field(default=None, compare=False, repr=False)
    allow_external_symlinks: bool = False

    def __post_init__(self) -> None:
        """ConfigError (exit 2) for a batch size or limit that cannot select or send anything."""
        size = self.batch_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(
                f"--batch_size {size}: must be a whole number of at least 1 (the requests per generate call)"
            )
        limit = self.limit
        number = isinstance(limit, (int, float)) and not isinstance(limit, bool)
        if limit is not None and (not number or not limit > 0 or not math.isfinite(limit)):
            raise ConfigError(
                f"--limit {format(limit, 'g') if number else repr(limit)}: must be a sample count of at least 1 or a fraction between 0 and 1 of "
                "each task; leave it out to run every sample"
            )
