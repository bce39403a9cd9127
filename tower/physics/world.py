"""The pybullet world: units, numerical settings, the static tower and the pieces.

Units
-----
The geometry is in millimetres, grams and seconds. Bullet's tolerances (the contact
breaking threshold 0.02, the default collision margin 0.04, the sleeping thresholds
0.8/1.0) are tuned for bodies about one unit large; a 13 mm keshi in SI units would be
0.013 units, smaller than the margin, and jitters or sinks. The world therefore uses
**1 unit = 1 cm** (``LENGTH = 0.1`` units per mm) and grams: a keshi is about one unit,
gravity is 981 units/s², a piece falling the full height of the tower reaches about
250 units/s.

Numerics (:class:`Numerics`)
----------------------------
- Time step 1/150 s (numerics v3; 1/180 s in v2, pybullet's 1/240 s until v2): at the
  fastest speeds a piece moves 1.7 units (17 mm) per step, a little more than its own size;
  CCD (below) catches what discrete detection would miss in thin boards. At 1/120 s keshis
  landing in the courtyard sank through the 2 mm board deep into the slab under it (about 1
  throw in 70), so 1/150 s is the coarsest step used. Each coarser step keeps a little less
  inside at equilibrium, less than a calibrated parameter moves it (see the README).
- A collision slab, 50 mm thick, under the tower's lowest point (the underside of the
  courtyard board, :func:`_ground`): Bullet pushes a piece out of a solid the shortest way,
  and a piece pressed more than halfway into the thin board was pushed out below it and
  lost; against the slab the way out is always up.
- CCD as a safety net: every piece gets a swept sphere of 40 % of its smallest
  half-size (pybullet sets the motion threshold to half of that), so any step that moves a
  piece farther than about 1 mm is checked by a sweep against the static tower.
- Collision margins of 0.2 mm on pieces and tower parts (numerics v3; pybullet's mesh
  default of 0.01 mm before). Two convex shapes closer than the sum of their margins are
  handled by GJK alone; with the tiny default nearly every resting contact penetrated the
  margins and went through EPA, the expensive penetration solver (a tenth of the CPU time of
  a throw). The shapes grow by the margin (a keshi by 0.2 mm on 11 mm). An earlier change of
  the margin was seen to leave keshis resting tilted on an edge; at 0.2 mm the resting
  orientations of keshis inside did not change (12 towers x 15 throws: 1.4 % of them
  between 20 and 70 degrees from upright or lying, against 1.0 % with the default margin).
  Bullet's generic default of 0.4 mm was not faster.
- 8 solver iterations (pybullet's default is 50; 12 until physics v2): the contact problems
  are a handful of pieces resting on a floor, which converge long before that.
- ``deterministicOverlappingPairs`` so the order of contact pairs, and hence the solver's
  order, does not depend on memory layout.
- Slabs 20 mm thick back the outside of the tube's walls (numerics v4, :func:`_backing`):
  the back wall over its whole height, the side walls from just above the courtyard walls
  up; the exit wall has none. In 10,000 mixed throws under v3 two brigands went out
  through the tube's back wall; against the slab a piece pressed into the wall is pushed
  back in.
- A throw ends when every piece still in the tower has been at rest (speed below
  ``rest_speed`` and angular speed below ``rest_spin``) for ``rest_checks`` consecutive
  checks (2 in v4, 3 until v3), taken every ``check_every`` steps, or at ``time_cap``;
  pieces in the courtyard are done even while they roll. Bullet's sleeping is on, pieces
  that rested at the end of the previous throw start the next one asleep, costing nothing
  until touched, and (v4) a piece at rest at ``sleep_after`` = 2 checks in a row is put to
  sleep at once instead of after Bullet's 2 s.
- Pieces in the courtyard farther from the tube's exit face than one radius of the largest
  piece (v4; two until v3) are retired (:meth:`World.retire`): they keep their place but
  collide with nothing and sleep, so the pieces that came out stop costing solver and
  contact work.
- The static tower is kept between throws and the world rebuilt every 10 throws (v4;
  every throw until v3): between rebuilds only the pieces are removed
  (:meth:`World.clear_pieces`). Bullet's broadphase then carries history from throw to
  throw, so a snapshot also holds the throws since the last rebuild and restoring replays
  them (:meth:`tower.physics.TowerSim.restore`). v4 is about 1.2x faster than v3 in CPU
  time and keeps the tower's statistics within noise of v3's.

:meth:`Numerics.pybullet_defaults` gives pybullet's default engine settings (time step
1/240 s, 50 solver iterations, default margins, no CCD, no sleeping, no early stop, no
retiring): the benchmark's baseline.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np
import pybullet as pb
from scipy.spatial import ConvexHull

from tower.physics.params import PhysicsParams
from tower.pieces import Kind

#: World units per millimetre (1 unit = 1 cm).
LENGTH = 0.1
#: Gravity in world units per s².
GRAVITY = 9810.0 * LENGTH

#: Name of the collision-only slab under the tower (:func:`_ground`).
GROUND = "ground"
#: Thickness (mm) of that slab, and how far (mm) it reaches beyond the tower's footprint.
GROUND_DEPTH, GROUND_PAD = 50.0, 10.0

#: Version of the numerical settings' defaults (:class:`Numerics`): 1 until physics v2
#: (1/240 s, 12 solver iterations), 2 with physics v2 (1/180 s, 8 iterations, retiring),
#: 3 with 1/150 s and 0.2 mm collision margins, 4 now (the static tower kept between
#: throws, 2 checks at rest, resting pieces put to sleep, retiring one radius beyond the
#: exit face, slabs backing the tube's walls). Traces name it in their ``source``
#: (:attr:`tower.physics.TowerSim.source`), so traces of older numerics are recognisable.
NUMERICS_VERSION = 4

def source_label(name: str, version: int | None = None) -> str:
    """What a tower's traces name as their maker: ``physics-v<numerics version>:<name>``
    (``version`` defaults to the current :data:`NUMERICS_VERSION`).

    >>> source_label("marrakesh", 3)
    'physics-v3:marrakesh'
    """
    return f"physics-v{NUMERICS_VERSION if version is None else version}:{name}"


#: What each numerics version changes from the current defaults (:class:`Numerics`); a
#: field a version predates takes its value here, so :meth:`Numerics.of_version` rebuilds
#: that version exactly (a snapshot written before a field existed restores as it ran).
VERSION_CHANGES: dict[int, dict[str, Any]] = {
    4: {},
    3: {
        "rest_checks": 3,
        "retire_clearance": 2.0,
        "sleep_after": 0,
        "backing": 0.0,
        "funnel_backing": 0.0,
        "rebuild_every": 1,
    },
}
VERSION_CHANGES[2] = {**VERSION_CHANGES[3], "time_step": 1.0 / 180.0, "margin": None}

#: Kinds made of the keshi wood density; the others use the pawn density.
KESHI_LIKE = frozenset({Kind.KESHI, Kind.EXPERT, Kind.CUBE})


@dataclass(frozen=True)
class Numerics:
    """Numerical settings of the simulation (not physical parameters; not calibrated).

    Parameters
    ----------
    time_step : float
        Seconds per step.
    solver_iterations : int
        Bullet's sequential-impulse iterations per step.
    margin : float or None
        Collision margin in mm of pieces and tower parts, or ``None`` for pybullet's
        mesh default (0.01 mm, used until numerics v3).
    ccd : bool
        Continuous collision detection on pieces.
    ccd_radius : float
        Radius of the CCD swept sphere as a fraction of a piece's smallest half-size;
        pybullet sets the motion threshold that starts a sweep to half of it.
    split_impulse : bool
        Bullet's split impulse (penetration recovery apart from the velocities; pybullet's
        default).
    sleeping : bool
        Let Bullet deactivate resting bodies.
    early_stop : bool
        End the throw as soon as everything rests; otherwise run to ``time_cap``.
    check_every : int
        Steps between two checks of the pieces (NaN, escape, rest).
    rest_speed, rest_spin : float
        Below these (mm/s, rad/s) a piece counts as at rest.
    rest_checks : int
        Consecutive checks at rest that end a throw.
    time_cap : float
        Longest throw in simulated seconds.
    retire : bool
        Take pieces out of the simulation (:meth:`World.retire`) once they are in the
        courtyard and clear of the tube's exit face by ``retire_clearance`` radii of the
        largest piece.
    retire_clearance : float
        How far beyond the tube's exit face a piece in the courtyard is retired, in radii
        of the largest piece.
    sleep_after : int
        Put a piece to sleep (Bullet wakes it when something moving touches it) once it
        has been at rest (``rest_speed``, ``rest_spin``) at this many consecutive checks;
        0 leaves it to Bullet's own deactivation (2 s at rest).
    backing : float
        Thickness (mm) of collision-only slabs outside the tube's walls (:func:`_backing`),
        so a piece pressed into a thin wall is pushed back in, not out; 0 for none.
    funnel_backing : float
        Collision-only wedges under the funnel's panels (:func:`_funnel_backing`), reaching
        this many mm below the tube's top; 0 for none. They are added to the world only
        when a check finds a piece's centre inside one (it went through a panel), so they
        push it back (:meth:`World.seal`); a throw that finds none comes out the same to
        the bit with or without them.
    rebuild_every : int
        Throws between two rebuilds of the pybullet world (1: a fresh world for every
        throw, as until numerics v3). In between, only the pieces are removed and the static
        tower stays (:meth:`World.clear_pieces`), which saves rebuilding it but lets
        Bullet's broadphase carry history from one throw to the next.
    engine : tuple of (str, float)
        Further keyword arguments of ``pybullet.setPhysicsEngineParameter`` (empty in
        every numerics version so far; for experiments). Some are process-wide in
        pybullet (``contactBreakingThreshold`` sets a Bullet global), not per world.
    version : int
        Which defaults these settings started from (:data:`NUMERICS_VERSION`); a label
        only, kept in snapshots and trace sources.
    """

    time_step: float = 1.0 / 150.0
    solver_iterations: int = 8
    margin: float | None = 0.2  # mm; None keeps pybullet's default
    ccd: bool = True
    ccd_radius: float = 0.4
    split_impulse: bool = True
    sleeping: bool = True
    early_stop: bool = True
    check_every: int = 6
    rest_speed: float = 15.0
    rest_spin: float = 1.0
    rest_checks: int = 2
    time_cap: float = 8.0
    retire: bool = True
    retire_clearance: float = 1.0
    sleep_after: int = 2
    backing: float = 20.0
    funnel_backing: float = 20.0
    rebuild_every: int = 10
    engine: tuple[tuple[str, float], ...] = ()
    version: int = NUMERICS_VERSION

    @classmethod
    def pybullet_defaults(cls) -> Numerics:
        """pybullet's default engine settings (time step 1/240 s, 50 solver iterations,
        default margins, no CCD), no sleeping, no early stop, no retiring, a fresh world
        every throw, no backing slabs (the benchmark's baseline)."""
        return cls(
            time_step=1.0 / 240.0,
            solver_iterations=50,
            margin=None,
            ccd=False,
            sleeping=False,
            early_stop=False,
            retire=False,
            sleep_after=0,
            backing=0.0,
            funnel_backing=0.0,
            rebuild_every=1,
        )

    @classmethod
    def of_version(cls, version: int, **changes: Any) -> Numerics:
        """The settings numerics ``version`` had (:data:`VERSION_CHANGES`: 2, 3 or 4), with
        ``changes`` over them.

        >>> Numerics.of_version(3).rebuild_every, Numerics.of_version(3, rest_checks=1).version
        (1, 3)
        """
        if version not in VERSION_CHANGES:
            raise ValueError(f"unknown numerics version {version!r}")
        return cls(**{**VERSION_CHANGES[version], "version": version, **changes})

    @classmethod
    def v3(cls, **changes: Any) -> Numerics:
        """Numerics v3, the defaults until v4 (a fresh world every throw, 3 checks at rest,
        no sleeping of resting pieces, retiring two radii beyond the exit face, no
        backing slabs): what the traces of ``physics-v3`` sources were made with."""
        return cls.of_version(3, **changes)

    @classmethod
    def v4(cls, **changes: Any) -> Numerics:
        """Numerics v4, the defaults (``Numerics()``), with ``changes`` over them."""
        return cls.of_version(4, **changes)

    @classmethod
    def for_spec(cls, spec: Any) -> Numerics:
        """The defaults (numerics v4), with the time step the tower asks for
        (``spec.steps_per_second``), if it asks for one."""
        steps = getattr(spec, "steps_per_second", None)
        return cls(time_step=1.0 / steps) if steps else cls()

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Numerics:
        """Read :meth:`to_json` back. A field ``data`` lacks takes the value of the version
        it names (:meth:`of_version`); without a version it is numerics v2 (the field came
        with v3). Raises ``TypeError`` or ``ValueError`` on unknown fields or versions."""
        fields = dict(data)
        if "engine" in fields:
            fields["engine"] = tuple((str(k), float(v)) for k, v in fields["engine"])
        for name, value in fields.items():
            _check_numerics_field(name, value)
        return cls.of_version(fields.pop("version", 2), **fields)


#: The smallest value of each numeric :class:`Numerics` field read from a file (a time step
#: of 0 or a rebuild every 0 throws would hang or divide by zero); ``margin`` may be None.
_NUMERICS_MINIMA: dict[str, float] = {
    "time_step": 1e-6, "solver_iterations": 1, "margin": 0.0, "ccd_radius": 0.0,
    "check_every": 1, "rest_speed": 0.0, "rest_spin": 0.0, "rest_checks": 1, "time_cap": 1e-6,
    "retire_clearance": 0.0, "sleep_after": 0, "backing": 0.0, "funnel_backing": 0.0,
    "rebuild_every": 1,
}  # fmt: skip


def _check_numerics_field(name: str, value: Any) -> None:
    """Raise ``ValueError`` naming ``name`` if ``value`` is not a value that field can take
    (its kind is the field's annotation in :class:`Numerics`).

    >>> _check_numerics_field("rebuild_every", 0)
    Traceback (most recent call last):
    ...
    ValueError: numerics field rebuild_every must be an integer of at least 1, got 0
    """
    annotation = Numerics.__annotations__.get(name)
    if name == "engine" or annotation is None or (value is None and "None" in annotation):
        return  # engine is read apart; an unknown field is refused by the constructor
    if annotation == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"numerics field {name} must be true or false, got {value!r}")
        return
    integer = annotation == "int"
    kind = "an integer" if integer else "a number"
    number = isinstance(value, int) if integer else isinstance(value, int | float)
    low = _NUMERICS_MINIMA.get(name, -np.inf)
    if isinstance(value, bool) or not number or not np.isfinite(value) or value < low:
        bound = f" of at least {low:g}" if name in _NUMERICS_MINIMA else ""
        raise ValueError(f"numerics field {name} must be {kind}{bound}, got {value!r}")


