"""The physics cross-check: its resumable log and its comparison (pybullet runs are slow)."""

from __future__ import annotations

import math

import pytest

from tower.battle.checker import Situation
from tower.battle.physics import Comparison, physics_seasons, physics_stats, run_id
from tower.runs.batch import read_records


def test_comparison_z_is_the_difference_over_the_combined_error():
    c = Comparison("red", "points", 1.0, 0.03, 1.1, 0.04)
    assert math.isclose(c.z, 0.1 / 0.05)
    assert Comparison("red", "points", 0.0, 0.0, 0.0, 0.0).z == 0.0
    assert Comparison("red", "points", 0.0, 0.0, 1.0, 0.0).z == math.inf
    # no breach in 400 seasons, against the model's 0.004 (spread 0.063): the physics
    # standard error is the model's spread over 20, not 0
    none = Comparison("red", "breaches", 0.004, 0.0, 0.0, 0.0, 0.063, 400)
    assert math.isclose(none.z, -0.004 / (0.063 / 20))
    assert Comparison("red", "breaches", 0.004, 0.0, 0.0, 0.0).z == -math.inf


def test_situations_round_trip_and_runs_are_named_by_what_they_depend_on():
    situation = Situation.default(players=3, season=3, recruited=1, repaired=2)
    assert Situation.from_json(situation.to_json()) == situation
    key = run_id(situation, 0, 4, "physics")
    assert key == run_id(Situation.from_json(situation.to_json()), 0, 4, "physics")
    assert (
        len(
            {
                key,
                run_id(situation, 1, 4, "physics"),
                run_id(situation, 0, 0, "physics"),
                run_id(situation, 0, 4, "other"),
                run_id(situation.with_recruited("red", 2), 0, 4, "physics"),
            }
        )
        == 5
    )


def test_physics_stats_resolve_each_simulated_battle():
    from tower.pieces import Piece

    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    seasons = [
        [(Piece.parse("brigand:neutral"),), (Piece.parse("brigand:neutral"),)],
        [(Piece.parse("watchman:red"), Piece.parse("brigand:neutral")), ()],
    ]
    red, yellow = physics_stats(situation, seasons)
    assert red.points == 0.5 and red.breaches_mean == 0.5
    assert yellow.breaches_mean == 0.5 and yellow.samples == 2


@pytest.mark.slow
def test_physics_seasons_are_reproducible_and_resume(tmp_path):
    pytest.importorskip("pybullet")
    situation = Situation.default(players=2, season=1, recruited=1, repaired=0)
    log = tmp_path / "phys.jsonl"
    kw = {"seed": 2, "warmup": 1, "workers": 1, "progress": False}
    first = physics_seasons(situation, 1, log=log, **kw).seasons
    both = physics_seasons(situation, 2, log=log, **kw).seasons
    assert both[0] == first[0] and len(both) == 2
    assert len(read_records(log)) == 2  # the first season was not run again
    fresh = physics_seasons(situation, 2, **kw).seasons
    assert fresh == both
    pooled = physics_seasons(situation, 2, seed=2, warmup=1, workers=2, progress=False)
    assert pooled.seasons == both
    for outs in both:
        assert len(outs) == 2  # one battle per player


def test_battle_traces_draw_situations_reproducibly():
    from tower.battle.traces import SeasonMix, trace_tasks

    a, b = trace_tasks(40, seed=3), trace_tasks(40, seed=3)
    assert [t.args for t in a] == [t.args for t in b]
    assert [t.args for t in a] != [t.args for t in trace_tasks(40, seed=4)]
    drawn = [Situation.from_json(t.args["situation"]) for t in a]
    assert {len(s.order) for s in drawn} <= set(SeasonMix().players)
    assert {t.args["warmup"] for t in a} <= set(SeasonMix().warmups)
    assert sum(t.args["warmup"] == 0 for t in a) >= 10  # about half start empty


def test_a_battle_season_becomes_one_valid_trace_of_every_throw():
    pytest.importorskip("pybullet")
    from tower.battle.physics import season_task
    from tower.battle.traces import SeasonMix, trace_task, trace_tasks
    from tower.pieces import Kind
    from tower.traces import TraceSequence

    mix = SeasonMix(players=(3,), seasons=(2,), recruits=(1, 2), warmups=(1,))
    (task,) = trace_tasks(1, seed=5, mix=mix)
    record = trace_task(task.args)
    seq = TraceSequence.from_json(record)  # validates: nothing lost or duplicated
    assert seq.seq == 0 and len(seq.throws) == 1 + 3  # one warm-up round, three battles
    warm, *battles = seq.throws
    assert all(seq.pieces[i].kind is Kind.KESHI for i in warm.thrown)
    first = [seq.pieces[i] for i in battles[0].thrown]
    assert sum(p.kind is Kind.BRIGAND for p in first) == 2  # season 2
    # the season the cross-check resolves is the same simulation
    outs = season_task(task.args)["outs"]
    assert outs == [sorted(str(seq.pieces[i]) for i in t.out) for t in battles]


def test_trace_tasks_without_experts_are_those_of_earlier_batches():
    import hashlib
    import json

    from tower.battle.traces import trace_tasks

    def digest(tasks: list) -> str:
        text = json.dumps([t.args for t in tasks], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # computed with main's code at 9e75ce3, before --experts existed
    assert digest(trace_tasks(30, seed=3)) == "ac92243e570c5c43"
    assert digest(trace_tasks(30, seed=3, experts=False)) == "ac92243e570c5c43"
    assert all(t.args["experts"] for t in trace_tasks(3, seed=3, experts=True))


def test_with_experts_every_warm_up_round_also_throws_one_to_five_experts():
    pytest.importorskip("pybullet")
    from tower.battle.traces import SeasonMix, trace_task, trace_tasks
    from tower.pieces import Kind
    from tower.traces import TraceSequence

    mix = SeasonMix(players=(2,), seasons=(1,), recruits=(0,), warmups=(2,))
    (plain,) = trace_tasks(1, seed=8, mix=mix)
    (task,) = trace_tasks(1, seed=8, mix=mix, experts=True)
    seq = TraceSequence.from_json(trace_task(task.args))
    ref = TraceSequence.from_json(trace_task(plain.args))
    assert len(seq.throws) > 2 and len(ref.throws) > 2  # two warm-up rounds, then battles
    for warm, before in zip(seq.throws[:2], ref.throws[:2], strict=True):
        kinds = [seq.pieces[i].kind for i in warm.thrown]
        assert 1 <= kinds.count(Kind.EXPERT) <= 5
        assert kinds.count(Kind.KESHI) == 6 and len(kinds) == 6 + kinds.count(Kind.EXPERT)
        # the rounds' keshis are those drawn without experts (their own random stream)
        keshis = sorted(str(seq.pieces[i]) for i in warm.thrown if seq.pieces[i].kind is Kind.KESHI)
        assert keshis == sorted(str(ref.pieces[i]) for i in before.thrown)
