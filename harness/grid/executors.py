"""Where a grid's jobs (one per model entry: its cells) run: local worker processes, Ray tasks, SLURM jobs.

Each executor launches at most `limit` jobs at once and answers `poll()` with the jobs that ended since the
last call (index, None or the reason the job itself died); cells report through status files (state.py).
`ray` and `submitit` are optional extras, imported only here; without them the executor names the extra.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

from harness.grid.spec import GridFile
from harness.grid.state import work_dir
from harness.grid.worker import run_job
from harness.plugins.extras import missing_dependency

RAY_ADDRESS_ENV = "RAY_ADDRESS"


def optional_module(module: str, executor: str) -> Any:
    """An optional extra's module, imported only when its executor is chosen (exit 3 naming the extra)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise missing_dependency(f"executor '{executor}'", exc) from None


class Executor:
    """Launches jobs up to `limit` at a time; subclasses say how to launch and check one."""

    def __init__(self, grid: GridFile, limit: int) -> None:
        self.grid, self.limit = grid, limit
        self.waiting: list[tuple[int, dict[str, Any]]] = []
        self.running: dict[int, Any] = {}

    def submit(self, jobs: list[dict[str, Any]]) -> None:
        self.waiting = list(enumerate(jobs))

    def poll(self) -> list[tuple[int, Optional[str]]]:
        """Jobs that ended since the last call, with the reason when the job died; then launch waiting ones."""
        ended = []
        for index, handle in list(self.running.items()):
            finished, reason = self._check(handle)
            if finished:
                ended.append((index, reason))
                del self.running[index]
        while self.waiting and len(self.running) < self.limit:
            index, job = self.waiting.pop(0)
            self.running[index] = self._launch(index, job)
        return ended

    def busy(self) -> bool:
        return bool(self.waiting or self.running)

    def _launch(self, index: int, job: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _check(self, handle: Any) -> tuple[bool, Optional[str]]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop what still runs (the driver is leaving early)."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the worker gets SIGKILL when the driver dies, so a killed grid leaves no worker writing."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class LocalExecutor(Executor):
    """Each job a `python -m harness.grid.worker` process on this machine, `max_parallel` at once."""

    def _launch(self, index: int, job: dict[str, Any]) -> Any:
        folder = work_dir(Path(self.grid.output_path)) / "jobs"
        folder.mkdir(parents=True, exist_ok=True)
        job_file = folder / f"job{index}.json"
        job_file.write_text(json.dumps(job), encoding="utf-8")
        log = open(folder / f"job{index}.log", "ab")  # noqa: SIM115 - closed when the process ends
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.grid.worker", str(job_file)],
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        return proc, log, folder / f"job{index}.log"

    def _check(self, handle: Any) -> tuple[bool, Optional[str]]:
        proc, log, path = handle
        code = proc.poll()
        if code is None:
            return False, None
        log.close()
        return True, None if code == 0 else f"worker exited with {code} (log: {path})"

    def close(self) -> None:
        for proc, log, _ in self.running.values():
            proc.kill()
            proc.wait()
            log.close()


class RayExecutor(Executor):
    """Each job a Ray task (num_gpus from the model entry) on the cluster at ray_address / $RAY_ADDRESS,
    or on a local Ray started for the grid when neither is given."""

    def __init__(self, grid: GridFile, limit: int) -> None:
        super().__init__(grid, limit)
        self.ray = ray = optional_module("ray", "ray")
        address = grid.ray_address or os.environ.get(RAY_ADDRESS_ENV) or None
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.remote = ray.remote(run_job)

    def _launch(self, index: int, job: dict[str, Any]) -> Any:
        gpus = self.grid.models[job["entry"]].gpus or 0
        return self.remote.options(num_cpus=1, num_gpus=gpus, max_retries=0).remote(job)

    def _check(self, handle: Any) -> tuple[bool, Optional[str]]:
        ready, _ = self.ray.wait([handle], timeout=0)
        if not ready:
            return False, None
        try:
            self.ray.get(handle)
        except Exception as exc:  # noqa: BLE001 - a task that died (node lost, worker crashed): its reason
            return True, f"Ray task failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        return True, None

    def close(self) -> None:
        for handle in self.running.values():
            self.ray.cancel(handle, force=True)
        self.ray.shutdown()


class SlurmExecutor(Executor):
    """Each job a SLURM job submitted through submitit (the grid's `slurm:` block), all submitted at once."""

    def __init__(self, grid: GridFile, limit: int) -> None:
        super().__init__(grid, limit)
        self.submitit = optional_module("submitit", "slurm")

    def submit(self, jobs: list[dict[str, Any]]) -> None:
        super().submit(jobs)
        self.limit = max(1, len(jobs))  # the scheduler queues them

    def _launch(self, index: int, job: dict[str, Any]) -> Any:
        block = self.grid.slurm
        gpus = block.gpus if block.gpus is not None else int(self.grid.models[job["entry"]].gpus or 0)
        executor = self.submitit.AutoExecutor(folder=work_dir(Path(self.grid.output_path)) / "slurm", cluster=block.cluster)
        params: dict[str, Any] = {"timeout_min": block.time, "cpus_per_task": block.cpus, "name": f"grid-job{index}"}
        if gpus:
            params["gpus_per_node"] = gpus
        if block.partition:
            params["slurm_partition"] = block.partition
        if block.account:
            params["slurm_account"] = block.account
        if block.mem_gb:
            params["mem_gb"] = block.mem_gb
        executor.update_parameters(**params)
        return executor.submit(run_job, job)

    def _check(self, handle: Any) -> tuple[bool, Optional[str]]:
        if not handle.done():
            return False, None
        exc = handle.exception()
        return True, None if exc is None else f"SLURM job {handle.job_id} failed: {str(exc).splitlines()[-1]}"

    def close(self) -> None:
        for handle in self.running.values():
            handle.cancel(check=False)


EXECUTOR_CLASSES = {"local": LocalExecutor, "ray": RayExecutor, "slurm": SlurmExecutor}


def make_executor(grid: GridFile) -> Executor:
    """The grid's executor (ExitCode 3 naming the extra when `ray` or `submitit` is missing)."""
    return EXECUTOR_CLASSES[grid.executor](grid, grid.max_parallel)
