"""Importers: turn another tool's per-item outputs into the harness's samples records.

An importer plugin (hook `register_importers`) reads one file of another evaluation (e.g. the public
TempCloze repository's `eval_results/**/<model>.json`) and returns an `ImportedRun`: the model's name, its
samples records per task (each a samples-file line: doc_id, task, doc, target, raw, structured, error),
and where it came from. `python -m harness import NAME FILE... --out DIR` writes those records as
samples files and computes the results by the ordinary `--rescore` path, so an imported model's tables,
intervals and `compare` pairings are the harness's own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional


@dataclass
class ImportedRun:
    """One imported model run: samples records per task and the provenance recorded in its results."""

    model: str
    tasks: dict[str, list[dict[str, Any]]]
    provenance: dict[str, Any] = field(default_factory=dict)


class Importer:
    """Base class of importers. `read(path, commit)` returns the ImportedRun of one file; `commit` (the
    source repository's commit the file was taken at, when the user knows it) goes into the provenance."""

    name = ""
    description = ""

    def read(self, path: Path, commit: Optional[str] = None) -> ImportedRun:  # pragma: no cover - abstract
        raise NotImplementedError


def file_sha256(path: Path) -> str:
    """The file's content hash (recorded so an import names exactly what it read)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
