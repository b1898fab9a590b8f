"""lm-eval / lmms-eval filter pipelines (`filter_list`): named chains of filters applied to a model's reply before
it is parsed and scored, each metric reported once per pipeline under lm-eval's key `metric,pipeline`.

```yaml
filter_list:
  - name: flexible-extract             # metrics of this pipeline: `exact_match,flexible-extract`, ...
    filter:
      - function: regex                # a built-in filter by its registered name (FILTERS), with its kwargs
        regex_pattern: "\\(([A-D])\\)"
      - function: take_first
  - name: own
    filter:
      - function: !function utils.MyFilter   # a task's own Filter class (also `class: utils.py:MyFilter`)
        ignore_case: true
```

A filter is lm-eval's `Filter`: built with the entry's other keys as keyword arguments, `apply(resps, docs)` maps
each instance's list of replies to its filtered value. The built-ins are ports of lmms-eval 0.7.3's
(`lmms_eval/filters`); tests/test_lmms_eval_tasks.py holds them equal to lmms-eval's own in its environment. The
harness applies a pipeline to one document at a time (the reply as `[[reply]]`, the doc as `[doc]`), as every
built-in and task filter of lmms-eval works per instance. A pipeline named `none` keeps plain metric names.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from harness.config.filter_list import pipeline_names
from harness.config.yaml_files import FUNCTION_TAG
from harness.contract.hooks import check_return
from harness.errors import ConfigError
from harness.plugins.references import load_hook

_PUNCT = dict.fromkeys(i for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P"))


class Filter:
    """lm-eval's filter interface: `apply(resps, docs)` -> each instance's filtered replies."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def apply(self, resps: list, docs: list) -> Iterable:
        return resps


class TakeFirstFilter(Filter):
    """`take_first`: each instance's first reply."""

    def apply(self, resps, docs):
        return [r[0] if r else "" for r in resps]


class TakeKFilter(Filter):
    """`take_first_k`: each instance's first `k` replies."""

    def __init__(self, k: int) -> None:
        self.k = int(k)

    def apply(self, resps, docs):
        return [r[: self.k] for r in resps]


class MajorityVoteFilter(Filter):
    """`majority_vote`: each instance's most frequent reply (first seen on ties), as a list of one."""

    def apply(self, resps, docs):
        return [[Counter(r).most_common(1)[0][0]] for r in resps]


class WhitespaceFilter(Filter):
    """`remove_whitespace`: one leading space removed from each reply."""

    def apply(self, resps, docs):
        return [[s[1:] if s.startswith(" ") else s for s in r] for r in resps]


class RegexFilter(Filter):
    """`regex`: the `group_select`-th match of `regex_pattern` (its first non-empty group), else `fallback`."""

    def __init__(self, regex_pattern: str = r"#### (\-?[0-9\.\,]+)", group_select: int = 0, fallback: str = "[invalid]"):
        self.regex_pattern = regex_pattern
        self.regex = re.compile(regex_pattern)
        self.group_select = group_select
        self.fallback = fallback

    def find_match(self, regex: re.Pattern, resp: str, convert_dict: Optional[dict] = None) -> Any:
        """lm-eval's match: the selected match, stripped and mapped through `convert_dict`; falsy when none."""
        match = regex.findall(resp)
        if match:
            match = match[self.group_select]
            if isinstance(match, tuple):
                match = [m for m in match if m][0]
            match = match.strip()
            if match and convert_dict and match in convert_dict:
                match = convert_dict[match]
        return match

    def apply(self, resps, docs):
        # a match that strips to "" stays "" (lm-eval's RegexFilter); only no match at all is the fallback
        return [[self.find_match(self.regex, s) if self.regex.search(s) else self.fallback for s in r] for r in resps]


class MultiChoiceRegexFilter(RegexFilter):
    """`multi_choice_regex`: `regex_pattern`, else a choice's text from the doc's `choices` (as `(A)`, ...), else
    `: A` style letters; `fallback` when none matches."""

    def __init__(self, regex_pattern: str = r"#### (\-?[0-9\.\,]+)", group_select: int = 0,
                 fallback: str = "[invalid]", ignore_case: bool = False, ignore_punctuation: bool = False,
                 regexes_to_ignore: Optional[list[str]] = None):
        super().__init__(regex_pattern, group_select, fallback)
        self.ignore_case, self.ignore_punctuation = ignore_case, ignore_punctuation
        self.regexes_to_ignore = regexes_to_ignore

    def _ignores(self, text: str) -> str:
        for pattern in self.regexes_to_ignore or []:
            text = re.sub(pattern, "", text)
        if self.ignore_case:
            text = text.lower()
        return text.translate(_PUNCT) if self.ignore_punctuation else text

    def apply(self, resps, docs):
        out = []
        for r, doc in zip(resps, docs, strict=False):
            letters = [chr(ord("A") + i) for i in range(len(doc["choices"]))]
            to_letter = {self._ignores(c.strip()): f"({a})" for c, a in zip(doc["choices"], letters, strict=True)}
            by_text = re.compile("|".join(re.escape(self._ignores(c.strip())) for c in doc["choices"]))
            by_letter = re.compile(f":[\\s]*({'|'.join(letters)})")
            filtered = []
            for s in r:
                match = self.find_match(self.regex, s)
                if not match:
                    match = self.find_match(by_text, self._ignores(s), to_letter)
                    if not match:
                        match = self.find_match(by_letter, s, {a: f"({a})" for a in letters})
                filtered.append(match or self.fallback)
            out.append(filtered)
        return out