@dataclass(frozen=True)
class PieceShape:
    """A piece kind ready for Bullet: convex hulls in world units, volume and inertia.

    Parameters
    ----------
    hulls : tuple of (n, 3) float
        Vertices of each convex part, body frame, origin at the centre of mass, world units.
    volume : float
        Volume in cm³ (world units cubed).
    inertia : (3,) float
        Diagonal of the inertia tensor per unit density (g/cm³ -> g·cm²).
    half_size : float
        Smallest half-extent of the piece (world units), used for CCD.
    radius : float
        Largest distance of a vertex from the centre of mass (world units).
    """

    hulls: tuple[np.ndarray, ...]
    volume: float
    inertia: np.ndarray
    half_size: float
    radius: float


@dataclass(frozen=True)
class StaticPart:
    """One convex part of the tower, vertices in world units."""

    name: str
    vertices: np.ndarray


@dataclass(frozen=True)
class TowerGeometry:
    """Everything physics needs from a tower spec, converted once to world units.

    Building it meshes the tower (slow); a batch builds it once and reuses it for every
    tower. ``spec`` is kept for :meth:`place_of`, bounds and the release zone.
    """

    spec: Any
    static: tuple[StaticPart, ...]
    shapes: dict[Kind, PieceShape]

    @classmethod
    def from_spec(cls, spec: Any) -> TowerGeometry:
        """Mesh ``spec`` with :func:`tower.geometry.tower_parts` and ``piece_parts``."""
        from tower.geometry import piece_mesh, piece_parts, tower_parts

        static = [(part.name, part.mesh) for part in tower_parts(spec)]
        pieces = {
            kind: (piece_parts(ps), piece_mesh(ps)) for kind, ps in sorted(spec.pieces.items())
        }
        return cls.from_meshes(spec, static, pieces)

    @classmethod
    def from_meshes(
        cls,
        spec: Any,
        static: list[tuple[str, Any]],
        pieces: dict[Kind, tuple[list[Any], Any]],
    ) -> TowerGeometry:
        """Build from trimesh meshes in mm: static ``(name, mesh)`` parts and, per kind,
        ``(convex parts, visual mesh)`` in the piece's centre-of-mass frame."""
        parts = [
            StaticPart(name, np.asarray(mesh.vertices, dtype=float) * LENGTH)
            for name, mesh in static
        ]
        parts.append(_ground(parts))
        shapes = {}
        for kind, (hulls, visual) in pieces.items():
            inertia = np.asarray(visual.moment_inertia, dtype=float)
            # moment_inertia is about the centre of mass for density 1 (mm^5); the frame's
            # origin is the centre of mass by contract, so only convert units.
            extents = np.asarray(visual.extents, dtype=float)
            verts = tuple(np.asarray(h.vertices, dtype=float) * LENGTH for h in hulls)
            shapes[kind] = PieceShape(
                hulls=verts,
                volume=float(visual.volume) * LENGTH**3,
                inertia=np.diag(inertia).copy() * LENGTH**5,
                half_size=float(extents.min()) / 2 * LENGTH,
                radius=float(max(np.linalg.norm(v, axis=1).max() for v in verts)),
            )
        return cls(spec, tuple(parts), shapes)


