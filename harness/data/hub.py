"""The Hugging Face hub as the harness meets it, for task releases (harness/data/fetch.py) and model checkpoints.

One bounded question decides whether the hub can be used: the commit a revision names, asked in one request
with a timeout (`HARNESS_HUB_TIMEOUT`, default 5 s) and no retries, so an unreachable hub ends a run in
seconds with one message instead of huggingface_hub's minute of retry warnings. Its answer is one of: the
commit; `HubRefused` (the hub answered no: no such repo or revision, gated, private); `HubUnreachable` (no
answer: connection refused, timeout, DNS, a 5xx). `HF_HUB_OFFLINE=1` asks nothing and uses the HF cache.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import shlex
from pathlib import Path
from typing import Any, Optional

from harness.errors import ConfigError, ModelLoadError

log = logging.getLogger(__name__)

TIMEOUT_ENV = "HARNESS_HUB_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
DEFAULT_ENDPOINT = "https://huggingface.co"
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


class HubRefused(Exception):
    """The hub answered, and the answer is no (no such repository or revision, gated, private)."""


class HubUnreachable(Exception):
    """The hub did not answer (connection refused, timeout, name resolution, a server error)."""


def huggingface_hub(part: str = ""):
    """`huggingface_hub` or one of its modules (`constants`, `errors`, `utils`), imported when first needed;
    a broken install gets the fix in one line."""
    try:
        return importlib.import_module("huggingface_hub" + (f".{part}" if part else ""))
    except ImportError:
        raise ConfigError(
            "downloading from the Hugging Face hub needs `huggingface_hub` (a dependency of video-harness: "
            "pip install huggingface_hub)"
        ) from None


def timeout() -> float:
    """Seconds the hub has to answer one question (`HARNESS_HUB_TIMEOUT`, default 5)."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        raise ConfigError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
    return value if value > 0 else DEFAULT_TIMEOUT


def is_offline() -> bool:
    """Whether `HF_HUB_OFFLINE` (or `TRANSFORMERS_OFFLINE`) forbids asking the hub, as huggingface_hub read it."""
    return bool(huggingface_hub("constants").HF_HUB_OFFLINE)


def endpoint(explicit: Optional[str] = None) -> str:
    """The hub's address: `explicit`, else huggingface_hub's (`HF_ENDPOINT`, default https://huggingface.co)."""
    return (explicit or huggingface_hub("constants").ENDPOINT).rstrip("/")


def cache_dir(explicit: Optional[Path] = None) -> Path:
    """The HF hub cache folder downloads go to: `explicit`, else huggingface_hub's (`HF_HUB_CACHE`, `HF_HOME`)."""
    return Path(explicit or huggingface_hub("constants").HF_HUB_CACHE).expanduser()


def is_hub_id(name: str) -> bool:
    """`owner/name` and not an existing path: a repository id on the hub."""
    return _HUB_ID.fullmatch(name) is not None and not Path(name).expanduser().exists()


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The exception bases of the HTTP clients huggingface_hub versions use (httpx2, httpx, requests)."""
    found: list[type[BaseException]] = [OSError]
    for module, name in (
        ("httpx2", "TransportError"),
        ("httpx", "TransportError"),
        ("requests", "RequestException"),
    ):
        try:
            found.append(getattr(__import__(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def cause(exc: BaseException) -> str:
    """An exception as one short line: 'ConnectError: [Errno 111] Connection refused'."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " ".join(lines[:1]) or "no detail"
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}: {text}"


def _refusal(exc: BaseException, repo_id: str, repo_type: str, revision: str) -> str:
    errors = huggingface_hub("errors")
    kind = "dataset" if repo_type == "dataset" else "model"
    if isinstance(exc, errors.GatedRepoError):
        return (
            f"the {kind} {repo_id} is gated: accept its terms on its hub page and log in (`hf auth login`) "
            f"({cause(exc)})"
        )
    if isinstance(exc, errors.RevisionNotFoundError):
        return f"the {kind} {repo_id} has no revision '{revision}' ({cause(exc)})"
    if isinstance(exc, errors.RepositoryNotFoundError):
        return (
            f"the hub has no {kind} {repo_id}, or it is private (log in with `hf auth login` if you have "
            f"access) ({cause(exc)})"
        )
    return f"the hub refused {repo_id} ({cause(exc)})"


