"""Load TempCloze items as docs: one per (video, dimension[, rotation][, visible span]) or one per Mixed video.

Reads the release layout as it is (`choices/{stem}/before.mp4, GT.mp4, after.mp4, S/, A/, C/` with
`mixed/mixed_ids.json`, `subset/subset_ids.json` and `subset/fixed_permutations.json`, each also found at
the dataset root, where the builder writes them) and the builder's virtual form
(`choices/{stem}/clips.json`: every clip as frame segments of one source video). An item's dataset
source (Appendix E's per-source tables) is its clips.json `source_dataset`, else the optional
`sources.json` at the root (`{stem: source}`); the Progression key may be written `P` or `C`. Each doc carries
everything its request needs (clip paths or segments, the presented candidate order, the answer letter),
so requests, scores and tables are computed from the doc alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from harness.api import DataError, DroppedRow
from tasks.tempcloze.protocol import (
    AFTER,
    BEFORE,
    DEFAULT_SEED,
    DIMENSION_NAMES,
    DIMENSIONS,
    DISTRACTORS,
    GT,
    PUBLIC_KEY,
    canonical_dimension,
    kind_of,
    letter_map,
    rotate,
    seeded_order,
)
from tasks.tempcloze.span import span_name

CHOICES = "choices"
CLIPS_JSON = "clips.json"
CLIPS_FORMAT = "tempcloze-clips"
MIXED_FILE = "mixed_ids.json"
HARD_FILE = "subset_ids.json"
FIXED_FILE = "fixed_permutations.json"
SOURCES_FILE = "sources.json"
# Where the release keeps each subset file (the builder writes them at the root): searched in this order.
SUBSET_DIRS = {MIXED_FILE: ("", "mixed"), HARD_FILE: ("", "subset"), FIXED_FILE: ("", "subset")}
BUILD_HINT = "build one with `python -m harness build tempcloze --videos VIDEOS --out DIR`"

DEFAULT_OPTIONS: dict[str, Any] = {
    "subset": "all",  # all | mixed | hard
    "dimensions": list(DIMENSIONS),
    "order_seed": DEFAULT_SEED,
    "order": "auto",  # auto (fixed_permutations.json for hard when present) | seeded | fixed
    "rotations": [0],
    "context": "both",  # both | beginning | end
    "samples": 1,  # answers per request (test-time scaling)
    "attempts": 1,  # replies read per request, the first parsable counts (the public 3-retry protocol: 3)
    "media": "auto",  # auto | files | virtual
    "context_frames": [None],  # visible span: K context frames shown (None: all), one doc per value
}


def _options(options: dict) -> dict[str, Any]:
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise DataError(
            f"tempcloze loader: unknown dataset option(s) {unknown}; known: {sorted(DEFAULT_OPTIONS)}"
        )
    opts = {**DEFAULT_OPTIONS, **options}
    checks = {
        "subset": ("all", "mixed", "hard"),
        "order": ("auto", "seeded", "fixed"),
        "context": ("both", "beginning", "end"),
        "media": ("auto", "files", "virtual"),
    }
    for key, allowed in checks.items():
        if opts[key] not in allowed:
            raise DataError(f"tempcloze loader: option '{key}' is {opts[key]!r}; expected one of {allowed}")
    opts["dimensions"] = [canonical_dimension(d) for d in opts["dimensions"]]
    bad = [d for d in opts["dimensions"] if d not in DIMENSIONS]
    if bad:
        raise DataError(f"tempcloze loader: option 'dimensions' has {bad}; expected a subset of {DIMENSIONS}")
    spans = opts["context_frames"]
    spans = list(spans) if isinstance(spans, (list, tuple)) else [spans]
    if not spans or any(
        k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1) for k in spans
    ):
        raise DataError(
            f"tempcloze loader: option 'context_frames' is {opts['context_frames']!r}; expected a list of "
            "positive integers or null (null: every sampled context frame), e.g. [1, 4, 8, 12, null]"
        )
    opts["context_frames"] = spans
    if int(opts["samples"]) < 1:
        raise DataError(f"tempcloze loader: option 'samples' must be at least 1, got {opts['samples']}")
    if int(opts["attempts"]) < 1:
        raise DataError(f"tempcloze loader: option 'attempts' must be at least 1, got {opts['attempts']}")
    if int(opts["attempts"]) > 1 and int(opts["samples"]) > 1:
        raise DataError(
            "tempcloze loader: options 'attempts' and 'samples' are both above 1; retries (attempts) and "
            "test-time scaling (samples) are separate protocols: set one of them"
        )
    return opts


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise DataError(f"tempcloze: {what} {path} is not readable JSON ({err})") from err


class Item:
    """One video's clips: a release folder of mp4 files, or a virtual clips.json over a source video."""

    def __init__(self, root: Path, stem: str, media: str) -> None:
        self.root, self.stem = root, stem
        folder = root / CHOICES / stem
        self.folder = folder
        has_files = (folder / "GT.mp4").exists()
        has_virtual = (folder / CLIPS_JSON).exists()
        if media == "files" or (media == "auto" and has_files):
            self.mode = "files"
        elif has_virtual:
            self.mode = "virtual"
        else:
            raise DataError(f"tempcloze: {folder} holds neither GT.mp4 nor {CLIPS_JSON}")
        self.doc: Optional[dict] = None
        self.source: Optional[str] = None
        if self.mode == "files" and has_virtual:  # a builder-made file item: clips.json records its source
            meta = _read_json(folder / CLIPS_JSON, "clips file")
            self.source = meta.get("source_dataset") if isinstance(meta, dict) else None
        if self.mode == "virtual":
            doc = _read_json(folder / CLIPS_JSON, "clips file")
            if not isinstance(doc, dict) or doc.get("format") != CLIPS_FORMAT:
                raise DataError(f"tempcloze: {folder / CLIPS_JSON}: 'format' must be '{CLIPS_FORMAT}'")
            for key in ("source", "clips"):
                if key not in doc:
                    raise DataError(
                        f"tempcloze: {folder / CLIPS_JSON}: field '{key}' is missing; rebuild the item"
                    )
            self.doc = doc
            self.source = doc.get("source_dataset")

    def clip(self, name: str) -> dict[str, Any]:
        """A JSON-able clip reference: {"path": relative to the root, "segments": list or None}."""
        if self.mode == "files":
            rel = f"{name}.mp4"
            if (
                name.startswith("C/")
                and not (self.folder / rel).exists()
                and (self.folder / f"P/{rel[2:]}").exists()
            ):
                rel = f"P/{rel[2:]}"  # some public scripts store Progression under P/
            return {"path": f"{CHOICES}/{self.stem}/{rel}", "segments": None}
        assert self.doc is not None
        segments = self.doc["clips"].get(name)
        if not segments:
            raise DataError(f"tempcloze: {self.folder / CLIPS_JSON} has no clip '{name}'; rebuild the item")
        return {"path": str(self.doc["source"]), "segments": [dict(s) for s in segments]}


