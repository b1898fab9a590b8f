"""The preset data tables (models/hf/preset_table.py, models/openai_api/preset_table.py) are the one
definition of every preset: the plugins register each row, each registered reference loads the row's class,
and docs/models.md's preset tables say what the data tables hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.plugins.registry import resolve_reference
from harness_models.hf import plugin as hf_plugin
from harness_models.hf.preset_table import FAMILIES, REMOTE
from harness_models.hf.preset_table import PRESETS as HF_TABLE
from harness_models.openai_api import plugin as openai_plugin
from harness_models.openai_api.preset_table import PRESETS as HOSTED_TABLE

DOCS = Path(__file__).parents[1] / "docs" / "models.md"


def _rows(header: str) -> list[list[str]]:
    """The cells of the docs/models.md table under the header line that starts with `header`."""
    lines = DOCS.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(header)), None)
    assert start is not None, f"docs/models.md lost the table starting {header!r}"
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _names(cell: str) -> list[str]:
    """`a_7b` / `_72b` -> a_7b, a_72b (a suffix replaces the first name's last part); full names stay."""
    names = _ticked(cell)
    prefix = names[0].rsplit("_", 1)[0]
    return [names[0]] + [prefix + n if n.startswith("_") else n for n in names[1:]]


def _expand(pattern: str) -> list[str]:
    """`Qwen/Qwen2-VL-{2B,7B}-Instruct` -> both checkpoints."""
    braces = re.search(r"\{([^}]+)\}", pattern)
    if not braces:
        return [pattern]
    return [pattern[: braces.start()] + part + pattern[braces.end() :] for part in braces.group(1).split(",")]


def _frames(cell: str) -> int | None:
    found = re.match(r"(\d+)", cell)
    return int(found.group(1)) if found else None


def _documented_hf() -> dict[str, tuple]:
    """preset -> (checkpoint, recipe, frame budget) as docs/models.md's preset table writes them."""
    documented = {}
    recipe = None
    for cells in _rows("| preset | checkpoint | recipe (source) | frame budget (source) |"):
        names = _names(cells[0])
        if cells[1].startswith("none"):
            checkpoints = [None] * len(names)
        else:
            checkpoints = [c for pattern in _ticked(cells[1]) for c in _expand(pattern)]
        recipe = recipe if cells[2].startswith("same") else _ticked(cells[2])[0]
        assert len(checkpoints) == len(names), cells[:2]
        for name, checkpoint in zip(names, checkpoints, strict=True):
            documented[name] = (checkpoint, recipe, _frames(cells[3]))
    return documented


def test_docs_preset_table_agrees_with_the_data_table():
    documented = _documented_hf()
    table = {
        p.name: (p.checkpoint, FAMILIES[p.family].recipe, FAMILIES[p.family].max_frames) for p in HF_TABLE
    }
    assert set(documented) == set(table) | set(REMOTE)
    assert {name: documented[name] for name in table} == table
    remote = resolve_reference(REMOTE["internvideo2_5_8b"][0])
    assert documented["internvideo2_5_8b"][:2] == (remote.default_pretrained, remote.recipe)


def test_docs_hosted_table_agrees_with_the_data_table():
    documented = {}
    endpoint = None
    for cells in _rows("| preset | served model | endpoint | key variable | frames (source) |"):
        names, served = _names(cells[0]), _ticked(cells[1])
        endpoint = endpoint if cells[2].startswith("same") else _ticked(cells[2])[0]
        for name, model in zip(names, served, strict=True):
            documented[name] = (model, endpoint, _ticked(cells[3])[0], _frames(cells[4]))
    table = {p.name: (p.model, p.base_url, p.api_key_env, p.max_frames) for p in HOSTED_TABLE}
    assert documented == table


@pytest.mark.parametrize("plugin, table", [(hf_plugin, HF_TABLE), (openai_plugin, HOSTED_TABLE)])
def test_every_row_is_registered_and_its_reference_loads_its_class(plugin, table):
    registered = {}
    plugin.register_models(lambda name, ref, description="": registered.__setitem__(name, (ref, description)))
    for preset in table:
        ref, description = registered[preset.name]
        assert description == preset.description
        cls = resolve_reference(ref)
        assert cls.name == preset.name and cls.__qualname__ == preset.name
        assert cls.__doc__.startswith(preset.description)


def test_hf_preset_classes_carry_their_row():
    from harness_models.hf.adapter import HFModel
    from harness_models.hf.presets import PRESETS

    assert list(PRESETS) == [p.name for p in HF_TABLE]
    thinking = PRESETS["qwen3_vl_32b_thinking"]
    assert issubclass(thinking, HFModel)
    assert thinking.default_gen_kwargs == {"max_new_tokens": 8192}
    assert PRESETS["qwen3_vl_32b"].default_gen_kwargs == {"max_new_tokens": 256}
    assert PRESETS["llava_video_72b"].default_pretrained is None
    assert (PRESETS["llava_video_7b"].expected_model_types, PRESETS["llava_video_7b"].default_recipe) == (
        ("llava_onevision",),
        "llava_video_time",
    )
    with pytest.raises(
        ConfigError, match="model 'llava_video_8b': module 'harness_models.hf.presets' has no attribute"
    ):
        resolve_reference("harness_models.hf.presets:llava_video_8b", what="model 'llava_video_8b'")
