"""The house rules of issue 28, kept: no private name imported across modules, no function over 80 lines, no
import cycle, a small core root. A violation not in the allow-lists below fails; so does an allow-list entry
that is fixed (remove it: the lists only shrink)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import PACKAGE_DIRS, REPO
from harness.config.lmms import translate
from harness.config.schema import GroupConfig, GroupHooksConfig, HooksConfig, LmmsConfig, TaskConfig
from harness.contract.hooks import HOOKS, LMMS_HOOKS, ModelMethods, check_model_class, contract_of
from harness.data.hook_refs import group_references, references
from harness.data.run_context import RunContext
from harness.data.task import Task
from harness.engine.runner import build_task, expand_tasks
from harness.plugins.loading import load_plugins

PACKAGES = tuple(PACKAGE_DIRS)  # import names; PACKAGE_DIRS[name] is the folder
MAX_FUNCTION_LINES = 80
MAX_ROOT_MODULES = 10

# Known violations in areas other work is changing; each entry goes when that work lands.
ALLOWED_PRIVATE_IMPORTS: set[str] = set()
ALLOWED_LONG_FUNCTIONS: set[str] = set()
# Packages whose modules import the project's own modules at the top only: a function-level import hides a
# cycle or a slow import (function-level imports stay for optional dependencies: torch, transformers, ...).
# The root modules of harness/ and the plugins' packages (tasks/, models/, metrics/, builders/) too.
TOP_LEVEL_IMPORTS_ONLY = (
    "cli", "config", "plugins", "data", "scoring", "results", "cache", "engine", "contract", "frames", "report"
)
ALLOWED_FUNCTION_LEVEL_IMPORTS: set[str] = set()
ALLOWED_CYCLES: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's packages."""
    out = {}
    for package in PACKAGES:
        folder = REPO / PACKAGE_DIRS[package]
        for path in sorted(folder.rglob("*.py")):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _rel(module: str) -> str:
    return MODULES[module].relative_to(REPO).as_posix()