def list_stems(root: Path) -> list[str]:
    """Stems under root/choices that hold GT.mp4 or clips.json, sorted (as the public code sorts them)."""
    choices = root / CHOICES
    if not choices.is_dir():
        raise DataError(f"tempcloze: no '{CHOICES}/' folder in {root}; {BUILD_HINT}")
    return sorted(
        p.name
        for p in choices.iterdir()
        if p.is_dir() and ((p / "GT.mp4").exists() or (p / CLIPS_JSON).exists())
    )


def subset_file(root: Path, name: str) -> Path:
    """Where a subset file lies: the dataset root (builder) or the release's folder (`subset/`, `mixed/`);
    the first candidate when none exists (so an error names where it was looked for first)."""
    candidates = [root / sub / name if sub else root / name for sub in SUBSET_DIRS[name]]
    return next((p for p in candidates if p.exists()), candidates[0])


def _missing(root: Path, name: str) -> str:
    return " or ".join(str(root / sub / name if sub else root / name) for sub in SUBSET_DIRS[name])


def _sources(root: Path) -> dict[str, str]:
    path = root / SOURCES_FILE
    if not path.exists():
        return {}
    data = _read_json(path, "sources file")
    if not isinstance(data, dict):
        raise DataError(f"tempcloze: {path} must map each stem to its dataset source name")
    return {str(k): str(v) for k, v in data.items()}


