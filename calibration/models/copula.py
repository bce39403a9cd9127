"""Prototype for issue 32: a distilled tower whose groups of one throw leave together.

`.venv/bin/python calibration/models/copula.py MODEL.json --traces HELD-OUT.jsonl.gz --seed 0`

The shipped sampler (:mod:`tower.model.reference`) draws every group of a throw (fresh
pieces by class, residents by place, class and age) on its own, given the context; only
``o``, the pieces already out, links them. Physics has more covariance between the groups
of one throw (calibration/models/README.md, "Which part of the dynamics physics keeps"),
so its Walls & Guards towers spread more over a sequence than the model's.

This sampler keeps each group's law exactly (the file's back-off mixture, unchanged) and
draws the groups of one throw *jointly* through a Gaussian copula: the number out of a
group is its out-law's quantile at ``u = Phi(a * Z + b * Z_origin + c * e)``, with ``Z``
shared by the whole throw, ``Z_origin`` by the groups of one origin (the fresh pieces, or
one place), ``e`` the group's own and ``c = sqrt(1 - a^2 - b^2)``. Given that number, the
rest of the outcome (where the pieces that stay end up) is drawn from the same mixture
restricted to it. The coupling applies only where the tower holds pawns or pawns are
thrown (``gate``): keshi-only towers (the keshi and expert sets) pass without it and get
too much spread with it. So a file fitted as usual (`tower distill`) plays with two more
numbers, ``a`` and ``b``.

It imports tower as installed; a :class:`CopulaModel` is a :class:`TowerModel`, so
:func:`tower.analysis.validation.validate` checks it like any model.
"""

from __future__ import annotations

import argparse
import json
import random
from bisect import bisect_right
from collections.abc import Sequence
from math import comb
from pathlib import Path
from statistics import NormalDist
from typing import Any

from tower.analysis.validation import validate
from tower.model.interface import Resident, TowerModel, TowerState
from tower.model.reference import ReferenceSampler, SampledResident, _emit, groups
from tower.pieces import Piece, Place
from tower.traces import read_traces

_PHI = NormalDist().cdf

#: A group's law as the copula draws it: cumulative law of the number out, and per number
#: out the weights and outcomes of the mixture's parts (``None``: the base multinomial),
#: and the cumulative per-piece law of the places for the base's pieces that stay.
Law = tuple[list[float], list[tuple[list[float], list[Any]]], list[float]]


class CopulaSampler(ReferenceSampler):
    """:class:`ReferenceSampler` whose groups of one throw are drawn through a Gaussian
    copula: ``a`` the throw's shared loading, ``b`` the origin's (fresh, or one place).

    With ``gate``, the loadings apply only to throws where a pawn is inside or thrown.
    """

    def __init__(self, model: dict[str, Any], a: float, b: float, *, gate: bool = True) -> None:
        super().__init__(model)
        if a < 0 or b < 0 or a * a + b * b >= 1:
            raise ValueError("copula loadings need a, b >= 0 and a^2 + b^2 < 1")
        self.a, self.b, self.gate = a, b, gate
        self._laws: dict[tuple[str, tuple[int, ...]], Law] = {}

    def law(self, group: str, ctx: tuple[int, ...]) -> Law:
        """The group's exact law in context ``ctx`` (with ``o``), split by number out."""
        key = (group, ctx)
        found = self._laws.get(key)
        if found is not None:
            return found
        parts, reach, piece = self._mixture(group, ctx)
        m = ctx[0]
        by_out: list[tuple[list[float], list[Any]]] = [([], []) for _ in range(m + 1)]
        for weight, (_, cum, outcomes, _) in parts:
            prev = 0
            for c, outcome in zip(cum, outcomes, strict=True):
                by_out[outcome[0]][0].append(weight * (c - prev))
                by_out[outcome[0]][1].append(outcome)
                prev = c
        p = piece[0] / sum(piece)
        for k in range(m + 1):
            by_out[k][0].append(reach * comb(m, k) * p**k * (1 - p) ** (m - k))
            by_out[k][1].append(None)
        out_cum = _cumulative([sum(w) for w, _ in by_out])
        stay = piece[1:]
        stay_cum = _cumulative([q / sum(stay) for q in stay])
        if len(self._laws) > 300_000:  # bound the memory
            self._laws.clear()
        found = self._laws[key] = (out_cum, by_out, stay_cum)
        return found

    def throw(
        self,
        residents: Sequence[SampledResident],
        fresh: Sequence[tuple[str, Any]],
        throws: int,
        rng: random.Random,
    ) -> tuple[list[Any], list[SampledResident]]:
        """One throw, as :meth:`ReferenceSampler.throw` but with the groups coupled."""
        coupled = (
            not self.gate
            or any(r[0] == "pawn" for r in residents)
            or any(c == "pawn" for c, _ in fresh)
        )
        a, b = (self.a, self.b) if coupled else (0.0, 0.0)
        c = (1 - a * a - b * b) ** 0.5
        gauss = rng.gauss
        shared = gauss(0, 1)
        origins: dict[str, float] = {}
        gone = 0
        out: list[Any] = []
        after: list[SampledResident] = []
        for name, cls, ctx, members in groups(residents, fresh, throws, self.age_cap):
            origin = name.split(".")[0]
            if origin not in origins:
                origins[origin] = gauss(0, 1)
            u = _PHI(a * shared + b * origins[origin] + c * gauss(0, 1))
            out_cum, by_out, stay_cum = self.law(name, (*ctx, gone))
            k = min(bisect_right(out_cum, u * out_cum[-1]), len(out_cum) - 1)
            weights, outcomes = by_out[k]
            outcome = outcomes[_pick(weights, rng.random() * sum(weights))]
            if outcome is None:  # the base multinomial, given k out
                places = [0, 0, 0, 0]
                for _ in range(len(members) - k):
                    places[min(bisect_right(stay_cum, rng.random() * stay_cum[-1]), 3)] += 1
                outcome = (k, *places)
            gone += k
            rng.shuffle(members)
            start = 0
            for dest, count in enumerate(outcome):
                _emit(dest, cls, members[start : start + count], out, after)
                start += count
        return out, after


