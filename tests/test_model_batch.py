"""The numpy fast path draws from the same law as the pure-Python reference sampler.

Each comparison is a chi-square homogeneity test at the 0.1% level with fixed seeds:
nine tests, so a correct pair fails this file with probability under 1%; a wrong
context, back-off or ageing rule shifts these laws far beyond it.
"""

import random

import numpy as np
import pytest

from tower.analysis.retention import keshi_plans, model_records
from tower.analysis.twosample import binned_chi2
from tower.model import DistilledModel
from tower.model.batch import BatchTowers
from tower.model.fit import FitSettings, fit_tables
from tower.model.synthetic import SyntheticTower
from tower.pieces import NEUTRAL, Kind, Piece, mixed_keshis

N = 3000


@pytest.fixture(scope="module")
def model():
    def plans(rng):
        return [
            mixed_keshis(rng.randint(3, 9)) + [Piece(Kind.BRIGAND, NEUTRAL)] * 2 for _ in range(12)
        ]

    tower = SyntheticTower()
    traces = tower.traces(600, seed=21) + tower.traces(200, seed=22, throws=plans)
    return DistilledModel.from_tables(fit_tables(traces, FitSettings()), name="synthetic")


def test_batch_matches_reference_on_keshi_sequences(model):
    ref = model_records(model, keshi_plans(N, 12, 12), seed=5)
    towers = BatchTowers(model.doc["model"], N, seed=6)
    throws = [towers.throw({"keshi": 12}) for _ in range(12)]
    ref_out = np.array([r.out for r in ref])
    ref_fresh = np.array([r.fresh_out for r in ref])
    for t in (0, 2, 11):
        assert binned_chi2(ref_out[:, t], throws[t].out).pvalue > 0.001, t
    assert binned_chi2(ref_fresh[:, 5], throws[5].fresh_out).pvalue > 0.001
    assert binned_chi2([r.inside[-1] for r in ref], towers.inside).pvalue > 0.001


def test_batch_matches_reference_with_pawns(model):
    pieces = mixed_keshis(5) + [Piece(Kind.BRIGAND, NEUTRAL)] * 2
    rng = random.Random(8)
    pawn_out, keshi_out = [], []
    for _ in range(N):
        state = model.new_state()
        for _ in range(3):
            out, state = model.throw(state, pieces, rng)
        pawn_out.append(sum(p.kind is Kind.BRIGAND for p in out))
        keshi_out.append(sum(p.kind is Kind.KESHI for p in out))
    towers = BatchTowers(model.doc["model"], N, seed=9)
    for _ in range(3):
        res = towers.throw({"keshi": 5, "pawn": 2})
    pawn = towers.classes.index("pawn")
    assert binned_chi2(pawn_out, res.out_by_class[:, pawn]).pvalue > 0.001
    keshi = towers.classes.index("keshi")
    assert binned_chi2(keshi_out, res.out_by_class[:, keshi]).pvalue > 0.001


def test_batch_is_deterministic_and_accounts_for_pieces(model):
    def run(seed):
        towers = BatchTowers(model.doc["model"], 200, seed=seed)
        total = 0
        for _ in range(12):
            total += towers.throw({"keshi": 12}).out
        return total, towers.inside

    (out_a, in_a), (out_b, in_b) = run(1), run(1)
    assert np.array_equal(out_a, out_b) and np.array_equal(in_a, in_b)
    assert np.all(out_a + in_a == 144)
    assert not np.array_equal(run(2)[0], out_a)


def test_batch_matches_reference_on_the_per_piece_path():
    """With a huge back-off strength nearly every draw is the context-refined multinomial."""
    traces = SyntheticTower().traces(300, seed=23)
    settings = FitSettings(levels=(("m", "n", "I", "o"), ("m",)), alpha=1e6)
    model = DistilledModel.from_tables(fit_tables(traces, settings))
    ref = model_records(model, keshi_plans(N, 12, 6), seed=7)
    towers = BatchTowers(model.doc["model"], N, seed=8)
    throws = [towers.throw({"keshi": 12}) for _ in range(6)]
    ref_out = np.array([r.out for r in ref])
    assert binned_chi2(ref_out[:, 5], throws[5].out).pvalue > 0.001
    assert binned_chi2([r.inside[-1] for r in ref], towers.inside).pvalue > 0.001


def test_batch_matches_reference_with_the_throws_make_up():
    """A v2 model of a tower where experts thrown dislodge residents (synthetic push):
    the batch path and the reference agree on residents dislodged by 4 keshis and 5
    experts, which differs from a throw of 9 keshis, and on each class out."""
    from tower.pieces import Kind

    def plan(rng):
        expert = Piece(Kind.EXPERT, "red")
        return [mixed_keshis(rng.choice([4, 9])) + [expert] * rng.choice([0, 5]) for _ in range(2)]

    traces = SyntheticTower(push=0.12).traces(1500, seed=31, throws=plan)
    model = DistilledModel.from_tables(fit_tables(traces, FitSettings()))
    rng = random.Random(3)
    dislodged = {}
    heavy = mixed_keshis(4) + [Piece(Kind.EXPERT, "red")] * 5
    for label, second in (("light", mixed_keshis(9)), ("heavy", heavy)):
        old_out, by_kind = [], {Kind.KESHI: [], Kind.EXPERT: []}
        for _ in range(N):
            state = model.new_state()
            _, state = model.throw(state, mixed_keshis(9), rng)
            out, new = model.throw(state, second, rng)
            old_out.append(len(state.residents) - sum(r.since < 1 for r in new.residents))
            for k, found in by_kind.items():
                found.append(sum(p.kind is k for p in out))
        dislodged[label] = np.mean(old_out)
    assert dislodged["heavy"] > dislodged["light"] + 0.3  # the model sees the make-up
    towers = BatchTowers(model.doc["model"], N, seed=4)
    towers.throw({"keshi": 9})
    res = towers.throw({"keshi": 4, "expert": 5})
    assert binned_chi2(old_out, res.out - res.fresh_out).pvalue > 0.001
    for kind, cls in ((Kind.KESHI, "keshi"), (Kind.EXPERT, "expert")):
        batch = res.out_by_class[:, towers.classes.index(cls)]
        assert binned_chi2(by_kind[kind], batch).pvalue > 0.001, cls


def test_batch_refuses_more_back_off_levels_than_it_can_draw():
    """The batch path tags a coarse draw with its level's rank: 9 levels at most."""
    traces = SyntheticTower().traces(40, seed=24)
    settings = FitSettings(levels=(("m", "n"),) * 9 + (("m",),))
    model = DistilledModel.from_tables(fit_tables(traces, settings))
    with pytest.raises(ValueError, match="at most 9 back-off levels"):
        BatchTowers(model.doc["model"], 10, seed=1)
    fewer = FitSettings(levels=(("m", "n"),) * 8 + (("m",),))
    BatchTowers(DistilledModel.from_tables(fit_tables(traces, fewer)).doc["model"], 10, seed=1)
