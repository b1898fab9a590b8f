"""The CycliST builder commands: `build cyclist` (scenes, videos, masks, questions), `build cyclist-questions`
(questions for existing scenes) and the `cyclist.diagnose` part that `harness diagnose cyclist DIR` runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.api import Builder, DemoDataset, add_progress_flag

from .config import SPLIT_SIZES, SPLITS, TIERS, Composition, SceneSettings, parse_cycles
from .diagnose import diagnose, format_report
from .pipeline import BuildJob, run_build
from .questions.generate import answer_summary
from .questions.pipeline import questions_for_build, run_questions, write_ground_truth
from .questions.templates import FAMILIES


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size {text!r}: expected WIDTHxHEIGHT, e.g. 480x270") from None
    return w, h


def _range(text: str) -> tuple[int, int]:
    parts = text.split("-")
    try:
        lo, hi = (int(parts[0]), int(parts[-1]))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--clutter {text!r}: expected N or MIN-MAX, e.g. 4-9") from None
    return lo, hi


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--shard {text!r}: expected K/N with 0 <= K < N, e.g. 0/4"
        ) from None
    return k, n


class CyclistBuilder(Builder):
    """Regenerates CycliST (scenes, per-frame relations, videos, masks) from a seed (paper 000)."""

    name = "cyclist"
    description = "CycliST scenes with cycles, validation, raster/blender rendering, masks (paper 000)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The builder's flags (see docs/builders/cyclist.md)."""
        parser.add_argument("--tier", default="L1", choices=list(TIERS), help="tier preset L1..L5")
        parser.add_argument("--split", default="test", choices=list(SPLITS))
        parser.add_argument("--num-scenes", type=int, default=None, help="default: the paper's Table 3 count")
        parser.add_argument(
            "--out",
            type=Path,
            required=True,
            help="dataset root: written in the release's layout (scenes/<tier>/<split>/, videos/..., questions/...)",
        )
        parser.add_argument("--renderer", default="raster", choices=["raster", "blender", "none"])
        parser.add_argument(
            "--size", type=_size, default=None, help="WxH; default 480x270 (raster), 1920x1080 (blender)"
        )
        parser.add_argument("--frames", type=int, default=160)
        parser.add_argument("--fps", type=int, default=32)
        parser.add_argument("--samples", type=int, default=16, help="Cycles samples per pixel (blender)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--workers", type=int, default=1)
        parser.add_argument("--shard", type=_shard, default=(0, 1), help="K/N: build part K (0-based) of N")
        parser.add_argument("--clutter", type=_range, default=None, help="override clutter count MIN-MAX")
        parser.add_argument(
            "--cycles", default=None, help="override cyclic objects, e.g. 'orbit+recolor,linear'"
        )
        parser.add_argument("--lights", choices=["on", "off"], default=None, help="override the light cycle")
        parser.add_argument(
            "--minimum-distance", type=float, default=1.5, help="margin between object centres"
        )
        add_progress_flag(parser)
        parser.add_argument("--no-questions", action="store_true", help="skip question generation")

    def run(self, args: argparse.Namespace) -> int:
        """Build the requested dataset part; returns 0 (errors are raised as ValueError with the reason)."""

        renderer = None if args.renderer == "none" else args.renderer
        size = args.size or ((1920, 1080) if renderer == "blender" else (480, 270))
        settings = SceneSettings(
            number_of_frames=args.frames,
            fps=args.fps,
            resolution_width=size[0],
            resolution_height=size[1],
            number_of_samples=args.samples,
            minimum_distance=args.minimum_distance,
        )
        comp = Composition(
            tier=args.tier,
            clutter=args.clutter,
            cycles=parse_cycles(args.cycles) if args.cycles else None,
            cyclic_lights=None if args.lights is None else args.lights == "on",
        )
        num = args.num_scenes if args.num_scenes is not None else SPLIT_SIZES[args.tier][args.split]
        if num < 1:
            raise ValueError(f"--num-scenes {num}: need at least 1 scene")
        job = BuildJob(args.out, settings, comp, args.split, num, args.seed, renderer, args.shard)
        manifest = run_build(job, workers=args.workers, progress=not args.no_progress)
        print(
            f"cyclist: {manifest['counts']['scenes']} scenes in {args.out} "
            f"({manifest['counts']['failed_seeds']} failed seeds retried)"
        )
        if not args.no_questions:
            questions_for_build(args.out, args.tier, args.split, seed=args.seed, shard=args.shard)
        return 0

    def demo(self, out_dir: Path, seed: int = 0) -> list[DemoDataset]:
        """A tiny L1 dataset (6 test and 6 train scenes, 32 frames at 160x90, raster, with questions) for the
        embedded demo, in the release's layout; the train split feeds the `prior` baseline."""

        data_dir = Path(out_dir) / "cyclist_demo"
        settings = SceneSettings(number_of_frames=32, fps=32, resolution_width=160, resolution_height=90)
        for split in ("test", "train"):
            run_build(
                BuildJob(data_dir, settings, Composition("L1"), split, 6, seed, "raster"), progress=False
            )
            questions_for_build(data_dir, "L1", split, seed=seed)
        return [DemoDataset(data_dir=data_dir, tasks=["cyclist_l1", "cyclist_caption_l1"])]


