"""Trimesh builders: the static tower as convex parts, the pieces, and a deterministic writer.

Physics loads every part as one convex collision shape, so every solid built here is a
convex hull: boxes for the tube and courtyard walls, slanted plates for the funnel, a wedge
for the ramp, and each floor split into convex prisms around its holes (vertical-strip
trapezoids, greedily merged while the union stays convex).

Examples
--------
>>> from tower.geometry import load_preset, tower_parts
>>> parts = tower_parts(load_preset("marrakesh"))
>>> all(p.mesh.is_watertight and p.mesh.is_convex for p in parts)
True
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import trimesh

from tower.geometry.data import CubePiece, OctagonalPrism, Pawn, PieceSpec, TowerData
from tower.geometry.errors import SolidError

#: Floor material between two holes narrower than this (mm) is not a solid.
MIN_WEB = 0.2
#: Segments of the round parts of a pawn (its body and head are polytopes).
PAWN_SEGMENTS = 12
#: Floor outlines and holes are snapped to this many decimals (mm) before decomposition.
SNAP_DIGITS = 6
#: Digits after the decimal point in written meshes (mm).
OBJ_DIGITS = 5


@dataclass(frozen=True)
class Part:
    """One convex, watertight solid of the static tower.

    Attributes
    ----------
    name : str
        File-friendly name, e.g. ``tube-back``, ``floor1-03``, ``yard-front``.
    mesh : trimesh.Trimesh
        The solid in the tower frame (mm).
    """

    name: str
    mesh: trimesh.Trimesh


# ------------------------------------------------------------------ primitives


def convex_solid(points: np.ndarray) -> trimesh.Trimesh:
    """The convex hull of ``points`` (n, 3) float as a watertight mesh."""
    return trimesh.convex.convex_hull(np.asarray(points, dtype=float))


def box(lo: tuple[float, float, float], hi: tuple[float, float, float]) -> trimesh.Trimesh:
    """An axis-aligned box between corners ``lo`` and ``hi`` (3,) float."""
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    return convex_solid(corners)


def prism(polygon: np.ndarray, z0: float, z1: float) -> trimesh.Trimesh:
    """Extrude a convex 2-D polygon (n, 2) float between heights ``z0`` and ``z1``."""
    pts = np.asarray(polygon, dtype=float)
    return convex_solid(np.vstack([np.c_[pts, np.full(len(pts), z)] for z in (z0, z1)]))


def regular_polygon(n: int, radius: float, phase: float = 0.0) -> np.ndarray:
    """(n, 2) float: vertices of a regular n-gon of circumradius ``radius``."""
    a = phase + 2 * np.pi * np.arange(n) / n
    return radius * np.c_[np.cos(a), np.sin(a)]


def convex_decomposition(outline, holes) -> list[np.ndarray]:
    """Split a polygon with holes into convex polygons.

    Parameters
    ----------
    outline : (n, 2) float
        The outer boundary.
    holes : sequence of (m, 2) float
        Disjoint holes inside ``outline``.

    Returns
    -------
    list of (k, 2) float
        Convex polygons (counter-clockwise, no repeated closing point) whose union is the
        outline minus the holes. Vertical strips between consecutive vertex x-coordinates
        cut the region into trapezoids, which are then merged while their union is convex.

    Examples
    --------
    >>> sq = [(-2, -2), (2, -2), (2, 2), (-2, 2)]
    >>> len(convex_decomposition(sq, [[(-1, -1), (1, -1), (1, 1), (-1, 1)]]))
    4
    """
    from shapely.geometry import Polygon
    from shapely.geometry import box as shapely_box
    from shapely.ops import unary_union

    def snap(points) -> np.ndarray:
        return np.round(np.asarray(points, dtype=float), SNAP_DIGITS) + 0.0

    region = Polygon(snap(outline))
    if holes:
        region = region.difference(unary_union([Polygon(snap(h)) for h in holes]))
    rings = [region.exterior, *region.interiors]
    xs = np.unique(np.concatenate([np.asarray(r.coords)[:, 0] for r in rings]))
    y0, y1 = region.bounds[1] - 1.0, region.bounds[3] + 1.0
    pieces = []
    for a, b in pairwise(xs):
        cut = region.intersection(shapely_box(a, y0, b, y1))
        for g in getattr(cut, "geoms", [cut]):
            if g.geom_type != "Polygon" or g.area <= 0:
                continue
            # Strip pieces are trapezoids, unless two of them touch at a point; those
            # are split into triangles, which the merging below joins again.
            pieces.extend([g] if _is_convex(g) else _triangles(g))
    pieces.sort(key=lambda g: (round(g.bounds[0], 9), round(g.bounds[1], 9)))
    while _merge_one_pair(pieces):
        pass
    return [np.asarray(g.convex_hull.exterior.coords)[:-1] for g in pieces]


def _is_convex(polygon) -> bool:
    """Whether a shapely polygon is convex (to a relative area tolerance)."""
    return polygon.convex_hull.area - polygon.area <= 1e-9 * max(1.0, polygon.area)


def _triangles(polygon) -> list:
    """Triangulate a shapely polygon (with holes) by ear clipping."""
    import mapbox_earcut
    from shapely.geometry import Polygon

    rings = [np.asarray(r.coords)[:-1] for r in (polygon.exterior, *polygon.interiors)]
    ends = np.cumsum([len(r) for r in rings]).astype(np.uint32)
    vertices = np.vstack(rings)
    tri = mapbox_earcut.triangulate_float64(vertices, ends).reshape(-1, 3)
    out = [Polygon(vertices[t]) for t in tri]
    return [t for t in out if t.area > 0]


def _merge_one_pair(pieces: list) -> bool:
    """Merge the first pair of touching polygons whose union is convex; False if none."""
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            if pieces[i].intersection(pieces[j]).length <= 1e-9:
                continue
            union = pieces[i].union(pieces[j])
            if union.geom_type == "Polygon" and _is_convex(union):
                pieces[i] = union.convex_hull
                del pieces[j]
                return True
    return False


# ------------------------------------------------------------------ the tower


def _tube_parts(spec: TowerData) -> list[Part]:
    t = spec.tube
    w, d, h, th = t.width / 2, t.depth / 2, t.height, t.wall
    return [
        Part("tube-back", box((-w - th, -d, 0.0), (-w, d, h))),
        Part("tube-exit", box((w, -d, spec.ramp.exit_height), (w + th, d, h))),
        Part("tube-left", box((-w - th, d, 0.0), (w + th, d + th, h))),
        Part("tube-right", box((-w - th, -d - th, 0.0), (w + th, -d, h))),
    ]


def _funnel_parts(spec: TowerData) -> list[Part]:
    t, f = spec.tube, spec.funnel
    h0, h1 = t.height, spec.funnel_top
    parts = []
    # One trapezoidal plate per side: (axis, sign); inner corners, then offset outwards.
    for axis, sign, label in ((0, 1, "px"), (0, -1, "nx"), (1, 1, "py"), (1, -1, "ny")):
        half0 = (t.width, t.depth)[axis] / 2
        half1 = (f.top_width, f.top_depth)[axis] / 2
        side0 = (t.depth, t.width)[axis] / 2
        side1 = (f.top_depth, f.top_width)[axis] / 2
        inner = []
        for along, across, z in ((half0, side0, h0), (half1, side1, h1)):
            for s in (-1, 1):
                p = [0.0, 0.0, z]
                p[axis], p[1 - axis] = sign * along, s * across
                inner.append(p)
        inner = np.array(inner)
        normal = np.zeros(3)
        normal[axis] = sign * (h1 - h0)
        normal[2] = -(half1 - half0)
        normal /= np.linalg.norm(normal)
        solid = convex_solid(np.vstack([inner, inner + f.wall * normal]))
        parts.append(Part(f"funnel-{label}", solid))
    r, z0, z1 = f.rib_thickness / 2, h0, h0 + f.rib_height
    parts.append(Part("rib-x", box((-t.width / 2, -r, z0), (t.width / 2, r, z1))))
    parts.append(Part("rib-y", box((-r, -t.depth / 2, z0), (r, t.depth / 2, z1))))
    return parts


def _floor_parts(spec: TowerData) -> list[Part]:
    parts = []
    for i, floor in enumerate(spec.floors):
        m = spec.floor_transform(i)
        pieces = convex_decomposition(spec.floor_outline(i), spec.floor_holes(i))
        for j, poly in enumerate(pieces):
            mesh = prism(poly, -floor.thickness, 0.0)
            mesh.apply_transform(m)
            parts.append(Part(f"floor{i + 1}-{j:02d}", mesh))
    return parts


def _ramp_part(spec: TowerData) -> Part:
    w, d = spec.tube.width / 2, spec.tube.depth / 2
    pts = [
        (x, y, z)
        for y in (-d, d)
        for x, z in ((-w, 0.0), (w, 0.0), (w, spec.ramp.low), (-w, spec.ramp_top))
    ]
    return Part("ramp", convex_solid(pts))


def _courtyard_parts(spec: TowerData) -> list[Part]:
    c, t = spec.courtyard, spec.tube
    (back, y0, _), (front, y1, _) = spec.courtyard_box
    cw, wh = c.wall, c.wall_height
    parts = [
        Part("yard-floor", box((back - cw, y0 - cw, -c.floor), (front + cw, y1 + cw, 0.0))),
        Part("yard-front", box((front, y0 - cw, 0.0), (front + cw, y1 + cw, wh))),
        Part("yard-left", box((back - cw, y1, 0.0), (front, y1 + cw, wh))),
        Part("yard-right", box((back - cw, y0 - cw, 0.0), (front, y0, wh))),
    ]
    tube_side = t.depth / 2 + t.wall
    if y1 > tube_side:
        parts.append(Part("yard-back-left", box((back - cw, tube_side, 0.0), (back, y1, wh))))
        parts.append(Part("yard-back-right", box((back - cw, y0, 0.0), (back, -tube_side, wh))))
    return parts


def build_tower_parts(spec: TowerData) -> list[Part]:
    """Build the static tower's convex parts (unchecked; see :func:`tower_parts`)."""
    return [
        *_tube_parts(spec),
        *_funnel_parts(spec),
        *_floor_parts(spec),
        _ramp_part(spec),
        *_courtyard_parts(spec),
    ]


