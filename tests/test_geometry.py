"""Tower and piece meshes from the presets: solids, convexity, places, specs, determinism."""

import filecmp
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from tower.cli import main
from tower.geometry import (
    PRESETS,
    OutOfBoundsError,
    SpecFormatError,
    load_preset,
    load_spec,
    piece_mesh,
    piece_parts,
    tower_parts,
)
from tower.geometry.meshes import convex_decomposition, write_meshes
from tower.pieces import Kind, Place

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=PRESETS)
def spec(request):
    return load_preset(request.param)


def _inside_convex(mesh, points, tol=1e-6):
    """(n,) bool: points inside a convex mesh (behind every face plane)."""
    d = np.einsum("fk,fpk->fp", mesh.face_normals, points[None] - mesh.triangles[:, None, 0])
    return np.all(d <= tol, axis=0)


def test_tower_parts_are_convex_watertight_solids(spec):
    parts = tower_parts(spec)
    names = [p.name for p in parts]
    assert len(names) == len(set(names))
    for family in ("tube-", "funnel-", "rib-", "floor1-", "floor2-", "ramp", "yard-"):
        assert any(n.startswith(family) for n in names), family
    for p in parts:
        assert p.mesh.is_watertight and p.mesh.is_convex and p.mesh.volume > 0, p.name
    lo, hi = spec.bounds
    for p in parts:
        assert np.all(p.mesh.bounds[0] >= lo - 1e-6) and np.all(p.mesh.bounds[1] <= hi + 1e-6)


def test_tower_parts_are_fresh_copies(spec):
    first = tower_parts(spec)[0]
    first.mesh.apply_translation([1000.0, 0, 0])
    assert tower_parts(spec)[0].mesh.bounds[1][0] < 1000.0


def test_floor_parts_cover_the_floor_except_the_holes(spec):
    parts = tower_parts(spec)
    for i, floor in enumerate(spec.floors):
        mine = [p.mesh for p in parts if p.name.startswith(f"floor{i + 1}-")]
        outline = Polygon(spec.floor_outline(i))
        holes = [Polygon(h) for h in spec.floor_holes(i)]
        solid = outline.difference(unary_union(holes))
        assert sum(m.volume for m in mine) == pytest.approx(solid.area * floor.thickness, rel=1e-6)
        # Points just under the top surface, mapped into the tower frame.
        rng = np.random.default_rng(i)
        a, b = spec.floor_half_length(i), spec.tube.depth / 2
        xy = rng.uniform([-a, -b], [a, b], size=(400, 2))
        local = np.c_[xy, np.full(len(xy), -floor.thickness / 2), np.ones(len(xy))]
        world = (spec.floor_transform(i) @ local.T).T[:, :3]
        covered = np.zeros(len(xy), dtype=int)
        for m in mine:
            covered += _inside_convex(m, world)
        in_hole = np.array([any(h.contains(Point(p)) for h in holes) for p in xy])
        assert np.all(covered[in_hole] == 0)
        assert np.all(covered[~in_hole] >= 1)


def test_every_hole_passes_the_largest_piece(spec):
    need = spec.largest_piece.passage
    for i in range(len(spec.floors)):
        for hole in spec.floor_holes(i):
            poly = Polygon(hole)
            x0, y0, x1, y1 = poly.bounds
            grid = np.stack(np.meshgrid(np.linspace(x0, x1, 61), np.linspace(y0, y1, 61)), -1)
            inside = [Point(p) for p in grid.reshape(-1, 2) if poly.contains(Point(p))]
            widest = 2 * max(poly.exterior.distance(p) for p in inside)
            assert widest >= need, (i, hole, widest, need)


def test_convex_decomposition_of_a_square_with_a_hole():
    outline = [(0, 0), (10, 0), (10, 10), (0, 10)]
    pieces = convex_decomposition(outline, [[(3, 3), (7, 3), (5, 7)]])
    total = sum(Polygon(p).area for p in pieces)
    assert total == pytest.approx(100 - 8)
    for p in pieces:
        poly = Polygon(p)
        assert poly.convex_hull.area == pytest.approx(poly.area)
        assert not poly.buffer(-1e-6).intersects(Polygon([(3, 3), (7, 3), (5, 7)]))


