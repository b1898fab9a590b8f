"""An install's and a plugin author's first mistakes are one-line errors: a plugin that finds none of its
task files makes `ls` fail (never an empty listing with exit 0), a task without data says to pass --data
(never a traceback from its loader), and global flags work before the subcommand too."""

from __future__ import annotations

import json
import shutil

from conftest import PLUGIN_PKG, harness_env, run_harness, write_dist_info
from harness.cli.global_flags import subcommand_first
from harness.cli.main import main as cli_main
from harness_builders.cyclist.questions import templates as question_templates
from harness_builders.cyclist.questions.sample_scenes import make_scene

TASKS_DIR = PLUGIN_PKG / "harness_colors" / "tasks"
EMPTY_PLUGIN = '''import pluggy

hookimpl = pluggy.HookimplMarker("harness")


@hookimpl
def register_tasks(register):
    register("configs")  # a folder the install did not ship any YAML into
'''


def test_a_plugin_whose_task_files_are_missing_makes_ls_fail(tmp_path):
    site = tmp_path / "site"
    (site / "harness_nofiles" / "configs").mkdir(parents=True)
    (site / "harness_nofiles" / "__init__.py").write_text(EMPTY_PLUGIN)
    write_dist_info(site, "harness-nofiles", "1.0", {"nofiles": "harness_nofiles"})
    env = harness_env(None)
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    r = run_harness(["ls", "tasks"], env, timeout=120)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    assert "holds no task YAML" in r.stdout and "configs" in r.stdout
    assert "plugin(s) 'nofiles' registered nothing" in r.stderr
    assert "cyclist_l1" in r.stdout  # the healthy plugins are still listed


def test_a_task_whose_loader_has_no_data_is_a_one_line_error(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, folder)
    args = ["--include_path", str(folder), "--tasks", "colors_qa_color", "--model", "oracle"]
    r = run_harness([*args, "--output_path", str(tmp_path / "o"), "--cache_dir", str(tmp_path / "c")], harness_env(None))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "TypeError" not in r.stderr
    assert "task 'colors_qa_color': no dataset given: pass --data DIR" in r.stderr


def test_include_path_works_before_the_subcommand(tmp_path):
    r = run_harness(["--include_path", str(TASKS_DIR), "ls", "tasks"], harness_env(None), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "colors_qa" in r.stdout


def test_global_flags_move_behind_the_subcommand_only():
    assert subcommand_first(["--include_path", "X", "ls", "tasks"]) == ["ls", "tasks", "--include_path", "X"]
    assert subcommand_first(["--include_path=X", "ls", "tasks"]) == ["ls", "tasks", "--include_path=X"]
    run_form = ["--include_path", "X", "--tasks", "a", "--model", "oracle"]
    assert subcommand_first(run_form) == run_form
    assert subcommand_first(["ls", "tasks", "--include_path", "X"]) == ["ls", "tasks", "--include_path", "X"]


def _static_scene_folder(tmp_path):
    scene = make_scene(
        [
            {"mesh": "Cube", "color": "red", "location": (-3, 0)},
            {"mesh": "Sphere", "color": "blue", "location": (3, 0)},
        ]
    )
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    (scenes / "scene_0.json").write_text(json.dumps(scene))
    return scenes


def test_a_question_build_that_makes_no_question_fails_saying_why(tmp_path, capsys):
    scenes = _static_scene_folder(tmp_path)  # nothing moves: no orbit question can be asked
    args = ["build", "cyclist-questions", "--scenes", str(scenes), "--out", str(tmp_path / "q.json")]
    assert cli_main([*args, "--families", "cycle_representative_orbit"]) == 2
    err = capsys.readouterr().err
    assert "0 questions for 1 scenes" in err and "no template fits" in err
    assert not (tmp_path / "q.json").exists()


def test_built_in_templates_missing_from_an_install_fail_the_build(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "templates"
    empty.mkdir()
    monkeypatch.setattr(question_templates, "TEMPLATE_DIR", empty)
    question_templates._default_templates.cache_clear()
    try:
        args = ["build", "cyclist-questions", "--scenes", str(_static_scene_folder(tmp_path)), "--out", str(tmp_path / "q")]
        assert cli_main(args) == 2
    finally:
        question_templates._default_templates.cache_clear()
    assert "has no *.json files; reinstall the harness" in capsys.readouterr().err
