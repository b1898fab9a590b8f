"""`python -m harness judge-calibrate --judge NAME --task TASK`: a judge's agreement with calibration sets.

A task declares its calibration entry point in its YAML as `metadata: {calibration: "module:function"}`
(or "file.py:function" next to the YAML), called as `calibrate(judge, case) -> dict` where `judge` is
a JudgeClient, or None for the task's own rule-based judge (`--judge rule`): its contract is
harness.contract.hooks.Calibration, checked before any judge loads; a report that is no JSON object is exit 2
naming the hook. The report is printed and written as JSON with `--out`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from harness.cache import default_cache_dir
from harness.cache.responses import ResponseCache
from harness.config.run import parse_kv
from harness.contract.hooks import HOOKS, check_hook, check_return
from harness.engine.judging import RULE_JUDGE, JudgeClient
from harness.engine.model_loading import load_judge
from harness.errors import EXIT_OK, ConfigError, HookContractError
from harness.plugins.loading import load_plugins
from harness.plugins.references import load_hook
from harness.results.writer import atomic_write_text


def _calibration_hook(state, task: str) -> Optional[tuple[Callable, str]]:
    """The calibration entry point of `task` (or of the first member of a group that has one) and how messages
    name it, checked against its contract (harness.contract.hooks.Calibration) before any judge is loaded."""
    entry = state.registry.get("task", task)
    cfg = entry.extra["config"]
    if entry.extra.get("group"):
        for member in cfg["task"]:
            hook = _calibration_hook(state, member)
            if hook is not None:
                return hook
        return None
    ref = (cfg.get("metadata") or {}).get("calibration")
    if not ref:
        return None
    where = f"task '{task}' ({entry.extra['path']})"
    contract = HOOKS["metadata.calibration"]
    fn = load_hook(ref, Path(entry.extra["path"]).parent, f"{where} field '{contract.field}'")
    return check_hook(fn, contract, where, ref), f"{where} field '{contract.field}' hook '{ref}'"


def _report_text(report: Any, what: str) -> str:
    """The calibration report as JSON; HookContractError naming the hook when it is no JSON object."""
    check_return(report, "calibration", what, "dict[str, Any] (a JSON object)", isinstance(report, dict))
    try:
        return json.dumps(report, indent=2, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise HookContractError(f"{what}: the calibration hook's report is not JSON: {exc}") from exc


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m harness judge-calibrate", description=__doc__)
    p.add_argument(
        "--judge", required=True, help="a registered judge or model, or 'rule' for the task's rule judge"
    )
    p.add_argument("--judge_args", default="")
    p.add_argument("--task", required=True)
    p.add_argument("--case", default=None, help="one calibration case (default: all)")
    p.add_argument("--cache_dir", type=Path, default=None)
    p.add_argument("--include_path", action="append", default=[])
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    state = load_plugins(args.include_path)
    found = _calibration_hook(state, args.task)
    if found is None:
        raise ConfigError(
            f"task '{args.task}' ships no calibration sets (no metadata.calibration in its config)"
        )
    judge = None
    if args.judge != RULE_JUDGE:
        cache = ResponseCache((args.cache_dir or default_cache_dir()) / "responses.sqlite")
        judge = JudgeClient(
            args.judge, load_judge(state, args.judge, parse_kv(args.judge_args, "--judge_args")), cache
        )
    hook, what = found
    text = _report_text(hook(judge, args.case), what)
    print(text)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    return EXIT_OK
