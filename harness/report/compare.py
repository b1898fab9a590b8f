"""compare: per-task, per-metric deltas between two runs with paired bootstrap CIs over the shared samples.

Samples are paired by (task, doc_id) from the two samples files; the difference new - base of each pair
is bootstrapped over clusters (the task's cluster_field, the video by default), so the interval reflects
the same sampling noise as the results' CIs while cancelling the per-sample difficulty both runs share.
A gated metric (each task's headline, or those given) regresses when its interval lies entirely on the
worse side of zero and the drop is at least its threshold, or when the base run has a value and the new run
none (e.g. every answer invalid, so a metric over valid answers is empty). Without samples files the comparison falls
back to the results' own intervals (unpaired; said so in the output). Runs with different task
versions, splits or judges are refused by the CLI; a different effective frame spec is noted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from harness.report.compat import Mismatch, find_mismatches
from harness.report.escaping import markdown_text
from harness.report.loading import task_config, task_result
from harness.report.stats import N_RESAMPLES, paired_values
from harness_metrics import bootstrap_ci

# Fields that differ legitimately between two models (each adapter's frame budget caps the task's spec):
# reported as notes; a different task version, split or judge makes the comparison meaningless (refused).
NOTE_ONLY = frozenset({"frame_spec_digest"})


@dataclass
class Delta:
    """One (task, metric) comparison."""

    task: str
    metric: str
    gated: bool
    higher_is_better: bool
    base: Optional[float]
    new: Optional[float]
    delta: Optional[float]
    ci: Optional[tuple[float, float]]
    n_pairs: int
    paired: bool
    threshold: float
    regression: bool = False
    improvement: bool = False
    lost: bool = False  # the base has a value, the new run none: never "ok"
    why: str = ""  # why the new run has no value (NaN, not a number, missing metric or task)


@dataclass
class Comparison:
    """All deltas, the tasks only one side has, and the config mismatches found."""

    base: str
    new: str
    deltas: list[Delta] = field(default_factory=list)
    only_base: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def regressions(self) -> list[Delta]:
        return [d for d in self.deltas if d.regression]

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "new": self.new,
            "regression": bool(self.regressions()),
            "deltas": [asdict(d) for d in self.deltas],
            "only_base": self.only_base,
            "only_new": self.only_new,
            "mismatches": [m.describe() for m in self.mismatches],
            "notes": self.notes,
        }


def threshold_for(thresholds: dict[str, float], task: str, metric: str) -> float:
    """The minimum drop for (task, metric): 'task:metric', then 'metric', then '*' (default 0)."""
    for key in (f"{task}:{metric}", metric, "*"):
        if key in thresholds:
            return float(thresholds[key])
    return 0.0


def _unpaired(base_m: dict, new_m: dict) -> tuple[Optional[float], Optional[tuple[float, float]]]:
    b, n = base_m.get("value"), new_m.get("value")
    if b is None or n is None:
        return None, None
    delta = n - b
    halves = []
    for m in (base_m, new_m):
        ci = m.get("ci") or [None, None]
        if ci[0] is None or ci[1] is None:
            return delta, None
        halves.append((ci[1] - ci[0]) / 2)
    h = math.sqrt(sum(x * x for x in halves))
    return delta, (delta - h, delta + h)


def _metric_delta(
    base: dict, new: dict, task: str, metric: str, confidence: float, n_resamples: int, seed: int
) -> tuple[Optional[float], Optional[tuple[float, float]], int, bool]:
    """(delta, ci, n_pairs, paired) for one metric."""
    cfg = task_config(base, task)
    aggregation = next(
        (m.get("aggregation", "mean") for m in cfg.get("metrics") or [] if m.get("name") == metric), "mean"
    )
    b_rec = (base.get("_samples") or {}).get(task)
    n_rec = (new.get("_samples") or {}).get(task)
    if b_rec and n_rec and aggregation == "mean":
        bv, nv, clusters = paired_values(b_rec, n_rec, metric, cfg.get("cluster_field"))
        if not bv:
            return None, None, 0, True
        diffs = [n - b for b, n in zip(bv, nv, strict=True)]
        delta = sum(diffs) / len(diffs)
        if len(diffs) < 2:
            return delta, None, len(diffs), True
        lo, hi = bootstrap_ci(
            diffs, clusters=clusters, n_resamples=n_resamples, confidence=confidence, seed=seed
        )
        return delta, (float(lo), float(hi)), len(diffs), True
    delta, ci = _unpaired(
        task_result(base, task)["metrics"][metric], task_result(new, task)["metrics"][metric]
    )
    return delta, ci, 0, False


def compare_runs(
    base: dict[str, Any],
    new: dict[str, Any],
    gate: Optional[Sequence[str]] = None,
    thresholds: Optional[dict[str, float]] = None,
    tasks: Optional[Sequence[str]] = None,
    confidence: float = 0.95,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare every metric of every shared task; gate each task's headline metric (or the `gate` names)."""
    thresholds = thresholds or {}
    b_tasks, n_tasks = set(base["task_results"]), set(new["task_results"])
    shared = sorted(b_tasks & n_tasks)
    if tasks:
        shared = [t for t in shared if t in set(tasks)]
    out = Comparison(
        base["_source"],
        new["_source"],
        only_base=sorted(b_tasks - n_tasks),
        only_new=sorted(n_tasks - b_tasks),
    )
    for m in find_mismatches([base, new], shared):
        if m.field in NOTE_ONLY:  # models differ in frame budgets: say so, but compare
            out.notes.append(m.describe())
        else:
            out.mismatches.append(m)
    unusable = {(t, m): what for t, m, what in new.get("_nonfinite") or ()}
    for task in shared:
        b_res, n_res = task_result(base, task), task_result(new, task)
        headline = b_res.get("headline")
        for metric in b_res["metrics"]:
            if metric not in n_res["metrics"]:
                if (metric in gate) if gate else metric == headline:
                    out.deltas.append(_missing(task, metric, b_res, thresholds, "the metric is missing in NEW"))
                continue
            bm = b_res["metrics"][metric]
            hib = bool(bm.get("higher_is_better", True))
            delta, ci, n_pairs, paired = _metric_delta(base, new, task, metric, confidence, n_resamples, seed)
            gated = metric in gate if gate else metric == headline
            d = Delta(
                task,
                metric,
                gated,
                hib,
                bm.get("value"),
                n_res["metrics"][metric].get("value"),
                delta,
                ci,
                n_pairs,
                paired,
                threshold_for(thresholds, task, metric),
            )
            if (task, metric) in unusable:  # NaN or not a number in NEW: fails closed
                d.new, d.delta, d.ci = None, None, None
                d.why = f"NEW's value is {unusable[task, metric]}"
            if d.new is None and (d.base is not None or d.why):  # no value at all is worse than any drop
                d.lost = True
                d.regression = gated
            elif delta is not None and ci is not None:
                sign = 1.0 if hib else -1.0
                best_end = max(sign * ci[0], sign * ci[1])  # interval ends, signed so that up is better
                worst_end = min(sign * ci[0], sign * ci[1])
                d.regression = gated and best_end < 0 and sign * delta <= -d.threshold
                d.improvement = worst_end > 0
            out.deltas.append(d)
    # a task NEW did not run at all fails the gate only when --tasks names it; by default compare gates the
    # tasks both runs ran (a run of a subset is compared on that subset) and lists the rest as "only in base"
    for task in [t for t in out.only_base if t in set(tasks or ())]:
        b_res = task_result(base, task)
        for metric in b_res["metrics"]:
            if (metric in gate) if gate else metric == b_res.get("headline"):
                out.deltas.append(_missing(task, metric, b_res, thresholds, "the task is missing in NEW"))
    return out


