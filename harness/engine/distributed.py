"""Data parallel runs: rank and world size from the launcher's environment, and gathering to rank 0.

`accelerate launch` and `torchrun` set RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT. Samples are sharded by
video (`shard`: the samples of one video go to one rank, so each rank decodes its videos once); rank 0 gathers
every record over a gloo process group and writes results identical to a one-process run. torch is imported
only when the world has more than one rank.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Hashable, Sequence
from math import ceil
from typing import Any, Optional, TypeVar

T = TypeVar("T")


def world() -> tuple[int, int]:
    """(rank, world_size) of this process; (0, 1) outside a launcher."""
    size = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    return rank, max(1, size)


def shard(items: Sequence[T], rank: int, size: int, group_of: Callable[[T], Optional[Hashable]]) -> list[T]:
    """This rank's share of `items`, in their order: items of one group (a video) stay on one rank unless the
    group alone exceeds a rank's fair share (then it is cut into fair-share pieces). Pieces go largest first to
    the least loaded rank, so ranks differ by at most one piece; every rank computes the same split. Items
    whose group is None are groups of one."""
    if size <= 1:
        return list(items)
    fair = max(1, ceil(len(items) / size))
    groups: dict[Hashable, list[int]] = {}
    for i, item in enumerate(items):
        key = group_of(item)
        groups.setdefault(("item", i) if key is None else ("group", key), []).append(i)
    pieces = [g[k : k + fair] for g in groups.values() for k in range(0, len(g), fair)]
    pieces.sort(key=lambda piece: (-len(piece), piece[0]))
    loads, mine = [0] * size, []
    for piece in pieces:
        target = min(range(size), key=lambda r: (loads[r], r))
        loads[target] += len(piece)
        if target == rank:
            mine += piece
    return [items[i] for i in sorted(mine)]


def _ensure_group() -> Any:
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="gloo")
        atexit.register(_destroy_group)
    return dist


def _destroy_group() -> None:
    """Tear the gloo group down before the interpreter exits: left to process teardown, its C++ threads are
    destroyed while still joinable and a rank aborts ("terminate called without an active exception",
    exit -6) after its work is done, now and then."""
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def gather_to_rank0(obj: Any) -> Optional[list[Any]]:
    """Every rank's `obj` in rank order on rank 0 (None on other ranks); [obj] in a one-process run."""
    rank, size = world()
    if size == 1:
        return [obj]
    dist = _ensure_group()
    out: Optional[list[Any]] = [None] * size if rank == 0 else None
    dist.gather_object(obj, out, dst=0)
    return out


def barrier() -> None:
    """Wait for every rank (no-op in a one-process run)."""
    if world()[1] > 1:
        _ensure_group().barrier()
