"""The frame-density figure (public subset/eval_frames.py, plotted by subset/plot_dims.py): accuracy per
frames-per-clip count, per dimension and overall, from the member tasks of the group
`tempcloze_hard_frames` (each task's aggregate hook records the count its frame spec asks for)."""

from __future__ import annotations

from typing import Any

from harness_tasks.tempcloze.protocol import DIMENSIONS

DENSITY_NOTE = (
    "accuracy (invalid answers excluded) per frames-per-clip count, as the public frame-count figure: "
    "Semantic, Alignment, Progression and Overall (micro over the three)"
)


def frame_density_tables(task_results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Group aggregate hook: {"frame_density": {"counts": [...], "by_count": {N: {S, A, P, overall}}}}."""
    by_count: dict[str, dict[str, Any]] = {}
    for name, res in task_results.items():
        tables = res.get("tables") or {}
        count = tables.get("frames_per_clip")
        if count is None or "per_dimension" not in tables:
            continue
        per = tables["per_dimension"]
        row = {d: {k: per[d].get(k) for k in ("accuracy", "n_valid")} for d in DIMENSIONS if d in per}
        overall = tables.get("overall") or {}
        row["overall"] = {k: overall.get(k) for k in ("accuracy", "n_valid")}
        by_count[str(count)] = {"task": name, **row}
    counts = sorted(by_count, key=int)
    return {
        "frame_density": {
            "note": DENSITY_NOTE,
            "counts": counts,
            "by_count": {c: by_count[c] for c in counts},
        }
    }
