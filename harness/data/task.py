"""A task at run time: its config plus resolved hooks; loads docs, builds requests, parses and scores.

Every hook is optional; its contract (argument and return types) is the Protocol of its field in
harness/contract/hooks.py, checked when the task is built (every reference resolved and its signature checked,
before any data or model is loaded) and on every value a hook returns where that value is used.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from harness.config.schema import MetricConfig, TaskConfig
from harness.contract.hooks import (
    HOOKS,
    Parsed,
    answer_space_value,
    check_hook,
    check_return,
    contract_of,
    default_parse,
    default_score,
    oracle_reply,
    with_judge,
)
from harness.contract.messages import Message, Response, TextPart, VideoPart
from harness.data import hf_datasets as hf_data
from harness.data import hook_refs
from harness.data.archives import is_unpacked
from harness.data.fetch import FetchedRelease, fetch_release
from harness.data.filters import FilterPipeline, build_pipelines
from harness.data.local_split import read_local_split
from harness.data.media import (  # noqa: F401 - MediaPathError, safe_media_path re-exported
    MediaPathError,
    VideoRef,
    confine_absolute,
    external_symlinks_allowed,
    resolve_media_path,
    safe_media_path,
)
from harness.data.run_context import LoadedSplit, RunContext, checked_rows
from harness.data.templates import render
from harness.errors import ConfigError, DataError, UnsuitableModelError
from harness.plugins.references import hook_file, load_hook
from harness.scoring.aggregations import Aggregator, resolve_aggregation

log = logging.getLogger("harness.data.task")


class Task:
    """A configured task, immutable once built: its config, the folder of its YAML (`base_dir`: templates and
    file hooks live there), its data (`--data`), cache dir and run context are given when it is built, and a
    loaded split (`with_split`) or a new run context (`with_run`) makes a new task. Setting an attribute of a
    built task raises AttributeError."""

    def __init__(
        self,
        config: TaskConfig,
        base_dir: Path,
        plugin: str = "",
        plugin_version: str = "",
        *,
        config_path: Optional[Path] = None,
        data: Optional[Path] = None,
        cache_dir: Optional[Path] = None,
        run: RunContext = RunContext(),
        split: Optional[LoadedSplit] = None,
    ):
        self.config = config
        self.name = config.task
        self.base_dir = Path(base_dir)
        self.plugin, self.plugin_version = plugin, plugin_version
        #: the task's YAML file (None: only `base_dir` is known, e.g. a task built from a config in a test)
        self.config_path = Path(config_path) if config_path is not None else None
        #: `--data`: the local dataset root of the run (None: the config's source, or the hub release)
        self.data = Path(data) if data is not None else None
        #: the run's cache dir (video bytes from `datasets` rows are written under it); None: the default
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        #: what the task knows of its run (progress, data revision, the model's names, its output folder)
        self.run = run
        #: the split this task was given (`with_split`), or None before one is loaded
        self.split = split
        #: the dataset folder media paths resolve under: the loaded split's, else the one `data` names
        self.data_root: Optional[Path] = split.root if split is not None else self.resolve_root(self.data)
        #: rows the loaded split could not use, each {"reason", "detail"} (see DroppedRow)
        self.dropped: list[dict[str, str]] = list(split.dropped) if split is not None else []
        #: the hub release the docs came from when the run had no --data (recorded in the results)
        self.release: Optional[FetchedRelease] = split.release if split is not None else None
        #: folders whose absolute media paths rows may name; non-empty when rows came through `datasets`
        self.media_roots: list[Path] = list(split.media_roots) if split is not None else []
        self._hooks: dict[str, Optional[Callable]] = {}  # resolved on first use (check_hooks: all at once)
        self._checked_dirs: set[str] = set()  # dataset folders found not to be symlinks (once per task)
        #: metric name -> its resolved aggregation (see harness.scoring.aggregations); filled on first use
        self.aggregators: dict[str, Aggregator] = {}
        self._built = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_built", False):
            raise AttributeError(
                f"{self.where()} is immutable once built: '{name}' cannot be set; build the task with it "
                "(Task(..., data=, cache_dir=, run=)) or make a new one (with_split, with_run)"
            )
        super().__setattr__(name, value)

    def _rebuilt(self, split: Optional[LoadedSplit], run: RunContext) -> Task:
        """A new task of the same kind and config with this split and run context (resolved hooks and
        aggregations carried over)."""
        new = type(self)(
            self.config, self.base_dir, self.plugin, self.plugin_version, config_path=self.config_path,
            data=self.data, cache_dir=self.cache_dir, run=run, split=split,
        )  # fmt: skip
        new._hooks.update(self._hooks)
        new.aggregators.update(self.aggregators)
        return new

    def with_split(self, split: LoadedSplit) -> Task:
        """This task holding a loaded split (its root, dropped rows, release and media roots)."""
        return self._rebuilt(split, self.run)

    def with_run(self, run: RunContext) -> Task:
        """This task in another run context (e.g. with the model's names once the model is known)."""
        return self._rebuilt(self.split, run)

    @property
    def model_names(self) -> tuple[str, ...]:
        """The names the run's model goes by, most specific first (`RunContext.model_names`)."""
        return self.run.model_names

    @property
    def output_dir(self) -> Optional[Path]:
        """Where the task's own functions may write files (lmms-eval's `args.output_path`)."""
        return self.run.output_dir

    def generation_kwargs(self) -> dict[str, Any]:
        """The generation kwargs of this task's requests (before `--gen_kwargs`)."""
        return dict(self.config.generation)

    def resolve_aggregations(self, registry: Any = None) -> None:
        """Resolve every metric's aggregation now (registered aggregations and metrics need `registry`)."""
        for m in self.config.metrics:
            self.aggregators[m.name] = resolve_aggregation(
                m.aggregation, registry, self.base_dir, f"task '{self.name}' metric '{m.name}'"
            )

    def aggregator(self, metric: MetricConfig) -> Aggregator:
        """The metric's aggregation (resolved without a registry when `resolve_aggregations` did not run)."""
        if metric.name not in self.aggregators:
            self.aggregators[metric.name] = resolve_aggregation(
                metric.aggregation, None, self.base_dir, f"task '{self.name}' metric '{metric.name}'"
            )
        return self.aggregators[metric.name]

    # -- hooks ----------------------------------------------------------------------------------------
    def hook(self, name: str) -> Optional[Callable]:
        """The resolved hook `name` (`loader`, `parse`, ...), or None when the config does not set it."""
        if name not in self._hooks:
            self._hooks[name] = self._load_hook(name)
        return self._hooks[name]

    def filter_pipelines(self) -> list[FilterPipeline]:
        """The task's `filter_list` pipelines (harness/data/filters.py), built once; empty without one."""
        if "filter_list" not in self._hooks:
            spec = self.config.filter_list
            self._hooks["filter_list"] = build_pipelines(spec, self.base_dir, self._field("filter_list")) if spec else []
        return self._hooks["filter_list"]  # type: ignore[return-value]

    def _load_hook(self, name: str) -> Optional[Callable]:
        field_name = "dataset.loader" if name == "loader" else f"hooks.{name}"
        ref = self.config.dataset.loader if name == "loader" else getattr(self.config.hooks, name, None)
        if not ref:
            return None
        hook = check_hook(load_hook(ref, self.base_dir, self._field(field_name)), HOOKS[field_name], self.where(), ref)
        return with_judge(hook) if name == "parse" else hook

    def check_hooks(self) -> None:
        """Resolve every hook reference of the config (`harness.data.hook_refs`) and check it against its contract
        (`harness.contract.hooks.contract_of`): HookContractError or ConfigError (exit 2) naming the task, the
        field and the reference, when the task is built, before any data or model is loaded. File references are
        checked for confinement first."""
        self.check_references()
        for field_name, ref in self.references():
            if field_name == "dataset.loader" or field_name.startswith("hooks."):
                self.hook("loader" if field_name == "dataset.loader" else field_name[len("hooks.") :])
            elif (contract := contract_of(field_name)) is not None:  # lmms-eval's keys named as in its YAML
                shown = contract.field if field_name.startswith("lmms.") else field_name
                fn = load_hook(ref, self.base_dir, self._field(shown))
                check_hook(fn, contract, self.where(), ref, shown)

    def hook_failure(self, name: str, exc: BaseException) -> str:
        """"the parse hook 'REF' raised TypeError: ..." (the task's default parser / scorer without a hook): how
        a per-sample message names the hook an exception came from, once."""
        ref = getattr(self.config.hooks, name, None)
        who = f"the {name} hook '{ref}'" if ref else f"the default {name}"
        return f"{who} raised {type(exc).__name__}: {exc}"

    def where(self) -> str:
        """"task 'NAME' (its YAML file, else its folder)": how messages name the task."""
        return f"task '{self.name}' ({self.config_path or self.base_dir})"

    def _field(self, field_name: str) -> str:
        return f"{self.where()} field '{field_name}'"

    def references(self) -> list[tuple[str, str]]:
        """(field, reference) for every hook reference of the config (harness/data/hook_refs.py)."""
        return hook_refs.references(self.config)

    def check_references(self) -> None:
        """ConfigError (exit 2, before any data or model is loaded) for a hook file outside the task folder."""
        for field_name, ref in self.references():
            hook_file(ref, self.base_dir, self._field(field_name))

    # -- data --------------------------------------------------------------------------------------
    def resolve_root(self, data_dir: Optional[Path]) -> Optional[Path]:
        """The dataset folder: `--data DIR` (its `data_key` sub-folder when present), else the config's source."""
        ds = self.config.dataset
        if data_dir is not None:
            data_dir = Path(data_dir)
            if ds.data_key and (data_dir / ds.data_key).is_dir():
                return data_dir / ds.data_key
            return data_dir
        if ds.source and not hf_data.is_hub_source(ds, self.base_dir):
            src = Path(ds.source).expanduser()
            return src if src.is_absolute() else (self.base_dir / src)
        return None

    def load_docs(self, data_dir: Optional[Path] = None, split: Optional[str] = None) -> list[dict]:
        """Every doc of the split, each with a string `doc_id` (`load_split(...).docs`)."""
        return self.load_split(data_dir, split).docs

    def load_split(self, data_dir: Optional[Path] = None, split: Optional[str] = None) -> LoadedSplit:
        """The split (default: the config's) under `data_dir` (default: the task's `data`), with the rows the
        loader could not use; the task itself is unchanged (`with_split` makes the task that holds it)."""
        ds = self.config.dataset
        split = split or ds.split
        data_dir = self.data if data_dir is None else data_dir
        release = None
        if data_dir is None and ds.hub is not None and not ds.source:
            release = self._fetch_release(split)
            data_dir = release.path
        root = self.resolve_root(data_dir)
        if root is not None and not root.exists():
            hint = ds.build_hint or "point --data at a dataset folder"
            raise DataError(f"task '{self.name}': dataset folder {root} does not exist; {hint}")
        media: tuple[Path, ...] = ()
        if root is None and not ds.source:  # a loader hook too would get no folder to read (root=None)
            hint = f"; {ds.build_hint}" if ds.build_hint else ""
            raise DataError(
                f"task '{self.name}': no dataset given: pass --data DIR (a local dataset root){hint}"
            )
        loader = self.hook("loader")
        if loader is not None:
            docs = list(loader(root, split, dict(ds.options)))
        elif root is not None:
            docs, media = self._read_root(root, split)
        else:
            docs, media = self._load_datasets(None, split)
        out, dropped = checked_rows(docs, split, self.name, self.config.doc_id)
        return LoadedSplit(out, dropped, root, release, media)

    def _fetch_release(self, split: str) -> FetchedRelease:
        """The task's release from the hub into the HF cache (harness/data/fetch.py); its snapshot is the root.
        A task holding a release already (the evaluated split) fetches the same commit, and the two merge."""
        ds = self.config.dataset
        revision = self.run.data_revision or (self.release.commit if self.release else None)
        got = fetch_release(
            ds.hub, self.name, split, ds.data_key, dict(ds.options), revision, self.run.progress,
            base_dir=self.base_dir,
        )
        return got if self.release is None else self.release.merged(got)

    def _read_root(self, root: Path, split: str) -> tuple[list, tuple[Path, ...]]:
        """A local dataset folder or file: `{split}.jsonl` / `.json`, or anything `datasets` reads (parquet,
        csv, saved). A task in lmms-eval's format always reads through `datasets`, so its docs (and what its
        `process_docs` receives) are the rows lmms-eval gets. With the rows: the media roots of `datasets`."""
        ds = self.config.dataset
        if self.config.lmms is not None:
            return self._load_datasets(root, split)
        if root.is_file() and root.suffix.lower() in (".jsonl", ".json"):
            return read_local_split(root.parent, root.stem, self.name, [root.name]), ()
        native = root.is_dir() and any(
            (root / f"{p}{split}.{x}").exists() for p in ("", "data/") for x in ("jsonl", "json")
        )
        builder = bool(ds.data_files) and ds.source in hf_data.PACKAGED  # e.g. json + data_files
        if builder or (not native and hf_data.is_datasets_path(root, ds)):
            return self._load_datasets(root, split)
        return read_local_split(root, split, self.name), ()

    def _load_datasets(self, root: Optional[Path], split: str) -> tuple[list, tuple[Path, ...]]:
        """Rows through HF `datasets` (harness/data/hf_datasets.py), and the folders their media may live in (the
        media cache)."""
        ds, media = self.config.dataset, self.config.media_field
        revision = self.run.data_revision
        if revision and root is None and hf_data.is_hub_source(ds, self.base_dir):
            ds = ds.model_copy(update={"revision": revision})
        rows = hf_data.load_rows(ds, split, self.name, self.base_dir, root, media, self.cache_dir)
        return rows, tuple(hf_data.media_roots(self.cache_dir))

    # -- requests ----------------------------------------------------------------------------------
    def render_prompt(self, doc: dict) -> str:
        p = self.config.prompt
        if not p.template and p.text is None:
            return str(doc.get("question", ""))
        return _render_row(self.base_dir, p.template, p.text, doc, f"task '{self.name}'")

    def build_messages(
        self, doc: dict, budget: Optional[Callable[[int], Optional[int]]] = None
    ) -> list[Message]:
        """Chat messages for one doc; video parts hold VideoRefs whose paths are checked against the root.

        `budget(n_videos)`: the frames allowed per clip (the model's `max_frames` split over the clips), applied
        to a clip's own frame spec in the same pass that resolves its path."""
        hook = self.hook("build_request")
        if hook is not None:
            messages = hook(doc, self)
        else:
            parts: list = []
            field_name = self.config.media_field
            if field_name and doc.get(field_name):
                fps = doc.get("fps")  # a frame-folder video's rate from the row (files keep their own)
                fps = (
                    float(fps)
                    if isinstance(fps, (int, float)) and not isinstance(fps, bool) and fps > 0
                    else None
                )
                parts.append(VideoPart(ref=VideoRef(path=str(doc[field_name]), fps=fps)))
            parts.append(TextPart(self.render_prompt(doc)))
            messages = [Message("user", parts)]
            if self.config.prompt.system:
                system = _render_row(self.base_dir, None, self.config.prompt.system, doc, self.name)
                messages.insert(0, Message("system", [TextPart(system)]))
        root = self.data_root or self.base_dir
        root = root.parent if root.is_file() else root
        n_videos = sum(isinstance(p, VideoPart) for m in messages for p in m.content)
        per_clip = budget(n_videos) if budget is not None else None
        for m in messages:
            for i, part in enumerate(m.content):
                if isinstance(part, VideoPart):
                    full = self._media_path(root, part.ref.path, doc, from_hook=hook is not None)
                    m.content[i] = VideoPart(
                        ref=part.ref.model_copy(update={"path": full}),
                        label=part.ref.label or part.label,
                        spec=part.spec.capped(per_clip) if part.spec is not None else None,
                    )
        return messages

    def _media_path(self, root: Path, path: str, doc: dict, from_hook: bool) -> str:
        """A video path checked by the root rule. Absolute paths are kept when they point into media a
        `datasets` dataset provided (`media_roots`) or into an archive the harness unpacked, or (a hook built
        them) resolve inside the dataset folder; any other only with the opt-in `--allow_external_symlinks`."""
        what = f"task '{self.name}' doc '{doc['doc_id']}'"
        if os.path.isabs(path) and (
            any(Path(path).resolve().is_relative_to(r) for r in self.media_roots)
            or is_unpacked(path)  # a file of a release's archive, unpacked by the harness into its cache
        ):
            return path
        if os.path.isabs(path) and from_hook:  # e.g. a virtual clip's source: inside the dataset folder only
            return confine_absolute(root, path, what)
        if os.path.isabs(path) and self.media_roots:  # the rows came through `datasets`
            if external_symlinks_allowed():
                return path
            raise MediaPathError(
                f"{what}: media path '{path}' is absolute and outside the datasets caches "
                f"({', '.join(str(r) for r in self.media_roots)}); write it relative to the dataset folder (a "
                "`datasets.Video` path inside the dataset folder is taken as relative), or rerun with "
                "--allow_external_symlinks if you trust it (its frames are sent to the model, which for an API "
                "model means a third party; see docs/reliability.md)"
            )
        return resolve_media_path(root, path, what, self._checked_dirs)

    def target(self, doc: dict) -> Any:
        hook = self.hook("target")
        if hook is not None:
            return hook(doc)
        return doc.get(self.config.target_field) if self.config.target_field else None

    def oracle_answer(self, doc: dict, target: Any) -> str | dict[str, Any]:
        """The oracle's reply: text, or {"text", "structured"} (HookContractError when the hook returns else)."""
        hook = self.hook("oracle_answer")
        if hook is None:
            return target if isinstance(target, str) else json.dumps(target)
        value = hook(doc, target)
        oracle_reply(value, f"{self.where()} doc '{doc.get('doc_id')}'")
        return value

    def answer_space(self, docs: list[dict]) -> Optional[list[str] | dict[str, list[str]]]:
        """The `random` baseline's answers: a list, or a dict of lists keyed by the prior key's values."""
        hook = self.hook("answer_space")
        if hook is not None:
            return answer_space_value(hook(docs), self.where())
        if self.config.answer_space:
            return list(self.config.answer_space)
        values = sorted({str(self.target(d)) for d in docs if self.target(d) is not None})
        return values or None

    def prior_table(self, data_dir: Optional[Path]) -> dict[str, str]:
        """Most frequent target per prior key in the TRAINING split (never the evaluated one).

        UnsuitableModelError (exit 2) when there is no training row to learn from: the task configures no
        train split (a test-only benchmark), or its train split is missing or empty in the data."""
        train = self.config.dataset.train_split
        instead = "use --model random for the chance level"
        if not train:
            raise UnsuitableModelError(
                f"task '{self.name}' has no training split (dataset.train_split is not set: the benchmark is "
                f"test-only), so the 'prior' baseline has nothing to learn from; {instead}",
                self.name,
            )
        try:
            docs = self.load_split(data_dir, split=train).docs  # the task (its evaluated split) is unchanged
        except (DataError, OSError) as exc:
            raise UnsuitableModelError(
                f"the 'prior' baseline needs the training split '{train}' of task '{self.name}', which did "
                f"not load ({exc}); {instead}",
                self.name,
            ) from exc
        if not docs:
            root = self.resolve_root(self.data if data_dir is None else data_dir)
            where = f" under {root}" if root else ""
            raise UnsuitableModelError(
                f"task '{self.name}': its training split '{train}'{where} has no rows, so the 'prior' baseline "
                f"would answer every sample with an empty string; add a '{train}' split to the dataset (the "
                f"benchmark's builder makes one: `python -m harness build --help`), or {instead}",
                self.name,
            )
        key = self.config.prior_key
        counts: dict[str, Counter] = {}
        for d in docs:
            k = str(d.get(key, "")) if key else ""
            reply = oracle_reply(self.oracle_answer(d, self.target(d)), f"{self.where()} doc '{d['doc_id']}'")
            counts.setdefault(k, Counter())[reply["text"]] += 1
        return {k: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for k, c in counts.items()}

    # -- scoring -----------------------------------------------------------------------------------
    def parse(self, response: Response, doc: dict, judge: Any = None) -> Parsed:
        """The parse hook's Parsed for a reply (HookContractError when it returns anything else)."""
        hook = self.hook("parse")
        if hook is None:
            return default_parse(response, doc)
        parsed = hook(response, doc, judge)
        what = f"{self.where()} doc '{doc.get('doc_id')}'"
        return check_return(parsed, "parse", what, "harness.api.Parsed", isinstance(parsed, Parsed))

    def prepare_scoring(self, records: list[dict]) -> None:
        """Hand every answer about to be scored to the task's `prepare_scoring` hook, once, before the per-sample
        `score` calls: batch work those calls then reuse (RVTBench tokenizes every reply in one process).

        `records` are samples-file records (`raw`, `structured`, `doc`, `target`) in doc order; scores never
        depend on this step, so a hook that raises only costs speed: logged, and scoring goes on per sample."""
        hook = self.hook("prepare_scoring")
        if hook is None or not records:
            return
        try:
            hook(records)
        except Exception as exc:  # the per-sample score calls still give every score, only slower
            what = f"{type(exc).__name__}: {exc}"
            log.warning("task '%s': the prepare_scoring hook raised %s; scoring per sample", self.name, what)

    def score(self, parsed: Parsed, target: Any, doc: dict) -> dict[str, Any]:
        """Per-sample scores; a corpus metric the scorer leaves out gets the item `[answer, target]`
        (answer "" when invalid), which its aggregation (e.g. a registered metric) consumes."""
        hook = self.hook("score")
        scores = hook(parsed, target, doc) if hook is not None else default_score(parsed, target, doc)
        what = f"{self.where()} doc '{doc.get('doc_id')}'"
        check_return(scores, "score", what, "dict[str, float | None]", isinstance(scores, dict))
        for m in self.config.metrics:
            if m.name not in scores and self.aggregator(m).corpus:
                scores = {**scores, m.name: [parsed.answer if parsed.valid else "", target]}
        return scores

    def logged_doc(self, doc: dict) -> dict:
        fields = self.config.log_doc_fields
        return doc if fields is None else {k: doc.get(k) for k in ["doc_id", *fields]}


class RowFieldError(ValueError):
    """A row lacks a field its task's template uses: one counted per-sample `request` error, not a
    configuration error (a template that does not parse or is missing stays a ConfigError)."""


def _render_row(base_dir: Path, template: Optional[str], text: Optional[str], doc: dict, what: str) -> str:
    from jinja2 import UndefinedError

    try:
        return render(base_dir, template, text, {"doc": doc, **doc}, what)
    except ConfigError as exc:
        if isinstance(exc.__cause__, UndefinedError):
            raise RowFieldError(f"{what} doc '{doc.get('doc_id')}': {exc.__cause__}") from None
        raise ConfigError(f"{exc} (rendering doc '{doc.get('doc_id')}')") from exc.__cause__
