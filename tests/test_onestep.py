"""A distilled model's law at the simulator's state (tower.analysis.onestep)."""

from __future__ import annotations

import random

from tower.analysis.onestep import expected_rows, one_step_differences
from tower.model import BaselineModel
from tower.model.fit import FitSettings, fit_tables
from tower.model.reference import ReferenceSampler
from tower.model.synthetic import SyntheticTower
from tower.pieces import Kind, Piece, mixed_keshis


def _plan(rng: random.Random) -> list[list[Piece]]:
    """Keshi throws with 0-4 watchmen: the make-up a pushing tower reacts to."""
    return [
        mixed_keshis(rng.choice([6, 9])) + [Piece(Kind.WATCHMAN, "red")] * rng.randint(0, 4)
        for _ in range(10)
    ]


def test_expected_rows_follow_the_traced_state():
    tower = SyntheticTower()
    seq = tower.traces(1, seed=3, throws=_plan)[0]
    sampler = ReferenceSampler(fit_tables(tower.traces(60, seed=4, throws=_plan), FitSettings()))
    rows = expected_rows(sampler, seq)
    inside = 0
    for row, throw in zip(rows, seq.throws, strict=True):
        assert sum(row.thrown.values()) == len(throw.thrown)
        assert sum(row.inside.values()) == inside
        for kind, n in row.thrown.items():
            assert 0 < row.fresh_out[kind] < n
        assert sum(row.old_out.values()) <= inside
        inside = len(throw.inside)


def test_an_unsmoothed_law_gives_back_the_shares_it_was_counted_from():
    """One level with the whole context, no back-off: at the traced state and the pieces
    already out, the law's expectation is the very share counted from those throws, in
    every cell (a wrong age, place, order or count of pieces out would move it)."""
    tower = SyntheticTower(fresh_out=(0.2, 0.9), strong_boost=0.6)
    fit = tower.traces(150, seed=1)
    exact = FitSettings(levels=(("m", "n", "I", "P", "o"), ("m",)), alpha=1e-9, min_count=1)
    found = one_step_differences(ReferenceSampler(fit_tables(fit, exact)), fit)
    assert len(found) >= 8 and {d.age for d in found} == {"fresh", "old"}
    for d in found:
        assert abs(d.physics - d.model) < 1e-6, d


def test_a_law_without_the_make_up_is_found_wanting_where_pawns_push():
    """On a tower where every pawn thrown dislodges residents, levels that cannot see
    the pawns thrown get the old pieces' share wrong at the simulator's own state, most
    where many pawns are thrown; levels that see them do not."""
    tower = SyntheticTower(push=0.1)
    fit, held = tower.traces(300, seed=1, throws=_plan), tower.traces(200, seed=2, throws=_plan)
    blind = FitSettings(levels=(("m", "n", "I", "o"), ("m", "n", "J"), ("m",)))

    def worst_old(settings: FitSettings) -> float:
        found = one_step_differences(ReferenceSampler(fit_tables(fit, settings)), held)
        return max(abs(d.z) for d in found if d.age == "old" and d.cell.startswith("w="))

    blind_z, seeing_z = worst_old(blind), worst_old(FitSettings())
    assert blind_z > 4 and seeing_z < 3, (blind_z, seeing_z)
    assert one_step_differences(BaselineModel(), held) == []  # no exact law to ask
