"""A task's official release, fetched from the Hugging Face hub when the run has no `--data`.

A task declares its release in its YAML (`dataset.hub`, see harness/config/schema.py HubRelease): the dataset
id, a revision, and the files it needs for its tier and split (`allow_patterns`, with `{split}`, `{data_key}`
and option placeholders). Only those files are downloaded, with `huggingface_hub.snapshot_download`, into the
HF hub cache (keyed by commit; files already there are never fetched again, so an interrupted download resumes
where it stopped). The snapshot folder is then the task's data root exactly as `--data` would be (the
data-root convention, rule 6). Archives in a release are unpacked by whatever reads that root (the
loaders' `--data` path), so a fetched root and a `--data` root are read by one code path.

`HF_HUB_OFFLINE=1` uses the cache only; an unreachable hub (one bounded request, harness/data/hub.py) uses the
cache when it holds every file, else ends in one message naming the dataset, the cause, the exact
`hf download` command and `--data`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from harness.config.schema import HubRelease
from harness.data import hub
from harness.errors import ConfigError, DataError
from harness.plugins.references import load_hook

log = logging.getLogger(__name__)


@dataclass
class FetchedRelease:
    """What a task's data came from: recorded per task in the results (`config.tasks.<task>.data_source`)."""

    repo_id: str
    revision: str
    commit: str
    path: Path
    allow_patterns: list[str] = field(default_factory=list)
    doi: Optional[str] = None
    from_cache: bool = False

    def merged(self, other: FetchedRelease) -> FetchedRelease:
        """This release with another fetch of it (e.g. the train split for `prior`) added."""
        patterns = self.allow_patterns + [p for p in other.allow_patterns if p not in self.allow_patterns]
        return FetchedRelease(
            self.repo_id, self.revision, self.commit, self.path, patterns, self.doi,
            self.from_cache or other.from_cache,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "hub": self.repo_id,
            "repo_type": "dataset",
            "revision": self.revision,
            "commit": self.commit,
            "allow_patterns": list(self.allow_patterns),
            "doi": self.doi,
            "from_cache": self.from_cache,
        }


def patterns_for(
    release: HubRelease,
    task: str,
    split: str,
    data_key: Optional[str],
    options: dict,
    base_dir: Optional[Path] = None,
) -> list[str]:
    """The files a task needs: its `patterns_hook(split, options)`, or its `allow_patterns` with `{split}`,
    `{data_key}` and option values filled in."""
    if release.patterns_hook:  # the plugin maps its options to release folders (CycliST: tier -> folder)
        what = f"task '{task}' field 'dataset.hub.patterns_hook'"
        return [str(p) for p in load_hook(release.patterns_hook, base_dir or Path("."), what)(split, dict(options))]
    values = {k: v for k, v in options.items() if isinstance(v, (str, int))}
    values.update(split=split, data_key=data_key or "")
    out = []
    for pattern in release.allow_patterns:
        try:
            out.append(pattern.format_map(values))
        except (KeyError, IndexError, ValueError) as exc:
            known = ", ".join("{" + k + "}" for k in sorted(values))
            raise ConfigError(
                f"task '{task}': dataset.hub.allow_patterns entry {pattern!r} uses a placeholder that is not one "
                f"of {known} ({type(exc).__name__}: {exc})"
            ) from None
    return out


def local_dir_name(repo_id: str) -> str:
    """Where the manual download goes in the messages: data/<dataset name, lower case> (data-root rule 2)."""
    return f"data/{repo_id.split('/')[-1].lower()}"


def failure(
    task: str, repo_id: str, revision: str, patterns: list[str], why: str, endpoint: Optional[str]
) -> str:
    """The one message of a fetch that cannot happen: dataset, cause, the download command and --data."""
    local = local_dir_name(repo_id)
    command = hub.download_command(repo_id, "dataset", revision, patterns, local, endpoint)
    return (
        f"task '{task}': cannot fetch dataset {repo_id} (revision {revision}; files {', '.join(patterns)}): "
        f"{why}. Download it where the hub is reachable: `{command}`, then rerun with --data {local}"
    )


@contextlib.contextmanager
def _progress_bars(show: bool) -> Iterator[None]:
    """huggingface_hub's progress bars on or off for one download, restored afterwards."""
    utils = hub.huggingface_hub("utils")
    was_disabled = utils.are_progress_bars_disabled()
    if show == was_disabled:
        (utils.enable_progress_bars if show else utils.disable_progress_bars)()
    try:
        yield
    finally:
        if show == was_disabled:
            (utils.disable_progress_bars if show else utils.enable_progress_bars)()


