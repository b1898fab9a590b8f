"""Aggregations: how a metric's per-sample items become one number, with a clustered bootstrap CI where the
statistic is known.

A metric's `aggregation` names, in this order of lookup:
  1. a built-in aggregation over per-sample numbers: `mean` (the default), `median`, `sum`;
  2. a registered aggregation (`register_aggregations`: `fn(items: list) -> float`, lm-eval's contract);
  3. a registered metric (`register_metrics`, e.g. `bleu4`, `cider_d`, `ap50`): called as
     `fn(predictions, references)` over the items, each item a `[prediction, reference]` pair;
  4. a task's own function, `file.py:function` next to the YAML or `package.module:function`.
Everything but the built-ins is a corpus aggregation: its items may be any JSON value (the per-sample score
a task's score hook returns under the metric's name, or `[answer, target]` when it returns none).

Confidence intervals, as lm-eval computes them: a mean gets a clustered bootstrap over its per-sample numbers;
a registered aggregation or metric (a known statistic, pure by contract) is recomputed on resampled clusters.
A task's own function is called exactly once, on all items, as lmms-eval calls it (with `args=` when it takes
that parameter): it may log, expect whole groups or write files, so it is never run on a resample and its CI
is absent, with the reason in `ci_note`. A replicate that raises leaves the CI absent too; it never ends a run.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from harness.contract.hooks import check_return
from harness.errors import ConfigError, UnknownNameError
from harness.plugins.references import load_hook
from harness_metrics import bootstrap_ci
from harness_metrics.caption_inputs import caption_pairs

#: bootstrap replicates for corpus metrics when the metric sets none (each recomputes the whole metric;
#: lm-eval uses at most 100 for its corpus metrics BLEU, chrF and TER)
CORPUS_BOOTSTRAP = 100


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _median(values: Sequence[float]) -> float:
    if not values:
        return math.nan
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2)


def _sum(values: Sequence[float]) -> float:
    return float(sum(values)) if values else math.nan


BUILTIN: dict[str, Callable[[Sequence[float]], float]] = {"mean": _mean, "median": _median, "sum": _sum}


#: why a task's own aggregation has no CI (results' `ci_note`)
OWN_FUNCTION_NOTE = (
    "no confidence interval: the task's own aggregation function runs once, on all samples (as lmms-eval "
    "runs it); its statistic is unknown, so it is not recomputed on resamples"
)


@dataclass
class Aggregator:
    """A resolved aggregation: `fn(items) -> float`; `corpus` items need not be numbers."""

    name: str
    fn: Callable[[list], float]
    corpus: bool = False
    #: for bootstrapping: items -> prepared items (e.g. captions tokenized once), and fn over prepared items
    prepare: Optional[Callable[[list], list]] = None
    prepared_fn: Optional[Callable[[list], float]] = None
    #: a task's own function: called once on all items, never on a resample or a breakdown's subset
    own: bool = False
    #: lmms-eval's `args` (its command-line namespace): passed as `args=` when `fn` takes that parameter
    args: Any = None

    def __call__(self, items: list) -> float:
        if not items:
            return math.nan
        value = self.fn(items, args=self.args) if self.own and _takes_args(self.fn) else self.fn(items)
        if self.own:  # a task's own function (harness.contract.hooks.Aggregation): a number, never "0.5" or True
            ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
            check_return(value, "aggregation", f"aggregation '{self.name}'", "a number (float)", ok)
        return float(value)


def _takes_args(fn: Callable) -> bool:
    """lmms-eval's test (`"args" in inspect.signature(fn).parameters`) for passing `args=`."""
    try:
        return "args" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


def _check_pairs(items: list, name: str) -> None:
    for i, item in enumerate(items):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ConfigError(
                f"metric '{name}' aggregates [prediction, reference] pairs; item {i} is {item!r}"
            )


