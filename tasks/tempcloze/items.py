"""One TempCloze item (a video's clips): a release folder of mp4 files, or a builder's virtual clips.json.

An item that cannot give a clip a doc needs raises `ItemProblem` with a reason tag; the loader turns it
into dropped rows (one per doc the item would have given), so one bad item never stops a task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from harness.api import DataError
from harness_tasks.tempcloze.release import CLIPS_JSON, read_json

CLIPS_FORMAT = "tempcloze-clips"


class ItemProblem(Exception):
    """Why an item (or one of its clips) cannot be used: `reason` is the dropped row's tag."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail


class Item:
    """One video's clips under `choices_rel/stem` of the dataset root (`media`: auto | files | virtual)."""

    def __init__(self, root: Path, choices_rel: str, stem: str, media: str) -> None:
        self.root, self.stem = root, stem
        self.rel = f"{choices_rel}/{stem}"
        folder = root / self.rel
        self.folder = folder
        if not folder.is_dir():
            raise ItemProblem("unknown_stem", f"tempcloze: no item folder {folder} for stem '{stem}'")
        has_files = (folder / "GT.mp4").exists()
        has_virtual = (folder / CLIPS_JSON).exists()
        if media == "files" or (media == "auto" and has_files):
            self.mode = "files"
        elif has_virtual:
            self.mode = "virtual"
        else:
            raise ItemProblem("empty_item", f"tempcloze: {folder} holds neither GT.mp4 nor {CLIPS_JSON}")
        self.doc: Optional[dict] = None
        self.source: Optional[str] = None
        if has_virtual and (self.mode == "virtual" or has_files):
            self._read_clips_json(folder / CLIPS_JSON)

    def _read_clips_json(self, path: Path) -> None:
        try:
            doc = read_json(path, "clips file")
        except DataError as err:
            if self.mode == "files":
                return  # a file item's clips.json is provenance only (its dataset source)
            raise ItemProblem("bad_item", str(err)) from err
        if not isinstance(doc, dict):
            if self.mode == "files":
                return
            raise ItemProblem("bad_item", f"tempcloze: {path} must be a JSON object")
        source = doc.get("source_dataset")
        self.source = str(source) if isinstance(source, str) and source else None
        if self.mode == "files":
            return
        if doc.get("format") != CLIPS_FORMAT:
            raise ItemProblem("bad_item", f"tempcloze: {path}: 'format' must be '{CLIPS_FORMAT}'")
        for key in ("source", "clips"):
            if key not in doc:
                raise ItemProblem(
                    "bad_item", f"tempcloze: {path}: field '{key}' is missing; rebuild the item"
                )
        if not isinstance(doc["clips"], dict) or not isinstance(doc["source"], str):
            raise ItemProblem("bad_item", f"tempcloze: {path}: 'clips' must map names to segments")
        if not (self.root / doc["source"]).exists():
            raise ItemProblem(
                "missing_clip", f"tempcloze: {path}: its source video {doc['source']} is missing"
            )
        self.doc = doc

    def clip(self, name: str) -> dict[str, Any]:
        """A JSON-able clip reference, {"path": relative to the root, "segments": list or None}; a clip the
        item does not have raises ItemProblem('missing_clip')."""
        if self.mode == "files":
            rel = f"{name}.mp4"
            if name.startswith("C/") and not (self.folder / rel).is_file():
                rel = f"P/{rel[2:]}"  # some public scripts store Progression under P/
            if not (self.folder / rel).is_file():
                raise ItemProblem("missing_clip", f"tempcloze: {self.folder / f'{name}.mp4'} is missing")
            return {"path": f"{self.rel}/{rel}", "segments": None}
        assert self.doc is not None
        segments = self.doc["clips"].get(name)
        if not isinstance(segments, list) or not segments or not all(isinstance(s, dict) for s in segments):
            raise ItemProblem(
                "missing_clip",
                f"tempcloze: {self.folder / CLIPS_JSON} has no clip '{name}'; rebuild the item",
            )
        return {"path": str(self.doc["source"]), "segments": [dict(s) for s in segments]}
