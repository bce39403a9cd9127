"""The fast paths of a throw give exactly what the plain code they replaced gave.

Release points are tested a block of tries at a time in numpy (:func:`tower.physics.sim.
_first_clear`), and :meth:`TowerData.place_of` tests point by point in plain floats. Both
must agree to the bit with the straightforward versions below (the code before the change),
or every shipped trace would move: same release states and same RNG state after, same
places.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tower.physics.sim as sim_module
from tower.geometry import load_preset
from tower.physics import TowerGeometry, TowerSim
from tower.physics.sim import MAX_CLUSTER, TRIES
from tower.physics.world import LENGTH
from tower.pieces import Kind, Piece, mixed_keshis


@pytest.fixture(scope="module")
def geometry() -> TowerGeometry:
    return TowerGeometry.from_spec(load_preset("marrakesh"))


def reference_release_states(sim: TowerSim, new: list[Piece]) -> list:
    """The one-try-at-a-time rejection sampling of release states (before the change)."""
    p, rng, shapes = sim.params, sim.rng, sim.geometry.shapes
    centre = np.asarray(sim.spec.release_centre, dtype=float) * LENGTH
    centre = centre + np.array([0.0, 0.0, p.release_height * LENGTH])
    cx, cy, cz = (float(v) for v in centre)
    placed: list = []
    out = []
    for i, piece in enumerate(new):
        radius = shapes[piece.kind].radius
        widest = max(0.0, sim.spec.release_radius - radius / LENGTH) * LENGTH
        disc = min(p.release_spread * LENGTH, widest)
        z = cz
        while True:
            for _ in range(TRIES):
                r = disc * math.sqrt(rng.random())
                a = 2 * math.pi * rng.random()
                x, y = cx + r * math.cos(a), cy + r * math.sin(a)
                if all(
                    (x - qx) ** 2 + (y - qy) ** 2 + (z - qz) ** 2 > (1.05 * (radius + rq)) ** 2
                    for (qx, qy, qz), rq in placed
                ):
                    break
            else:
                if z + radius - cz <= MAX_CLUSTER * LENGTH or disc >= widest:
                    z += radius
                else:
                    disc = min(disc + radius, widest)
                continue
            break
        pos = (float(x), float(y), z)
        placed.append((pos, radius))
        q = rng.normal(size=4)
        orn = q / np.linalg.norm(q)
        r = p.release_speed_jitter * math.sqrt(rng.random())
        a = 2 * math.pi * rng.random()
        vz = -p.release_speed + 0.5 * p.release_speed_jitter * (2 * rng.random() - 1)
        vel = np.array([r * math.cos(a), r * math.sin(a), vz])
        axis = rng.normal(size=3)
        spin = axis / np.linalg.norm(axis) * p.release_spin
        t = i * p.stream_interval if p.release_mode == "stream" else 0.0
        out.append((t, (pos, tuple(orn), tuple(vel * LENGTH), tuple(spin))))
    return out


def reference_place_of(spec, points: np.ndarray) -> list:
    """The all-numpy :meth:`place_of` (before the change)."""
    tol = 1e-6
    p = np.atleast_2d(np.asarray(points, dtype=float))
    x, y, z = p.T
    t = spec.tube
    in_tube = (np.abs(x) <= t.width / 2) & (np.abs(y) <= t.depth / 2)
    in_tube &= (z >= -tol) & (z < t.height)
    hw, hd = spec.funnel_half_size(z)
    fw = spec.funnel.wall + tol
    in_funnel = (z >= t.height) & (z <= spec.funnel_top + fw)
    in_funnel &= (np.abs(x) <= hw + fw) & (np.abs(y) <= hd + fw)
    box = spec.courtyard_box
    in_yard = np.all((p >= box[0] - [0, 0, tol]) & (p <= box[1]), axis=1)
    above1 = z >= spec.floor_surface_z(0, x) - spec.floors[0].thickness
    above2 = z >= spec.floor_surface_z(1, x) - spec.floors[1].thickness
    out = []
    for k in range(len(p)):
        if in_tube[k]:
            out.append("floor1" if above1[k] else "floor2" if above2[k] else "ramp")
        elif in_funnel[k]:
            out.append("funnel")
        elif in_yard[k]:
            out.append("out")
        else:
            out.append(None)
    return out


def _hand(rng: np.random.Generator, size: int) -> list[Piece]:
    kinds = [Kind.KESHI, Kind.EXPERT, Kind.WATCHMAN, Kind.BRIGAND]
    return [Piece(kinds[k], "red") for k in rng.integers(len(kinds), size=size)]


@pytest.mark.parametrize("near", [None, math.inf])
def test_release_states_match_the_one_try_at_a_time_loop(geometry, monkeypatch, near):
    # near=inf re-tests every try in plain Python floats: that path must agree as well
    if near is not None:
        monkeypatch.setattr(sim_module, "NEAR", near)
    fast = TowerSim(geometry.spec, seed=5, geometry=geometry)
    slow = TowerSim(geometry.spec, seed=5, geometry=geometry)
    rng = np.random.default_rng(3)
    hands = [mixed_keshis(12), mixed_keshis(1), mixed_keshis(30)]
    hands += [_hand(rng, int(n)) for n in rng.integers(1, 25, size=60)]
    for hand in hands:
        got = fast._release_states(hand)
        want = reference_release_states(slow, hand)
        assert [(t, [list(v) for v in st]) for t, st in got] == [
            (t, [list(v) for v in st]) for t, st in want
        ]
        assert fast.rng.bit_generator.state == slow.rng.bit_generator.state


def test_place_of_matches_the_all_numpy_version_on_and_near_every_boundary():
    for name in ("marrakesh", "queen-classic"):
        spec = load_preset(name)
        rng = np.random.default_rng(1)
        lo, hi = spec.bounds
        points = [lo + rng.random((20000, 3)) * (hi - lo)]
        # points exactly on (and one ulp beside) the planes that split the places
        t, box = spec.tube, spec.courtyard_box
        xs = [0.0, t.width / 2, -t.width / 2, box[0, 0], box[1, 0]]
        ys = [0.0, t.depth / 2, -t.depth / 2, box[0, 1], box[1, 1]]
        zs = [0.0, -1e-6, t.height, spec.funnel_top + spec.funnel.wall + 1e-6, box[1, 2]]
        grid = np.array([[x, y, z] for x in xs for y in ys for z in zs])
        points += [grid, np.nextafter(grid, np.inf), np.nextafter(grid, -np.inf)]
        x = rng.uniform(-t.width / 2, t.width / 2, 2000)
        for i in range(2):  # on the floors' lower limits
            z = spec.floor_surface_z(i, x) - spec.floors[i].thickness
            points.append(np.column_stack([x, np.zeros_like(x), z]))
        points.append(np.array([[np.nan, 0.0, 0.0], [0.0, 0.0, np.inf]]))
        pts = np.concatenate(points)
        got = [None if p is None else p.value for p in spec.place_of(pts)]
        assert got == reference_place_of(spec, pts)
        assert {"funnel", "floor1", "floor2", "ramp", "out", None} <= set(got)