def _pairs(metric: Callable, name: str) -> Callable[[list], float]:
    def over_pairs(items: list) -> float:
        _check_pairs(items, name)
        return metric([p for p, _ in items], [r for _, r in items])

    return over_pairs


def _metric_aggregator(metric: Callable, name: str) -> Aggregator:
    """A registered metric over pairs; a caption metric (one with a `tokenize` flag) has its captions
    tokenized once for the bootstrap instead of on every replicate (the PTB tokenizer is a subprocess)."""
    agg = Aggregator(name, _pairs(metric, name), corpus=True)
    if "tokenize" in inspect.signature(metric).parameters:
        def prepare(items: list) -> list:
            _check_pairs(items, name)
            cands, refs = caption_pairs([p for p, _ in items], [r for _, r in items], True)
            return [[c, r] for c, r in zip(cands, refs, strict=True)]

        def prepared(items: list) -> float:
            return metric([p for p, _ in items], [r for _, r in items], tokenize=False)

        agg.prepare, agg.prepared_fn = prepare, prepared
    return agg


def resolve_aggregation(
    ref: Any, registry: Any = None, base_dir: Optional[Path] = None, what: str = ""
) -> Aggregator:
    """The Aggregator `ref` names (see the module docstring for the lookup order)."""
    if callable(ref):
        return Aggregator(getattr(ref, "__name__", "function"), ref, corpus=True, own=True)
    ref = str(ref)
    if ref in BUILTIN:
        return Aggregator(ref, BUILTIN[ref])
    if registry is not None and registry.has("aggregation", ref):
        return Aggregator(ref, registry.get("aggregation", ref).load(), corpus=True)
    if registry is not None and registry.has("metric", ref):
        return _metric_aggregator(registry.get("metric", ref).load(), ref)
    if ":" in ref:
        fn = load_hook(ref, Path(base_dir or "."), f"{what} aggregation")
        return Aggregator(ref, fn, corpus=True, own=True)
    known = set(BUILTIN)
    if registry is not None:
        known |= set(registry.names("aggregation")) | set(registry.names("metric"))
    err = UnknownNameError("aggregation", ref, known)
    raise ConfigError(f"{what}: {err}" if what else str(err)) from None


def aggregate_with_note(
    agg: Aggregator,
    items: list,
    clusters: Sequence[Any],
    seed: int = 0,
    n_resamples: Optional[int] = None,
    default_resamples: int = 1000,
) -> tuple[float, float, float, Optional[str]]:
    """(value, ci_low, ci_high, ci_note): the aggregate and its clustered bootstrap CI (nan where none is
    defined; `ci_note` says why when it is absent for a reason other than the aggregation's kind).

    `mean` and registered corpus aggregations get a CI; `median` and `sum` keep none; a task's own function is
    called once and keeps none (see the module docstring).
    """
    value = agg(items)
    if agg.own:
        return value, math.nan, math.nan, OWN_FUNCTION_NOTE if items else None
    if len(items) < 2 or not (agg.corpus or agg.name == "mean"):
        return value, math.nan, math.nan, None
    if not agg.corpus:
        lo, hi = bootstrap_ci(
            items, clusters=clusters, n_resamples=n_resamples or default_resamples, seed=seed
        )
        return value, lo, hi, None
    fn = agg
    if agg.prepare is not None and agg.prepared_fn is not None:
        items, fn = agg.prepare(items), agg.prepared_fn
    try:
        lo, hi = bootstrap_ci(
            list(range(len(items))),
            clusters=clusters,
            n_resamples=n_resamples or CORPUS_BOOTSTRAP,
            seed=seed,
            statistic=lambda idx: fn([items[int(i)] for i in idx]),
        )
    except Exception as exc:  # a replicate the aggregation cannot compute: no CI, the value stands
        note = f"no confidence interval: '{agg.name}' raised on a bootstrap resample ({type(exc).__name__}: {exc})"
        return value, math.nan, math.nan, note
    return value, lo, hi, None
