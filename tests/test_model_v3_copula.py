"""The reference sampler's coupled groups (``copula``): laws kept, coupling, gate, format."""

import random

import numpy as np
import pytest

from tower.model.fit import FitSettings, fit_tables
from tower.model.reference import ReferenceSampler, copula_settings, groups
from tower.model.synthetic import SyntheticTower
from tower.pieces import NEUTRAL, Kind, Piece, mixed_keshis


def pawn_plan(rng: random.Random) -> list[list[Piece]]:
    """Throws of 2..12 pieces, up to 3 of them brigands (pawns)."""
    plan = []
    for _ in range(12):
        n = rng.randint(2, 12)
        pawns = rng.randint(0, min(n, 3))
        plan.append(mixed_keshis(n - pawns) + [Piece(Kind.BRIGAND, NEUTRAL)] * pawns)
    return plan


@pytest.fixture(scope="module")
def section():
    tower = SyntheticTower()
    traces = tower.traces(200, seed=21) + tower.traces(200, seed=22, throws=pawn_plan)
    return fit_tables(traces, FitSettings())


#: A tower at throw 3: keshis and a pawn on floor 1, keshis on floor 2 (ids 0..5).
RESIDENTS = [
    ("keshi", "floor1", 2, 0),
    ("keshi", "floor1", 2, 1),
    ("pawn", "floor1", 1, 2),
    ("keshi", "floor2", 2, 3),
    ("keshi", "floor2", 2, 4),
    ("keshi", "floor2", 0, 5),
]
FRESH = [("keshi", 10 + i) for i in range(6)]


def _draws(section, copula, residents, fresh, n=12_000, seed=3):
    """Per draw, the number out of each group of the throw (visiting order)."""
    sampler = ReferenceSampler({**section, "copula": copula})
    found = groups(residents, fresh, 3, sampler.age_cap)
    members = [{p for _, p in m} for *_, m in found]
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        out, after = sampler.throw(list(residents), list(fresh), 3, rng)
        out = set(out)
        assert sorted([*out, *(p for *_, p in after)]) == sorted(
            [p for *_, p in residents] + [p for _, p in fresh]
        )
        rows.append([len(out & m) for m in members])
    return found, np.array(rows), sampler


def _copula(a: float, b: float, gate: str | list[str] | None = None) -> dict:
    return {"throw": a, "origin": b, "gate": gate}


def test_first_group_keeps_its_law_under_coupling(section):
    found, rows, sampler = _draws(section, _copula(0.3, 0.6), RESIDENTS, FRESH)
    name, _, ctx, _ = found[0]
    law = sampler.out_law(name, (*ctx, 0))
    seen = np.bincount(rows[:, 0], minlength=len(law)) / len(rows)
    assert np.abs(seen - law).max() < 0.015


def test_without_loadings_every_group_keeps_its_law_given_o(section):
    found, rows, sampler = _draws(section, _copula(0.0, 0.0), RESIDENTS, FRESH)
    gone = np.cumsum(rows, axis=1) - rows  # pieces out before each group
    for j, (name, _, ctx, _) in enumerate(found):
        o = np.bincount(gone[:, j]).argmax()
        picked = rows[gone[:, j] == o, j]
        law = sampler.out_law(name, (*ctx, int(o)))
        seen = np.bincount(picked, minlength=len(law)) / len(picked)
        assert np.abs(seen - law).max() < 4 / np.sqrt(len(picked)), name


def _same_place_correlation(found, rows) -> float:
    """Correlation of the numbers out of the two floor-2 keshi groups (ages 1 and 3)."""
    names = [name for name, *_ in found]
    a, b = names.index("floor2.keshi.1"), names.index("floor2.keshi.3")
    return float(np.corrcoef(rows[:, a], rows[:, b])[0, 1])


def test_residents_of_one_place_leave_together(section):
    independent = _same_place_correlation(*_draws(section, _copula(0.0, 0.0), RESIDENTS, FRESH)[:2])
    coupled = _same_place_correlation(*_draws(section, _copula(0.0, 0.6), RESIDENTS, FRESH)[:2])
    assert abs(independent) < 0.05
    assert coupled > independent + 0.15


def test_the_gate_couples_only_throws_with_its_class(section):
    keshis = [r for r in RESIDENTS if r[0] == "keshi"]
    gated = _copula(0.0, 0.6, "pawn")
    without = _same_place_correlation(*_draws(section, gated, keshis, FRESH)[:2])
    thrown = _same_place_correlation(*_draws(section, gated, keshis, [*FRESH, ("pawn", 99)])[:2])
    assert abs(without) < 0.03  # 12,000 draws: a correlation's standard error is 0.009
    assert thrown > 0.05


@pytest.mark.parametrize(
    "bad",
    [
        {"throw": 0.8, "origin": 0.7, "gate": None},
        {"throw": -0.1, "origin": 0.2, "gate": None},
        {"throw": 0.1, "origin": 0.2},
        {"throw": True, "origin": 0.2, "gate": None},
    ],
)
def test_bad_loadings_are_refused(bad):
    with pytest.raises(ValueError, match="copula"):
        copula_settings(bad)


def test_a_gate_of_two_classes_couples_throws_with_either(section):
    sampler = ReferenceSampler({**section, "copula": _copula(0.2, 0.3, ["expert", "pawn"])})
    keshis = [r for r in RESIDENTS if r[0] == "keshi"]
    assert sampler.loadings(keshis, FRESH) == (0.0, 0.0)
    assert sampler.loadings(RESIDENTS, FRESH) == (0.2, 0.3)  # a pawn inside
    assert sampler.loadings(keshis, [*FRESH, ("expert", 99)]) == (0.2, 0.3)


def test_a_throw_takes_the_first_entry_whose_gate_it_meets(section):
    entries = [_copula(0.2, 0.3, "pawn"), _copula(0.1, 0.4, ["expert"]), _copula(0.0, 0.5)]
    sampler = ReferenceSampler({**section, "copula": entries})
    keshis = [r for r in RESIDENTS if r[0] == "keshi"]
    assert sampler.loadings(RESIDENTS, [*FRESH, ("expert", 99)]) == (0.2, 0.3)  # pawn first
    assert sampler.loadings(keshis, [*FRESH, ("expert", 99)]) == (0.1, 0.4)
    assert sampler.loadings(keshis, FRESH) == (0.0, 0.5)  # no gate: every throw
    assert ReferenceSampler({**section, "copula": entries[:2]}).loadings(keshis, FRESH) == (0, 0)
