"""Where a model and physics differ, throw by throw, by the make-up of the throw.

The sequence tests of :mod:`tower.analysis.validation` say *whether* a model differs from
held-out simulator sequences; this says *where*. For every throw it counts, per kind of
piece, the pieces thrown, the pieces inside before the throw, and how many of each came
out fresh (thrown in that throw) or old (inside before it). Throws are then pooled into
cells of one context field: pieces thrown ``n``, pawns thrown ``w`` (watchmen and
brigands), experts thrown ``x`` or pieces inside before ``I``, the fields a distilled
model's levels condition on (:data:`tower.model.reference.FIELDS`). In every cell the
share of fresh and of old pieces of each kind that came out is compared between physics
and the model (which replays the same throw plans). The z-score treats pieces as
independent, which pieces of one throw are not: it ranks the cells to look at, it is not
a test.

Examples
--------
>>> from tower.model import BaselineModel
>>> from tower.pieces import mixed_keshis
>>> rows = model_rows(BaselineModel(), [mixed_keshis(6), mixed_keshis(6)], random.Random(1))
>>> [int(r.thrown["keshi"]) for r in rows], int(rows[1].inside["keshi"]) == 6 - rows[0].out
([6, 6], True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from math import sqrt

from tower.analysis.retention import Plan, trace_plan
from tower.model.interface import TowerModel
from tower.pieces import Kind
from tower.traces import TraceSequence

#: Kinds counted as pawns (``w``) and as experts (``x``), as a distilled model's make-up.
PAWNS = (Kind.WATCHMAN.value, Kind.BRIGAND.value)
EXPERTS = (Kind.EXPERT.value,)
#: Cells of each context field: (label, lowest value, highest value).
CELLS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "n": (("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4", 4, 4), ("5-6", 5, 6),
          ("7-9", 7, 9), ("10-12", 10, 12), ("13+", 13, 10**9)),
    "w": (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4-5", 4, 5),
          ("6+", 6, 10**9)),
    "x": (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3+", 3, 10**9)),
    "I": (("0", 0, 0), ("1-2", 1, 2), ("3-5", 3, 5), ("6-9", 6, 9), ("10+", 10, 10**9)),
}  # fmt: skip


@dataclass(frozen=True)
class ThrowRow:
    """One throw, counted by kind: thrown, inside before, fresh out and old out."""

    thrown: Counter[str]
    inside: Counter[str]
    fresh_out: Counter[str]
    old_out: Counter[str]

    @property
    def out(self) -> int:
        """Pieces out in this throw."""
        return sum(self.fresh_out.values()) + sum(self.old_out.values())

    def field(self, name: str) -> int:
        """The throw's value of a context field (``n``, ``w``, ``x`` or ``I``)."""
        if name == "n":
            return sum(self.thrown.values())
        if name == "I":
            return sum(self.inside.values())
        kinds = PAWNS if name == "w" else EXPERTS
        return sum(self.thrown[k] for k in kinds)


@dataclass(frozen=True)
class Difference:
    """The share of fresh or old pieces of one kind out, in one cell, in both sources."""

    cell: str
    kind: str
    age: str
    physics: float
    model: float
    pieces: int
    z: float


def trace_rows(seq: TraceSequence) -> list[ThrowRow]:
    """The rows of one traced sequence."""
    kind = [p.kind.value for p in seq.pieces]
    rows, inside = [], ()
    for throw in seq.throws:
        out = set(throw.out)
        rows.append(
            ThrowRow(
                Counter(kind[p] for p in throw.thrown),
                Counter(kind[p] for p in inside),
                Counter(kind[p] for p in throw.thrown if p in out),
                Counter(kind[p] for p in inside if p in out),
            )
        )
        inside = tuple(throw.inside)
    return rows


