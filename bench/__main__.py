"""Run every bench/bench_*.py and write bench/RESULTS.md (`make bench`, or `python -m bench [--fast] [NAME...]`).

Each script runs in its own interpreter and exposes `run(fast) -> list[dict]` with figure, ours, baseline, ratio, unit and target; ratios
above 1 mean the harness beats its baseline (or meets its bar). Absolute numbers are for context only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import subprocess
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).parent


def scripts() -> list[str]:
    """Module names of every benchmark script, sorted."""
    return sorted(p.stem for p in HERE.glob("bench_*.py"))


def _run_isolated(name: str, fast: bool) -> list[dict]:
    """One script in a fresh interpreter, so no script's threads, imports or caches slow another's figures."""
    code = (
        "import json, sys, importlib; "
        f"rows = importlib.import_module('bench.{name}').run(fast={fast!r}); "
        "sys.stdout.write('\\n@@BENCH@@' + json.dumps(rows, default=float))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=HERE.parent, capture_output=True, text=True)
    if out.returncode != 0 or "@@BENCH@@" not in out.stdout:
        raise RuntimeError(f"exit {out.returncode}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.rsplit("@@BENCH@@", 1)[1])


def run_all(names: list[str], fast: bool) -> tuple[list[tuple[str, dict]], list[tuple[str, str]]]:
    rows, failures = [], []
    for name in names:
        try:
            for row in _run_isolated(name, fast):
                rows.append((name, row))
        except Exception as exc:  # one broken script must not hide the others' figures
            failures.append((name, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"))
    return rows, failures


def render(rows, failures, fast: bool) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Written by `python -m bench{' --fast' if fast else ''}` on {dt.date.today().isoformat()}, "
        f"{platform.machine()}, Python {platform.python_version()}. Ratios > 1 mean the harness meets its bar "
        "or beats its baseline measured in the same run.",
        "",
        "| script | figure | ours | baseline | ratio | target |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in rows:
        lines.append(
            f"| {name} | {r['figure']} | {r['ours']:.4g} {r.get('unit', '')} | {r['baseline']:.4g} | "
            f"{r['ratio']:.2f} | {r.get('target', '')} |"
        )
    for name, err in failures:
        lines.append(f"| {name} | FAILED: {err.splitlines()[0]} | | | | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("names", nargs="*", help="scripts to run (default: all), e.g. bench_core")
    p.add_argument(
        "--fast", action="store_true", help="tiny inputs: checks the scripts run, figures meaningless"
    )
    p.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = p.parse_args(argv)
    names = args.names or scripts()
    rows, failures = run_all(names, args.fast)
    text = render(rows, failures, args.fast)
    print(text)
    for name, err in failures:
        print(f"{name} failed:\n{err}", file=sys.stderr)
    if not args.fast:
        args.out.write_text(text)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
