"""The grid on real clusters started by the test: a local Ray cluster (`ray start --head`, then the grid with
its address; and once with no address, where the grid starts Ray itself) and a one-node SLURM cluster (Debian's
slurm-wlm and munge) submitted to through submitit; and submitit's LocalExecutor, which needs no daemon.

Each cluster runs inside namespaces of the test's own (`unshare --net --pid --uts`): only loopback (plus a
private address on it, which glibc's getaddrinfo needs before it resolves anything), so nothing binds or talks
on the machine's other addresses; the shell is process 1 of its pid namespace, so when it ends the kernel stops
every daemon it started and nothing else (never `ray stop`). One small grid each, bounded in time.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grid_helpers import cell_results, data_root, grid_cells, include_folder, read_run, write_grid

from conftest import harness_env, run_in

#: the Ray CLI of the interpreter running the tests (its `ray` script may live in another venv: an overlay venv)
RAY = f"{sys.executable} -m ray.scripts.scripts"
#: a namespace of the test's own: its ports are free whatever runs beside it on the machine
NETNS_SETUP = "ip link set lo up && ip addr add 10.254.254.1/32 dev lo && hostname localhost"
SLURM_CONF = """\
ClusterName=grid
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/ctld.pid
SlurmdPidFile={d}/d.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile={d}/ctld.log
SlurmdLogFile={d}/d.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""


def _namespaces_work() -> bool:
    try:
        cmd = ["unshare", "--net", "--pid", "--uts", "--fork", "--mount-proc", "bash", "-c", NETNS_SETUP]
        return subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


needs_namespaces = pytest.mark.skipif(
    not _namespaces_work(), reason="needs root and unshare (a network and pid namespace of the test's own)"
)


def _in_namespaces(script: str, env: dict, timeout: int = 300) -> subprocess.CompletedProcess:
    cmd = ["unshare", "--net", "--pid", "--uts", "--fork", "--mount-proc", "bash", "-c", f"{NETNS_SETUP}\n{script}"]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("gridcluster")
    return {"data": data_root(base / "data"), "inc": include_folder(base / "inc")}


@pytest.fixture
def short_dir():
    """A short folder under /tmp (Ray's and munge's unix sockets must fit 107 characters), removed after."""
    path = Path(tempfile.mkdtemp(prefix="hg", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _grid(world, folder: Path, name: str, models: list[str], tasks: list[str], **extra) -> Path:
    fields = {
        "output_path": folder / name,
        "cache_dir": folder / "cache",
        "data": world["data"],
        "include_path": [world["inc"]],
        "tasks": tasks,
        "models": [{"model": m} for m in models],
        "limit": 2,
        "log_samples": True,
        **extra,
    }
    return write_grid(folder / f"{name}.yaml", **fields)


def _check_done(world, out: Path, cells: int, cache: Path) -> None:
    """Every cell done, and random x colors_local's files equal the single run command's."""
    assert [c["status"] for c in grid_cells(out)] == ["done"] * cells
    assert (out / "leaderboard.md").is_file() and (out / "report" / "report.md").is_file()
    single = run_in(
        out.parent / "single", ["colors_local"], "random", world["data"],
        include_path=[str(world["inc"])], limit=2, cache_dir=cache, progress=False,
    )
    assert cell_results(out, "random", "colors_local") == read_run(single.results_path)


@needs_namespaces
def test_grid_on_a_local_ray_cluster_and_on_ray_it_starts(world, tmp_path, short_dir):
    pytest.importorskip("ray", reason="the `ray` extra is not installed (pip install -e '.[ray]')")
    with_address = _grid(world, tmp_path, "joined", ["random", "oracle"], ["cyclist_l1", "colors_local"],
                         executor="ray", ray_address="127.0.0.1:6390", max_parallel=2)
    started = _grid(world, tmp_path, "started", ["random"], ["colors_local"], executor="ray")
    env = harness_env(HOME=str(short_dir), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0",
                      RAY_TMPDIR=str(short_dir))
    env.pop("RAY_ADDRESS", None)
    script = f"""
    {sys.executable} -m harness grid {started} || exit 93  # no cluster yet: the grid starts Ray (and stops it)
    {RAY} start --head --node-ip-address=127.0.0.1 --port=6390 --temp-dir={short_dir}/t --num-cpus=2 \\
        --include-dashboard=false --disable-usage-stats > {short_dir}/start.log 2>&1 || {{ cat {short_dir}/start.log; exit 90; }}
    {sys.executable} -m harness grid {with_address} || exit 91
    {RAY} status --address 127.0.0.1:6390 >/dev/null 2>&1 || exit 92  # the cluster it joined is still up
    """
    r = _in_namespaces(script, env)
    assert r.returncode == 0, r.stdout + r.stderr
    _check_done(world, tmp_path / "joined", 4, tmp_path / "cache")
    assert [c["status"] for c in grid_cells(tmp_path / "started")] == ["done"]


SLURM_BINARIES = ("munged", "slurmctld", "slurmd", "sbatch")


@needs_namespaces
@pytest.mark.skipif(
    not all(shutil.which(b) for b in SLURM_BINARIES),
    reason="needs Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)",
)
def test_grid_on_a_one_node_slurm_cluster(world, tmp_path, short_dir):
    pytest.importorskip("submitit", reason="the `slurm` extra is not installed (pip install -e '.[slurm]')")
    for sub in ("state", "spool"):
        (short_dir / sub).mkdir()
    (short_dir / "slurm.conf").write_text(SLURM_CONF.format(d=short_dir))
    (short_dir / "munge.key").write_bytes(os.urandom(1024))
    (short_dir / "munge.key").chmod(0o600)
    grid = _grid(world, tmp_path, "slurm", ["random", "oracle"], ["cyclist_l1", "colors_local"],
                 executor="slurm", slurm={"partition": "debug", "time": 10, "cpus": 1})
    env = harness_env(SLURM_CONF=str(short_dir / "slurm.conf"))
    d = short_dir
    script = f"""
    munged --key-file={d}/munge.key --socket={d}/munge.sock --pid-file={d}/munged.pid \\
        --log-file={d}/munged.log --seed-file={d}/munge.seed --force || exit 90
    slurmctld && slurmd -N localhost || exit 91
    for i in $(seq 50); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 0.2; done
    sinfo -h -o %t | grep -q idle || {{ tail {d}/ctld.log {d}/d.log; exit 92; }}
    {sys.executable} -m harness grid {grid} || exit 93
    """
    r = _in_namespaces(script, env)
    if r.returncode in (90, 91, 92):
        pytest.skip(f"SLURM's daemons did not start here (exit {r.returncode}): {r.stdout[-500:]}{r.stderr[-500:]}")
    assert r.returncode == 0, r.stdout + r.stderr
    _check_done(world, tmp_path / "slurm", 4, tmp_path / "cache")
    assert len(list((tmp_path / "slurm" / ".grid" / "slurm").glob("*_submission.sh"))) == 2  # one job per model


def test_grid_through_submitits_local_executor(world, tmp_path):
    if importlib.util.find_spec("submitit") is None:
        pytest.skip("the `slurm` extra is not installed (pip install -e '.[slurm]')")
    grid = _grid(world, tmp_path, "local", ["random"], ["colors_local"], executor="slurm", slurm={"cluster": "local"})
    r = subprocess.run([sys.executable, "-m", "harness", "grid", str(grid)], env=harness_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert [c["status"] for c in grid_cells(tmp_path / "local")] == ["done"]
