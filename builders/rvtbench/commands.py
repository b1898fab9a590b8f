"""`python -m harness build rvtbench ...`: flags, part loading, and the tiny demo build."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.api import Builder, DemoDataset, add_progress_flag, out_of_range, parse_kv, registry
from harness.frames import VIDEO_SUFFIXES

from .config import INTEGER_FLAGS, BuildOptions
from .parts import load_model, load_part
from .perception import decode_video, perception_dt
from .pipeline import build_dataset
from .queries import TemplateQueries
from .selection import RuleSelector
from .synthetic import synthetic_sources

TASKS = ["rvtbench_seg", "rvtbench_grounding", "rvtbench_vqa", "rvtbench_summary"]
#: the builder whose demo dataset the RVTBench demo is made from (reached through the registry)
DEMO_SOURCE_BUILDER = "cyclist"


class RvtbenchBuilder(Builder):
    """RVTBench from videos through digital twins (paper 002, Sec. 2.2); see docs/builders/rvtbench.md."""

    name = "rvtbench"
    description = "RVTBench samples from videos via digital twins, reasoning trees and queries (paper 002)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The builder's flags (docs/builders/rvtbench.md)."""
        src = parser.add_mutually_exclusive_group(required=True)
        src.add_argument("--videos", type=Path, help="folder of videos (perception pipeline)")
        src.add_argument("--from-synthetic", type=Path, help="a rendered CycliST build (exact DT, no models)")
        parser.add_argument("--out", type=Path, required=True)
        parser.add_argument(
            "--segmenter", default="sam2", help="registered part rvtbench.segmenter.NAME or module:Class"
        )
        parser.add_argument("--segmenter-model", default=None, help="SAM 2 checkpoint path or hub id")
        parser.add_argument(
            "--segmenter-args",
            default="",
            help="more segmenter options, k=v,... (sam2: grid, min_area, max_instances)",
        )
        parser.add_argument("--depth", default="depth_anything", help="registered part rvtbench.depth.NAME")
        parser.add_argument("--depth-model", default=None, help="Depth Anything checkpoint path or hub id")
        parser.add_argument("--depth-args", default="", help="more depth options, k=v,... (batch_size)")
        parser.add_argument(
            "--describer",
            default=None,
            help="rvtbench.describer.NAME (default: vlm with --describer-model, else opencv)",
        )
        parser.add_argument("--describer-model", default=None, help="a registered VLM for descriptions")
        q = parser.add_mutually_exclusive_group()
        q.add_argument("--query-model", default=None, help="a registered LLM for selection and queries")
        q.add_argument("--templates", action="store_true", help="rules and templates only (the default)")
        parser.add_argument(
            "--assign", default="rules", choices=["rules", "all"], help="task types per object"
        )
        parser.add_argument("--objects-per-video", type=int, default=3)
        parser.add_argument("--keyframe-interval", type=int, default=4, help="t_s: key frame every N frames")
        parser.add_argument(
            "--downsample", type=int, default=4, help="d: keep every d-th DT frame for generation"
        )
        parser.add_argument("--eval-frames", type=int, default=8, help="frames with ground truth (uniform)")
        parser.add_argument("--max-side", type=int, default=None, help="resize videos for perception")
        parser.add_argument(
            "--num-videos",
            type=int,
            default=None,
            help="build from the first N source videos only (sorted; a quick build, e.g. for the tour)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes building digital twins (--from-synthetic only; same bytes for any number)",
        )
        parser.add_argument("--device", default="cpu")
        parser.add_argument("--seed", type=int, default=0)
        add_progress_flag(parser)

    def run(self, args: argparse.Namespace) -> int:
        """Build the dataset folder; errors are raised as ValueError with the reason."""

        for flag, (low, high) in INTEGER_FLAGS.items():
            value = getattr(args, flag)
            span = out_of_range(value, low, high) if value is not None else None
            if span is not None:
                raise ValueError(f"--{flag.replace('_', '-')} {value}: expected a whole number {span}")
        selector, writer, selector_name, query_name = _generation_parts(args)
        options = BuildOptions(
            seed=args.seed,
            keyframe_interval=args.keyframe_interval,
            downsample=args.downsample,
            eval_frames=args.eval_frames,
            objects_per_video=args.objects_per_video,
            assign=args.assign,
            selector=selector_name,
            query=query_name,
            num_videos=args.num_videos,
        )
        if args.from_synthetic is not None:
            sources = synthetic_sources(args.from_synthetic, args.keyframe_interval, args.num_videos)
            options.parts = {"dt": "synthetic:cyclist"}
        elif args.workers > 1:
            raise ValueError("--workers applies to --from-synthetic (perception models run in one process)")
        else:
            sources, options.parts = _perception_sources(args)
            sources = sources[: args.num_videos]
        manifest = build_dataset(
            sources, args.out, options, selector, writer, progress=not args.no_progress, workers=args.workers
        )
        print(
            f"rvtbench: {manifest['counts']['samples']} samples from {manifest['counts']['videos']} videos in {args.out}"
        )
        return 0

    def demo(self, out_dir: Path, seed: int = 0) -> list[DemoDataset]:
        """A tiny CycliST demo build turned into RVTBench samples of every type (templates, exact DT); the
        CycliST builder is found through the registry, as `harness build cyclist` finds it."""
        source = registry().get("builder", DEMO_SOURCE_BUILDER).load()()
        (cyclist,) = source.demo(Path(out_dir), seed)
        data_dir = Path(out_dir) / "rvtbench_demo"
        options = BuildOptions(
            seed=seed,
            keyframe_interval=1,
            objects_per_video=2,
            assign="all",
            parts={"dt": "synthetic:cyclist"},
        )
        build_dataset(
            synthetic_sources(cyclist.data_dir, 1),
            data_dir,
            options,
            RuleSelector(2, "all"),
            TemplateQueries(),
            progress=False,
        )
        return [DemoDataset(data_dir=data_dir, tasks=list(TASKS))]