def _pick(weights: list[float], v: float) -> int:
    """The index where the running sum of ``weights`` first exceeds ``v`` (else the last)."""
    acc = 0.0
    for i, weight in enumerate(weights):
        acc += weight
        if v < acc:
            return i
    return len(weights) - 1


def _cumulative(values: list[float]) -> list[float]:
    found, acc = [], 0.0
    for v in values:
        acc += v
        found.append(acc)
    return found


class CopulaModel(TowerModel):
    """A :class:`TowerModel` playing a distilled file's tables with :class:`CopulaSampler`."""

    name = "copula"

    def __init__(self, model: dict[str, Any], a: float, b: float, *, gate: bool = True) -> None:
        self.sampler = CopulaSampler(model, a, b, gate=gate)
        self.classes = dict(model["classes"])

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        cls = self.classes
        residents = [
            (cls[r.piece.kind.value], r.place.value, r.since, r.piece) for r in state.residents
        ]
        fresh = [(cls[p.kind.value], p) for p in pieces]
        out, after = self.sampler.throw(residents, fresh, state.throws, rng)
        new = tuple(Resident(p, Place(place), since) for _, place, since, p in after)
        return sorted(out), TowerState(new, state.throws + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a distilled model file (tower distill)")
    parser.add_argument("--traces", type=Path, action="append", required=True)
    parser.add_argument("--seed", type=int, action="append", default=None)
    parser.add_argument("-a", type=float, default=0.2, help="the throw's shared loading")
    parser.add_argument("-b", type=float, default=0.3, help="the origin's loading")
    parser.add_argument("--no-gate", action="store_true", help="couple keshi-only throws too")
    args = parser.parse_args()
    model = CopulaModel(
        json.loads(args.model.read_text())["model"], args.a, args.b, gate=not args.no_gate
    )
    for path in args.traces:
        held_out = list(read_traces(path))
        for seed in args.seed or [0]:
            (verdict,), _ = validate({"copula": model}, held_out, seed=seed)
            rejected = [
                f"`{t.name}` (p = {t.pvalue:.2g}; {t.reference_mean:.3f} / {t.model_mean:.3f})"
                for t in verdict.tests
                if t.rejected
            ]
            print(
                f"| {path.name} | {seed} | {len(rejected)} of {len(verdict.tests)}"
                f"{': ' + ', '.join(rejected) if rejected else ''} | {verdict.accuracy:.3f} "
                f"(p = {verdict.accuracy_pvalue:.2g}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
