"""Import the public TempCloze repository's per-item outputs (`eval_results/**/<model>.json`) as samples.

Formats read (CedricPei/Temporal-Cloze, folder TempCloze/):
- `eval.py` / `eval_vllm.py`: `{stem: {dim: entry}}`, dim S, A and C (API runs) or P (vLLM runs) ->
  task `tempcloze_all`, doc ids `stem|S|A|P` as the harness's own;
- `mixed/eval_mixed.py`: `{stem: entry}` with `option_dim` -> task `tempcloze_mixed`, doc id `stem`;
- `subset/eval_frames.py`: `{"stem|dim|N": entry}` with `num_frames` -> `tempcloze_hard_frames<N>`;
- `subset/eval_permutation.py`: `{"stem|dim|permX": entry}` -> `tempcloze_hard_reorder`, order X = A..D
  read as rotation r0..r3;
- `subset/eval_be.py`: `{"stem|dim|B|E|BE": entry}` -> `tempcloze_hard_beginning`, `_end`, `tempcloze_hard`;
- `subset/eval_boundary_k.py`: `{"stem|dim|K1|K4|K8|K12|Full": entry}` -> `tempcloze_hard_span`;
- `subset/eval_passk.py`: `{"stem|dim|rI": entry}`, one per repeat -> `tempcloze_hard_passk`, the repeats
  of an item as its samples (the script keeps successful repeats only, so an item may have fewer than 5).
An entry holds `answer` (a letter, or null when the public evaluation got no usable reply after its
retries), `expected` (absent in the subset files: the letter whose `option_map` value is GT) and
`option_map` (letter -> clip kind); vLLM and API runs add the raw reply. The public analysis counts an
entry as valid when its answer is one of A-D: a valid answer is logged as the JSON reply
`{"answer": X, "reason": ...}` (the public parser's normal form), so the harness reads exactly that
letter; every other entry (answer null or outside A-D, `option_map: null` as `eval_vllm.py` writes after
failed retries, an entry that is not an object) is invalid exactly as `eval_results/analyze.py` counts it
(`skipped`): in the invalid total and the strict accuracy, out of the headline, never dropped; its candidates
come from its option_map when readable (else none), its raw reply and error are kept under `imported`. So a
file of errors only imports as all invalid. Only an answered entry that cannot be placed (no A-D option_map,
GT not once, an unknown kind) is dropped, with the reason. Results then come from the ordinary `--rescore`
path (harness/cli/import_cmd.py). A file that is not readable JSON is a DataError; the command reports it
and imports the other files.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

from harness.api import DataError, ImportedRun, Importer, file_sha256, read_json_file
from harness_tasks.tempcloze.parsing import parse_letter
from harness_tasks.tempcloze.protocol import (
    DIMENSION_NAMES,
    DIMENSIONS,
    DISTRACTORS,
    GT,
    LETTERS,
    canonical_dimension,
    kind_of,
)
from harness_tasks.tempcloze.span import PUBLIC_CONDITIONS, span_name

REPOSITORY = "CedricPei/Temporal-Cloze"
# The public file names' prefixes of the subset analyses (the rest is the model tag).
PREFIXES = ("frames_", "permutation_", "passk_", "boundary_k_", "be_")
CLIP_OF_KIND = {kind_of(c): c for names in DISTRACTORS.values() for c in names} | {GT: GT}
PERMS = {f"perm{letter}": i for i, letter in enumerate(LETTERS)}
CONTEXT_MODES = {  # eval_be.py mode -> (task, doc context)
    "B": ("tempcloze_hard_beginning", "beginning"),
    "E": ("tempcloze_hard_end", "end"),
    "BE": ("tempcloze_hard", "both"),
}
SPANS = {span_name(k): k for k in PUBLIC_CONDITIONS}
PASSK_SAMPLES = 5  # eval_passk.py NUM_REPEATS
DIMENSION_KEYS = ("S", "A", "C", "P")


def model_name(path: Path) -> str:
    """The model tag of a public results file: its stem without a subset-analysis prefix."""
    stem = path.stem
    for prefix in PREFIXES:
        if stem.startswith(prefix):
            return stem[len(prefix) :]
    return stem


def _options(entry: dict, where: str) -> list[str]:
    omap = entry.get("option_map")
    if not isinstance(omap, dict) or sorted(omap) != list(LETTERS):
        raise ValueError(f"{where}: option_map must map A-D to clip kinds, got {omap!r}")
    out = []
    for letter in LETTERS:
        kind = str(omap[letter])
        if kind not in CLIP_OF_KIND:
            raise ValueError(f"{where}: option_map {letter} is {kind!r}, not a TempCloze clip kind")
        out.append(CLIP_OF_KIND[kind])
    if out.count(GT) != 1:
        raise ValueError(f"{where}: option_map must hold GT exactly once, got {omap!r}")
    return out


def _options_if_readable(entry: Any) -> list[str]:
    """An answer-less entry's candidates when its option_map can be read, else [] (the public run may
    have failed before it drew them: `eval_vllm.py` writes `option_map: null` then)."""
    try:
        return _options(entry, "") if isinstance(entry, dict) else []
    except (ValueError, TypeError):
        return []


def _letter(value: Any) -> Optional[str]:
    s = value.strip().upper() if isinstance(value, str) else None
    return s if s in LETTERS else None


def _doc(
    doc_id: str, stem: str, dimension: str, options: list[str], option_dims: list[str], answer: Optional[str]
) -> dict:
    return {
        "doc_id": doc_id,
        "id": doc_id,
        "stem": stem,
        "video": stem,
        "mode": "imported",
        "context": "both",
        "n_samples": 1,
        "context_frames": None,
        "span": span_name(None),
        "dimension": dimension,
        "dimension_name": DIMENSION_NAMES.get(dimension, "Mixed"),
        "order_source": "official",
        "rotation": 0,
        "options": options,
        "option_kinds": [kind_of(c) for c in options],
        "option_dims": option_dims,
        "answer": LETTERS[options.index(GT)] if options else answer,
        "clips": {},
    }


def answered(entry: Any) -> bool:
    """Whether the public analysis counts an entry as valid (`analyze.py` is_valid: a dict whose answer is
    one of A-D after stripping and upper-casing); every other entry is invalid, never dropped."""
    return isinstance(entry, dict) and _letter(entry.get("answer")) is not None


def _record(task: str, doc: dict, entry: Any, key: str, where: str) -> dict:
    entry = entry if isinstance(entry, dict) else {"answer": None, "error": f"entry is {entry!r:.80}"}
    expected = _letter(entry.get("expected")) or doc["answer"]
    answer = _letter(entry.get("answer"))
    if answer is not None and expected != doc["answer"]:
        raise ValueError(f"{where}: expected {expected} but option_map puts GT under {doc['answer']}")
    original = entry.get("raw_original", entry.get("raw"))
    if answer is not None:
        reason = entry.get("reason")
        raw = json.dumps({"answer": answer, "reason": reason if isinstance(reason, str) else ""})
    else:
        # no usable answer in the public run: invalid here too (a reply the harness's lenient parser would
        # still read is not logged as the raw reply, so the import keeps the public count)
        text = original if isinstance(original, str) else ""
        raw = text if doc["options"] and parse_letter(text)[0] is None else ""
    return {
        "doc_id": doc["doc_id"],
        "task": task,
        "doc": doc,
        "target": doc["answer"] or expected,
        "prompt": None,
        "frame_spec": None,
        "media": [],
        "raw": raw,
        "structured": None,
        "parsed": None,
        "scores": {},
        "error": None,
        "imported": {
            "key": key,
            "answer": entry.get("answer"),
            "raw_original": original,
            "error": entry.get("error"),
        },
    }


def _dimension(key: Any, where: str) -> str:
    dim = canonical_dimension(key)
    if dim not in DIMENSIONS:
        raise ValueError(f"{where}: dimension {key!r} is not S, A, C or P")
    return str(dim)


def _dimension_item(task: str, stem: str, dim_key: str, entry: Any, key: str, id_suffix: str = "") -> dict:
    where = f"entry '{key}'"
    dim = _dimension(dim_key, where)
    options = _options(entry, where) if answered(entry) else _options_if_readable(entry)
    dims = [GT if c == GT else dim for c in options]
    expected = _letter(entry.get("expected")) if isinstance(entry, dict) else None
    doc = _doc(f"{stem}|{dim}{id_suffix}", stem, dim, options, dims, expected)
    return _record(task, doc, entry, key, where)


def _mixed_dims(entry: dict, options: list[str], where: str) -> list[str]:
    odims = entry.get("option_dim") or {}
    dims = [
        GT if c == GT else str(canonical_dimension(odims.get(letter, "?")))
        for letter, c in zip(LETTERS, options, strict=True)
    ]
    if sorted(d for d in dims if d != GT) != sorted(DIMENSIONS):
        raise ValueError(f"{where}: option_dim must give one S, one A and one C/P distractor, got {odims!r}")
    return dims


def _mixed_item(stem: str, entry: dict) -> dict:
    where = f"entry '{stem}'"
    if answered(entry):
        options = _options(entry, where)
        dims = _mixed_dims(entry, options, where)
    else:  # invalid whatever else it holds, as every public analysis counts it
        options = _options_if_readable(entry)
        try:
            dims = _mixed_dims(entry, options, where) if options else []
        except ValueError:
            options, dims = [], []
    doc = _doc(stem, stem, "mixed", options, dims, _letter(entry.get("expected")))
    return _record("tempcloze_mixed", doc, entry, stem, where)


def subset_kind(key: str, entry: Any) -> str:
    """Which subset analysis wrote an entry, from its key's last part: permutation | context | span |
    passk | frames."""
    last = key.rsplit("|", 1)[-1] if key.count("|") >= 2 else ""
    if last in PERMS:
        return "permutation"
    if last in CONTEXT_MODES:
        return "context"
    if last in SPANS:
        return "span"
    if re.fullmatch(r"r\d+", last):
        return "passk"
    if last.isdigit() and isinstance(entry, dict) and "num_frames" in entry:
        return "frames"
    raise ValueError(
        f"entry '{key}': expected 'stem|dim|X' with X a frame count, permA..permD, B/E/BE, K1..K12/Full or rI"
    )


def _subset_item(key: str, entry: dict) -> dict:
    """One entry of a subset analysis file (all but pass@k, whose repeats make one item together)."""
    kind = subset_kind(key, entry)
    stem, dim_key, last = key.rsplit("|", 2)
    if kind == "frames":
        return _dimension_item(f"tempcloze_hard_frames{int(entry['num_frames'])}", stem, dim_key, entry, key)
    if kind == "permutation":
        rec = _dimension_item("tempcloze_hard_reorder", stem, dim_key, entry, key, f"|r{PERMS[last]}")
        rec["doc"]["rotation"] = PERMS[last]
        return rec
    if kind == "context":
        task, context = CONTEXT_MODES[last]
        rec = _dimension_item(task, stem, dim_key, entry, key)
        rec["doc"]["context"] = context
        return rec
    if kind == "span":
        rec = _dimension_item("tempcloze_hard_span", stem, dim_key, entry, key, f"|{last}")
        rec["doc"].update(context_frames=SPANS[last], span=last)
        return rec
    raise ValueError(f"entry '{key}': a pass@k repeat outside a pass@k file")


def _passk_item(item: str, entries: list[tuple[str, dict]]) -> dict:
    """The repeats of one (stem, dim) as one pass@k record: every repeat a sample, in repeat order."""
    stem, dim_key = item.rsplit("|", 1)
    entries = sorted(entries, key=lambda kv: int(kv[0].rsplit("|r", 1)[1]))
    recs = [_dimension_item("tempcloze_hard_passk", stem, dim_key, e, k) for k, e in entries]
    if len({tuple(r["doc"]["options"]) for r in recs if r["doc"]["options"]}) > 1:
        raise ValueError(f"entries '{item}|r*': the repeats show different candidate orders")
    rec = next((r for r in recs if r["doc"]["options"]), recs[0])
    rec["doc"]["n_samples"] = PASSK_SAMPLES
    rec["structured"] = {"samples": [r["raw"] for r in recs]}
    rec["imported"] = {"key": f"{item}|r*", "repeats": [r["imported"] for r in recs]}
    return rec


def detect_format(data: dict) -> str:
    """eval | mixed | frames | permutation | context | span | passk, from the first entry's shape (stems
    may hold "|" themselves, e.g. "26k-11-2-3|P1|2374|2783", so the value decides before the key)."""
    if not data:
        return "eval"
    key, value = next(iter(data.items()))
    if not isinstance(value, dict) or "option_map" not in value:
        return "eval"  # {stem: {dim: entry}}
    parts = key.rsplit("|", 2)
    if len(parts) == 3 and parts[1] in DIMENSION_KEYS:
        try:
            return subset_kind(key, value)
        except ValueError:
            pass
    return "mixed"


def read_official(path: Path, commit: Optional[str] = None) -> ImportedRun:
    """One public results file as an ImportedRun (entries that cannot be read are listed as dropped)."""
    data = read_json_file(path, "tempcloze-official results file (readable JSON)")  # regular, bounded
    if not isinstance(data, dict):
        raise DataError(f"tempcloze-official: {path} must be a JSON object keyed by stem")
    fmt = detect_format(data)
    tasks: dict[str, list[dict]] = {}
    dropped: list[dict] = []
    passk: dict[str, list[tuple[str, dict]]] = defaultdict(list)

    def add(key: str, make, *args) -> None:
        try:
            rec = make(*args)
        except (ValueError, TypeError, AttributeError) as err:
            dropped.append({"key": key, "reason": "malformed_entry", "detail": str(err)})
            return
        tasks.setdefault(rec["task"], []).append(rec)

    for key, value in data.items():
        if not isinstance(value, dict):
            dropped.append({"key": key, "reason": "malformed_entry", "detail": "not an object"})
        elif fmt == "eval":
            for dim_key in sorted(value, key=lambda d: "SACP".find(d)):
                item_key = f"{key}|{dim_key}"
                add(item_key, _dimension_item, "tempcloze_all", key, dim_key, value[dim_key], item_key)
        elif fmt == "mixed":
            add(key, _mixed_item, key, value)
        elif fmt == "passk" and re.search(r"\|r\d+$", key):
            passk[key.rsplit("|", 1)[0]].append((key, value))
        else:
            add(key, _subset_item, key, value)
    for item, entries in passk.items():
        add(f"{item}|r*", _passk_item, item, entries)
    provenance = {
        "importer": "tempcloze-official",
        "repository": REPOSITORY,
        "commit": commit,
        "file": str(path),
        "sha256": file_sha256(Path(path)),
        "format": fmt,
        "entries": sum(len(r) for r in tasks.values()),
        "dropped": dropped,
    }
    return ImportedRun(model=model_name(Path(path)), tasks=tasks, provenance=provenance)


class TempClozeOfficialImporter(Importer):
    """`python -m harness import tempcloze-official FILE... --out DIR [--commit SHA]`."""

    name = "tempcloze-official"
    description = "the public TempCloze repository's per-item outputs (eval_results/**/<model>.json)"

    def read(self, path: Path, commit: Optional[str] = None) -> ImportedRun:
        """The ImportedRun of one public results file."""
        return read_official(path, commit)
