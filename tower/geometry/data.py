"""The spec data types: tower sections, piece shapes and :class:`TowerData`, as plain data.

These are the numbers a spec file holds and the geometry derived from them (outlines,
holes, transforms, bounds), plus their TOML text. Nothing here reads a file or validates:
:mod:`tower.geometry.spec` loads and checks specs, and :mod:`tower.geometry.meshes` builds
solids from these types. Both import this module; it imports neither, so the layers run
one way: ``data`` <- ``meshes`` <- ``spec``. Every name is re-exported by
:mod:`tower.geometry.spec`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np

from tower.pieces import Kind, Place

#: The schema tag every spec file starts with.
SCHEMA = "tower.spec/1"

#: A hole must admit a circle this much wider than the largest piece's passage width.
HOLE_CLEARANCE = 1.05
#: Smallest rim (mm) between a hole and the edge of its floor (the tube wall).
MIN_RIM = 1.0
#: Tolerance (mm) of the placement checks.
TOL = 1e-6

Polygon = tuple[tuple[float, float], ...]


# ------------------------------------------------------------------ assumptions


@dataclass(frozen=True, slots=True)
class Assumption:
    """One assumed number with its plausible range.

    Parameters
    ----------
    value : float
        The value used.
    low, high : float
        The plausible range (inclusive); calibration searches inside it.
    unit : str
        ``mm``, ``deg``, ``g`` or ``1`` (dimensionless).
    note : str
        What the number means.
    """

    value: float
    low: float
    high: float
    unit: str
    note: str


def _num(unit: str, note: str, *, positive: bool = True) -> Any:
    """Declare an assumed numeric field of a spec section."""
    return field(metadata={"unit": unit, "note": note, "positive": positive})


def _polygons(note: str) -> Any:
    """Declare a field holding a list of 2-D polygons (an assumed layout)."""
    return field(metadata={"polygons": True, "note": note})


# ------------------------------------------------------------------ tower sections


@dataclass(frozen=True)
class Tube:
    """The vertical square tube; its inner box is ``width x depth x height``."""

    width: float = _num("mm", "inner width of the tube along x (the exit side is +x)")
    depth: float = _num("mm", "inner depth of the tube along y")
    height: float = _num("mm", "height of the tube's top edge above the courtyard floor")
    wall: float = _num("mm", "thickness of the tube walls")


@dataclass(frozen=True)
class Funnel:
    """A truncated square pyramid on the tube, with two ribs crossing over its mouth."""

    height: float = _num("mm", "height of the funnel above the tube's top edge")
    top_width: float = _num("mm", "inner width of the funnel's upper opening (x)")
    top_depth: float = _num("mm", "inner depth of the funnel's upper opening (y)")
    wall: float = _num("mm", "thickness of the funnel panels")
    rib_thickness: float = _num("mm", "thickness of each of the two crossing ribs")
    rib_height: float = _num("mm", "height of the ribs, standing on the funnel's mouth")


@dataclass(frozen=True)
class Floor:
    """An intermediate floor: a plate across the tube with holes, optionally tilted.

    Floor coordinates are (x, y) on the plate's top surface, origin on the tube axis.
    A positive tilt rotates the plate about the y axis so that its +x side is lower.
    """

    z: float = _num("mm", "height of the floor's top surface at the tube axis")
    thickness: float = _num("mm", "thickness of the floor plate")
    tilt: float = _num("deg", "tilt about the y axis; positive lowers the +x side", positive=False)
    hole_scale: float = _num("1", "scale of every hole about its own centroid")
    holes: tuple[Polygon, ...] = _polygons("hole outlines in floor coordinates (mm)")


@dataclass(frozen=True)
class Ramp:
    """The exit ramp: a wedge filling the bottom of the tube, falling towards +x."""

    angle: float = _num("deg", "inclination of the ramp")
    low: float = _num("mm", "height of the ramp's lower edge (at the exit) above the courtyard")
    exit_height: float = _num("mm", "height of the opening in the +x tube wall")


@dataclass(frozen=True)
class Courtyard:
    """The base: a floor under the tube and in front of the exit, enclosed by walls."""

    length: float = _num("mm", "inner length from the tube's exit face to the front wall (x)")
    width: float = _num("mm", "inner width between the side walls (y)")
    wall_height: float = _num("mm", "height of the courtyard walls above its floor")
    wall: float = _num("mm", "thickness of the courtyard walls")
    floor: float = _num("mm", "thickness of the courtyard floor (below z = 0)")


@dataclass(frozen=True)
class Release:
    """Where throws are released."""

    height: float = _num("mm", "release height above the funnel's upper opening")


# ------------------------------------------------------------------ pieces


@dataclass(frozen=True)
class PieceSpec:
    """A kind of piece: its shape, size and mass. Subclasses give the shape.

    Attributes
    ----------
    kind : Kind
        Which pieces (of any colour) have this shape.
    mass_g : float
        Mass in grams.
    """

    SHAPE: ClassVar[str] = ""

    kind: Kind = field(metadata={"kind": True})
    mass_g: float = _num("g", "mass of one piece")

    @property
    def max_extent(self) -> float:
        """Largest distance (mm) between two points of the piece."""
        raise NotImplementedError

    @property
    def passage(self) -> float:
        """Diameter (mm) of the smallest round hole the piece passes in its best pose."""
        raise NotImplementedError

    @property
    def volume(self) -> float:
        """Volume in mm^3."""
        raise NotImplementedError


#: cos(22.5 deg): across-flats / across-corners of a regular octagon.
_OCT = math.cos(math.pi / 8)


@dataclass(frozen=True)
class OctagonalPrism(PieceSpec):
    """A keshi or an expert keshi: a regular octagonal prism standing on a flat face.

    >>> k = OctagonalPrism(Kind.KESHI, 0.9, across_flats=11.0, height=13.0)
    >>> round(k.volume), round(k.passage, 2)
    (1303, 11.91)
    """

    SHAPE: ClassVar[str] = "octagonal-prism"

    across_flats: float = _num("mm", "width across two parallel flat sides")
    height: float = _num("mm", "height of the prism")

    @property
    def max_extent(self) -> float:
        return math.hypot(self.across_flats / _OCT, self.height)

    @property
    def passage(self) -> float:
        return self.across_flats / _OCT

    @property
    def volume(self) -> float:
        return 2.0 * (math.sqrt(2.0) - 1.0) * self.across_flats**2 * self.height


@dataclass(frozen=True)
class Pawn(PieceSpec):
    """A watchman or brigand: a frustum body with a ball head (assumed shape).

    The head is a sphere of ``head_diameter`` cut flat where it sits on the body's top
    face (the cut circle has the body's top diameter, or 80 % of the head if smaller).
    """

    SHAPE: ClassVar[str] = "pawn"

    base_diameter: float = _num("mm", "diameter of the body's foot")
    top_diameter: float = _num("mm", "diameter of the body's top (the neck)")
    body_height: float = _num("mm", "height of the frustum body")
    head_diameter: float = _num("mm", "diameter of the ball head")

    @property
    def head_cut(self) -> float:
        """Depth (mm) of the head's centre above the body's top face."""
        r = self.head_diameter / 2
        rc = min(self.top_diameter / 2, 0.8 * r)
        return math.sqrt(r * r - rc * rc)

    @property
    def total_height(self) -> float:
        """Height (mm) from the foot to the top of the head."""
        return self.body_height + self.head_cut + self.head_diameter / 2

    @property
    def max_extent(self) -> float:
        # the farthest pairs: across the foot, or from the foot's rim over the head
        rim_to_head = math.hypot(self.base_diameter / 2, self.body_height + self.head_cut)
        return max(self.base_diameter, rim_to_head + self.head_diameter / 2)

    @property
    def passage(self) -> float:
        return max(self.base_diameter, self.top_diameter, self.head_diameter)

    @property
    def volume(self) -> float:
        big, small, h = self.base_diameter / 2, self.top_diameter / 2, self.body_height
        body = math.pi * h / 3 * (big * big + big * small + small * small)
        r = self.head_diameter / 2
        cap = r - self.head_cut  # the spherical cap cut away under the head
        return body + 4 / 3 * math.pi * r**3 - math.pi * cap * cap * (3 * r - cap) / 3


@dataclass(frozen=True)
class CubePiece(PieceSpec):
    """The wooden cube of the older Queen tower games.

    >>> CubePiece(Kind.CUBE, 0.65, size=10.0).volume
    1000.0
    """

    SHAPE: ClassVar[str] = "cube"

    size: float = _num("mm", "edge length")

    @property
    def max_extent(self) -> float:
        return self.size * math.sqrt(3.0)

    @property
    def passage(self) -> float:
        return self.size * math.sqrt(2.0)

    @property
    def volume(self) -> float:
        return self.size**3


#: shape name in a spec file -> PieceSpec subclass.
PIECE_SHAPES: dict[str, type[PieceSpec]] = {
    cls.SHAPE: cls for cls in (OctagonalPrism, Pawn, CubePiece)
}

#: Top-level sections of a spec file and their types, in file order.
SECTIONS: dict[str, type] = {
    "tube": Tube,
    "funnel": Funnel,
    "ramp": Ramp,
    "courtyard": Courtyard,
    "release": Release,
}

#: The number of intermediate floors of every supported tower (Place.FLOOR1, FLOOR2).
N_FLOORS = 2


# ------------------------------------------------------------------ the tower spec


@dataclass(frozen=True, eq=False)
class TowerData:
    """A tower with its pieces, as plain data: dimensions, derived geometry, TOML text.

    Nothing here validates; :class:`tower.geometry.spec.TowerSpec` is the validated
    subclass that :func:`~tower.geometry.spec.load_spec` and
    :func:`~tower.geometry.spec.load_preset` return.

    Attributes
    ----------
    name : str
        Preset or spec name (used for output folders).
    description : str
        One line saying what tower this is.
    tube, funnel, ramp, courtyard, release : section dataclasses
    floors : tuple of Floor
        Top to bottom (``floors[0]`` is :data:`Place.FLOOR1`).
    pieces : dict of Kind to PieceSpec
        The pieces this tower is used with.
    ranges : dict of str to (low, high)
        The plausible range of every assumed number, by dotted field name.
    source : str
        The file the spec was read from.
    steps_per_second : int or None
        Simulation steps per second this tower needs, where the physics' default time
        step is too coarse for it (``None``: the default). Not a dimension: a numerical
        setting, kept with the tower it was found for.
    """

    name: str
    description: str
    tube: Tube
    funnel: Funnel
    floors: tuple[Floor, ...]
    ramp: Ramp
    courtyard: Courtyard
    release: Release
    pieces: dict[Kind, PieceSpec]
    ranges: Mapping[str, tuple[float, float]] = field(repr=False)
    source: str = field(default="<memory>", repr=False)
    steps_per_second: int | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TowerData):
            return NotImplemented
        return self.to_toml() == other.to_toml()

    __hash__ = None  # type: ignore[assignment]

    # ---------------------------------------------------------------- derived numbers

    @property
    def largest_piece(self) -> PieceSpec:
        """The piece with the widest passage (ties: the longest)."""
        return max(self.pieces.values(), key=lambda p: (p.passage, p.max_extent, p.kind.value))

    @property
    def clearance(self) -> float:
        """Vertical gap (mm) a level needs so the largest piece fits in any pose."""
        return max(p.max_extent for p in self.pieces.values())

    def floor_half_length(self, i: int) -> float:
        """Half-length (mm) of floor ``i`` along its tilted x axis: it spans the tube."""
        f = self.floors[i]
        t = math.radians(abs(f.tilt))
        return (self.tube.width - f.thickness * math.sin(t)) / (2 * math.cos(t))

    def floor_outline(self, i: int) -> Polygon:
        """Outline of floor ``i`` in floor coordinates, counter-clockwise."""
        a, b = self.floor_half_length(i), self.tube.depth / 2
        return ((-a, -b), (a, -b), (a, b), (-a, b))

    def floor_holes(self, i: int) -> tuple[Polygon, ...]:
        """Holes of floor ``i`` after ``hole_scale``, in floor coordinates."""
        f = self.floors[i]
        out = []
        for hole in f.holes:
            pts = np.asarray(hole, dtype=float)
            c = _polygon_centroid(pts)
            out.append(tuple(map(tuple, (c + (pts - c) * f.hole_scale).tolist())))
        return tuple(out)

    def floor_transform(self, i: int) -> np.ndarray:
        """(4, 4) float: floor coordinates (top surface at z = 0) to the tower frame."""
        f = self.floors[i]
        t = math.radians(f.tilt)
        c, s = math.cos(t), math.sin(t)
        m = np.eye(4)
        m[:3, :3] = [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
        m[2, 3] = f.z
        return m

    def floor_z_range(self, i: int) -> tuple[float, float]:
        """Lowest and highest z (mm) of floor ``i``'s plate."""
        a, th = self.floor_half_length(i), self.floors[i].thickness
        corners = np.array([[x, 0.0, z, 1.0] for x in (-a, a) for z in (-th, 0.0)])
        zs = (self.floor_transform(i) @ corners.T)[2]
        return float(zs.min()), float(zs.max())

    def floor_surface_z(self, i: int, x: np.ndarray) -> np.ndarray:
        """Height (mm) of floor ``i``'s top surface above tower-frame ``x`` (n,) float."""
        f = self.floors[i]
        return f.z - np.asarray(x, dtype=float) * math.tan(math.radians(f.tilt))

    @property
    def ramp_top(self) -> float:
        """Height (mm) of the ramp's upper edge, at the -x tube wall."""
        return self.ramp.low + self.tube.width * math.tan(math.radians(self.ramp.angle))

    def ramp_surface_z(self, x: np.ndarray) -> np.ndarray:
        """Height (mm) of the ramp surface above tower-frame ``x`` (n,) float."""
        slope = math.tan(math.radians(self.ramp.angle))
        return self.ramp.low + (self.tube.width / 2 - np.asarray(x, dtype=float)) * slope

    @property
    def funnel_top(self) -> float:
        """Height (mm) of the funnel's upper opening."""
        return self.tube.height + self.funnel.height

    def funnel_half_size(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inner half-width and half-depth (mm) of the funnel at heights ``z`` (n,)."""
        u = (np.asarray(z, dtype=float) - self.tube.height) / self.funnel.height
        hw = self.tube.width / 2 + u * (self.funnel.top_width - self.tube.width) / 2
        hd = self.tube.depth / 2 + u * (self.funnel.top_depth - self.tube.depth) / 2
        return hw, hd

    @property
    def exit_face(self) -> float:
        """x (mm) of the outer face of the tube's exit wall."""
        return self.tube.width / 2 + self.tube.wall

    @property
    def courtyard_box(self) -> np.ndarray:
        """(2, 3) float: the courtyard's inner space (x, y, z), up to the tube top."""
        back = -self.tube.width / 2 - self.tube.wall
        front = self.exit_face + self.courtyard.length
        half = self.courtyard.width / 2
        return np.array([[back, -half, 0.0], [front, half, self.tube.height]])

    @property
    def release_centre(self) -> np.ndarray:
        """(3,) float: centre of the release zone, above the funnel's opening."""
        return np.array([0.0, 0.0, self.funnel_top + self.release.height])

    @property
    def release_radius(self) -> float:
        """Horizontal radius (mm) of the funnel opening usable for releases."""
        half = min(self.funnel.top_width, self.funnel.top_depth) / 2
        return half - self.clearance / 2

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) float: axis-aligned box of tower, courtyard and release zone."""
        box = self.courtyard_box
        w = self.courtyard.wall
        hw = max(self.funnel.top_width, self.tube.width) / 2 + self.funnel.wall + self.tube.wall
        hd = max(self.funnel.top_depth, self.tube.depth) / 2 + self.funnel.wall + self.tube.wall
        lo = [min(box[0, 0] - w, -hw), min(box[0, 1] - w, -hd), -self.courtyard.floor]
        top = self.release_centre[2] + self.clearance
        hi = [max(box[1, 0] + w, hw), max(box[1, 1] + w, hd), top]
        return np.array([lo, hi], dtype=float)

    # ---------------------------------------------------------------- places

    def place_of(self, points: np.ndarray) -> list[Place | None]:
        """Where each point is: a place inside the tower, OUT, or None (escaped).

        Parameters
        ----------
        points : (n, 3) float
            Positions in the tower frame (mm), usually pieces' centres of mass.

        Returns
        -------
        list of Place or None
            FUNNEL above the tube top inside the funnel; FLOOR1 / FLOOR2 / RAMP inside the
            tube above floor 1 / above floor 2 / below floor 2; OUT in the courtyard;
            None anywhere else.

        Examples
        --------
        >>> from tower.geometry import load_preset
        >>> spec = load_preset("marrakesh")
        >>> [str(p) for p in spec.place_of([[0, 0, spec.tube.height + 5], [0, 0, 1.0]])]
        ['funnel', 'ramp']
        """
        p = np.atleast_2d(np.asarray(points, dtype=float))
        if p.ndim != 2 or p.shape[1] != 3:
            raise ValueError(f"points must have shape (n, 3), got {np.shape(points)}")
        # the few numbers that depend on a point's height or x, for all points at once;
        # the tests themselves run point by point, stopping at the first that decides
        # (a physics throw asks about a handful of points many times)
        x, _, z = p.T
        half_w, half_d = (v.tolist() for v in self.funnel_half_size(z))
        floor1 = (self.floor_surface_z(0, x) - self.floors[0].thickness).tolist()
        floor2 = (self.floor_surface_z(1, x) - self.floors[1].thickness).tolist()
        t = self.tube
        tube_w, tube_d, fw = t.width / 2, t.depth / 2, self.funnel.wall + TOL
        funnel_top = self.funnel_top + fw
        (x0, y0, z0), (x1, y1, z1) = self.courtyard_box.tolist()
        z0 -= TOL
        out: list[Place | None] = []
        for k, (x, y, z) in enumerate(p.tolist()):
            if abs(x) <= tube_w and abs(y) <= tube_d and -TOL <= z < t.height:
                out.append(
                    Place.FLOOR1
                    if z >= floor1[k]
                    else Place.FLOOR2
                    if z >= floor2[k]
                    else Place.RAMP
                )
            elif (
                t.height <= z <= funnel_top
                and abs(x) <= half_w[k] + fw
                and abs(y) <= half_d[k] + fw
            ):
                out.append(Place.FUNNEL)
            elif x0 <= x <= x1 and y0 <= y <= y1 and z0 <= z <= z1:
                out.append(Place.OUT)
            else:
                out.append(None)
        return out

    # ---------------------------------------------------------------- assumptions

    def _numbers(self) -> Iterator[tuple[str, float, dict]]:
        """(dotted name, value, field metadata) of every assumed number, in file order."""
        for section, obj in self._sections():
            for f in fields(obj):
                if "unit" in f.metadata:
                    yield f"{section}.{f.name}", getattr(obj, f.name), f.metadata

    def _sections(self) -> Iterator[tuple[str, Any]]:
        for name in ("tube", "funnel"):
            yield name, getattr(self, name)
        for i, floor in enumerate(self.floors):
            yield f"floors.{i}", floor
        for name in ("ramp", "courtyard", "release"):
            yield name, getattr(self, name)
        for kind in sorted(self.pieces):
            yield f"pieces.{kind.value}", self.pieces[kind]

    def assumptions(self) -> dict[str, Assumption]:
        """Every assumed number by dotted field name, with its range, unit and meaning.

        >>> from tower.geometry import load_preset
        >>> a = load_preset("marrakesh").assumptions()["floors.0.hole_scale"]
        >>> a.low <= a.value <= a.high
        True
        """
        return {
            name: Assumption(value, *self.ranges[name], meta["unit"], meta["note"])
            for name, value, meta in self._numbers()
        }

    # ---------------------------------------------------------------- serialisation

    def to_raw(self) -> dict[str, Any]:
        """The spec as the nested dict a TOML file parses to (numbers as inline tables)."""

        def section(prefix: str, obj: Any) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for f in fields(obj):
                value = getattr(obj, f.name)
                if "unit" in f.metadata:
                    low, high = self.ranges[f"{prefix}.{f.name}"]
                    out[f.name] = {"value": value, "low": low, "high": high}
                elif "polygons" in f.metadata:
                    out[f.name] = [[list(pt) for pt in poly] for poly in value]
            return out

        raw: dict[str, Any] = {"schema": SCHEMA, "name": self.name, "description": self.description}
        if self.steps_per_second is not None:
            raw["steps_per_second"] = self.steps_per_second
        for name in ("tube", "funnel"):
            raw[name] = section(name, getattr(self, name))
        raw["floors"] = [section(f"floors.{i}", f) for i, f in enumerate(self.floors)]
        for name in ("ramp", "courtyard", "release"):
            raw[name] = section(name, getattr(self, name))
        raw["pieces"] = {
            k.value: {"shape": self.pieces[k].SHAPE, **section(f"pieces.{k.value}", self.pieces[k])}
            for k in sorted(self.pieces)
        }
        return raw

    def to_toml(self) -> str:
        """The resolved spec as deterministic TOML text (loads back to an equal spec)."""
        return _to_toml(self.to_raw(), self)


# ------------------------------------------------------------------ TOML writing


def _fmt(x: float) -> str:
    return repr(float(x))


def _to_toml(raw: dict[str, Any], spec: TowerData) -> str:
    notes = {name: f"{a.unit}: {a.note}" for name, a in spec.assumptions().items()}
    lines = [
        f"# Resolved tower spec '{raw['name']}' ({SCHEMA}). Every number is an assumption",
        "# written as { value, low, high }: the value used and its plausible range.",
        f"schema = {_str(raw['schema'])}",
        f"name = {_str(raw['name'])}",
        f"description = {_str(raw['description'])}",
    ]
    if "steps_per_second" in raw:
        lines.append(f"steps_per_second = {raw['steps_per_second']}")

    def table(header: str, prefix: str, body: dict[str, Any]) -> None:
        lines.extend(["", header])
        for key, value in body.items():
            if isinstance(value, str):
                lines.append(f"{key} = {_str(value)}")
            elif isinstance(value, dict):
                v = ", ".join(f"{k} = {_fmt(value[k])}" for k in ("value", "low", "high"))
                lines.append(f"{key} = {{ {v} }}  # {notes[f'{prefix}.{key}']}")
            else:
                lines.append(f"{key} = [")
                for poly in value:
                    pts = ", ".join(f"[{_fmt(x)}, {_fmt(y)}]" for x, y in poly)
                    lines.append(f"  [{pts}],")
                lines.append("]")

    for name in ("tube", "funnel"):
        table(f"[{name}]", name, raw[name])
    for i, floor in enumerate(raw["floors"]):
        table("[[floors]]", f"floors.{i}", floor)
    for name in ("ramp", "courtyard", "release"):
        table(f"[{name}]", name, raw[name])
    for kind, body in raw["pieces"].items():
        table(f"[pieces.{kind}]", f"pieces.{kind}", body)
    return "\n".join(lines) + "\n"


def _str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _polygon_centroid(pts: np.ndarray) -> np.ndarray:
    x, y = pts[:, 0], pts[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1e-12:
        return pts.mean(axis=0)
    return np.array([((x + xn) * cross).sum(), ((y + yn) * cross).sum()]) / (6 * area)