def _missing(task: str, metric: str, b_res: dict, thresholds: dict[str, float], why: str) -> Delta:
    """A gated metric NEW lacks (the metric or the whole task): a regression, whatever the threshold."""
    bm = b_res["metrics"][metric]
    d = Delta(task, metric, True, bool(bm.get("higher_is_better", True)), bm.get("value"), None, None, None, 0,
              False, threshold_for(thresholds, task, metric), regression=True, lost=True, why=why)
    return d


def _fmt(x: Optional[float]) -> str:
    return "–" if x is None else f"{x:.4f}"


def _verdict(d: Delta) -> str:
    """A row's verdict: REGRESSION (gated), worse, improved, ok, or why there is no delta."""
    if d.lost:
        why = f": {d.why}" if d.why else ""
        return f"REGRESSION (no value{why})" if d.regression else f"no value in new{why}"
    if d.base is None and d.new is not None:
        return "no value in base"
    if d.regression:
        return "REGRESSION"
    return "improved" if d.improvement else "ok"


def comparison_markdown(cmp: Comparison) -> str:
    """A markdown table of the deltas (regressions marked), with notes on unpaired rows and mismatches."""
    lines = [
        f"**compare** base {markdown_text(cmp.base)} → new {markdown_text(cmp.new)}",
        "",
        "| task | metric | base | new | delta | 95 % CI | pairs | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in cmp.deltas:
        verdict = _verdict(d)
        ci = "–" if d.ci is None else f"[{d.ci[0]:+.4f}, {d.ci[1]:+.4f}]"
        pairs = str(d.n_pairs) if d.paired else "unpaired"
        name = f"**{markdown_text(d.metric)}**" if d.gated else markdown_text(d.metric)
        delta = "–" if d.delta is None else f"{d.delta:+.4f}"
        lines.append(
            f"| {markdown_text(d.task)} | {name} | {_fmt(d.base)} | {_fmt(d.new)} | {delta} | {ci} | {pairs} | {verdict} |"
        )
    notes = []
    if cmp.only_base:
        notes.append("only in base: " + markdown_text(", ".join(cmp.only_base)))
    if cmp.only_new:
        notes.append("only in new: " + markdown_text(", ".join(cmp.only_new)))
    if any(not d.paired for d in cmp.deltas):
        notes.append("unpaired rows: no samples files next to a results file; CIs combine the runs' own CIs")
    notes.extend(m.describe() for m in cmp.mismatches)
    notes.extend(cmp.notes)
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    lines += ["", f"{len(cmp.regressions())} regression(s) in gated (bold) metrics."]
    return "\n".join(lines) + "\n"
