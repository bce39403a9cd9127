"""The batch path draws a copula model's throws with the law of the reference's
``coupled_throw`` (chi-square tests at the 0.1% level and a z-test of a variance that the
copula raises, with fixed seeds), and ``tower battle`` plays such a model on it."""

import json
import random

import numpy as np
import pytest
from test_model_v3_file import synthetic_section

from tower.analysis.twosample import binned_chi2
from tower.cli import main
from tower.model import DistilledModel
from tower.model.batch import BatchTowers
from tower.model.reference import PLACES
from tower.pieces import NEUTRAL, Kind, Piece, mixed_keshis

N = 3000
THROWS = 3
#: a strong origin loading, so that ignoring the copula is plain at N towers
COPULA = {"throw": 0.3, "origin": 0.6, "gate": "pawn"}
BRIGANDS = [Piece(Kind.BRIGAND, NEUTRAL)] * 2


@pytest.fixture(scope="module")
def coupled():
    return DistilledModel.from_tables({**synthetic_section(), "copula": COPULA}, name="coupled")


def _reference(model: DistilledModel, pieces: list[Piece]) -> dict[str, np.ndarray]:
    """Per tower and throw: pieces out, fresh pieces out, pawns out; residents by place
    after the last throw (``coupled_throw`` through ``DistilledModel.throw``)."""
    rng = random.Random(7)
    rows = {"out": [], "fresh": [], "pawn": [], "place": []}
    for _ in range(N):
        state = model.new_state()
        out_t, fresh_t, pawn_t = [], [], []
        for _ in range(THROWS):
            before = state
            out, state = model.throw(state, pieces, rng)
            kept = sum(r.since < before.throws for r in state.residents)
            out_t.append(len(out))
            fresh_t.append(len(out) - (len(before.residents) - kept))
            pawn_t.append(sum(p.kind is Kind.BRIGAND for p in out))
        rows["out"].append(out_t)
        rows["fresh"].append(fresh_t)
        rows["pawn"].append(pawn_t)
        rows["place"].append([sum(r.place.value == p for r in state.residents) for p in PLACES])
    return {k: np.asarray(v) for k, v in rows.items()}


def _batch(model: dict, seed: int) -> dict[str, np.ndarray]:
    """The same as :func:`_reference` on the batch path."""
    towers = BatchTowers(model, N, seed=seed)
    pawn = towers.classes.index("pawn")
    res = [towers.throw({"keshi": 5, "pawn": 2}) for _ in range(THROWS)]
    return {
        "out": np.stack([r.out for r in res], axis=1),
        "fresh": np.stack([r.fresh_out for r in res], axis=1),
        "pawn": np.stack([r.out_by_class[:, pawn] for r in res], axis=1),
        "place": towers.residents.sum(axis=(2, 3)),
    }


def _variance_z(a: np.ndarray, b: np.ndarray) -> float:
    """z statistic of the difference of two sample variances (normal approximation)."""

    def se2(x: np.ndarray) -> float:
        d = x - x.mean()
        return float(((d**4).mean() - (d**2).mean() ** 2) / len(x))

    return float((a.var() - b.var()) / np.sqrt(se2(a) + se2(b)))


@pytest.fixture(scope="module")
def reference(coupled):
    """Mixed pawn throws (5 keshis, 2 brigands) into an empty tower, three times."""
    return _reference(coupled, [*mixed_keshis(5), *BRIGANDS])


def test_batch_draws_coupled_throws_with_the_reference_law(coupled, reference):
    batch = _batch(coupled.doc["model"], seed=11)
    for key in ("out", "fresh", "pawn"):
        for t in range(THROWS):
            assert binned_chi2(reference[key][:, t], batch[key][:, t]).pvalue > 0.001, (key, t)
    for p in range(len(PLACES)):
        assert binned_chi2(reference["place"][:, p], batch["place"][:, p]).pvalue > 0.001, p
    for t in range(1, THROWS):  # the copula's covariance: the spread of pieces out
        assert abs(_variance_z(reference["out"][:, t], batch["out"][:, t])) < 3.3, t