def _imported_module(module: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module `from X import ...` reads in `module` (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if MODULES[module].name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _module_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports run when the module loads: top level, and inside top-level if/try blocks (including
    `if TYPE_CHECKING:`, since a type-only import back is still a back-and-forth between two modules)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", []))):
                yield from _module_level_imports(block)
            yield from _module_level_imports(getattr(node, "finalbody", []))


def _import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, tree in TREES.items():
        for node in _module_level_imports(tree.body):
            if isinstance(node, ast.Import):
                graph[module] |= {a.name for a in node.names if a.name in MODULES}
                continue
            source = _imported_module(module, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:  # `from package import module`
                    graph[module].add(f"{source}.{alias.name}")
                elif source in MODULES:
                    graph[module].add(source)
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan), each as a sorted tuple."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _functions(
    node: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, definition) of every function and method, nested ones included."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                yield name, child
            yield from _functions(child, f"{name}.")
        else:
            yield from _functions(child, prefix)


def _check(found: set, allowed: set, what: str) -> None:
    new, fixed = sorted(found - allowed), sorted(allowed - found)
    assert not new, f"{what}:\n" + "\n".join(map(str, new))
    assert not fixed, f"fixed, so remove from the allow-list in {Path(__file__).name}:\n" + "\n".join(
        map(str, fixed)
    )


def _private_imports(module: str, tree: ast.Module) -> set[str]:
    """`source.name` for every `_name` of the project's modules that `module` imports, at any depth."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _imported_module(module, node)
            if source.split(".")[0] in PACKAGES:
                found |= {
                    f"{source}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                }
    return found


def _function_level_imports(module: str, tree: ast.Module) -> set[str]:
    """The project's modules that `module` imports inside a function (at any depth)."""
    found = set()
    for _, fn in _functions(tree):
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                names = [_imported_module(module, node)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found |= {name for name in names if name.split(".")[0] in PACKAGES}
    return found


def _long_functions(tree: ast.Module) -> set[str]:
    return {name for name, fn in _functions(tree) if fn.end_lineno - fn.lineno + 1 > MAX_FUNCTION_LINES}


def test_no_module_imports_a_private_name_of_another():
    found = {f"{_rel(m)}: {name}" for m, tree in TREES.items() for name in _private_imports(m, tree)}
    _check(
        found,
        ALLOWED_PRIVATE_IMPORTS,
        "private names imported across modules (make them public or move them)",
    )


def test_no_function_runs_over_80_lines():
    found = {f"{_rel(m)}: {name}" for m, tree in TREES.items() for name in _long_functions(tree)}
    _check(
        found,
        ALLOWED_LONG_FUNCTIONS,
        f"functions over {MAX_FUNCTION_LINES} lines (split where a name explains a part)",
    )


def test_the_core_imports_its_own_modules_at_the_top():
    folders = tuple(f"harness/{package}/" for package in TOP_LEVEL_IMPORTS_ONLY)
    folders += ("tasks/", "models/", "metrics/", "builders/")  # the plugins too
    found = {
        f"{_rel(m)}: {name}"
        for m, tree in TREES.items()
        if _rel(m).startswith(folders) or _rel(m).count("/") == 1 and _rel(m).startswith("harness/")
        for name in _function_level_imports(m, tree)
    }
    _check(found, ALLOWED_FUNCTION_LEVEL_IMPORTS, "function-level imports of the project's own modules")


def test_no_import_cycles():
    _check(
        _cycles(_import_graph()), ALLOWED_CYCLES, "modules importing each other (directly or round a cycle)"
    )


def test_the_core_root_holds_only_its_public_faces():
    """The public faces (api, errors, hookspecs, __main__, ...) at the root; the machinery in packages."""
    root_modules = sorted(p.name for p in (REPO / "harness").glob("*.py"))
    assert len(root_modules) <= MAX_ROOT_MODULES, root_modules


def test_the_checks_see_what_they_look_for():
    """The detectors on made-up code: private imports (relative ones resolved), long methods, cycles."""
    code = "from harness.a import _hidden, shown, __version__\n\nclass C:\n    def run(self):\n"
    tree = ast.parse(code + "        from .b import _other\n" + "        x = 1\n" * 79)
    assert _private_imports("harness.engine.runner", tree) == {"harness.a._hidden", "harness.engine.b._other"}
    assert _long_functions(tree) == {"C.run"}  # 81 lines
    assert _long_functions(ast.parse("def f():\n" + "    x = 1\n" * 79)) == set()  # 80 lines
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert _cycles({"a": {"b"}, "b": set()}) == set()
    lazy = ast.parse("import os\n\ndef f():\n    import harness.api\n    from . import sibling\n    import torch\n")
    assert _function_level_imports("harness.cli.main", lazy) == {"harness.api", "harness.cli"}


def test_every_hook_has_a_protocol_and_every_built_in_plugin_satisfies_it():
    """Each hook field a task YAML can name has its contract in harness/contract/hooks.py; every built-in task
    builds with its hooks checked against them (signatures, declared return types), every group's aggregate
    hook fits its contract, and every registered model class keeps the model methods' signatures."""
    fields = {f"hooks.{name}" for name in HooksConfig.model_fields} | {"dataset.loader", "dataset.process_docs"}
    assert fields | {"metadata.calibration"} <= set(HOOKS), fields - set(HOOKS)
    assert all(isinstance(c.protocol, type) and "__call__" in vars(c.protocol) for c in HOOKS.values())
    state = load_plugins()
    checked = 0
    for entry in state.registry.entries("task"):
        if Path(entry.extra["path"]).resolve().is_relative_to(REPO):
            if entry.extra.get("group"):
                expand_tasks(state, [entry.name])  # its aggregate hook resolved and checked
            else:
                build_task(state, entry.name)
            checked += 1
    assert checked > 50
    models = [e for e in state.registry.entries("model") if e.source.startswith("source tree")]
    assert len(models) >= 3
    for entry in models:
        cls = entry.load()
        check_model_class(cls)
        assert all(callable(getattr(cls, m)) for m in vars(ModelMethods) if not m.startswith("_"))


#: lmms-eval's TaskConfig fields typed Callable (lmms_eval/api/task.py), as the `lmms` section names them; the
#: section's other fields hold no function. A new field of LmmsConfig must be put in one of the two.
LMMS_FUNCTION_FIELDS = {"doc_to_visual", "doc_to_text", "doc_to_target", "doc_to_choice", "doc_to_messages", "process_results"}
LMMS_PLAIN_FIELDS = {"specific_kwargs", "generation_kwargs_by_model", "target_kwargs_by_model", "output_type", "score_key", "description"}


def test_every_kind_of_reference_a_task_config_holds_has_a_protocol():
    """A native config, an lmms-eval config and a group config with a reference in every field that takes one:
    each reference is listed (harness/data/hook_refs.py, what a task or group checks when it is built or
    expanded) and maps to a Protocol of harness/contract/hooks.py."""
    assert set(LmmsConfig.model_fields) == LMMS_FUNCTION_FIELDS | LMMS_PLAIN_FIELDS
    assert LMMS_FUNCTION_FIELDS <= set(LMMS_HOOKS)
    fn = {"!function": "u.py:f"}
    hooks = {name: "h.py:f" for name in HooksConfig.model_fields}
    native = TaskConfig.model_validate({
        "task": "t", "version": 1, "hooks": hooks, "metadata": {"calibration": "h.py:calibrate"},
        "dataset": {"loader": "h.py:load", "process_docs": "h.py:docs", "hub": {"repo_id": "o/r", "patterns_hook": "h.py:p"}},
        "metrics": [{"name": "m", "aggregation": "h.py:agg"}],
        "filter_list": [{"name": "own", "filter": [{"function": fn}, {"class": "u.py:F"}, {"function": "regex"}]}],
    })  # fmt: skip
    lmms_eval = translate({
        "task": "t", "dataset_path": "json", "process_docs": fn, **{k: fn for k in LMMS_FUNCTION_FIELDS},
        "metric_list": [{"metric": "acc", "aggregation": fn}], "lmms_eval_specific_kwargs": {"default": {}},
    }, "t.yaml")  # fmt: skip
    native_refs = references(native)
    lmms_refs = references(TaskConfig.model_validate(lmms_eval))
    expected_native = {f"hooks.{k}" for k in hooks} | {"metadata.calibration", "dataset.loader", "dataset.process_docs"}
    expected_native |= {"dataset.hub.patterns_hook", "metrics[0].aggregation"}
    expected_native |= {"filter_list[0].filter[0].function", "filter_list[0].filter[1].class"}
    assert {f for f, _ in native_refs} == expected_native
    expected_lmms = {f"lmms.{k}" for k in LMMS_FUNCTION_FIELDS} | {"dataset.process_docs", "metrics[0].aggregation"}
    assert {f for f, _ in lmms_refs} == expected_lmms
    group = GroupConfig.model_validate({
        "group": "g", "task": ["t"], "hooks": {name: "h.py:f" for name in GroupHooksConfig.model_fields},
        "aggregate_metric_list": [{"metric": "acc", "aggregation": "h.py:agg"}, {"metric": "acc"}],
    })  # fmt: skip
    group_refs = group_references(group)
    assert {f for f, _ in group_refs} == {f"hooks.{k}" for k in GroupHooksConfig.model_fields} | {
        "aggregate_metric_list[0].aggregation"
    }
    kinds = [(f, False) for f, _ in native_refs + lmms_refs] + [(f, True) for f, _ in group_refs]
    for field_name, in_group in kinds:
        contract = contract_of(field_name, group=in_group)
        assert contract is not None, field_name
        method = vars(contract.protocol).get(contract.method)
        assert isinstance(contract.protocol, type) and callable(method) and contract.protocol.__doc__, field_name


def _attribute_writes(func: ast.AST, names: tuple[str, ...]) -> list[str]:
    """`name.attr` targets of assignments (plain, augmented, annotated, unpacked) inside `func` whose object is
    one of `names` (an item written into a dict attribute, `name.cache[key] = ...`, is not an attribute set)."""
    out = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in names:
                out.append(f"{t.value.id}.{t.attr}")
    return out


def test_no_attribute_of_a_task_is_set_after_it_is_built(tmp_path):
    """A Task gets its config, data root, cache and run context when it is built (harness/data/task.py): its
    classes set attributes in `__init__` only, no module sets an attribute of a task, and a built task refuses."""
    found = set()
    for module in ("harness.data.task", "harness.data.lmms_task"):
        for cls in (n for n in TREES[module].body if isinstance(n, ast.ClassDef) and "Task" in n.name):
            for func in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name != "__init__"):
                found |= {f"{_rel(module)}: {cls.name}.{func.name} sets {w}" for w in _attribute_writes(func, ("self",))}
    for module, tree in TREES.items():
        if module.startswith(("harness.", "harness_tasks", "harness_models")):
            found |= {f"{_rel(module)}: sets {w}" for w in _attribute_writes(tree, ("task",))}
    assert not found, "\n".join(sorted(found))
    task = Task(TaskConfig(task="frozen", version=1), tmp_path)
    with pytest.raises(AttributeError, match="immutable once built"):
        task.data_root = tmp_path
    assert task.with_run(RunContext(model_names=("m",))).model_names == ("m",) and task.model_names == ()


# Results are built in one place (issue 36): the scoring module; the upgrade of old files reshapes what it reads.
RESULTS_BUILDERS = {"harness.scoring.recording", "harness.results.upgrade"}
RESULTS_KEYS = frozenset(
    {"schema_version", "task_results", "group_results", "samples_files", "rescored_from", "created", "imported_from"}
)


def _results_building(tree: ast.Module) -> set[str]:
    """Where code builds a results dict: a dict display with a results key, or an assignment to one
    (`x["task_results"] = ...`)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            found |= {f"line {node.lineno}: {{{k!r}: ...}}" for k in keys & RESULTS_KEYS}
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value in RESULTS_KEYS:
                    found.add(f"line {node.lineno}: [{t.slice.value!r}] = ...")
    return found


def test_results_are_built_only_by_the_scoring_module():
    found = {
        f"{_rel(m)}: {where}"
        for m, tree in TREES.items()
        if m.startswith("harness.") and m not in RESULTS_BUILDERS
        for where in _results_building(tree)
    }
    _check(found, set(), "results built outside harness.scoring.recording (build them there)")
    sample = ast.parse('r = {"schema_version": 2}\nr["task_results"] = {}\nother = {"task": 1}\n')
    assert len(_results_building(sample)) == 2


# -- no module-global stores (issue 36 part 3) ---------------------------------------------------------------
# Per-run state travels with the run (RunConfig, RunContext, the evaluator's HashStore), never in a module
# global: a module-level name bound to a mutable container is a constant table, named UPPER_CASE and never
# changed by a function; anything else fails, as does any `global` statement. Memos of a pure key are bounded
# functools.lru_caches. The few process stores that cannot be otherwise are listed here with their reason.
ALLOWED_MODULE_STORES = {
    "harness/data/archives.py: _unpacked": "the folders this process unpacked: a fact of the process (the "
    "harness wrote them), read by the media confinement check of every task's rows (is_unpacked)",
    "metrics/ptb_java.py: _tokens": "Java's tokens per caption, filled by a task's prepare_scoring hook and "
    "read by its score hook, neither of which is handed a run object; bounded (_MEMO_MAX)",
}
ALLOWED_TABLE_WRITES = {
    "builders/cyclist/questions/functions.py: FUNCTIONS": "filled at import by the @_register decorator, "
    "read-only once the module is loaded",
}
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque"}
CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear", "remove", "discard"}


def _is_container(value: ast.AST) -> bool:
    if isinstance(value, CONTAINERS):
        return True
    func = value.func if isinstance(value, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in CONTAINER_CALLS


def _is_constant_name(name: str) -> bool:
    return name.lstrip("_").isupper() or (name.startswith("__") and name.endswith("__"))


def _module_containers(body: list[ast.stmt]) -> Iterator[str]:
    """Names bound to a mutable container when the module loads (top level, and in top-level if/try)."""
    for node in body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _is_container(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from (t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, getattr(node, "finalbody", []), *(h.body for h in getattr(node, "handlers", []))):
                yield from _module_containers(block)


def _module_stores(tree: ast.Module) -> set[str]:
    """Module-level containers not named as constants, and every `global` statement."""
    found = {name for name in _module_containers(tree.body) if not _is_constant_name(name)}
    found |= {f"global {', '.join(n.names)}" for n in ast.walk(tree) if isinstance(n, ast.Global)}
    return found


def _table_writes(tree: ast.Module) -> set[str]:
    """UPPER_CASE module-level containers that a function changes (item writes, deletes, mutating calls)."""
    tables = {name for name in _module_containers(tree.body) if _is_constant_name(name)}
    found = set()
    for _, fn in _functions(tree):
        for node in ast.walk(fn):
            targets = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            found |= {t.value.id for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                if isinstance(node.func.value, ast.Name):
                    found.add(node.func.value.id)
    return found & tables


def test_no_module_global_stores():
    found = {f"{_rel(m)}: {name}" for m, tree in TREES.items() for name in _module_stores(tree)}
    _check(
        found,
        set(ALLOWED_MODULE_STORES),
        "module-level mutable stores or `global` statements (per-run state travels with the run: pass it; "
        "a memo of a pure key is a bounded functools.lru_cache; a constant table is UPPER_CASE)",
    )


def test_constant_tables_are_not_changed_at_run_time():
    found = {f"{_rel(m)}: {name}" for m, tree in TREES.items() for name in _table_writes(tree)}
    _check(found, set(ALLOWED_TABLE_WRITES), "UPPER_CASE tables changed by a function (a store named as a constant)")


def test_the_state_checks_see_what_they_look_for():
    code = (
        "import collections\nTABLE = {'a': 1}\nNAMES = [x for x in 'ab']\n__all__ = ['f']\n_memo = {}\n"
        "cache: dict = dict()\ntry:\n    _seen = collections.OrderedDict()\nexcept ImportError:\n    pass\n"
        "_lock = object()\nLIMIT = 3\n\ndef f(k):\n    global _lock\n    TABLE[k] = 2\n    NAMES.append(k)\n"
        "    local = {}\n    local[k] = 1\n"
    )
    tree = ast.parse(code)
    assert _module_stores(tree) == {"_memo", "cache", "_seen", "global _lock"}
    assert _table_writes(tree) == {"TABLE", "NAMES"}
    assert _table_writes(ast.parse("TABLE = {}\nTABLE['x'] = 1\n\ndef f():\n    return TABLE['x']\n")) == set()
