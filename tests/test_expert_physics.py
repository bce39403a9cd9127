"""The expert loop in simulated towers (``tower stats --experts K --physics``) and its
comparison with a model (``--compare-physics N``): the :class:`PhysicsTowerModel`
adapter, determinism, resume, the standard errors and the verdict, and (slow) the shipped
model against 1,200 held-out physics rounds."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from tower.analysis.experts import (
    EXPERT,
    compare_experts,
    expert_estimates,
    expert_record,
    expert_rounds,
    summarize_experts,
)
from tower.analysis.experts_physics import expert_task, expert_tasks, physics_expert_rounds
from tower.cli import cli, main
from tower.files.outputs import OutputError
from tower.geometry import load_preset
from tower.model import BaselineModel, NoRetentionModel
from tower.physics import PhysicsParams
from tower.physics.adapter import PhysicsTowerModel
from tower.pieces import Kind, mixed_keshis


@pytest.fixture(scope="module")
def spec():
    return load_preset("marrakesh")


@pytest.fixture(scope="module")
def geometry(spec):
    from tower.physics.sequences import cached_geometry

    return cached_geometry(spec.to_toml())


class Logged(PhysicsTowerModel):
    """The adapter, keeping every throw: (pieces in, pieces out, state after) in ``log``,
    and (pieces the simulator has seen, ids inside after it) in ``ids``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log = []
        self.ids = []

    def throw(self, state, pieces, rng):
        out, after = super().throw(state, pieces, rng)
        self.log.append((list(pieces), out, after))
        self.ids.append((len(self.sim.pieces), set(self.sim.places)))
        return out, after


def true_stays(model: Logged) -> tuple[list[int], list[int]]:
    """Stays and censored stays of the expert keshis, from the simulator's own piece ids."""
    stays, stuck, seen = [], [], 0
    last = len(model.ids) - 1
    for t, (count, _) in enumerate(model.ids):
        for i in range(seen, count):
            if model.sim.pieces[i].kind is not Kind.EXPERT:
                continue
            gone = [u for u in range(t, last + 1) if i not in model.ids[u][1]]
            if gone:
                stays.append(gone[0] - t)
            else:
                stuck.append(last - t)
        seen = count
    return sorted(stays), sorted(stuck)


# ------------------------------------------------------------------ the adapter


