"""TowerSim on the marrakesh preset: accounting, determinism, snapshots, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_physics_world import box_geometry

from tower.errors import InputFileError, TowerError
from tower.geometry import load_preset
from tower.physics import (
    EscapeError,
    PhysicsParams,
    SnapshotError,
    TowerGeometry,
    TowerSim,
)
from tower.physics.world import LENGTH, Numerics
from tower.pieces import INSIDE, Kind, Piece, mixed_keshis
from tower.traces import TraceSequence


@pytest.fixture(scope="module")
def geometry() -> TowerGeometry:
    return TowerGeometry.from_spec(load_preset("marrakesh"))


def _run(geometry, seed, throws, n=8, sim=None):
    sim = sim or TowerSim(geometry.spec, seed=seed, geometry=geometry)
    return sim, [sim.throw(mixed_keshis(n)) for _ in range(throws)]


def test_every_piece_is_accounted_for_and_keeps_its_identity(geometry):
    sim, results = _run(geometry, seed=3, throws=3)
    seen_out: set[int] = set()
    for r in results:
        assert set(r.out).isdisjoint(r.inside)
        seen_out |= set(r.out)
        assert all(place in INSIDE for place in r.inside.values())
        assert len(seen_out) + len(r.inside) == len(r.pieces) == 8 * (r.index + 1)
    assert [str(p) for p in sim.pieces[:8]] == [str(p) for p in mixed_keshis(8)]
    assert results[-1].out_pieces == sorted(results[-1].out_pieces)
    trace = [r.to_trace() for r in results]
    assert trace[0].thrown == tuple(range(8))
    sim.close()


def test_two_runs_with_one_seed_agree_exactly(geometry):
    a, ra = _run(geometry, seed=11, throws=3)
    b, rb = _run(geometry, seed=11, throws=3)
    assert ra == rb
    assert a.inside == b.inside  # every float of every pose, bit for bit
    c, _ = _run(geometry, seed=12, throws=3)
    assert c.inside != a.inside
    for s in (a, b, c):
        s.close()


def test_snapshot_and_restore_mid_sequence_continue_identically(geometry, tmp_path):
    full, results = _run(geometry, seed=5, throws=4)
    half, _ = _run(geometry, seed=5, throws=2)
    path = tmp_path / "tower.json"
    half.snapshot(path)
    half.close()
    data = json.loads(path.read_text())
    assert data["throws"] == 2 and len(data["pieces"]) == 16
    restored = TowerSim.restore(path, geometry.spec, geometry=geometry)
    rest = [restored.throw(mixed_keshis(8)) for _ in range(2)]
    assert rest == results[2:]
    assert restored.inside == full.inside
    assert restored.rng.bit_generator.state == full.rng.bit_generator.state
    # the spec is embedded: restoring without one gives the same tower
    again = TowerSim.restore(path)
    assert again.throw(mixed_keshis(8)) == results[2]
    for s in (full, restored, again):
        s.close()


def test_bad_snapshots_are_refused_with_the_file_named(geometry, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(SnapshotError, match=r"bad\.json"):
        TowerSim.restore(path, geometry.spec, geometry=geometry)
    sim, _ = _run(geometry, seed=1, throws=1, n=4)
    sim.snapshot(path, force=True)
    sim.close()
    data = json.loads(path.read_text())
    if data["inside"]:
        data["inside"][0]["position"] = [1.0, 2.0]
    else:
        data["inside"] = [{"id": 0, "place": "floor1", "position": [1.0]}]
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotError, match=r"inside\[0\]"):
        TowerSim.restore(path, geometry.spec, geometry=geometry)
    other = load_preset("marrakesh").with_values({"ramp.angle": 25.0})
    sim.snapshot(path, force=True)
    with pytest.raises(SnapshotError, match="spec"):
        TowerSim.restore(path, other)


def test_a_piece_leaving_the_bounds_raises_instead_of_vanishing(geometry):
    sim = TowerSim(geometry.spec, seed=0, geometry=geometry)
    sim.throw(mixed_keshis(2))
    # Put a resting piece far outside the tower; the next throw must refuse to go on.
    pid = next(iter(sim.inside), None)
    if pid is None:  # both fell through: plant one by hand
        sim.pieces.append(Piece.keshi("red"))
        pid = len(sim.pieces) - 1
    lo = np.asarray(geometry.spec.bounds)[0] * LENGTH
    sim.inside[pid] = ((lo[0] - 5.0, 0.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.0,) * 3, (0.0,) * 3)
    pieces, rng = list(sim.pieces), sim.rng.bit_generator.state
    with pytest.raises(EscapeError, match=f"piece {pid}") as info:
        sim.throw(mixed_keshis(1))
    assert isinstance(info.value, TowerError)
    # the failed throw left the tower as it was
    assert sim.pieces == pieces and sim.rng.bit_generator.state == rng and pid in sim.inside
    sim.close()


def test_pawns_are_compound_bodies_and_go_through(geometry):
    shape = geometry.shapes[Kind.WATCHMAN]
    assert len(shape.hulls) >= 2
    sim = TowerSim(geometry.spec, seed=2, geometry=geometry)
    r = sim.throw([Piece(Kind.WATCHMAN, "blue"), Piece(Kind.BRIGAND, "neutral")])
    assert len(r.out) + len(r.inside) == 2
    sim.close()


def test_stream_release_is_deterministic_and_differs_from_all_at_once(geometry):
    params = PhysicsParams(release_mode="stream", stream_interval=0.05)
    a = TowerSim(geometry.spec, params, seed=4, geometry=geometry)
    b = TowerSim(geometry.spec, params, seed=4, geometry=geometry)
    ra, rb = a.throw(mixed_keshis(4)), b.throw(mixed_keshis(4))
    assert ra == rb and ra.sim_time >= 0.15
    a.close()
    b.close()


def test_box_tower_geometry_runs_without_tower_geometry_module():
    geo = box_geometry()
    sim = TowerSim(geo.spec, seed=1, geometry=geo)
    r = sim.throw(mixed_keshis(3))
    assert len(r.out) + len(r.inside) == 3
    sim.close()


def test_params_round_trip_and_validation(tmp_path):
    p = PhysicsParams().with_values({"friction_piece": 0.5, "release_mode": "stream"})
    path = tmp_path / "p.json"
    p.dump(path)
    assert PhysicsParams.load(path) == p
    ranges = PhysicsParams.ranges()
    defaults = PhysicsParams()
    for name, (lo, hi) in ranges.items():
        assert lo <= getattr(defaults, name) <= hi, name
    with pytest.raises(KeyError, match="nope"):
        p.with_values({"nope": 1})
    with pytest.raises(ValueError, match="restitution"):
        p.with_values({"restitution": 1.5})
    path.write_text(json.dumps({"friction_piece": -1}))
    with pytest.raises(InputFileError, match="friction_piece"):
        PhysicsParams.load(path)


def test_a_big_handful_starts_apart_and_spreads_out_before_stacking_high(geometry):
    sim = TowerSim(geometry.spec, seed=8, geometry=geometry)
    brigands = [Piece(Kind.BRIGAND, "neutral")] * 20
    states = [st for _, st in sim._release_states(brigands)]
    pos = np.array([st[0] for st in states]) / LENGTH
    radius = geometry.shapes[Kind.BRIGAND].radius / LENGTH
    gaps = np.linalg.norm(pos[:, None] - pos[None], axis=2) + np.eye(20) * 1e9
    assert gaps.min() > 2 * radius  # no two pieces overlap at release
    centre = np.asarray(geometry.spec.release_centre)
    sideways = np.linalg.norm(pos[:, :2] - centre[:2], axis=1)
    assert sideways.max() > sim.params.release_spread  # wider than one hand's disc
    assert sideways.max() <= geometry.spec.release_radius
    sim.close()


def test_a_throw_that_loses_a_piece_is_thrown_again_with_the_next_release(geometry, monkeypatch):
    # numerics v3: every attempt in a fresh world, so the re-throw is exactly a fresh
    # tower's throw one draw further on (v4 re-tries in the world of the lost attempt)
    sim = TowerSim(geometry.spec, seed=5, numerics=Numerics.v3(), geometry=geometry)
    original, calls = sim._throw, []

    def lose_first(*args):
        calls.append(sim.rng.bit_generator.state)
        if len(calls) == 1:
            sim.rng.random()  # the failed attempt used the generator; throw() restores it
            raise EscapeError("lost a piece")
        return original(*args)

    monkeypatch.setattr(sim, "_throw", lose_first)
    start = sim.rng.bit_generator.state
    result = sim.throw(mixed_keshis(4), retries=2)
    assert result.rethrows == 1 and len(calls) == 2
    assert calls[0] == start and calls[1] != start  # the re-throw is one draw further on
    assert result.to_trace().to_json()["rethrows"] == 1
    seq = TraceSequence(0, 5, "physics:test", result.pieces, (result.to_trace(),))
    assert TraceSequence.from_json(json.loads(seq.to_line())).throws[0].rethrows == 1
    # the same tower, its generator moved by one draw, throws exactly this
    twin = TowerSim(geometry.spec, seed=5, numerics=Numerics.v3(), geometry=geometry)
    twin.rng.random()
    again = twin.throw(mixed_keshis(4))
    assert (again.out, again.inside, again.rethrows) == (result.out, result.inside, 0)
    assert "rethrows" not in again.to_trace().to_json()
    sim.close()
    twin.close()


def test_a_throw_lost_in_every_attempt_raises_and_leaves_the_tower_as_it_was(geometry):
    sim = TowerSim(geometry.spec, seed=0, geometry=geometry)
    sim.pieces.append(Piece.keshi("red"))
    lo = np.asarray(geometry.spec.bounds)[0] * LENGTH
    sim.inside[0] = ((lo[0] - 5.0, 0.0, 3.0), (0.0, 0.0, 0.0, 1.0), (0.0,) * 3, (0.0,) * 3)
    pieces, rng = list(sim.pieces), sim.rng.bit_generator.state
    with pytest.raises(EscapeError):
        sim.throw(mixed_keshis(1), retries=2)
    assert sim.pieces == pieces and sim.rng.bit_generator.state == rng and sim.throws == 0
    sim.close()


def test_traces_name_the_numerics_version_and_old_snapshots_restore_as_v2(geometry, tmp_path):
    from tower.physics.world import NUMERICS_VERSION

    sim = TowerSim(geometry.spec, seed=3, geometry=geometry)
    assert sim.source == f"physics-v{NUMERICS_VERSION}:marrakesh" and NUMERICS_VERSION == 4
    path = tmp_path / "old.json"
    sim.snapshot(path)
    sim.close()
    data = json.loads(path.read_text())
    assert data["numerics"]["version"] == NUMERICS_VERSION
    del data["numerics"]["version"]  # as written before the field existed
    path.write_text(json.dumps(data))
    old = TowerSim.restore(path, geometry.spec, geometry=geometry)
    assert old.numerics.version == 2 and old.source == "physics-v2:marrakesh"
    old.close()


def test_a_tower_that_asks_for_a_finer_time_step_is_simulated_with_it():
    from tower.geometry import load_preset

    sim = TowerSim(load_preset("queen-classic"), seed=1)
    assert sim.numerics.time_step == 1 / 240  # the preset's steps_per_second
    assert sim.numerics == Numerics.for_spec(sim.spec) != Numerics()
    sim.close()