def test_the_copula_is_not_ignored(coupled, reference):
    """The independent batch path fails the same checks: the copula spreads pieces out."""
    plain = _batch(synthetic_section(), seed=11)
    z = [_variance_z(reference["out"][:, t], plain["out"][:, t]) for t in range(1, THROWS)]
    assert min(z) > 3.3, z
    coupled_batch = _batch(coupled.doc["model"], seed=12)
    assert min(coupled_batch["out"][:, t].var() - plain["out"][:, t].var() for t in (1, 2)) > 0.3


def test_the_gate_leaves_throws_without_its_class_uncoupled(coupled):
    """Keshi-only throws into keshi-only towers: the same law as without a copula."""
    a = BatchTowers(coupled.doc["model"], N, seed=3)
    b = BatchTowers(synthetic_section(), N, seed=4)
    for _ in range(THROWS):
        ra, rb = a.throw({"keshi": 7}), b.throw({"keshi": 7})
    assert binned_chi2(ra.out, rb.out).pvalue > 0.001
    assert abs(_variance_z(ra.out, rb.out)) < 3.3


def test_battles_of_a_copula_model_run_on_the_batch_path(coupled, tmp_path, monkeypatch):
    from tower.battle.checker import Situation, empty_tower, simulate

    situation = Situation.default(players=2, season=1, recruited=1, repaired=1)
    tower = empty_tower(coupled)
    batched = simulate(coupled, situation, tower, 200, seed=3)
    assert batched != simulate(coupled, situation, tower, 200, seed=3, batched=False)
    path = tmp_path / "coupled.json"
    coupled.save(path)
    report = tmp_path / "battle.json"

    throws = []  # one-at-a-time throws: the input check's probe only

    def counted(self, *args):
        throws.append(args)
        return one_at_a_time(self, *args)

    one_at_a_time = DistilledModel.throw
    monkeypatch.setattr(DistilledModel, "throw", counted)
    main(["battle", "--players", "2", "--samples", "100", "--plot", "", "--model", str(path),
          "--tower", "empty", "--json", str(report)])  # fmt: skip
    data = json.loads(report.read_text())
    assert len(data["players"]) == 2 and len(data["hiring"]) == 8
    assert len(throws) == 1


def test_a_gate_of_two_classes_couples_the_throws_of_either():
    """Gated on experts or pawns: throws with pawns spread as with the pawn gate alone,
    keshi-only throws into keshi-only towers stay uncoupled."""
    two = {**synthetic_section(), "copula": {**COPULA, "gate": ["expert", "pawn"]}}
    plain = _batch(synthetic_section(), seed=11)
    with_pawns = _batch(two, seed=12)
    assert min(with_pawns["out"][:, t].var() - plain["out"][:, t].var() for t in (1, 2)) > 0.3
    a = BatchTowers(two, N, seed=3)
    b = BatchTowers(synthetic_section(), N, seed=4)
    for _ in range(THROWS):
        ra, rb = a.throw({"keshi": 7}), b.throw({"keshi": 7})
    assert abs(_variance_z(ra.out, rb.out)) < 3.3


def test_a_throw_takes_the_first_entry_whose_gate_it_meets():
    """Keshi-and-pawn throws: uncoupled when an entry without loadings gated on keshis
    comes first, coupled as with the pawn entry alone when it comes second."""
    still = {"throw": 0.0, "origin": 0.0, "gate": "keshi"}
    plain = _batch(synthetic_section(), seed=11)
    first = _batch({**synthetic_section(), "copula": [still, COPULA]}, seed=12)
    second = _batch({**synthetic_section(), "copula": [COPULA, still]}, seed=12)
    for t in (1, 2):
        assert abs(_variance_z(first["out"][:, t], plain["out"][:, t])) < 3.3, t
        assert second["out"][:, t].var() - plain["out"][:, t].var() > 0.3, t
