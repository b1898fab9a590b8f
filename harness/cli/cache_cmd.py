"""`python -m harness cache [show|prune]`: what the cache dir holds (responses, frames, hashes...: entries,
size, age) and pruning it by age, total size, model or task (harness.cache.inventory)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cache import default_cache_dir
from harness.cache.inventory import (
    human_age,
    human_size,
    inventory,
    parse_age,
    parse_size,
    prune_frames_older_than,
    prune_responses,
    response_rows,
    shrink_to,
)
from harness.engine.frame_feed import frame_cache_bytes
from harness.errors import EXIT_OK, ConfigError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m harness cache",
        description=__doc__,
        epilog="Pruned entries are cache misses: the next run recomputes them (model calls, decoding).",
    )
    p.add_argument("action", nargs="?", choices=["show", "prune"], default="show")
    p.add_argument("--cache_dir", type=Path, default=None, help="default: $HARNESS_CACHE_DIR or ~/.cache/video-harness")
    p.add_argument("--older-than", dest="older_than", type=parse_age, default=None,
                   help="prune: responses made and frames last used longer ago than this (30m, 12h, 7d, 2w)")
    p.add_argument("--max-size", dest="max_size", type=parse_size, default=None,
                   help="prune: shrink the whole cache dir under this size (500M, 2G): least recently used "
                   "frames first, then the oldest responses")
    p.add_argument("--model", default=None, help="prune: only the responses of this model")
    p.add_argument("--task", default=None, help="prune: only the responses of this task")
    return p


def show(cache_dir: Path) -> None:
    """The cache dir's parts (entries, size, oldest and newest entry) and its responses by model and task."""
    parts = inventory(cache_dir)
    print(f"cache dir: {cache_dir}")
    print(f"{'part':17} {'entries':>8} {'size':>10}  {'oldest':>12}  {'newest':>12}  holds")
    for p in parts:
        cap = f" (cap {human_size(frame_cache_bytes())})" if p.name == "frames" else ""
        print(f"{p.name:17} {p.entries:8d} {human_size(p.size):>10}  {human_age(p.oldest):>12}  "
              f"{human_age(p.newest):>12}  {p.what}{cap}")
    print(f"{'total':17} {'':8} {human_size(sum(p.size for p in parts)):>10}")
    rows = response_rows(cache_dir) if cache_dir.is_dir() else []
    if rows:
        print("\nresponses by model and task:")
        for model, task, n, oldest, newest in rows:
            print(f"  {model:24} {task:28} {n:8d}  {human_age(oldest):>12}  {human_age(newest):>12}")


def prune(cache_dir: Path, args: argparse.Namespace) -> None:
    """Apply the prune flags (they combine: --model and --task narrow --older-than's responses)."""
    before = sum(p.size for p in inventory(cache_dir))
    if args.older_than is not None or args.model or args.task:
        n = prune_responses(cache_dir, args.older_than, args.model, args.task)
        print(f"responses: {n} rows deleted")
    if args.older_than is not None and not (args.model or args.task):
        print(f"frames: {human_size(prune_frames_older_than(cache_dir, args.older_than))} of entries unused "
              "for that long deleted")
    if args.max_size is not None:
        shrink_to(cache_dir, args.max_size)
    after = sum(p.size for p in inventory(cache_dir))
    print(f"cache dir {cache_dir}: {human_size(before)} -> {human_size(after)}")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    cache_dir = Path(args.cache_dir or default_cache_dir()).expanduser()
    flags = args.older_than is not None or args.max_size is not None or args.model or args.task
    if args.action == "show":
        if flags:
            raise ConfigError("cache: --older-than, --max-size, --model and --task go with `cache prune`")
        show(cache_dir)
        return EXIT_OK
    if not flags:
        raise ConfigError("cache prune: say what to prune: --older-than AGE, --max-size SIZE, --model M or --task T")
    if not cache_dir.is_dir():
        raise ConfigError(f"cache prune: cache dir {cache_dir} does not exist")
    prune(cache_dir, args)
    return EXIT_OK
