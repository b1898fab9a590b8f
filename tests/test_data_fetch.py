"""Without --data a task fetches its release from the hub (harness/data/fetch.py): only the files it needs, into
the HF cache, offline from that cache, pinned by --data_revision, recorded in the results; a missing cache or an
unreachable hub ends in one message with the download command. Against a stand-in hub on 127.0.0.1
(tests/servers/hf_hub.py); never the real network."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hub_helpers import hub_env, online  # noqa: F401 - `online` is a fixture
from servers.hf_hub import StandInHub, closed_port_endpoint, folder_files, silent_endpoint

from conftest import run_harness, task_folder
from harness.api import DataError
from harness.config.schema import HubRelease
from harness.data import fetch

REPO = "tester/colors"


@pytest.fixture
def hub():
    with StandInHub() as server:
        yield server


def colors_release(colors_root: Path) -> dict[str, bytes]:
    """The test plugin's colors dataset as a hub release: both splits, their videos, and files no task needs."""
    files = folder_files(colors_root / "colors")
    files["README.md"] = b"# colors\n"
    files["extra/notes.bin"] = b"\0" * 64
    return files


def colors_task(
    folder: Path, revision: str = "main", patterns: str = '["{split}.jsonl", "videos/{split}_*"]'
) -> Path:
    """A plugin task (an --include_path folder) whose data is the release REPO on the hub."""
    yaml_text = f"""
        task: colors_hub
        version: 1
        dataset:
          split: test
          train_split: train
          hub: {{repo_id: {REPO}, revision: {revision}, allow_patterns: {patterns}}}
        doc_id: id
        media_field: video
        target_field: answer
        prompt: {{text: "{{{{ question }}}}"}}
        frames: {{strategy: uniform, count: 2, max_side: 32}}
        """
    return task_folder(folder, "colors_hub.yaml", yaml_text)


