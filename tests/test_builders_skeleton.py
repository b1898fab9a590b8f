"""The builders' house rules (issue 36, part 7): one skeleton per builder folder (docs/plugins.md, "A builder
folder"), registration in plugin.py only, no builder importing another builder's modules, every file written
through harness.files' atomic writer, one "module:attr" resolver (the core's), and one progress flag."""

from __future__ import annotations

import argparse
import ast
import warnings
from pathlib import Path

import pytest

from conftest import PACKAGE_DIRS, REPO
from harness.api import Builder, UnknownNameError, registry
from harness_builders.rvtbench.synthetic import synthetic_sources

BUILDERS = REPO / PACKAGE_DIRS["harness_builders"]
BENCHES = sorted(p.name for p in BUILDERS.iterdir() if (p / "__init__.py").is_file())
#: the files every builder folder has, one per stage (docs/plugins.md)
SKELETON = ("__init__.py", "plugin.py", "commands.py", "config.py", "pipeline.py", "layout.py")
#: calls that write a file in place (a reader or a killed build would see half of it)
RAW_WRITES = {"write_text", "write_bytes", "dump", "save", "savez", "savez_compressed", "imwrite", "to_json"}
#: shutil/os calls that write `dest` (their second argument); allowed only onto an `atomic_path` temporary name
COPIES = {"copyfile", "copy", "copy2", "copytree", "link", "symlink", "rename", "replace", "move"}
#: Path methods that put a file at their one argument (a hand-made rename is what write_atomic does)
PATH_MOVES = {"rename", "replace", "symlink_to", "hardlink_to"}


def _trees(bench: str) -> dict[Path, ast.Module]:
    folder = BUILDERS / bench
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.py"))}


def _imported(path: Path, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The absolute module names an import statement in `path` (under builders/) reads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not node.level:
        return [node.module or ""]
    package = ["harness_builders", *path.relative_to(BUILDERS).parent.parts]
    base = package[: len(package) - node.level + 1]
    return [".".join(base + ([node.module] if node.module else []))]


def test_there_are_three_builders():
    assert BENCHES == ["cyclist", "rvtbench", "tempcloze"]


@pytest.mark.parametrize("bench", BENCHES)
def test_every_builder_folder_has_the_skeleton(bench):
    missing = [name for name in SKELETON if not (BUILDERS / bench / name).is_file()]
    assert not missing, f"builders/{bench}/ lacks {missing} (docs/plugins.md, 'A builder folder')"


@pytest.mark.parametrize("bench", BENCHES)
def test_registration_lives_in_plugin_py_and_builder_classes_in_commands_py(bench):
    for path, tree in _trees(bench).items():
        rel = path.relative_to(BUILDERS).as_posix()
        hooks = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("register_")]
        assert not hooks or rel == f"{bench}/plugin.py", f"{rel} registers {hooks}: only plugin.py registers"
        builders = [
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and any(getattr(b, "id", None) == "Builder" for b in n.bases)
        ]
        assert not builders or rel == f"{bench}/commands.py", f"{rel} defines {builders}: commands go in commands.py"
    plugin = ast.parse((BUILDERS / bench / "plugin.py").read_text(encoding="utf-8"))
    imports = {m for node in plugin.body if isinstance(node, (ast.Import, ast.ImportFrom)) for m in _imported(BUILDERS / bench / "plugin.py", node)}
    assert imports <= {"__future__", "harness.hookspecs"}, f"{bench}/plugin.py imports {imports}: register lazy references"


@pytest.mark.parametrize("bench", BENCHES)
def test_no_builder_imports_another_builders_modules(bench):
    for path, tree in _trees(bench).items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _imported(path, node):
                    parts = name.split(".")
                    if parts[0] == "harness_builders":
                        assert parts[1:2] == [bench], (
                            f"{path.relative_to(REPO)} imports {name}: reach another builder through the registry "
                            "(harness.api.registry) or read its release layout as data"
                        )
                    assert parts[0] not in ("harness_tasks", "harness_models"), f"{path.relative_to(REPO)} imports {name}"


