"""lm-eval / lmms-eval task configs, read as they are: translated into the native schema (harness/config/schema.py).

A config is in lm-eval's format when it uses any of `LMMS_KEYS`. The translation keeps lm-eval's meaning:

  dataset_path / dataset_name / dataset_kwargs   -> dataset.source / name / kwargs (loaded through HF `datasets`,
                                                    e.g. `json` with `data_files`); lmms-eval's download-only
                                                    kwargs (token, video, cache_dir, ...) are dropped
  test_split (else validation_split), training_split -> dataset.split, dataset.train_split
  doc_to_visual, doc_to_text, doc_to_target,     -> the `lmms` section, called as lmms-eval calls them
  process_results, process_docs, lmms_eval_specific_kwargs (`default` prompts merged in, as lmms-eval does)
  metric_list [{metric, aggregation, higher_is_better, **kwargs}] -> metrics (aggregation: a name or `!function`;
                                                    the other keys: the metric's kwargs, e.g. ignore_case)
  filter_list                                    -> filter_list as it is (harness/data/filters.py): each metric
                                                    once per pipeline, as `metric,pipeline`
  generation_kwargs                              -> generation (lm-eval's defaults: until ["\\n\\n"], greedy)
  group / tag                                    -> groups (and a runnable group of the tasks that carry it)
  metadata (a dict or lmms-eval's list of dicts) -> metadata; its `version` -> version
  cluster_key                                    -> cluster_field (the bootstrap's cluster)
  num_fewshot: only 0; output_type: only generate_until (the others need log-likelihoods)
Native keys (frames, breakdowns, ...) may sit beside them. Unknown keys stay errors.
"""

from __future__ import annotations

from typing import Any

from harness.config.yaml_files import FUNCTION_TAG
from harness.errors import ConfigError

#: keys that only lm-eval / lmms-eval configs use
LMMS_KEYS = {
    "dataset_path",
    "dataset_name",
    "dataset_kwargs",
    "test_split",
    "validation_split",
    "training_split",
    "fewshot_split",
    "doc_to_visual",
    "doc_to_text",
    "doc_to_target",
    "doc_to_choice",
    "process_docs",
    "process_results",
    "metric_list",
    "generation_kwargs",
    "output_type",
    "lmms_eval_specific_kwargs",
    "model_specific_prompt_kwargs",
    "model_specific_generation_kwargs",
    "num_fewshot",
    "cluster_key",
    "score_key",
    "tag",
    "task_alias",
    "group_alias",
    "repeats",
    "target_delimiter",
    "fewshot_delimiter",
    "full_docs",
    "process_results_use_image",
    "should_decontaminate",
    "doc_to_decontamination_query",
    "fewshot_config",
    "doc_to_messages",
    "model_specific_target_kwargs",
}
#: dataset_kwargs lmms-eval consumes itself (download and unpacking of video archives) before load_dataset
_DOWNLOAD_ONLY = {
    "token",
    "video",
    "cache_dir",
    "force_download",
    "force_unzip",
    "local_files_only",
    "create_link",
    "From_YouTube",
    "builder_script",
    "max_retries",
    "num_proc",
    "load_from_disk",
}
_LMMS_SECTION = {
    "doc_to_visual": "doc_to_visual",
    "doc_to_text": "doc_to_text",
    "doc_to_target": "doc_to_target",
    "doc_to_messages": "doc_to_messages",
    "doc_to_choice": "doc_to_choice",
    "process_results": "process_results",
    "lmms_eval_specific_kwargs": "specific_kwargs",
    "model_specific_prompt_kwargs": "specific_kwargs",
    "model_specific_generation_kwargs": "generation_kwargs_by_model",
    "model_specific_target_kwargs": "target_kwargs_by_model",
    "output_type": "output_type",
    "score_key": "score_key",
}
_IGNORED = {"task_alias", "group_alias", "target_delimiter", "fewshot_delimiter", "full_docs", "repeats"}
_IGNORED |= {"process_results_use_image", "should_decontaminate", "doc_to_decontamination_query"}
_IGNORED |= {"fewshot_split", "fewshot_config"}


def is_lmms_config(raw: dict) -> bool:
    """True when a task config uses lm-eval / lmms-eval keys."""
    return any(k in raw for k in LMMS_KEYS)


def ref(value: Any) -> Any:
    """A `!function` reference as a hook reference string; anything else as it is."""
    if isinstance(value, dict) and set(value) == {FUNCTION_TAG}:
        return value[FUNCTION_TAG]
    return value


def _tags(raw: dict) -> list[str]:
    out: list[str] = []
    for key in ("group", "tag"):
        value = raw.get(key)
        if value:
            out += [value] if isinstance(value, str) else [str(v) for v in value]
    return out


def _metadata(value: Any, path: str) -> dict:
    if value is None:
        return {}
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        merged: dict = {}
        for v in value:
            merged.update(v)
        return merged
    raise ConfigError(f"{path}: field 'metadata': expected a mapping or a list of mappings, got {value!r}")


def lmms_tags(raw: dict) -> list[str]:
    """The group / tag names an lm-eval task config puts itself in."""
    return _tags(raw) if is_lmms_config(raw) else []