def resolve_commit(repo_id: str, repo_type: str, revision: str, hub_endpoint: Optional[str] = None) -> str:
    """The commit `revision` names, in one request bounded by `timeout()` and never retried.

    HubRefused / HubUnreachable carry the cause as one line (see the module docstring)."""
    hub = huggingface_hub()
    api = hub.HfApi(endpoint=endpoint(hub_endpoint))
    try:
        info = api.repo_info(repo_id, repo_type=repo_type, revision=revision, timeout=timeout())
    except huggingface_hub("errors").HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None) or 0
        if status >= 500 or status == 429:
            raise HubUnreachable(f"the hub at {endpoint(hub_endpoint)} answers {cause(exc)}") from None
        raise HubRefused(_refusal(exc, repo_id, repo_type, revision)) from None
    except _transport_errors() as exc:
        raise HubUnreachable(f"the hub at {endpoint(hub_endpoint)} is unreachable ({cause(exc)})") from None
    if not info.sha:
        raise HubUnreachable(f"the hub at {endpoint(hub_endpoint)} named no commit for {repo_id}@{revision}")
    return str(info.sha)


def download_command(
    repo_id: str,
    repo_type: str,
    revision: Optional[str],
    patterns: list[str],
    local_dir: str,
    hub_endpoint: Optional[str] = None,
) -> str:
    """The `hf download` command that fetches these files by hand (with HF_ENDPOINT when it is not the hub)."""
    words = ["hf", "download", repo_id]
    if repo_type != "model":
        words += ["--repo-type", repo_type]
    if revision and revision != "main":
        words += ["--revision", revision]
    for pattern in patterns:
        words += ["--include", pattern]
    words += ["--local-dir", local_dir]
    where = endpoint(hub_endpoint)
    prefix = f"HF_ENDPOINT={shlex.quote(where)} " if where != DEFAULT_ENDPOINT else ""
    return prefix + " ".join(shlex.quote(w) for w in words)


def checkpoint_kwargs(pretrained: str, revision: Optional[str], model: str) -> dict[str, Any]:
    """Check that a checkpoint can be loaded, before any heavy import; returns extra `from_pretrained` kwargs.

    A local folder needs nothing. A hub id is asked of the hub once (`resolve_commit`): reachable, nothing
    changes; unreachable with a copy in the HF cache, `{"local_files_only": True}` (no retry loop); otherwise
    ModelLoadError (exit 3) in one line naming the checkpoint, the cause seen and `pretrained=/path`.
    """
    path = Path(pretrained).expanduser()
    if path.exists():
        return {}
    what = f"model '{model}': cannot load checkpoint '{pretrained}'"
    if not is_hub_id(pretrained):
        raise ModelLoadError(
            f"{what}: no such folder, and not a hub id (owner/name); pass --model_args pretrained=/path/to/folder"
        )
    hub = huggingface_hub()
    rev = revision or "main"
    cached = isinstance(hub.try_to_load_from_cache(pretrained, "config.json", revision=rev), str)
    fix = (
        f"download it where the hub is reachable (`{download_command(pretrained, 'model', rev, [], 'DIR')}`) "
        "and pass --model_args pretrained=DIR"
    )
    if is_offline():
        if cached:
            return {}
        raise ModelLoadError(
            f"{what}: HF_HUB_OFFLINE=1 is set and the HF cache ({cache_dir()}) does not hold it; {fix}"
        )
    try:
        resolve_commit(pretrained, "model", rev)
    except HubRefused as exc:
        raise ModelLoadError(f"{what}: {exc}; or pass --model_args pretrained=/path/to/folder") from None
    except HubUnreachable as exc:
        if cached:
            log.warning("model '%s': %s; loading the copy of '%s' in the HF cache", model, exc, pretrained)
            return {"local_files_only": True}
        raise ModelLoadError(
            f"{what}: {exc} and the HF cache ({cache_dir()}) does not hold it; {fix}"
        ) from None
    return {}