def _ground(parts: list[StaticPart]) -> StaticPart:
    """A thick slab under the whole tower, its top at the tower's lowest point.

    Nothing of the tower lies below its lowest point (the underside of the courtyard
    board), so the slab touches nothing a piece can rest on; it only stops a piece that was
    pushed into the thin board far enough for Bullet's penetration recovery to eject it
    downwards. Against the slab, that recovery always points up.
    """
    points = np.concatenate([p.vertices for p in parts])
    (x0, y0, z0), (x1, y1, _) = points.min(axis=0), points.max(axis=0)
    pad = GROUND_PAD * LENGTH
    z1 = z0 - GROUND_DEPTH * LENGTH
    corners = [
        (x, y, z) for x in (x0 - pad, x1 + pad) for y in (y0 - pad, y1 + pad) for z in (z1, z0)
    ]
    return StaticPart(GROUND, np.array(corners, dtype=float))


#: Clearance (mm) above the courtyard's walls where the side walls' backing starts.
BACKING_ABOVE_YARD = 10.0


def _backing(parts: tuple[StaticPart, ...], thickness: float) -> list[StaticPart]:
    """Collision-only slabs, ``thickness`` mm, on the outside of the tube's walls.

    Like the slab under the courtyard (:func:`_ground`): Bullet pushes a piece out of a
    thin wall the shortest way, and a piece driven more than halfway into one leaves the
    tube sideways (two brigands in 10,000 mixed throws of numerics v3 went out through the
    back wall). Behind the back wall nothing is a place, so its slab covers the wall's
    whole height; beside the side walls lies the courtyard, so theirs start
    :data:`BACKING_ABOVE_YARD` above its walls. The exit wall, facing the courtyard, gets
    none.
    """
    by_name = {p.name: p.vertices for p in parts}
    yard = [v[:, 2].max() for name, v in by_name.items() if name.startswith("yard")]
    above = max(yard, default=-np.inf) + BACKING_ABOVE_YARD * LENGTH
    t = thickness * LENGTH
    out = []
    for name, axis, sign in (("tube-back", 0, -1), ("tube-left", 1, 1), ("tube-right", 1, -1)):
        if name not in by_name:
            continue
        lo, hi = by_name[name].min(axis=0), by_name[name].max(axis=0)
        if sign < 0:  # against the wall's outer face, outwards
            lo[axis], hi[axis] = lo[axis] - t, lo[axis]
        else:
            lo[axis], hi[axis] = hi[axis], hi[axis] + t
        if axis == 1:
            lo[2] = max(lo[2], above)
        if lo[2] < hi[2]:
            corners = [
                (x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])
            ]
            out.append(StaticPart(f"backing-{name}", np.array(corners, dtype=float)))
    return out


