"""The physics cross-check: its resumable log and its comparison (pybullet runs are slow)."""

from __future__ import annotations

import math

import pytest

from tower.battle.checker import Situation
from tower.battle.physics import Comparison, physics_seasons, physics_stats, run_id


def test_comparison_z_is_the_difference_over_the_combined_error():
    c = Comparison("red", "points", 1.0, 0.03, 1.1, 0.04)
    assert math.isclose(c.z, 0.1 / 0.05)
    assert Comparison("red", "points", 0.0, 0.0, 0.0, 0.0).z == 0.0
    assert Comparison("red", "points", 0.0, 0.0, 1.0, 0.0).z == math.inf


def test_situations_round_trip_and_runs_are_named_by_what_they_depend_on():
    situation = Situation.default(players=3, season=3, recruited=1, repaired=2)
    assert Situation.from_json(situation.to_json()) == situation
    key = run_id(situation, 0, 4, "physics")
    assert key == run_id(Situation.from_json(situation.to_json()), 0, 4, "physics")
    assert (
        len(
            {
                key,
                run_id(situation, 1, 4, "physics"),
                run_id(situation, 0, 0, "physics"),
                run_id(situation, 0, 4, "other"),
                run_id(situation.with_recruited("red", 2), 0, 4, "physics"),
            }
        )
        == 5
    )


def test_physics_stats_resolve_each_simulated_battle():
    from tower.pieces import Piece

    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    seasons = [
        [(Piece.parse("brigand:neutral"),), (Piece.parse("brigand:neutral"),)],
        [(Piece.parse("watchman:red"), Piece.parse("brigand:neutral")), ()],
    ]
    red, yellow = physics_stats(situation, seasons)
    assert red.points == 0.5 and red.breaches_mean == 0.5
    assert yellow.breaches_mean == 0.5 and yellow.samples == 2


@pytest.mark.slow
def test_physics_seasons_are_reproducible_and_resume(tmp_path):
    pytest.importorskip("pybullet")
    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    log = tmp_path / "phys.jsonl"
    kw = {"seed": 2, "warmup": 1, "workers": 1, "progress": False}
    first = physics_seasons(situation, 1, log=log, **kw).seasons
    both = physics_seasons(situation, 2, log=log, **kw).seasons
    assert both[0] == first[0] and len(both) == 2
    assert len(log.read_text().splitlines()) == 2  # the first season was not run again
    fresh = physics_seasons(situation, 2, **kw).seasons
    assert fresh == both
    pooled = physics_seasons(situation, 2, seed=2, warmup=1, workers=2, progress=False)
    assert pooled.seasons == both
    for outs in both:
        assert len(outs) == 2  # one battle per player
