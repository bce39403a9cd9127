"""``tower.model/3``'s context field ``t``, the throws the tower has seen: the file, the
fit, and every play path (reference, fast path, exact laws, numpy batch)."""

import hashlib
import json
import random
import re

import numpy as np
import pytest
from model_files import V2_MODEL
from scipy.stats import chisquare
from test_model_v3_file import _reference

from tower.analysis.retention import keshi_plans, model_records
from tower.analysis.twosample import binned_chi2
from tower.errors import InputFileError
from tower.model import DistilledModel, load_model
from tower.model.batch import BatchTowers
from tower.model.fileformat import NewerFieldError, dumps, loads
from tower.model.fit import FitSettings, Observations, fit_tables
from tower.model.interface import Resident, TowerState
from tower.model.reference import PLACES
from tower.model.synthetic import SyntheticTower
from tower.pieces import NEUTRAL, Kind, Piece, Place, mixed_keshis

#: The default levels with ``t`` in the finest one.
T_LEVELS = (
    ("m", "n", "w", "x", "I", "t", "o"),
    ("m", "n", "w", "x", "J", "o"),
    ("m", "w", "x", "J"),
    ("m", "n"),
    ("m",),
)
#: A tower whose thrown pieces come out less the more throws it has seen.
WORN = SyntheticTower(wear=0.08)
N = 3000


@pytest.fixture(scope="module")
def traces():
    return WORN.traces(400, seed=51)


@pytest.fixture(scope="module")
def timed(traces):
    """A v3 model with ``t`` in its finest level."""
    return DistilledModel.from_tables(fit_tables(traces, FitSettings(levels=T_LEVELS)), name="t")


@pytest.fixture(scope="module")
def plain(traces):
    return DistilledModel.from_tables(fit_tables(traces, FitSettings()), name="plain")


def test_a_section_naming_t_is_a_version_3_file_with_its_buckets(timed, plain, tmp_path):
    model = timed.doc["model"]
    assert timed.doc["schema"] == "tower.model/3" and "copula" not in model
    assert model["buckets"]["t"] == [0, 1, 2, 3, 4, 6, 9]
    assert any(key.count("|") == 7 for key in model["tables"][0])  # group|m|n|w|x|I|t|o
    assert timed.doc["provenance"] == {}
    assert plain.doc["schema"] == "tower.model/2" and "t" not in plain.doc["model"]["buckets"]
    path = tmp_path / "t.json"
    timed.save(path)
    loaded = load_model(path)
    assert loaded.doc == timed.doc and loaded.dumps() == path.read_text()
    assert loads(json.dumps(timed.doc, indent=1), "p.json") == timed.doc  # the full checks
    settings = FitSettings(levels=T_LEVELS, buckets={**FitSettings().buckets, "t": [0, 2, 5]})
    assert settings.to_json()["buckets"]["t"] == [0, 2, 5]
    assert "t" not in FitSettings().to_json()["buckets"]


@pytest.mark.parametrize("version", ["tower.model/1", "tower.model/2"])
@pytest.mark.parametrize("where", ["levels[0]", "piece_levels[0]", "buckets.t"])
def test_older_versions_refuse_t_naming_file_field_and_value(timed, tmp_path, version, where):
    model = {**timed.doc["model"], "levels": [["m", "n", "I", "o"], ["m"]], "tables": [{}, {}]}
    model["piece_levels"], model["piece_tables"] = [], []
    if version == "tower.model/1":  # a v1 file without the make-up fields
        model["buckets"] = {f: e for f, e in model["buckets"].items() if f not in "wx"}
    if where == "levels[0]":
        model["levels"][0] = value = ["m", "n", "I", "t", "o"]
    elif where == "piece_levels[0]":
        model["piece_levels"], model["piece_tables"] = [value := ["n", "t"]], [{}]
    else:  # the edges alone
        value = model["buckets"]["t"]
    if where != "buckets.t":
        model["buckets"] = {f: e for f, e in model["buckets"].items() if f != "t"}
    path = tmp_path / "old.json"
    path.write_text(dumps({**timed.doc, "schema": version, "model": model}))
    with pytest.raises(NewerFieldError) as exc:
        load_model(path)
    assert str(exc.value) == (
        f"{path}: field model.{where}: a {version!r} file has no context field 't' "
        f"(new in 'tower.model/3'), got {value!r}"
    )
    assert isinstance(exc.value, InputFileError)
    with pytest.raises(NewerFieldError, match=rf"field model.{re.escape(where)}: a "):
        DistilledModel({**timed.doc, "schema": version, "model": model})
    v3 = {**timed.doc, "schema": "tower.model/3", "model": model}
    if version == "tower.model/1":
        return
    if where == "buckets.t":  # v3 may hold t's edges without a level naming it
        assert loads(dumps(v3))["model"] == model
    else:
        with pytest.raises(InputFileError, match="and 't' if a level names it"):
            loads(dumps(v3))