#: How far (mm) the funnel's wedges added to the world reach past the rim and sideways
#: (:func:`_funnel_backing`); the space that catches a piece ends at the rim.
FUNNEL_BEYOND = 40.0

#: Funnel panels and the outward direction (axis, sign) each faces.
FUNNEL_PANELS = (
    ("funnel-px", 0, 1),
    ("funnel-nx", 0, -1),
    ("funnel-py", 1, 1),
    ("funnel-ny", 1, -1),
)


def _funnel_backing(
    parts: tuple[StaticPart, ...], thickness: float, beyond: float = 0.0
) -> list[StaticPart]:
    """Collision-only wedges under the funnel's panels, down to ``thickness`` mm below the
    tube's top, added to a world only once a piece is found behind a panel
    (:meth:`World.seal`).

    A keshi wedged between a rib and a panel in the funnel's bottom corner, pressed deep
    into the thin panel by the pieces above it, was pushed out through the panel's
    underside (1 keshi in 10,000 keshi throws of numerics v4), slid off the back wall's slab
    and fell. Each wedge fills the space under its panel: its top is the panel's outer
    face, it reaches out no farther than the funnel's rim (a piece falling past the rim
    into the courtyard misses it) and down to ``thickness`` below the tube's top, into the
    slabs behind the tube's walls. Nothing reaches that space but through a panel.
    Always there, the wedges would change ordinary throws: falling pieces sink through a
    panel's 2 mm for a step or two and touch them.

    With ``beyond`` > 0 each wedge reaches that many mm farther out, past the rim and
    sideways (the bodies added to the world, :data:`FUNNEL_BEYOND`): a piece that went
    deep, near the rim, is then still nearer the panel than the wedge's outer faces, and
    is pushed back in, not out over the rim (a brigand that tunnelled through the +y
    panel at 1.3 m/s was pushed out of a wedge ending at the rim).
    """
    by_name = {p.name: p.vertices for p in parts}
    tubes = [v[:, 2].max() for name, v in by_name.items() if name.startswith("tube")]
    if not tubes:
        return []
    low = max(tubes) - thickness * LENGTH
    out = []
    for name, axis, sign in FUNNEL_PANELS:
        if name not in by_name:
            continue
        v = by_name[name]
        # the outer face: of each corner's two vertices (a wall's thickness apart), the lower
        gaps = np.linalg.norm(v[:, None] - v[None], axis=2) + np.diag([np.inf] * len(v))
        outer = v[v[:, 2] < v[gaps.argmin(axis=1), 2]]
        reach = sign * outer[:, axis]
        across = np.abs(outer[:, 1 - axis]).max() + beyond * LENGTH
        rim, top = reach.max() + beyond * LENGTH, outer[:, 2].max()
        # below the panel at both ends, and (reaching beyond the rim) out at the rim's height
        corners = [(reach.min(), low), (rim, low)] + ([(rim, top)] if beyond > 0 else [])
        under = []
        for along, z in corners:
            for side in (-across, across):
                point = [0.0, 0.0, z]
                point[axis], point[1 - axis] = sign * along, side
                under.append(point)
        out.append(StaticPart(f"backing-{name}", np.vstack([outer, under])))
    return out


