"""Is a run complete? A run whose numbers cannot stand alone says so in its results file and exit code.

A task is incomplete when it scored nothing, when its share of errored samples (harness-side failures:
media, request, generation, score) exceeds `--max_error_rate` (default 0), or when its aggregate hook (the
paper's tables) raised. The results file is written
either way, with `"complete": false` and the problems listed; the CLI then exits with EXIT_INCOMPLETE (5)
and prints the problems and the first errors. `compare` and `leaderboard` refuse incomplete runs unless
`--allow_incomplete` is given.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ConfigError

DEFAULT_MAX_ERROR_RATE = 0.0


def check_max_error_rate(value: float) -> float:
    """The --max_error_rate value, checked: a share between 0 and 1."""
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigError(
            f"--max_error_rate {value}: expected a share of samples between 0 and 1 (e.g. 0.05)"
        )
    return float(value)


def task_problems(name: str, res: dict[str, Any], max_error_rate: float) -> list[str]:
    """Why one task's result is incomplete (empty when it is complete)."""
    n, errors, scored = int(res.get("n_samples", 0)), int(res.get("n_errors", 0)), int(res.get("n_scored", 0))
    kinds = ", ".join(f"{k}: {v}" for k, v in sorted((res.get("errors") or {}).items()))
    if res.get("tables_error"):
        return [f"task '{name}': its paper tables are missing: {res['tables_error']}"]
    if res.get("aggregation_errors"):
        return [f"task '{name}': {e}" for e in res["aggregation_errors"]]
    if scored == 0:
        why = f"all {n} samples are errors ({kinds})" if n else "no sample was evaluated"
        return [f"task '{name}' scored nothing: {why}"]
    if n and errors / n > max_error_rate:
        return [
            f"task '{name}': {errors} of {n} samples are errors ({kinds}); {errors / n:.1%} exceeds "
            f"--max_error_rate {max_error_rate:g}"
        ]
    return []


def mark_completeness(results: dict[str, Any], max_error_rate: float = DEFAULT_MAX_ERROR_RATE) -> list[str]:
    """Set `complete`, `incomplete_reasons` and `max_error_rate` in a results dict; return the reasons."""
    problems = [
        p
        for name, res in (results.get("task_results") or {}).items()
        for p in task_problems(name, res, max_error_rate)
    ]
    for name, group in (results.get("group_results") or {}).items():
        if group.get("tables_error"):
            problems.append(f"group '{name}': its paper tables are missing: {group['tables_error']}")
        problems += [f"group '{name}': {e}" for e in group.get("aggregation_errors") or ()]
    if not results.get("task_results"):
        problems.append("no task was evaluated")
    results["complete"] = not problems
    results["incomplete_reasons"] = problems
    results["max_error_rate"] = max_error_rate
    return problems


def first_errors(results: dict[str, Any], limit: int = 5) -> list[str]:
    """The first per-sample errors of the run, one line each: task, doc, kind/reason, message."""
    out = []
    for name, res in (results.get("task_results") or {}).items():
        for e in res.get("error_examples") or []:
            out.append(
                f"{name} doc '{e.get('doc_id')}': {e.get('kind')}/{e.get('reason')}: {e.get('message')}"
            )
    return out[:limit]


def is_complete(results: dict[str, Any]) -> bool:
    """Whether a results file says its run is complete (files older than the field count as complete)."""
    return results.get("complete", True) is not False


def refuse_incomplete(runs: list[dict[str, Any]], command: str) -> None:
    """ConfigError naming every incomplete run (by file) and why, unless none is; `--allow_incomplete`
    is the caller's way around it."""
    bad = [r for r in runs if not is_complete(r)]
    if not bad:
        return
    lines = [
        f"{r.get('_source', r.get('_label', '?'))}: {'; '.join(r.get('incomplete_reasons') or ['incomplete'])}"
        for r in bad
    ]
    raise ConfigError(
        f'{command}: {len(bad)} run(s) are incomplete ("complete": false):\n  '
        + "\n  ".join(lines)
        + f"\nfix and rerun them, or pass --allow_incomplete to {command} them anyway"
    )
