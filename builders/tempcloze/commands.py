"""The builder commands: `build tempcloze`, `build tempcloze-hard`, and the `tempcloze.diagnose` part
that `harness diagnose tempcloze DIR` calls."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from harness.api import Builder, ConfigError, DemoDataset, add_progress_flag, write_atomic

from .config import BuildConfig, add_build_arguments, config_from_args
from .diagnose import diagnose
from .hard import count_by_runs, hard_subset, tally
from .layout import DIMENSION_NAMES, HARD_FILE
from .pipeline import build_dataset
from .suitability import load_suitability_model
from .synthetic import make_source_folder

SYNTHETIC_SECONDS, SYNTHETIC_FPS = 6.0, 10.0  # the demo's synthetic sources (they pass the paper's filters)
HARD_NEXT = (
    "TempCloze-Hard: run tempcloze_all with some models, then `python -m harness build tempcloze-hard "
    "--results OUT --top N --out {out}` writes {out}/subset_ids.json"
)


class TempClozeBuilder(Builder):
    """`harness build tempcloze --videos DIR | --synthetic N --out DIR [--virtual] [--seed S] [--workers N]`."""

    name = "tempcloze"
    description = "TempCloze items (gap + Semantic/Alignment/Progression distractors) from a folder of videos"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Source and output folders, overwrite switch, thresholds and options."""
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--videos", type=Path, help="folder of source videos (searched recursively)")
        source.add_argument(
            "--synthetic",
            type=int,
            metavar="N",
            help=f"build from N synthetic moving-pattern videos ({SYNTHETIC_SECONDS:g} s at "
            f"{SYNTHETIC_FPS:g} fps, made offline; no --videos needed)",
        )
        parser.add_argument(
            "--out",
            required=True,
            type=Path,
            help="dataset root to write, in the release layout (choices/, mixed_ids.json; manifest.json)",
        )
        parser.add_argument("--overwrite", action="store_true", help="replace items already in --out")
        add_progress_flag(parser)
        add_build_arguments(parser)

    def run(self, args: argparse.Namespace) -> int:
        """Build; prints a summary. Raises NoUsableVideos (with counts per reason) when nothing is kept."""

        cfg = config_from_args(args)
        if cfg.suitability_model_args and not cfg.suitability_model:
            raise ConfigError("--suitability-model-args needs --suitability-model (the model they are for)")
        model = (
            load_suitability_model(cfg.suitability_model, cfg.suitability_model_args)
            if cfg.suitability_model
            else None
        )
        t0 = time.perf_counter()
        with _sources(args) as videos:
            if args.synthetic is not None and cfg.source is None:
                cfg = replace(cfg, source="synthetic")
            manifest = build_dataset(
                videos, args.out, cfg, model=model, progress=not args.no_progress, overwrite=args.overwrite
            )
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(manifest["skipped"].items())) or "none"
        print(
            f"tempcloze: {manifest['kept']} of {manifest['videos_found']} videos kept "
            f"(skipped: {skipped}) in {time.perf_counter() - t0:.1f} s -> {args.out}"
        )
        print(HARD_NEXT.format(out=args.out))
        return 0

    def demo(self, out_dir: Path, seed: int = 0) -> list[DemoDataset]:
        """A tiny virtual TempCloze set from four synthetic moving-pattern videos."""

        out = Path(out_dir)
        make_source_folder(out / "sources", count=4, seconds=SYNTHETIC_SECONDS, fps=SYNTHETIC_FPS, seed=seed)
        data = out / "tempcloze"
        build_dataset(
            out / "sources", data, BuildConfig(seed=seed, virtual=True), progress=False, overwrite=True
        )
        return [DemoDataset(data_dir=data, tasks=["tempcloze", "tempcloze_mixed"])]


