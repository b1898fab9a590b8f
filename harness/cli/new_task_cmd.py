"""`python -m harness new-task NAME [--out DIR]`: a working task plugin to start from.

Writes DIR/NAME/ (default ./NAME): the task YAML, its prompt template, typed parse and score hooks, a tiny
data maker, a test, and a pyproject.toml that installs it as a plugin (entry point in group "harness",
YAML and templates shipped as package data). As generated, the oracle scores 100 % on the data it makes.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path
from string import Template

from harness.cli.new_task_files import FILES
from harness.errors import EXIT_OK, ConfigError
from harness.files import write_atomic

NAME = re.compile(r"[a-z][a-z0-9_]{1,40}")


def check_name(name: str) -> str:
    """NAME as the task, package and entry-point name: a lowercase Python identifier (ConfigError if not)."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name) or name.startswith("harness"):
        raise ConfigError(
            f"new-task: '{name}' cannot name a task package: use 2-41 lowercase letters, digits and underscores, "
            "starting with a letter (not a Python keyword, not starting with 'harness')"
        )
    return name


def write_task_folder(name: str, out: Path) -> list[Path]:
    """Write the plugin folder `out` for task `name`; ConfigError when `out` exists and is not empty."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"new-task: {out} already exists and is not an empty folder; pick another --out")
    values = {"name": name, "dist": name.replace("_", "-"), "title": name.replace("_", " ").title()}
    written = []
    for rel, text in FILES.items():
        path = out / Template(rel).substitute(values)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, Template(text).substitute(values))
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m harness new-task", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="task and package name (lowercase letters, digits, underscores)")
    p.add_argument("--out", type=Path, default=None, help="folder to write (default: ./NAME)")
    args = p.parse_args(argv)
    name = check_name(args.name)
    out = args.out or Path(name)
    for path in write_task_folder(name, out):
        print(f"wrote {path}")
    print(
        f"\nnext: cd {out} && pip install -e . && python -m {name}.make_data data "
        f"&& python -m harness --tasks {name} --model oracle --data data",
        file=sys.stderr,
    )
    return EXIT_OK
