"""Load TempCloze items as docs: one per (video, dimension[, rotation][, visible span]) or one per Mixed video.

Reads every layout the release and its code document (tasks/tempcloze/release.py: `choices/` at the root or
under `TempCloze/`, the subset files at the root, under `TempCloze/mixed|subset/` or `mixed|subset/`), the
release's items (`choices/{stem}/before.mp4, GT.mp4, after.mp4, S/, A/, C/`) and the builder's virtual form
(`choices/{stem}/clips.json`: every clip as frame segments of one source video). An item's dataset source
(Appendix E's per-source tables) is its clips.json `source_dataset`, else the optional `sources.json` at the
root (`{stem: source}`); the Progression key may be written `P` or `C`. Each doc carries everything its
request needs (clip paths or segments, the presented candidate order, the answer letter), so requests, scores
and tables are computed from the doc alone.

One bad reference is one counted row: a stem that is null, not a folder name or escapes `choices/`
(`invalid_stem`), names no folder (`unknown_stem`), an empty item folder (`empty_item`), a missing clip
(`missing_clip`), an unreadable clips.json (`bad_item`), a Mixed pick that is no distractor of its dimension
(`unknown_clip`), a malformed subset entry (`malformed_row`, `missing_field`) or fixed order (`bad_order`,
`missing_order`) drops the docs it would have given, each with its reason; the rest of the task runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from harness.api import DataError, DroppedRow
from harness_tasks.tempcloze.items import Item, ItemProblem
from harness_tasks.tempcloze.protocol import (
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
from harness_tasks.tempcloze.release import (
    BUILD_HINT,
    CHOICES_PATHS,
    FIXED_FILE,
    HARD_FILE,
    MIXED_FILE,
    SOURCES_FILE,
    choices_dir,
    missing_file,
    read_json,
    stem_folders,
    stem_problem,
    subset_file,
)
from harness_tasks.tempcloze.span import span_name

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


class Loading:
    """One load of a dataset root: its options, where its items live, and each item read once."""

    def __init__(self, root: Path, opts: dict) -> None:
        self.root, self.opts = root, opts
        self.choices = choices_dir(root)
        self.choices_rel = self.choices.relative_to(root).as_posix()
        self._items: dict[str, Item | ItemProblem] = {}

    def item(self, stem: Any) -> Item:
        """The item of a stem named anywhere (a listing, a subset file); raises ItemProblem."""
        problem = stem_problem(stem)
        if problem:
            raise ItemProblem("invalid_stem", f"tempcloze: {problem}")
        if stem not in self._items:
            try:
                self._items[stem] = Item(self.root, self.choices_rel, stem, self.opts["media"])
            except ItemProblem as err:
                self._items[stem] = err
        got = self._items[stem]
        if isinstance(got, ItemProblem):
            raise got
        return got

    def docs_per_unit(self) -> int:
        """Docs one (stem, dimension) unit gives: one per rotation and visible span."""
        return len(self.opts["rotations"]) * len(self.opts["context_frames"])


def dropped(problem: ItemProblem, where: str, count: int) -> list[DroppedRow]:
    """The dropped rows of a unit that cannot be used: one per doc it would have given."""
    return [DroppedRow(problem.reason, f"{problem.detail} ({where})")] * count


def _sources(root: Path) -> dict[str, str]:
    path = root / SOURCES_FILE
    if not path.exists():
        return {}
    data = read_json(path, "sources file")
    if not isinstance(data, dict):
        raise DataError(f"tempcloze: {path} must map each stem to its dataset source name")
    return {str(k): str(v) for k, v in data.items()}


def _fixed_orders(root: Path) -> Optional[dict]:
    path = subset_file(root, FIXED_FILE)
    if path is None:
        return None
    data = read_json(path, "fixed permutations file")
    if not isinstance(data, dict):
        raise DataError(f"tempcloze: {path} must map 'stem|dim' to a list of [clip, is_gt] pairs")
    return data


def _fixed_order(fixed: dict, stem: str, dim: str) -> Optional[list[str]]:
    for key in (f"{stem}|{PUBLIC_KEY[dim]}", f"{stem}|{dim}"):
        if key in fixed:
            pairs = fixed[key]
            if not isinstance(pairs, list) or not all(isinstance(p, list) and p for p in pairs):
                raise ItemProblem("bad_order", f"tempcloze: {FIXED_FILE} order of '{key}' is {pairs!r:.80}")
            return [str(pair[0]).removesuffix(".mp4") for pair in pairs]
    return None


Unit = tuple[Any, str, Optional[ItemProblem]]  # (stem as written, dimension, why it cannot be used)


def _hard_units(root: Path, dims: list[str]) -> list[Unit]:
    """The (stem, dimension) units subset_ids.json lists: a stem stands for every dimension, an item
    {stem, dimension} for one; an entry of neither form is a malformed unit (counted, never fatal)."""
    path = subset_file(root, HARD_FILE)
    if path is None:
        raise missing_file(root, HARD_FILE, "TempCloze-Hard needs it")
    data = read_json(path, "Hard subset file")
    if not isinstance(data, list):
        raise DataError(f"tempcloze: {path} must be a JSON list of stems or of {{stem, dimension}} items")
    units: list[Unit] = []
    for i, entry in enumerate(data):
        if isinstance(entry, dict):
            dim = canonical_dimension(entry.get("dimension"))
            if dim not in DIMENSIONS or "stem" not in entry:
                what = f"tempcloze: {path} entry {i} is {entry!r:.80}; expected a stem or {{stem, dimension}}"
                units.append((None, str(dim), ItemProblem("malformed_row", what)))
            elif dim in dims:
                units.append((entry["stem"], str(dim), None))
        elif isinstance(entry, str) or entry is None:
            units.extend((entry, d, None) for d in dims)
        else:
            what = f"tempcloze: {path} entry {i} is {entry!r:.80}; expected a stem or {{stem, dimension}}"
            units.extend((None, d, ItemProblem("malformed_row", what)) for d in dims)
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


def _unit_docs(ctx: Loading, stem: str, dim: str, fixed: Optional[dict]) -> list[dict]:
    """The docs of one (stem, dimension) unit, one per rotation and visible span; raises ItemProblem."""
    opts = ctx.opts
    item = ctx.item(stem)
    candidates = [GT, *DISTRACTORS[dim]]
    base, source = None, "seeded"
    if fixed is not None:
        base = _fixed_order(fixed, stem, dim)
        if base is not None:
            source = "fixed_permutations"
            if sorted(base) != sorted(candidates):
                raise ItemProblem(
                    "bad_order",
                    f"tempcloze: {FIXED_FILE} order of '{stem}|{dim}' is {base}; expected {candidates}",
                )
        elif opts["order"] == "fixed":
            raise ItemProblem(
                "missing_order", f"tempcloze: {FIXED_FILE} has no order for '{stem}|{PUBLIC_KEY[dim]}'"
            )
    if base is None:
        base = seeded_order(int(opts["order_seed"]), stem, dim, candidates)
    dims = {c: (GT if c == GT else dim) for c in candidates}
    docs = []
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


def dimension_docs(ctx: Loading, units: list[Unit], fixed: Optional[dict]) -> list:
    """Docs for (stem, dimension) units; a unit that cannot be used gives one dropped row per doc."""
    out: list = []
    for stem, dim, problem in units:
        try:
            if problem is not None:
                raise problem
            out.extend(_unit_docs(ctx, stem, dim, fixed))
        except ItemProblem as err:
            out.extend(dropped(err, f"stem {stem!r}, dimension {dim}", ctx.docs_per_unit()))
    return out


def _mixed_row(ctx: Loading, row: Any, where: str) -> list[dict]:
    """The docs of one mixed_ids.json row (one per rotation); raises ItemProblem."""
    opts = ctx.opts
    if not isinstance(row, dict) or "stem" not in row:  # counted in the results, the run goes on
        raise ItemProblem("malformed_row", f"tempcloze: {where} is {row!r:.80}; expected {{stem, S, A, P}}")
    picks = {dim: row.get(dim) or row.get(PUBLIC_KEY[dim]) for dim in DIMENSIONS}
    lacking = [dim for dim, value in picks.items() if not value]
    if lacking:
        raise ItemProblem("missing_field", f"tempcloze: {where} has no {lacking} distractor")
    picks = {dim: str(value).removesuffix(".mp4") for dim, value in picks.items()}
    picks = {dim: ("C/" + v[2:] if v.startswith("P/") else v) for dim, v in picks.items()}
    wrong = {dim: v for dim, v in picks.items() if v not in DISTRACTORS[dim]}
    if wrong:
        raise ItemProblem(
            "unknown_clip", f"tempcloze: {where} names {wrong}; expected one of {DISTRACTORS} per dimension"
        )
    stem = row["stem"]
    item = ctx.item(stem)
    candidates = [GT, picks["S"], picks["A"], picks["P"]]
    doc = _base_doc(item, stem, opts)
    doc.update(id=stem, dimension="mixed", dimension_name="Mixed", order_source="seeded", rotation=0)
    order = seeded_order(int(opts["order_seed"]), stem, None, candidates)
    docs = []
    for rot in opts["rotations"]:
        d = dict(doc, rotation=int(rot))
        if len(opts["rotations"]) > 1:
            d["id"] = f"{stem}|r{rot}"
        dims = {GT: GT, picks["S"]: "S", picks["A"]: "A", picks["P"]: "P"}
        docs.append(_finish(d, item, rotate(order, int(rot)), dims))
    return docs


def mixed_docs(ctx: Loading) -> list:
    """TempCloze-Mixed: per listed video, GT plus one distractor of each dimension, seeded "seed:stem"."""
    path = subset_file(ctx.root, MIXED_FILE)
    if path is None:
        raise missing_file(ctx.root, MIXED_FILE, "TempCloze-Mixed needs it")
    rows = read_json(path, "Mixed subset file")
    if not isinstance(rows, list):
        raise DataError(f"tempcloze: {path} must be a JSON list of {{stem, S, A, P}} rows")
    out: list = []
    for i, row in enumerate(rows):
        try:
            out.extend(_mixed_row(ctx, row, f"{path} row {i}"))
        except ItemProblem as err:
            out.extend(dropped(err, f"{MIXED_FILE} row {i}", len(ctx.opts["rotations"])))
    return out


def load(root: Optional[Path], split: str, options: dict) -> list:
    """The loader hook: docs of `split` under the dataset root (split 'test' is the root itself; any other
    split is a dataset root of its own at ROOT/<split>, e.g. a builder-made training set for `prior`).
    Rows that cannot be used are DroppedRow entries (counted in the results with their reason)."""
    if root is None:
        raise DataError(f"tempcloze: no dataset folder given; pass --data DIR ({BUILD_HINT})")
    opts = _options(dict(options or {}))
    root = Path(root)
    if split != "test":
        sub = root / split
        if not any((sub / rel).is_dir() for rel in CHOICES_PATHS):
            raise DataError(
                f"tempcloze: no '{split}' split: TempCloze has a test split only; to use one, build it into "
                f"{sub} (`python -m harness build tempcloze --videos VIDEOS --out {sub}`)"
            )
        root = sub
    ctx = Loading(root, opts)
    opts["_sources"] = _sources(root)
    if opts["subset"] == "mixed":
        if len(opts["context_frames"]) > 1:
            raise DataError(
                "tempcloze loader: option 'context_frames' lists several values; the Mixed subset takes one "
                "(run one task per value, or use subset all|hard, which makes one doc per value)"
            )
        return mixed_docs(ctx)
    dims = list(opts["dimensions"])
    if opts["subset"] == "hard":
        units = _hard_units(root, dims)
    else:
        units = [(stem, d, None) for stem in stem_folders(ctx.choices) for d in dims]
    use_fixed = opts["order"] == "fixed" or (opts["order"] == "auto" and opts["subset"] == "hard")
    fixed = _fixed_orders(root) if use_fixed else None
    if opts["order"] == "fixed" and fixed is None:
        raise missing_file(root, FIXED_FILE, "option order 'fixed' needs it")
    return dimension_docs(ctx, units, fixed)