def run_colors(tmp_path: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess:
    args = ["--tasks", "colors_hub", "--include_path", str(tmp_path / "task"), "--model", "oracle"]
    return run_harness([*args, "--output_path", str(tmp_path / "out"), *flags], env, timeout=120)


def data_source(tmp_path: Path) -> dict:
    """The data_source the newest results file records for colors_hub."""
    path = sorted((tmp_path / "out" / "oracle").glob("results_*.json"))[-1]
    results = json.loads(path.read_text())
    assert results["task_results"]["colors_hub"]["metrics"]["accuracy"]["value"] == 1.0
    return results["config"]["tasks"]["colors_hub"]["data_source"]


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [ln for ln in proc.stderr.splitlines() if ln.strip()]


def test_first_run_fetches_only_the_split_then_reruns_offline_from_the_cache(tmp_path, hub, colors_root):
    files = colors_release(colors_root)
    commit = hub.add_commit(REPO, files)
    colors_task(tmp_path / "task")
    proc = run_colors(tmp_path, hub_env(tmp_path, hub.endpoint))
    assert proc.returncode == 0, proc.stderr
    wanted = {p for p in files if p == "test.jsonl" or p.startswith("videos/test_")}
    assert set(hub.gets()) <= wanted  # no train split, no README, no extra/ (equal bytes are fetched once)
    snapshot = tmp_path / "hf" / "hub" / "datasets--tester--colors" / "snapshots" / commit
    assert {p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file()} == wanted
    source = data_source(tmp_path)
    assert source["hub"] == REPO and source["revision"] == "main" and source["commit"] == commit
    assert source["allow_patterns"] == ["test.jsonl", "videos/test_*"] and source["from_cache"] is False

    before = len(hub.requests)
    proc = run_colors(tmp_path, hub_env(tmp_path, hub.endpoint, offline=True))
    assert proc.returncode == 0, proc.stderr
    assert len(hub.requests) == before  # offline: not one request
    assert data_source(tmp_path)["commit"] == commit and data_source(tmp_path)["from_cache"] is True


def test_data_revision_pins_a_commit_or_a_branch(tmp_path, hub, colors_root):
    files = colors_release(colors_root)
    first = hub.add_commit(REPO, files)
    second = hub.add_commit(REPO, {**files, "test.jsonl": files["test.jsonl"].replace(b'"green"', b'"blue"')})
    hub.add_commit(REPO, files, branch="v1")
    colors_task(tmp_path / "task")
    env = hub_env(tmp_path, hub.endpoint)
    assert run_colors(tmp_path, env, "--data_revision", first).returncode == 0
    assert data_source(tmp_path)["commit"] == first and data_source(tmp_path)["revision"] == first
    assert run_colors(tmp_path, env).returncode == 0
    assert data_source(tmp_path)["commit"] == second  # main moved: the new commit, recorded
    proc = run_colors(tmp_path, env, "--data_revision", "v1")
    assert proc.returncode == 0 and data_source(tmp_path)["revision"] == "v1"
    proc = run_colors(tmp_path, env, "--data_revision", "no-such-branch")
    assert proc.returncode == 2 and "has no revision 'no-such-branch'" in proc.stderr
    proc = run_colors(tmp_path, env, "--data_revision", first, "--data", str(colors_root))
    assert proc.returncode == 2 and "--data_revision" in proc.stderr


def test_missing_cache_offline_is_one_message_whose_command_works(tmp_path, hub, colors_root):
    hub.add_commit(REPO, colors_release(colors_root))
    colors_task(tmp_path / "task")
    proc = run_colors(tmp_path, hub_env(tmp_path, hub.endpoint, offline=True))
    assert proc.returncode == 2 and not hub.requests
    [line] = error_lines(proc)
    assert (
        line.startswith("error: task 'colors_hub': cannot fetch dataset tester/colors")
        and "HF_HUB_OFFLINE=1" in line
    )
    command = line.split("`")[1]
    assert (
        "--include test.jsonl" in command
        and "--repo-type dataset" in command
        and "--data data/colors" in line
    )
    # the command, as printed, downloads what --data then reads
    words = shlex.split(command)
    env = hub_env(tmp_path, hub.endpoint)
    env.update(w.split("=", 1) for w in words if "=" in w and not w.startswith("-"))  # HF_ENDPOINT=...
    words = [w for w in words if not ("=" in w and not w.startswith("-"))]
    hf = Path(sys.executable).with_name("hf")
    done = subprocess.run(
        [str(hf), *words[1:]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    proc = run_colors(
        tmp_path, hub_env(tmp_path, hub.endpoint, offline=True), "--data", str(tmp_path / "data/colors")
    )
    assert proc.returncode == 0, proc.stderr


def test_unreachable_hub_is_one_message_without_retries(tmp_path, colors_root):
    colors_task(tmp_path / "task")
    proc = run_colors(tmp_path, hub_env(tmp_path, closed_port_endpoint()))
    assert proc.returncode == 2
    [line] = error_lines(proc)  # no huggingface_hub retry warnings
    assert "tester/colors" in line and "unreachable" in line and "Connection refused" in line
    assert "hf download tester/colors" in line and "--data data/colors" in line


def test_a_hub_that_never_answers_ends_after_the_timeout(tmp_path):
    colors_task(tmp_path / "task")
    with silent_endpoint() as endpoint:
        proc = run_colors(tmp_path, hub_env(tmp_path, endpoint, HARNESS_HUB_TIMEOUT="1"))
    assert proc.returncode == 2
    [line] = error_lines(proc)
    assert "unreachable" in line and "Timeout" in line and "hf download tester/colors" in line


def _fetch(hub: StandInHub, tmp_path: Path, split: str = "test", **kw) -> fetch.FetchedRelease:
    release = HubRelease(repo_id=REPO, allow_patterns=["{split}.jsonl", "videos/{split}_*"])
    return fetch.fetch_release(
        release,
        "colors_hub",
        split,
        None,
        {},
        progress=False,
        endpoint=hub.endpoint,
        cache=tmp_path / "hf",
        **kw,
    )


@pytest.mark.usefixtures("online")
def test_an_interrupted_download_resumes_with_the_missing_files_only(tmp_path, hub, colors_root):
    files = colors_release(colors_root)
    hub.add_commit(REPO, files)
    hub.fail_once("videos/test_003.mp4", "500")
    with pytest.raises(DataError, match="rerun the same command to resume") as err:
        _fetch(hub, tmp_path)
    assert str(err.value).startswith(
        "task 'colors_hub': cannot fetch dataset tester/colors"
    ) and "\n" not in str(err.value)
    since = len(hub.requests)
    hub.fail_once("videos/test_001.mp4", "drop")  # already downloaded: never asked for again
    got = _fetch(hub, tmp_path)
    assert hub.gets(since) == ["videos/test_003.mp4"]
    assert (got.path / "videos/test_003.mp4").read_bytes() == files["videos/test_003.mp4"]


@pytest.mark.usefixtures("online")
def test_a_connection_dropped_mid_file_is_retried_in_the_same_run(tmp_path, hub, colors_root):
    files = colors_release(colors_root)
    hub.add_commit(REPO, files)
    hub.fail_once("videos/test_002.mp4", "drop")
    got = _fetch(hub, tmp_path)
    assert hub.gets().count("videos/test_002.mp4") == 2
    assert (got.path / "videos/test_002.mp4").read_bytes() == files["videos/test_002.mp4"]


@pytest.mark.usefixtures("online")
def test_unreachable_hub_uses_a_complete_cached_copy_and_says_so(tmp_path, hub, colors_root, caplog):
    files = colors_release(colors_root)
    commit = hub.add_commit(REPO, files)
    _fetch(hub, tmp_path)
    hub.stop()
    got = _fetch(hub, tmp_path)
    assert got.commit == commit and got.from_cache and "using the cached copy" in caplog.text
    with pytest.raises(DataError, match="holds no complete copy"):  # the train split was never fetched
        _fetch(hub, tmp_path, split="train")


@pytest.mark.usefixtures("online")
def test_patterns_that_match_nothing_name_the_yaml_field(tmp_path, hub):
    hub.add_commit(REPO, {"elsewhere/test.jsonl": b"{}\n"})
    with pytest.raises(DataError, match="dataset.hub.allow_patterns"):
        _fetch(hub, tmp_path)


def test_an_unknown_placeholder_is_a_config_error_naming_the_known_ones():
    release = HubRelease(repo_id=REPO, allow_patterns=["videos/{tier}/{split}/*"])
    with pytest.raises(Exception, match=r"\{tier\}.*\{split\}"):
        fetch.patterns_for(release, "t", "test", "unicycle", {"kind": "vqa"})
    assert fetch.patterns_for(release, "t", "test", None, {"tier": "L1"}) == ["videos/L1/test/*"]


def test_hub_declaration_is_validated_with_file_and_field(tmp_path):
    from harness.config.schema import parse_task_config

    raw = {"task": "x", "version": 1, "dataset": {"hub": {"repo_id": "no-owner", "allow_patterns": []}}}
    with pytest.raises(Exception) as err:
        parse_task_config(raw, "x.yaml")
    assert "x.yaml: field 'dataset.hub.repo_id'" in str(err.value)
    raw["dataset"]["hub"]["repo_id"] = "owner/name"  # a release must say which files: patterns or a hook
    with pytest.raises(Exception) as err:
        parse_task_config(raw, "x.yaml")
    assert "x.yaml: field 'dataset.hub'" in str(err.value) and "allow_patterns" in str(err.value)


@pytest.mark.skipif(os.name == "nt", reason="the HF cache keeps symlinks only on POSIX")
@pytest.mark.usefixtures("online")
def test_fetched_media_are_symlinks_into_the_blobs_and_pass_the_root_rule(tmp_path, hub, colors_root):
    hub.add_commit(REPO, colors_release(colors_root))
    got = _fetch(hub, tmp_path)
    video = got.path / "videos" / "test_000.mp4"
    assert video.is_symlink()
    from harness.api import safe_media_path

    assert safe_media_path(got.path, "videos/test_000.mp4", "doc").read_bytes() == video.read_bytes()
