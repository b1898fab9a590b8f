"""The files `python -m harness new-task NAME` writes (string.Template: $name is the package name, $dist the
distribution name, $title the task's title). The generated folder is an installable plugin whose oracle
scores 100 % as generated; docs/plugins.md walks through each file."""

from __future__ import annotations

PYPROJECT = '''\
# An installable harness plugin: `pip install .` (or a wheel from `python -m build`) ships the package, its
# hooks and, through package-data below, the task YAML and templates the harness reads at run time.
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "0.1.0"
description = "$title: a task plugin for video-harness"
requires-python = ">=3.10"
dependencies = ["video-harness", "numpy"]

# the harness finds the plugin through this entry point (group "harness"): the module's hooks register it
[project.entry-points.harness]
$name = "$name.plugin"

[tool.setuptools]
packages = ["$name", "$name.tasks"]

# data files are not Python modules: without this line the wheel lacks them ("task path ... holds no task YAML")
[tool.setuptools.package-data]
"$name.tasks" = ["*.yaml", "*.jinja"]
'''

README = '''\
# $title

A task plugin for video-harness, made by `python -m harness new-task $name`.

    pip install -e .                                 # or: python -m build && pip install dist/*.whl
    python -m $name.make_data data/$name             # a tiny dataset: coloured squares
    python -m harness ls tasks                       # lists $name
    python -m harness --tasks $name --model oracle --data data/$name    # 100 %
    python -m pytest tests                           # the same, as a test

Edit `$name/tasks/$name.yaml` (data, prompt, frames, metrics), `$name/tasks/prompt.jinja` and the hooks in
`$name/tasks/hooks.py`; docs/plugins.md of video-harness describes every field and hook.
'''

INIT = '''\
"""$title: a video-harness task plugin."""
'''

PLUGIN = '''\
"""The plugin's entry point (pyproject.toml, group "harness"): registers the task folder next to it."""

from harness.hookspecs import hookimpl


@hookimpl
def register_tasks(register):
    register("tasks")  # every *.yaml under $name/tasks/, relative to this file
'''

TASKS_INIT = '''\
"""Task configs and hooks (a package so that hooks.py and the YAML and templates ship in the wheel)."""
'''

TASK_YAML = '''\
# $title (reference: docs/plugins.md of video-harness, "Task YAML")
task: $name
version: 1
description: $title (the colour of a moving square)
dataset:
  split: test
  build_hint: "make one with `python -m $name.make_data DIR`, then pass --data DIR"
doc_id: id
media_field: video
target_field: answer
answer_space: [red, green, blue]
prompt:
  template: prompt.jinja
frames:
  strategy: uniform
  count: 8
  max_side: 64
generation:
  max_new_tokens: 8
  temperature: 0
hooks:
  parse: hooks.py:parse
  score: hooks.py:score
metrics:
  - name: accuracy
    headline: true
'''

PROMPT = '''\
{{ question }} Answer with one word: red, green or blue.
'''

HOOKS = '''\
"""The task's hooks, named in $name.yaml as `hooks.py:FUNCTION`.

parse(response, doc) -> Parsed: `response` is a harness.api.Response (its reply text is `response.text`,
which may be None), never a plain string; return Parsed(answer=...) or Parsed(answer=None, valid=False,
note=why) for a reply that holds no answer (counted as invalid, never scored as wrong silently).
score(parsed, target, doc) -> dict: one value per metric name in the YAML (1.0/0.0 here), or None where
a metric does not apply to the sample.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from harness.api import Parsed, Response

COLOURS = ("red", "green", "blue")


def parse(response: Response, doc: dict) -> Parsed:
    words = [w for w in re.findall(r"[a-z]+", (response.text or "").lower()) if w in COLOURS]
    if len(set(words)) != 1:
        return Parsed(answer=None, valid=False, note="no single colour word in the reply")
    return Parsed(answer=words[0])


def score(parsed: Parsed, target: Any, doc: dict) -> dict[str, Optional[float]]:
    return {"accuracy": float(parsed.valid and parsed.answer == target)}
'''

MAKE_DATA = '''\
"""A tiny dataset for $name: short videos of a coloured square and one question each.

    python -m $name.make_data DIR [--n N]

writes DIR/videos/*.mp4 and DIR/test.jsonl (rows: id, video, question, answer)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from harness.frames import write_video

COLOURS = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (40, 60, 230)}


def make_data(root: Path, n: int = 6, seed: int = 0) -> Path:
    root = Path(root)
    (root / "videos").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        colour = list(COLOURS)[i % len(COLOURS)]
        frames = []
        for t in range(8):
            img = np.full((48, 64, 3), 16, np.uint8)
            x = 4 + 5 * t + int(rng.integers(3))
            img[16:32, x : x + 12] = COLOURS[colour]
            frames.append(img)
        name = f"video_{i:03d}.mp4"
        write_video(root / "videos" / name, frames, fps=8)
        question = "What colour is the square?"
        rows.append({"id": f"q{i}", "video": f"videos/{name}", "question": question, "answer": colour})
    (root / "test.jsonl").write_text("".join(json.dumps(r) + "\\n" for r in rows), encoding="utf-8")
    return root


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out", type=Path)
    p.add_argument("--n", type=int, default=6)
    args = p.parse_args()
    print(f"wrote {make_data(args.out, args.n)}")


if __name__ == "__main__":
    main()
'''

TEST = '''\
"""The task as generated: its data maker makes rows and the oracle scores 100 % through the harness."""

import json
import subprocess
import sys

from $name.make_data import make_data


def test_the_oracle_scores_100_percent(tmp_path):
    data = make_data(tmp_path / "data")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "harness", "--tasks", "$name", "--model", "oracle", "--data", str(data)]
    cmd += ["--output_path", str(out), "--cache_dir", str(tmp_path / "cache")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (results,) = out.rglob("results_*.json")
    res = json.loads(results.read_text())["task_results"]["$name"]
    assert res["metrics"]["accuracy"]["value"] == 1.0 and res["n_scored"] > 0
'''

#: relative path (with $name) -> template
FILES = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "$name/__init__.py": INIT,
    "$name/plugin.py": PLUGIN,
    "$name/make_data.py": MAKE_DATA,
    "$name/tasks/__init__.py": TASKS_INIT,
    "$name/tasks/$name.yaml": TASK_YAML,
    "$name/tasks/prompt.jinja": PROMPT,
    "$name/tasks/hooks.py": HOOKS,
    "tests/test_$name.py": TEST,
}
