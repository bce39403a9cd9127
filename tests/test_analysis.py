"""Tests of retention statistics, two-sample tests and plots."""

import random

import numpy as np
import pytest

from tower.analysis.plots import plot_retention, plot_statistics
from tower.analysis.retention import (
    STATISTICS,
    feature_matrix,
    keshi_plans,
    model_record,
    model_records,
    sequence_stats,
    summarize,
    trace_record,
)
from tower.analysis.twosample import binned_chi2, classifier_test
from tower.model import BaselineModel, NoRetentionModel
from tower.pieces import Piece, Place, keshis
from tower.traces import TraceSequence, TraceThrow


def tiny_trace() -> TraceSequence:
    """Throw 0: red, green in; red out, green to floor1. Throw 1: blue, red2 in;
    green and blue out, red2 stays. Throw 2: nothing new; red2 out."""
    pieces = (Piece.keshi("red"), Piece.keshi("green"), Piece.keshi("purple"), Piece.keshi("red"))
    throws = (
        TraceThrow((0, 1), (0,), {1: Place.FLOOR1}),
        TraceThrow((2, 3), (1, 2), {3: Place.FLOOR2}),
        TraceThrow((), (3,), {}),
    )
    return TraceSequence(0, 1, "hand", pieces, throws)


def test_trace_record_by_hand():
    rec = trace_record(tiny_trace())
    assert rec.thrown == (2, 2, 0)
    assert rec.left == ((0,), (0, 1), (1,))
    assert rec.inside == (1, 1, 0)
    assert rec.out == [1, 2, 1] and rec.fresh_out == [1, 1, 0]
    # throw 0: colours {red, green}, red out -> 1 of 2; throw 1: {purple, red}: purple out
    assert rec.colour_hits == ((1, 2), (1, 2), (0, 0))
    s = sequence_stats(rec)
    assert s["out_total"] == 4 and s["out_first"] == 1
    assert s["fresh_share"] == pytest.approx(1 / 3)
    assert s["stay_mean"] == pytest.approx((0 + 1 + 0 + 1) / 4)
    assert s["colour_hit"] == pytest.approx(0.5)


def test_model_record_reads_entry_throws_from_state():
    rng = random.Random(3)
    plan = [keshis({"red": 2, "green": 1}) for _ in range(6)]
    rec = model_record(BaselineModel(), plan, rng)
    assert sum(rec.out) + rec.inside[-1] == 18
    for t, left in enumerate(rec.left):
        assert all(s <= t for s in left)
    none = model_record(NoRetentionModel(), plan, rng)
    assert none.out == [3] * 6 and none.fresh_out == [3] * 6 and none.inside == (0,) * 6


def test_summary_of_a_tower_that_keeps_nothing():
    s = summarize(model_records(NoRetentionModel(), keshi_plans(10, 9, 12), seed=0))
    assert s["equilibrium_inside"] == 0 and s["out_per_in"] == 1
    assert s["fresh_share"] == 1 and s["colour_hit"] == 1
    assert s["stay_share"] == {"0": 1.0, "censored": 0.0}


def test_baseline_equilibrium_is_about_n():
    """Baseline: inflow n * 1/3 balances outflow I * 1/3 at I = n (published remark)."""
    recs = model_records(BaselineModel(), keshi_plans(400, 9, 30), seed=1)
    late = np.mean([r.inside[20:] for r in recs])
    assert late == pytest.approx(9, abs=0.4)


def test_chi2_accepts_same_law_and_rejects_shift():
    rng = np.random.default_rng(5)
    assert binned_chi2(rng.poisson(6, 1000), rng.poisson(6, 1000)).pvalue > 0.01
    assert binned_chi2(rng.poisson(6, 1000), rng.poisson(6.6, 1000)).pvalue < 1e-3
    same = binned_chi2(np.full(50, 3.0), np.full(60, 3.0))
    assert same.pvalue == 1.0


def test_classifier_sees_a_variance_difference_but_not_noise():
    rng = np.random.default_rng(6)
    a = rng.normal(size=(600, 4))
    assert classifier_test(a, rng.normal(size=(600, 4)), seed=1).accuracy < 0.55
    wide = rng.normal(size=(600, 4)) * np.array([1, 1, 1, 1.6])
    res = classifier_test(a, wide, seed=1)
    assert res.accuracy > 0.58 and res.pvalue < 1e-4


def test_features_and_plots(tmp_path):
    recs = model_records(BaselineModel(), keshi_plans(30, 6, 12), seed=2)
    X = feature_matrix(recs)
    assert X.shape == (30, 3 * 12 + len(STATISTICS))
    assert feature_matrix(recs, per_throw=False).shape == (30, len(STATISTICS))
    png = plot_retention({"baseline": {6: summarize(recs)}}, tmp_path / "r.png")
    assert png.stat().st_size > 10_000
    stats = {name: [sequence_stats(r)[name] for r in recs] for name in STATISTICS}
    png = plot_statistics({"a": stats, "b": stats}, tmp_path / "s.png")
    assert png.stat().st_size > 10_000