def model_rows(model: TowerModel, plan: Plan, rng: random.Random) -> list[ThrowRow]:
    """Run ``model`` on ``plan`` from an empty tower and count every throw (residents are
    told apart by kind and entry throw, which any model keeps)."""
    state, rows = model.new_state(), []
    for t, pieces in enumerate(plan):
        before = Counter((r.piece.kind.value, r.since) for r in state.residents)
        _, state = model.throw(state, pieces, rng)
        after = Counter((r.piece.kind.value, r.since) for r in state.residents)
        thrown = Counter(p.kind.value for p in pieces)
        old: Counter[str] = Counter()
        for (k, s), c in before.items():
            old[k] += c - after[(k, s)]
        rows.append(
            ThrowRow(
                thrown,
                _kinds(before),
                Counter({k: c - after[(k, t)] for k, c in thrown.items()}),
                old,
            )
        )
    return rows


def _kinds(by_entry: Counter[tuple[str, int]]) -> Counter[str]:
    """Counts by kind of counts by (kind, entry throw)."""
    out: Counter[str] = Counter()
    for (k, _), c in by_entry.items():
        out[k] += c
    return out


def _shares(rows: Iterable[ThrowRow], keep: Callable[[ThrowRow], bool], kind: str, age: str
            ) -> tuple[int, int]:  # fmt: skip
    """(pieces out, pieces at risk) of ``kind``, fresh or old, over the kept rows."""
    out = risk = 0
    for r in rows:
        if keep(r):
            out += (r.fresh_out if age == "fresh" else r.old_out)[kind]
            risk += (r.thrown if age == "fresh" else r.inside)[kind]
    return out, risk


def differences(
    physics: Sequence[ThrowRow], model: Sequence[ThrowRow], *, min_pieces: int = 200
) -> list[Difference]:
    """Every cell with at least ``min_pieces`` pieces at risk in physics, largest |z| first.

    A cell is the whole sample (``all``) or one range of one context field that varies
    in ``physics``; per cell, kind and age (fresh or old) the share out in each source.
    """
    kinds = sorted({k for r in physics for k in r.thrown})
    cells: list[tuple[str, Callable[[ThrowRow], bool]]] = [("all", lambda r: True)]
    for name, ranges in CELLS.items():
        if len({r.field(name) for r in physics}) > 1:
            cells += [
                (f"{name}={label}", lambda r, n=name, lo=lo, hi=hi: lo <= r.field(n) <= hi)
                for label, lo, hi in ranges
            ]
    found = []
    for cell, keep in cells:
        for kind in kinds:
            for age in ("fresh", "old"):
                po, pn = _shares(physics, keep, kind, age)
                mo, mn = _shares(model, keep, kind, age)
                if pn < min_pieces or not mn:
                    continue
                p, m = po / pn, mo / mn
                se = sqrt(p * (1 - p) / pn + m * (1 - m) / mn)
                z = (p - m) / se if se else 0.0
                found.append(Difference(cell, kind, age, p, m, pn, z))
    return sorted(found, key=lambda d: -abs(d.z))


def makeup_differences(
    model: TowerModel,
    held_out: Sequence[TraceSequence],
    *,
    seed: int = 0,
    replicates: int = 4,
    min_pieces: int = 200,
) -> list[Difference]:
    """:func:`differences` of ``model`` replaying every held-out plan ``replicates`` times."""
    master = random.Random(seed)
    plans = [trace_plan(s) for s in held_out] * replicates
    mod = [r for p in plans for r in model_rows(model, p, random.Random(master.getrandbits(64)))]
    phys = [r for s in held_out for r in trace_rows(s)]
    return differences(phys, mod, min_pieces=min_pieces)


def difference_lines(found: Sequence[Difference], top: int = 12) -> list[str]:
    """A markdown table of the ``top`` differences."""
    lines = [
        "| cell | kind | fresh or old | physics share out | model share out | pieces | z |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {d.cell} | {d.kind} | {d.age} | {d.physics:.3f} | {d.model:.3f} | {d.pieces} | "
        f"{d.z:+.1f} |"
        for d in found[:top]
    ]
    return lines