def test_piece_parts_are_convex_with_origin_at_centre_of_mass(spec):
    for kind, piece in spec.pieces.items():
        parts = piece_parts(piece)
        assert all(p.is_watertight and p.is_convex for p in parts), kind
        volume = sum(p.volume for p in parts)
        com = sum(p.volume * p.center_mass for p in parts) / volume
        assert np.allclose(com, 0.0, atol=1e-9)
        assert volume == pytest.approx(piece.volume, rel=0.08)  # polytopes vs round shapes
        diameter = pdist(np.vstack([p.vertices for p in parts])).max()
        assert piece.max_extent * 0.95 <= diameter <= piece.max_extent * (1 + 1e-9)
        visual = piece_mesh(piece)
        assert np.allclose(visual.bounds[0], np.min([p.bounds[0] for p in parts], axis=0))
        assert np.allclose(visual.bounds[1], np.max([p.bounds[1] for p in parts], axis=0))


def test_marrakesh_pieces():
    spec = load_preset("marrakesh")
    assert set(spec.pieces) == {Kind.KESHI, Kind.WATCHMAN, Kind.BRIGAND, Kind.EXPERT}
    keshi, pawn = spec.pieces[Kind.KESHI], spec.pieces[Kind.WATCHMAN]
    assert len(piece_parts(keshi)) == 1 and len(piece_parts(pawn)) == 2
    # an octagonal prism: 8 side faces + 2 caps, across-flats as built
    mesh = piece_parts(keshi)[0]
    assert len(mesh.vertices) == 16
    assert np.ptp(mesh.vertices[:, 0]) == pytest.approx(keshi.across_flats)
    assert pawn.max_extent > keshi.max_extent and pawn.passage > keshi.passage
    assert spec.pieces[Kind.EXPERT].volume > keshi.volume
    assert set(load_preset("queen-classic").pieces) == {Kind.CUBE}


def test_place_of(spec):
    t = spec.tube
    x = np.array([0.0, -t.width / 4, t.width / 4])
    above1 = spec.floor_surface_z(0, x) + 5
    above2 = spec.floor_surface_z(1, x) + 5
    points = [
        [0.0, 0.0, t.height + spec.funnel.height / 2],
        *[[xi, 0.0, zi] for xi, zi in zip(x, above1, strict=True)],
        *[[xi, 0.0, zi] for xi, zi in zip(x, above2, strict=True)],
        [0.0, 0.0, float(spec.ramp_surface_z(0.0)) + 3],
        [spec.exit_face + spec.courtyard.length / 2, 0.0, 5.0],
        [0.0, spec.courtyard.width / 2 - 5, 5.0],  # in the yard beside the tube
        [spec.exit_face + spec.courtyard.length + 50, 0.0, 5.0],  # beyond the front wall
        [0.0, 0.0, -30.0],  # under the base
        [0.0, 0.0, spec.funnel_top + 80.0],  # high above
    ]
    assert spec.place_of(np.array(points)) == [
        Place.FUNNEL,
        *[Place.FLOOR1] * 3,
        *[Place.FLOOR2] * 3,
        Place.RAMP,
        Place.OUT,
        Place.OUT,
        None,
        None,
        None,
    ]
    with pytest.raises(ValueError, match="shape"):
        spec.place_of(np.zeros((2, 2)))


def test_release_zone_is_above_the_funnel_opening(spec):
    c = spec.release_centre
    assert c.shape == (3,) and c[2] > spec.funnel_top
    assert 0 < spec.release_radius < min(spec.funnel.top_width, spec.funnel.top_depth) / 2
    lo, hi = spec.bounds
    assert spec.bounds.shape == (2, 3) and np.all(lo < c) and np.all(c < hi)


def test_assumptions_carry_ranges_and_hold(spec):
    a = spec.assumptions()
    assert "tube.width" in a and "floors.1.hole_scale" in a and "ramp.angle" in a
    assert len(a) == len(spec.ranges)
    for name, item in a.items():
        assert item.low <= item.value <= item.high, name
        assert item.unit in {"mm", "deg", "g", "1"} and item.note, name


def test_with_values_returns_a_revalidated_copy(spec):
    new = spec.with_values({"floors.0.hole_scale": 1.04, "ramp.angle": 32.0})
    assert new.floors[0].hole_scale == 1.04 and new.ramp.angle == 32.0
    assert spec.floors[0].hole_scale == 1.0 and new != spec
    big = max(Polygon(h).area for h in new.floor_holes(0))
    assert big == pytest.approx(max(Polygon(h).area for h in spec.floor_holes(0)) * 1.04**2)
    assert new.ramp_top > spec.ramp_top
    with pytest.raises(OutOfBoundsError):
        spec.with_values({"ramp.angle": 89.0})
    with pytest.raises(SpecFormatError):
        spec.with_values({"ramp.nope": 1.0})