def tower_parts(spec: TowerData) -> list[Part]:
    """The static tower as convex, watertight parts in the tower frame (mm).

    Returns
    -------
    list of Part
        Tube walls, funnel panels and ribs, floor pieces, ramp, courtyard floor and walls.
        Fresh copies: callers may transform them.
    """
    return [Part(p.name, p.mesh.copy()) for p in _built_parts(spec)]


#: id of a live spec -> its built parts (specs are immutable, so one build serves every
#: call; an entry is dropped when its spec is garbage-collected, before the id is reused).
_PARTS: dict[int, tuple[Part, ...]] = {}


def _built_parts(spec: TowerData) -> tuple[Part, ...]:
    """The parts of ``spec``, built once per spec object (callers must not mutate them)."""
    key = id(spec)
    parts = _PARTS.get(key)
    if parts is None:
        parts = _PARTS[key] = tuple(build_tower_parts(spec))
        weakref.finalize(spec, _PARTS.pop, key, None)
    return parts


# ------------------------------------------------------------------ pieces


def _pawn_parts(piece: Pawn) -> list[trimesh.Trimesh]:
    n = PAWN_SEGMENTS
    hb = piece.body_height
    body = convex_solid(
        np.vstack(
            [
                np.c_[regular_polygon(n, piece.base_diameter / 2), np.zeros(n)],
                np.c_[regular_polygon(n, piece.top_diameter / 2), np.full(n, hb)],
            ]
        )
    )
    r, zc = piece.head_diameter / 2, hb + piece.head_cut
    lat0 = math.asin(-piece.head_cut / r)
    rings = [
        np.c_[regular_polygon(n, r * math.cos(a)), np.full(n, zc + r * math.sin(a))]
        for a in np.linspace(lat0, math.pi / 2, 5)[:-1]
    ]
    head = convex_solid(np.vstack([*rings, [[0.0, 0.0, zc + r]]]))
    return [body, head]