def _fixed_orders(root: Path) -> Optional[dict]:
    path = subset_file(root, FIXED_FILE)
    if not path.exists():
        return None
    data = _read_json(path, "fixed permutations file")
    if not isinstance(data, dict):
        raise DataError(f"tempcloze: {path} must map 'stem|dim' to a list of [clip, is_gt] pairs")
    return data


def _fixed_order(fixed: dict, stem: str, dim: str) -> Optional[list[str]]:
    for key in (f"{stem}|{PUBLIC_KEY[dim]}", f"{stem}|{dim}"):
        if key in fixed:
            return [str(pair[0]).removesuffix(".mp4") for pair in fixed[key]]
    return None


def _hard_units(root: Path, dims: list[str]) -> list[tuple[str, str]]:
    path = subset_file(root, HARD_FILE)
    if not path.exists():
        raise DataError(
            f"tempcloze: {_missing(root, HARD_FILE)} not found; TempCloze-Hard needs it (the release's list of stems, or build it with "
            "`python -m harness build tempcloze-hard --results RESULTS... --out DIR/subset_ids.json`)"
        )
    data = _read_json(path, "Hard subset file")
    if not isinstance(data, list):
        raise DataError(f"tempcloze: {path} must be a JSON list of stems or of {{stem, dimension}} items")
    units: list[tuple[str, str]] = []
    for i, entry in enumerate(data):
        if isinstance(entry, str):
            units.extend((entry, d) for d in dims)
        elif (
            isinstance(entry, dict)
            and "stem" in entry
            and canonical_dimension(entry.get("dimension")) in DIMENSIONS
        ):
            if canonical_dimension(entry["dimension"]) in dims:
                units.append((str(entry["stem"]), canonical_dimension(entry["dimension"])))
        else:
            raise DataError(
                f"tempcloze: {path} entry {i} is {entry!r}; expected a stem or {{stem, dimension}}"
            )
    return units


def _base_doc(item: Item, stem: str, opts: dict) -> dict[str, Any]:
    source = item.source or opts.get("_sources", {}).get(stem)
    return {
        "stem": stem,
        "video": stem,
        **({"source": source} if source else {}),
        "mode": item.mode,
        "context": opts["context"],
        "n_samples": int(opts["samples"]),
        "attempts": int(opts["attempts"]),
        "context_frames": opts["context_frames"][0],
        "span": span_name(opts["context_frames"][0]),
    }


def _finish(doc: dict, item: Item, options: list[str], candidate_dims: dict[str, str]) -> dict:
    letters = letter_map(options)
    doc["options"] = list(options)
    doc["option_kinds"] = [kind_of(c) for c in options]
    doc["option_dims"] = [candidate_dims[c] for c in options]
    doc["answer"] = next(letter for letter, clip in letters.items() if clip == GT)
    names = {"both": [BEFORE, AFTER], "beginning": [BEFORE], "end": [AFTER]}[doc["context"]]
    doc["clips"] = {name: item.clip(name) for name in [*names, *options]}
    return doc


def dimension_docs(root: Path, opts: dict, units: list[tuple[str, str]], fixed: Optional[dict]) -> list[dict]:
    """Docs for (stem, dimension) units, one per requested rotation of the base order."""
    docs = []
    items: dict[str, Item] = {}
    for stem, dim in units:
        item = items.get(stem) or items.setdefault(stem, Item(root, stem, opts["media"]))
        candidates = [GT, *DISTRACTORS[dim]]
        base, source = None, "seeded"
        if fixed is not None:
            base = _fixed_order(fixed, stem, dim)
            if base is not None:
                source = "fixed_permutations"
                if sorted(base) != sorted(candidates):
                    raise DataError(
                        f"tempcloze: {FIXED_FILE} order of '{stem}|{dim}' is {base}; expected {candidates}"
                    )
            elif opts["order"] == "fixed":
                raise DataError(f"tempcloze: {FIXED_FILE} has no order for '{stem}|{PUBLIC_KEY[dim]}'")
        if base is None:
            base = seeded_order(int(opts["order_seed"]), stem, dim, candidates)
        dims = {c: (GT if c == GT else dim) for c in candidates}
        for rot in opts["rotations"]:
            for k in opts["context_frames"]:
                doc = _base_doc(item, stem, opts)
                doc.update(
                    id="|".join(
                        [stem, dim]
                        + ([f"r{rot}"] if len(opts["rotations"]) > 1 else [])
                        + ([span_name(k)] if len(opts["context_frames"]) > 1 else [])
                    ),
                    dimension=dim,
                    dimension_name=DIMENSION_NAMES[dim],
                    order_source=source,
                    rotation=int(rot),
                    context_frames=k,
                    span=span_name(k),
                )
                docs.append(_finish(doc, item, rotate(base, int(rot)), dims))
    return docs


