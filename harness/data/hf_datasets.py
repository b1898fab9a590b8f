"""Rows through HF `datasets`: hub ids, packaged builders (`json` + `data_files`, `parquet`, ...), local
`save_to_disk` folders and parquet files, with their videos.

A task's video column may hold a path, raw bytes, or a `datasets.Video` feature (read with `decode=False`, so a
`{"path", "bytes"}` pair). Bytes are written once, content-addressed, to `<cache dir>/hf_media/` and the row
then holds that file's absolute path; those files and files in the HF `datasets` cache (a hub dataset's
extracted videos) are media `datasets` provided (`media_roots`), accepted by absolute path. A `datasets.Video`
path inside the local dataset folder (what `save_to_disk` and `to_parquet` keep for a column built from files:
their absolute paths) is made relative to that folder, so it keeps the root rule like any relative path. Any
other absolute path is refused unless the user opts in with `--allow_external_symlinks`.

A folder holding parquet files is read as parquet (its splits named as `datasets` names them: `test.parquet`,
`data/test-00000-of-00001.parquet`, `test/*.parquet`), whatever media files lie beside them.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Optional

from harness.cache import default_cache_dir
from harness.contract.hooks import check_return
from harness.errors import ConfigError, DataError
from harness.files import write_atomic
from harness.plugins.references import load_hook

#: builder names `datasets` ships (lm-eval's `dataset_path: json` with `data_files`)
PACKAGED = {"json", "csv", "parquet", "text", "arrow", "pandas", "imagefolder", "videofolder", "audiofolder"}
PACKAGED |= {"webdataset"}
_SAVED = ("dataset_info.json", "state.json", "dataset_dict.json")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _datasets():
    try:
        import datasets  # noqa: PLC0415 - optional dependency (the hf extra)
    except ImportError:
        raise ConfigError(
            "reading this dataset needs the `datasets` package (pip install 'video-harness[hf]')"
        ) from None
    return datasets


def is_hub_source(ds: Any, base_dir: Path) -> bool:
    """The source is read by `datasets` with no local folder: a hub id or a packaged builder name."""
    src = ds.source
    if not src:
        return False
    if src in PACKAGED:
        return True
    return (
        _HUB_ID.fullmatch(src) is not None
        and not (Path(base_dir) / src).exists()
        and not Path(src).expanduser().is_absolute()
    )


def is_datasets_path(path: Path, ds: Any = None) -> bool:
    """A local path `datasets` must read: a parquet/arrow file, a `save_to_disk` folder, a folder of parquet."""
    path = Path(path)
    if path.is_file():
        return path.suffix in (".parquet", ".arrow")
    if not path.is_dir():
        return False
    if ds is not None and (ds.from_disk or ds.name or ds.data_files):
        return True
    return any((path / m).exists() for m in _SAVED) or holds_parquet(path)


def holds_parquet(folder: Path) -> bool:
    """Whether a folder holds parquet files where `datasets` looks for them (top level, `data/`, `<split>/`)."""
    return any(any(folder.glob(g)) for g in ("*.parquet", "data/*.parquet", "*/*.parquet"))


def media_dir(cache_dir: Optional[Path] = None) -> Path:
    """Where video bytes from datasets are written: `hf_media/` under the run's cache dir (or the default)."""
    return Path(cache_dir or default_cache_dir()) / "hf_media"


def media_roots(cache_dir: Optional[Path] = None) -> list[Path]:
    """Folders whose files `datasets` itself wrote (absolute paths inside them are accepted): the media cache
    and, for hub datasets, the HF datasets cache. A local dataset folder is not one: its rows keep the root
    rule (a `datasets.Video` path inside it is made relative, see `load_rows`)."""
    roots = [media_dir(cache_dir)]
    try:
        datasets = _datasets()
        roots.append(Path(datasets.config.HF_DATASETS_CACHE))
    except ConfigError:
        pass
    return [r.resolve() for r in roots]


