"""The physics commands: tower throw (with snapshot/restore), tower render, the inside plot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from PIL import Image

from tower.cli import cli
from tower.geometry import load_preset
from tower.physics import TowerSim
from tower.physics.plots import plot_inside
from tower.physics.render import camera, camera_side_parts, frame
from tower.physics.sequences import CUBE_COLOURS
from tower.physics.world import GROUND
from tower.pieces import Piece
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
    assert [line.split(":")[0] for line in full] == ["throw 1", "throw 2", "throw 3"]


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


def test_render_shows_the_inside_through_the_cut_away_near_walls():
    """Pixel by pixel (pybullet's segmentation of a filmed frame): no tower part on the
    camera's side and no collision-only slab is drawn, and the floors and the ramp inside
    the tube are seen."""
    spec = load_preset("marrakesh")
    sim = TowerSim(spec, None, 0)
    size = (180, 200)
    view, proj = camera(spec, *size)
    seen: list[set[str]] = []

    def grab(step: int, world) -> None:
        if not seen:
            _, seg = frame(world, view, proj, size)
            names = [p.name for p in sim.geometry.static]
            index = {body: k for k, body in enumerate(world.static_ids)}
            # bodies past the tower's own parts are the collision-only backing slabs
            seen.append({names[index[b]] if index[b] < len(names) else "backing"
                         for b in np.unique(seg) if b in index})  # fmt: skip

    hidden = camera_side_parts(sim)
    try:
        sim.throw([Piece.keshi("red")], observe=grab, hidden=hidden)
    finally:
        sim.close()
    (visible,) = seen
    assert hidden == {"tube-right", "funnel-ny", "yard-right", "yard-back-right"}
    assert not visible & (hidden | {"backing", GROUND})
    for inside in ("floor1", "floor2", "ramp"):
        assert any(name.startswith(inside) for name in visible), inside


def test_commands_that_simulate_print_nothing_on_stderr():
    """pybullet's build-time banner (printed by its C module on import) is muted."""
    tower = Path(sys.executable).with_name("tower")
    run = subprocess.run(
        [str(tower), "throw", "--pieces", "1", "--throws", "1"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout.startswith("throw ")
    # a library user importing a physics module directly gets no banner either
    code = "import tower.physics.world, sys; sys.stderr.write('after')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stderr == "after"


def test_throw_continues_and_replaces_its_own_snapshot(tmp_path):
    snap = tmp_path / "t.json"
    full = _throw("--throws", "3")
    first = _throw("--throws", "1", "--snapshot", str(snap))
    written = snap.read_text()
    rest = _throw("--throws", "2", "--restore", str(snap), "--snapshot", str(snap))
    assert first + rest == full
    assert snap.read_text() != written
    # the replaced snapshot continues the tower again
    assert _throw("--throws", "1", "--restore", str(snap))[0].startswith("throw 4: ")


def test_throw_refuses_a_snapshot_of_another_tower(tmp_path):
    snap = tmp_path / "t.json"
    _throw("--throws", "1", "--snapshot", str(snap))
    written = snap.read_text()
    for other in (["--seed", "8"], ["--preset", "queen-classic"]):
        args = ["throw", "--pieces", "1", "--throws", "1", *other, "--snapshot", str(snap)]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code != 0
        assert "already exists" in str(result.exception)
        assert snap.read_text() == written


def test_a_cube_tower_throws_its_cubes_and_refuses_keshis_before_writing(tmp_path):
    out = tmp_path / "q.jsonl"
    base = ["simulate", "--preset", "queen-classic", "--sequences", "1", "--throws", "2",
            "--pieces", "3", "--workers", "1", "--quiet", "--out", str(out)]  # fmt: skip
    for mix in ("keshis", "walls-guards", "experts"):
        result = CliRunner().invoke(cli, [*base, "--mix", mix])
        assert result.exit_code != 0
        assert "mixes it can throw: cubes" in str(result.exception)
        assert not out.exists()  # no header-only trace left behind
    result = CliRunner().invoke(cli, base)  # the tower's own pieces: cubes
    assert result.exit_code == 0, result.output
    (seq,) = read_traces(out)
    assert {str(p) for p in seq.pieces} <= {f"cube:{c}" for c in CUBE_COLOURS}
    assert len(seq.throws) == 2
    lines = CliRunner().invoke(cli, ["throw", "--preset", "queen-classic", "--pieces", "2"])
    assert lines.exit_code == 0 and "cube:" in lines.output, lines.output
    gif = tmp_path / "q.gif"
    args = ["render", "--preset", "queen-classic", "--out", str(gif), "--pieces", "2",
            "--warmup", "0", "--size", "40", "40"]  # fmt: skip
    assert CliRunner().invoke(cli, args).exit_code == 0 and gif.stat().st_size > 0


def test_simulate_does_not_complete_a_trace_of_an_earlier_walls_guards_mix(tmp_path):
    out = tmp_path / "w.jsonl"
    args = ["simulate", "--mix", "walls-guards", "--sequences", "1", "--throws", "1",
            "--pieces", "2", "--workers", "1", "--quiet", "--out", str(out)]  # fmt: skip
    assert CliRunner().invoke(cli, args).exit_code == 0
    lines = out.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["header"]["settings"]["mix_version"] == 2
    del header["header"]["settings"]["mix_version"]  # as the mix's first version wrote it
    out.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    result = CliRunner().invoke(cli, [*args[:4], "2", *args[5:]])  # 2 sequences: complete it
    assert result.exit_code != 0
    assert "mix_version: None in the file, 2 now" in str(result.exception)
