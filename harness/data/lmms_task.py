"""A task in lm-eval / lmms-eval's format at run time: lmms-eval's document functions, called as lmms-eval 0.7.3
calls them (its `api/task.py` and `evaluator.py`), so the same model outputs give the same metric values.

- `lmms_eval_specific_kwargs` for the run's model (`harness/data/lmms_messages.py`: the model family's entry, else
  `default` merged in); `model_specific_generation_kwargs` / `model_specific_target_kwargs` likewise.
- `doc_to_messages(doc[, lmms_eval_specific_kwargs=])` when the task declares it: its chat messages (text, image
  and video items; a video with `video_start`/`video_end` becomes a clip); else lmms-eval's fallback, one user
  turn of `doc_to_visual` then `doc_to_text`.
- `doc_to_visual(doc[, lmms_eval_specific_kwargs])` -> list of video paths (absolute paths are the task's own
  responsibility), image paths, PIL images or video dicts; a field name instead reads `[doc[field]]` (root rule).
- `doc_to_text(doc, lmms_eval_specific_kwargs)` (the kwargs only when the config has them); a field name reads
  `doc[field]`; any other string is a Jinja2 template of the doc.
- `doc_to_target(doc[, target kwargs])`, a field name, a template (a `[...]` result read as a literal list), an
  int or a list; with `doc_to_choice`, an index into the choices (as lmms-eval's default scoring reads it).
- `process_results(doc, [stripped reply])` -> {metric: per-sample value of any kind}; a metric_list metric it
  does not return for a document is not applicable to that document (not in its n, CI or aggregation), as in
  lmms-eval. Without it each metric in `metric_list` is `exact_match` (lm-eval's, with the entry's kwargs such
  as `ignore_case`; any target of a list) or a registered metric (`bleu4`, `cider_d`, ...) over
  `[reply, target]` pairs, also when no aggregation is given.
- `filter_list`: the reply goes through each filter pipeline first (harness/data/filters.py, filtered.py).
- an aggregation `!function` is called once on all per-sample values, with `args=` (lmms-eval's command-line
  namespace: `output_path`, `tasks`, `model`, ...) when it takes that parameter.
- `description` (a Jinja2 template of the doc) is put before the prompt text, as lmms-eval does.
- `cluster_key` (the bootstrap's cluster) is a doc field, or a key of process_results' per-sample dicts.
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import numpy as np
from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from harness.config.filter_list import split_metric_key
from harness.config.schema import MetricConfig
from harness.config.yaml_files import FUNCTION_TAG
from harness.contract.hooks import LMMS_HOOKS, HookContract, check_hook, check_return
from harness.contract.messages import ImagePart, Message, Response, TextPart, VideoPart
from harness.data import lmms_messages as lm
from harness.data.media import Segment, VideoRef
from harness.data.task import Parsed, Task
from harness.errors import ConfigError, DataError
from harness.plugins.references import load_hook
from harness.scoring.aggregations import Aggregator, resolve_aggregation

_LM_EVAL_JINJA = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True)


class LmmsTask(Task):
    """A Task whose config carries an `lmms` section (see harness/config/lmms.py)."""

    @property
    def lmms(self):
        return self.config.lmms

    def _fn(self, key: str) -> Optional[Any]:
        """The lmms function `key` when the config names one by `!function` (checked against its contract, as
        this task calls it), else None."""
        value = getattr(self.lmms, key)
        if isinstance(value, dict) and FUNCTION_TAG in value:
            hook_name = f"lmms:{key}"
            if hook_name not in self._hooks:
                ref = value[FUNCTION_TAG]
                fn = load_hook(ref, self.base_dir, f"{self.where()} field '{key}'")
                self._hooks[hook_name] = check_hook(fn, self._contract(key, fn), self.where(), ref)
            return self._hooks[hook_name]
        return None

    def _contract(self, key: str, fn: Any) -> HookContract:
        """`key`'s contract with the arguments this task passes (lmms-eval's rule): doc_to_text gets the
        lmms_eval_specific_kwargs when the YAML has them, doc_to_target the target kwargs when it has them,
        doc_to_visual the kwargs when it has them and declares two parameters (doc_to_messages: as a keyword, when
        it takes them: lm.takes_specific_kwargs); each otherwise the doc alone."""
        contract = LMMS_HOOKS[key]
        given = {"doc_to_text": self.lmms.specific_kwargs, "doc_to_target": self.lmms.target_kwargs_by_model}
        if key in given:
            return replace(contract, arities=(2,) if given[key] is not None else (1,))
        if key in ("doc_to_visual", "doc_to_messages"):
            takes = lm.parameter_count(fn) == 2 if key == "doc_to_visual" else lm.takes_specific_kwargs(fn)
            two = self.lmms.specific_kwargs is not None and takes
            return replace(contract, arities=(2,) if two else (1,))
        return contract

    def check_hooks(self) -> None:
        """As Task's, and each `!function` of the lmms section held to the call this task makes."""
        super().check_hooks()
        for key in LMMS_HOOKS:
            if hasattr(self.lmms, key):
                self._fn(key)

    def _returned(self, value: Any, key: str, doc: dict, expected: str, ok: bool) -> Any:
        """`value` when `ok`: HookContractError naming the task, the doc and the function otherwise."""
        return check_return(value, key, f"{self.where()} doc '{doc.get('doc_id')}'", expected, ok)

    def resolve_aggregations(self, registry: Any = None) -> None:
        """As Task's; without process_results, a metric_list entry naming a registered metric and no
        aggregation is that metric over [reply, target] pairs (lm-eval's registered-metric path)."""
        super().resolve_aggregations(registry)
        if self.lmms.process_results is not None or registry is None:
            return
        for m in self.config.metrics:
            base = split_metric_key(m.name)[0]
            if m.aggregation == "mean" and base != "exact_match" and registry.has("metric", base):
                self.aggregators[m.name] = resolve_aggregation(base, registry, self.base_dir, m.name)

    def aggregator(self, metric: MetricConfig) -> Aggregator:
        """As Task's, with lmms-eval's `args` for a task function that takes them."""
        agg = super().aggregator(metric)
        agg.args = self.lmms_args()
        return agg

    def lmms_args(self) -> argparse.Namespace:
        """What lmms-eval passes as `args` (its command-line namespace) to aggregations that take it."""
        out = str(self.output_dir) if self.output_dir is not None else None
        model = self.model_names[0] if self.model_names else None
        return argparse.Namespace(
            output_path=out, tasks=self.name, model=model, limit=None, log_samples=True, log_samples_suffix=""
        )

    def specific_kwargs(self) -> Optional[dict]:
        """lmms_eval_specific_kwargs for the run's model (lmms-eval's rule; see lmms_messages.for_model). One
        dict per run (a task is rebuilt for each run context), passed to every call as lmms-eval does (a
        function that edits it sees its own edits)."""
        return self._specific_kwargs

    @functools.cached_property
    def _specific_kwargs(self) -> Optional[dict]:
        return lm.for_model(self.lmms.specific_kwargs, self.model_names)

    def generation_kwargs(self) -> dict[str, Any]:
        """generation_kwargs updated with model_specific_generation_kwargs for the run's model."""
        gen = dict(self.config.generation)
        gen.update(lm.entry_for_model(self.lmms.generation_kwargs_by_model, self.model_names, {}) or {})
        return gen

    def _template(self, text: str, doc: dict) -> str:
        """lm-eval's `apply_template`: the doc's fields rendered as they are (no stripping, trailing newline
        kept), in Jinja2's sandbox like every template of the harness."""
        try:
            return _LM_EVAL_JINJA.from_string(text).render(**doc)
        except TemplateError as exc:
            raise ConfigError(f"task '{self.name}': template {text!r}: {type(exc).__name__}: {exc}") from exc

    # -- requests ----------------------------------------------------------------------------------
    def render_prompt(self, doc: dict) -> str:
        fn, value = self._fn("doc_to_text"), self.lmms.doc_to_text
        kwargs = self.specific_kwargs()
        if fn is not None:
            text = fn(doc, kwargs) if kwargs is not None else fn(doc)
            self._returned(text, "doc_to_text", doc, "str", isinstance(text, str))
        elif isinstance(value, str) and value in doc:
            text = doc[value]
        elif isinstance(value, str):
            text = self._template(value, doc)
        else:
            text = "" if value is None else str(value)
        description = self._template(self.lmms.description, doc) if self.lmms.description else ""
        return f"{description}{text}"

    def visuals(self, doc: dict) -> list:
        fn, value = self._fn("doc_to_visual"), self.lmms.doc_to_visual
        if fn is not None:
            kwargs = self.specific_kwargs()
            two = kwargs is not None and lm.parameter_count(fn) == 2  # read once per function
            got = fn(doc, kwargs) if two else fn(doc)
            ok = got is None or (isinstance(got, Sequence) and not isinstance(got, (str, bytes)))
            return list(self._returned(got, "doc_to_visual", doc, "a list of visuals", ok) or [])
        if isinstance(value, str):
            return [doc[value]]
        return []

    def build_messages(
        self, doc: dict, budget: Optional[Callable[[int], Optional[int]]] = None
    ) -> list[Message]:
        """doc_to_messages' turns when the task declares it, else lmms-eval's fallback: one user turn of the
        visual parts (in doc_to_visual's order) then the prompt text. `budget` caps nothing here: lmms-eval's
        visuals carry no frame spec of their own, so they are decoded under the task's effective spec."""
        fn = self._fn("doc_to_messages")
        if fn is None:
            parts = [self._part(v, doc) for v in self.visuals(doc)]
            return [Message("user", [*parts, TextPart(self.render_prompt(doc))])]
        raw = lm.call_with_kwargs(fn, doc, self.specific_kwargs())
        self._returned(raw, "doc_to_messages", doc, "a list of messages", isinstance(raw, list))
        return [
            Message(role, [TextPart(str(v)) if kind == "text" else self._part(v, doc, kind) for kind, v in items])
            for role, items in lm.turns(raw, f"task '{self.name}' doc '{doc['doc_id']}'")
        ]

    def _part(self, visual: Any, doc: dict, kind: Optional[str] = None) -> Any:
        """One visual (a path, a PIL image or lmms-eval's video dict) as a message part."""
        what = f"task '{self.name}' doc '{doc['doc_id']}'"
        kind = kind or lm.visual_kind(visual)
        if kind == "image" and hasattr(visual, "convert"):  # a PIL image
            return ImagePart(np.asarray(visual.convert("RGB")))
        clip = None
        if isinstance(visual, dict) and kind == "video":
            visual, clip = lm.video_clip(visual)
        if kind not in ("image", "video") or not isinstance(visual, (str, Path)):
            raise DataError(
                f"{what}: doc_to_visual returned a {kind} ({type(visual).__name__}); the harness takes video "
                "or image paths, PIL images and video dicts"
            )
        path = self._visual_path(str(visual), doc)
        if kind == "image" or path.suffix.lower() in lm.IMAGE_EXTS:
            return ImagePart(_read_image(path))
        segments = None
        if clip is not None:
            segments = (Segment(start=clip[0], end=clip[1], unit="second"),)
        return VideoPart(ref=VideoRef(path=str(path), segments=segments))

    def _visual_path(self, value: str, doc: dict) -> Path:
        """A visual's path: absolute ones a function returned are the task's responsibility; the rest keep the
        root rule (relative to the dataset folder)."""
        from_hook = self._fn("doc_to_visual") is not None or self._fn("doc_to_messages") is not None
        if from_hook and Path(value).is_absolute():
            return Path(value)
        root = self.data_root or self.base_dir
        root = root.parent if root.is_file() else root
        return Path(self._media_path(root, value, doc, from_hook))

    # -- targets and scoring -----------------------------------------------------------------------
    def target(self, doc: dict) -> Any:
        fn, value = self._fn("doc_to_target"), self.lmms.doc_to_target
        if fn is not None:
            table = self.lmms.target_kwargs_by_model
            kwargs = lm.entry_for_model(table, self.model_names, None) if table is not None else None
            return fn(doc, kwargs) if kwargs is not None else fn(doc)
        if isinstance(value, str):
            if value in doc:
                return doc[value]
            text = self._template(value, doc)
            if text.isdigit() and self.lmms.doc_to_choice is not None:
                return int(text)
            if len(text) >= 2 and text[0] == "[" and text[-1] == "]":
                try:
                    return ast.literal_eval(text)
                except (SyntaxError, ValueError):
                    return text
            return text
        return value

    def choices(self, doc: dict) -> Optional[list]:
        """doc_to_choice's list (a field, a template of a list literal, a list, a dict's values, a function)."""
        fn, value = self._fn("doc_to_choice"), self.lmms.doc_to_choice
        if fn is not None:
            got = fn(doc)
            ok = isinstance(got, Sequence) and not isinstance(got, (str, bytes))
            return list(self._returned(got, "doc_to_choice", doc, "a list of choices", ok))
        if isinstance(value, str):
            return list(doc[value]) if value in doc else list(ast.literal_eval(self._template(value, doc)))
        if isinstance(value, dict):
            return list(value.values())
        return list(value) if value is not None else None

    def parse(self, response: Response, doc: dict, judge: Any = None) -> Parsed:
        """The reply stripped (lmms-eval strips it before process_results); an empty reply is invalid but
        still scored by process_results."""
        text = (response.text or "").strip()
        return Parsed(answer=text, valid=bool(text), note=None if text else "empty reply")

    @property
    def per_document_metrics(self) -> bool:
        """Whether a document may return only some of the task's metrics (lmms-eval's `process_results`: a
        metric a document does not return is not applicable to it, left out of that metric's n, CI and
        aggregation)."""
        return self.lmms.process_results is not None

    def score(self, parsed: Parsed, target: Any, doc: dict) -> dict[str, Any]:
        """lmms-eval's scores of one (filtered) reply, under the metrics' own names (harness/data/filtered.py
        keys them by filter pipeline): process_results' dict as it is, limited to metric_list; else each
        metric_list metric over the reply and the target."""
        answer = parsed.answer if isinstance(parsed.answer, str) else ""
        names = {split_metric_key(m.name)[0]: m for m in self.config.metrics}
        fn = self._fn("process_results")
        if fn is not None:
            got = fn(doc, [answer])
            scores = dict(self._returned(got, "process_results", doc, "dict[str, Any]", isinstance(got, Mapping)))
            self._copy_cluster(scores, doc)
            return {k: v for k, v in scores.items() if k in names}  # lmms-eval aggregates metric_list only
        choices = self.choices(doc)
        if choices is not None and isinstance(target, int):  # lmms-eval: gold = choices[gold]
            target = choices[target]
        gold = target if isinstance(target, list) else [target]  # lm-eval passes references as a list
        scores: dict[str, Any] = {}
        for name, m in names.items():
            if self.aggregator(m).corpus:
                scores[name] = [answer, gold]
            elif name == "exact_match":
                scores[name] = max(exact_match([answer], [str(g)], **m.kwargs) for g in gold) if gold else 0.0
        return scores

    def _copy_cluster(self, scores: dict, doc: dict) -> None:
        """lmms-eval's `cluster_key` names a field of process_results' per-sample dicts (e.g. videoID): when
        the doc lacks it, the value is copied into the (logged) doc, where the bootstrap reads clusters."""
        key = self.config.cluster_field
        if not key or key in doc:
            return
        for value in scores.values():
            if isinstance(value, dict) and key in value:
                doc[key] = value[key]
                return


