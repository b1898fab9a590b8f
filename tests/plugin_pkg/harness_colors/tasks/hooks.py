"""Hooks of the test plugin: a one-word parser."""

import re

from harness.api import Parsed

WORDS = {"red", "green", "blue", "left", "right"}


def parse(response, doc):
    words = [w for w in re.findall(r"[a-z]+", (response.text or "").lower()) if w in WORDS]
    if len(set(words)) != 1:
        return Parsed(answer=None, valid=False, note="no single answer word")
    return Parsed(answer=words[0])


def target(doc):
    return doc["answer"]


def load(root, split, options):
    """Loader hook: the split's rows, filtered by family when the variant asks for one."""
    import json

    with open(root / f"{split}.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    family = options.get("family")
    return [r for r in rows if family is None or r["family"] == family]


def group_summary(task_results):
    """Group aggregate hook: each member's sample count (a table across members)."""
    return {"samples_per_task": {name: res["n_samples"] for name, res in sorted(task_results.items())}}