def mixed_docs(root: Path, opts: dict) -> list[dict]:
    """TempCloze-Mixed: per listed video, GT plus one distractor of each dimension, seeded "seed:stem"."""
    path = subset_file(root, MIXED_FILE)
    if not path.exists():
        raise DataError(
            f"tempcloze: {_missing(root, MIXED_FILE)} not found; TempCloze-Mixed needs it ({BUILD_HINT})"
        )
    rows = _read_json(path, "Mixed subset file")
    if not isinstance(rows, list):
        raise DataError(f"tempcloze: {path} must be a JSON list of {{stem, S, A, P}} rows")
    docs = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "stem" not in row:  # counted in the results, the run goes on
            docs.append(
                DroppedRow(
                    "malformed_row", f"tempcloze: {path} row {i} is {row!r:.80}; expected {{stem, S, A, P}}"
                )
            )
            continue
        picks = {dim: row.get(dim) or row.get(PUBLIC_KEY[dim]) for dim in DIMENSIONS}
        lacking = [dim for dim, value in picks.items() if not value]
        if lacking:
            docs.append(DroppedRow("missing_field", f"tempcloze: {path} row {i} has no {lacking} distractor"))
            continue
        picks = {dim: str(value).removesuffix(".mp4") for dim, value in picks.items()}
        stem = str(row["stem"])
        item = Item(root, stem, opts["media"])
        candidates = [GT, picks["S"], picks["A"], picks["P"]]
        doc = _base_doc(item, stem, opts)
        doc.update(id=stem, dimension="mixed", dimension_name="Mixed", order_source="seeded", rotation=0)
        order = seeded_order(int(opts["order_seed"]), stem, None, candidates)
        for rot in opts["rotations"]:
            d = dict(doc, rotation=int(rot))
            if len(opts["rotations"]) > 1:
                d["id"] = f"{stem}|r{rot}"
            dims = {GT: GT, picks["S"]: "S", picks["A"]: "A", picks["P"]: "P"}
            docs.append(_finish(d, item, rotate(order, int(rot)), dims))
    return docs


def load(root: Optional[Path], split: str, options: dict) -> list[dict]:
    """The loader hook: docs of `split` under the dataset root (split 'test' is the root itself; any other
    split is a dataset root of its own at ROOT/<split>, e.g. a builder-made training set for `prior`)."""
    if root is None:
        raise DataError(f"tempcloze: no dataset folder given; pass --data DIR ({BUILD_HINT})")
    opts = _options(dict(options or {}))
    root = Path(root)
    if split != "test":
        sub = root / split
        if not (sub / CHOICES).is_dir():
            raise DataError(
                f"tempcloze: no '{split}' split: TempCloze has a test split only; to use one, build it into "
                f"{sub} (`python -m harness build tempcloze --videos VIDEOS --out {sub}`)"
            )
        root = sub
    opts["_sources"] = _sources(root)
    if opts["subset"] == "mixed":
        if len(opts["context_frames"]) > 1:
            raise DataError(
                "tempcloze loader: option 'context_frames' lists several values; the Mixed subset takes one "
                "(run one task per value, or use subset all|hard, which makes one doc per value)"
            )
        return mixed_docs(root, opts)
    dims = list(opts["dimensions"])
    if opts["subset"] == "hard":
        units = _hard_units(root, dims)
    else:
        units = [(stem, d) for stem in list_stems(root) for d in dims]
    use_fixed = opts["order"] == "fixed" or (opts["order"] == "auto" and opts["subset"] == "hard")
    fixed = _fixed_orders(root) if use_fixed else None
    if opts["order"] == "fixed" and fixed is None:
        raise DataError(f"tempcloze: option order 'fixed' needs {_missing(root, FIXED_FILE)}")
    return dimension_docs(root, opts, units, fixed)
