"""Choice stability under candidate reordering (TempCloze): clip flip rate and correctness flip rate.

The same items are asked under several candidate orders. For every pair of orders, the clip flip rate
(CFR) is the fraction of items whose chosen clip differs, and the correctness flip rate (FR) the fraction
whose right/wrong outcome differs. Chosen clips are clip identities (e.g. "GT", "A/Early"), not letters.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations
from typing import Any


def flip_rates(
    choices: Mapping[str, Sequence[Hashable | None]], answers: Sequence[Hashable]
) -> dict[str, Any]:
    """CFR and FR for every pair of orders, and their means over pairs.

    choices: order name -> chosen clip per item (None when no clip could be parsed: counts as a choice of
    its own and as wrong); answers: the correct clip per item. Returns {"pairs": [{order_a, order_b,
    clip_flip_rate, correctness_flip_rate, n_items}], "clip_flip_rate": mean, "correctness_flip_rate": mean}.
    """
    if not isinstance(choices, Mapping) or len(choices) < 2:
        raise ValueError("flip_rates: choices must map at least two order names to lists of chosen clips")
    n_items = len(answers)
    for order, chosen in choices.items():
        if isinstance(chosen, str) or len(chosen) != n_items:
            raise ValueError(
                f"flip_rates: order {order!r} has {len(chosen)} choices but there are {n_items} answers; "
                "expected one chosen clip per item in every order"
            )
    correct = {
        o: [c is not None and c == a for c, a in zip(ch, answers, strict=False)] for o, ch in choices.items()
    }
    pairs = []
    for a, b in combinations(list(choices), 2):
        if n_items == 0:
            cfr = fr = float("nan")
        else:
            cfr = sum(x != y for x, y in zip(choices[a], choices[b], strict=False)) / n_items
            fr = sum(x != y for x, y in zip(correct[a], correct[b], strict=False)) / n_items
        pairs.append(
            {
                "order_a": a,
                "order_b": b,
                "clip_flip_rate": cfr,
                "correctness_flip_rate": fr,
                "n_items": n_items,
            }
        )
    return {
        "pairs": pairs,
        "clip_flip_rate": sum(p["clip_flip_rate"] for p in pairs) / len(pairs),
        "correctness_flip_rate": sum(p["correctness_flip_rate"] for p in pairs) / len(pairs),
    }
