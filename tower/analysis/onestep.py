"""A distilled model's law at the simulator's own state: one step at a time.

:mod:`tower.analysis.makeup` lets a model replay the held-out throw plans from its own
state, so a difference there may come from the law of one throw or from a state that
drifted over many. This separates the two. For every held-out throw it puts the simulator's
tower, as traced (every resident's place and entry throw), into the model's groups
(:func:`tower.model.reference.groups`) and asks each group's exact law
(:meth:`~tower.model.reference.ReferenceSampler.out_law`) for the expected share of its
pieces out, given the pieces out of the groups drawn before it in the throw (the context
field ``o``) as the simulator had them. The expected shares are pooled into the same cells
as the replay's (:func:`tower.analysis.makeup.differences`) and set against the shares the
simulator gave. A cell that differs here differs in the law itself: the model's levels
miss something that the traced state and the throw do not show it, or its back-off leans
on coarser contexts that behave otherwise. The z-score takes the model's expectation as a
second sample of the same size (so it is about 1.4 times too small): it ranks, it is not a
test.

Examples
--------
>>> from tower.model import load_shipped
>>> from tower.model.synthetic import SyntheticTower
>>> seq = SyntheticTower().traces(1, seed=1)[0]
>>> rows = expected_rows(load_shipped("marrakesh").sampler, seq)
>>> len(rows) == len(seq.throws), sum(rows[0].inside.values())
(True, 0)
>>> 0 < rows[0].fresh_out["keshi"] < rows[0].thrown["keshi"]
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tower.analysis.makeup import Difference, ThrowRow, differences, trace_rows
from tower.model.interface import TowerModel
from tower.model.reference import ReferenceSampler, groups
from tower.traces import TraceSequence


def expected_rows(sampler: ReferenceSampler, seq: TraceSequence) -> list[ThrowRow]:
    """Per throw of ``seq``: the pieces thrown and inside, by kind, and the pieces of each
    kind that the model expects out (fresh and old), from the traced state."""
    kinds = [p.kind.value for p in seq.pieces]
    classes = [sampler.classes[k] for k in kinds]
    rows: list[ThrowRow] = []
    inside: dict[int, str] = {}
    since: dict[int, int] = {}
    for t, throw in enumerate(seq.throws):
        residents = [(classes[p], place, since[p], p) for p, place in inside.items()]
        fresh = [(classes[p], p) for p in throw.thrown]
        out = set(throw.out)
        expected: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
        gone = 0
        for name, _, ctx, members in groups(residents, fresh, t, sampler.age_cap):
            law = sampler.out_law(name, (*ctx, gone))
            share = sum(k * q for k, q in enumerate(law)) / ctx[0]
            for entered, p in members:
                expected[entered == t][kinds[p]] += share
            gone += sum(p in out for _, p in members)
        rows.append(
            ThrowRow(
                Counter(kinds[p] for p in throw.thrown),
                Counter(kinds[p] for p in inside),
                expected[True],
                expected[False],
            )
        )
        for p in throw.inside:
            since.setdefault(p, t)
        inside = {p: place.value for p, place in throw.inside.items()}
    return rows


def one_step_differences(
    model: TowerModel | ReferenceSampler, held_out: Sequence[TraceSequence], *,
    min_pieces: int = 200,
) -> list[Difference]:  # fmt: skip
    """:func:`~tower.analysis.makeup.differences` of the simulator's throws against the
    model's expectations at the simulator's state (the model is the second source).

    ``model``: a reference sampler, or a tower model that has one (a distilled model); any
    other model has no exact law to ask, and gets no rows.
    """
    sampler = model if isinstance(model, ReferenceSampler) else getattr(model, "sampler", None)
    if not isinstance(sampler, ReferenceSampler):
        return []
    physics = [r for s in held_out for r in trace_rows(s)]
    model = [r for s in held_out for r in expected_rows(sampler, s)]
    return differences(physics, model, min_pieces=min_pieces)
