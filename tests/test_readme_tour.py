"""The README's five-minute tour runs as written (issue 26): its marked code blocks, in order, in a fresh folder.

The tour's blocks are the fenced blocks of README.md that follow a `<!-- tour -->` comment (or `<!-- tour: why
-->`). Each command runs as a subprocess of bash in a fresh temporary folder, in the environment the README tells
the reader to activate after `make demo` (a core install: this interpreter's bin folder first on PATH, as
`source .venv/bin/activate` does, every extra's packages hidden), and must exit 0. The only changes to the
README's text are the rows of SUBSTITUTIONS: the real checkpoints the tour names are swapped for baselines (no
GPU, no download), and the bounded default version also swaps the sizes for smaller ones. The slow test runs the
exact tour (model stand-ins only).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, core_install_env
from harness.report.loading import all_tasks, load_run

README = REPO / "README.md"
TOUR_MARK = re.compile(r"^<!--\s*tour\b(:[^>]*)?\s*-->$")
TOUR_SECTION = "## A five-minute tour"

#: The one table of changes the test makes to the README's commands: (what the README says, what runs, kind).
#: kind "model": a real checkpoint stands in as a baseline, in both versions (its command must still run: the
#: same tasks, flags and data); kind "size": a smaller size, in the bounded default version only. Every row must
#: match the tour, so a README edit that drops or renames one fails here instead of testing nothing.
SUBSTITUTIONS: list[tuple[str, str, str]] = [
    ("--model llava_video_7b", "--model oracle", "model"),
    ("--num-scenes 20", "--num-scenes 3", "size"),
    ("--top 10", "--top 2", "size"),
]
#: Models that run here without weights: after substitution the tour may name only these.
BASELINES = {"random", "prior", "oracle", "tempcloze_edge", "tempcloze_single_frame"}
#: Folders the tour writes; every path its prose names under them must exist afterwards.
OUTPUT_ROOTS = ("data/", "out/", "report/")


def tour_blocks(text: str) -> list[str]:
    """The code blocks that follow a tour marker, in README order."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        if TOUR_MARK.match(lines[i].strip()):
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i >= len(lines) or not lines[i].startswith("```"):
                raise AssertionError(f"README.md line {i}: a tour marker must be followed by a code block")
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append("\n".join(lines[i + 1 : end]))
            i = end
        i += 1
    return blocks


def tour_commands(text: str) -> list[str]:
    """Every command of the tour's blocks (continuation lines joined, comment lines left out)."""
    commands: list[str] = []
    for block in tour_blocks(text):
        pending = ""
        for line in block.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            pending = f"{pending} {line.strip()}".strip()
            if pending.endswith("\\"):
                pending = pending[:-1].rstrip()
                continue
            commands.append(pending)
            pending = ""
    return commands


def substituted(commands: list[str], kinds: set[str]) -> list[str]:
    """The commands with the SUBSTITUTIONS of these kinds applied (each row must match the tour)."""
    joined = "\n".join(commands)
    out = list(commands)
    for old, new, kind in SUBSTITUTIONS:
        assert old in joined, f"tests/test_readme_tour.py SUBSTITUTIONS: {old!r} is not in the README's tour"
        if kind in kinds:
            out = [re.sub(re.escape(old) + r"(?![\w-])", new, c) for c in out]
    return out


def option(command: str, name: str) -> str | None:
    """The value of `--name VALUE` in a command, or None."""
    words = shlex.split(command)
    return words[words.index(name) + 1] if name in words else None


def promised_paths(text: str) -> list[str]:
    """The paths under the tour's output folders that the tour section's prose names (`<x>` read as `*`)."""
    start = text.index(TOUR_SECTION)
    end = text.find("\n## ", start + len(TOUR_SECTION))
    section = text[start : end if end != -1 else None]
    prose = re.sub(r"```.*?```", "", section, flags=re.S)
    named = re.findall(r"`([^`\s]+)`", prose)
    return sorted({re.sub(r"<[^>]+>", "*", p) for p in named if p.startswith(OUTPUT_ROOTS)})