def _combine(total: float, other: float) -> float:
    """Bullet multiplies the coefficients of the two bodies; split ``total`` so that a
    piece's own coefficient is ``sqrt(piece-piece)`` and the tower's completes ``total``."""
    return total / other if other > 0 else 0.0


class World:
    """A pybullet DIRECT client holding one tower and its pieces.

    The world is rebuilt from scratch (:meth:`reset`) at the start of every throw, then
    pieces are added in a canonical order, so a throw depends only on the recorded state of
    the pieces and never on contact caches left by earlier throws. (Keeping the static
    tower and removing only the pieces is not enough: Bullet's broadphase keeps state that
    changes the order of contacts, and the throws differ in the last bits.) With
    :attr:`Numerics.rebuild_every` above 1 the static tower is kept for that many throws
    and only the pieces are removed (:meth:`clear_pieces`); the tower then replays the
    throws since the rebuild when it is restored from a snapshot. Each piece kind's
    collision shape is built once per world and shared by its bodies.
    """

    def __init__(self, geometry: TowerGeometry, params: PhysicsParams, numerics: Numerics):
        self.geometry = geometry
        self.params = params
        self.numerics = numerics
        self.client = _connect()
        self.static_ids: list[int] = []
        #: body -> name of each static part (:class:`StaticPart`, backing slabs included)
        self.static_names: dict[int, str] = {}
        #: per funnel wedge, the planes of its faces (outward normal, offset; world units)
        self.wedges: list[np.ndarray] = []
        self._wedge_parts: list[StaticPart] = []
        self._wedge_low = 0.0
        #: whether the wedges are in the world (:meth:`seal`)
        self.sealed = False
        #: bodies of the pieces, in the order they were added
        self.piece_ids: list[int] = []
        self._visual = False
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._files: dict[Kind, list[str]] = {}
        #: kind -> (collision shape, mass, dynamics settings), built once per world
        self._kinds: dict[Kind, tuple[int, float, dict[str, Any]]] = {}

    def close(self) -> None:
        if self.client >= 0:
            pb.disconnect(self.client)
            self.client = -1
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        with contextlib.suppress(Exception):
            self.close()

    # -- world setup ---------------------------------------------------------------------

    def reset(self, *, visual: bool = False, hidden: frozenset[str] = frozenset()) -> None:
        """Empty the world and load the static tower (parts named in ``hidden`` are left
        out of the visual shapes, e.g. the front wall when rendering)."""
        c, n = self.client, self.numerics
        pb.resetSimulation(physicsClientId=c)
        self._kinds = {}
        self.piece_ids = []
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=c)
        engine: dict[str, Any] = {
            "fixedTimeStep": n.time_step,
            "numSubSteps": 0,
            "deterministicOverlappingPairs": 1,
        }
        if n.solver_iterations != 50:
            engine["numSolverIterations"] = n.solver_iterations
        if not n.split_impulse:
            engine["useSplitImpulse"] = 0
        engine.update(n.engine)
        pb.setPhysicsEngineParameter(physicsClientId=c, **engine)
        self._visual = visual
        self.static_ids = []
        self.static_names = {}
        backing = _backing(self.geometry.static, n.backing) if n.backing > 0 else []
        collision_only = {GROUND, *(b.name for b in backing)}  # drawn, slabs close the tube
        for part in (*self.geometry.static, *backing):
            self._add_static(part, visual=visual and part.name not in hidden | collision_only)
        self._wedge_parts = (
            _funnel_backing(self.geometry.static, n.funnel_backing) if n.funnel_backing > 0 else []
        )
        self.wedges = [ConvexHull(part.vertices).equations for part in self._wedge_parts]
        self._wedge_low = min((p.vertices[:, 2].min() for p in self._wedge_parts), default=0.0)
        self.sealed = False

    def _add_static(self, part: StaticPart, visual: bool) -> None:
        """Add one static part of the tower (with a visual shape if ``visual``, unless it is
        the collision-only slab under the tower)."""
        c, n, p = self.client, self.numerics, self.params
        shape = pb.createCollisionShape(
            pb.GEOM_MESH, vertices=part.vertices.tolist(), physicsClientId=c
        )
        vis = -1
        if visual and part.name != GROUND:
            vis = pb.createVisualShape(
                pb.GEOM_MESH,
                vertices=part.vertices.tolist(),
                indices=_hull_indices(part.vertices),
                rgbaColor=_part_colour(part.name),
                physicsClientId=c,
            )
        body = pb.createMultiBody(0, shape, vis, useMaximalCoordinates=True, physicsClientId=c)
        dyn: dict[str, Any] = {
            "lateralFriction": _combine(p.friction_cardboard, np.sqrt(p.friction_piece)),
            "restitution": np.sqrt(p.restitution),
            "rollingFriction": 0.0,
            "spinningFriction": 0.0,
        }
        if n.margin is not None:
            dyn["collisionMargin"] = n.margin * LENGTH
        pb.changeDynamics(body, -1, physicsClientId=c, **dyn)
        self.static_ids.append(body)
        self.static_names[body] = part.name

    def behind_panels(self, positions: np.ndarray) -> np.ndarray:
        """(n,) bool: which positions (n, 3), world units, lie in a funnel wedge
        (:func:`_funnel_backing`): behind a panel, where no piece gets but through it."""
        behind = np.zeros(len(positions), dtype=bool)
        if not self.wedges or not (positions[:, 2] > self._wedge_low).any():
            return behind  # all below the wedges, as nearly always
        for planes in self.wedges:
            behind |= (positions @ planes[:, :3].T + planes[:, 3] <= 0.0).all(axis=1)
        return behind

    def seal(self) -> None:
        """Add the funnel's wedges, reaching :data:`FUNNEL_BEYOND` past the rim, to the
        world (once; they stay until :meth:`reset`).

        They are built only when a piece is found behind a panel: any further body in
        Bullet's broadphase, even one that collides with nothing, changes the order of its
        work and so the last bits of every throw, so a throw that finds no piece there
        runs exactly as without them."""
        if not self.sealed:
            depth = self.numerics.funnel_backing
            for part in _funnel_backing(self.geometry.static, depth, FUNNEL_BEYOND):
                self._add_static(part, visual=False)
            self.sealed = True

    def add_piece(
        self,
        kind: Kind,
        position: np.ndarray,
        orientation: np.ndarray,
        velocity: np.ndarray,
        spin: np.ndarray,
        colour: tuple[float, float, float, float] | None = None,
        asleep: bool = False,
    ) -> int:
        """Add one dynamic piece; position in world units, velocity in world units/s.

        With ``asleep`` (and sleeping enabled) the piece starts deactivated: it costs
        nothing until a moving body touches it."""
        c, n = self.client, self.numerics
        kind_setup = self._kinds.get(kind)
        if kind_setup is None:
            kind_setup = self._kinds[kind] = self._kind_setup(kind)
        col, mass, dyn = kind_setup
        vis = -1
        if self._visual:
            hulls = self.geometry.shapes[kind].hulls
            vis = pb.createVisualShape(
                pb.GEOM_MESH,
                vertices=np.concatenate(hulls).tolist(),
                indices=_hulls_indices(hulls),
                rgbaColor=colour or (0.8, 0.2, 0.2, 1.0),
                physicsClientId=c,
            )
        body = pb.createMultiBody(
            mass,
            col,
            vis,
            basePosition=position.tolist(),
            baseOrientation=orientation.tolist(),
            useMaximalCoordinates=True,
            physicsClientId=c,
        )
        self.piece_ids.append(body)
        pb.changeDynamics(body, -1, physicsClientId=c, **dyn)
        pb.resetBaseVelocity(body, velocity.tolist(), spin.tolist(), physicsClientId=c)
        if asleep and n.sleeping:
            pb.changeDynamics(
                body, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=c
            )
        return body

    def clear_pieces(self) -> None:
        """Remove every piece, last added first, and keep the static tower (and the piece
        kinds' collision shapes): the static parts keep their places in Bullet's arrays."""
        c = self.client
        for body in reversed(self.piece_ids):
            pb.removeBody(body, physicsClientId=c)
        self.piece_ids = []

    def _kind_setup(self, kind: Kind) -> tuple[int, float, dict[str, Any]]:
        """The collision shape (one per world, shared by the pieces of ``kind``), the mass
        and the dynamics settings of a piece of ``kind``."""
        n, p = self.numerics, self.params
        shape = self.geometry.shapes[kind]
        density = p.density_keshi if kind in KESHI_LIKE else p.density_pawn
        dyn: dict[str, Any] = {
            "mass": density * shape.volume,  # must accompany the inertia (pybullet zeroes it)
            "localInertiaDiagonal": (density * shape.inertia).tolist(),
            "lateralFriction": float(np.sqrt(p.friction_piece)),
            "restitution": float(np.sqrt(p.restitution)),
            "rollingFriction": p.rolling_friction * LENGTH,
            "spinningFriction": p.spinning_friction * LENGTH,
            "linearDamping": 0.0,
            "angularDamping": 0.0,
            "activationState": (
                pb.ACTIVATION_STATE_ENABLE_SLEEPING
                if n.sleeping
                else pb.ACTIVATION_STATE_DISABLE_SLEEPING
            ),
        }
        if n.margin is not None:
            dyn["collisionMargin"] = n.margin * LENGTH
        if n.ccd:
            dyn["ccdSweptSphereRadius"] = n.ccd_radius * shape.half_size
        return self._collision_shape(kind), density * shape.volume, dyn

    def _collision_shape(self, kind: Kind) -> int:
        """Build the collision shape of ``kind`` (one per world, shared by its bodies)."""
        c, hulls = self.client, self.geometry.shapes[kind].hulls
        if len(hulls) == 1:
            return pb.createCollisionShape(
                pb.GEOM_MESH, vertices=hulls[0].tolist(), physicsClientId=c
            )
        # a compound of convex hulls: pybullet takes these only as files
        files = self._hull_files(kind)
        return pb.createCollisionShapeArray(
            [pb.GEOM_MESH] * len(files), fileNames=files, physicsClientId=c
        )

    def retire(self, body: int) -> None:
        """Take a piece out of the simulation where it is: it stops, collides with nothing
        and sleeps (so it costs nothing), but stays visible and keeps its position."""
        c = self.client
        pb.setCollisionFilterGroupMask(body, -1, 0, 0, physicsClientId=c)
        pb.resetBaseVelocity(body, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=c)
        pb.changeDynamics(body, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=c)

    def _hull_files(self, kind: Kind) -> list[str]:
        """OBJ files (one per convex part) of a multi-part piece, written once per world."""
        if kind not in self._files:
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="tower-physics-")
            names = []
            for j, hull in enumerate(self.geometry.shapes[kind].hulls):
                index = _hull_indices(hull)
                lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in hull.tolist()]
                lines += [
                    f"f {index[k] + 1} {index[k + 1] + 1} {index[k + 2] + 1}"
                    for k in range(0, len(index), 3)
                ]
                path = os.path.join(self._tmp.name, f"{kind.value}-{j}.obj")
                with open(path, "w", encoding="ascii") as fh:
                    fh.write("\n".join(lines) + "\n")
                names.append(path)
            self._files[kind] = names
        return self._files[kind]

    def sleep(self, body: int) -> None:
        """Deactivate a piece where it is (Bullet wakes it when something touches it)."""
        pb.changeDynamics(
            body, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=self.client
        )

    def remove(self, body: int) -> None:
        pb.removeBody(body, physicsClientId=self.client)

    def step(self) -> None:
        pb.stepSimulation(physicsClientId=self.client)

    def flat_states(self, bodies: list[int]) -> list[tuple[float, ...]]:
        """The 13 numbers of :meth:`state` run together, for each of ``bodies`` (the
        per-check read of the simulation loop, so kept lean)."""
        c = self.client
        pose, speed = pb.getBasePositionAndOrientation, pb.getBaseVelocity
        out = []
        for b in bodies:  # physicsClientId given by position: a little faster
            pos, orn = pose(b, c)
            lin, ang = speed(b, c)
            out.append(pos + orn + lin + ang)
        return out

    def state(self, body: int) -> tuple[tuple, tuple, tuple, tuple]:
        """``(position, orientation xyzw, velocity, spin)`` of a body, world units."""
        c = self.client
        pos, orn = pb.getBasePositionAndOrientation(body, physicsClientId=c)
        lin, ang = pb.getBaseVelocity(body, physicsClientId=c)
        return pos, orn, lin, ang


