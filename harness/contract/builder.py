"""The dataset builder base class: `python -m harness build NAME ...` runs one of these."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar


@dataclass
class DemoDataset:
    """A small dataset a builder made for `harness demo`: the tasks to run on it and its root."""

    data_dir: Path
    tasks: list[str] = field(default_factory=list)


class Builder:
    """Base class of builder commands.

    `add_arguments` declares the command's flags; `run` builds and returns an exit code (0 = success).
    `run` raises ValueError for input the user can fix (the message names the input and the fix): the CLI
    prints it as one line, exit code 2, never a traceback.
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
