"""Tests of the shared vocabulary: pieces, places, and the baseline model's accounting."""

import random
from collections import Counter

import pytest

from tower.model import BaselineModel, TowerState
from tower.pieces import Kind, Piece, mixed_keshis


def test_piece_round_trips_through_text():
    for p in [Piece.keshi("red"), Piece(Kind.WATCHMAN, "blue"), Piece(Kind.BRIGAND, "neutral")]:
        assert Piece.parse(str(p)) == p


@pytest.mark.parametrize("text", ["keshi", "dragon:red", ":red", "keshi:"])
def test_bad_piece_text_is_rejected(text):
    with pytest.raises(ValueError, match="piece"):
        Piece.parse(text)


def test_unknown_keshi_colour_is_rejected():
    with pytest.raises(ValueError, match="mauve"):
        Piece.keshi("mauve")


def test_baseline_accounts_for_every_piece_and_round_trips_state():
    model = BaselineModel()
    rng = random.Random(5)
    state = model.new_state()
    thrown_total: Counter = Counter()
    out_total: Counter = Counter()
    for _ in range(30):
        pieces = mixed_keshis(12)
        thrown_total.update(pieces)
        out, state = model.throw(state, pieces, rng)
        out_total.update(out)
        assert TowerState.from_json(state.to_json()) == state
    assert out_total + Counter(state.pieces) == thrown_total
    assert state.throws == 30


def test_baseline_is_deterministic_for_a_seed():
    model = BaselineModel()
    a = model.throw(model.new_state(), mixed_keshis(12), random.Random(9))
    b = model.throw(model.new_state(), mixed_keshis(12), random.Random(9))
    assert a == b