@contextmanager
def _sources(args: argparse.Namespace) -> Iterator[Path]:
    """The source folder: --videos, or --synthetic N videos made in a temporary folder beside --out (the
    same filesystem, so a virtual build hard-links them into OUT/sources/)."""
    if args.synthetic is None:
        yield args.videos
        return

    if args.synthetic < 1:
        raise ConfigError(f"--synthetic {args.synthetic}: give the number of videos to make (at least 1)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tempcloze-synthetic-", dir=out.parent) as tmp:
        make_source_folder(
            Path(tmp), count=args.synthetic, seconds=SYNTHETIC_SECONDS, fps=SYNTHETIC_FPS, seed=args.seed
        )
        yield Path(tmp)


class TempClozeHardBuilder(Builder):
    """`harness build tempcloze-hard --results R1 R2 ... --top 150 --out FILE`."""

    name = "tempcloze-hard"
    description = "TempCloze-Hard: the items most models got wrong, from results or samples files"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Input files, subset size, output file and unit."""
        parser.add_argument(
            "--results", nargs="+", required=True, help="results_*.json, samples_*.jsonl files or folders"
        )
        parser.add_argument("--top", type=int, default=150, help="subset size (default 150)")
        parser.add_argument(
            "--out",
            type=Path,
            required=True,
            help="a dataset root (writes ROOT/subset_ids.json, where the tasks read it) or a .json file",
        )
        parser.add_argument(
            "--unit",
            choices=("stem", "item"),
            default="stem",
            help="rank videos (release format: a list of stems) or stem+dimension items",
        )

    def run(self, args: argparse.Namespace) -> int:
        """Rank and write the subset; prints how many items were missed by how many runs."""

        subset = hard_subset(args.results, args.top, args.unit)
        out = args.out if args.out.suffix.lower() == ".json" else args.out / HARD_FILE
        write_atomic(out, json.dumps(subset, indent=2) + "\n")
        hist = count_by_runs(tally(args.results, args.unit))
        print(f"tempcloze-hard: {len(subset)} {args.unit}s -> {out}; items by runs wrong: {hist}")
        return 0


class TempClozeDiagnoseBuilder(Builder):
    """Builder part `tempcloze.diagnose`: edge-frame check and edge baseline over a dataset root."""

    name = "tempcloze.diagnose"
    description = "TempCloze diagnostics: edge-frame matches and the boundary-similarity (edge) baseline"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The dataset root and sampling of the edge baseline."""
        parser.add_argument("dir", type=Path, help="TempCloze dataset root (holds choices/)")
        parser.add_argument("--frames", type=int, default=16, help="frames sampled per clip (16)")
        parser.add_argument("--edge-frames", type=int, default=4, help="edge frames per boundary (4)")
        parser.add_argument("--max-height", type=int, default=360, help="frame height for the baseline (360)")
        parser.add_argument("--out", type=Path, default=None, help="also write the report as JSON here")
        parser.add_argument("--strict", action="store_true", help="exit 1 when any edge frame matches")

    def run(self, args: argparse.Namespace) -> int:
        """Print both diagnostics; exit 1 under --strict when the edge-frame check finds a match."""

        report = diagnose(args.dir, args.frames, args.edge_frames, args.max_height)
        check = report["edge_frame_check"]
        o = check["overall"]
        print(
            f"edge-frame check: {o['matches']} of {o['clips']} candidate clips match a context boundary frame"
        )
        for dim, row in check["per_dimension"].items():
            print(
                f"  {DIMENSION_NAMES[dim]:<12} {row['matches']}/{row['clips']} (start {row['start_matches']}, end {row['end_matches']})"
            )
        print("edge baseline (mean P(ground truth), uniform 0.25; top-1 accuracy):")
        for name, row in report["edge_baseline"].items():
            print(
                f"  {name:<12} {row['mean_gt_probability']:.4f}  top-1 {row['top1_accuracy']:.4f}  n={row['questions']}"
            )
        if args.out:
            write_atomic(args.out, json.dumps(report, indent=1) + "\n")
        if args.strict and o["matches"]:
            print("edge-frame check failed (--strict)", file=sys.stderr)
            return 1
        return 0
