"""A task in lm-eval / lmms-eval's format at run time: lmms-eval's document functions, called as lmms-eval calls
them (its `api/task.py`), so the same model outputs give the same metric values.

- `doc_to_visual(doc[, lmms_eval_specific_kwargs])` -> list of video paths (absolute paths are the task's own
  responsibility), image paths or PIL images; a field name instead reads `[doc[field]]` (root rule).
- `doc_to_text(doc, lmms_eval_specific_kwargs)` (the kwargs only when the config has them, `default` merged
  in); a field name reads `doc[field]`; any other string is a Jinja2 template of the doc.
- `doc_to_target(doc)`, a field name, a template (a `[...]` result read as a literal list), an int or a list.
- `process_results(doc, [stripped reply])` -> {metric: per-sample value}; without it each metric in
  `metric_list` is `exact_match` (reply == target, or any target of a list) or a registered metric
  (`bleu4`, `cider_d`, ...) over `[reply, target]` pairs, also when no aggregation is given.
- `description` (a Jinja2 template of the doc) is put before the prompt text, as lmms-eval does.
- `cluster_key` (the bootstrap's cluster) is a doc field, or a key of process_results' per-sample dicts.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any, Optional

import numpy as np
from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from harness.config.index import FUNCTION_TAG
from harness.contract.messages import ImagePart, Message, Response, TextPart, VideoPart
from harness.data.task import Parsed, Task
from harness.errors import ConfigError, DataError
from harness.scoring.aggregations import resolve_aggregation

_LM_EVAL_JINJA = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True)
_IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tiff", ".webp"}


class LmmsTask(Task):
    """A Task whose config carries an `lmms` section (see harness/config/lmms.py)."""

    @property
    def lmms(self):
        return self.config.lmms

    def _fn(self, key: str) -> Optional[Any]:
        """The lmms function `key` when the config names one by `!function`, else None."""
        value = getattr(self.lmms, key)
        if isinstance(value, dict) and FUNCTION_TAG in value:
            hook_name = f"lmms:{key}"
            if hook_name not in self._hooks:
                from harness.plugins.references import load_hook  # noqa: PLC0415

                ref = value[FUNCTION_TAG]
                self._hooks[hook_name] = load_hook(ref, self.base_dir, f"task '{self.name}' {key}")
            return self._hooks[hook_name]
        return None

    def resolve_aggregations(self, registry: Any = None) -> None:
        """As Task's; without process_results, a metric_list entry naming a registered metric and no
        aggregation is that metric over [reply, target] pairs (lm-eval's registered-metric path)."""
        super().resolve_aggregations(registry)
        if self.lmms.process_results is not None or registry is None:
            return
        for m in self.config.metrics:
            if m.aggregation == "mean" and m.name != "exact_match" and registry.has("metric", m.name):
                self.aggregators[m.name] = resolve_aggregation(m.name, registry, self.base_dir, m.name)

    def specific_kwargs(self) -> Optional[dict]:
        """lmms_eval_specific_kwargs with its `default` entries merged in (lmms-eval, no model-specific key)."""
        raw = self.lmms.specific_kwargs
        if raw is None:
            return None
        merged = dict(raw)
        merged.update(raw.get("default") or {})
        return merged

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
            two = kwargs is not None and len(inspect.signature(fn).parameters) == 2
            return list(fn(doc, kwargs) if two else fn(doc) or [])
        if isinstance(value, str):
            return [doc[value]]
        return []

    def build_messages(self, doc: dict) -> list[Message]:
        """Visual parts (in doc_to_visual's order) then the prompt text, in one user message."""
        from_hook = self._fn("doc_to_visual") is not None
        root = self.data_root or self.base_dir
        root = root.parent if root.is_file() else root
        parts: list = []
        for v in self.visuals(doc):
            if isinstance(v, (str, Path)):
                path = (
                    Path(v)
                    if from_hook and Path(v).is_absolute()
                    else Path(self._media_path(root, str(v), doc, from_hook))
                )
                if path.suffix.lower() in _IMAGE_EXTS:
                    parts.append(ImagePart(_read_image(path)))
                else:
                    from harness.data.media import VideoRef  # noqa: PLC0415

                    parts.append(VideoPart(ref=VideoRef(path=str(path))))
            elif hasattr(v, "convert"):  # a PIL image
                parts.append(ImagePart(np.asarray(v.convert("RGB"))))
            else:
                raise DataError(
                    f"task '{self.name}' doc '{doc['doc_id']}': doc_to_visual returned a "
                    f"{type(v).__name__}; expected video or image paths or PIL images"
                )
        parts.append(TextPart(self.render_prompt(doc)))
        return [Message("user", parts)]

    # -- targets and scoring -----------------------------------------------------------------------
    def target(self, doc: dict) -> Any:
        fn, value = self._fn("doc_to_target"), self.lmms.doc_to_target
        if fn is not None:
            return fn(doc)
        if isinstance(value, str):
            if value in doc:
                return doc[value]
            text = self._template(value, doc)
            if len(text) >= 2 and text[0] == "[" and text[-1] == "]":
                try:
                    return ast.literal_eval(text)
                except (SyntaxError, ValueError):
                    return text
            return text
        return value

    def parse(self, response: Response, doc: dict) -> Parsed:
        """The reply stripped (lmms-eval strips it before process_results); an empty reply is invalid but
        still scored by process_results."""
        text = (response.text or "").strip()
        return Parsed(answer=text, valid=bool(text), note=None if text else "empty reply")

    def score(self, parsed: Parsed, target: Any, doc: dict) -> dict[str, Any]:
        answer = parsed.answer if isinstance(parsed.answer, str) else ""
        fn = self._fn("process_results")
        if fn is not None:
            scores = dict(fn(doc, [answer]))
        else:
            scores = {}
            for m in self.config.metrics:
                if m.name == "exact_match" and not self.aggregator(m).corpus:
                    gold = target if isinstance(target, list) else [target]
                    scores[m.name] = float(any(answer == str(g) for g in gold))
        self._copy_cluster(scores, doc)
        names = {m.name for m in self.config.metrics}
        scores = {k: v for k, v in scores.items() if k in names}  # lmms-eval aggregates metric_list only
        gold = target if isinstance(target, list) else [target]  # lm-eval passes references as a list
        for m in self.config.metrics:
            if m.name not in scores and self.aggregator(m).corpus:
                scores[m.name] = [answer, gold]
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


def _read_image(path: Path) -> np.ndarray:
    from PIL import Image  # noqa: PLC0415

    try:
        with Image.open(path) as img:
            return np.asarray(img.convert("RGB"))
    except OSError as exc:
        raise DataError(f"cannot read image {path}: {exc}") from exc
