"""`python -m harness compare BASE NEW [--threshold [METRIC=]X] [--metric NAME] [--out FILE]`: paired deltas
of two runs, exit 4 on a regression beyond noise (the leaderboard's CI gate)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cli.args import ALLOW_INCOMPLETE_HELP, ArgumentParser
from harness.errors import EXIT_OK, EXIT_REGRESSION, ConfigError
from harness.report.compare import compare_runs, comparison_markdown
from harness.report.escaping import terminal_text
from harness.report.loading import expand_paths, load_run, unique_labels
from harness.results.writer import atomic_write_text
from harness.scoring.completeness import refuse_incomplete


def parse_thresholds(values: list[str]) -> dict[str, float]:
    """'0.01' (every gated metric), 'accuracy=0.02' or 'task:metric=0.02' -> {key: minimum drop}."""
    out: dict[str, float] = {}
    for raw in values:
        key, _, num = raw.rpartition("=")
        try:
            out[key or "*"] = float(num)
        except ValueError:
            raise ConfigError(f"compare --threshold '{raw}': expected X, METRIC=X or TASK:METRIC=X") from None
    return out


def main(argv: list[str]) -> int:
    """Paired deltas of two runs; exit 4 on a regression."""
    p = ArgumentParser(prog="python -m harness compare", description="paired deltas; exit 4 on a regression")
    p.add_argument("base", help="the stored results file (or a folder with exactly one)")
    p.add_argument("new", help="the new results file (or a folder with exactly one)")
    p.add_argument("--metric", action="append", default=[], help="metrics to gate (default: each headline)")
    p.add_argument(
        "--threshold",
        action="append",
        default=[],
        help="minimum drop that counts: X, METRIC=X or TASK:METRIC=X (default 0)",
    )
    p.add_argument("--tasks", default="", help="comma-separated tasks to compare (default: all shared)")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--n_resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--allow_mismatch",
        action="store_true",
        help="compare even when task versions, frame specs, splits or judges differ",
    )
    p.add_argument("--out", default=None, help="also write the comparison to FILE (.json or .md)")
    p.add_argument("--allow_incomplete", action="store_true", help=ALLOW_INCOMPLETE_HELP)
    args = p.parse_args(argv)
    pair = []
    for which, raw in (("base", args.base), ("new", args.new)):
        files = expand_paths([raw])
        if len(files) != 1:
            raise ConfigError(
                f"compare {which} {raw}: holds {len(files)} results files; give exactly one file"
            )
        pair.append(load_run(files[0], nonfinite_metrics="note"))  # a NaN headline in NEW: a regression
    if not args.allow_incomplete:
        refuse_incomplete(pair, "compare")
    unique_labels(pair)
    tasks = [t for t in args.tasks.split(",") if t]
    cmp = compare_runs(
        pair[0],
        pair[1],
        gate=args.metric or None,
        thresholds=parse_thresholds(args.threshold),
        tasks=tasks or None,
        confidence=args.confidence,
        n_resamples=args.n_resamples,
        seed=args.seed,
    )
    if cmp.mismatches and not args.allow_mismatch:
        raise ConfigError(
            "compare: the runs are not comparable:\n  "
            + "\n  ".join(m.describe() for m in cmp.mismatches)
            + "\nrerun one of them to match, or pass --allow_mismatch"
        )
    if not cmp.deltas:
        raise ConfigError(f"compare: {args.base} and {args.new} share no task with a common metric")
    text = comparison_markdown(cmp)
    print(terminal_text(text), end="")
    if args.out:
        out = Path(args.out)
        body = json.dumps(cmp.to_json(), indent=2, sort_keys=True) + "\n" if out.suffix == ".json" else text
        atomic_write_text(out, body)
    return EXIT_REGRESSION if cmp.regressions() else EXIT_OK
