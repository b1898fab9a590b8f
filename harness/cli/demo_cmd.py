"""`python -m harness demo --out DIR`: the embedded default, offline on a fresh machine.

Every registered builder that offers a demo builds a tiny dataset; the baselines (oracle, random, prior)
run on the tasks each names; results and a short markdown summary land in DIR.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.errors import EXIT_OK, DataError
from harness.plugins.loading import load_plugins
from harness.results.writer import atomic_write_text

DEMO_MODELS = ("oracle", "random", "prior")


def main(argv: list[str], command: str = "demo") -> int:
    p = argparse.ArgumentParser(prog="python -m harness demo", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--models", default=",".join(DEMO_MODELS))
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args(argv)
    from harness.config.run import RunConfig
    from harness.engine import runner

    state = load_plugins()
    datasets = []
    for entry in state.registry.entries("builder"):
        if "." in entry.name:
            continue
        builder = entry.load()()
        for ds in builder.demo(args.out / "data" / entry.name, args.seed):
            tasks = [t for t in ds.tasks if state.registry.has("task", t)]
            if tasks:
                datasets.append((entry.name, ds.data_dir, tasks))
                print(
                    f"built {entry.name} demo data in {ds.data_dir} for {', '.join(tasks)}", file=sys.stderr
                )
    if not datasets:
        raise DataError(
            "no registered builder offers a demo dataset with registered tasks; check `python -m harness ls plugins`"
        )
    lines = [
        "# Demo results",
        "",
        "| data | task | model | metric | value | 95% CI | n |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    models = [m for m in args.models.split(",") if m]
    skipped: list[str] = []
    for builder_name, data_dir, tasks in datasets:
        for model in models:
            cfg = RunConfig(
                tasks=tasks,
                model=model,
                data=data_dir,
                output_path=args.out / "results",
                log_samples=True,
                cache_dir=args.out / "cache",
                seed=args.seed,
                limit=args.limit,
                progress=False,
            )
            try:
                out = runner.run(cfg, state)
            except DataError as exc:
                print(f"skipping {model} on {builder_name}: {exc}", file=sys.stderr)
                skipped.append(f"- `{model}` on {builder_name}: {exc}")
                continue
            for task, res in out.results["task_results"].items():
                m = res["metrics"][res["headline"]]
                ci = m["ci"] or [None, None]
                ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if None not in ci else "-"
                value = "-" if m["value"] is None else f"{m['value']:.3f}"
                lines.append(
                    f"| {builder_name} | {task} | {model} | {res['headline']} | {value} | {ci_text} | {m['n']} |"
                )
    if skipped:
        lines += ["", "Not run:", *skipped]
    summary = "\n".join(lines) + "\n"
    atomic_write_text(args.out / "summary.md", summary)
    print(summary)
    print(f"summary: {args.out / 'summary.md'}", file=sys.stderr)
    return EXIT_OK