def activated_env(tmp: Path) -> dict[str, str]:
    """What `source .venv/bin/activate` gives after `make demo`, the smaller of the README's two installs: this
    interpreter's bin folder first on PATH, every extra's packages hidden (conftest.core_install_env), this
    checkout's code first on the path (also from a worktree whose venv belongs to another checkout); caches
    kept in `tmp`, the hub never asked."""
    env = core_install_env(tmp, HARNESS_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    env["VIRTUAL_ENV"] = sys.prefix
    env.pop("HARNESS_PLUGINS", None)
    return env


def check_run_outputs(folder: Path, command: str) -> None:
    """A run command's promises: OUT/<model>/ holds its results (complete) and a samples file per task."""
    model, out = option(command, "--model"), option(command, "--output_path")
    results = sorted((folder / out / model).glob("results_*.json"))
    assert len(results) == 1, f"{command}: expected one results file in {out}/{model}, found {results}"
    run = load_run(results[0], with_samples=False)
    assert run.get("complete") is True, f"{command}: {results[0]} says the run is incomplete"
    tasks = all_tasks([run])
    groups = set(run.get("groups") or {}) | set(run.get("group_subtasks") or {})
    for name in option(command, "--tasks").split(","):
        assert name in tasks or name in groups, f"{command}: task {name} missing from {results[0]}"
    samples = run.get("samples_files") or {}
    for task in tasks:
        assert task in samples and (results[0].parent / samples[task]).is_file(), (
            f"{command}: no samples of {task}"
        )


def run_tour(tmp: Path, commands: list[str], timeout: float) -> None:
    """Run each command in order in a fresh folder; each must exit 0; then check what the tour promises."""
    env = activated_env(tmp / "env")
    folder = tmp / "tour"
    folder.mkdir()
    for command in commands:
        start = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=timeout
        )
        print(f"[tour] {time.monotonic() - start:6.1f} s  exit {done.returncode}  {command}")  # shown by -s
        assert done.returncode == 0, (
            f"README tour command exited {done.returncode}: {command}\n"
            f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
        )
        if option(command, "--model") and option(command, "--output_path"):
            check_run_outputs(folder, command)
    text = README.read_text(encoding="utf-8")
    missing = [p for p in promised_paths(text) if not list(folder.glob(p.rstrip("/")))]
    assert not missing, f"the README's tour names these outputs, which the tour did not write: {missing}"
    check_report_frames(folder, commands)


def check_report_frames(folder: Path, commands: list[str]) -> None:
    """The report's viewer shows the frames the models saw, for every benchmark: its `--data` is the runs' root."""
    report = next(c for c in commands if c.startswith("python -m harness report"))
    out = folder / option(report, "--out")
    assert "not shown" not in (out / "report.md").read_text(encoding="utf-8"), (
        "the viewer could not find videos"
    )
    for benchmark in ("cyclist", "tempcloze", "rvtbench"):
        assert list(out.glob(f"*sample*{benchmark}*.png")), f"{report}: no frames of a {benchmark} sample"


# -- the tour as text: cheap checks that run everywhere ---------------------------------------------------------


def test_the_tour_is_marked_and_runs_only_baselines_after_the_table():
    """The README has tour blocks; after the model stand-ins every `--model` is a baseline (no weights here),
    and every row of the table matches the tour."""
    commands = tour_commands(README.read_text(encoding="utf-8"))
    assert len(commands) >= 8, commands
    assert any(c.startswith("python -m harness report") for c in commands[-3:]), "the tour ends with report"
    assert any(c.startswith("python -m harness compare") for c in commands[-3:]), "the tour ends with compare"
    for command in substituted(commands, {"model"}):
        model = option(command, "--model")
        assert model is None or model in BASELINES, (
            f"{command}: {model} needs weights; add it to SUBSTITUTIONS"
        )


def test_the_tour_parser_reads_markers_blocks_and_continuations():
    text = (
        "intro\n```bash\npython -m harness ls tasks\n```\n<!-- tour -->\n\n```bash\n# a comment\n"
        "python -m harness build x \\\n  --out data/x\n```\n`data/x/<name>.json` and `out/` "
        "but not `--data data`\n<!-- tour: needs a GPU -->\n```bash\npython -m harness --model m\n```\n"
    )
    assert tour_commands(text) == ["python -m harness build x --out data/x", "python -m harness --model m"]
    assert promised_paths(TOUR_SECTION + "\n" + text) == ["data/x/*.json", "out/"]


# -- the tour itself --------------------------------------------------------------------------------------------


def test_readme_tour_bounded(tmp_path):
    """The tour's commands with the table's stand-in models and smaller sizes (CI's default run)."""
    commands = substituted(tour_commands(README.read_text(encoding="utf-8")), {"model", "size"})
    run_tour(tmp_path, commands, timeout=600)


@pytest.mark.slow
def test_readme_tour_exact(tmp_path):
    """The exact tour, sizes as written; only the real checkpoints are swapped for their stand-ins."""
    commands = substituted(tour_commands(README.read_text(encoding="utf-8")), {"model"})
    run_tour(tmp_path, commands, timeout=1800)
