"""Numerics v4, the default: v3 still to be had exactly, deterministic, and a snapshot taken
while the static tower is kept between throws continues exactly like the tower it was taken
from; a snapshot of v3 numerics restores as v3."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pybullet as pb
import pytest

from tower.geometry import load_preset
from tower.physics import EscapeError, SnapshotError, TowerGeometry, TowerSim
from tower.physics.params import PhysicsParams
from tower.physics.world import LENGTH, NUMERICS_VERSION, Numerics, World
from tower.pieces import Piece, Place, mixed_keshis

#: v4 with a rebuild every 3 throws, so short tests cross a rebuild
V4 = Numerics.v4(rebuild_every=3)


@pytest.fixture(scope="module")
def geometry() -> TowerGeometry:
    return TowerGeometry.from_spec(load_preset("marrakesh"))


def _state(sim: TowerSim) -> tuple:
    """Everything a tower carries to its next throw, exactly."""
    return (sim.throws, sim.rng.bit_generator.state, sim.pieces, sim.inside, sim.places)


def _throws(sim: TowerSim, n: int) -> list:
    return [(sim.throw(mixed_keshis(6)), _state(sim)) for _ in range(n)]


def test_the_defaults_are_v4_and_v3_is_asked_for():
    n = Numerics()
    assert NUMERICS_VERSION == 4 and n == Numerics.v4() and n.version == 4
    assert (n.rebuild_every, n.sleep_after, n.retire_clearance, n.rest_checks) == (10, 2, 1.0, 2)
    assert (n.backing, n.ccd_radius, n.split_impulse, n.engine) == (20.0, 0.4, True, ())
    v3 = Numerics.v3()
    assert v3.version == 3 and (v3.rebuild_every, v3.sleep_after) == (1, 0)
    assert (v3.retire_clearance, v3.rest_checks, v3.backing) == (2.0, 3, 0.0)
    assert (n.funnel_backing, v3.funnel_backing) == (20.0, 0.0)
    assert (v3.time_step, v3.margin) == (n.time_step, n.margin) == (1 / 150, 0.2)
    assert Numerics.v4(rest_checks=3).rest_checks == 3
    assert Numerics.v3(rest_checks=1) == replace(v3, rest_checks=1)
    v2 = Numerics.of_version(2)
    assert (v2.time_step, v2.margin, v2.rebuild_every, v2.version) == (1 / 180, None, 1, 2)
    with pytest.raises(ValueError, match="version 5"):
        Numerics.of_version(5)
    base = Numerics.pybullet_defaults()  # the bench's baseline
    assert (base.rebuild_every, base.sleep_after, base.backing) == (1, 0, 0.0)
    assert base.funnel_backing == 0.0
    assert (base.time_step, base.solver_iterations, base.margin) == (1 / 240, 50, None)


#: Numerics fields that came after v3; a v3 snapshot written before them lacks them
AFTER_V3 = (
    "ccd_radius",
    "split_impulse",
    "retire_clearance",
    "sleep_after",
    "backing",
    "funnel_backing",
    "rebuild_every",
    "engine",
)


def test_a_v3_snapshot_without_the_newer_fields_restores_as_v3(geometry, tmp_path):
    v3 = TowerSim(geometry.spec, seed=8, numerics=Numerics.v3(), geometry=geometry)
    _throws(v3, 2)
    path = tmp_path / "v3.json"
    v3.snapshot(path)
    data = json.loads(path.read_text())
    assert "since" not in data  # v3 rebuilds every throw
    for name in AFTER_V3:
        del data["numerics"][name]
    path.write_text(json.dumps(data))
    restored = TowerSim.restore(path, geometry=geometry)
    assert restored.numerics == Numerics.v3() and restored.source == "physics-v3:marrakesh"
    assert _throws(restored, 3) == _throws(v3, 3)
    v3.close()
    restored.close()


def test_a_snapshot_restores_its_numerics_exactly(geometry, tmp_path):
    numerics = Numerics.v4(engine=(("enableConeFriction", 1.0),), rest_checks=3)
    sim = TowerSim(geometry.spec, seed=8, numerics=numerics, geometry=geometry)
    path = tmp_path / "v4.json"
    sim.snapshot(path)
    sim.close()
    restored = TowerSim.restore(path, geometry=geometry)
    assert restored.numerics == numerics
    restored.close()
    data = json.loads(path.read_text())
    data["numerics"]["version"] = 7
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotError, match="version 7"):
        TowerSim.restore(path, geometry=geometry)


def test_kept_static_tower_is_deterministic(geometry):
    a = TowerSim(geometry.spec, seed=4, numerics=V4, geometry=geometry)
    b = TowerSim(geometry.spec, seed=4, numerics=V4, geometry=geometry)
    assert _throws(a, 5) == _throws(b, 5)
    a.close()
    b.close()


@pytest.mark.parametrize("cut", [2, 3, 4])
def test_snapshot_between_rebuilds_continues_identically(geometry, tmp_path, cut):
    full = TowerSim(geometry.spec, seed=5, numerics=V4, geometry=geometry)
    results = _throws(full, cut + 3)
    half = TowerSim(geometry.spec, seed=5, numerics=V4, geometry=geometry)
    _throws(half, cut)
    path = tmp_path / "tower.json"
    half.snapshot(path)
    data = json.loads(path.read_text())
    # the world was built at throws 0, 3, ...: the throws since then are replayed
    assert len(data["since"]) == (cut - 1) % 3 + 1
    restored = TowerSim.restore(path, geometry=geometry)
    assert _throws(restored, 3) == results[cut:]
    for sim in (full, half, restored):
        sim.close()


def test_without_the_replay_a_restored_tower_would_differ(geometry, tmp_path):
    """Why snapshots hold the throws since the rebuild: Bullet's broadphase keeps history,
    so the same recorded state in a fresh world gives other results."""
    full = TowerSim(geometry.spec, seed=5, numerics=V4, geometry=geometry)
    results = _throws(full, 5)
    half = TowerSim(geometry.spec, seed=5, numerics=V4, geometry=geometry)
    _throws(half, 2)
    path = tmp_path / "tower.json"
    half.snapshot(path)
    data = json.loads(path.read_text())
    del data["world"], data["since"]
    path.write_text(json.dumps(data))
    stripped = TowerSim.restore(path, geometry=geometry)
    assert _throws(stripped, 3) != results[2:]
    for sim in (full, half, stripped):
        sim.close()


def test_a_snapshot_whose_replay_does_not_match_is_refused(geometry, tmp_path):
    sim = TowerSim(geometry.spec, seed=6, numerics=V4, geometry=geometry)
    _throws(sim, 2)
    path = tmp_path / "tower.json"
    sim.snapshot(path)
    sim.close()
    data = json.loads(path.read_text())
    data["since"][1]["pieces"] = data["since"][1]["pieces"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotError, match="since"):
        TowerSim.restore(path, geometry=geometry)
    data["world"] = "nonsense"
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotError, match="world"):
        TowerSim.restore(path, geometry=geometry)


def test_a_failed_throw_makes_the_next_one_rebuild(geometry, tmp_path):
    sim = TowerSim(geometry.spec, seed=7, numerics=V4, geometry=geometry)
    _throws(sim, 1)
    # plant a piece far outside the tower: the next throw loses it and raises
    sim.pieces.append(Piece.keshi("red"))
    pid = len(sim.pieces) - 1
    x = geometry.spec.bounds[0][0] * LENGTH - 5.0
    sim.inside[pid] = ((x, 0.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.0,) * 3, (0.0,) * 3)
    sim.places[pid] = Place.FLOOR1
    with pytest.raises(EscapeError):
        sim.throw(mixed_keshis(1))
    del sim.inside[pid], sim.places[pid], sim.pieces[pid]
    path = tmp_path / "tower.json"
    sim.snapshot(path)
    assert "since" not in json.loads(path.read_text())  # the next throw builds afresh
    restored = TowerSim.restore(path, geometry=geometry)
    assert _throws(restored, 2) == _throws(sim, 2)
    sim.close()
    restored.close()


class _Sleeper:
    def __init__(self) -> None:
        self.slept: list[int] = []

    def sleep(self, body: int) -> None:
        self.slept.append(body)


def test_pieces_at_rest_for_sleep_after_checks_are_put_to_sleep_once(geometry):
    sim = TowerSim(geometry.spec, numerics=Numerics.v4(sleep_after=2), geometry=geometry)
    world, bodies = _Sleeper(), [10, 11, 12]
    still = np.zeros(3, dtype=int)
    live = np.array([0, 2])
    for moving in ([True, False], [False, False], [False, False], [False, True]):
        sim._sleep_resting(world, bodies, live, np.array(moving), still)  # type: ignore[arg-type]
    # body 12 rests at checks 1-3 (asleep at the second), body 10 at checks 2-3
    assert world.slept == [12, 10]
    sim._sleep_resting(world, bodies, np.array([], dtype=int), np.array([], dtype=bool), still)  # type: ignore[arg-type]
    sim.close()


def test_clearing_the_pieces_keeps_the_static_tower(geometry):
    world = World(geometry, PhysicsParams(), V4)
    world.reset()
    static = list(world.static_ids)
    for z in (30.0, 32.0):
        world.add_piece(
            next(iter(geometry.shapes)),
            np.array([0.0, 0.0, z]),
            np.array([0.0, 0.0, 0.0, 1.0]),
            np.zeros(3),
            np.zeros(3),
        )
    assert pb.getNumBodies(physicsClientId=world.client) == len(static) + 2
    world.clear_pieces()
    assert pb.getNumBodies(physicsClientId=world.client) == len(static)
    assert world.static_ids == static and world.piece_ids == []
    world.close()


def test_the_backing_lies_against_the_outside_of_the_tube_walls(geometry):
    from tower.physics.world import LENGTH as UNIT
    from tower.physics.world import _backing

    slabs = {p.name: p.vertices / UNIT for p in _backing(geometry.static, 20.0)}
    assert sorted(slabs) == ["backing-tube-back", "backing-tube-left", "backing-tube-right"]
    walls = {p.name: p.vertices / UNIT for p in geometry.static}
    yard_top = max(v[:, 2].max() for n, v in walls.items() if n.startswith("yard"))
    back, wall = slabs["backing-tube-back"], walls["tube-back"]
    assert np.isclose(back[:, 0].max(), wall[:, 0].min())  # flush with its outer face
    assert np.isclose(back[:, 0].min(), wall[:, 0].min() - 20.0)
    assert np.isclose(back[:, 2].min(), wall[:, 2].min())  # nothing is a place behind it
    left = slabs["backing-tube-left"]
    assert np.isclose(left[:, 1].min(), walls["tube-left"][:, 1].max())
    assert left[:, 2].min() > yard_top  # the courtyard beside the tube stays free
    # behind the tube no point is a place: the slab only stops pieces leaving the tower
    inner = back[[0, -1]] * 0.98 + back[[-1, 0]] * 0.02
    assert list(geometry.spec.place_of(inner)) == [None, None]
    world = World(geometry, PhysicsParams(), Numerics.v4(funnel_backing=0.0))
    world.reset()
    assert len(world.static_ids) == len(geometry.static) + 3
    world.close()


def test_the_funnel_wedges_lie_under_the_panels_and_inside_the_rim(geometry):
    from tower.physics.world import FUNNEL_BEYOND, FUNNEL_PANELS, _funnel_backing

    wedges = {p.name: p.vertices / LENGTH for p in _funnel_backing(geometry.static, 20.0)}
    added = {
        p.name: p.vertices / LENGTH
        for p in _funnel_backing(geometry.static, 20.0, FUNNEL_BEYOND)
    }
    assert sorted(wedges) == sorted(f"backing-{name}" for name, _, _ in FUNNEL_PANELS)
    parts = {p.name: p.vertices / LENGTH for p in geometry.static}
    spec = geometry.spec
    rng = np.random.default_rng(0)
    for name, axis, sign in FUNNEL_PANELS:
        wedge, panel = wedges[f"backing-{name}"], parts[name]
        # its top is the panel's outer face (the lower vertex of each of the panel's corners)
        top = wedge[:4]
        assert all(np.isclose(panel, p).all(axis=1).any() for p in top)
        assert len(np.unique(top[:, 2].round(6))) == 2  # a lower and an upper edge
        # no farther out than the rim, down to 20 mm below the tube's top
        assert np.isclose((sign * wedge[:, axis]).max(), (sign * panel[:, axis]).max())
        assert np.isclose(wedge[:, 2].min(), spec.tube.height - 20.0)
        # the wedge added to the world reaches FUNNEL_BEYOND farther out, over the same top
        big = added[f"backing-{name}"]
        assert np.allclose(big[:4], top)
        assert np.isclose((sign * big[:, axis]).max(), (sign * panel[:, axis]).max() + 40.0)
        # no point of either lies in the funnel or the tube (random points of their hulls)
        for solid in (wedge, big):
            points = rng.dirichlet(np.ones(len(solid)), size=400) @ solid
            places = {str(p) for p in spec.place_of(points)}
            assert places <= {"None", "out"}, (name, places)
    world = World(geometry, PhysicsParams(), Numerics.v4())
    world.reset()
    assert len(world.static_ids) == len(geometry.static) + 3  # no wedge until one is needed
    inner = np.mean(list(wedges.values()), axis=1) * LENGTH  # a point inside each wedge
    funnel = np.array([[0.0, 0.0, spec.funnel_top - 5.0], [30.0, 30.0, 150.0]]) * LENGTH
    assert world.behind_panels(inner).all() and not world.behind_panels(funnel).any()
    world.seal()
    world.seal()  # once
    names = [world.static_names[b] for b in world.static_ids]
    assert names[-4:] == [f"backing-{name}" for name, _, _ in FUNNEL_PANELS]
    assert len(names) == len(geometry.static) + 3 + 4
    world.reset()
    assert len(world.static_ids) == len(geometry.static) + 3 and not world.sealed
    world.close()


def test_a_throw_with_no_piece_behind_a_panel_is_the_same_with_or_without_the_wedges(geometry):
    towers = [
        TowerSim(geometry.spec, seed=5, numerics=n, geometry=geometry)
        for n in (Numerics.v4(), Numerics.v4(funnel_backing=0.0))
    ]
    for _ in range(3):
        with_wedges, without = (sim.throw(mixed_keshis(12)) for sim in towers)
        assert with_wedges.caught == () and with_wedges == without
        assert _state(towers[0]) == _state(towers[1])
    for sim in towers:
        sim.close()


def _pressed_into_the_funnel(geometry: TowerGeometry, numerics: Numerics) -> TowerSim:
    """A tower with one keshi pushed through the funnel's -x panel: its centre 1 mm beyond
    the panel's underside, halfway up the panel, sinking slowly."""
    spec = geometry.spec
    rise, run = spec.funnel.height, (spec.funnel.top_width - spec.tube.width) / 2
    normal = np.array([-rise, 0.0, -run]) / np.hypot(rise, run)
    inner = np.array([-spec.tube.width / 2 - 0.3 * run, 0.0, spec.tube.height + 0.3 * rise])
    centre = (inner + (spec.funnel.wall + 1.0) * normal) * LENGTH
    sim = TowerSim(spec, seed=2, numerics=numerics, geometry=geometry)
    sim.pieces.append(Piece.keshi("red"))
    sim.inside[0] = (tuple(centre), (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, -5.0), (0.0,) * 3)
    sim.places[0] = Place.FUNNEL
    return sim


def test_a_piece_pushed_through_a_funnel_panel_is_pushed_back_by_its_wedge(geometry):
    bare = _pressed_into_the_funnel(geometry, Numerics.v4(funnel_backing=0.0))
    with pytest.raises(EscapeError, match="piece 0 "):
        bare.throw(mixed_keshis(1))
    bare.close()
    backed = _pressed_into_the_funnel(geometry, Numerics.v4())
    result = backed.throw(mixed_keshis(1))
    assert result.caught == (0,) and backed.world.sealed
    assert 0 in result.out or 0 in result.inside
    backed.close()
