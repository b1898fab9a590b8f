"""`python -m harness import NAME FILE... --out DIR [--commit SHA]`: bring another tool's per-item outputs in.

Each FILE is read by the importer registered as NAME (hook `register_importers`, harness/contract/importer.py)
into samples records; they are written as `DIR/<model>/samples_<task>_<stamp>.jsonl` beside a results
file whose numbers come from the ordinary `--rescore` path (harness.engine.rescoring.score_records: each record
parsed and scored once, in doc order, with the run's seeds), with the source file,
its sha256 and the source commit recorded under `imported_from`. The core knows no importer: it finds them
through the registry. A file that cannot be read (not a file, not the importer's format, no items) is
reported on stderr and the files after it are still imported; the exit code is then 2 (docs/cli.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.contract.importer import ImportedRun
from harness.engine.rescoring import score_records
from harness.engine.runner import build_task
from harness.errors import EXIT_USAGE, ConfigError
from harness.plugins.loading import PluginState, load_plugins
from harness.results.writer import (
    check_output_folder,
    safe_name,
    timestamp,
    write_results,
    write_samples,
)
from harness.scoring.recording import imported_draft, task_run_config, with_samples_files


def write_imported(run: ImportedRun, out: Path, state: PluginState) -> Path:
    """Write one imported run's samples files and its rescored results file; returns the results path."""
    if not run.tasks:
        raise ConfigError(f"import of {run.provenance.get('file')}: no items found; is it the right format?")
    folder = Path(out) / safe_name(run.model)
    stamp = timestamp()
    paths = {task: folder / f"samples_{safe_name(task)}_{stamp}.jsonl" for task in run.tasks}
    configs = {}
    for task in run.tasks:
        t = build_task(state, task)
        spec = t.config.frames  # the task's own spec: what its public counterpart sampled
        configs[task] = task_run_config(t, spec, spec)
    # The model, task configs and provenance carried over; the records parsed and scored once, as a run's.
    draft = imported_draft(run.model, run.provenance, configs, stamp)
    names = [p.name for p in paths.values()]
    results = score_records(run.tasks, state, draft, seed=0, model_name=folder.name, rescored_from=names, created=stamp)
    for task, records in run.tasks.items():
        write_samples(paths[task], records)
    results_path = folder / f"results_{stamp}.json"
    write_results(results_path, with_samples_files(results, {task: path.name for task, path in paths.items()}))
    return results_path


def main(argv: list[str]) -> int:
    state = load_plugins()
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m harness import NAME FILE... --out DIR [--commit SHA]\n\nimporters:")
        for e in state.registry.entries("importer"):
            print(f"  {e.name:24} {e.description}")
        return 0 if argv else EXIT_USAGE
    entry = state.registry.get("importer", argv[0])
    parser = argparse.ArgumentParser(
        prog=f"python -m harness import {argv[0]}", description=entry.description
    )
    parser.add_argument("files", nargs="+", type=Path, help="files to import (one model run each)")
    parser.add_argument("--out", required=True, type=Path, help="output folder (one subfolder per model)")
    parser.add_argument("--commit", default=None, help="the source repository's commit the files come from")
    parser.add_argument("--include_path", action="append", default=[], help="extra task folders")
    args = parser.parse_args(argv[1:])
    if args.include_path:
        state = load_plugins(args.include_path)
    check_output_folder(args.out, "import --out")  # a file there: refused before anything is read
    importer = entry.load()()
    failed = []
    for path in args.files:  # one file that cannot be imported is reported; the others are still imported
        try:
            if not path.is_file():
                raise ConfigError(f"import {argv[0]}: {path} is not a file")
            run = importer.read(path, args.commit)
            written = write_imported(run, args.out, state)
        except ConfigError as err:
            print(f"error: {err}", file=sys.stderr)
            failed.append(str(path))
            continue
        counts = ", ".join(f"{t} {len(r)}" for t, r in run.tasks.items())
        print(f"imported {path} as model '{run.model}' ({counts} items) -> {written}")
    if failed:
        print(
            f"error: {len(failed)} of {len(args.files)} files not imported ({', '.join(failed)}); "
            "the others were written",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return 0