def test_version_3_needs_t_edges_when_a_level_names_it(timed, tmp_path):
    model = dict(timed.doc["model"])
    model["buckets"] = {f: e for f, e in model["buckets"].items() if f != "t"}
    path = tmp_path / "no-edges.json"
    path.write_text(dumps({**timed.doc, "model": model}))
    with pytest.raises(InputFileError, match=r"field model.buckets: .* and 't' if a level names"):
        load_model(path)
    with pytest.raises(ValueError, match="and 't' if a level names it"):
        FitSettings(levels=T_LEVELS, buckets=model["buckets"])
    assert FitSettings(buckets=model["buckets"]).to_json()["buckets"] == model["buckets"]


def test_the_fit_counts_t_as_the_throws_since_the_tower_was_empty(traces):
    """Fresh keshis of the 12-keshi throws at the finest level, every key counted: once
    per sequence at each throw index up to 3, then by bucket (4-5, 6-8, 9-11)."""
    obs = Observations(FitSettings(levels=T_LEVELS))
    for seq in traces:
        obs.add_sequence(seq)
    seen: dict[int, int] = {}
    for key, outcomes in obs.counts[0].items():
        group, m, n, w, x, _, t, o = key.split("|")
        assert (m, n, w, x, o) == ("12", "12", "0", "0", "0") or group != "fresh.keshi"
        if group == "fresh.keshi":
            seen[int(t)] = seen.get(int(t), 0) + outcomes.total()
    assert seen == {0: 400, 1: 400, 2: 400, 3: 400, 4: 800, 6: 1200, 9: 1200}


def test_t_changes_the_law_only_in_a_model_that_reads_it(timed, plain):
    """The fresh keshis' law at the occupancy seen most often both at throw 1 and 6."""
    seen: dict[tuple[int, int], int] = {}
    for key, flat in timed.doc["model"]["tables"][0].items():
        group, *_, inside, t, _ = key.split("|")
        if group == "fresh.keshi":
            seen[int(t), int(inside)] = sum(flat[0::6])
    inside = max(range(100), key=lambda i: min(seen.get((1, i), 0), seen.get((6, i), 0)))

    def mean_out(model, t):
        law = model.sampler.out_law("fresh.keshi", (12, 12, inside, inside, inside, 0, 0, t, 0))
        return sum(k * p for k, p in enumerate(law))

    # wear 0.08 a throw: 2.9 fewer out of 12 at the finest level, less through the back-off
    assert mean_out(timed, 1) > mean_out(timed, 6) + 1
    assert mean_out(timed, 9) == mean_out(timed, 40)  # the last bucket
    assert mean_out(plain, 1) == mean_out(plain, 6)


def test_fast_path_draws_as_the_reference_with_t(timed):
    plan, fast, ref = random.Random(4), random.Random(9), random.Random(9)
    state = timed.new_state()
    for k in range(500):
        if k % 25 == 0:  # long sequences: t past its last edge
            state = timed.new_state()
        pieces = mixed_keshis(plan.choice([0, 3, 6, 9, 12])) + [Piece(Kind.BRIGAND, NEUTRAL)] * (
            plan.random() < 0.2
        )
        out, new = timed.throw(state, pieces, fast)
        assert (out, new) == _reference(timed, state, pieces, ref), k
        assert fast.random() == ref.random()
        state = new


def test_draws_follow_the_exact_law_at_a_late_throw(timed):
    state = TowerState((), 5)
    for _ in range(3):
        state = timed.throw(state, mixed_keshis(9), random.Random(2))[1]
    law = np.array(timed.count_distribution(state, mixed_keshis(9)))
    rng = random.Random(5)
    counts = np.bincount(
        [len(timed.throw(state, mixed_keshis(9), rng)[0]) for _ in range(N)], minlength=len(law)
    )
    keep = law * N >= 5
    expected = np.append(law[keep] * N, law[~keep].sum() * N)
    observed = np.append(counts[keep], counts[~keep].sum())
    assert chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 0.001