def _data_files(value: Any, base_dir: Path) -> Any:
    """data_files with relative paths resolved against the YAML's folder when the file is there."""
    if isinstance(value, str):
        p = Path(value).expanduser()
        return str(base_dir / p) if not p.is_absolute() and (base_dir / p).exists() else value
    if isinstance(value, list):
        return [_data_files(v, base_dir) for v in value]
    if isinstance(value, dict):
        return {k: _data_files(v, base_dir) for k, v in value.items()}
    return value


#: the packaged builder that reads a data file, by suffix (what `--data FILE` may be)
BUILDER_BY_SUFFIX = {".json": "json", ".jsonl": "json", ".parquet": "parquet", ".csv": "csv", ".arrow": "arrow"}


def _names(value: Any) -> list[str]:
    """The file names in a data_files value (a path or URL, a list of them, or a dict of split -> those)."""
    if isinstance(value, str):
        return [value.rstrip("/").rsplit("/", 1)[-1]]
    if isinstance(value, list):
        return [n for v in value for n in _names(v)]
    return []


def local_data_files(root: Path, split: str, ds: Any) -> Optional[tuple[str, list[str]]]:
    """(builder, files) of `split` in a `--data` path, which replaces every source the config names (hub id,
    or a packaged builder's `data_files`, local or URL): a data file itself; else, in a folder, the files
    named like the config's `data_files` for that split; else `{split}.jsonl|json|parquet|csv` (also under
    `data/`). None when the folder holds none of them (a saved dataset or a hub snapshot: read as it is)."""
    if root.is_file():
        builder = BUILDER_BY_SUFFIX.get(root.suffix.lower())
        return (builder, [str(root)]) if builder else None
    wanted = ds.data_files.get(split) if isinstance(ds.data_files, dict) else ds.data_files
    named = [root / n for n in _names(wanted)]
    if named and all(p.is_file() for p in named):
        builders = {BUILDER_BY_SUFFIX.get(p.suffix.lower(), ds.source) for p in named}
        if len(builders) == 1 and None not in builders:
            return builders.pop(), [str(p) for p in named]
    for folder in (root, root / "data"):
        for suffix in (".jsonl", ".json", ".parquet", ".csv"):
            if (folder / f"{split}{suffix}").is_file():
                return BUILDER_BY_SUFFIX[suffix], [str(folder / f"{split}{suffix}")]
    return None


def parquet_splits(root: Path) -> dict[str, list[str]]:
    """A folder's parquet files by split, as `datasets` names splits from file and folder names; other
    files (the videos beside them) are left out. Empty when the folder holds no parquet file."""
    if not holds_parquet(root):
        return {}
    from datasets.data_files import DataFilesDict, get_data_patterns  # noqa: PLC0415 - the hf extra

    files = DataFilesDict.from_patterns(get_data_patterns(str(root)), base_path=str(root))
    by_split = {str(k): sorted(f for f in v if str(f).endswith(".parquet")) for k, v in files.items()}
    return {k: v for k, v in by_split.items() if v}


def _open(ds: Any, split: str, base_dir: Path, root: Optional[Path]):
    datasets = _datasets()
    files = local_data_files(root, split, ds) if root is not None else None
    if files is not None:  # --data replaces the config's sources; its own kwargs (e.g. `field`) still apply
        kwargs = {k: v for k, v in ds.kwargs.items() if k not in ("data_files", "revision")}
        return datasets.load_dataset(files[0], data_files={split: files[1]}, split=split, **kwargs)
    if root is not None and root.is_file():
        return datasets.load_dataset(root.suffix[1:], data_files={split: str(root)}, split=split)
    if root is not None and (ds.from_disk or any((root / m).exists() for m in _SAVED)):
        obj = datasets.load_from_disk(str(root))
        if isinstance(obj, datasets.DatasetDict):
            if split not in obj:
                raise DataError(f"no split '{split}' in {root} (it has {', '.join(obj)})")
            return obj[split]
        return obj
    splits = parquet_splits(root) if root is not None and ds.data_files is None and not ds.name else {}
    if splits:  # parquet, never the videofolder `datasets` would infer from the videos beside it
        if split not in splits:
            raise DataError(
                f"no split '{split}' among the parquet files in {root} (it has {', '.join(splits)})"
            )
        return datasets.load_dataset("parquet", data_files={split: splits[split]}, split=split, **ds.kwargs)
    # a packaged builder (`json` + data_files) reads its files; else the local copy (--data) or the hub id
    source = ds.source if ds.source in PACKAGED or root is None else str(root)
    kwargs = dict(ds.kwargs)
    if ds.data_files is not None:
        kwargs["data_files"] = _data_files(ds.data_files, base_dir)
    if ds.revision:
        kwargs["revision"] = ds.revision
    return datasets.load_dataset(source, ds.name, split=split, **kwargs)


