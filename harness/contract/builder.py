"""The dataset builder base class: `python -m harness build NAME ...` runs one of these."""

from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Optional

#: the progress switch of every command, builders included: the core's spelling (lm-eval style)
PROGRESS_FLAG = "--no_progress"
#: the builders' earlier spelling, still accepted with a FutureWarning (docs/cli.md, "Builders")
DEPRECATED_PROGRESS_FLAG = "--no-progress"


@dataclass
class DemoDataset:
    """A small dataset a builder made for `harness demo`: the tasks to run on it and its root."""

    data_dir: Path
    tasks: list[str] = field(default_factory=list)


class Builder:
    """Base class of builder commands.

    `add_arguments` declares the command's flags; `run` builds and returns an exit code (0 = success).
    `run` raises ValueError for input the user can fix (the message names the input and the fix): the CLI
    prints it as one line, exit code 2, never a traceback; the ConfigErrors of the shared helpers
    (`resolve_reference`, `parse_kv`, an unknown registered name) are printed the same way.
    `demo` (optional) builds a tiny dataset offline for the embedded demo and names the tasks to run on it.
    """

    name: ClassVar[str] = "builder"
    description: ClassVar[str] = ""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add this builder's command-line flags."""

    def run(self, args: argparse.Namespace) -> int:
        raise NotImplementedError(f"builder '{self.name}' does not implement run()")

    def demo(self, out_dir: Path, seed: int = 0) -> list[DemoDataset]:
        """Build a tiny dataset for `harness demo`; builders without one return []."""
        return []


class NoProgressAction(argparse.Action):
    """`--no_progress` (store true); given as the deprecated `--no-progress`, it also warns (FutureWarning)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: Optional[str] = None,
    ) -> None:
        if option_string == DEPRECATED_PROGRESS_FLAG:
            warnings.warn(
                f"{DEPRECATED_PROGRESS_FLAG} is deprecated (it goes in 1.0): use {PROGRESS_FLAG}, as every command spells it",
                FutureWarning,
                stacklevel=2,
            )
        setattr(namespace, self.dest, True)


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--no_progress` (hide progress bars; `args.no_progress`), the spelling the core's commands use,
    with the builders' earlier `--no-progress` as a deprecated alias (marked so in --help)."""
    parser.add_argument(
        PROGRESS_FLAG,
        DEPRECATED_PROGRESS_FLAG,
        dest="no_progress",
        action=NoProgressAction,
        help=f"hide progress bars ({DEPRECATED_PROGRESS_FLAG}: deprecated spelling)",
    )


def out_of_range(value: Any, low: float, high: Optional[float] = None) -> Optional[str]:
    """"between LOW and HIGH" (or "at least LOW") when `value` is not a finite number in that range, else None:
    the range a builder's flag check names, worded the same by every builder."""
    if isinstance(value, (int, float)) and math.isfinite(value) and low <= value and (high is None or value <= high):
        return None
    return f"between {low} and {high}" if high is not None else f"at least {low}"