def test_batch_matches_reference_with_t(timed):
    ref = model_records(timed, keshi_plans(N, 12, 12), seed=5)
    towers = BatchTowers(timed.doc["model"], N, seed=6)
    throws = [towers.throw({"keshi": 12}) for _ in range(12)]
    ref_out = np.array([r.out for r in ref])
    for t in (0, 3, 11):
        assert binned_chi2(ref_out[:, t], throws[t].out).pvalue > 0.001, t
    assert binned_chi2([r.inside[-1] for r in ref], towers.inside).pvalue > 0.001
    assert np.array_equal(towers.throws, np.full(N, 12))


def test_batch_starts_from_the_towers_throws(timed):
    """Towers holding six one-throw-old keshis on floor 1, having seen 1 or 6 throws: the
    reference's law at each."""
    rng = random.Random(3)
    towers = BatchTowers(timed.doc["model"], 2 * N, seed=7)
    start = np.zeros((2 * N, *towers.residents.shape[1:]), dtype=np.int64)
    start[:, PLACES.index("floor1"), towers.labels.index("keshi"), 0] = 6  # age 1
    towers.reset(start, np.repeat([1, 6], N))
    out = towers.throw({"keshi": 12}).out
    means = []
    for half, seen in enumerate((1, 6)):
        residents = tuple(Resident(p, Place.FLOOR1, seen - 1) for p in mixed_keshis(6))
        state = TowerState(residents, seen)
        ref = [len(timed.throw(state, mixed_keshis(12), rng)[0]) for _ in range(N)]
        assert binned_chi2(ref, out[half * N : (half + 1) * N]).pvalue > 0.001, seen
        means.append(np.mean(ref))
    assert means[0] > means[1] + 1
    towers.tile(2)
    assert np.array_equal(towers.throws, np.tile(np.repeat([2, 7], N), 2))
    towers.keep(N - 1, N + 1)
    assert towers.throws.tolist() == [2, 7]
    with pytest.raises(ValueError, match="throws must be counts"):
        towers.reset(start[:1], -1)


#: sha256 of draws of the ``tower.model/2`` file shipped until the v3 one (kept as
#: calibration/models/marrakesh-v2.json; fast path, then the batch path) before ``t``
#: existed (main at 5af7977): a model that does not read t draws as before.
BEFORE_T = "151ac2a54dca23b429326dabb33034c521d710e64d3f033691d45acac016585a"


def test_a_model_without_t_draws_as_before():
    model = load_model(V2_MODEL)
    assert model.doc["schema"] == "tower.model/2"
    plan, rng = random.Random(11), random.Random(12)
    digest = hashlib.sha256()
    state = model.new_state()
    for k in range(600):
        if k % 16 == 0:
            state = model.new_state()
        pieces = mixed_keshis(plan.choice([0, 3, 6, 9, 12]))
        pieces += [Piece(Kind.BRIGAND, NEUTRAL)] * plan.randint(0, 2)
        pieces += [Piece(Kind.EXPERT, "red")] * plan.randint(0, 2)
        out, state = model.throw(state, pieces, rng)
        digest.update(json.dumps([list(map(str, out)), state.to_json()]).encode())
    towers = BatchTowers(model.doc["model"], 500, seed=13)
    for _ in range(12):
        digest.update(towers.throw({"keshi": 9, "pawn": 1}).out_by_class.tobytes())
    assert digest.hexdigest() == BEFORE_T


def test_battle_batches_start_from_the_towers_throws(timed, monkeypatch):
    """The battle's lockstep seasons give each tower the throws of its start state."""
    from tower.battle.batched import simulate_batched
    from tower.battle.checker import Situation, given_tower

    started = []
    reset = BatchTowers.reset

    def spy(self, residents, throws=0):
        started.append(np.broadcast_to(throws, (len(residents),)).copy())
        reset(self, residents, throws)

    monkeypatch.setattr(BatchTowers, "reset", spy)
    state = TowerState(tuple(Resident(p, Place.FLOOR1, 3) for p in mixed_keshis(4)), 6)
    situation = Situation.default(players=2, season=1, recruited=1, repaired=1)
    simulate_batched(timed, situation, given_tower(state), 50, seed=1)
    assert len(started) == 2 and started[0].tolist() == [0] * 50  # built empty, then reset
    assert started[1].tolist() == [6] * 50
