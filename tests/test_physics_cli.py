"""The physics commands: tower throw (with snapshot/restore), tower render, the inside plot."""

from __future__ import annotations

from click.testing import CliRunner
from PIL import Image

from tower.cli import cli
from tower.physics.plots import plot_inside
from tower.traces import read_traces


def _throw(*args: str) -> list[str]:
    result = CliRunner().invoke(cli, ["throw", "--pieces", "4", "--seed", "7", *args])
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if line.startswith("throw ")]


def test_throw_snapshot_and_restore_continue_the_same_tower(tmp_path):
    full = _throw("--throws", "3")
    snap = tmp_path / "tower.json"
    first = _throw("--throws", "2", "--snapshot", str(snap))
    rest = _throw("--throws", "1", "--restore", str(snap))
    assert first + rest == full
    assert full[0].startswith("throw 0: 4 in,")


def test_bad_params_file_exits_with_status_2(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"schema": "tower.physics-params/1", "restitution": "high"}')
    result = CliRunner().invoke(cli, ["throw", "--params", str(bad)])
    assert result.exit_code != 0
    assert "restitution" in str(result.exception) or "restitution" in result.output


def test_render_writes_an_animated_gif(tmp_path):
    out = tmp_path / "t.gif"
    args = ["render", "--out", str(out), "--pieces", "3", "--warmup", "0", "--size", "80", "90"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    with Image.open(out) as gif:
        assert gif.size == (80, 90) and gif.n_frames > 5


def test_simulate_plot_draws_every_sequence(tmp_path):
    out = tmp_path / "s.jsonl"
    png = tmp_path / "inside.png"
    args = ["simulate", "--sequences", "2", "--throws", "2", "--pieces", "3", "--workers", "1",
            "--out", str(out), "--plot", str(png), "--quiet"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert png.stat().st_size > 1000
    seqs = list(read_traces(out))
    assert len(seqs) == 2
    plot_inside(seqs, tmp_path / "again.png", title="t")
