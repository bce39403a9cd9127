"""The physics cross-check: its resumable log and its comparison (pybullet runs are slow)."""

from __future__ import annotations

import json
import math

import pytest

from tower.battle.checker import Situation
from tower.battle.physics import (
    LOG_FORMAT,
    Comparison,
    log_header,
    physics_seasons,
    physics_stats,
    read_log,
)
from tower.errors import InputFileError


def test_comparison_z_is_the_difference_over_the_combined_error():
    c = Comparison("red", "points", 1.0, 0.03, 1.1, 0.04)
    assert math.isclose(c.z, 0.1 / 0.05)
    assert Comparison("red", "points", 0.0, 0.0, 0.0, 0.0).z == 0.0
    assert Comparison("red", "points", 0.0, 0.0, 1.0, 0.0).z == math.inf


def test_log_resumes_after_a_torn_line_and_refuses_another_situation(tmp_path):
    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    header = log_header(situation, 3, "marrakesh")
    assert header["format"] == LOG_FORMAT
    log = tmp_path / "phys.jsonl"
    rec0 = {"replicate": 0, "outs": [["brigand:neutral"], ["watchman:red"]]}
    log.write_text(json.dumps(header) + "\n" + json.dumps(rec0) + "\n" + '{"replicate": 1, "ou')
    assert read_log(log, header) == [rec0]
    other = log_header(situation, 4, "marrakesh")
    with pytest.raises(InputFileError, match="another situation"):
        read_log(log, other)
    log.write_text(json.dumps(header) + "\n" + json.dumps({**rec0, "replicate": 5}) + "\n")
    with pytest.raises(InputFileError, match="expected replicate 0"):
        read_log(log, header)


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
    first = physics_seasons(situation, 1, seed=2, log=log, progress=False).seasons
    both = physics_seasons(situation, 2, seed=2, log=log, progress=False).seasons
    assert both[0] == first[0] and len(both) == 2
    assert len(log.read_text().splitlines()) == 3
    fresh = physics_seasons(situation, 2, seed=2, progress=False).seasons
    assert fresh == both
    for outs in both:
        assert len(outs) == 2  # one battle per player
