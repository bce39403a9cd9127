"""``tower stats --experts K`` and :mod:`tower.analysis.experts`: expert keshis out per
round and how long a stuck expert stays, on test towers with known answers, the baseline
and the shipped model, and through the engine's own rules."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from click.testing import CliRunner

from tower.analysis.experts import expert_rounds, summarize_experts
from tower.cli import cli
from tower.model import BaselineModel, NoRetentionModel
from tower.model.interface import Resident, TowerModel, TowerState
from tower.pieces import Kind, Piece, Place


class Trap(TowerModel):
    """Keshis come out; expert keshis stick for good."""

    name = "trap"

    def throw(self, state: TowerState, pieces: Sequence[Piece], rng: random.Random):
        fresh = [Resident(p, Place.FLOOR1, state.throws) for p in pieces if p.kind is Kind.EXPERT]
        out = sorted(p for p in pieces if p.kind is not Kind.EXPERT)
        return out, TowerState((*state.residents, *fresh), state.throws + 1)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_a_tower_that_keeps_nothing_offers_every_thrown_expert(k):
    s = summarize_experts(expert_rounds(NoRetentionModel(), k, sequences=20, seed=1))
    assert s["out_law"] == {str(k): 1.0} and s["out_mean"] == k and s["out_se"] == 0
    assert s["stay_law"] == {"0": 1.0, "censored": 0.0} and s["stuck_share"] == 0


def test_a_trap_swallows_the_board_and_the_stays_are_censored():
    recs = expert_rounds(Trap(), 2, rounds=6, sequences=3, seed=0)
    assert all(r.thrown == (2, 2, 1, 0, 0, 0) and sum(r.out) == 0 for r in recs)
    assert recs[0].stuck_at_end == (5, 5, 4, 4, 3)
    s = summarize_experts(recs)
    assert s["stay_law"] == {"censored": 1.0} and s["stuck_share"] == 1.0
    assert s["offered_none"] == 1.0


def test_same_seed_same_statistics_and_models_differ():
    a = summarize_experts(expert_rounds(BaselineModel(), 3, sequences=150, seed=5))
    b = summarize_experts(expert_rounds(BaselineModel(), 3, sequences=150, seed=5))
    assert a == b
    assert 0 < a["stuck_share"] < 1 and 0 < a["out_mean"] < 3
    assert abs(sum(a["stay_law"].values()) - 1) < 1e-3


def test_shipped_model_runs_experts_on_its_pooled_laws():
    from tower.model.distilled import load_shipped

    s = summarize_experts(expert_rounds(load_shipped("marrakesh"), 2, sequences=60, seed=2))
    assert 0 < s["out_mean"] <= 2 and s["stuck_rounds_mean"] >= 1


def test_cli_prints_and_writes_json(tmp_path):
    args = ["stats", "--experts", "2", "--model", "baseline", "--sequences", "40"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "expert keshis out per round" in result.output
    doc = json.loads((tmp_path / "experts.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "tower.stats.experts/1" and doc["experts"] == 2
    assert doc["summary"]["sequences"] == 40
    bad = CliRunner().invoke(cli, ["stats", "--experts", "6"])
    assert bad.exit_code == 2


def test_the_engine_throws_only_the_expert_keshis_on_the_board():
    """The rule the statistics' loop follows, in the engine: on a trap, 1, 2, 3, 4 tiles
    face up in rounds 1-4, but only 5 expert keshis to throw."""
    from tower.marrakesh import Game, GameConfig
    from tower.marrakesh.modules import experts as ex

    state = Game(GameConfig(players=2, modules=frozenset({"experts"}), tower=Trap()))
    state = state.new_initial_state(3)
    thrown = []
    while state.season == 1 and not state.is_terminal():
        if state.is_chance_node():
            thrown.append(sum(s.startswith("expert") for s in state.stack[-1].get("extra", [])))
            state.sample_chance()
            continue
        p = state.pending_players()[0] if state.pending_players() else None
        state.apply(state.legal_action_ids(p)[0], player=p)
    assert thrown == [1, 2, 2, 0]
    assert ex.board(state)["board"] == 0
