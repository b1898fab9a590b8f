"""docs/architecture.md's table of which packages import which is the code's: recomputed here from every
module's top-level and function-level imports, so the document cannot drift from the code."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from conftest import PACKAGE_DIRS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Which packages import which"


def _unit(import_name: str, parts: list[str]) -> str:
    """How the table names what a module is part of: `engine/`, `api.py`, `harness_tasks`."""
    if import_name != "harness":
        return import_name
    if not parts:
        return "harness/__init__.py"
    folder = ROOT / "harness"
    return f"{parts[0]}/" if (folder / parts[0]).is_dir() else f"{parts[0]}.py"


def imports_graph() -> dict[str, set[str]]:
    """unit -> the other units of ours its modules import."""
    names = dict(PACKAGE_DIRS)
    graph: dict[str, set[str]] = defaultdict(set)
    for import_name, folder in names.items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = list(path.relative_to(base).with_suffix("").parts)
            if import_name == "harness" and rel == ["__init__"]:
                rel = []
            here = _unit(import_name, rel[:1] if len(rel) > 1 or import_name != "harness" else rel)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    mods = [node.module]
                else:
                    continue
                for mod in mods:
                    top, *rest = mod.split(".")
                    if top in names:
                        there = _unit(top, rest[:1])
                        if there != here:
                            graph[here].add(there)
    return graph


def _documented() -> dict[str, set[str]]:
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"{DOC} has no '{SECTION}' section"
    table = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        out[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[1]))
    return out


def _table(graph: dict[str, set[str]]) -> str:
    rows = ["| package or module | imports (of ours) |", "| --- | --- |"]
    for unit in sorted(graph):
        rows.append(f"| `{unit}` | {', '.join(f'`{u}`' for u in sorted(graph[unit]))} |")
    return "\n".join(rows)


def test_the_documented_imports_are_the_codes():
    graph = {k: v for k, v in imports_graph().items() if v}
    assert _documented() == graph, f"docs/architecture.md '{SECTION}' should read:\n\n{_table(graph)}\n"
