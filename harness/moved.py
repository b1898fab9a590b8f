"""Old import paths of the modules regrouped into packages in 0.2: `import harness.model` still gives
`harness.contract.model` (the same module object, so patches and isinstance checks agree), with a
DeprecationWarning. The aliases go in 1.0; docs/architecture.md maps every old path to its new one.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

REMOVAL_VERSION = "1.0"
# old module -> new module (harness.plugins and harness.results are packages now and re-export their module)
MOVED = {
    "harness.cache.content_hash": "harness.frames.content_hash",  # moved in 0.2 after the regroup
    "harness.adapt": "harness.engine.fitting",
    "harness.aggregate": "harness.scoring.task_results",
    "harness.aggregations": "harness.scoring.aggregations",
    "harness.builder": "harness.contract.builder",
    "harness.completeness": "harness.scoring.completeness",
    "harness.distributed": "harness.engine.distributed",
    "harness.evaluator": "harness.engine.evaluator",
    "harness.extras": "harness.plugins.extras",
    "harness.hash_index": "harness.cache.hash_index",
    "harness.hf_data": "harness.data.hf_datasets",
    "harness.hooks": "harness.plugins.references",
    "harness.importers": "harness.contract.importer",
    "harness.judging": "harness.engine.judging",
    "harness.lm_eval_compat": "harness.results.lm_eval_keys",
    "harness.lmms_task": "harness.data.lmms_task",
    "harness.locking": "harness.cache.locking",
    "harness.media": "harness.data.media",
    "harness.media_hash": "harness.frames.content_hash",
    "harness.model": "harness.contract.model",
    "harness.pipeline": "harness.engine.generation",
    "harness.registry": "harness.plugins.registry",
    "harness.requests": "harness.contract.messages",
    "harness.run_config": "harness.config.run",
    "harness.runner": "harness.engine.runner",
    "harness.task": "harness.data.task",
    "harness.templates": "harness.data.templates",
}


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already-imported new module under its old name, leaving the module's own spec intact."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; the old path goes in {REMOVAL_VERSION}",
            DeprecationWarning,
            stacklevel=3,
        )
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.real_spec  # the import system stamped the alias's spec on it


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old names in MOVED (and nothing else)."""

    def find_spec(self, fullname: str, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the finder on sys.meta_path once (harness/__init__.py calls this)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())


def reexport_lazily(package: str, module: str):
    """A module-level `__getattr__` for `package` that serves the names of `module`, importing it on first use
    (harness.plugins and harness.results were modules before the regroup; their names still import)."""

    def __getattr__(name: str):
        try:
            return getattr(importlib.import_module(module), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
