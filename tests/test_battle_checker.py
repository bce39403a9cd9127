"""The battle checker: exact against Monte Carlo, determinism, checks of observed battles."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from tower.battle.checker import (
    ImpossibleObservation,
    Observation,
    Situation,
    analyse,
    check,
    empty_tower,
    exact_first_battle,
    given_tower,
    simulate,
    steady_tower,
    warm_tower,
)
from tower.marrakesh.wall_battle import Wall, brigands, watchmen
from tower.model import BaselineModel
from tower.model.interface import Resident, TowerState
from tower.pieces import Kind, Piece, Place


class MonteCarloOnly(BaselineModel):
    """The baseline without its exact law: forces the checker onto Monte Carlo."""

    name = "baseline-mc"

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> dict[tuple[Piece, ...], float]:
        raise NotImplementedError


def _small_tower() -> TowerState:
    keshis = [Piece.keshi("red"), Piece.keshi("gray")]
    return TowerState(
        (
            *(Resident(k, Place.FLOOR1, 0) for k in keshis),
            Resident(Piece(Kind.WATCHMAN, "blue"), Place.FLOOR2, 1),
        ),
        throws=2,
    )


def test_exact_first_battle_agrees_with_monte_carlo():
    model = BaselineModel()
    situation = Situation(
        2, ("red", "blue"), {"red": 2, "blue": 1}, {"red": Wall(0), "blue": Wall(1)}
    )
    tower = given_tower(_small_tower())
    exact = exact_first_battle(model, situation, tower)
    assert exact is not None and exact.method == "exact"
    assert math.isclose(sum(exact.breaches.values()), 1.0)
    n = 20000
    mc = simulate(MonteCarloOnly(), situation, tower, n, seed=7)[0][0]
    assert mc.method == "monte carlo" and mc.samples == n
    assert abs(mc.points - exact.points) < 4 * mc.points_se
    assert abs(mc.breaches_mean - exact.breaches_mean) < 4 * mc.breaches_se
    for k, p in exact.breaches.items():
        assert abs(mc.breaches.get(k, 0.0) - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-9
    for k, p in exact.repelled.items():
        assert abs(mc.repelled.get(k, 0.0) - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-9
    # the blue resident is an attacker in red's battle: 3 attackers are possible
    assert max(exact.breaches) == 3


def test_analyse_uses_the_exact_law_for_the_first_battle_when_the_model_has_one():
    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    tower = empty_tower(BaselineModel())
    with_exact = analyse(BaselineModel(), situation, tower, samples=300, seed=3)
    without = analyse(MonteCarloOnly(), situation, tower, samples=300, seed=3)
    assert [p.method for p in with_exact.players] == ["exact", "monte carlo"]
    assert [p.method for p in without.players] == ["monte carlo", "monte carlo"]
    # one own watchman (2/3) against one brigand (2/3) on a bare wall
    first = with_exact.players[0]
    assert math.isclose(first.points, (2 / 3) * (2 / 3))
    assert math.isclose(first.breaches_mean, (2 / 3) * (1 / 3))
    assert len(with_exact.hiring) == 8
    assert {h.hired for h in with_exact.hiring} == {0, 1, 2, 3}
    assert [h.stats.method for h in with_exact.hiring if h.player == "red"] == ["exact"] * 4


def test_hiring_more_watchmen_helps_a_late_player():
    model = MonteCarloOnly()
    situation = Situation.default(players=3, season=3, recruited=1, repaired=0)
    result = analyse(model, situation, empty_tower(model), samples=1500, seed=1)
    last = [h.stats for h in result.hiring if h.player == "green"]
    assert last[3].breaches_mean < last[0].breaches_mean - 4 * last[0].breaches_se
    assert last[3].points > last[0].points


def test_analysis_is_deterministic_and_json_ready():
    model = BaselineModel()
    tower = steady_tower(model, 2, states=20, seed=5)
    situation = Situation.default(players=2)
    a = analyse(model, situation, tower, samples=200, seed=9)
    b = analyse(model, situation, tower, samples=200, seed=9)
    assert a.to_json() == b.to_json()
    assert a.to_json()["format"] == "tower.battle-analysis/1"
    assert steady_tower(model, 2, states=20, seed=5) == tower


def test_check_gives_a_tail_probability_exact_and_monte_carlo():
    thrown = tuple(watchmen("red", 2) + brigands(2))
    tower = given_tower(_small_tower())
    typical = Observation(thrown, tuple(watchmen("red", 1) + brigands(1)), "red", Wall(2))
    exact = check(BaselineModel(), typical, tower)
    assert exact.method == "exact" and 0.0 <= exact.tail <= 1.0
    mc = check(MonteCarloOnly(), typical, tower, samples=20000, seed=2)
    assert mc.method == "monte carlo" and 0.0 <= mc.tail <= 1.0
    assert mc.tail_low <= mc.tail <= mc.tail_high
    assert mc.tail_low - 4 * mc.tail_se <= exact.tail <= mc.tail_high + 4 * mc.tail_se
    assert exact.outcome is not None and exact.outcome.points == 1
    # everything including the whole tower falling out is rarer than the typical outcome
    rare = Observation(thrown, tuple(sorted((*thrown, *_small_tower().pieces))))
    assert check(BaselineModel(), rare, tower).tail < exact.tail


def test_check_flags_impossible_observations():
    thrown = tuple(watchmen("red", 1) + brigands(1))
    tower = given_tower(_small_tower())
    with pytest.raises(ImpossibleObservation, match="brigand came out"):
        check(BaselineModel(), Observation(thrown, tuple(brigands(2))), tower)
    with pytest.raises(ImpossibleObservation, match="only 3"):
        check(BaselineModel(), Observation(tuple(brigands(4)), ()), tower)
    # possible in principle, but a model that keeps nothing inside gives it probability 0
    never = BaselineModel(p_fresh=1.0, p_old=1.0)
    with pytest.raises(ImpossibleObservation, match="probability 0"):
        check(never, Observation(thrown, ()), tower)


def test_warm_tower_is_a_pool_of_independent_reproducible_towers():
    model = BaselineModel()
    warm = warm_tower(model, 2, 3, states=30, seed=1)
    assert len(warm.states) == 30 and warm == warm_tower(model, 2, 3, states=30, seed=1)
    assert all(s.throws == 3 for s in warm.states)
    assert len(set(warm.states)) > 1 and any(s.residents for s in warm.states)
    assert set(warm_tower(model, 2, 0, states=5).states) == {model.new_state()}
