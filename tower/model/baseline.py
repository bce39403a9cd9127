"""The baseline tower: the two fixed chances of a published online Wallenstein.

A thrown piece comes out with probability 2/3; a piece already inside comes out with
probability 1/3, each independently. Its author called it an approximation checked by
eye; here it is the comparison point for the distilled model.

:class:`NoRetentionModel` is the other extreme, a tower that keeps nothing, for
comparison studies.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from math import comb

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

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> dict[tuple[Piece, ...], float]:
        """Exact law of the pieces out: independent binomials per distinct piece.

        >>> from tower.pieces import keshis
        >>> law = BaselineModel().distribution(TowerState(), keshis({"red": 1}))
        >>> round(law[(Piece.keshi("red"),)], 4), round(law[()], 4)
        (0.6667, 0.3333)
        """
        old = Counter(state.pieces)
        new = Counter(pieces)
        factors: list[list[tuple[int, float]]] = []
        kinds = sorted(old.keys() | new.keys())
        for piece in kinds:
            a, b = old[piece], new[piece]
            law_old = _binomial(a, self.p_old)
            law_new = _binomial(b, self.p_fresh)
            law = [0.0] * (a + b + 1)
            for i, p in enumerate(law_old):
                for j, q in enumerate(law_new):
                    law[i + j] += p * q
            factors.append([(k, p) for k, p in enumerate(law) if p > 0.0])
        result: dict[tuple[Piece, ...], float] = {}
        for combo in itertools.product(*factors):
            prob = 1.0
            out: list[Piece] = []
            for piece, (k, p) in zip(kinds, combo, strict=True):
                prob *= p
                out.extend([piece] * k)
            result[tuple(out)] = result.get(tuple(out), 0.0) + prob
        return result


def _binomial(n: int, p: float) -> list[float]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


class NoRetentionModel(TowerModel):
    """A tower that keeps nothing: every piece thrown comes out, with every resident."""

    name = "no-retention"

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        return sorted([*state.pieces, *pieces]), TowerState((), state.throws + 1)

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> dict[tuple[Piece, ...], float]:
        return {tuple(sorted([*state.pieces, *pieces])): 1.0}
