"""TempCloze-Hard: the items most models got wrong, ranked from the harness's samples files.

Inputs are `samples_<task>_<timestamp>.jsonl` files (one JSON object a line with "doc_id", "doc" holding
"stem" and "dimension", and "scores" with "accuracy" 0/1) or `results_*.json` files that list their samples
files under "samples_files" ({task: file name}, resolved inside the results file's folder; read by the
harness's results reader, which refuses a malformed file or a path outside that folder). Each samples
file counts as one model run. Output is the release's `subset_ids.json`: a JSON list of stems.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.api import iter_samples, read_results, samples_file_of


@dataclass
class ItemTally:
    """Wrong and total answers of one stem (or stem + dimension), and which runs erred."""

    key: tuple[str, ...]
    wrong: int = 0
    total: int = 0
    runs_wrong: set[str] = field(default_factory=set)

    @property
    def error_rate(self) -> float:
        return self.wrong / self.total if self.total else 0.0


def samples_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand results files (their "samples_files") and folders (their samples_*.jsonl) into samples files."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(p.rglob("samples_*.jsonl"))
            if not found:
                raise ValueError(f"{p}: folder holds no samples_*.jsonl file; pass results or samples files")
            out.extend(found)
        elif p.suffix == ".jsonl":
            out.append(p)
        elif p.suffix == ".json":  # read and validated by the harness's results reader (ResultsFileError)
            results = read_results(p)
            if not results.model.samples_files:
                raise ValueError(
                    f"{p}: has no 'samples_files' mapping; rerun the evaluation with --log_samples "
                    "or pass the samples_*.jsonl files directly"
                )
            out.extend(samples_file_of(results, task) for task in sorted(results.model.samples_files))
        else:
            raise ValueError(f"{p}: expected a results_*.json, a samples_*.jsonl or a folder")
    for sp in out:
        if not sp.exists():  # a FIFO or a folder is refused by name by the samples reader
            raise ValueError(f"samples file not found: {sp}")
    return out


def _read_samples(path: Path) -> list[tuple[str, str, float]]:
    """(stem, dimension, accuracy) of every TempCloze sample in one samples file."""
    rows = []
    for lineno, rec in iter_samples(path):  # a line that is no record: SamplesFileError (a ValueError)
        doc = rec.get("doc") or {}
        if "stem" not in doc:
            continue  # another benchmark's sample
        scores = rec.get("scores") or {}
        if "accuracy" not in scores:
            raise ValueError(f"{path}:{lineno}: sample of stem '{doc['stem']}' has no scores.accuracy")
        # an invalid (unparsable) answer is scored None by the task: for Hard it counts as wrong
        value = scores.get("accuracy_strict", scores["accuracy"])
        if not (value is None or isinstance(value, (int, float)) and not isinstance(value, bool)):
            raise ValueError(f"{path}:{lineno}: field 'scores.accuracy': expected a number or null, got {value!r:.60}")
        rows.append((str(doc["stem"]), str(doc.get("dimension", "")), float(value or 0.0)))
    return rows


def tally(paths: Sequence[str | Path], unit: str = "stem") -> list[ItemTally]:
    """Count wrong answers per stem (unit 'stem') or per stem and dimension (unit 'item')."""
    if unit not in ("stem", "item"):
        raise ValueError(f"unit must be 'stem' or 'item', got '{unit}'")
    files = samples_files(paths)
    table: dict[tuple[str, ...], ItemTally] = {}
    seen_any = False
    for sp in files:
        rows = _read_samples(sp)
        seen_any = seen_any or bool(rows)
        for stem, dim, acc in rows:
            key = (stem,) if unit == "stem" else (stem, dim)
            t = table.setdefault(key, ItemTally(key))
            t.total += 1
            if acc < 0.5:
                t.wrong += 1
                t.runs_wrong.add(str(sp))
    if not seen_any:
        raise ValueError(
            "no TempCloze samples (lines whose doc has a 'stem') in: " + ", ".join(str(p) for p in files)
        )
    return list(table.values())


def rank_hard(tallies: Sequence[ItemTally]) -> list[ItemTally]:
    """Hardest first: most runs wrong, then highest error rate, then most wrong answers, then the key."""
    return sorted(tallies, key=lambda t: (-len(t.runs_wrong), -t.error_rate, -t.wrong, t.key))


def hard_subset(paths: Sequence[str | Path], top: int = 150, unit: str = "stem") -> list:
    """The `top` hardest stems (a list of str) or items (a list of {"stem", "dimension"})."""
    ranked = rank_hard(tally(paths, unit))[:top]
    if unit == "stem":
        return [t.key[0] for t in ranked]
    return [{"stem": t.key[0], "dimension": t.key[1]} for t in ranked]


def count_by_runs(tallies: Iterable[ItemTally]) -> dict[int, int]:
    """How many items were missed by 0, 1, 2, ... runs (for the command's summary)."""
    hist: dict[int, int] = defaultdict(int)
    for t in tallies:
        hist[len(t.runs_wrong)] += 1
    return dict(sorted(hist.items()))
