"""One way to write a file: every writer of the library goes through ``tower.files``, so
each writes atomically (no temporary file left, no half file) and refuses to replace a
file unless told to (``force``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tower.files.outputs import OutputError

ROOT = Path(__file__).resolve().parent.parent / "tower"
#: Code that writes a file by hand: a temporary file renamed over the target.
ATOMIC_BY_HAND = re.compile(r"os\.replace|os\.rename|mkstemp|NamedTemporaryFile|\.replace\(path\)")


def test_no_atomic_write_code_outside_tower_files():
    assert ATOMIC_BY_HAND.search("tmp = tempfile.mkstemp(); os.replace(tmp, p)")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted(ROOT.rglob("*.py"))
        if p.parent.name != "files"
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ATOMIC_BY_HAND.search(line)
    ]
    assert found == []


def synthetic_model():
    from tower.model import DistilledModel
    from tower.model.fit import FitSettings, fit_tables
    from tower.model.synthetic import SyntheticTower

    tables = fit_tables(SyntheticTower().traces(30, seed=1), FitSettings())
    return DistilledModel.from_tables(tables, name="w")


def battle_analysis():
    from tower.battle.checker import Situation, analyse, empty_tower
    from tower.marrakesh.wall_battle import Wall
    from tower.model import BaselineModel

    order = ("red", "blue")
    situation = Situation(1, order, dict.fromkeys(order, 1), {p: Wall(1) for p in order})
    model = BaselineModel()
    return analyse(model, situation, empty_tower(model), samples=200, seed=1)


def writers():
    """(file name, write(path, force)) for every library writer."""
    from tower.battle.report import plot
    from tower.model.synthetic import SyntheticTower
    from tower.physics.params import PhysicsParams
    from tower.physics.plots import plot_inside

    model = synthetic_model()
    sequences = SyntheticTower().traces(3, seed=2)
    return [
        ("model.json", lambda p, force: model.save(p, force=force)),
        ("params.json", lambda p, force: PhysicsParams().dump(p, force=force)),
        ("inside.png", lambda p, force: plot_inside(sequences, p, force=force)),
        ("battle.png", lambda p, force: plot(battle_analysis(), p, force=force)),
    ]


@pytest.mark.parametrize("index", range(4))
def test_every_writer_refuses_a_file_it_was_not_told_to_replace(tmp_path, index):
    name, write = writers()[index]
    path = tmp_path / "sub" / name
    write(path, False)  # a new file (and its folder)
    first = path.read_bytes()
    assert first, name
    path.write_bytes(b"the user's own file")
    with pytest.raises(OutputError, match="already exists"):
        write(path, False)
    assert path.read_bytes() == b"the user's own file"
    write(path, True)
    assert path.read_bytes() == first  # deterministic, and whole
    assert [p.name for p in path.parent.iterdir()] == [name]  # no temporary left


def test_simulator_writers_refuse_too(tmp_path):
    pytest.importorskip("pybullet")
    from tower.geometry import load_preset
    from tower.physics import PhysicsParams, TowerSim
    from tower.physics.render import render_throw
    from tower.pieces import mixed_keshis

    path = tmp_path / "tower.json"
    path.write_text("mine")
    sim = TowerSim(load_preset("marrakesh"), PhysicsParams(), 3)
    try:
        sim.throw(mixed_keshis(3))
        with pytest.raises(OutputError, match="already exists"):
            sim.snapshot(path)
        assert path.read_text() == "mine"
        sim.snapshot(path, force=True)
        again = TowerSim.restore(path)
        assert again.throws == sim.throws
        again.close()
    finally:
        sim.close()
    gif = tmp_path / "throw.gif"
    gif.write_text("mine")
    with pytest.raises(OutputError, match="already exists"):  # before any simulation
        render_throw(load_preset("marrakesh"), out=gif, warmup=0, pieces=mixed_keshis(1))
    assert gif.read_text() == "mine"
