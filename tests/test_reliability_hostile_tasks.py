"""Task folders are confined and bounded: hostile YAML (alias bombs, includes out of the folder, deep nesting)
is refused by file name while the well-formed tasks beside it load; hostile templates (object reprs, nested
loops, string growth) are refused quickly. The corpus lives in tests/hostile/."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from harness.config.index import index_task_path
from harness.config.schema import parse_task_config
from harness.data.task import RowFieldError, Task
from harness.errors import ConfigError

CORPUS = Path(__file__).parent / "hostile"
GOOD = "task: good_task\nversion: 1\nprompt: {text: 'Q: {{ question }}'}\n"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tasks"
    shutil.copytree(CORPUS / "task_yaml", folder)
    (folder / "good.yaml").write_text(GOOD)
    (folder / "deep.yaml").write_text("task: deep\nv: " + "[" * 200_000 + "]" * 200_000 + "\n")
    (folder / "nested_100.yaml").write_text("task: nested\nv: " + "[" * 100 + "]" * 100 + "\n")
    (tmp_path / "outside.yaml").write_text("task: stolen\nsecret: outside the task folder\n")
    (folder / "link_out.yaml").write_text("include: linked.yaml\ntask: link_out\nversion: 1\n")
    (folder / "linked.yaml").symlink_to(tmp_path / "outside.yaml")
    return folder


def test_hostile_yaml_is_refused_by_name_and_the_good_task_still_loads(tmp_path):
    folder = _folder(tmp_path)
    errors: list[str] = []
    start = time.monotonic()
    entries = index_task_path(folder, errors=errors)
    assert time.monotonic() - start < 5, "alias bombs are refused before they are built"
    assert "good_task" in {e.name for e in entries}
    assert not {"laughs", "merge_laughs", "stolen", "include_parent", "include_absolute", "link_out"} & {
        e.name for e in entries
    }, "nothing from outside the folder, and no alias bomb, is merged"
    expected = {
        "billion_laughs.yaml": "aliases expand to more than",
        "merge_key_laughs.yaml": "aliases expand to more than",
        "recursive_alias.yaml": "recursive",
        "include_absolute.yaml": "absolute path outside the task folder",
        "include_parent.yaml": "outside the task folder",
        "link_out.yaml": "outside the task folder",
        "include_not_a_name.yaml": "expected a file name",
        "not_utf8.yaml": "not UTF-8",
        "deep.yaml": "nesting depth",
        "nested_100.yaml": "nested deeper than",
    }
    for name, why in expected.items():
        (line,) = [e for e in errors if f"{folder / name}:" in e]
        assert why in line and "\n" not in line, line


def test_an_include_inside_the_named_folder_is_kept(tmp_path):
    folder = tmp_path / "suite"
    (folder / "sub").mkdir(parents=True)
    (folder / "_base.yaml").write_text("version: 1\nprompt: {text: 'Q: {{ question }}'}\n")
    (folder / "sub" / "t.yaml").write_text("include: ../_base.yaml\ntask: t\n")
    (entry,) = index_task_path(folder)
    assert entry.extra["config"]["prompt"] == {"text": "Q: {{ question }}"}
    with pytest.raises(ConfigError, match="outside the task folder"):
        index_task_path(folder / "sub" / "t.yaml")  # named alone, its folder is sub/


REFUSED = {
    "format_repr.jinja": "No filter named 'format'",
    "method_repr.jinja": "data only",
    "str_format_repr.jinja": "data only",
    "percent_repr.jinja": "data only",
    "string_filter_repr.jinja": "data only",
    "list_repr.jinja": "data only",
    "nested_range.jinja": "steps",
    "loop_over_product.jinja": "steps",
    "macro_fork.jinja": "ran over",
    "macro_recursion.jinja": "calls itself too deeply",
    "string_times.jinja": "over the limit",
    "list_times.jinja": "over the limit",
    "doubling_plus.jinja": "over the limit",
    "doubling_tilde.jinja": "over the limit",
    "replace_growth.jinja": "over the limit",
    "center_width.jinja": "No filter named 'center'",
    "lipsum.jinja": "'lipsum' is undefined",
    "subclasses.jinja": "unsafe",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_templates_are_refused_quickly_with_the_task_named(tmp_path, name):
    shutil.copy(CORPUS / "templates" / name, tmp_path / name)
    p = tmp_path / "t.yaml"
    p.write_text(f"task: hostile_{name.split('.')[0]}\nversion: 1\nprompt: {{template: {name}}}\n")
    (entry,) = index_task_path(p)
    task = Task(parse_task_config(entry.extra["config"], str(p)), tmp_path)
    start = time.monotonic()
    with pytest.raises((ConfigError, RowFieldError)) as exc:
        task.render_prompt({"question": "hi", "doc_id": "1"})
    assert time.monotonic() - start < 5  # the 2 s render limit, with room for a loaded machine
    text = str(exc.value)
    assert f"hostile_{name.split('.')[0]}" in text and REFUSED[name] in text, text
    assert name in text or isinstance(exc.value, RowFieldError), "the template is named"
    assert "doc '1'" in text, "and the row it was rendering (a row's data can blow the bound too)"
    assert "0x" not in text, "no address leaks into the message"


def test_ordinary_templates_still_render(tmp_path):
    p = tmp_path / "t.yaml"
    text = "Q: {{ question|upper }} {% for o in options %}{{ loop.index ~ '. ' ~ o }} {% endfor %}{{ '{}!'.format(n) }}"
    p.write_text(f'task: fine\nversion: 1\nprompt: {{text: "{text}"}}\n')
    (entry,) = index_task_path(p)
    task = Task(parse_task_config(entry.extra["config"], str(p)), tmp_path)
    doc = {"question": "hi", "options": ["a", "b"], "n": 3, "doc_id": "1"}
    assert task.render_prompt(doc) == "Q: HI 1. a 2. b 3!"
