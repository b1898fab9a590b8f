"""The global random generators, seeded as lmms-eval / lm-eval seed them, before each task is scored.

lmms-eval's `simple_evaluate` seeds Python's `random` (0), NumPy's global generator (1234) and torch's (1234)
once before it evaluates; a task's parser that falls back to `random.choice` on an unusable reply (nextqa,
longvideobench, ...) then gives the same numbers in every identical run. The harness seeds the same
generators before it loads the data and again before it scores each task (in doc order), so a task's numbers
do not depend on which other tasks ran before it. The values go into the results' config as lm-eval names
them (`random_seed`, `numpy_seed`, `torch_seed`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Seeds:
    """The seeds of Python's `random`, NumPy's and torch's global generators (lmms-eval's defaults)."""

    random_seed: int = 0
    numpy_seed: int = 1234
    torch_seed: int = 1234

    def to_config(self) -> dict[str, int]:
        """lm-eval's results-config keys."""
        return asdict(self)


def seed_generators(seeds: Seeds) -> None:
    """Seed `random`, NumPy and (when it is imported: a task that uses it has imported it) torch."""
    random.seed(seeds.random_seed)
    try:
        import numpy as np  # noqa: PLC0415 - a core dependency, imported where it is used

        np.random.seed(seeds.numpy_seed)
    except ImportError:  # pragma: no cover - numpy is a core dependency
        pass
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "manual_seed"):
        torch.manual_seed(seeds.torch_seed)


@contextmanager
def preserved_generators() -> Iterator[None]:
    """Within the block the generators may be used; afterwards they are as they were (`--strict`'s check of an
    answer on arrival parses it without moving the draws of the scoring that follows in doc order)."""
    import numpy as np  # noqa: PLC0415 - a core dependency, imported where it is used

    state = random.getstate()
    np_state = np.random.get_state()
    torch = sys.modules.get("torch")
    torch_state = torch.get_rng_state() if torch is not None and hasattr(torch, "get_rng_state") else None
    try:
        yield
    finally:
        random.setstate(state)
        np.random.set_state(np_state)
        if torch_state is not None:
            torch.set_rng_state(torch_state)
