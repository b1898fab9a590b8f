"""Reads CycliST into task rows, in the hub release's layout as published and the layouts earlier builds
wrote (tasks/cyclist/release.py finds the files under --data ROOT; docs/benchmarks/cyclist.md, "Data").

Questions JSON files are `{"info": ..., "questions": [...]}` (CLEVR style); scene files hold one scene
each, or `{"scenes": [...]}`. Question rows keep every release field and gain `family`, `quantifier`,
`category`, `tier`, `answer_kind`, `domain` and the canonical `target`; caption rows are one per scene,
with its objects. A row that cannot be used is a DroppedRow with its reason (counted in the results):
another split or tier named inside a kind-first folder, an unknown family or template, a target its family
cannot have, a NaN or infinity anywhere, a duplicate question; never a crash, never scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from harness.api import DataError, DroppedRow
from harness_tasks.cyclist.families import (
    FAMILIES,
    BadTarget,
    category_of,
    family_of,
    family_target,
    quantifier_of,
    template_problem,
)
from harness_tasks.cyclist.release import KIND_FIRST, Source, fix_hint, locate
from harness_tasks.cyclist.rows import Duplicates, UnreadableFile, non_finite_path, read_json
from harness_tasks.cyclist.vocab import COLORS, CYCLES, MATERIAL_ALIASES, MATERIALS, SHAPES, SIZES, TIERS

SPLITS = ("train", "val", "test")
Row = Union[dict, DroppedRow]

_SPLIT_WORDS = {"train": "train", "training": "train", "val": "val", "validation": "val", "test": "test"}


def split_name(value: Any) -> Optional[str]:
    """train | val | test from a `split` value as the release writes it: plain ("test"), or with the tier
    and variant around it ("unicycle_test", "nightrider1_test_orbit", "bicycle-val"); None if no word of
    it names a split."""
    words = [w for w in str(value).lower().replace("-", "_").replace("/", "_").split("_") if w]
    found = {_SPLIT_WORDS[w] for w in words if w in _SPLIT_WORDS}
    return found.pop() if len(found) == 1 else None


def _select(record: dict, name: str, source: Source, split: str, tier: Optional[str], where: str):
    """Whether a record belongs to this split and tier: True, False (another split or tier: not this
    task's row), or a DroppedRow (a split or tier no known value names; kind first: a split or tier that
    contradicts the folder it lies in)."""
    if record.get("split"):
        found = split_name(record["split"])
        if found is None:
            return DroppedRow(
                "bad_split", f"{where}: split {record['split']!r}; expected one of {', '.join(SPLITS)}"
            )
    else:
        found = source.split or split_name(Path(name).stem)
    if record.get("tier") and str(record["tier"]) not in TIERS:
        return DroppedRow("bad_tier", f"{where}: tier {record['tier']!r}; expected one of {', '.join(TIERS)}")
    other_tier = bool(tier and record.get("tier") and str(record["tier"]) != tier)
    if source.layout == KIND_FIRST and (found != source.split or other_tier):
        what = f"split {record.get('split')!r}" if found != source.split else f"tier {record['tier']!r}"
        reason = "split_mismatch" if found != source.split else "tier_mismatch"
        return DroppedRow(reason, f"{where}: {what} contradicts its folder {source.folder}")
    return found in (split, None) and not other_tier


def _question_row(q: Any, i: int, path: Path, source: Source, split: str, tier: Optional[str], numbers: bool):
    """One question as a task row, a DroppedRow with the reason, or None (another split or tier);
    `numbers`: its file may hold a non-finite number, so the row is searched for one."""
    where = f"CycliST: {path} question {i}"
    if not isinstance(q, dict):
        return DroppedRow("not_a_mapping", f"{where} is {type(q).__name__}, not an object")
    selected = _select(q, path.name, source, split, tier, where)
    if selected is not True:
        return selected or None
    bad_number = non_finite_path(q) if numbers else None
    if bad_number is not None:
        return DroppedRow("non_finite", f"{where}: {bad_number} is not a finite number")
    family = family_of(q)
    if family is None:
        return DroppedRow(
            "unknown_family",
            f"{where}: cannot tell its family from 'family'/'template_filename' "
            f"({q.get('family') or q.get('template_filename')!r}); known: {', '.join(FAMILIES)}",
        )
    problem = template_problem(q)
    if problem is not None:
        return DroppedRow("unknown_template", f"{where}: {problem}")
    missing = [f for f in ("question", "answer", "video_filename") if f not in q]
    if missing:
        return DroppedRow("missing_field", f"{where}: missing {', '.join(repr(f) for f in missing)}")
    if not isinstance(q["answer"], (str, int, float, bool)) or not isinstance(q["question"], str):
        return DroppedRow("bad_value", f"{where}: 'question' must be text, 'answer' a value")
    try:
        target, kind, domain = family_target(family, q["answer"])
    except BadTarget as exc:
        return DroppedRow("bad_target", f"{where}: answer {q['answer']!r}: {exc}")
    row = dict(q)
    row.update(
        id=f"{path.stem}/{q.get('question_index', i)}",
        video=source.video_path(str(q["video_filename"])),
        family=family,
        quantifier=quantifier_of(family),
        category=category_of(family),
        tier=str(q.get("tier") or tier or ""),
        answer_kind=kind,
        domain=domain,
        target=target,
    )
    return row


def _questions_in(path: Path) -> tuple[list, bool, Optional[DroppedRow]]:
    """(questions, whether they may hold a non-finite number, None), or ([], False, the file's DroppedRow)."""
    try:
        data, numbers = read_json(path)
    except UnreadableFile as exc:
        return [], False, DroppedRow("invalid_json", f"CycliST: {exc}; its questions are not read")
    questions = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(questions, list):
        return (
            [],
            False,
            DroppedRow(
                "bad_file", f"CycliST: {path}: expected {{'questions': [...]}} or a list of questions"
            ),
        )
    return questions, numbers, None


def question_rows(root: Path, split: str, tier: Optional[str]) -> list[Row]:
    """Every question of the split and tier under ROOT, as task rows (release fields kept)."""
    source = locate(root, tier, split, "questions")
    files = source.files()
    if not files:
        raise DataError(
            f"CycliST: no questions JSON in {source.folder}; {fix_hint(tier, split, 'questions', Path(root))}"
        )
    rows: list[Row] = []
    duplicates = Duplicates()
    for path in files:
        questions, numbers, unreadable = _questions_in(path)
        if unreadable is not None:
            rows.append(unreadable)
        for i, q in enumerate(questions):
            row = _question_row(q, i, path, source, split, tier, numbers)
            if isinstance(row, dict):
                row = duplicates.check(row, path, i) or row
            if row is not None:
                rows.append(row)
    duplicates.warn()
    return rows


def _attr(raw: dict, key: str, choices: tuple[str, ...], where: str) -> str:
    value = str(raw.get(key, "")).lower()
    value = MATERIAL_ALIASES.get(value, value) if key == "material" else value
    if value not in choices:
        raise DataError(f"CycliST: {where}: unknown {key} {raw.get(key)!r} (expected one of {choices})")
    return value


def scene_objects(scene: dict, where: str) -> list[dict]:
    """Ground-truth objects of a scene for captioning: attributes at the first frame and cycle flags."""
    out = []
    for k, raw in enumerate(scene.get("objects") or []):
        w = f"{where} objects[{k}]"
        raw = dict(raw, mesh=raw.get("mesh", raw.get("shape")))
        obj = {
            "mesh": _attr(raw, "mesh", SHAPES, w),
            "material": _attr(raw, "material", MATERIALS, w),
            "size": _attr(raw, "size", SIZES, w),
            "color": _attr(raw, "color", COLORS, w),
        }
        cycles = raw.get("cycles") or {}
        for c in CYCLES:
            obj[c] = c in cycles or raw.get(c) is True
        out.append(obj)
    if not out:
        raise DataError(f"CycliST: {where}: a scene needs a non-empty 'objects' list")
    return out


def _scene_records(source: Source) -> list[tuple[str, Any, bool]]:
    """(name, scene or DroppedRow, whether it may hold a non-finite number) per scene: a file holds one
    scene, or `{"scenes": [...]}` (a tier folder's `*scenes*.json` may also be a plain list); an
    unreadable file is one DroppedRow."""
    out: list[tuple[str, Any, bool]] = []
    for path in source.files():
        try:
            data, numbers = read_json(path)
        except UnreadableFile as exc:
            out.append((path.name, DroppedRow("invalid_json", f"CycliST: scene {exc}"), False))
            continue
        merged = path.parent == source.folder and source.layout != KIND_FIRST
        if isinstance(data, dict) and isinstance(data.get("scenes"), list) and "objects" not in data:
            merged, data = True, data["scenes"]
        if merged and isinstance(data, list):
            out.extend((f"{path.name}[{i}]", s, numbers) for i, s in enumerate(data))
        else:
            out.append((path.name, data, numbers))
    return out


def _caption_row(name: str, scene: Any, numbers: bool, source: Source, split: str, tier: Optional[str]):
    """One scene as a caption row, a DroppedRow with the reason, or None (another split or tier);
    `numbers`: its file may hold a non-finite number, so the scene is searched for one."""
    where = f"scene {name} in {source.folder}"
    if isinstance(scene, DroppedRow):
        return scene
    if not isinstance(scene, dict):
        return DroppedRow("not_an_object", f"{where}: a scene must be a JSON object")
    selected = _select(scene, name, source, split, tier, where)
    if selected is not True:
        return selected or None
    bad_number = non_finite_path(scene) if numbers else None
    if bad_number is not None:
        return DroppedRow("non_finite", f"{where}: {bad_number} is not a finite number")
    video = scene.get("video_file") or scene.get("video_filename")
    if not video:
        return DroppedRow("missing_field", f"{where}: missing 'video_file'")
    try:
        objects = scene_objects(scene, f"scene {name}")
    except (DataError, TypeError, AttributeError) as exc:  # e.g. objects not a list
        return DroppedRow("bad_scene", str(exc))
    return {
        "id": Path(str(video)).stem,
        "video": source.video_path(str(video)),
        "scene": name,
        "tier": str(scene.get("tier") or tier or ""),
        "split": split,
        "num_objects": len(objects),
        "num_cycles": sum(o[c] for o in objects for c in CYCLES),
        "objects": objects,
    }


def caption_rows(root: Path, split: str, tier: Optional[str]) -> list[Row]:
    """One row per scene of the split: its video and its objects (the captioning ground truth). The
    scene's split is its folder's (kind first), else its `split` field as the release writes it
    (`unicycle_test`, ...), else its file name; a scene that cannot be used is a DroppedRow with the
    reason, never silently lost."""
    source = locate(root, tier, split, "scenes")
    scenes = _scene_records(source)
    if not scenes:
        raise DataError(
            f"CycliST: no scene JSON in {source.folder}; {fix_hint(tier, split, 'scenes', Path(root))}"
        )
    rows = [_caption_row(*scene, source, split, tier) for scene in scenes]
    return [r for r in rows if r is not None]


def load(root: Optional[Path], split: str, options: dict) -> list[Row]:
    """Loader hook: options `kind` (vqa | caption), `tier` (L1..L5), `family` (one of the twelve or null)."""
    tier = options.get("tier")
    if tier is not None and tier not in TIERS:
        raise DataError(f"CycliST: dataset.options.tier {tier!r} is not one of {', '.join(TIERS)}")
    kind = "scenes" if options.get("kind", "vqa") == "caption" else "questions"
    if root is None:
        raise DataError(
            f"CycliST: no dataset folder; pass --data DIR: {fix_hint(tier, split, kind, Path('DATA'))}"
        )
    if kind == "scenes":
        return caption_rows(Path(root), split, tier)
    family = options.get("family")
    if family is not None and family not in FAMILIES:
        raise DataError(f"CycliST: dataset.options.family {family!r} is not one of {', '.join(FAMILIES)}")
    rows = question_rows(Path(root), split, tier)
    return [r for r in rows if family is None or isinstance(r, DroppedRow) or r["family"] == family]
