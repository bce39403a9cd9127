"""Where a model differs from physics by the throw's make-up (tower.analysis.makeup)."""

from __future__ import annotations

import random
from collections import Counter

from tower.analysis.makeup import ThrowRow, differences, model_rows, trace_rows
from tower.model import BaselineModel
from tower.pieces import NEUTRAL, Kind, Piece, Place
from tower.traces import TraceSequence, TraceThrow

KESHI, BRIGAND = Piece.keshi("red"), Piece(Kind.BRIGAND, NEUTRAL)


def test_trace_rows_count_fresh_and_old_pieces_by_kind():
    # throw 0: keshi 0 and brigand 1 thrown, the brigand out; throw 1: keshi 2 thrown,
    # keshi 0 (old) and keshi 2 (fresh) out
    seq = TraceSequence(
        0, 1, "test", (KESHI, BRIGAND, KESHI),
        (TraceThrow((0, 1), (1,), {0: Place.FLOOR1}), TraceThrow((2,), (0, 2), {})),
    )  # fmt: skip
    first, second = trace_rows(seq)
    assert first.thrown == Counter(keshi=1, brigand=1) and not first.inside
    assert first.fresh_out == Counter(brigand=1) and not first.old_out
    assert second.inside == Counter(keshi=1) and second.thrown == Counter(keshi=1)
    assert second.fresh_out == Counter(keshi=1) and second.old_out == Counter(keshi=1)
    assert (second.field("n"), second.field("w"), second.field("I")) == (1, 0, 1)
    assert first.field("w") == 1


def test_model_rows_keep_every_piece():
    plan = [[KESHI] * 5 + [BRIGAND] * 2 for _ in range(8)]
    rows = model_rows(BaselineModel(), plan, random.Random(4))
    inside = Counter()
    for row in rows:
        assert row.inside == +inside
        assert all(row.fresh_out[k] <= row.thrown[k] for k in row.thrown)
        inside = inside + row.thrown
        inside.subtract(row.fresh_out + row.old_out)
    assert sum(r.out for r in rows) > 0


def _rows(old_out_keshis_alone: int) -> list[ThrowRow]:
    """Throws of 2 keshis (w = 0) into 4 resident keshis, with a given number of old
    keshis out, and throws of 2 brigands (w = 2) with 1 old keshi out."""
    alone = ThrowRow(
        Counter(keshi=2), Counter(keshi=4), Counter(keshi=1), Counter(keshi=old_out_keshis_alone)
    )
    pawns = ThrowRow(Counter(brigand=2), Counter(keshi=4), Counter(brigand=1), Counter(keshi=1))
    return [alone, pawns] * 100


def test_differences_point_at_the_cell_that_differs():
    found = differences(_rows(0), _rows(2))
    top = found[0]
    assert (top.cell, top.kind, top.age) == ("w=0", "keshi", "old")
    assert (top.physics, top.model, top.pieces) == (0.0, 0.5, 400)
    assert top.z < -10
    same = {(d.cell, d.kind, d.age): d.z for d in found}
    assert same["w=2", "keshi", "old"] == 0 and same["w=0", "keshi", "fresh"] == 0
