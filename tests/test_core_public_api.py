"""Built-in plugins use only the core's public modules, exactly as a third-party plugin must (docs/plugins.md)."""

from __future__ import annotations

import ast

from conftest import REPO

# the public modules of the core; everything else in harness/ is internal
PUBLIC = {"harness.api", "harness.hookspecs", "harness.frames", "harness.report", "harness.report.plots"}
PLUGIN_DIRS = ("tasks", "models", "builders")


def _harness_imports(path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "harness"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "harness":  # `from harness import report` names a module
                out += [(node.lineno, f"harness.{a.name}") for a in node.names]
            elif node.module.split(".")[0] == "harness":
                out.append((node.lineno, node.module))
    return out


def test_builtin_plugins_import_only_public_core_modules():
    bad = []
    for folder in PLUGIN_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for lineno, module in _harness_imports(path):
                if module not in PUBLIC:
                    bad.append(f"{path.relative_to(REPO)}:{lineno} imports {module}")
    assert not bad, "built-in plugins must use harness.api (or another public module):\n" + "\n".join(bad)


def test_metrics_import_nothing_of_the_project():
    bad = []
    for path in sorted((REPO / "metrics").rglob("*.py")):
        bad += [f"{path.relative_to(REPO)}:{n} imports {m}" for n, m in _harness_imports(path)]
    assert not bad, "\n".join(bad)


def test_the_detector_sees_an_internal_import(tmp_path):
    f = tmp_path / "plugin.py"
    f.write_text("from harness.model import Model\nfrom harness import evaluator\nimport harness.api\n")
    assert [m for _, m in _harness_imports(f)] == ["harness.model", "harness.evaluator", "harness.api"]


def test_every_name_plugins_take_from_the_public_modules_exists():
    import importlib

    missing = []
    for folder in PLUGIN_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in PUBLIC:
                    module = importlib.import_module(node.module)
                    missing += [
                        f"{path.relative_to(REPO)}:{node.lineno} {node.module}.{a.name}"
                        for a in node.names
                        if not hasattr(module, a.name) and not _is_submodule(f"{node.module}.{a.name}")
                    ]
    assert not missing, "\n".join(missing)


def _is_submodule(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent is a module, not a package
        return False


