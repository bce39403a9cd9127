"""Self-play statistics: the same numbers in-process, on local processes and on Dask;
the ``tower selfplay`` command."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tower.cli import cli
from tower.marrakesh.hooks import everything
from tower.marrakesh.selfplay import selfplay


def _same(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    a.pop("games_per_s")
    b.pop("games_per_s")
    assert a == b


def test_selfplay_is_the_same_on_processes_and_dask():
    local = selfplay(12, players=3, seed=4)
    assert local["games"] == 12 and len(local["wins_by_seat"]) == 3
    assert abs(sum(local["wins_by_seat"]) - 12) < 1e-9
    _same(local, selfplay(12, players=3, seed=4, workers=2))
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        _same(local, selfplay(12, players=3, seed=4, scheduler=cluster.scheduler_address))


def test_selfplay_command_prints_final_scores_and_json():
    runner = CliRunner()
    result = runner.invoke(cli, ["selfplay", "1", "--players", "4", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "final scores: player 0:" in result.output and "winner(s): player" in result.output
    result = runner.invoke(cli, ["selfplay", "3", "--players", "2", "--modules", "all", "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["modules"] == sorted(everything(2))
    assert stats["min_score"] <= stats["mean_score"] <= stats["max_score"]


def test_selfplay_with_greedy_agents():
    from tower.marrakesh import Game, GameConfig, play
    from tower.marrakesh.greedy import GreedyAgent
    from tower.marrakesh.selfplay import load_tower

    runner = CliRunner()
    args = ["selfplay", "2", "--players", "2", "--agents", "greedy", "--seed", "5", "--json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["agents"] == "greedy"
    # The statistics are those of greedy games played directly.
    game = Game(GameConfig(players=2, tower=load_tower(None)))
    direct = [play(game, [GreedyAgent(1000 * s + k) for k in range(2)], seed=s) for s in (5, 6)]
    assert stats["max_score"] == max(max(st.scores()) for st in direct)
    bad = runner.invoke(cli, ["selfplay", "1", "--agents", "clever"])
    assert bad.exit_code != 0 and "clever" in bad.output


def test_bench_game_reports_the_issue_keys():
    from tower.bench.game import run

    figures = run(quick=True)
    assert figures["games_per_s"] > 0 and figures["decisions_per_s"] > figures["games_per_s"]
    # With every module on: games per second and the ratios to the same run's baseline.
    assert figures["all_modules_games_per_s"] > 0 and figures["all_modules_count"] >= 6
    assert figures["ratio_game_to_tower_only_time"] > 1
    assert figures["all_modules_decisions_per_game"] > figures["decisions_per_game"]


def test_selfplay_with_a_distilled_model_file(tmp_path):
    from tower.model import DistilledModel
    from tower.model.fit import FitSettings, fit_tables
    from tower.model.synthetic import SyntheticTower

    model = DistilledModel.from_tables(
        fit_tables(SyntheticTower().traces(60, seed=1), FitSettings()), name="synthetic-test"
    )
    path = tmp_path / "model.json"
    model.save(path)
    result = CliRunner().invoke(cli, ["selfplay", "2", "--players", "3", "--model", str(path)])
    assert result.exit_code == 0, result.output
    assert "tower model: synthetic-test" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 1}')
    result = CliRunner().invoke(cli, ["selfplay", "1", "--model", str(bad)])
    assert result.exit_code != 0


def test_selfplay_command_loads_the_model_once(monkeypatch):
    """`tower selfplay 10` plays 5 chunks of 2 games in this process on one model: it
    reads and checks the shipped model file once, not once per chunk."""
    from tower.marrakesh import selfplay as module
    from tower.model import fileformat

    module._load_tower.cache_clear()
    reads = []
    real = fileformat.read_model_file
    monkeypatch.setattr(fileformat, "read_model_file", lambda p: reads.append(p) or real(p))
    result = CliRunner().invoke(cli, ["selfplay", "10", "--players", "2"])
    assert result.exit_code == 0, result.output
    assert "10 game(s)" in result.output and len(reads) == 1
