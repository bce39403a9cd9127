"""``tower bench load`` and ``tower bench battle``: each comparison's two sides measured
in one run, with the keys the issue names (no timing is asserted here: speed claims come
from running the benchmarks)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tower.cli import cli
from tower.model.distilled import shipped_path


def _figures(subject: str) -> dict:
    result = CliRunner().invoke(cli, ["bench", subject, "--quick", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_bench_load_compares_the_model_load_with_json_load():
    figures = _figures("load")
    assert figures["file_bytes"] == shipped_path("marrakesh").stat().st_size
    assert figures["rounds"] == 5
    assert figures["model_load_s"] > 0 and figures["json_load_s"] > 0
    assert figures["ratio_model_load_to_json_load"] > 0


def test_bench_battle_compares_whole_processes_and_writes_nothing_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    figures = _figures("battle")
    assert figures["rounds"] == 2
    for side in ("battle", "help"):
        assert figures[f"{side}_wall_s"] > 0 and figures[f"{side}_cpu_s"] > 0
    # a battle does real work beyond the CLI's start
    assert figures["battle_cpu_s"] > figures["help_cpu_s"] / 2
    assert list(tmp_path.iterdir()) == []
