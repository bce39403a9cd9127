"""Counting and replaying lost pieces (:mod:`tower.physics.escapes`).

A coarse time step without CCD or backing slabs loses pieces within a few throws (they
fall through the thin boards), which gives real losses to count and replay quickly.
"""

from __future__ import annotations

import numpy as np
import pytest

from tower.physics import Numerics
from tower.physics.escapes import (
    CHECK_MIXES,
    RETRIES,
    batch_totals,
    check_batch,
    check_mix,
    check_tower,
    replay_lost,
)
from tower.pieces import Kind

#: 1/30 s steps, no CCD, no slabs behind the walls: pieces tunnel through the boards
LEAKY = Numerics.v4(time_step=1 / 30, ccd=False, backing=0.0)


@pytest.fixture(scope="module")
def leaky_tower() -> dict:
    return check_tower("keshis", seed=3, throws=4, numerics=LEAKY)


def test_check_tower_logs_every_lost_attempt_with_its_tower_and_throw(leaky_tower):
    record = leaky_tower
    lost = record["lost"]
    assert lost, "the leaky numerics lost nothing: the test needs a loss to replay"
    assert record["throws"] == 4
    # a lost attempt is thrown again, or is the last of a throw lost in every attempt
    failed = record["escapes"] + record["nans"]
    assert len(lost) == record["rethrows"] + (RETRIES + 1) * failed
    assert {e["kind"] for e in lost} <= {"escape", "nan"}
    assert record["pieces"] == 12 * (record["throws"] - failed + len(lost))
    assert len(record["inside"]) == record["throws"] - failed
    for entry in lost:
        assert f"piece {entry['piece']} " in entry["message"]
        assert f"throw {entry['throw'] + 1}:" in entry["message"]  # the log's index is 0-based
        assert f"seed {entry['seed']}" in entry["message"]


def test_a_lost_attempt_replays_alone_and_shows_the_piece_leaving(leaky_tower):
    entry = leaky_tower["lost"][0]
    replay = replay_lost(
        "keshis", 3, entry["throw"], entry["attempt"], tower_seed=entry["seed"], numerics=LEAKY
    )
    assert replay["lost"] and replay["message"] == entry["message"]
    assert replay["piece"]["id"] == entry["piece"]
    path = replay["path"]
    assert 0 < len(path) <= 40 and path[-1]["step"] > path[0]["step"]
    # the guard read the position the path ends at (it checks every few steps)
    if "left the bounds" in entry["message"]:
        where = entry["message"].split(" at (")[1].split(")")[0]
        assert np.allclose([float(v) for v in where.split(",")], path[-1]["position"], atol=0.06)
    assert replay["last_part"] is None or isinstance(replay["last_part"], str)


def test_replaying_a_throw_that_lost_nothing_says_so():
    assert replay_lost("keshis", 3, 0, numerics=Numerics.v4()) == {"lost": False, "caught": []}


def test_a_tower_without_the_throw_is_refused():
    with pytest.raises(ValueError, match="no throw 5"):
        replay_lost("keshis", 3, 5, throws=1, tower_seed=4)


def test_check_batch_sums_its_towers_and_resumes(tmp_path):
    out = tmp_path / "check.jsonl"
    totals = check_batch("keshis", 9, 2, out, throws=2)
    assert (totals["towers"], totals["throws"]) == (2, 4)
    assert totals["pieces"] == 12 * 4 + 12 * totals["lost_pieces"]
    again = check_batch("keshis", 9, 2, out, throws=2)  # resumed: nothing thrown again
    assert again == totals
    records = [{"key": 0, "pieces": 10, "throws": 1, "escapes": 0, "nans": 0, "rethrows": 1,
                "caught": 2, "lost": [{"seed": 1, "throw": 0}],
                "caught_at": [{"seed": 1, "throw": 0, "pieces": [3, 4]}]}]  # fmt: skip
    totals = batch_totals(records)
    assert totals["lost_per_million"] == pytest.approx(1e5)
    assert totals["caught_per_million"] == pytest.approx(2e5)
    assert totals["lost"] == [{"tower": 0, "seed": 1, "throw": 0}]
    assert totals["caught_at"] == [{"tower": 0, "seed": 1, "throw": 0, "pieces": [3, 4]}]


def test_the_check_mixes_throw_what_they_say():
    rng = np.random.default_rng(0)
    for _ in range(20):
        keshis = CHECK_MIXES["experts"].pieces(rng)
        count = sum(p.kind is Kind.KESHI for p in keshis)
        assert count in (6, 9, 12) and 1 <= len(keshis) - count <= 5
        assert len(CHECK_MIXES["mixed"].pieces(rng)) >= 1
    with pytest.raises(ValueError, match="unknown check mix 'dice'"):
        check_mix("dice")
