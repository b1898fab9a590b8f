"""Write results: `OUT/<model>/results_<timestamp>.json` and `samples_<task>_<timestamp>.jsonl`, atomically.

The results file validates against harness/results/schemas/results.schema.json. Everything in it is deterministic
for a given command except `created`, the wall times (harness.results.lm_eval_keys.TIMING_KEYS) and the timestamp
in file names.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import subprocess
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, OutputError
from harness.files import write_atomic

SCHEMA_PATH = Path(__file__).parent / "schemas" / "results.schema.json"
RESULTS_SCHEMA_VERSION = 2  # 2: lm-eval's `results`/`groups`; the harness's own under task_results/group_results
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


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogates(line: str) -> str:
    """Lone surrogates (invalid Unicode a server may send) as JSON escapes: the line stays valid UTF-8 and
    json.loads gives the same text back."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def write_samples(path: Path, records: list[dict[str, Any]]) -> None:
    """One JSON object per line, keys sorted, records in dataset order."""
    lines = [_escape_surrogates(json.dumps(r, sort_keys=True, default=str, ensure_ascii=False)) for r in records]
    atomic_write_text(path, "\n".join(lines) + ("\n" if lines else ""))


_DAMAGED = "the file is damaged or not a harness samples file (rerun with --log_samples to write it again)"


class SamplesFileError(ConfigError, ValueError):
    """A samples file line that is not a sample record; the message names the file and line (exit 2).

    Also a ValueError: builders reading samples files report it as one line, like their other input errors."""


def iter_samples(path: Path, required: Sequence[str] = ()) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for every non-empty line of a samples file, in order: the one samples reader
    (`--rescore`, reports, builders). A line that is not UTF-8, not JSON, not an object or lacks one of the
    `required` keys is a SamplesFileError naming the file and the line."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise SamplesFileError(f"{path}:{lineno}: not a JSON line ({exc}); {_DAMAGED}") from None
            if not isinstance(rec, dict):
                what = type(rec).__name__
                raise SamplesFileError(f"{path}:{lineno}: a JSON {what}, not a sample record; {_DAMAGED}")
            missing = [k for k in required if k not in rec]
            if missing:
                raise SamplesFileError(f"{path}:{lineno}: the record has no {', '.join(missing)}; {_DAMAGED}")
            yield lineno, rec


def read_samples(path: Path, required: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every record of a samples file (see `iter_samples` for the errors)."""
    return [rec for _, rec in iter_samples(path, required)]


def load_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate_results(results: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError when `results` does not match the schema."""
    import jsonschema

    jsonschema.validate(results, load_schema())
