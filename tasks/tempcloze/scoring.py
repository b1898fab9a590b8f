"""Per-sample scores: accuracy both ways (invalid excluded / invalid as wrong), the invalid flag, pass@k.

`accuracy` is None for an invalid answer, so its mean leaves invalid answers out as the public analysis
does (the headline); `accuracy_strict` counts them as wrong. With several samples per request,
`pass_at_k` (k = 1..5) uses the valid samples only, as the public pass@k script does, and is None when
fewer than k samples are valid.
"""

from __future__ import annotations

from typing import Any, Optional

from harness.api import Parsed
from harness_metrics import pass_at_k

MAX_K = 5


def score(parsed: Parsed, target: Any, doc: dict) -> dict[str, Optional[float]]:
    """The score hook."""
    right = float(bool(parsed.valid) and parsed.answer == target)
    out: dict[str, Optional[float]] = {
        "accuracy": right if parsed.valid else None,
        "accuracy_strict": right,
        "invalid": 0.0 if parsed.valid else 1.0,
    }
    if int(doc.get("n_samples", 1)) > 1:
        letters = [s for s in (parsed.extra or {}).get("samples", []) if s is not None]
        n, c = len(letters), sum(1 for s in letters if s == target)
        for k in range(1, MAX_K + 1):
            out[f"pass_at_{k}"] = pass_at_k(n, c, k) if n >= k else None
    return out
