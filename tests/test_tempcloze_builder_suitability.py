"""The TempCloze builder's suitability filter with a model named as on the evaluation command line: a
registered model of an installed plugin (a test plugin installed through a dist-info folder) with
`--suitability-model-args`, and a 'package.module:Class' reference; bad names and args fail clearly."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from conftest import PLUGIN_PKG, write_dist_info
from harness.api import ConfigError
from harness_builders.tempcloze.commands import TempClozeBuilder
from harness_builders.tempcloze.suitability import load_suitability_model
from harness_builders.tempcloze.synthetic import make_source_folder

MODEL = "scripted_suitability"


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("tc_suit_src")
    make_source_folder(src, count=3, seconds=6.0, fps=10.0, seed=4)
    return src


@pytest.fixture
def suitability_plugin(tmp_path, monkeypatch) -> Path:
    """The test plugin `harness_suitability` installed (entry point `suitability_test`) in this process."""
    site = tmp_path / "site"
    write_dist_info(
        site, "harness-suitability-test", "0.1.0", {"suitability_test": "harness_suitability.plugin"}
    )
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))
    monkeypatch.syspath_prepend(str(site))
    return site


def _build(sources: Path, out: Path, *flags: str) -> dict:
    builder = TempClozeBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    args = parser.parse_args(
        ["--videos", str(sources), "--out", str(out), "--virtual", "--no_progress", *flags]
    )
    assert builder.run(args) == 0
    return json.loads((out / "manifest.json").read_text())


def test_a_registered_model_name_with_args_filters_videos(sources, tmp_path, suitability_plugin):
    m = _build(
        sources, tmp_path / "out", "--suitability-model", MODEL, "--suitability-model-args", "reject=vid01"
    )
    assert m["filters"]["suitability"]["pass"] == 2 and m["filters"]["suitability"]["fail"] == 1
    assert m["skipped"] == {"unsuitable": 1} and m["items"] == ["vid00", "vid02"]
    assert m["measures"]["vid01"]["suitability_answer"] == "No."
    th = m["filters"]["suitability"]["threshold"]
    assert th["enabled"] and th["model"]["name"] == MODEL and th["model"]["args"] == {"reject": ["vid01"]}
    assert m["parameters"]["suitability_model"] == MODEL
    assert m["parameters"]["suitability_model_args"] == "reject=vid01"
    # a JSON object works too (lists need it: k=v pairs split on commas)
    m2 = _build(
        sources,
        tmp_path / "out2",
        "--suitability-model",
        MODEL,
        "--suitability-model-args",
        '{"reject": ["vid00", "vid02"]}',
    )
    assert m2["items"] == ["vid01"] and m2["skipped"] == {"unsuitable": 2}


def test_a_module_class_reference_still_works(sources, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGIN_PKG))  # importable, not installed: no registry involved
    m = _build(
        sources,
        tmp_path / "out",
        "--suitability-model",
        "harness_suitability.models:ScriptedSuitability",
        "--suitability-model-args",
        "reject=vid00+vid02",
    )
    assert m["items"] == ["vid01"] and m["filters"]["suitability"]["fail"] == 2


def test_unknown_names_and_bad_args_are_clear_errors(suitability_plugin):
    with pytest.raises(
        ConfigError, match=r"unknown model 'scripted_suitabilty'.*did you mean 'scripted_suitability'"
    ):
        load_suitability_model("scripted_suitabilty")
    with pytest.raises(ConfigError, match=r"--suitability-model-args: 'oops' is not of the form key=value"):
        load_suitability_model(MODEL, "oops")
    with pytest.raises(ConfigError, match=r"'scripted_suitability': its model args \['colour'\] do not fit"):
        load_suitability_model(MODEL, "colour=red")
    with pytest.raises(ConfigError, match="--suitability-model 'no_such_package.models:Nothing': cannot import module 'no_such_package.models'"):
        load_suitability_model("no_such_package.models:Nothing")
    model = load_suitability_model(MODEL, {"reject": ["a"]})
    assert model.identity()["args"] == {"reject": ["a"]}


def test_model_args_without_a_model_are_refused(sources, tmp_path):
    builder = TempClozeBuilder()
    parser = argparse.ArgumentParser()
    builder.add_arguments(parser)
    args = parser.parse_args(
        ["--videos", str(sources), "--out", str(tmp_path / "o"), "--suitability-model-args", "reject=vid00"]
    )
    with pytest.raises(ConfigError, match="needs --suitability-model"):
        builder.run(args)