def exact_match(
    predictions: list,
    references: list,
    regexes_to_ignore: Optional[list[str]] = None,
    ignore_case: bool = False,
    ignore_punctuation: bool = False,
    ignore_numbers: bool = False,
) -> float:
    """lm-eval's `exact_match` (HF evaluate's, lmms_eval.api.metrics.exact_match_hf_evaluate) with its kwargs,
    as a metric_list entry passes them."""
    preds, refs = np.asarray(predictions), np.asarray(references)
    for pattern in regexes_to_ignore or []:
        preds = np.array([re.sub(pattern, "", x) for x in preds])
        refs = np.array([re.sub(pattern, "", x) for x in refs])
    if ignore_case:
        preds, refs = np.char.lower(preds), np.char.lower(refs)
    for flag, chars in ((ignore_punctuation, string.punctuation), (ignore_numbers, string.digits)):
        if flag:
            table = chars.maketrans("", "", chars)
            preds, refs = np.char.translate(preds, table=table), np.char.translate(refs, table=table)
    return float(np.mean(preds == refs))


def _read_image(path: Path) -> np.ndarray:
    from PIL import Image  # noqa: PLC0415

    try:
        with Image.open(path) as img:
            return np.asarray(img.convert("RGB"))
    except OSError as exc:
        raise DataError(f"cannot read image {path}: {exc}") from exc
