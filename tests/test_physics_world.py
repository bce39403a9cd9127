"""A simple box tower for physics tests, and tests of the world setup on it.

The box tower is built here from trimesh boxes, independent of :mod:`tower.geometry`, so the
simulator's mechanics (units, accounting, determinism) are tested on a tower whose regions
are obvious: a square tube with two holed floors, a 30-degree ramp and a courtyard in front.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import trimesh

from tower.physics.params import PhysicsParams
from tower.physics.world import GROUND, LENGTH, Numerics, TowerGeometry, World
from tower.pieces import Kind, Place

HALF = 35.0  # inner half-width of the tube (mm)
TOP = 420.0
FLOOR1, FLOOR2 = 170.0, 100.0


@dataclass
class BoxPieceSpec:
    kind: Kind
    mass_g: float
    max_extent: float


@dataclass
class BoxSpec:
    """The duck-typed part of a TowerSpec that physics uses."""

    name: str = "box"
    release_centre: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 240.0]))
    release_radius: float = 20.0
    bounds: np.ndarray = field(
        default_factory=lambda: np.array([[-70.0, -170.0, -10.0], [70.0, 70.0, 500.0]])
    )
    pieces: dict = field(
        default_factory=lambda: {
            Kind.KESHI: BoxPieceSpec(Kind.KESHI, 1.2, 16.0),
            Kind.WATCHMAN: BoxPieceSpec(Kind.WATCHMAN, 2.5, 22.0),
        }
    )

    exit_face: float = HALF + 3.0

    def to_toml(self) -> str:
        return 'name = "box"\n'

    def place_of(self, points: np.ndarray) -> list[Place | None]:
        out: list[Place | None] = []
        for x, y, z in np.asarray(points, dtype=float).reshape(-1, 3):
            in_tube = abs(x) <= HALF + 1 and abs(y) <= HALF + 1
            if in_tube and 0 <= z <= TOP + 200:
                if z >= 215:
                    out.append(Place.FUNNEL)
                elif z >= FLOOR1:
                    out.append(Place.FLOOR1)
                elif z >= FLOOR2:
                    out.append(Place.FLOOR2)
                else:
                    out.append(Place.RAMP)
            elif abs(x) <= 60 and -160 <= y < -HALF and -3 <= z <= 80:
                out.append(Place.OUT)
            else:
                out.append(None)
        return out


def _box(lo, hi, rotation=None) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    box = trimesh.creation.box(extents=hi - lo)
    if rotation is not None:
        box.apply_transform(rotation)
    box.apply_translation((lo + hi) / 2)
    return box


def _holed_floor(z: float, hole_lo, hole_hi, name: str) -> list[tuple[str, trimesh.Trimesh]]:
    """A 3 mm floor over the tube with a rectangular hole, split into four convex boxes."""
    (hx0, hy0), (hx1, hy1) = hole_lo, hole_hi
    t = 3.0
    parts = [
        ((-HALF, -HALF), (hx0, HALF)),
        ((hx1, -HALF), (HALF, HALF)),
        ((hx0, -HALF), (hx1, hy0)),
        ((hx0, hy1), (hx1, HALF)),
    ]
    return [
        (f"{name}_{i}", _box((x0, y0, z - t), (x1, y1, z)))
        for i, ((x0, y0), (x1, y1)) in enumerate(parts)
        if x1 - x0 > 0.5 and y1 - y0 > 0.5
    ]


def box_parts() -> list[tuple[str, trimesh.Trimesh]]:
    t = 3.0
    w = HALF + t
    parts = [
        ("wall_back", _box((-w, HALF, 0), (w, w, TOP))),
        ("wall_left", _box((-w, -w, 0), (-HALF, w, TOP))),
        ("wall_right", _box((HALF, -w, 0), (w, w, TOP))),
        ("wall_front", _box((-w, -w, 45), (w, -HALF, TOP))),
        ("court_floor", _box((-60, -160, -3), (60, w, 0))),
        ("court_wall_front", _box((-60, -163, -3), (60, -160, 30))),
        ("court_wall_left", _box((-63, -163, -3), (-60, w, 30))),
        ("court_wall_right", _box((60, -163, -3), (63, w, 30))),
    ]
    parts += _holed_floor(FLOOR1, (-HALF, 3), (-3, HALF), "floor1")
    parts += _holed_floor(FLOOR2, (3, -HALF), (HALF, -3), "floor2")
    # ramp: 30 degrees down towards the front opening
    angle = np.radians(30)
    length = 2 * HALF / np.cos(angle)
    ramp = trimesh.creation.box(extents=(2 * HALF, length, 3.0))
    ramp.apply_transform(trimesh.transformations.rotation_matrix(angle, (1, 0, 0)))
    ramp.apply_translation((0, 0, 25 + HALF * np.tan(angle)))
    parts.append(("ramp", ramp))
    return parts


def keshi_mesh() -> trimesh.Trimesh:
    return trimesh.creation.cylinder(radius=7.0, height=11.0, sections=8)


def pawn_parts() -> tuple[list[trimesh.Trimesh], trimesh.Trimesh]:
    body = trimesh.creation.cylinder(radius=7.0, height=14.0, sections=12)
    head = trimesh.creation.icosphere(subdivisions=1, radius=5.0)
    head.apply_translation((0, 0, 11.0))
    visual = trimesh.util.concatenate([body, head])
    com = (body.volume * body.center_mass + head.volume * head.center_mass) / (
        body.volume + head.volume
    )
    for m in (body, head, visual):
        m.apply_translation(-com)
    return [body, head], visual


def box_geometry() -> TowerGeometry:
    """The box tower ready for :class:`tower.physics.sim.TowerSim` (``geometry=``)."""
    keshi = keshi_mesh()
    return TowerGeometry.from_meshes(
        BoxSpec(),
        box_parts(),
        {Kind.KESHI: ([keshi], keshi), Kind.WATCHMAN: pawn_parts()},
    )


def test_geometry_converts_to_centimetres_and_masses_from_density():
    geo = box_geometry()
    keshi = geo.shapes[Kind.KESHI]
    assert keshi.radius == pytest.approx(np.hypot(7.0, 5.5) * LENGTH)
    # octagonal prism volume: 2 r^2 sqrt(2) h
    assert keshi.volume == pytest.approx(2 * 49 * np.sqrt(2) * 11 * LENGTH**3)
    assert np.all(keshi.inertia > 0)
    assert len(geo.shapes[Kind.WATCHMAN].hulls) == 2


def test_a_keshi_dropped_on_a_floor_comes_to_rest_on_it():
    geo = box_geometry()
    world = World(geo, PhysicsParams(), Numerics())
    world.reset()
    start = np.array([20.0, -20.0, FLOOR1 + 30.0]) * LENGTH  # above the solid part
    body = world.add_piece(Kind.KESHI, start, np.array([0, 0, 0, 1.0]), np.zeros(3), np.zeros(3))
    for _ in range(480):
        world.step()
    pos, _, lin, _ = world.state(body)
    world.close()
    assert pos[2] / LENGTH == pytest.approx(FLOOR1 + 5.5, abs=0.6)  # resting on its face
    assert np.linalg.norm(lin) < 0.5


def test_a_piece_pushed_deep_into_the_thin_courtyard_board_comes_back_up():
    """Bullet pushes a piece out of a solid the shortest way; deeper than half a thin board,
    that is downwards, out of the tower. The slab under the tower turns it back up."""
    geo = box_geometry()
    ground = next(p for p in geo.static if p.name == GROUND)
    lowest = min(p.vertices[:, 2].min() for p in geo.static if p.name != GROUND)
    assert ground.vertices[:, 2].max() == pytest.approx(lowest)
    world = World(geo, PhysicsParams(), Numerics())
    world.reset()
    # keshi half-height 5.5 mm, board 3 mm: the centre 2 mm below the board's top puts the
    # keshi's top 3.5 mm above the board and its bottom 4.5 mm below the board's underside
    start = np.array([0.0, -100.0, -2.0]) * LENGTH
    body = world.add_piece(Kind.KESHI, start, np.array([0, 0, 0, 1.0]), np.zeros(3), np.zeros(3))
    for _ in range(240):
        world.step()
    pos, _, _, _ = world.state(body)
    world.close()
    assert pos[2] / LENGTH == pytest.approx(5.5, abs=0.6)  # on the board, not under it


def test_a_retired_piece_stays_where_it_was_and_collides_with_nothing():
    geo = box_geometry()
    world = World(geo, PhysicsParams(), Numerics())
    world.reset()
    up = np.array([0, 0, 0, 1.0])
    above = np.array([20.0, -20.0, FLOOR1 + 30.0]) * LENGTH
    retired = world.add_piece(Kind.KESHI, above, up, np.array([0.0, 0.0, -30.0]), np.zeros(3))
    world.retire(retired)
    higher = above + np.array([0, 0, 3.0])
    falling = world.add_piece(Kind.KESHI, higher, up, np.zeros(3), np.zeros(3))
    for _ in range(480):
        world.step()
    still, _, lin, _ = world.state(retired)
    landed, _, _, _ = world.state(falling)
    world.close()
    assert still == pytest.approx(tuple(above)) and lin == (0.0, 0.0, 0.0)
    # it fell through the retired keshi onto the floor (on top it would be 11 mm higher)
    assert FLOOR1 < landed[2] / LENGTH < FLOOR1 + 9.0


def _two_keshis_after(params: PhysicsParams, steps: int) -> np.ndarray:
    """Positions (2, 3) of two keshis thrown spinning onto the upper floor, after ``steps``."""
    world = World(box_geometry(), params, Numerics())
    world.reset()
    bodies = [
        world.add_piece(Kind.KESHI, np.array([x, -20.0, FLOOR1 + 20.0]) * LENGTH,
                        np.array([0.2, 0.1, 0, 1.0]) / np.sqrt(1.05), np.array([3.0, 0, -30]),
                        np.array([0, 20.0, 5]))
        for x in (15.0, 32.0)
    ]  # fmt: skip
    for _ in range(steps):
        world.step()
    out = np.array([world.state(b)[0] for b in bodies])
    world.close()
    return out


def test_a_common_density_moves_nothing_but_bullets_rolling_friction():
    """Scaling every piece's mass alike changes no motion, so a keshi-only recording cannot
    tell the density (:func:`tower.calibration.calibrate.default_physics_fit`). Bullet's
    rolling and spinning friction are the exception: they scale with the normal impulse
    capped at 1 g cm/s."""
    still = {"rolling_friction": 0.0, "spinning_friction": 0.0}
    light = _two_keshis_after(PhysicsParams(density_keshi=0.5, **still), 60)
    heavy = _two_keshis_after(PhysicsParams(density_keshi=0.9, **still), 60)
    assert light[:, 2].max() < (FLOOR1 + 10.0) * LENGTH  # they landed: contacts were solved
    assert np.abs(light - heavy).max() < 1e-7  # rounding (3e-10 cm measured)
    rolling = {"rolling_friction": 0.05, "spinning_friction": 0.05}
    light = _two_keshis_after(PhysicsParams(density_keshi=0.5, **rolling), 60)
    heavy = _two_keshis_after(PhysicsParams(density_keshi=0.9, **rolling), 60)
    assert np.abs(light - heavy).max() > 1e-3  # 0.1 cm measured
