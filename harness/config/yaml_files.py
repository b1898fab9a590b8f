"""Task YAML files as read: safe YAML with lm-eval's `!function module.fn` tag, and `include:` chains deep-merged.

What both the task index (harness/config/index.py) and lm-eval's format (harness/config/lmms.py) read: a
`!function` reference is kept as the mapping {FUNCTION_TAG: "module:function"}, told apart from strings.

A task folder is someone else's input, so reading one is bounded: a file is composed into nodes first and
refused (ConfigError naming it) when its aliases expand to more than MAX_YAML_NODES nodes ("billion laughs"),
nest deeper than MAX_YAML_DEPTH or refer to themselves, before anything is built; and an `include:` must
resolve (symlinks followed) inside the folder the task was found in (`root`), never outside it.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Optional

import yaml

from harness.errors import ConfigError
from harness.files import read_text_file

try:
    _Base = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Base = yaml.SafeLoader

#: the most nodes a task YAML may hold once its aliases are expanded (real task files hold a few hundred)
MAX_YAML_NODES = 100_000
#: the deepest nesting a task YAML may have
MAX_YAML_DEPTH = 64
#: the largest task YAML file read, in bytes
MAX_YAML_BYTES = 4 * 1024 * 1024

#: key of the mapping that stands for an lm-eval / lmms-eval `!function module.function` reference
FUNCTION_TAG = "!function"


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """Safe YAML plus lm-eval's `!function utils.fn` tag (read as {"!function": "utils.fn"})."""


_Loader.add_constructor(FUNCTION_TAG, lambda loader, node: {FUNCTION_TAG: loader.construct_scalar(node)})


def function_ref(value: str, base_dir: Path) -> str:
    """A hook reference for lm-eval's `module.function`: `DIR/module.py:function` when that file sits next to
    the YAML that names it (lm-eval's rule), else the importable `module:function`."""
    module, _, func = value.strip().rpartition(".")
    if not module or not func:
        raise ConfigError(f"!function {value!r}: expected 'module.function'")
    candidate = base_dir / (module.replace(".", "/") + ".py")
    return f"{candidate.resolve()}:{func}" if candidate.exists() else f"{module}:{func}"


def _resolve_functions(data, base_dir: Path):
    if isinstance(data, dict):
        if set(data) == {FUNCTION_TAG}:
            return {FUNCTION_TAG: function_ref(str(data[FUNCTION_TAG]), base_dir)}
        return {k: _resolve_functions(v, base_dir) for k, v in data.items()}
    if isinstance(data, list):
        return [_resolve_functions(v, base_dir) for v in data]
    return data


def deep_merge(base: dict, over: dict) -> dict:
    """A copy of `base` with `over` merged into it recursively (dicts merge, everything else replaces)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _expanded_size(node: yaml.Node, path: Path, depth: int, memo: dict[int, int], open_: set[int]) -> int:
    """How many nodes `node` stands for once every alias is expanded (shared nodes counted each time)."""
    key = id(node)
    if key in memo:
        return memo[key]
    if depth > MAX_YAML_DEPTH:
        raise ConfigError(f"{path}: nested deeper than {MAX_YAML_DEPTH} levels; refusing to read it")
    if key in open_:
        raise ConfigError(
            f"{path}: an alias refers to a node that contains it (a recursive YAML); refusing it"
        )
    open_.add(key)
    children: list = []
    if isinstance(node, yaml.SequenceNode):
        children = node.value
    elif isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    total = 1
    for child in children:
        total += _expanded_size(child, path, depth + 1, memo, open_)
        if total > MAX_YAML_NODES:
            raise ConfigError(
                f"{path}: its aliases expand to more than {MAX_YAML_NODES} nodes (an alias bomb?); refusing to read it"
            )
    open_.discard(key)
    memo[key] = total
    return total


def _load_bounded(text: str, path: Path):
    """The document in `text`, composed and size-checked (`_expanded_size`) before it is constructed."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, path, 0, {}, set())
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_yaml(path: Path) -> dict:
    """Parse one YAML file into a dict, naming the file on any error."""
    try:  # a regular file within the bound, never a FIFO that would block (harness.files)
        text = read_text_file(path, "YAML file", MAX_YAML_BYTES, ConfigError)
        data = _load_bounded(text, Path(path))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from exc
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read; refusing it") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    return _resolve_functions(data, Path(path).parent)


def _include_path(path: Path, name, root: Path) -> Path:
    """The file an `include:` entry names, resolved and confined to `root` (the task folder)."""
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}: field 'include': expected a file name or a list of them, got {name!r}")
    given = Path(name)
    real = (path.parent / given).resolve()
    if given.is_absolute() or not real.is_relative_to(root):
        how = "is an absolute path" if given.is_absolute() else f"resolves to {real},"
        raise ConfigError(
            f"{path}: field 'include': '{name}' {how} outside the task folder {root}; copy the file into "
            "the task folder (or name the folder that holds both with --include_path)"
        )
    if not real.is_file():
        raise ConfigError(f"{path}: field 'include': file '{name}' not found next to it")
    return real


def load_with_includes(path: Path, root: Optional[Path] = None, _seen: tuple = ()) -> dict:
    """Read a YAML file and resolve its `include:` chain (relative to the including file, inside `root`:
    the task folder the file was found in, by default the file's own folder)."""
    path = Path(path)
    root = Path(root if root is not None else path.parent).resolve()
    if path in _seen:
        raise ConfigError(f"{path}: include cycle through {' -> '.join(str(p) for p in _seen)}")
    data = read_yaml(path)
    inc = data.pop("include", None)
    if inc is None:
        return data
    bases = inc if isinstance(inc, list) else [inc]
    merged: dict = {}
    for b in bases:
        base_path = _include_path(path, b, root)
        merged = deep_merge(merged, load_with_includes(base_path, root, _seen + (path,)))
    return deep_merge(merged, data)
