"""Task configs: schema errors name file and field, includes and variants, groups, sandboxed templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.config.index import index_task_path
from harness.config.run import parse_frames, parse_kv
from harness.config.schema import parse_task_config
from harness.data.task import MediaPathError, Task, safe_media_path
from harness.errors import ConfigError


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text)
    return p


def test_config_error_names_file_field_and_expectation(tmp_path):
    p = _write(tmp_path, "bad.yaml", "task: t\nversion: 1\nframes: {strategy: uniform}\nmetircs: []\n")
    (entry,) = index_task_path(p)
    with pytest.raises(ConfigError) as exc:
        parse_task_config(entry.extra["config"], entry.extra["path"])
    text = str(exc.value)
    assert str(p) in text
    assert "field 'metircs': unknown field" in text
    assert "field 'frames'" in text and "needs 'count'" in text


def test_wrong_type_is_named(tmp_path):
    p = _write(tmp_path, "t.yaml", "task: t\nversion: 1\ngeneration: [1, 2]\n")
    (entry,) = index_task_path(p)
    with pytest.raises(ConfigError, match=r"field 'generation'.*dictionary"):
        parse_task_config(entry.extra["config"], str(p))


def test_include_and_variants_merge(tmp_path):
    _write(
        tmp_path,
        "_base.yaml",
        "version: 3\nframes: {strategy: segment, count: 4}\ngeneration: {max_new_tokens: 5}\n",
    )
    p = _write(
        tmp_path,
        "a.yaml",
        "include: _base.yaml\ntask: a\ngeneration: {temperature: 0}\n"
        "variants:\n  - {task: a_x, frames: {count: 8}}\n",
    )
    entries = {e.name: e for e in index_task_path(tmp_path)}
    assert set(entries) == {"a", "a_x"}  # the _base file is not a task
    a = parse_task_config(entries["a"].extra["config"], str(p))
    ax = parse_task_config(entries["a_x"].extra["config"], str(p))
    assert a.version == 3 and a.generation == {"max_new_tokens": 5, "temperature": 0}
    assert a.frames.count == 4 and ax.frames.count == 8 and ax.frames.strategy == "segment"
    assert ax.variant_of == "a"


def test_yaml_syntax_error_names_file(tmp_path):
    p = _write(tmp_path, "x.yaml", "task: [unclosed\n")
    with pytest.raises(ConfigError, match="x.yaml: not valid YAML"):
        index_task_path(p)


def test_media_paths_cannot_escape_dataset(tmp_path):
    assert safe_media_path(tmp_path, "videos/a.mp4", "t") == (tmp_path / "videos/a.mp4").resolve()
    for bad in ("../secret.mp4", "videos/../../x.mp4", "/etc/passwd"):
        with pytest.raises(MediaPathError, match="dataset folder|absolute"):
            safe_media_path(tmp_path, bad, "t")


def test_templates_are_sandboxed(tmp_path):
    _write(tmp_path, "evil.jinja", "{{ question.__class__.__mro__[1].__subclasses__() }}")
    p = _write(tmp_path, "t.yaml", "task: t\nversion: 1\nprompt: {template: evil.jinja}\n")
    (entry,) = index_task_path(p)
    task = Task(parse_task_config(entry.extra["config"], str(p)), tmp_path)
    with pytest.raises(ConfigError, match="SecurityError|unsafe"):
        task.render_prompt({"question": "hi", "doc_id": "1"})


def test_kv_and_frames_flags():
    assert parse_kv("pretrained=/m,max_frames=8,flag=true,x=1.5", "--model_args") == {
        "pretrained": "/m",
        "max_frames": 8,
        "flag": True,
        "x": 1.5,
    }
    with pytest.raises(ConfigError, match="key=value"):
        parse_kv("novalue", "--model_args")
    spec = parse_frames("uniform:16,max_side=448")
    assert (spec.strategy, spec.count, spec.max_side) == ("uniform", 16, 448)
    assert parse_frames("fps:2").rate == 2.0
    with pytest.raises(ConfigError, match="--frames"):
        parse_frames("uniform")