def _prism_parts(piece: OctagonalPrism) -> list[trimesh.Trimesh]:
    ring = regular_polygon(8, piece.passage / 2, math.pi / 8)
    return [prism(ring, -piece.height / 2, piece.height / 2)]


def _cube_parts(piece: CubePiece) -> list[trimesh.Trimesh]:
    s = piece.size / 2
    return [box((-s, -s, -s), (s, s, s))]


#: piece shape (``PieceSpec.SHAPE``) -> its mesh builder.
_BUILDERS = {"octagonal-prism": _prism_parts, "cube": _cube_parts, "pawn": _pawn_parts}


def _raw_piece_parts(piece: PieceSpec) -> list[trimesh.Trimesh]:
    build = _BUILDERS.get(piece.SHAPE)
    if build is None:
        raise TypeError(f"no mesh builder for {type(piece).__name__}")
    return build(piece)


def piece_parts(piece: PieceSpec) -> list[trimesh.Trimesh]:
    """Convex parts of a piece in its body frame, origin at the centre of mass.

    Keshis, experts and cubes are one convex part. A pawn is two: a frustum body and a
    ball head cut flat where it sits on the body (both 12-sided polytopes).

    >>> from tower.geometry import load_preset
    >>> from tower.pieces import Kind
    >>> parts = piece_parts(load_preset("marrakesh").pieces[Kind.WATCHMAN])
    >>> len(parts), all(p.is_convex for p in parts)
    (2, True)
    """
    parts = _raw_piece_parts(piece)
    volume = sum(p.volume for p in parts)
    com = sum(p.volume * p.center_mass for p in parts) / volume
    for p in parts:
        p.apply_translation(-com)
    return parts


