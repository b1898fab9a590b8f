"""Refused up front, in one message with the fix, before any model call: a baseline that cannot work on the
data, a model that cannot answer a task's type, batch sizes and limits that select nothing, unknown or bad
`--model_args`, a missing extra (exit 3), and hook files outside the task folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG, harness_env, run_harness, without_packages
from harness.cli.main import main
from harness.engine.model_loading import load_model
from harness.errors import ConfigError
from harness.plugins.loading import load_plugins


def _cli(capsys, *args: str) -> tuple[int, str]:
    code = main(["--no_progress", "--no_cache", *args])
    return code, capsys.readouterr().err


def _colors(tmp_path: Path, colors_root: Path, train: str | None = "keep") -> Path:
    """A copy of the test plugin's dataset; train="empty" leaves an empty train split, None removes it."""
    root = tmp_path / "data"
    shutil.copytree(colors_root / "colors", root / "colors")
    if train == "empty":
        (root / "colors" / "train.jsonl").write_text("")
    elif train is None:
        (root / "colors" / "train.jsonl").unlink()
    return root


@pytest.mark.parametrize("train", ["empty", None])
def test_prior_without_training_rows_is_refused_not_scored_zero(train, with_plugin, colors_root, tmp_path, capsys):
    data = _colors(tmp_path, colors_root, train)
    out = tmp_path / "out"
    code, err = _cli(capsys, "--tasks", "colors_qa", "--model", "prior", "--data", str(data), "--output_path", str(out))
    assert code == 2, err
    assert "task 'colors_qa'" in err and "'prior' baseline" in err and "'train'" in err
    assert "--model random" in err and "Traceback" not in err
    assert not out.exists(), "nothing is written for a refused run"


def test_a_model_that_cannot_answer_the_task_type_is_refused(with_plugin, colors_root, tmp_path, capsys):
    code, err = _cli(capsys, "--tasks", "colors_qa", "--model", "tempcloze_edge", "--data", str(colors_root))
    assert code == 2, err
    assert "model 'tempcloze_edge' answers clip_choice tasks only" in err
    assert "task 'colors_qa' is a text task" in err and "tempcloze_all" in err


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--batch_size", "0"], ["--batch_size 0", "at least 1"]),
        (["--batch_size", "-3"], ["--batch_size -3", "at least 1"]),
        (["--limit", "0"], ["--limit 0", "leave it out to run every sample"]),
        (["--limit", "-2"], ["--limit -2", "at least 1"]),
        (["--limit", "inf"], ["--limit inf", "at least 1"]),  # before: an OverflowError traceback
        (["--limit", "nan"], ["--limit nan", "at least 1"]),
        (["--limit", "0.01"], ["task 'colors_qa'", "--limit 0.01 selects 0 of its 24 rows", "1/24"]),
    ],
)
def test_sizes_that_select_or_send_nothing_are_usage_errors(flags, words, with_plugin, colors_root, capsys):
    code, err = _cli(capsys, "--tasks", "colors_qa", "--model", "random", "--data", str(colors_root), *flags)
    assert code == 2, err
    assert "answer space" not in err, "the message says what happened, not a consequence of it"
    for w in words:
        assert w in err, err


def test_every_built_in_model_refuses_an_unknown_argument_naming_the_accepted_ones():
    state = load_plugins()
    for name in state.registry.names("model"):
        with pytest.raises(ConfigError) as info:
            load_model(state, name, {"no_such_arg": 1})
        assert f"model '{name}': unknown model_args no_such_arg; accepted:" in str(info.value)


