"""Prototype for issue 32: a distilled tower whose groups of one throw leave together.

`.venv/bin/python calibration/models/copula.py MODEL.json --traces HELD-OUT.jsonl.gz --seed 0`

The shipped sampler (:mod:`tower.model.reference`) draws every group of a throw (fresh
pieces by class, residents by place, class and age) on its own, given the context; only
``o``, the pieces already out, links them. Physics has more covariance between the groups
of one throw (calibration/models/README.md, "Which part of the dynamics physics keeps"),
so its Walls & Guards towers spread more over a sequence than the model's.

The sampler (:meth:`tower.model.reference.ReferenceSampler.coupled_throw`, used when a
model section has a ``copula``) keeps the file's back-off mixture as each group's law and
draws the groups of one throw *jointly* through a Gaussian copula: the number out of a
group is its out-law's quantile at ``u = Phi(a Z + b Z_origin + c e)``,
``Z`` shared by the whole throw, ``Z_origin`` by the groups of one origin (the fresh
pieces, or one place), ``e`` the group's own, ``c = sqrt(1 - a^2 - b^2)``: each ``u`` is
uniform on its own, and given the groups drawn before it a group leans their way. Only throws
where a pawn is inside or thrown are coupled: keshi-only towers (the keshi and expert
sets) pass without it and get too much spread with it.

No model file version holds the two numbers yet, so this script adds them to the section
of a `tower.model/2` file fitted as usual (`tower distill`). It imports tower as
installed; a :class:`CopulaModel` is a :class:`TowerModel`, so
:func:`tower.analysis.validation.validate` checks it like any model.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tower.analysis.validation import validate
from tower.model.interface import Resident, TowerModel, TowerState
from tower.model.reference import ReferenceSampler
from tower.pieces import Piece, Place
from tower.traces import read_traces


class CopulaModel(TowerModel):
    """A :class:`TowerModel` playing a distilled file's tables with the copula of
    :meth:`ReferenceSampler.coupled_throw` (loadings ``a``, ``b``; gate: pawns)."""

    name = "copula"

    def __init__(self, model: dict[str, Any], a: float, b: float, *, gate: bool = True) -> None:
        copula = {"throw": a, "origin": b, "gate": "pawn" if gate else None}
        self.sampler = ReferenceSampler({**model, "copula": copula})
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
