"""The baseline tower: the two fixed chances of a published online Wallenstein.

A thrown piece comes out with probability 2/3; a piece already inside comes out with
probability 1/3, each independently. Its author called it an approximation checked by
eye; here it is the comparison point for the distilled model.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tower.model.interface import Resident, TowerModel, TowerState
from tower.pieces import Piece, Place


class BaselineModel(TowerModel):
    """Independent exits: ``p_fresh`` for thrown pieces, ``p_old`` for pieces inside."""

    name = "baseline"

    def __init__(self, p_fresh: float = 2 / 3, p_old: float = 1 / 3) -> None:
        for label, p in (("p_fresh", p_fresh), ("p_old", p_old)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{label} must lie in [0, 1], got {p}")
        self.p_fresh = p_fresh
        self.p_old = p_old

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        out: list[Piece] = []
        stay: list[Resident] = []
        for r in state.residents:
            if rng.random() < self.p_old:
                out.append(r.piece)
            else:
                stay.append(r)
        for p in pieces:
            if rng.random() < self.p_fresh:
                out.append(p)
            else:
                stay.append(Resident(p, Place.FLOOR1, state.throws))
        return sorted(out), TowerState(tuple(stay), state.throws + 1)
