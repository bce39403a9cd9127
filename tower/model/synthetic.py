"""A small stochastic tower with a known law, for testing fits and statistics.

It is not physics: it is a tower whose answer is known. Each throw has a hidden vigour
(weak or strong, a coin) that raises every exit chance at once, which correlates the
pieces of one throw. Thrown pieces land in the funnel, on floor 1 or on floor 2, or go
out; residents leave with a chance that depends on their place, on the vigour and on
their age (pieces inside for three throws or more are stuck harder), and some slide
from floor 1 to floor 2. Pawns come out less readily than keshis. With ``push > 0``
every pawn or expert thrown raises the residents' exit chance by ``push`` (a heavy throw
dislodges more: what the make-up fields ``w``, ``x`` of ``tower.model/2`` condition on).
With ``wear > 0`` a thrown piece's exit chance falls by ``wear`` for each throw the tower
has seen, up to four (a tower whose history matters: what ``t`` of ``tower.model/3``
conditions on). It writes the trace
format of :mod:`tower.traces`, so everything downstream reads it like simulator output.

Examples
--------
>>> seqs = SyntheticTower().traces(3, seed=7)
>>> len(seqs), len(seqs[0].throws)
(3, 12)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tower.pieces import INSIDE, Kind, Piece, Place, mixed_keshis
from tower.traces import TraceSequence, TraceThrow


@dataclass(frozen=True)
class SyntheticTower:
    """The known tower's chances (see the module docstring)."""

    p_strong: float = 0.5
    fresh_out: tuple[float, float] = (0.55, 0.8)  # weak, strong
    fresh_places: tuple[float, float, float] = (0.1, 0.55, 0.35)  # funnel, floor1, floor2
    hazard: tuple[float, float, float, float] = (0.6, 0.3, 0.4, 0.9)  # funnel..ramp, weak
    strong_boost: float = 0.25
    stuck_age: int = 3
    stuck_factor: float = 0.4
    slide: float = 0.2  # floor1 -> floor2 among residents that stay
    pawn_factor: float = 0.7
    push: float = 0.0  # added to residents' exit chance per pawn or expert thrown
    wear: float = 0.0  # taken off a thrown piece's exit chance per throw seen (up to 4)

    def throw(
        self,
        inside: dict[int, tuple[Place, int]],
        fresh: Sequence[int],
        kinds: Sequence[Kind],
        t: int,
        rng: random.Random,
    ) -> tuple[list[int], dict[int, tuple[Place, int]]]:
        """One throw: ``inside`` maps id -> (place, since). Returns ids out and the new map."""
        strong = rng.random() < self.p_strong
        heavy = sum(kinds[pid] is not Kind.KESHI for pid in fresh) * self.push
        out: list[int] = []
        after: dict[int, tuple[Place, int]] = {}
        for pid, (place, since) in sorted(inside.items()):
            h = self.hazard[INSIDE.index(place)] + (self.strong_boost if strong else 0.0) + heavy
            if t - since >= self.stuck_age:
                h *= self.stuck_factor
            if kinds[pid] in (Kind.WATCHMAN, Kind.BRIGAND):
                h *= self.pawn_factor
            if rng.random() < min(h, 1.0):
                out.append(pid)
            elif place is Place.FLOOR1 and rng.random() < self.slide:
                after[pid] = (Place.FLOOR2, since)
            else:
                after[pid] = (place, since)
        for pid in fresh:
            p = self.fresh_out[strong] - self.wear * min(t, 4)
            if kinds[pid] in (Kind.WATCHMAN, Kind.BRIGAND):
                p *= self.pawn_factor
            if rng.random() < p:
                out.append(pid)
            else:
                u, acc = rng.random(), 0.0
                for place, q in zip(INSIDE[:3], self.fresh_places, strict=True):
                    acc += q
                    if u < acc:
                        after[pid] = (place, t)
                        break
                else:
                    after[pid] = (Place.FLOOR2, t)
        return sorted(out), after

    def sequence(self, throws: Sequence[Sequence[Piece]], seed: int, seq: int = 0) -> TraceSequence:
        """Trace of one tower fed the given throws."""
        rng = random.Random(seed)
        pieces = [p for throw in throws for p in throw]
        kinds = [p.kind for p in pieces]
        inside: dict[int, tuple[Place, int]] = {}
        records = []
        start = 0
        for t, throw in enumerate(throws):
            fresh = list(range(start, start + len(throw)))
            start += len(throw)
            out, inside = self.throw(inside, fresh, kinds, t, rng)
            records.append(
                TraceThrow(tuple(fresh), tuple(out), {k: v[0] for k, v in inside.items()})
            )
        return TraceSequence(seq, seed, "synthetic", tuple(pieces), tuple(records))

    def traces(
        self,
        n: int,
        seed: int,
        throws: Callable[[random.Random], list[list[Piece]]] | None = None,
    ) -> list[TraceSequence]:
        """``n`` sequences; by default 12 throws of 12 keshis each."""
        master = random.Random(seed)
        out = []
        for i in range(n):
            plan = throws(master) if throws else [mixed_keshis(12) for _ in range(12)]
            out.append(self.sequence(plan, master.randrange(2**31), seq=i))
        return out


def heavy_rounds(
    heavy: Sequence[Kind], most: int, throws: int = 10
) -> Callable[[random.Random], list[list[Piece]]]:
    """A plan for :meth:`SyntheticTower.traces`: ``throws`` throws of 6, 9 or 12 keshis,
    each with 0 to ``most`` pieces of the kinds ``heavy`` (red).

    >>> plan = heavy_rounds([Kind.WATCHMAN], 2, throws=3)(random.Random(1))
    >>> len(plan), all(len(throw) >= 6 for throw in plan)
    (3, True)
    """

    def plan(rng: random.Random) -> list[list[Piece]]:
        return [
            mixed_keshis(rng.choice([6, 9, 12]))
            + [Piece(rng.choice(heavy), "red") for _ in range(rng.randint(0, most))]
            for _ in range(throws)
        ]

    return plan