class LowercaseFilter(Filter):
    """`lowercase`."""

    def apply(self, resps, docs):
        return [[s.lower() for s in r] for r in resps]


class UppercaseFilter(Filter):
    """`uppercase`."""

    def apply(self, resps, docs):
        return [[s.upper() for s in r] for r in resps]


class MapFilter(Filter):
    """`map`: each reply through `mapping_dict`, `default_value` for the others."""

    def __init__(self, mapping_dict: Optional[dict] = None, default_value: Any = None) -> None:
        if mapping_dict is not None and not isinstance(mapping_dict, dict):
            raise ConfigError(f"filter 'map': mapping_dict must be a mapping, got {mapping_dict!r}")
        self.mapping_dict = mapping_dict or {}
        self.default_value = default_value

    def apply(self, resps, docs):
        return [[self.mapping_dict.get(s, self.default_value) for s in r] for r in resps]


def strip_reasoning_tags(text: str, tag_pairs: list) -> str:
    """lmms-eval's `strip_reasoning_tags`: every `start...end` block removed; with only a closing tag left (the
    opening one was in the prompt), the text after the last closing tag; stripped."""
    for start_tag, end_tag in tag_pairs:
        while start_tag in text and end_tag in text:
            start = text.find(start_tag)
            end = text.find(end_tag, start)
            if start == -1 or end == -1:
                break
            text = text[:start] + text[end + len(end_tag) :]
        if end_tag in text and start_tag not in text:
            text = text.rsplit(end_tag, 1)[-1]
    return text.strip()


class StripThinkingFilter(Filter):
    """`strip_thinking`: reasoning blocks (`<think>`, `<thinking>` or the given `tag_pairs`) removed."""

    def __init__(self, tag_pairs: Optional[list] = None) -> None:
        self.tag_pairs = tag_pairs or [["<think>", "</think>"], ["<thinking>", "</thinking>"]]

    def apply(self, resps, docs):
        return [[strip_reasoning_tags(s, self.tag_pairs) if isinstance(s, str) else s for s in r] for r in resps]


#: lm-eval's registered filter names (lmms_eval.filters.FILTER_REGISTRY)
FILTERS: dict[str, type] = {
    "take_first": TakeFirstFilter,
    "regex": RegexFilter,
    "majority_vote": MajorityVoteFilter,
    "take_first_k": TakeKFilter,
    "remove_whitespace": WhitespaceFilter,
    "lowercase": LowercaseFilter,
    "uppercase": UppercaseFilter,
    "map": MapFilter,
    "multi_choice_regex": MultiChoiceRegexFilter,
    "strip_thinking": StripThinkingFilter,
}


@dataclass
class FilterPipeline:
    """One named pipeline: its filters applied in order to one document's reply."""

    name: str
    filters: list

    def apply(self, reply: str, doc: dict) -> Any:
        """The reply's filtered value (what lm-eval puts in `filtered_resps[name]`)."""
        resps: Any = [[reply]]
        for f in self.filters:
            resps = f.apply(resps, [doc])
            ok = isinstance(resps, Iterable) and not isinstance(resps, (str, bytes, Mapping))
            what = f"filter pipeline '{self.name}' filter {type(f).__name__}"
            check_return(resps, "filter's apply", what, "a list of each instance's filtered replies", ok)
        return list(resps)[0]


def _filter_class(step: dict, base_dir: Path, what: str) -> Any:
    ref = step.get("class", step.get("function"))
    if isinstance(ref, dict) and set(ref) == {FUNCTION_TAG}:
        ref = ref[FUNCTION_TAG]
    if isinstance(ref, str) and ref in FILTERS:
        return FILTERS[ref]
    if isinstance(ref, str) and (":" in ref or "class" in step):
        return load_hook(ref, base_dir, what)
    raise ConfigError(
        f"{what}: unknown filter {ref!r}; use a registered name ({', '.join(sorted(FILTERS))}) or a task's own "
        "Filter class (`function: !function utils.MyFilter` or `class: utils.py:MyFilter`)"
    )


def build_pipelines(filter_list: Any, base_dir: Path, what: str) -> list[FilterPipeline]:
    """The pipelines of a `filter_list`, each filter built with its entry's other keys as keyword arguments."""
    out = []
    for name, pipe in zip(pipeline_names(filter_list, what), filter_list, strict=True):
        steps = []
        for j, step in enumerate(pipe["filter"]):
            where = f"{what}[{name}].filter[{j}]"
            if not isinstance(step, dict):
                raise ConfigError(f"{where}: expected a mapping with 'function', got {step!r}")
            cls = _filter_class(step, base_dir, where)
            kwargs = {k: v for k, v in step.items() if k not in ("function", "class")}
            try:
                steps.append(cls(**kwargs))
            except (TypeError, ValueError, AssertionError) as exc:
                raise ConfigError(f"{where}: cannot build filter with {kwargs}: {type(exc).__name__}: {exc}") from exc
        out.append(FilterPipeline(name, steps))
    return out