def _connect() -> int:
    """``pybullet.connect(DIRECT)`` without the build banner that pybullet prints to C
    ``stdout`` (it would end up in machine-readable output such as ``--json``)."""
    import ctypes
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            client = pb.connect(pb.DIRECT)
            ctypes.CDLL(None).fflush(None)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return client


def _hull_indices(vertices: np.ndarray) -> list[int]:
    """Outward-wound triangle indices of the convex hull of ``vertices`` (visual shapes)."""
    import trimesh

    hull = trimesh.convex.convex_hull(vertices)
    # map hull vertices back onto the given vertex list
    index = {tuple(v): i for i, v in enumerate(np.asarray(vertices).tolist())}
    return [index[tuple(hull.vertices[j].tolist())] for j in hull.faces.ravel()]


def _hulls_indices(hulls: tuple[np.ndarray, ...]) -> list[int]:
    out: list[int] = []
    offset = 0
    for h in hulls:
        out.extend(i + offset for i in _hull_indices(h))
        offset += len(h)
    return out


def _part_colour(name: str) -> tuple[float, float, float, float]:
    """Cardboard brown for the tube, lighter for floors and ramp, sand for the courtyard."""
    if "court" in name:
        return (0.85, 0.78, 0.6, 1.0)
    if "floor" in name or "ramp" in name:
        return (0.75, 0.6, 0.4, 1.0)
    return (0.55, 0.4, 0.25, 1.0)
