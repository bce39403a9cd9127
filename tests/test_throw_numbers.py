"""Throws are counted from 1 wherever a person reads a throw number."""

from __future__ import annotations

from tower.pieces import Kind, Piece, Place
from tower.traces import TraceSequence, TraceThrow, validate_sequence


def _sequence(*throws: TraceThrow) -> TraceSequence:
    pieces = (Piece(Kind.KESHI, "red"), Piece(Kind.KESHI, "green"))
    return TraceSequence(seq=0, seed=1, source="test", pieces=pieces, throws=throws)


def test_a_trace_error_names_the_throw_from_1():
    good = TraceThrow((0,), (0,), {}, None, 0)
    assert validate_sequence(_sequence(good)) is None
    lost = TraceThrow((1,), (), {}, None, 0)  # piece 1 neither out nor inside
    problem = validate_sequence(_sequence(good, lost))
    assert problem is not None and problem.startswith("throw 2: ")
    twice = TraceThrow((0,), (), {0: Place.FLOOR1}, None, 0)
    assert validate_sequence(_sequence(twice, twice)).startswith("throw 2: ")
