"""Reads CycliST in the public release's layout (and what the project's builders write) into task rows.

A tier folder holds `videos/<video_filename>`, `scenes/*.json` (one scene each; or a `*scenes*.json`
file `{"scenes": [...]}`) and questions JSON files `{"info": ..., "questions": [...]}` under
`questions/` or as `*questions*.json` next to them, exactly as the release's own dataloader expects.
Question rows keep every release field and gain `family`, `quantifier`, `category`, `tier`,
`answer_kind`, `domain` and the canonical `target`; caption rows are one per scene, with its objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from harness.api import DataError, DroppedRow
from tasks.cyclist.families import (
    FAMILIES,
    TIERS,
    answer_kind,
    canonical_target,
    category_of,
    family_of,
    quantifier_of,
)
from tasks.cyclist.vocab import COLORS, CYCLES, MATERIALS, SHAPES, SIZES, value_domain

BUILD_HINT = (
    "build it with `python -m harness build cyclist --tier L1 --split test --out DIR/unicycle` and write its "
    "questions with the CycliST question generator (docs/builders/cyclist_questions.md), or point --data at "
    "the release (one folder per tier: unicycle, unicycle_cluttered, bicycle, tricycle, nightrider)"
)
SPLITS = ("train", "val", "test")
_MATERIAL_ALIASES = {"mymetal": "metal", "metallic": "metal", "metal": "metal", "rubber": "rubber"}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"CycliST: {path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc


def _question_files(root: Path) -> list[Path]:
    files = sorted((root / "questions").glob("*.json")) if (root / "questions").is_dir() else []
    return files + sorted(p for p in root.glob("*.json") if "question" in p.name.lower())


def _scene_records(root: Path) -> list[tuple[str, dict]]:
    out = []
    if (root / "scenes").is_dir():
        for p in sorted((root / "scenes").glob("*.json")):
            out.append((p.name, _read_json(p)))
    for p in sorted(root.glob("*.json")):
        if "scene" in p.name.lower():
            data = _read_json(p)
            for i, s in enumerate(data.get("scenes", []) if isinstance(data, dict) else data):
                out.append((f"{p.name}[{i}]", s))
    return out


def _video_path(root: Path, filename: str) -> str:
    if "/" not in filename and (root / "videos").is_dir():
        return f"videos/{filename}"
    return filename


_SPLIT_WORDS = {"train": "train", "training": "train", "val": "val", "validation": "val", "test": "test"}


def split_name(value: Any) -> Optional[str]:
    """train | val | test from a `split` value as the release writes it: plain ("test"), or with the tier
    and variant around it ("unicycle_test", "nightrider1_test_orbit", "bicycle-val"); None if no word of
    it names a split."""
    words = [w for w in str(value).lower().replace("-", "_").replace("/", "_").split("_") if w]
    found = {_SPLIT_WORDS[w] for w in words if w in _SPLIT_WORDS}
    return found.pop() if len(found) == 1 else None


def _split_of(record: dict, source: Path) -> Optional[str]:
    if record.get("split"):
        return split_name(record["split"]) or str(record["split"]).lower()
    return split_name(source.stem)


def _unusable(record: dict, source: Path, where: str) -> Optional[DroppedRow]:
    """A DroppedRow when a record's split or tier is no known value (counted, never silently skipped)."""
    split = _split_of(record, source)
    if split is not None and split not in SPLITS:
        return DroppedRow(
            "bad_split", f"{where}: split {record.get('split')!r}; expected one of {', '.join(SPLITS)}"
        )
    if record.get("tier") and str(record["tier"]) not in TIERS:
        return DroppedRow("bad_tier", f"{where}: tier {record['tier']!r}; expected one of {', '.join(TIERS)}")
    return None