def _write_bytes(data: bytes, name: str, cache_dir: Optional[Path]) -> str:
    digest = hashlib.sha256(data).hexdigest()
    suffix = Path(name).suffix if name and Path(name).suffix else ".mp4"
    folder = media_dir(cache_dir) / digest[:2]
    path = folder / f"{digest}{suffix}"
    if not path.exists():
        write_atomic(path, data)
    return str(path)


def _media_value(value: Any, cache_dir: Optional[Path]) -> Any:
    """A video cell as a path: bytes are written to the media cache; a {"path", "bytes"} pair prefers bytes."""
    if isinstance(value, (bytes, bytearray)):
        return _write_bytes(bytes(value), "", cache_dir)
    if isinstance(value, dict) and ("bytes" in value or "path" in value):
        if value.get("bytes"):
            return _write_bytes(bytes(value["bytes"]), value.get("path") or "", cache_dir)
        return value.get("path")
    return value


def _inside(path: Any, folder: Optional[Path]) -> Any:
    """An absolute path inside `folder` (as written, symlinks not followed) made relative to it; else as it was."""
    if folder is None or not isinstance(path, str) or not os.path.isabs(path):
        return path
    base, full = os.path.abspath(folder), os.path.abspath(path)
    if not full.startswith(base.rstrip(os.sep) + os.sep):
        return path
    return Path(os.path.relpath(full, base)).as_posix()


def load_rows(
    ds: Any,
    split: str,
    task: str,
    base_dir: Path,
    root: Optional[Path],
    media_field: Optional[str],
    cache_dir: Optional[Path] = None,
) -> list[dict]:
    """Every row of the split as a dict, video cells turned into paths (see the module docstring)."""
    datasets = _datasets()
    where = str(root) if root is not None else f"'{ds.source}'"
    try:
        obj = _open(ds, split, Path(base_dir), root)
    except DataError as exc:
        raise DataError(f"task '{task}': {exc}") from None
    except Exception as exc:  # datasets raises many types (missing files, bad configs, no network)
        raise DataError(
            f"task '{task}': cannot load dataset {where} split '{split}' through `datasets`: "
            f"{type(exc).__name__}: {exc}; for a hub id, download it and pass --data DIR"
        ) from exc
    if ds.process_docs:
        what = f"task '{task}' field 'dataset.process_docs'"
        obj = load_hook(ds.process_docs, Path(base_dir), what)(obj)
        ok = isinstance(obj, datasets.Dataset)  # harness.contract.hooks.ProcessDocs
        check_return(obj, "process_docs", f"{what} hook '{ds.process_docs}'", "a datasets.Dataset", ok)
    video_cols = [c for c, f in obj.features.items() if isinstance(f, datasets.Video)]
    for col in video_cols:
        obj = obj.cast_column(col, datasets.Video(decode=False))
    cols = set(video_cols) | ({media_field} if media_field and media_field in obj.column_names else set())
    folder = None if root is None else (root if root.is_dir() else root.parent)
    rows = []
    for r in obj:
        row = dict(r)
        for c in cols:
            row[c] = _media_value(row[c], cache_dir)
            if c in video_cols:  # a datasets.Video file inside the dataset folder: relative, root rule
                row[c] = _inside(row[c], folder)
        rows.append(row)
    return rows