def translate(raw: dict, path: str) -> dict:
    """The native config (a dict for TaskConfig) for an lm-eval / lmms-eval task config."""
    _refuse_unsupported(raw, path)
    out = {k: v for k, v in raw.items() if k not in LMMS_KEYS and k not in ("group", "metadata")}
    meta = _metadata(raw.get("metadata"), path)
    out["metadata"] = {**meta, **out.get("metadata", {})} if isinstance(out.get("metadata"), dict) else meta
    out.setdefault("version", meta.get("version", 0))
    out["groups"] = list(dict.fromkeys([*out.get("groups", []), *_tags(raw)]))
    out["dataset"] = _dataset_section(raw, dict(out.get("dataset") or {}))
    out["lmms"] = _lmms_section(raw)
    out.setdefault("doc_id", "doc_id")
    out.setdefault("media_field", None)
    out.setdefault("target_field", None)
    out.setdefault("generation", _generation(raw))
    metric_list = raw.get("metric_list")
    default_metrics = [{"name": "exact_match", "headline": True}]
    out.setdefault("metrics", _metrics(metric_list, path) if metric_list is not None else default_metrics)
    out.setdefault("cluster_field", raw.get("cluster_key") or None)
    return out


def _refuse_unsupported(raw: dict, path: str) -> None:
    """ConfigError for what needs more than generated text: log-likelihoods, few-shot examples."""
    output_type = raw.get("output_type", "generate_until")
    if output_type != "generate_until":
        raise ConfigError(
            f"{path}: field 'output_type': '{output_type}' is not supported; only generate_until "
            "(log-likelihood and multiple-choice scoring need token probabilities the adapters do not expose)"
        )
    if int(raw.get("num_fewshot") or 0) != 0:
        raise ConfigError(f"{path}: field 'num_fewshot': only 0 is supported, got {raw['num_fewshot']}")


def _dataset_section(raw: dict, dataset: dict) -> dict:
    """`dataset:` from dataset_path / _name / _kwargs and the splits, over the native keys already there."""
    kwargs = dict(raw.get("dataset_kwargs") or {})
    if raw.get("dataset_path"):
        dataset["source"] = raw["dataset_path"]
    if raw.get("dataset_name"):
        dataset["name"] = raw["dataset_name"]
    if "data_files" in kwargs:
        dataset["data_files"] = kwargs.pop("data_files")
    if "revision" in kwargs:
        dataset["revision"] = str(kwargs.pop("revision"))
    if kwargs.get("load_from_disk"):
        dataset["from_disk"] = True
    extra = {k: v for k, v in kwargs.items() if k not in _DOWNLOAD_ONLY}
    if extra:
        dataset["kwargs"] = extra
    split = raw.get("test_split") or raw.get("validation_split")
    if split:
        dataset["split"] = split
    dataset["train_split"] = raw.get("training_split")
    if raw.get("process_docs") is not None:
        dataset["process_docs"] = ref(raw["process_docs"])
    return dataset


def _lmms_section(raw: dict) -> dict[str, Any]:
    """The `lmms` section: the doc_to_* and process_results functions, called as lmms-eval calls them."""
    lmms: dict[str, Any] = {}
    for key, field in _LMMS_SECTION.items():
        if raw.get(key) is not None:
            lmms[field] = raw[key]  # `!function` references stay {"!function": ref}: told apart from strings
    if raw.get("description"):
        lmms["description"] = raw["description"]
    return lmms


def _generation(raw: dict) -> dict:
    """generation_kwargs with lm-eval's defaults: greedy, until ["\\n\\n"]."""
    gen = dict(raw.get("generation_kwargs") or {"do_sample": False})
    if "temperature" in gen:
        gen["temperature"] = float(gen["temperature"])
    gen.setdefault("until", ["\n\n"])
    return gen


def _metrics(metric_list: list, path: str) -> list[dict]:
    """`metrics:` from metric_list; the first metric is the headline."""
    metrics = []
    for i, m in enumerate(metric_list):
        if not isinstance(m, dict) or "metric" not in m:
            raise ConfigError(f"{path}: field 'metric_list[{i}]': expected a mapping with a 'metric'")
        metrics.append(
            {
                "name": str(ref(m["metric"])),
                "aggregation": str(ref(m.get("aggregation", "mean"))),
                "higher_is_better": bool(m.get("higher_is_better", True)),
                "headline": i == 0,
                "kwargs": {k: v for k, v in m.items() if k not in ("metric", "aggregation", "higher_is_better")},
            }
        )
    return metrics


def translate_group(raw: dict, path: str) -> dict:
    """A group config with lm-eval's `aggregate_metric_list` (every entry: metric, aggregation, weight_by_size,
    filter_list; see schema.GroupMetric) and list `metadata`."""
    out = {k: v for k, v in raw.items() if k not in ("aggregate_metric_list", "metadata", "group_alias")}
    out["metadata"] = _metadata(raw.get("metadata"), path)
    out.setdefault("version", out["metadata"].get("version", 1))
    aml = raw.get("aggregate_metric_list")
    entries = aml if isinstance(aml, list) else [aml] if aml else []
    out["aggregate_metric_list"] = [_group_metric(e, f"{path}: field 'aggregate_metric_list[{i}]'") for i, e in enumerate(entries)]
    if entries:
        out.setdefault("aggregate", "sample_weighted" if entries[0].get("weight_by_size", False) else "task_mean")
    return out


def _group_metric(entry: Any, what: str) -> dict:
    """One aggregate_metric_list entry as schema.GroupMetric reads it (lm-eval's defaults: mean, unweighted,
    filter `none`; a single filter name as a list)."""
    if not isinstance(entry, dict) or "metric" not in entry:
        raise ConfigError(f"{what}: expected a mapping with a 'metric', got {entry!r}")
    filters = entry.get("filter_list", "none")
    return {
        **entry,
        "aggregation": str(ref(entry.get("aggregation", "mean"))),
        "weight_by_size": bool(entry.get("weight_by_size", False)),
        "filter_list": [filters] if isinstance(filters, str) else list(filters),
    }
