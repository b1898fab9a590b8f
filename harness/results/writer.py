"""Write results: `OUT/<model>/results_<timestamp>.json` and `samples_<task>_<timestamp>.jsonl`, atomically.

The results file is validated by harness.results.models.Results before it is written (its JSON schema,
harness/results/schemas/results.schema.json, is generated from that model). Everything in it is deterministic
for a given command except `created`, the wall times (harness.results.lm_eval_keys.TIMING_KEYS) and the timestamp
in file names.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from harness.errors import ConfigError, OutputError
from harness.files import write_atomic
from harness.results.models import Results
from harness.results.reading import (
    ResultsFileError,
    SamplesFileError,
    iter_samples,
    read_samples,
    validation_message,
)
from harness.results.upgrade import RESULTS_SCHEMA_VERSION

SCHEMA_PATH = Path(__file__).parent / "schemas" / "results.schema.json"
_TRACKED_PACKAGES = (
    "video-harness",
    "numpy",
    "torch",
    "transformers",
    "av",
    "decord",
    "pycocotools",
    "pydantic",
)


def timestamp() -> str:
    """UTC timestamp for file names, e.g. 2026-11-29T23-40-02.123456."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H-%M-%S.%f")


def safe_name(name: str) -> str:
    """A model or task name usable as a file or folder name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "model"


def package_versions() -> dict[str, str]:
    out = {}
    for pkg in _TRACKED_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_hash() -> str | None:
    """The harness checkout's commit, when it runs from a git checkout."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def check_output_folder(path: Optional[Path], option: str = "--output_path") -> None:
    """ConfigError (exit 2) when `path` cannot be a folder to write into: it, or the nearest part of it that
    exists, is a file. Called before any model call, so a run never pays for answers it cannot write."""
    if path is None:
        return
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        what = "is a file" if probe == Path(path) else f"lies below {probe}, which is a file"
        raise ConfigError(f"{option} {path}: {what}, not a folder; give a folder to write results into")


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file, synced, and rename (harness.files): a crash never leaves a half-written file.

    A failure (a full disk, no permission) removes the temp file and raises OutputError naming `path`.
    """
    try:
        write_atomic(path, text, fsync=True)
    except OSError as exc:
        raise OutputError(path, exc) from exc


def dumps_results(results: dict[str, Any]) -> str:
    return json.dumps(results, indent=2, sort_keys=True, default=str) + "\n"


def write_results(path: Path, results: dict[str, Any]) -> None:
    """Write a results file atomically, after validating it (`validate_results`): nothing the readers would
    refuse is ever written."""
    validate_results(results)
    atomic_write_text(path, dumps_results(results))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogates(line: str) -> str:
    """Lone surrogates (invalid Unicode a server may send) as JSON escapes: the line stays valid UTF-8 and
    json.loads gives the same text back."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def write_samples(path: Path, records: list[dict[str, Any]]) -> None:
    """One JSON object per line, keys sorted, records in dataset order."""
    lines = [_escape_surrogates(json.dumps(r, sort_keys=True, default=str, ensure_ascii=False)) for r in records]
    atomic_write_text(path, "\n".join(lines) + ("\n" if lines else ""))


def load_schema() -> dict[str, Any]:
    """The results file's JSON schema as stored (generated from harness.results.models.Results)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate_results(results: dict[str, Any]) -> None:
    """Raise ResultsFileError (one line: the field and what was expected) when `results` does not fit the
    results model (harness.results.models.Results): every results file is checked before it is written."""
    try:
        Results.model_validate(results)
    except ValidationError as exc:
        raise ResultsFileError(
            validation_message("results to write", exc) + " (a harness or plugin bug: please report it; the "
            "model's answers are in the response cache, so a rerun after the fix makes no model call)"
        ) from None


__all__ = [
    "RESULTS_SCHEMA_VERSION",
    "SamplesFileError",
    "atomic_write_text",
    "dumps_results",
    "iter_samples",
    "read_samples",
    "validate_results",
    "write_results",
    "write_samples",
]