def test_the_adapter_keeps_every_piece_and_when_it_entered(geometry):
    with PhysicsTowerModel(geometry.spec, geometry=geometry) as model:
        rng = random.Random(3)
        state = model.new_state()
        for t in range(3):
            before = Counter(state.pieces)
            hand = [*mixed_keshis(10), EXPERT, EXPERT]
            out, state = model.throw(state, hand, rng)
            assert Counter(out) + Counter(state.pieces) == before + Counter(hand)
            assert state.throws == t + 1
            assert all(0 <= r.since <= t for r in state.residents)
        # each hand leaves in a shuffled order (the simulator's ids are the release order)
        released = [model.sim.pieces[12 * t : 12 * t + 12] for t in range(3)]
        assert all(sorted(r) == sorted(hand) for r in released)
        assert any(r != hand for r in released)
        # the places are the simulator's own
        assert sorted(r.place for r in state.residents) == sorted(model.sim.places.values())
        ids = sorted(model.sim.places)
        assert sorted(r.since for r in state.residents) == sorted(i // 12 for i in ids)


def test_the_adapter_goes_only_forward_and_restarts_from_an_empty_state(geometry):
    with PhysicsTowerModel(geometry.spec, geometry=geometry) as model:
        first = model.throw(model.new_state(), mixed_keshis(12), random.Random(5))
        second = model.throw(first[1], mixed_keshis(12), random.Random(0))
        with pytest.raises(ValueError, match="goes only forward"):
            model.throw(first[1], mixed_keshis(12), random.Random(0))
        again = model.throw(model.new_state(), mixed_keshis(12), random.Random(5))
        assert again == first  # a fresh tower from the same generator: the same throw
        assert second[1].throws == 2


# ------------------------------------------------------------------ the loop in physics


def test_the_loop_counts_what_physics_did(geometry):
    """Thrown, out and stays of a physics record agree with the throws the simulator made:
    the stays of the expert keshis followed by the simulator's own piece ids, the expert
    keshis in each hand and out of each throw, and the identity
    ``sum(stays) + sum(stuck_at_end) + len(stuck_at_end) = sum of experts inside after
    each round`` (each expert counts one for every round it ends inside)."""
    with Logged(geometry.spec, geometry=geometry) as model:
        rec = expert_record(model, 5, 12, 10, random.Random(11))
        log = model.log
        stays, stuck = true_stays(model)
    assert (sorted(rec.stays), sorted(rec.stuck_at_end)) == (stays, stuck)
    assert max(stays) >= 2  # the check sees long stays
    n_in = [sum(p.kind is Kind.EXPERT for p in hand) for hand, _, _ in log]
    n_out = [sum(p.kind is Kind.EXPERT for p in out) for _, out, _ in log]
    inside = [sum(p.kind is Kind.EXPERT for p in after.pieces) for _, _, after in log]
    assert list(rec.thrown) == n_in and list(rec.out) == n_out
    assert sum(rec.stays) + sum(rec.stuck_at_end) + len(rec.stuck_at_end) == sum(inside)
    assert len(rec.stays) + len(rec.stuck_at_end) == sum(n_in)
    assert inside[-1] == len(rec.stuck_at_end)
    board = 5
    for thrown, out in zip(rec.thrown, rec.out, strict=True):
        assert thrown == min(5, board)
        board += out - thrown


def test_a_sequence_is_deterministic_and_independent_of_the_batch(spec, tmp_path):
    params = PhysicsParams()
    tasks = expert_tasks(spec, params, k=2, keshis=12, rounds=3, sequences=3, seed=7001)
    alone = expert_task(tasks[2].args)
    assert expert_task(tasks[2].args) == alone
    run = physics_expert_rounds(
        spec, params, 2, rounds=3, sequences=3, seed=7001, workers=1, progress=False
    )
    assert [run.records[2].thrown, run.records[2].out] == [
        tuple(alone["thrown"]),
        tuple(alone["out"]),
    ]
    assert run.simulated == 3 and run.rethrows >= 0
    assert len({t.args["seed"] for t in tasks}) == 3  # each sequence from its own seed
    other = expert_tasks(spec, params, k=2, keshis=12, rounds=3, sequences=3, seed=7002)
    assert [t.args["seed"] for t in other] != [t.args["seed"] for t in tasks]


def test_the_log_resumes_and_extends_to_the_same_bytes(spec, tmp_path):
    params = PhysicsParams()
    kw = {"rounds": 2, "seed": 7001, "workers": 1, "progress": False}
    part, whole = tmp_path / "part.jsonl", tmp_path / "whole.jsonl"
    a = physics_expert_rounds(spec, params, 3, sequences=2, log=part, **kw)
    b = physics_expert_rounds(spec, params, 3, sequences=3, log=part, **kw)
    assert (a.simulated, b.simulated) == (2, 1)
    assert b.records[:2] == a.records
    c = physics_expert_rounds(spec, params, 3, sequences=3, log=whole, **kw)
    assert c.records == b.records
    assert part.read_bytes() == whole.read_bytes()
    again = physics_expert_rounds(spec, params, 3, sequences=3, log=part, **kw)
    assert again.simulated == 0 and again.records == b.records
    with pytest.raises(OutputError, match="other settings"):
        physics_expert_rounds(spec, params, 2, sequences=3, log=part, **kw)


def test_rethrows_are_counted_into_the_log_and_the_report(spec, tmp_path, monkeypatch):
    """Each throw here reports one re-throw (as :meth:`TowerSim.throw` does after losing a
    piece): the sequences, the run and the command count them all."""
    import dataclasses

    import tower.physics.adapter as adapter

    class Lossy(adapter.TowerSim):
        def throw(self, pieces, **kw):
            return dataclasses.replace(super().throw(pieces, **kw), rethrows=1)

    monkeypatch.setattr(adapter, "TowerSim", Lossy)
    run = physics_expert_rounds(
        spec, PhysicsParams(), 1, rounds=2, sequences=2, workers=1, progress=False
    )
    assert run.rethrows == 4
    args = ["stats", "--experts", "1", "--physics", "--sequences", "1", "--throws", "3"]
    result = CliRunner().invoke(cli, [*args, "--workers", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "3 throws re-thrown" in result.output
    doc = json.loads((tmp_path / "experts.json").read_text(encoding="utf-8"))
    assert doc["physics"]["rethrows"] == 3


# ------------------------------------------------------------------ statistics and verdict


def test_the_estimates_are_the_summary_with_standard_errors():
    recs = expert_rounds(BaselineModel(), 3, sequences=120, seed=4)
    s, est = summarize_experts(recs), expert_estimates(recs, 3)
    for name in ("out_mean", "thrown_mean", "offered_none", "stuck_share", "stuck_rounds_mean"):
        assert est[name].value == pytest.approx(s[name], abs=1e-4)
    assert est["out_mean"].se == pytest.approx(s["out_se"], abs=1e-4)
    assert est["out_law 1"].value == pytest.approx(s["out_law"].get("1", 0), abs=1e-4)
    three_up = sum(v for n, v in s["out_law"].items() if int(n) >= 3)
    assert est["out_law 3+"].value == pytest.approx(three_up, abs=1e-3)
    assert est["stay_law censored"].value == pytest.approx(s["stay_law"]["censored"], abs=1e-4)


def test_the_standard_errors_match_the_spread_of_z_between_equal_laws():
    """Model against itself with other seeds: z over replications has spread about 1 (an
    SE too small by half, or twice too large, would put it near 2 or 0.5)."""
    zs = []
    for i in range(16):
        a = expert_rounds(BaselineModel(), 3, rounds=8, sequences=60, seed=2 * i)
        b = expert_rounds(BaselineModel(), 3, rounds=8, sequences=60, seed=2 * i + 1)
        zs += [r.z for r in compare_experts(a, b, 3).tested]
    assert 0.7 < float(np.std(zs)) < 1.3


def test_the_verdict_tells_equal_laws_from_different_ones():
    a = expert_rounds(BaselineModel(), 2, sequences=300, seed=1)
    same = compare_experts(a, expert_rounds(BaselineModel(), 2, sequences=300, seed=2), 2)
    assert same.agree and 2.5 < same.z_limit < 3.2 and len(same.tested) >= 8
    other = compare_experts(a, expert_rounds(NoRetentionModel(), 2, sequences=300, seed=2), 2)
    assert not other.agree
    row = {r.name: r for r in other.rows}["stuck_share"]
    assert row.physics.value == 0 and row.z < -other.z_limit
    doc = json.loads(json.dumps(other.to_json()))
    assert doc["agree"] is False and "Bonferroni" in doc["rule"]
    assert other.verdict == "differ beyond MC error" and same.verdict.startswith("agree")
    alone = compare_experts(a, a[:1], 2)  # one sequence: no standard error, no test
    assert not alone.tested and alone.verdict.startswith("undecided")


# ------------------------------------------------------------------ the command


def test_cli_physics_experts_writes_and_resumes(tmp_path):
    args = ["stats", "--experts", "2", "--physics", "--sequences", "2", "--throws", "2"]
    args += ["--seed", "7001", "--workers", "1", "--out", str(tmp_path)]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "expert keshis out per round" in first.output and "2 simulated now" in first.output
    doc = json.loads((tmp_path / "experts.json").read_text(encoding="utf-8"))
    assert doc["source"] == "physics marrakesh" and doc["physics"]["rounds"] == 4
    assert doc["summary"]["sequences"] == 2 and doc["physics"]["rethrows"] >= 0
    log = (tmp_path / "physics-experts.jsonl").read_bytes()
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0 and "0 simulated now" in again.output
    assert (tmp_path / "physics-experts.jsonl").read_bytes() == log
    assert json.loads((tmp_path / "experts.json").read_text(encoding="utf-8")) == doc


def test_cli_compare_physics_prints_the_table_and_the_verdict(tmp_path):
    args = ["stats", "--experts", "1", "--model", "baseline", "--sequences", "50"]
    args += ["--compare-physics", "2", "--throws", "2", "--workers", "1", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "verdict:" in result.output and "stuck_rounds_mean" in result.output
    doc = json.loads((tmp_path / "experts.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "tower.stats.experts-compare/1"
    assert doc["physics"]["summary"]["sequences"] == 2 and doc["summary"]["sequences"] == 50
    assert isinstance(doc["comparison"]["agree"], bool)
    assert (tmp_path / "experts-compare.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "extra",
    [
        ["--physics", "--compare-physics", "2"],
        ["--sims", "5"],
        ["--preset", "marrakesh"],
        ["--physics", "--model", "baseline"],
    ],
)
def test_cli_refuses_options_an_expert_run_would_ignore(extra, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["stats", "--experts", "2", *extra, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_cli_compare_physics_needs_experts(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["stats", "--compare-physics", "3"])
    assert stop.value.code == 2 and "--experts" in capsys.readouterr().err


# ------------------------------------------------------------------ the real check (slow)

#: Held-out physics: seeds 7001+ are used by no fit. 100 sequences x 12 rounds = 1,200.
HELD_OUT_SEED, HELD_OUT_SEQUENCES, ROUNDS, K, KESHIS = 7001, 100, 12, 3, 12


@pytest.mark.slow
def test_the_shipped_model_agrees_with_held_out_physics_on_expert_statistics(spec):
    """Done-when of issue 15: with the shipped model, the expert statistics agree with
    physics on >= 1,000 held-out physics rounds within their Monte Carlo error (rule:
    :class:`~tower.analysis.experts.ExpertComparison`)."""
    from tower.analysis.experts import format_comparison
    from tower.model.distilled import load_shipped

    physics = physics_expert_rounds(
        spec, PhysicsParams(), K, keshis=KESHIS, rounds=ROUNDS,
        sequences=HELD_OUT_SEQUENCES, seed=HELD_OUT_SEED, progress=False,
    )  # fmt: skip
    assert physics.rounds >= 1000
    model = expert_rounds(load_shipped("marrakesh"), K, keshis=KESHIS, rounds=ROUNDS,
                          sequences=4000, seed=HELD_OUT_SEED)  # fmt: skip
    cmp = compare_experts(model, physics.records, K)
    assert len(cmp.tested) >= 8
    assert cmp.agree, format_comparison(cmp)
