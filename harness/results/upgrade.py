"""Read results files of every schema version the harness has written, as the current shape.

Version 1 (before lm-eval's schema) kept the harness's per-task entries under `results` and `groups`, with
lm-eval's flat `"<metric>,none"` keys mixed in, and `config.model_args` as a dict. Version 2 keeps them under
`task_results` and `group_results` and leaves `results` and `groups` to lm-eval (docs/results.md). Reports,
compare, leaderboard and `--rescore` read every file through `upgrade_results`, so files written before a
schema change keep working; tests/fixtures/results_v1.json is a frozen version-1 file.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ConfigError
from harness.results.lm_eval_keys import FILTER, SEED_KEYS, TIMING_KEYS, add_lm_eval_keys, lm_eval_config
from harness.scoring.task_results import N_BOOTSTRAP

RESULTS_SCHEMA_VERSION = 2  # 2: lm-eval's `results`/`groups`; the harness's own under task_results/group_results


class ResultsVersionError(ConfigError):
    """A results file of a schema version this harness cannot read (written by a newer harness)."""


def _harness_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A version-1 entry without lm-eval's keys: what version 2 keeps under task_results/group_results
    (a missing interval, [null, null] in version 1, as null)."""
    out = {k: v for k, v in entry.items() if "," not in k and k != "alias"}
    if isinstance(out.get("metrics"), dict):
        out["metrics"] = {
            name: {**m, "ci": None} if isinstance(m, dict) and m.get("ci") == [None, None] else m
            for name, m in out["metrics"].items()
        }
    return out


def _stderrs(entry: dict[str, Any]) -> dict[str, Any]:
    """The stderrs a version-1 entry recorded (None where it had none or "N/A")."""
    out = {}
    for metric in entry.get("metrics") or {}:
        se = entry.get(f"{metric}_stderr,{FILTER}")
        out[metric] = se if isinstance(se, (int, float)) else None
    return out


def _from_v1(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in ("results", "groups")}
    tasks = data.get("results") or {}
    out["task_results"] = {name: _harness_entry(e) for name, e in tasks.items()}
    out["group_results"] = {name: _harness_entry(e) for name, e in (data.get("groups") or {}).items()}
    config = dict(data.get("config") or {})
    model = data.get("model") or {}
    args = config.get("model_args")
    args = args if isinstance(args, dict) else (model.get("identity") or {}).get("args") or {}
    adapter = (model.get("identity") or {}).get("name") or model.get("name") or "model"
    seeds = {k: config.get(k) for k in SEED_KEYS}  # files written after the harness seeded carry them
    config.update(lm_eval_config(str(adapter), args, None, N_BOOTSTRAP, seeds))
    out["config"] = config
    n_original = {k: (v or {}).get("original", 0) for k, v in (data.get("n-samples") or {}).items()}
    timing = None
    if all(isinstance(data.get(k), (int, float)) for k in ("start_time", "end_time")):
        timing = {"start_time": data["start_time"], "end_time": data["end_time"]}
    stderrs = {name: _stderrs(e) for name, e in tasks.items()}
    add_lm_eval_keys(out, stderrs, n_original, timing, {})
    for key in TIMING_KEYS:  # keep what version 1 wrote where it wrote it
        if key in data:
            out[key] = data[key]
    out["schema_version"] = RESULTS_SCHEMA_VERSION
    out["upgraded_from_schema"] = 1
    return out


def upgrade_results(data: dict[str, Any], source: str = "results file") -> dict[str, Any]:
    """`data` in the current schema (a copy when it was older); ResultsVersionError for a newer one."""
    version = data.get("schema_version", 1)
    if version == RESULTS_SCHEMA_VERSION:
        return data
    if version == 1:
        return _from_v1(data)
    raise ResultsVersionError(
        f"{source}: results schema_version {version!r}; this harness reads versions 1 to "
        f"{RESULTS_SCHEMA_VERSION} (upgrade video-harness to read it)"
    )
