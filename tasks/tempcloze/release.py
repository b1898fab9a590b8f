"""Where a TempCloze dataset root keeps its files: every layout the release and its code document.

A root (what `--data` names, or its `tempcloze/` folder) is read in any of these layouts, unchanged:

- the hub dataset `CedPei/TempCloze` and `harness build tempcloze --out ROOT`: `choices/`, `mixed_ids.json`,
  `subset_ids.json` (and `fixed_permutations.json`) at the root;
- a clone of the official code (github.com/CedricPei/Temporal-Cloze) with the benchmark at `choices/` in the
  repository root, as its README asks: the subset files in the newer folder `TempCloze/mixed/` and
  `TempCloze/subset/` (`TempCloze/choices`, the README's symlink to `../choices`, is read too);
- the code's `TempCloze/` folder itself: `choices/`, `mixed/mixed_ids.json`, `subset/subset_ids.json`,
  `subset/fixed_permutations.json`.

When a file exists in several of these places with different contents, or when `choices/` exists twice as
different folders, the error names every copy; when none exists, it names the root, each relative path looked
for, and the build and download commands.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from harness.api import DataError, read_json_file, read_text_file

CHOICES = "choices"
CODE_DIR = "TempCloze"  # the official repository's newer folder (its scripts, mixed/ and subset/)
MIXED_FILE = "mixed_ids.json"
HARD_FILE = "subset_ids.json"
FIXED_FILE = "fixed_permutations.json"
SOURCES_FILE = "sources.json"
CLIPS_JSON = "clips.json"
RELEASE_ID = "CedPei/TempCloze"
BUILD_HINT = (
    "build one with `python -m harness build tempcloze --videos VIDEOS --out DIR` (or --synthetic N), or "
    "download the release "
    f"with `huggingface-cli download {RELEASE_ID} --repo-type dataset --local-dir DIR`"
)
HARD_HINT = (
    "TempCloze-Hard is the items most models get wrong: the release ships the paper's list; for a built set, "
    "run tempcloze_all with some models first, then derive it from their runs with `python -m harness build "
    "tempcloze-hard --results OUT --top N --out DIR` (writes DIR/subset_ids.json)"
)
# Relative paths of each subset file, in the order they are looked for (the first existing one is read).
SUBSET_PATHS: dict[str, tuple[str, ...]] = {
    MIXED_FILE: (MIXED_FILE, f"{CODE_DIR}/mixed/{MIXED_FILE}", f"mixed/{MIXED_FILE}"),
    HARD_FILE: (HARD_FILE, f"{CODE_DIR}/subset/{HARD_FILE}", f"subset/{HARD_FILE}"),
    FIXED_FILE: (FIXED_FILE, f"{CODE_DIR}/subset/{FIXED_FILE}", f"subset/{FIXED_FILE}"),
}
CHOICES_PATHS = (CHOICES, f"{CODE_DIR}/{CHOICES}")


def read_json(path: Path, what: str) -> Any:
    """A JSON file's value (a leading byte-order mark accepted); unreadable JSON is a DataError naming it."""
    return read_json_file(path, f"tempcloze {what} (readable JSON)")  # regular, bounded, never a FIFO


def _looked_for(root: Path, rels: tuple[str, ...]) -> str:
    return ", ".join(rels) + f" (under {root})"


def choices_dir(root: Path) -> Path:
    """The folder of items: ROOT/choices, else ROOT/TempCloze/choices (the same folder twice is fine)."""
    found = [root / rel for rel in CHOICES_PATHS if (root / rel).is_dir()]
    if not found:
        raise DataError(
            f"tempcloze: no items in {root}: looked for {_looked_for(root, CHOICES_PATHS)}; {BUILD_HINT}"
        )
    if len(found) > 1 and not os.path.samefile(found[0], found[1]):
        raise DataError(
            f"tempcloze: {root} holds two different item folders, {found[0]} and {found[1]}; keep one "
            f"(the official README links {CODE_DIR}/{CHOICES} to ../{CHOICES}) or point --data at the one to use"
        )
    return found[0]


def subset_file(root: Path, name: str) -> Optional[Path]:
    """The subset file `name` where the root keeps it (see SUBSET_PATHS), None when it has none; copies in
    several places must be equal."""
    found = [root / rel for rel in SUBSET_PATHS[name] if (root / rel).is_file()]
    if len(found) > 1:
        what = f"tempcloze subset file {name}"
        first = read_text_file(found[0], what)  # a leading byte-order mark dropped
        differing = [p for p in found[1:] if read_text_file(p, what) != first]
        if differing:
            paths = ", ".join(str(p) for p in found)
            raise DataError(
                f"tempcloze: {name} exists in {len(found)} places with different contents ({paths}); "
                f"delete the copies you do not mean (the first, {found[0]}, is the one read)"
            )
    return found[0] if found else None


def missing_file(root: Path, name: str, why: str) -> DataError:
    """The error for a subset file the task needs and the root does not hold."""
    hint = HARD_HINT if name == HARD_FILE else BUILD_HINT
    return DataError(
        f"tempcloze: {name} not found: looked for {_looked_for(root, SUBSET_PATHS[name])}; {why} ({hint})"
    )


def stem_problem(value: Any) -> Optional[str]:
    """Why a stem named by a subset file cannot be an item folder's name (None when it can)."""
    if not isinstance(value, str) or not value:
        return f"stem {value!r} is not a folder name"
    if value in (".", "..") or any(c in value for c in "/\\\0"):
        return f"stem {value!r} is not a single folder name inside {CHOICES}/"
    return None


def stem_folders(choices: Path) -> list[str]:
    """Every item folder under choices/ (hidden folders aside), sorted as the public code sorts stems."""
    return sorted(p.name for p in choices.iterdir() if p.is_dir() and not p.name.startswith("."))
