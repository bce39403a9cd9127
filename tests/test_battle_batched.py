"""The battle seasons on the numpy batch path draw the law of the one-throw-at-a-time
seasons, and ``tower battle``'s default table agrees with the one main printed before.

Comparisons are z-scores of independent Monte Carlo estimates with fixed seeds, held to
|z| <= 4 (about 40 comparisons per test: a correct pair fails with probability under
0.3%); a wrong split of labelled pieces, start state or hiring branch moves them far
beyond that.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from model_files import V2_MODEL

from tower.battle.batched import simulate_batched, start_residents
from tower.battle.checker import Situation, analyse, given_tower, simulate
from tower.battle.inputs import choose_model, choose_tower
from tower.battle.report import table
from tower.marrakesh.wall_battle import Wall
from tower.model import load_model
from tower.model.interface import Resident, TowerState
from tower.pieces import NEUTRAL, Kind, Piece, Place

MAIN_TABLE = Path(__file__).parent / "data" / "battle" / "default_table_main_bb5c3cc.txt"


@pytest.fixture(scope="module")
def model():
    return choose_model("shipped")[0]


def _mixed_tower() -> TowerState:
    """Residents of every battle label, in several places and ages."""
    pieces = [
        (Piece(Kind.WATCHMAN, "red"), Place.FLOOR1, 3),
        (Piece(Kind.WATCHMAN, "red"), Place.FLOOR2, 1),
        (Piece(Kind.WATCHMAN, "blue"), Place.FLOOR1, 3),
        (Piece(Kind.WATCHMAN, "yellow"), Place.RAMP, 2),
        (Piece(Kind.BRIGAND, NEUTRAL), Place.FLOOR1, 3),
        (Piece(Kind.BRIGAND, NEUTRAL), Place.FUNNEL, 4),
        *((Piece.keshi(c), Place.FLOOR1, 0) for c in ("red", "green", "black", "white")),
        (Piece.keshi("pink"), Place.FLOOR2, 2),
    ]
    return TowerState(tuple(Resident(p, place, since) for p, place, since in pieces), throws=5)


def _z(a: float, a_se: float, b: float, b_se: float) -> float:
    se = math.hypot(a_se, b_se)
    return 0.0 if se == 0 and a == b else (a - b) / max(se, 1e-12)


def test_start_residents_count_every_piece_by_place_label_and_age(model):
    pool = start_residents(model, given_tower(_mixed_tower()))
    assert pool.shape == (1, 4, 6, model.sampler.age_cap) and pool.sum() == 11
    # the two red watchmen: floor1 aged 2 (bucket 1), floor2 aged 4 (bucket 3)
    red = 2
    assert pool[0, 1, red, 1] == 1 and pool[0, 2, red, 3] == 1


def test_batched_seasons_draw_the_law_of_the_one_throw_seasons(model, monkeypatch):
    """(In chunks of 1000 seasons: 1000, 1000 and 500.)"""
    from tower.battle import batched

    monkeypatch.setattr(batched, "CHUNK", 1000)
    situation = Situation(
        3,
        ("blue", "red", "yellow"),
        {"blue": 1, "red": 3, "yellow": 0},
        {"blue": Wall(1), "red": Wall(2, watchtower=True), "yellow": Wall(0)},
    )
    tower = given_tower(_mixed_tower())
    n = 2500
    fast, fast_hired = simulate_batched(model, situation, tower, n, seed=5, hiring=True)
    slow, slow_hired = simulate(model, situation, tower, n, seed=6, hiring=True, batched=False)
    pairs = [*zip(fast, slow, strict=True)]
    pairs += [(fast_hired[key], slow_hired[key]) for key in sorted(slow_hired)]
    assert len(pairs) == 3 + 12 and all(a.samples == n for a, _ in pairs)
    zs = []
    for a, b in pairs:
        zs.append(_z(a.points, a.points_se, b.points, b.points_se))
        zs.append(_z(a.breaches_mean, a.breaches_se, b.breaches_mean, b.breaches_se))
        for k in {*a.repelled, *b.repelled}:
            p, q = a.repelled.get(k, 0.0), b.repelled.get(k, 0.0)
            zs.append(_z(p, math.sqrt(p * (1 - p) / n), q, math.sqrt(q * (1 - q) / n)))
    assert max(map(abs, zs)) <= 4, sorted(zs, key=abs)[-3:]
    # the battles differ between players and hires: the comparison has power
    assert fast_hired["yellow", 3].points > fast_hired["yellow", 0].points + 0.3


def _rows(text: str) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """(player, "row" or hire) -> ([points, se, breaches, se], P(breaches = 0..4))."""
    rows = {}
    for line in text.splitlines():
        if not re.match(r"^(red|yellow|green|blue) ", line):
            continue
        words = line.split()
        if words[-1] in ("carlo", "exact"):  # a player's row
            law = words[9 : -2 if words[-1] == "carlo" else -1]
            means = [words[3], words[5], words[6], words[8]]
            rows[words[0], "row"] = ([float(x) for x in means], [float(x) for x in law[:5]])
        else:  # a hiring row: ... points ± se breaches ± se
            means = [words[-6], words[-4], words[-3], words[-1]]
            rows[words[0], words[1]] = ([float(x) for x in means], [])
    return rows


def test_default_table_agrees_with_the_one_main_printed():
    """``tower battle`` with its defaults, now on the batch path, against the table the
    one-throw path printed on main (the file) with the model then shipped (kept as
    calibration/models/marrakesh-v2.json): every mean within 3 combined standard errors,
    every P(breaches = k) within 3 binomial ones, plus the 0.01 of rounding."""
    model = load_model(V2_MODEL)
    situation = Situation.default()
    tower = choose_tower("steady", model, 4, 0)
    new = _rows(table(analyse(model, situation, tower, samples=2000, seed=0)))
    old = _rows(MAIN_TABLE.read_text())
    assert sorted(new) == sorted(old) and len(old) == 4 + 16
    checked = 0
    for key, ((x, x_se, u, u_se), law) in new.items():
        (y, y_se, v, v_se), old_law = old[key]
        assert abs(x - y) <= 3 * math.hypot(x_se, y_se) + 0.01, (key, x, y)
        assert abs(u - v) <= 3 * math.hypot(u_se, v_se) + 0.01, (key, u, v)
        for p, q in zip(law, old_law, strict=True):
            assert abs(p - q) <= 3 * math.sqrt((p * (1 - p) + q * (1 - q)) / 2000) + 0.01
            checked += 1
        checked += 2
    assert checked == 20 * 2 + 4 * 5
