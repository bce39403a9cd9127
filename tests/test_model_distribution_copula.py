"""Exact laws of a coupled throw (Gauss-Hermite quadrature over the copula's normals)
against Monte Carlo of the reference's ``coupled_throw``, and their accuracy."""

import random
from collections import Counter

import pytest
from scipy import stats
from test_model_v3_file import synthetic_section

import tower.model.distilled as distilled
from tower.model import DistilledModel
from tower.pieces import NEUTRAL, Kind, Piece, mixed_keshis

BRIGAND = Piece(Kind.BRIGAND, NEUTRAL)


def _model(section, a: float, b: float) -> DistilledModel:
    return DistilledModel.from_tables(
        {**section, "copula": {"throw": a, "origin": b, "gate": "pawn"}}
    )


@pytest.fixture(scope="module")
def section():
    return synthetic_section()


@pytest.fixture(scope="module")
def state(section):
    """A tower of 6 or more pieces in several places, a brigand among them."""
    plain, rng = DistilledModel.from_tables(section), random.Random(5)
    state = plain.new_state()
    while len(state.residents) < 6 or len({r.place for r in state.residents}) < 2:
        state = plain.throw(state, [*mixed_keshis(rng.randint(2, 6)), BRIGAND], rng)[1]
    return state


PIECES = [*mixed_keshis(2), BRIGAND]


def _chi2(law: dict, seen: Counter, n: int) -> float:
    """p-value of a chi-square goodness of fit, outcomes expected under 5 times merged."""
    big = [k for k, p in law.items() if p * n >= 5]
    expected = [law[k] * n for k in big]
    observed = [seen[k] for k in big]
    rest = n - sum(observed)
    expected.append(n - sum(expected))
    observed.append(rest)
    return float(stats.chisquare(observed, expected).pvalue)


def test_the_exact_law_of_a_coupled_throw_matches_its_draws(section, state):
    model = _model(section, 0.3, 0.6)
    law = model.distribution(state, PIECES)
    assert abs(sum(law.values()) - 1) < 1e-9
    n, rng = 20_000, random.Random(2)
    seen = Counter(tuple(model.throw(state, PIECES, rng)[0]) for _ in range(n))
    assert _chi2(law, seen, n) > 0.001
    by_count = Counter()
    for out, p in law.items():
        by_count[len(out)] += p
    assert model.count_distribution(state, PIECES) == pytest.approx(
        [by_count[k] for k in range(len(state.residents) + len(PIECES) + 1)], abs=1e-12
    )


def test_the_copula_changes_the_exact_law(section, state):
    """The plain law fails the draws of the coupled model: the exact law is not it."""
    plain = DistilledModel.from_tables(section).distribution(state, PIECES)
    model = _model(section, 0.3, 0.6)
    n, rng = 20_000, random.Random(2)
    seen = Counter(tuple(model.throw(state, PIECES, rng)[0]) for _ in range(n))
    assert _chi2(plain, seen, n) < 1e-6
    coupled = model.count_distribution(state, PIECES)
    independent = DistilledModel.from_tables(section).count_distribution(state, PIECES)

    def variance(law):
        mean = sum(k * p for k, p in enumerate(law))
        return sum((k - mean) ** 2 * p for k, p in enumerate(law))

    assert variance(coupled) > variance(independent) + 0.1


@pytest.mark.parametrize(
    "a, b, tolerance", [(0.2, 0.3, 1e-12), (0.5, 0.6, 1e-12), (0.6, 0.75, 5e-9)]
)
def test_the_quadrature_is_accurate(section, state, monkeypatch, a, b, tolerance):
    """Doubling the order changes no probability by more than ``tolerance`` (the
    integrand steepens as ``c = sqrt(1 - a^2 - b^2)`` shrinks: 0.93, 0.62, 0.28)."""
    model = _model(section, a, b)
    law = model.distribution(state, PIECES)
    monkeypatch.setattr(distilled, "QUADRATURE", 2 * distilled.QUADRATURE)
    finer = _model(section, a, b).distribution(state, PIECES)
    assert law.keys() == finer.keys()
    assert max(abs(law[k] - finer[k]) for k in law) < tolerance
    assert abs(sum(law.values()) - 1) < 1e-12


def test_marrakesh_chance_outcomes_of_a_coupled_model(section):
    """A game's chance node (the engine's ``chance_outcomes``) under a copula that couples
    every throw: the law of the pieces out, summing to 1."""
    from tower.marrakesh import Game, GameConfig

    coupled = DistilledModel.from_tables(
        {**section, "copula": {"throw": 0.3, "origin": 0.6, "gate": None}}
    )
    state = Game(GameConfig(players=2, tower=coupled)).new_initial_state(3)
    rng = random.Random(3)
    while not (state.is_chance_node() and state.tower.residents):
        if state.is_chance_node():
            state.sample_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
    law = state.chance_outcomes()
    assert len(law) > 1 and abs(sum(p for _, p in law) - 1) < 1e-9