def _cached(repo_id: str, revision: str, patterns: list[str], cache: Optional[Path]) -> Optional[Path]:
    """The cached snapshot holding every file the patterns select, without asking the hub; None if there is none."""
    try:
        path = hub.huggingface_hub().snapshot_download(
            repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns,
            cache_dir=cache, local_files_only=True,
        )  # fmt: skip
    except Exception:  # noqa: BLE001 - any failure to find a complete copy means "not cached"
        return None
    return Path(path) if _matching_files(Path(path), patterns) else None


def _matching_files(root: Path, patterns: list[str]) -> list[str]:
    """Relative paths under root that the patterns select (huggingface_hub's fnmatch, where `*` crosses `/`)."""
    if not root.is_dir():
        return []
    rels = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    full = [p + "*" if p.endswith("/") else p for p in patterns]
    return [r for r in rels if any(fnmatch.fnmatch(r, p) for p in full)]


def fetch_release(
    release: HubRelease,
    task: str,
    split: str,
    data_key: Optional[str],
    options: dict,
    revision: Optional[str] = None,
    progress: bool = True,
    endpoint: Optional[str] = None,
    cache: Optional[Path] = None,
    base_dir: Optional[Path] = None,
) -> FetchedRelease:
    """Download (or find in the HF cache) the files `task` needs for `split`; DataError in one message if neither.

    revision: `--data_revision` (else the YAML's); endpoint, cache: huggingface_hub's defaults unless given;
    base_dir: the task's folder, where a file `patterns_hook` lies.
    """
    patterns = patterns_for(release, task, split, data_key, options, base_dir)
    revision = revision or release.revision
    repo = release.repo_id

    def done(path: Path, from_cache: bool) -> FetchedRelease:
        if not _matching_files(path, patterns):
            raise DataError(
                f"task '{task}': no file of dataset {repo} at {path.name} matches {', '.join(patterns)}; the "
                "release layout may have changed: adjust dataset.hub.allow_patterns in the task's YAML, or "
                "download the release by hand and pass --data"
            )
        return FetchedRelease(repo, revision, path.name, path, patterns, release.doi, from_cache)

    if hub.is_offline():
        path = _cached(repo, revision, patterns, cache)
        if path is None:
            why = f"HF_HUB_OFFLINE=1 is set and the HF cache ({hub.cache_dir(cache)}) holds no complete copy"
            raise DataError(failure(task, repo, revision, patterns, why, endpoint))
        return done(path, True)
    try:
        # one bounded question first: an unreachable hub ends here, not in snapshot_download's unbounded calls
        hub.resolve_commit(repo, "dataset", revision, endpoint)
    except hub.HubRefused as exc:
        raise DataError(failure(task, repo, revision, patterns, str(exc), endpoint)) from None
    except hub.HubUnreachable as exc:
        path = _cached(repo, revision, patterns, cache)
        if path is None:
            why = f"{exc}, and the HF cache ({hub.cache_dir(cache)}) holds no complete copy"
            raise DataError(failure(task, repo, revision, patterns, why, endpoint)) from None
        log.warning("task '%s': %s; using the cached copy of %s (commit %s)", task, exc, repo, path.name)
        return done(path, True)
    return done(_download(task, repo, revision, patterns, progress, endpoint, cache), False)


def _download(
    task: str,
    repo: str,
    revision: str,
    patterns: list[str],
    progress: bool,
    endpoint: Optional[str],
    cache: Optional[Path],
) -> Path:
    """snapshot_download of the selected files; a failure half-way is one DataError that says a rerun resumes."""
    if progress:
        print(
            f"task '{task}': fetching {', '.join(patterns)} of {repo} ({revision}) into {hub.cache_dir(cache)}",
            file=sys.stderr,
        )
    try:
        with _progress_bars(progress):
            path = hub.huggingface_hub().snapshot_download(
                repo, repo_type="dataset", revision=revision, allow_patterns=patterns,
                cache_dir=cache, endpoint=endpoint,
            )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - huggingface_hub raises many types (HTTP, network, disk)
        why = (
            f"the download stopped ({hub.cause(exc)}); rerun the same command to resume (the files already "
            "downloaded stay in the HF cache)"
        )
        raise DataError(failure(task, repo, revision, patterns, why, endpoint)) from None
    return Path(path)
