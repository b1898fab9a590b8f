"""Where RVTBench data sits under `--data ROOT` (the data-root convention) and how a release's paths resolve.

Layouts, tried in this order (exactly one must match; none or two is a DataError naming ROOT, what was
looked for and the fix):
  build          ROOT/manifest.json ("builder": "rvtbench") + ROOT/<split>.jsonl      (`build ... --out ROOT`)
  build, nested  ROOT/rvtbench/manifest.json + ROOT/rvtbench/<split>.jsonl            (`--out ROOT/rvtbench`)
  release, nested  ROOT/rvtbench/rvtbench/...: ROOT/rvtbench is a release root          (ROOT holds benchmarks)
  release        ROOT/rvtbench/...: ROOT is a release root, as `hf download yiqingshen/rvtbench --repo-type
                 dataset --local-dir ROOT` (or the fetch without --data) gives it
  release folder ROOT is the release's rvtbench/ folder itself: named rvtbench, or holding record files
                 (*.json|*.jsonl|*.parquet) or archives at its top
Video paths in rows are relative to ROOT (what the core resolves): a build's are prefixed with its folder; a
release record's path is looked up relative to its file's folder, the rvtbench/ folder, the release root and
ROOT, then inside the release's archives (unpacked into the cache on first use, harness.api.unpack_archive):
an archive A.zip in folder D stands for its files placed in D and in D/A/. A file found only in an archive is
named by its absolute path in the cache. A path found nowhere stays relative to the release root (the sample
becomes a counted `media` error naming it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from harness.api import DataError, archive_stem, is_archive, read_json_file, unpack_archive

HUB_DATASET = "yiqingshen/rvtbench"
FOLDER = "rvtbench"
RECORD_SUFFIXES = (".json", ".jsonl", ".parquet")
# What the tasks read of the release (the downloader's allow_patterns) is `dataset.hub` in configs/_base.yaml.
BUILD_HINT = (
    f"build one (`python -m harness build rvtbench --from-synthetic CYCLIST_DIR --out {{root}}/{FOLDER}`) or "
    f"download the release (`hf download {HUB_DATASET} --repo-type dataset --include '{FOLDER}/*' "
    "--local-dir {root}`)"
)


@dataclass
class Archive:
    """A release archive: where it sits (relative to ROOT) and the cache folder its files were unpacked to."""

    folder: str  # the archive's folder, relative to ROOT ('' for ROOT itself)
    stem: str
    unpacked: Path


@dataclass
class Layout:
    """What ROOT holds: a build folder, or a release (its root and its rvtbench/ folder), relative to ROOT."""

    kind: str  # "build" | "release"
    root: Path
    folder: str  # the build folder or the release's rvtbench/ folder, relative to ROOT ('' = ROOT)
    release_root: str = ""  # relative to ROOT
    archives: list[Archive] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.root / self.folder if self.folder else self.root

    def record_files(self) -> list[Path]:
        """Every record file: below the build or rvtbench/ folder, then inside each archive."""
        files = [p for p in sorted(self.path.rglob("*")) if _is_record(p)]
        for a in self.archives:
            files += [p for p in sorted(a.unpacked.rglob("*")) if _is_record(p)]
        return files

    def locate(self, path: str, near: Path) -> Optional[Path]:
        """The file or folder a record's relative `path` names (module docstring), or None."""
        rels = [
            _rel(near, self.root) if _below(near, self.root) else None,
            self.folder,
            self.release_root,
            "",
        ]
        for rel in dict.fromkeys(r for r in rels if r is not None):
            if (self.root / rel / path).exists():
                return self.root / rel / path
        if not _below(near, self.root) and (near / path).exists():  # a record inside an archive
            return near / path
        for rel in dict.fromkeys(r for r in rels if r is not None):
            found = self._in_archives(_join(rel, path))
            if found is not None:
                return found
        return None

    def _in_archives(self, virtual: str) -> Optional[Path]:
        for a in self.archives:
            inside = _under(virtual, a.folder)
            if inside is None:
                continue
            parts = inside.split("/")
            options = [inside] + (["/".join(parts[1:])] if parts[0] == a.stem and len(parts) > 1 else [])
            for rel in options:
                if (a.unpacked / rel).exists():
                    return a.unpacked / rel
        return None

    def media_path(self, path: str, near: Path) -> str:
        """A record's video as the core resolves it: relative to ROOT, absolute in an unpacked archive, or
        (found nowhere) relative to the release root."""
        found = self.locate(path, near)
        if found is None:
            return _join(self.release_root, path)
        return _rel(found, self.root) if _below(found, self.root) else str(found)


def _is_record(p: Path) -> bool:
    return p.suffix.lower() in RECORD_SUFFIXES and p.is_file() and p.name != "manifest.json"


def _below(path: Path, root: Path) -> bool:
    return Path(path).is_relative_to(root)


def _rel(path: Path, root: Path) -> str:
    rel = Path(path).relative_to(root).as_posix()
    return "" if rel == "." else rel


def _join(folder: str, path: str) -> str:
    return f"{folder}/{path}" if folder else path


def _under(virtual: str, folder: str) -> Optional[str]:
    if not folder:
        return virtual
    return virtual[len(folder) + 1 :] if virtual.startswith(folder + "/") else None


def _is_build(folder: Path) -> bool:
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return False
    try:
        return read_json_file(manifest, "rvtbench build manifest", error=ValueError).get("builder") == "rvtbench"
    except (ValueError, AttributeError, OSError):
        return False


def _has_release_files(folder: Path, deep: bool = True) -> bool:
    if not folder.is_dir():
        return False
    files = folder.rglob("*") if deep else folder.iterdir()
    return any(_is_record(p) or (is_archive(p) and p.is_file()) for p in files)


def find_layout(root: Path) -> Layout:
    """The one layout ROOT holds (module docstring), its archives unpacked; DataError when none or several."""
    root = Path(root)
    nested = root / FOLDER
    found = []
    if _is_build(root):
        found.append(Layout("build", root, ""))
    if _is_build(nested):
        found.append(Layout("build", root, FOLDER))
    if not found and _has_release_files(nested / FOLDER):
        found.append(Layout("release", root, f"{FOLDER}/{FOLDER}", FOLDER))
    elif not found and _has_release_files(nested):
        found.append(Layout("release", root, FOLDER, ""))
    folder_itself = root.name == FOLDER or _has_release_files(root, deep=False)
    if not found and not nested.exists() and folder_itself and _has_release_files(root):
        found.append(Layout("release", root, "", ""))
    if len(found) != 1:
        what = "nothing" if not found else " and ".join(f"a {f.kind} in {f.path}" for f in found)
        raise DataError(
            f"rvtbench: --data {root}: found {what}; looked for {root}/manifest.json or {root}/{FOLDER}/manifest.json "
            f"(a build with <split>.jsonl), {root}/{FOLDER}/**/*.json|jsonl|parquet|zip|tar* (a release root, or "
            f"{root}/{FOLDER}/{FOLDER}/** when ROOT holds one folder per benchmark), {root}/*.json|jsonl|parquet "
            f"(the release's {FOLDER}/ folder itself, or any record below a ROOT named {FOLDER}); "
            + BUILD_HINT.format(root=root)
            + ("; point --data at one of them" if found else "")
        )
    layout = found[0]
    if layout.kind == "release":
        for p in sorted(layout.path.rglob("*")):
            if is_archive(p) and p.is_file():
                layout.archives.append(Archive(_rel(p.parent, root), archive_stem(p), unpack_archive(p)))
    return layout