@pytest.mark.parametrize(
    "model, args, words",
    [
        ("openai", "model=m,foo=1", ["model 'openai': unknown model_args foo", "base_url", "max_retries"]),
        ("hf", "pretrained=/nowhere,foo=1", ["model 'hf': unknown model_args foo", "pretrained, revision"]),
        ("internvideo2_5_8b", "foo=1", ["unknown model_args foo", "trust_remote_code"]),
        ("openai", "model=m,image_format=gif", ["model 'openai': image_format='gif' is not one of"]),
        ("hf", "pretrained=/nowhere,dtype=int3", ["model 'hf': dtype='int3' is not one of"]),
        ("random", "max_frames=zero", ["model 'random': max_frames='zero' is not a whole number"]),
    ],
)
def test_bad_model_args_are_exit_2_without_a_traceback(model, args, words, with_plugin, colors_root, capsys):
    code, err = _cli(capsys, "--tasks", "colors_qa", "--model", model, "--model_args", args, "--data", str(colors_root))
    assert code == 2, err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


@pytest.mark.parametrize(
    "flags, hidden, words",
    [
        (["--model", "openai", "--model_args", "model=m"], "openai", ["model 'openai' needs the 'openai' extra"]),
        (["--model", "hf", "--model_args", "pretrained=/nowhere"], "torch", ["model 'hf' needs the 'hf' extra"]),
        (
            ["--model", "internvideo2_5_8b", "--model_args", "trust_remote_code=true"],
            "torch",
            ["model 'internvideo2_5_8b' needs the 'hf' extra"],
        ),
        (["--model", "random", "--judge", "openai", "--judge_args", "model=m"], "openai", ["judge 'openai' needs"]),
    ],
)
def test_a_missing_extra_is_exit_3_with_the_install_command(flags, hidden, words, colors_root, plugin_site, tmp_path):
    env = without_packages(harness_env(plugin_site), tmp_path / "site", hidden)
    args = ["--tasks", "colors_qa", *flags, "--data", str(colors_root), "--limit", "2", "--no_cache"]
    proc = run_harness([*args, "--no_progress"], env, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr and 'pip install -e ".[' in proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


# -- hook files stay in the task folder ---------------------------------------------------------------------
EVIL = "from pathlib import Path\nPath({marker!r}).write_text('ran')\n\ndef parse(response, doc):\n    return None\n"


@pytest.fixture
def task_folder(tmp_path) -> Path:
    """A copy of the test plugin's task folder (loaded with --include_path) and a hook file outside it."""
    folder = tmp_path / "tasks" / "colors"
    shutil.copytree(PLUGIN_PKG / "harness_colors" / "tasks", folder)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "evil.py").write_text(EVIL.format(marker=str(tmp_path / "marker")))
    return folder


def _point_parse_at(folder: Path, ref: str) -> None:
    yaml = folder / "colors.yaml"
    yaml.write_text(yaml.read_text().replace("  parse: hooks.py:parse\n", f"  parse: {ref}\n", 1))


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_a_hook_file_outside_the_task_folder_is_refused_before_it_runs(kind, task_folder, colors_root, capsys):
    evil = task_folder.parent.parent / "elsewhere" / "evil.py"
    if kind == "symlink":
        (task_folder / "linked.py").symlink_to(evil)
        ref = "linked.py:parse"
    else:
        ref = "../../elsewhere/evil.py:parse" if kind == "dotdot" else f"{evil}:parse"
    _point_parse_at(task_folder, ref)
    code, err = _cli(
        capsys, "--tasks", "colors_qa", "--model", "oracle", "--include_path", str(task_folder), "--data", str(colors_root)
    )
    assert code == 2, err
    assert "task 'colors_qa'" in err and "field 'hooks.parse'" in err
    assert "outside the task folder" in err or "above the task folder" in err
    assert "dotted import path" in err and "Traceback" not in err
    assert not (task_folder.parent.parent / "marker").exists(), "the outside file was imported"


def test_a_hook_file_in_a_sub_folder_of_the_task_folder_runs(task_folder, colors_root, capsys):
    (task_folder / "lib").mkdir()
    shutil.copy(task_folder / "hooks.py", task_folder / "lib" / "parsers.py")
    _point_parse_at(task_folder, "lib/parsers.py:parse")
    code, err = _cli(
        capsys, "--tasks", "colors_qa", "--model", "oracle", "--include_path", str(task_folder),
        "--data", str(colors_root), "--limit", "4",
    )
    assert code == 0, err