def test_resolved_toml_round_trips(spec, tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(spec.to_toml())
    again = load_spec(path)
    assert again == spec and again.to_toml() == spec.to_toml()
    assert again.assumptions() == spec.assumptions()


def test_build_twice_gives_identical_bytes(spec, tmp_path):
    a = write_meshes(spec, tmp_path / "a")
    b = write_meshes(spec.with_values({}), tmp_path / "b")
    rel = [p.relative_to(tmp_path / "a") for p in a]
    assert rel == [p.relative_to(tmp_path / "b") for p in b]
    assert all((tmp_path / "a" / r).read_bytes() == (tmp_path / "b" / r).read_bytes() for r in rel)
    assert len(a) == 1 + len(tower_parts(spec)) + sum(
        len(piece_parts(p)) for p in spec.pieces.values()
    )


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_cli_build_reproduces_committed_meshes(tmp_path):
    main(["meshes", "build", "--out", str(tmp_path)])
    committed = ROOT / "meshes"
    for name in PRESETS:
        files = _tree(committed / name)
        assert files and files == _tree(tmp_path / name)
        _, mismatch, errors = filecmp.cmpfiles(
            committed / name, tmp_path / name, files, shallow=False
        )
        assert mismatch == [] and errors == []
    # a rebuild replaces the folder without leaving temporary folders behind
    main(["meshes", "build", "--preset", "marrakesh", "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(PRESETS)


def test_cli_show_writes_a_png(tmp_path):
    out = tmp_path / "pics" / "tower.png"
    main(["meshes", "show", "--preset", "queen-classic", "--out", str(out)])
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 600_000
    assert [p.name for p in out.parent.iterdir()] == ["tower.png"]


def test_floor_geometry_is_consistent(spec):
    for i, f in enumerate(spec.floors):
        lo, hi = spec.floor_z_range(i)
        assert hi - lo == pytest.approx(
            2 * spec.floor_half_length(i) * math.sin(math.radians(abs(f.tilt)))
            + f.thickness * math.cos(math.radians(f.tilt))
        )
        half = spec.floor_half_length(i)
        width = 2 * half * math.cos(math.radians(f.tilt)) + f.thickness * abs(
            math.sin(math.radians(f.tilt))
        )
        assert width == pytest.approx(spec.tube.width)


def test_each_assumption_may_move_to_either_end_of_its_range(spec):
    for name, a in spec.assumptions().items():
        for value in (a.low, a.high):
            moved = spec.with_values({name: value})  # raises if a rule breaks
            assert moved.assumptions()[name].value == value


def test_fitted_geometry_box_corners_are_valid(spec):
    """Calibration moves hole sizes, tilts and ribs together: every corner must build."""
    names = [
        k
        for k, a in spec.assumptions().items()
        if any(w in k for w in ("hole", "tilt", "rib")) and a.high > a.low
    ]
    ranges = spec.assumptions()
    for corner in itertools.product(*[(ranges[k].low, ranges[k].high) for k in names]):
        spec.with_values(dict(zip(names, corner, strict=True)))


@pytest.mark.parametrize("scale", [0.8537, 0.9291, 1.0419])
def test_floors_are_decomposed_exactly_at_odd_hole_scales(spec, scale):
    moved = spec.with_values(
        {"floors.0.hole_scale": scale, "floors.1.hole_scale": scale, "floors.0.tilt": 3.7}
    )
    parts = tower_parts(moved)
    for i, floor in enumerate(moved.floors):
        mine = [p.mesh for p in parts if p.name.startswith(f"floor{i + 1}-")]
        solid = Polygon(moved.floor_outline(i)).difference(
            unary_union([Polygon(h) for h in moved.floor_holes(i)])
        )
        assert all(m.is_convex and m.is_watertight for m in mine)
        assert sum(m.volume for m in mine) == pytest.approx(solid.area * floor.thickness, rel=1e-6)


def test_convex_decomposition_survives_rounding_noise():
    outline = [(-10, -10), (10, -10), (10, 10), (-10, 10)]
    noise = 1e-13
    holes = [
        [(1 + noise, 1), (8, 1), (8, 8), (1 + noise, 8)],
        [(-8, -6), (1, -6), (1 - noise, 0.5), (-8, 0.5)],
    ]
    pieces = [Polygon(p) for p in convex_decomposition(outline, holes)]
    assert sum(p.area for p in pieces) == pytest.approx(400 - 49 - 9 * 6.5, rel=1e-9)
    assert all(p.convex_hull.area == pytest.approx(p.area) for p in pieces)


def test_every_piece_shape_has_a_mesh_builder():
    # meshes dispatches on the shape name (it does not import spec at run time).
    from tower.geometry.meshes import _BUILDERS
    from tower.geometry.spec import PIECE_SHAPES

    assert set(_BUILDERS) == set(PIECE_SHAPES)