def piece_mesh(piece: PieceSpec) -> trimesh.Trimesh:
    """Visual mesh of a piece (its convex parts together), same frame as :func:`piece_parts`."""
    return trimesh.util.concatenate(piece_parts(piece))


# ------------------------------------------------------------------ checks


def _field_of(part_name: str) -> str:
    head = part_name.split("-")[0]
    if head.startswith("floor"):
        return f"floors.{int(head[5:]) - 1}"
    return {
        "tube": "tube",
        "funnel": "funnel",
        "rib": "funnel",
        "ramp": "ramp",
        "yard": "courtyard",
    }.get(head, f"pieces.{head}")


def _is_convex_mesh(mesh: trimesh.Trimesh, tol: float = 1e-6) -> bool:
    """Whether every vertex lies behind every face plane (a closed mesh is then convex)."""
    offsets = np.einsum("ij,ij->i", mesh.face_normals, mesh.triangles[:, 0])
    return bool(np.all(mesh.vertices @ mesh.face_normals.T <= offsets + tol))


def _check_solid(spec: TowerData, name: str, mesh: trimesh.Trimesh) -> None:
    problem = None
    if not mesh.is_watertight:
        problem = "is not watertight"
    elif not _is_convex_mesh(mesh):
        problem = "is not convex"
    elif not mesh.volume > 0:
        problem = f"has volume {mesh.volume:.4g} mm^3"
    if problem is not None:
        raise SolidError(
            spec.source,
            f"part {name} {problem}: not a solid (needs watertight, convex, positive volume)",
            field=_field_of(name),
        )


def _check_webs(spec: TowerData) -> None:
    """The floor material between two holes is at least MIN_WEB wide."""
    from shapely.geometry import Polygon

    for i in range(len(spec.floors)):
        holes = [Polygon(h) for h in spec.floor_holes(i)]
        for k, hole in enumerate(holes):
            for j in range(k):
                web = hole.distance(holes[j])
                if web < MIN_WEB:
                    shown = [list(p) for p in spec.floors[i].holes[k]]
                    raise SolidError(
                        spec.source,
                        f"value {shown}: the floor between holes {j} and {k} is {web:.4g} mm "
                        f"wide, not a solid (needs >= {MIN_WEB} mm)",
                        field=f"floors.{i}.holes.{k}",
                    )


def check_solids(spec: TowerData) -> None:
    """Floors have no web thinner than MIN_WEB between holes, and every tower part and
    piece part is a convex watertight solid of positive volume."""
    _check_webs(spec)
    for part in _built_parts(spec):
        _check_solid(spec, part.name, part.mesh)
    for kind, piece in sorted(spec.pieces.items()):
        for j, mesh in enumerate(piece_parts(piece)):
            _check_solid(spec, f"{kind.value}-{j}", mesh)


# ------------------------------------------------------------------ writing


def obj_text(mesh: trimesh.Trimesh, title: str) -> str:
    """Deterministic Wavefront OBJ text of ``mesh`` (coordinates rounded to OBJ_DIGITS)."""
    v = np.round(mesh.vertices, OBJ_DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0
    lines = [f"# {title}", f"# {len(v)} vertices, {len(mesh.faces)} faces, mm"]
    lines += [f"v {x:.{OBJ_DIGITS}f} {y:.{OBJ_DIGITS}f} {z:.{OBJ_DIGITS}f}" for x, y, z in v]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in mesh.faces]
    return "\n".join(lines) + "\n"


def write_meshes(spec: TowerData, directory: Path) -> list[Path]:
    """Write ``spec.toml``, ``tower/<part>.obj`` and ``pieces/<kind>-<i>.obj`` into ``directory``.

    The files are byte-identical for equal specs. Returns the paths written, sorted.
    """
    directory = Path(directory)
    written = []
    (directory / "tower").mkdir(parents=True, exist_ok=True)
    (directory / "pieces").mkdir(exist_ok=True)
    spec_path = directory / "spec.toml"
    spec_path.write_text(spec.to_toml(), encoding="utf-8", newline="\n")
    written.append(spec_path)
    for part in _built_parts(spec):
        path = directory / "tower" / f"{part.name}.obj"
        path.write_text(obj_text(part.mesh, f"{spec.name} {part.name}"), newline="\n")
        written.append(path)
    for kind, piece in sorted(spec.pieces.items()):
        for j, mesh in enumerate(piece_parts(piece)):
            path = directory / "pieces" / f"{kind.value}-{j}.obj"
            path.write_text(obj_text(mesh, f"{spec.name} {kind.value} part {j}"), newline="\n")
            written.append(path)
    return sorted(written)
