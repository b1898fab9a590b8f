"""`python -m harness demo --out DIR`: the embedded default, offline on a fresh machine.

Every registered builder that offers a demo builds a tiny dataset; the baselines (oracle, random, prior)
run on the tasks each names; results and a short markdown summary land in DIR. Every (task, model) pair that
runs has a row: its headline value, or why it has none. A baseline that cannot work on a task (`prior` on a
test-only benchmark: no training split) is refused by the harness before any model call; it gets no row, and
the summary and stderr say once which baselines were skipped where and why. The builders' own statistics
(question counts per family) are kept out of the demo's output (`--verbosity debug` logs them). The demo
checks itself: a run that is incomplete, a task that failed to run, or an oracle below
100 % is a problem, listed in the summary and on stderr, and the demo exits 5.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.config.run import RunConfig
from harness.engine import runner
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, DataError, HarnessError, UnsuitableModelError
from harness.plugins.loading import PluginState, load_plugins
from harness.report.escaping import markdown_text, terminal_text
from harness.results.writer import atomic_write_text

log = logging.getLogger("harness.demo")
DEMO_MODELS = ("oracle", "random", "prior")
#: how far below 1 an oracle's headline may be and still be "100 %": LISA's IoU adds 1e-5 to each union
#: (about 1e-7 on the demo's boxes), while one wrong sample of a demo task costs more than 1e-2
ORACLE_TOLERANCE = 1e-4
HEADER = [
    "| data | task | model | metric | value | 95% CI | n |",
    "| --- | --- | --- | --- | --- | --- | --- |",
]


@dataclass
class Summary:
    """The summary's table rows, the notes under it and the problems that make the demo fail."""

    rows: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (model, why) -> tasks

    def skip(self, model: str, tasks: list[str], exc: Exception) -> None:
        """`model` refused on `tasks`: one note per model and reason, the reason's first clause only."""
        why = re.sub(r"\btask '[^']*'", "the task", str(exc))
        why = re.split(r" \(|; ", why, maxsplit=1)[0]
        self.skipped.setdefault((model, why), []).extend(tasks)

    def skipped_lines(self) -> list[str]:
        return [f"`{model}` on {', '.join(tasks)}: {why}" for (model, why), tasks in self.skipped.items()]

    def row(self, data: str, task: str, model: str, metric: str, value: str, ci: str = "-", n: str = "-") -> None:
        cells = [data, task, model, metric, value, ci, n]
        self.rows.append("| " + " | ".join(markdown_text(c) for c in cells) + " |")

    def markdown(self) -> str:
        lines = ["# Demo results", "", *HEADER, *self.rows]
        if self.skipped:
            lines += ["", "Skipped (the harness refuses these baselines there, before any model call):"]
            lines += [f"- {line}" for line in self.skipped_lines()]
        if self.problems:
            lines += ["", "Problems (the demo exits 5):", *(f"- {markdown_text(p)}" for p in self.problems)]
        return "\n".join(lines) + "\n"


def _build_datasets(state: PluginState, out: Path, seed: int) -> list[tuple[str, Path, list[str]]]:
    """(builder name, data folder, registered tasks) for every builder demo."""
    datasets = []
    for entry in state.registry.entries("builder"):
        if "." in entry.name:
            continue
        builder = entry.load()()
        chatter = io.StringIO()  # a builder's statistics (and a source built twice) stay out of the demo
        with contextlib.redirect_stdout(chatter):
            built = builder.demo(out / "data" / entry.name, seed)
        log.debug("builder '%s' demo output:\n%s", entry.name, chatter.getvalue())
        for ds in built:
            tasks = [t for t in ds.tasks if state.registry.has("task", t)]
            if tasks:
                datasets.append((entry.name, ds.data_dir, tasks))
                print(f"built {entry.name} demo data in {ds.data_dir} for {', '.join(tasks)}", file=sys.stderr)
    if not datasets:
        raise DataError(
            "no registered builder offers a demo dataset with registered tasks; check `python -m harness ls plugins`"
        )
    return datasets


def _value_cells(model: str, task: str, res: dict[str, Any], summary: Summary) -> tuple[str, str]:
    """(value, CI) cells of a task's headline; a missing value says why, an oracle below 1 is a problem."""
    metric = res["headline"]
    m = res["metrics"][metric]
    ci = m.get("ci") or [None, None]
    ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if None not in ci else "-"
    if m["value"] is None:
        if res.get("n_scored"):
            why = f"none of the {res['n_scored']} scored samples has a {metric} score (not applicable)"
        else:
            why = f"no sample was scored ({res.get('n_errors', 0)} errors)"
        if model == "oracle":
            summary.problems.append(f"`oracle` on {task}: no {metric} value: {why}")
        return f"no value: {why}", ci_text
    if model == "oracle" and abs(m["value"] - 1.0) > ORACLE_TOLERANCE:
        summary.problems.append(f"`oracle` on {task}: {metric} {m['value']:.4f}, expected 1.000 (a pipeline bug)")
    return f"{m['value']:.3f}", ci_text


def _add_results(data: str, model: str, results: dict[str, Any], summary: Summary) -> None:
    for task, res in results["task_results"].items():
        value, ci = _value_cells(model, task, res, summary)
        summary.row(data, task, model, res["headline"], value, ci, str(res["metrics"][res["headline"]]["n"]))
    if not results.get("complete", True):
        for reason in results.get("incomplete_reasons") or ["incomplete"]:
            summary.problems.append(f"`{model}` on {data}: {reason}")


def _run_model(run_one, data: str, model: str, members: dict[str, list[str]], summary: Summary) -> None:
    """Run `model` on the tasks (names -> their leaf tasks); a task the model is refused on gets a "not run"
    row per leaf task and the others run."""
    left = list(members)
    while left:
        try:
            out = run_one(left)
        except UnsuitableModelError as exc:
            refused = [n for n in left if exc.task in members[n]] or list(left)
            summary.skip(model, [task for name in refused for task in members[name]], exc)
            for name in refused:
                left.remove(name)
            continue
        except HarnessError as exc:  # the demo's own data or pipeline failed: a problem, reported, not hidden
            for task in (t for name in left for t in members[name]):
                summary.row(data, task, model, "-", f"failed: {exc}")
            summary.problems.append(f"`{model}` on {data}: {exc}")
            return
        _add_results(data, model, out.results, summary)
        return


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m harness demo", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--models", default=",".join(DEMO_MODELS))
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args(argv)
    state = load_plugins()
    summary = Summary()
    for data, data_dir, tasks in _build_datasets(state, args.out, args.seed):
        members = {name: runner.expand_tasks(state, [name])[0] for name in tasks}
        for model in [m for m in args.models.split(",") if m]:

            def run_one(names: list[str], model: str = model, data_dir: Path = data_dir):
                cfg = RunConfig(
                    tasks=names,
                    model=model,
                    data=data_dir,
                    output_path=args.out / "results",
                    log_samples=True,
                    cache_dir=args.out / "cache",
                    seed=args.seed,
                    limit=args.limit,
                    progress=False,
                )
                return runner.run(cfg, state)

            _run_model(run_one, data, model, members, summary)
    text = summary.markdown()
    atomic_write_text(args.out / "summary.md", text)
    print(terminal_text(text))
    for line in summary.skipped_lines():
        print(f"skipped {terminal_text(line)}", file=sys.stderr)
    print(f"summary: {args.out / 'summary.md'}", file=sys.stderr)
    if summary.problems:
        print(f"demo incomplete (exit {EXIT_INCOMPLETE}):", file=sys.stderr)
        for problem in summary.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_OK
