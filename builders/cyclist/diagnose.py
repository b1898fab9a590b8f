"""`python -m harness diagnose cyclist DIR`: re-execute every stored program of a CycliST dataset folder.

DIR is a dataset root in the release's kind-first layout (`scenes/<tier>/<split>/`, `questions/<tier>/<split>/`:
every tier and split in it is checked), the official release's or a project build's, or one tier folder as
earlier builds wrote it (`scenes/*.json` or a `*scenes*.json` file, `questions/*.json` or `*questions*.json`). Each stored program runs on its
scene with the question engine; the report gives, per family (the question's `family`, else its
template file), how many stored answers the engine reproduces, lists the others with the question, the
stored answer, the engine's answer and the first program step where they part (from the node outputs
the official generator stores as `_output`; without them, the answer step), and ends with the line
`reproduced N/M stored answers`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.api import read_json_file

from .layout import dataset_parts
from .questions.functions import Invalid, run_steps
from .questions.state import SceneSchemaError, SceneState


@dataclass
class Mismatch:
    """One stored answer the engine does not reproduce."""

    family: str
    question: str
    stored: Any
    engine: Any
    step: str


@dataclass
class Report:
    """Per family (reproduced, total) and the mismatches."""

    families: dict[str, list[int]] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    skipped_scenes: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> int:
        return sum(r for r, _ in self.families.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.families.values())


def comparable(value: Any) -> Any:
    """A stored or computed value in one spelling: yes/no and "True" as bools, numerals as ints,
    strings lower-case, object sets as sorted lists."""
    if isinstance(value, (set, frozenset, list, tuple)):
        return sorted(comparable(v) for v in value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("yes", "true"):
            return True
        if low in ("no", "false"):
            return False
        if low.lstrip("-").isdigit():
            return int(low)
        return low
    return value


def _read(path: Path) -> Any:
    return read_json_file(path, "CycliST build file (JSON)", error=ValueError)  # regular, bounded


def _scenes(folder: Path, loose: Path | None) -> Iterator[tuple[str, Any]]:
    """Scene files of a folder, then (one tier folder) the merged `*scenes*.json` files beside it."""
    if folder.is_dir():
        for p in sorted(folder.glob("*.json")):
            yield p.name, p
    for p in sorted(loose.glob("*.json")) if loose is not None else []:
        if "scene" in p.name.lower():
            data = _read(p)
            for i, s in enumerate(data.get("scenes", []) if isinstance(data, dict) else data):
                yield f"{p.name}[{i}]", s


def _questions(folder: Path, loose: Path | None) -> Iterator[dict]:
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    files += (
        sorted(p for p in loose.glob("*.json") if "question" in p.name.lower()) if loose is not None else []
    )
    for path in files:
        data = _read(path)
        for q in data.get("questions", []) if isinstance(data, dict) else data:
            if isinstance(q, dict):
                yield q


def _family(q: dict) -> str:
    name = q.get("family") or str(q.get("template_filename") or "unknown")
    return str(name).rsplit("/", 1)[-1].removesuffix(".json")


def _load_states(folder: Path, loose: Path | None, report: Report) -> dict[str, SceneState]:
    states: dict[str, SceneState] = {}
    for name, src in _scenes(folder, loose):
        try:
            scene = _read(src) if isinstance(src, Path) else src
            state = SceneState(scene, name)
        except (OSError, json.JSONDecodeError) as exc:
            report.skipped_scenes.append(f"{name}: cannot read JSON ({exc})")
            continue
        except SceneSchemaError as exc:
            report.skipped_scenes.append(str(exc))
            continue
        video = scene.get("video_file") or scene.get("video_filename") or state.video_filename
        states[Path(str(video)).name] = state
    return states


def _describe(node: dict, k: int) -> str:
    values = node.get("value_inputs", node.get("side_inputs", [])) or []
    return f"step {k} ({node.get('type')}{' ' + json.dumps(values) if values else ''})"


def check_question(q: dict, state: SceneState) -> tuple[Any, str | None]:
    """(engine answer, None) when the engine reproduces the stored answer, else (engine answer, the
    first step where they part)."""
    program = q.get("program") or []
    outputs: list[Any] = []
    try:
        for _ in run_steps(program, state, outputs):
            pass
    except Invalid:
        k = len(outputs)
        return "invalid", f"{_describe(program[k], k)}: the engine finds no well-defined value"
    except KeyError as exc:
        k = len(outputs)
        return "error", f"{_describe(program[k], k)}: unknown function {exc}"
    except (IndexError, TypeError, ValueError) as exc:
        k = len(outputs)
        return "error", f"{_describe(program[min(k, len(program) - 1)], k)}: malformed node ({exc})"
    if not outputs:
        return None, "the program is empty"
    answer = outputs[-1]
    if comparable(answer) == comparable(q.get("answer")):
        return answer, None
    for k, node in enumerate(program):
        if "_output" in node and comparable(node["_output"]) != comparable(outputs[k]):
            return answer, (
                f"{_describe(node, k)}: stored {comparable(node['_output'])!r}, engine {comparable(outputs[k])!r}"
            )
    return answer, f"{_describe(program[-1], len(program) - 1)}: the answer"


def diagnose(root: Path) -> Report:
    """Re-execute every stored program of the dataset (every tier and split) on its scene."""
    root = Path(root)
    report = Report()
    for part in dataset_parts(root):
        loose = root if part["scenes"] == root / "scenes" else None  # one tier folder (earlier builds)
        states = _load_states(part["scenes"], loose, report)
        for q in _questions(part["questions"], loose):
            _check_one(q, states, report)
    return report


def _check_one(q: dict, states: dict[str, SceneState], report: Report) -> None:
    """Re-execute one stored question on its scene and count the outcome."""
    family = _family(q)
    counts = report.families.setdefault(family, [0, 0])
    counts[1] += 1
    state = states.get(Path(str(q.get("video_filename", ""))).name)
    if state is None:
        report.mismatches.append(
            Mismatch(family, str(q.get("question")), q.get("answer"), None, "no scene for its video")
        )
        return
    engine, step = check_question(q, state)
    if step is None:
        counts[0] += 1
    else:
        report.mismatches.append(Mismatch(family, str(q.get("question")), q.get("answer"), engine, step))


def format_report(report: Report, root: Path, max_listed: int = 200) -> str:
    """The printed report; its last line is `reproduced N/M stored answers`."""
    lines = [f"cyclist diagnose {root}"]
    for name in report.skipped_scenes:
        lines.append(f"  skipped scene: {name}")
    width = max((len(f) for f in report.families), default=10)
    for family, (ok, total) in sorted(report.families.items()):
        lines.append(f"  {family:{width}}  {ok}/{total}")
    if report.mismatches:
        lines.append(f"not reproduced ({len(report.mismatches)}):")
        for m in report.mismatches[:max_listed]:
            lines.append(f"  [{m.family}] {m.question}")
            lines.append(f"      stored {m.stored!r}, engine {m.engine!r}; parts at {m.step}")
        if len(report.mismatches) > max_listed:
            lines.append(f"  ... and {len(report.mismatches) - max_listed} more")
    lines.append(f"reproduced {report.reproduced}/{report.total} stored answers")
    return "\n".join(lines)