def _generation_parts(args: argparse.Namespace) -> tuple:
    if args.query_model:
        model = load_model(args.query_model)
        selector = load_part("selector", "llm", model=model, objects_per_video=args.objects_per_video)
        return selector, load_part("query", "llm", model=model), "llm", "llm"
    selector = load_part("selector", "rules", objects_per_video=args.objects_per_video, assign=args.assign)
    return selector, load_part("query", "templates"), "rules", "templates"


def _perception_sources(args: argparse.Namespace) -> tuple[list, dict[str, str]]:
    videos = sorted(p for p in Path(args.videos).iterdir() if p.suffix.lower() in VIDEO_SUFFIXES)
    if not videos:
        raise ValueError(f"--videos {args.videos}: no video files ({', '.join(VIDEO_SUFFIXES)})")
    seg_opts = {"device": args.device, **({"model": args.segmenter_model} if args.segmenter_model else {})}
    seg_opts.update(parse_kv(args.segmenter_args, "--segmenter-args"))
    depth_opts = {"device": args.device, **({"model": args.depth_model} if args.depth_model else {})}
    depth_opts.update(parse_kv(args.depth_args, "--depth-args"))
    segmenter = load_part("segmenter", args.segmenter, **seg_opts)
    depth = load_part("depth", args.depth, **depth_opts)
    describer_name = args.describer or ("vlm" if args.describer_model else "opencv")
    describer = load_part(
        "describer", describer_name, **({"model_name": args.describer_model} if args.describer_model else {})
    )
    names = {
        "segmenter": f"{args.segmenter}:{getattr(segmenter, 'model_ref', '')}"
        + (f" ({args.segmenter_args})" if args.segmenter_args else ""),
        "depth": f"{args.depth}:{getattr(depth, 'model_ref', '')}"
        + (f" ({args.depth_args})" if args.depth_args else ""),
        "describer": f"{describer_name}:{args.describer_model or ''}",
    }

    def make(path: Path):
        def build(rel: str) -> dict:
            frames, fps = decode_video(path, args.max_side)
            return perception_dt(frames, fps, rel, segmenter, depth, describer, args.keyframe_interval, names)

        return build

    return [(p.stem, p, make(p)) for p in videos], names