def _atomic_names(tree: ast.Module) -> set[str]:
    """Names bound by `with atomic_path(...) as NAME` anywhere in the module."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", "")) == "atomic_path":
                    if isinstance(item.optional_vars, ast.Name):
                        names.add(item.optional_vars.id)
    return names


@pytest.mark.parametrize("bench", BENCHES)
def test_every_file_a_builder_writes_goes_through_the_atomic_writer(bench):
    for path, tree in _trees(bench).items():
        atomic = _atomic_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            assert name not in RAW_WRITES, f"{where}: {name}() writes in place; use harness.api.write_atomic"
            if name == "open" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                assert not set(str(node.args[1].value)) & set("wax"), f"{where}: open for writing; use write_atomic"
            module = getattr(getattr(node.func, "value", None), "id", "")
            method = isinstance(node.func, ast.Attribute) and module not in ("os", "shutil")
            if method and name in PATH_MOVES and len(node.args) == 1:
                raise AssertionError(f"{where}: Path.{name}(); write through harness.api.write_atomic or atomic_path")
            if name in COPIES and module in ("os", "shutil") and len(node.args) > 1:
                dest = node.args[1]
                assert isinstance(dest, ast.Name) and dest.id in atomic, (
                    f"{where}: {name}() onto its target; write onto `with harness.api.atomic_path(target) as tmp:`"
                )


@pytest.mark.parametrize("bench", BENCHES)
def test_module_references_are_resolved_by_the_core(bench):
    for path, tree in _trees(bench).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
                raise AssertionError(
                    f"{path.relative_to(REPO)}:{node.lineno}: import_module; resolve 'module:attr' with "
                    "harness.api.resolve_reference"
                )


def _ours() -> list:
    return [e for e in registry().entries("builder") if e.name.split(".")[0].split("-")[0] in BENCHES]


def test_every_registered_builder_reference_loads():
    entries = _ours()
    assert {e.name for e in entries} >= {"cyclist", "cyclist-questions", "rvtbench", "tempcloze", "tempcloze-hard"}
    for entry in entries:
        assert entry.load() is not None, entry.name


def _parser(entry) -> tuple[Builder, argparse.ArgumentParser]:
    builder = entry.load()()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    return builder, parser


def test_builders_take_the_cores_progress_flag_and_the_old_one_as_a_deprecated_alias(tmp_path):
    for name, needed in (("cyclist", ["--out", str(tmp_path)]), ("rvtbench", ["--videos", str(tmp_path), "--out", str(tmp_path)]),
                         ("tempcloze", ["--videos", str(tmp_path), "--out", str(tmp_path)])):  # fmt: skip
        _, parser = _parser(registry().get("builder", name))
        assert parser.parse_args(needed).no_progress is False
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert parser.parse_args([*needed, "--no_progress"]).no_progress is True
        with pytest.warns(FutureWarning, match=r"--no-progress is deprecated .*use --no_progress"):
            assert parser.parse_args([*needed, "--no-progress"]).no_progress is True
        assert "--no_progress" in parser.format_help()


def test_rvtbench_from_synthetic_names_the_cyclist_part_it_lacks(tmp_path, monkeypatch):
    """RVTBench reaches CycliST's parts through the registry: without the CycliST builder installed, the build
    stops before any work with the part's name (exit 2 through the CLI), not an ImportError."""
    with pytest.raises(ValueError, match="no rendered CycliST scenes"):  # every part found: the full registry
        synthetic_sources(tmp_path, 1)  # loaded first, so HARNESS_PLUGINS set below must still count
    monkeypatch.setenv("HARNESS_PLUGINS", "rvtbench_builder")
    with pytest.raises(UnknownNameError, match="cyclist.scene_states"):
        synthetic_sources(tmp_path / "restricted", 1)