class CyclistQuestionsBuilder(Builder):
    """Template questions with temporal quantifiers for existing CycliST scenes (paper 000, Sec. 3)."""

    name = "cyclist-questions"
    description = "CycliST questions (12 families, temporal quantifiers) from scene JSON files"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """--scenes DIR --out FILE [--families ...] [--seed S] [--templates DIR] [--ground-truth FILE]."""
        parser.add_argument(
            "--scenes", type=Path, required=True, help="folder of scene JSON files (or one file)"
        )
        parser.add_argument(
            "--out",
            type=Path,
            required=True,
            help="a questions JSON file to write, or a folder (no .json suffix): one questions_<template>.json "
            "per template file, as the release (e.g. DATA/cyclist/questions/unicycle/test)",
        )
        parser.add_argument(
            "--families", nargs="+", default=None, choices=list(FAMILIES), help="default: all twelve"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--templates", type=Path, default=None, help="folder of template files (default: built-in)"
        )
        parser.add_argument(
            "--ground-truth", type=Path, default=None, help="also write per-scene ground truth here"
        )
        parser.add_argument(
            "--mode",
            choices=["official", "exhaustive"],
            default="official",
            help="official: one question per family per scene (the release's mix, default); "
            "exhaustive: every template per scene",
        )

    def run(self, args: argparse.Namespace) -> int:
        """Generate and write the questions; 0 on success, 1 when no scene could be read."""
        result = run_questions(
            args.scenes,
            args.out,
            families=args.families,
            seed=args.seed,
            templates=args.templates,
            mode=args.mode,
        )
        info = result["info"]
        if args.ground_truth is not None:
            write_ground_truth(args.scenes, args.ground_truth)
        print(
            f"cyclist-questions: {info['num_questions']} questions for {info['num_scenes']} scenes -> {args.out}"
            + (
                f" ({info['num_skipped']} scene files skipped, see info.skipped)"
                if info["num_skipped"]
                else ""
            )
        )
        print("\n".join(answer_summary(info)))
        return 0 if info["num_scenes"] > 0 else 1


class CyclistDiagnose(Builder):
    """`diagnose cyclist DIR`: does the engine reproduce a dataset's stored answers?"""

    name = "cyclist.diagnose"
    description = "re-execute a CycliST dataset's stored programs; run by `harness diagnose cyclist DIR`"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """DIR [--max-listed N]."""
        parser.add_argument(
            "dir", type=Path, help="dataset root (scenes/<tier>/<split>/, questions/...) or one tier folder"
        )
        parser.add_argument("--max-listed", type=int, default=200, help="mismatches to list (default 200)")

    def run(self, args: argparse.Namespace) -> int:
        """Print the report; 0 when every stored answer is reproduced, 1 otherwise (2: no questions)."""
        if not Path(args.dir).is_dir():
            raise ValueError(
                f"diagnose cyclist: {args.dir} is not a folder (expected scenes/<tier>/<split>/ and questions/<tier>/<split>/)"
            )
        report = diagnose(args.dir)
        print(format_report(report, args.dir, args.max_listed))
        if report.total == 0:
            print(
                f"diagnose cyclist: no questions found in {args.dir} (questions/<tier>/<split>/*.json or questions/*.json)"
            )
            return 2
        return 0 if report.reproduced == report.total else 1