def question_rows(root: Path, split: str, tier: Optional[str]) -> list[dict]:
    """Every question of the split in the folder, as task rows (release fields kept)."""
    files = _question_files(root)
    if not files:
        raise DataError(
            f"CycliST: no questions JSON in {root} (looked in questions/*.json and *questions*.json); {BUILD_HINT}"
        )
    rows = []
    for path in files:
        data = _read_json(path)
        questions = data.get("questions") if isinstance(data, dict) else data
        if not isinstance(questions, list):
            raise DataError(f"CycliST: {path}: expected {{'questions': [...]}} or a list of questions")
        for i, q in enumerate(questions):
            where = f"CycliST: {path} question {i}"
            if not isinstance(q, dict):
                rows.append(DroppedRow("not_a_mapping", f"{where} is {type(q).__name__}, not an object"))
                continue
            unusable = _unusable(q, path, where)
            if unusable is not None:
                rows.append(unusable)
                continue
            if _split_of(q, path) not in (split, None):
                continue
            if tier and q.get("tier") and str(q["tier"]) != tier:
                continue
            family = family_of(q)
            if family is None:
                rows.append(
                    DroppedRow(
                        "unknown_family",
                        f"{where}: cannot tell its family from 'family'/'template_filename' "
                        f"({q.get('family') or q.get('template_filename')!r}); known: {', '.join(FAMILIES)}",
                    )
                )
                continue
            missing = [f for f in ("question", "answer", "video_filename") if f not in q]
            if missing:
                rows.append(
                    DroppedRow("missing_field", f"{where}: missing {', '.join(repr(f) for f in missing)}")
                )
                continue
            if not isinstance(q["answer"], (str, int, float, bool)) or not isinstance(q["question"], str):
                rows.append(DroppedRow("bad_value", f"{where}: 'question' must be text, 'answer' a value"))
                continue
            target = canonical_target(q["answer"])
            row = dict(q)
            row.update(
                id=f"{path.stem}/{q.get('question_index', i)}",
                video=_video_path(root, str(q["video_filename"])),
                family=family,
                quantifier=quantifier_of(family),
                category=category_of(family),
                tier=str(q.get("tier") or tier or ""),
                answer_kind=answer_kind(q["answer"]),
                domain=value_domain(target) if isinstance(target, str) else None,
                target=target,
            )
            row["answer"] = (
                q["answer"] if isinstance(q["answer"], (str, int, float, bool)) else str(q["answer"])
            )
            rows.append(row)
    return rows


def _attr(raw: dict, key: str, choices: tuple[str, ...], where: str) -> str:
    value = str(raw.get(key, "")).lower()
    value = _MATERIAL_ALIASES.get(value, value) if key == "material" else value
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


def caption_rows(root: Path, split: str, tier: Optional[str]) -> list[Any]:
    """One row per scene of the split: its video and its objects (the captioning ground truth). The
    scene's split is read from its `split` field as the release writes it (`unicycle_test`, ...), else
    from its file name; a scene whose split cannot be told, or that cannot be used (no video, an
    unknown attribute), is a DroppedRow with the reason, never silently lost."""
    scenes = _scene_records(root)
    if not scenes:
        raise DataError(
            f"CycliST: no scene JSON in {root} (looked in scenes/*.json and *scenes*.json); {BUILD_HINT}"
        )
    rows: list[Any] = []
    for name, scene in scenes:
        if not isinstance(scene, dict):
            rows.append(DroppedRow("not_an_object", f"scene {name} in {root}: a scene must be a JSON object"))
            continue
        raw_split = scene.get("split")
        scene_split = split_name(raw_split) if raw_split else split_name(Path(name).stem) or split
        if scene_split is None:
            rows.append(
                DroppedRow(
                    "bad_split",
                    f"scene {name} in {root}: split {raw_split!r} names none of train/val/test",
                )
            )
            continue
        if scene.get("tier") and str(scene["tier"]) not in TIERS:
            rows.append(
                DroppedRow(
                    "bad_tier",
                    f"scene {name} in {root}: tier {scene['tier']!r}; expected one of {', '.join(TIERS)}",
                )
            )
            continue
        if scene_split != split:
            continue
        if tier and scene.get("tier") and str(scene["tier"]) != tier:
            continue
        video = scene.get("video_file") or scene.get("video_filename")
        if not video:
            rows.append(DroppedRow("missing_field", f"scene {name} in {root}: missing 'video_file'"))
            continue
        try:
            objects = scene_objects(scene, f"scene {name}")
        except (DataError, TypeError, AttributeError) as exc:  # e.g. objects not a list
            rows.append(DroppedRow("bad_scene", str(exc)))
            continue
        rows.append(
            {
                "id": Path(str(video)).stem,
                "video": _video_path(root, str(video)),
                "scene": name,
                "tier": str(scene.get("tier") or tier or ""),
                "split": split,
                "num_objects": len(objects),
                "num_cycles": sum(o[c] for o in objects for c in CYCLES),
                "objects": objects,
            }
        )
    return rows


def load(root: Optional[Path], split: str, options: dict) -> list[Any]:
    """Loader hook: options `kind` (vqa | caption), `tier` (L1..L5), `family` (one of the twelve or null)."""
    if root is None:
        raise DataError(f"CycliST: no dataset folder; pass --data DIR. {BUILD_HINT}")
    tier = options.get("tier")
    if tier is not None and tier not in TIERS:
        raise DataError(f"CycliST: dataset.options.tier {tier!r} is not one of {', '.join(TIERS)}")
    if options.get("kind", "vqa") == "caption":
        return caption_rows(Path(root), split, tier)
    family = options.get("family")
    if family is not None and family not in FAMILIES:
        raise DataError(f"CycliST: dataset.options.family {family!r} is not one of {', '.join(FAMILIES)}")
    rows = question_rows(Path(root), split, tier)
    return [r for r in rows if family is None or isinstance(r, DroppedRow) or r["family"] == family]
