"""`TowerSim`: throws through one tower whose inside state persists between throws.

Every piece thrown gets an id (its index in :attr:`TowerSim.pieces`). After a throw each id
is either out (returned to the caller and removed from the world) or inside, with its full
rigid-body state recorded. Before a throw the pieces inside are re-added in id order from
their recorded state, then the new pieces.

Under numerics v3 (:meth:`Numerics.v3`) the pybullet world is rebuilt from scratch for
every throw, so a throw is a pure function of (recorded state, parameters, RNG state,
pieces thrown); a snapshot holds exactly that, and a restored tower continues bit for bit
like the original. Numerics v4, the default, keeps the static tower and rebuilds the world
only every :attr:`Numerics.rebuild_every` (10) throws, so Bullet carries history in
between; a snapshot then also holds the tower at the last rebuild and the throws since,
and restoring replays them, so the restored tower still continues bit for bit.

Examples
--------
Every piece thrown is out or inside after the throw:

>>> from tower.geometry import load_preset
>>> from tower.pieces import mixed_keshis
>>> sim = TowerSim(load_preset("marrakesh"), seed=1)
>>> result = sim.throw(mixed_keshis(12))
>>> sorted([*result.out, *result.inside]) == list(result.thrown) == list(range(12))
True
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tower.errors import InputFileError, TowerError
from tower.physics.params import PhysicsParams
from tower.physics.world import LENGTH, Numerics, TowerGeometry, World, source_label
from tower.pieces import INSIDE, KESHI_COLOURS, Piece, Place
from tower.traces import TraceThrow

SNAPSHOT_SCHEMA = "tower.physics-snapshot/2"
#: Snapshot schemas :meth:`TowerSim.restore` reads (1 has no ``world``/``since``).
SNAPSHOT_SCHEMAS = ("tower.physics-snapshot/1", SNAPSHOT_SCHEMA)

#: Tallest cluster (mm) of pieces in the hand; bigger handfuls spread out sideways.
MAX_CLUSTER = 60.0

#: Random release points tried at one height before the next layer (or a wider disc).
TRIES = 30

#: Relative closeness to a gap below which a release try is tested again in Python floats.
NEAR = 1e-9

#: Height (mm) above the highest release point that still counts as in the air.
HEADROOM = 150.0


class SimulationError(TowerError):
    """The simulation reached a state it must not be in.

    Parameters
    ----------
    message : str
        What happened, naming the throw, the piece and the tower's seed.
    piece : int, optional
        Id of the piece concerned (its index in :attr:`TowerSim.pieces`), if one is.
    """

    def __init__(self, message: str, piece: int | None = None) -> None:
        super().__init__(message)
        self.piece = piece


class EscapeError(SimulationError):
    """A piece left the tower and its courtyard (tunnelled through a wall or flew off)."""


class NonFiniteStateError(SimulationError):
    """A piece's position or velocity became NaN or infinite."""


class SnapshotError(InputFileError):
    """A snapshot file is malformed or does not fit the tower it is restored into."""


#: A rigid-body state in world units: position, orientation (x, y, z, w), velocity, spin.
BodyState = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True)
class LostAttempt:
    """One attempt of a throw in which the simulation lost a piece (:attr:`TowerSim.lost`).

    Parameters
    ----------
    throw : int
        0-based number of the throw in its tower.
    attempt : int
        0 for the first attempt, k for the k-th re-throw.
    error : EscapeError or NonFiniteStateError
        What the guard found (the piece, where, the tower's seed).
    """

    throw: int
    attempt: int
    error: SimulationError


@dataclass(frozen=True)
class ThrowResult:
    """What one throw did.

    Parameters
    ----------
    index : int
        0-based number of the throw in its tower.
    thrown : tuple of int
        Ids of the pieces thrown.
    out : tuple of int
        Ids that came out (fresh or from earlier throws), sorted.
    inside : dict of int to Place
        Every piece inside after the throw and where it sits.
    pieces : tuple of Piece
        Id -> piece, for every piece this tower has seen.
    sim_time : float
        Simulated seconds.
    steps : int
        Simulation steps taken.
    rethrows : int
        Attempts thrown again before this one because the simulation lost a piece.
    caught : tuple of int
        Ids of the pieces found behind a funnel panel, against which the funnel's wedges
        were added to the world (:attr:`Numerics.funnel_backing`); not part of the trace.
    """

    index: int
    thrown: tuple[int, ...]
    out: tuple[int, ...]
    inside: dict[int, Place]
    pieces: tuple[Piece, ...]
    sim_time: float
    steps: int
    rethrows: int = 0
    caught: tuple[int, ...] = ()

    @property
    def out_pieces(self) -> list[Piece]:
        """The pieces that came out, sorted (the game's view)."""
        return sorted(self.pieces[i] for i in self.out)

    def inside_pieces(self) -> dict[Place, list[Piece]]:
        """Pieces inside by place, each list sorted."""
        return {
            place: sorted(self.pieces[i] for i, pl in self.inside.items() if pl is place)
            for place in INSIDE
        }

    def to_trace(self) -> TraceThrow:
        """This throw in the trace format of :mod:`tower.traces`."""
        return TraceThrow(self.thrown, self.out, dict(self.inside), self.sim_time, self.rethrows)

    def summary(self) -> str:
        """One human line: ``throw 3: 12 in, 9 out, inside 5 (funnel 0, floor1 2, ...)``,
        the throw counted from 1 as everywhere a person reads it."""
        by_place = ", ".join(f"{pl.value} {len(ps)}" for pl, ps in self.inside_pieces().items())
        return (
            f"throw {self.index + 1}: {len(self.thrown)} in, {len(self.out)} out, "
            f"inside {len(self.inside)} ({by_place}), {self.sim_time:.2f} s simulated"
        )


@dataclass(frozen=True)
class _Epoch:
    """A tower's state when its pybullet world was built (:attr:`Numerics.rebuild_every`):
    the throws since then, replayed from here, bring a restored tower's world to the same
    state as the original's."""

    throws: int
    rng: dict[str, Any]
    pieces: int
    inside: dict[int, BodyState]
    places: dict[int, Place]

    @classmethod
    def of(cls, sim: TowerSim) -> _Epoch:
        return cls(
            sim.throws,
            sim.rng.bit_generator.state,
            len(sim.pieces),
            dict(sim.inside),
            dict(sim.places),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "throws": self.throws,
            "rng": self.rng,
            "pieces": self.pieces,
            "inside": _inside_json(self.inside, self.places),
        }


def _inside_json(inside: dict[int, BodyState], places: dict[int, Place]) -> list[dict]:
    """The pieces inside as snapshot entries, by id."""
    return [
        {
            "id": pid,
            "place": places[pid].value,
            "position": list(st[0]),
            "orientation": list(st[1]),
            "velocity": list(st[2]),
            "spin": list(st[3]),
        }
        for pid, st in sorted(inside.items())
    ]


def _read_inside(
    entries: Any, pieces: int, path: str, field: str
) -> tuple[dict[int, BodyState], dict[int, Place]]:
    """Parse snapshot entries of pieces inside (ids below ``pieces``); raise
    :class:`SnapshotError` naming ``field[k]`` for a bad one."""
    inside: dict[int, BodyState] = {}
    places: dict[int, Place] = {}
    for k, entry in enumerate(entries or []):
        try:
            pid = int(entry["id"])
            state = tuple(
                tuple(float(x) for x in entry[key])
                for key in ("position", "orientation", "velocity", "spin")
            )
            if [len(v) for v in state] != [3, 4, 3, 3] or not 0 <= pid < pieces:
                raise ValueError("wrong vector length or id")
            inside[pid] = state  # type: ignore[assignment]
            places[pid] = Place(entry["place"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(path, f"bad entry: {exc}", field=f"{field}[{k}]") from None
    return inside, places


def _colour(piece: Piece) -> tuple[float, float, float, float]:
    """An RGBA colour for rendering a piece."""
    named = {
        "green": (0.1, 0.6, 0.2),
        "gray": (0.5, 0.5, 0.5),
        "white": (0.95, 0.95, 0.92),
        "black": (0.1, 0.1, 0.1),
        "pink": (0.95, 0.5, 0.7),
        "turquoise": (0.2, 0.8, 0.8),
        "beige": (0.85, 0.75, 0.55),
        "brown": (0.45, 0.25, 0.1),
        "red": (0.85, 0.1, 0.1),
        "yellow": (0.95, 0.85, 0.1),
        "purple": (0.5, 0.2, 0.6),
        "orange": (0.95, 0.5, 0.1),
        "blue": (0.15, 0.3, 0.85),
        "neutral": (0.3, 0.3, 0.3),
    }
    rgb = named.get(piece.colour)
    if rgb is None:  # a player colour we do not know: pick one deterministically
        k = sum(map(ord, piece.colour)) % len(KESHI_COLOURS)
        rgb = named[KESHI_COLOURS[k]]
    return (*rgb, 1.0)


def _first_clear(
    rng: np.random.Generator,
    disc: float,
    centre: tuple[float, float, float],
    placed: np.ndarray,
    gaps: np.ndarray,
) -> tuple[float, float] | None:
    """The first of :data:`TRIES` random points of a disc that is clear of all placed
    pieces, as ``(x, y)``, or ``None``; the RNG ends exactly as if the tries had been drawn
    and tested one by one, stopping at the first clear one.

    Parameters
    ----------
    rng : numpy.random.Generator
        Each try draws ``u``, ``v``: the point at radius ``disc * sqrt(u)`` and angle
        ``2 pi v`` from ``centre``.
    disc : float
        Radius of the disc.
    centre : (x, y, z) float
        Centre of the disc; every try is at height ``z``.
    placed : (m, 3) float
        Centres of the pieces placed so far.
    gaps : (3, m) float
        Per placed piece: the squared distance a try must exceed to be clear of it, and
        that distance times ``1 - NEAR`` and ``1 + NEAR``.

    Notes
    -----
    All tries are tested at once in numpy. A try whose squared distance to a piece lies
    within a relative :data:`NEAR` of its gap is tested again in plain Python floats, as
    the one-by-one loop did (``x ** 2`` and numpy's ``x * x`` differ in the last bit for
    about 1 number in 1,000), so the chosen try is the same to the bit.
    """
    cx, cy, z = centre
    state = rng.bit_generator.state
    u = rng.random(2 * TRIES)
    r = disc * np.sqrt(u[0::2])
    angle = ((2 * math.pi) * u[1::2]).tolist()
    x = cx + r * np.array(list(map(math.cos, angle)))
    y = cy + r * np.array(list(map(math.sin, angle)))
    k = 0
    if len(placed):
        dx = x[:, None] - placed[:, 0]
        dy = y[:, None] - placed[:, 1]
        dz = z - placed[:, 2]
        d2 = dx * dx + dy * dy + dz * dz
        clear = (d2 > gaps[2]).all(axis=1)
        for k in np.flatnonzero(~(d2 <= gaps[1]).any(axis=1)).tolist():
            if clear[k] or all(
                (float(x[k]) - qx) ** 2 + (float(y[k]) - qy) ** 2 + (z - qz) ** 2 > gap
                for (qx, qy, qz), gap in zip(placed.tolist(), gaps[0].tolist(), strict=True)
            ):
                break
        else:
            return None
    if k < TRIES - 1:  # draw again just what the tries up to k used
        rng.bit_generator.state = state
        rng.random(2 * (k + 1))
    return float(x[k]), float(y[k])


def _limits(bounds: np.ndarray) -> np.ndarray:
    """(2, 13) float: the lowest and highest value of each number of a piece's state that
    :meth:`TowerSim._check` lets pass: the position within ``bounds`` (2, 3), anything
    finite elsewhere (NaN and infinity fail both comparisons)."""
    big = np.finfo(float).max
    return np.concatenate([bounds, [[-big] * 10, [big] * 10]], axis=1)


def _random_quaternion(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / math.sqrt(q.dot(q))  # np.linalg.norm(q), without its overhead


class TowerSim:
    """One physical tower: throw pieces in, see which come out; the inside persists.

    Parameters
    ----------
    spec : TowerSpec
        The tower (see :mod:`tower.geometry`).
    params : PhysicsParams, optional
        Physical parameters; defaults if omitted.
    seed : int
        Seed of the throw randomness (release positions, velocities, spins).
    numerics : Numerics, optional
        Numerical settings; if omitted, the tuned defaults with the time step the spec
        asks for (:meth:`Numerics.for_spec`).
    geometry : TowerGeometry, optional
        Pre-built geometry of ``spec`` (saves meshing when many towers share a spec).
    """

    def __init__(
        self,
        spec: Any,
        params: PhysicsParams | None = None,
        seed: int = 0,
        *,
        numerics: Numerics | None = None,
        geometry: TowerGeometry | None = None,
    ) -> None:
        self.spec = spec
        self.params = params or PhysicsParams()
        self.seed = int(seed)
        self.numerics = numerics or Numerics.for_spec(spec)
        self.geometry = geometry or TowerGeometry.from_spec(spec)
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        #: id -> piece for every piece thrown so far.
        self.pieces: list[Piece] = []
        #: id -> recorded state of every piece inside, in world units.
        self.inside: dict[int, BodyState] = {}
        #: id -> place of every piece inside.
        self.places: dict[int, Place] = {}
        self.throws = 0
        #: every attempt in which the simulation lost a piece, thrown again or raised
        self.lost: list[LostAttempt] = []
        self.world = World(self.geometry, self.params, self.numerics)
        #: the tower when the pybullet world was last built, and the throws since
        #: (pieces, retries); ``None`` when the next throw builds it afresh
        self._epoch: _Epoch | None = None
        self._since: list[tuple[tuple[Piece, ...], int]] = []
        # Above the tower a piece is only in the air (thrown high, or bouncing up out of the
        # funnel): the escape box is spec.bounds raised to HEADROOM above the highest
        # release point of the current throw (a big handful starts in several layers).
        self._bounds = np.array(spec.bounds, dtype=float) * LENGTH
        self._throw_bounds = self._bounds.copy()
        self._limits = _limits(self._throw_bounds)
        # a box 1 mm inside the tube (world units), all of it inside (``_settled``); towers
        # without a tube (test boxes) have none
        tube = getattr(spec, "tube", None)
        self._tube_box: tuple[np.ndarray, np.ndarray] | None = None
        if tube is not None:
            centre = np.array([0.0, 0.0, tube.height / 2]) * LENGTH
            half = (np.array([tube.width, tube.depth, tube.height]) / 2 - 1.0) * LENGTH
            self._tube_box = (centre, half)

    @property
    def source(self) -> str:
        """What made this tower's traces: ``physics-v<numerics version>:<spec name>``."""
        return source_label(self.spec.name, self.numerics.version)

    def close(self) -> None:
        """Disconnect the pybullet client (also done when the object is collected)."""
        self.world.close()

    # -- throwing -------------------------------------------------------------------------

    def _release_states(self, new: Sequence[Piece]) -> list[tuple[float, BodyState]]:
        """Initial time and state of each new piece, drawn from the RNG in order.

        Each piece's position is found by rejection sampling: up to :data:`TRIES` random
        points of a disc (each two draws: radius, angle) until one is clear of every piece
        placed before; after :data:`TRIES` failures a layer higher, or a wider disc.
        :func:`_first_clear` tests a whole block of tries at once, and draws exactly what
        trying them one by one would.
        """
        p, rng, shapes = self.params, self.rng, self.geometry.shapes
        centre = np.asarray(self.spec.release_centre, dtype=float) * LENGTH
        centre = centre + np.array([0.0, 0.0, p.release_height * LENGTH])
        cx, cy, cz = (float(v) for v in centre)
        reach = self.spec.release_radius
        placed = np.empty((len(new), 3))  # positions of the pieces placed so far
        radii: list[float] = []
        out = []
        for i, piece in enumerate(new):
            radius = shapes[piece.kind].radius
            widest = max(0.0, reach - radius / LENGTH) * LENGTH
            disc = min(p.release_spread * LENGTH, widest)
            z = cz
            gap = np.array([(1.05 * (radius + rq)) ** 2 for rq in radii])
            gaps = np.array([gap, gap * (1 - NEAR), gap * (1 + NEAR)])
            while True:
                found = _first_clear(rng, disc, (cx, cy, z), placed[:i], gaps)
                if found is not None:
                    break
                # a hand holds a cluster at most MAX_CLUSTER tall: beyond that, big
                # handfuls spread out towards the funnel's mouth instead
                if z + radius - cz <= MAX_CLUSTER * LENGTH or disc >= widest:
                    z += radius
                else:
                    disc = min(disc + radius, widest)
            pos = (found[0], found[1], z)
            placed[i] = pos
            radii.append(radius)
            orn = _random_quaternion(rng)
            # bounded jitter: uniform in a disc sideways, half as much up or down, so no
            # piece is thrown past the funnel however many are thrown
            r = p.release_speed_jitter * math.sqrt(rng.random())
            a = 2 * math.pi * rng.random()
            vz = -p.release_speed + 0.5 * p.release_speed_jitter * (2 * rng.random() - 1)
            vel = np.array([r * math.cos(a), r * math.sin(a), vz])
            axis = rng.normal(size=3)
            spin = axis / math.sqrt(axis.dot(axis)) * p.release_spin  # np.linalg.norm
            t = i * p.stream_interval if p.release_mode == "stream" else 0.0
            state = (pos, tuple(orn), tuple(vel * LENGTH), tuple(spin))
            out.append((t, state))
        return out

    def _check(self, ids: Sequence[int], flat: np.ndarray) -> None:
        """Raise on a NaN or a piece outside the bounds; ``flat`` (n, 13) holds the states
        of the pieces ``ids`` (position, orientation, velocity, spin)."""
        lo, hi = self._limits
        if ((flat >= lo) & (flat <= hi)).all():  # all finite, all inside: the usual case
            return
        bad = ~np.isfinite(flat).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            raise NonFiniteStateError(
                f"throw {self.throws + 1}: piece {ids[k]} ({self.pieces[ids[k]]}) has a non-finite "
                f"state {tuple(flat[k].tolist())} (seed {self.seed})",
                ids[k],
            )
        pos = flat[:, :3]
        lo, hi = self._throw_bounds
        gone = (pos < lo).any(axis=1) | (pos > hi).any(axis=1)
        if gone.any():
            k = int(np.argmax(gone))
            where = tuple(float(x) for x in np.round(pos[k] / LENGTH, 1))
            raise EscapeError(
                f"throw {self.throws + 1}: piece {ids[k]} ({self.pieces[ids[k]]}) left the bounds "
                f"at {where} mm (seed {self.seed})",
                ids[k],
            )

    @staticmethod
    def _push_back(
        world: World,
        ids: list[int],
        flat: np.ndarray,
        moving: np.ndarray | None,
        caught: list[int],
    ) -> np.ndarray | None:
        """Find the pieces whose centre went through a funnel panel (``flat``: the states
        of the bodies ``ids``, piece ids per body), add the funnel's wedges to the world
        against them (:meth:`World.seal`) and note them in ``caught``; return ``moving``
        with them counted as moving, so they are neither put to sleep nor let the throw
        end while the wedges push them back."""
        behind = world.behind_panels(flat[:, :3])
        if not behind.any():
            return moving
        world.seal()
        for pid in np.asarray(ids)[behind].tolist():
            if pid not in caught:
                caught.append(pid)
        return None if moving is None else moving | behind

    def _moving(self, flat: np.ndarray) -> np.ndarray:
        """(n,) bool: which of the states ``flat`` (n, 13) are not at rest (speed above
        ``rest_speed`` or spin above ``rest_spin``)."""
        n = self.numerics
        lin = np.einsum("ij,ij->i", flat[:, 7:10], flat[:, 7:10])
        ang = np.einsum("ij,ij->i", flat[:, 10:13], flat[:, 10:13])
        return (lin > (n.rest_speed * LENGTH) ** 2) | (ang > n.rest_spin**2)

    def _settled(self, flat: np.ndarray, moving: np.ndarray) -> bool:
        """True when every piece of the states ``flat`` (n, 13) that is still inside the
        tower is at rest (``moving``: :meth:`_moving` of ``flat``).

        Pieces in the courtyard (``Place.OUT``) are done: they may roll on for a while, but
        cannot climb back up the ramp. They stay in the world (and are checked against the
        bounds) until the throw ends, or until they are retired.
        """
        moving = flat[moving, :3]
        if not len(moving):
            return True
        # most checks find a piece still moving inside the tube: a box test says so
        # without place_of (the tube is never the courtyard)
        box = self._tube_box
        if box is not None and (np.abs(moving - box[0]) < box[1]).all(axis=1).any():
            return False
        return bool(self._outside(moving).all())

    def _sleep_resting(
        self,
        world: World,
        bodies: list[int],
        live: np.ndarray,
        moving: np.ndarray,
        still: np.ndarray,
    ) -> None:
        """Count in ``still`` (per body) the consecutive checks at rest of the bodies
        ``live`` (indices into ``bodies``; ``moving`` says which move), and put to sleep
        those that reach :attr:`Numerics.sleep_after`."""
        count = np.where(moving, 0, still[live] + 1)
        still[live] = count
        for k in live[count == self.numerics.sleep_after].tolist():
            world.sleep(bodies[k])

    def _outside(self, positions: np.ndarray) -> np.ndarray:
        """(n,) bool: which positions (n, 3) are in the courtyard (``Place.OUT``)."""
        places = self.spec.place_of(positions / LENGTH) if len(positions) else []
        return np.array([place is Place.OUT for place in places], dtype=bool)

    def throw(
        self,
        pieces: Sequence[Piece],
        *,
        observe: Callable[[int, World], None] | None = None,
        hidden: frozenset[str] = frozenset(),
        retries: int = 0,
    ) -> ThrowResult:
        """Throw ``pieces`` into the tower and simulate until everything rests.

        Parameters
        ----------
        pieces : sequence of Piece
            The pieces thrown, in the order they leave the hand.
        observe : callable, optional
            Called as ``observe(step, world)`` after every step, with visual shapes loaded
            (used by :mod:`tower.physics.render`); it must not change the world.
        hidden : frozenset of str
            Tower parts left out of the visual shapes (they still collide).
        retries : int
            Times a throw in which the simulation loses a piece (it bounces out over the
            funnel's rim, or tunnels through the courtyard board) is thrown again from the
            same tower with the next random release, as a player re-throws a piece that
            missed. ``ThrowResult.rethrows`` says how many were needed.

        Returns
        -------
        ThrowResult

        Raises
        ------
        EscapeError, NonFiniteStateError
            The simulation lost a piece (in every one of ``1 + retries`` attempts); nothing
            is dropped silently.
        """
        for piece in pieces:
            if piece.kind not in self.geometry.shapes:
                raise SimulationError(
                    f"tower {self.spec.name!r} has no shape for {piece.kind.value} pieces; "
                    f"it knows {sorted(k.value for k in self.geometry.shapes)}"
                )
        # a throw that raises leaves the tower as it was (pieces, RNG, inside)
        count, state = len(self.pieces), self.rng.bit_generator.state
        keep = self.numerics.rebuild_every > 1 and observe is None
        every = self.numerics.rebuild_every
        fresh = not keep or self._epoch is None or len(self._since) >= every
        if fresh:
            self._epoch = _Epoch.of(self) if keep else None
            self._since = []
        attempt = 0
        while True:
            try:
                result = self._throw(pieces, observe, hidden, fresh or not keep)
            except BaseException as exc:
                del self.pieces[count:]
                self.rng.bit_generator.state = state
                lost = isinstance(exc, (EscapeError, NonFiniteStateError))
                if lost:
                    self.lost.append(LostAttempt(self.throws, attempt, exc))
                if not lost or attempt == retries:
                    self._epoch = None  # the world holds a throw that did not happen
                    raise
                attempt += 1
                for _ in range(attempt):  # attempt k starts k draws further on
                    self.rng.random()
                fresh = False
                continue
            if keep:
                self._since.append((tuple(pieces), retries))
            return replace(result, rethrows=attempt) if attempt else result

    def _throw(
        self,
        pieces: Sequence[Piece],
        observe: Callable[[int, World], None] | None,
        hidden: frozenset[str],
        fresh: bool,
    ) -> ThrowResult:
        """One attempt of :meth:`throw`, in a freshly built world or (not ``fresh``) in
        the world of the last throw with its pieces removed."""
        world, n = self.world, self.numerics
        first = len(self.pieces)
        new_ids = list(range(first, first + len(pieces)))
        self.pieces.extend(pieces)
        releases = self._release_states(pieces)
        highest = max((st[0][2] for _, st in releases), default=0.0)
        self._throw_bounds = self._bounds.copy()
        self._throw_bounds[1, 2] = max(self._bounds[1, 2], highest + HEADROOM * LENGTH)
        self._limits = _limits(self._throw_bounds)

        if fresh:
            world.reset(visual=observe is not None, hidden=hidden)
        else:
            world.clear_pieces()
        ids: list[int] = []  # piece id of each body, in the order they were added
        caught: list[int] = []  # pieces found behind a funnel panel
        bodies: list[int] = []
        live: list[int] = []  # indices (into ids) of the pieces still simulated

        v2 = (n.rest_speed * LENGTH) ** 2
        w2 = n.rest_spin**2

        def add(pid: int, st: BodyState) -> None:
            piece = self.pieces[pid]
            # a piece that rested when the last throw ended starts asleep (Bullet wakes it
            # when something touches it); this depends only on the recorded state
            asleep = sum(v * v for v in st[2]) < v2 and sum(w * w for w in st[3]) < w2
            body = world.add_piece(
                piece.kind, *(np.asarray(v) for v in st), colour=_colour(piece), asleep=asleep
            )
            live.append(len(ids))
            ids.append(pid)
            bodies.append(body)

        def observed() -> np.ndarray:
            """(len(live), 13) float: the states of the pieces still simulated."""
            flat = np.array(world.flat_states([bodies[k] for k in live]), dtype=float)
            return flat.reshape(-1, 13)

        for pid in sorted(self.inside):
            add(pid, self.inside[pid])
        dt = n.time_step
        pending = [(round(t / dt), pid, st) for pid, (t, st) in zip(new_ids, releases, strict=True)]
        max_steps = math.ceil(n.time_cap / dt)
        # a piece in the courtyard this far beyond the tube's exit face touches nothing
        # inside any more (two radii of the largest piece): it is retired there
        largest = max(shape.radius for shape in self.geometry.shapes.values())
        clear = self.spec.exit_face * LENGTH + n.retire_clearance * largest
        step = 0
        calm = 0
        # per body: consecutive checks at rest (sleep_after)
        still = np.zeros(len(self.inside) + len(pieces), dtype=int)
        while step < max_steps:
            while pending and pending[0][0] <= step:
                _, pid, st = pending.pop(0)
                add(pid, st)
            world.step()
            step += 1
            if observe is not None:
                observe(step, world)
            if step % n.check_every:
                continue
            flat = observed()
            self._check([ids[k] for k in live], flat)
            if n.retire:
                far = flat[:, 0] > clear
                if far.any():
                    far[far] = self._outside(flat[far, :3])
                    for k in np.flatnonzero(far):
                        world.retire(bodies[live[k]])
                    live = [k for k, f in zip(live, far, strict=True) if not f]
                    flat = flat[~far]
            ending = n.early_stop and not pending
            moving = self._moving(flat) if n.sleep_after or ending else None
            if world.wedges:
                moving = self._push_back(world, [ids[k] for k in live], flat, moving, caught)
            if n.sleep_after:
                self._sleep_resting(world, bodies, np.array(live, dtype=int), moving, still)
            if ending:
                calm = calm + 1 if self._settled(flat, moving) else 0
                if calm >= n.rest_checks:
                    break
        states = [world.state(b) for b in bodies]
        self._check(ids, np.array([sum(st, ()) for st in states], dtype=float).reshape(-1, 13))
        positions = np.array([st[0] for st in states], dtype=float).reshape(-1, 3)
        places = self.spec.place_of(positions / LENGTH) if ids else []
        out: list[int] = []
        inside: dict[int, BodyState] = {}
        where: dict[int, Place] = {}
        for pid, st, place in zip(ids, states, places, strict=True):
            if place is None:
                raise EscapeError(
                    f"throw {self.throws + 1}: piece {pid} ({self.pieces[pid]}) ended outside "
                    f"the tower at {tuple(np.round(np.asarray(st[0]) / LENGTH, 1))} mm "
                    f"(seed {self.seed})",
                    pid,
                )
            if place is Place.OUT:
                out.append(pid)
            else:
                inside[pid] = st
                where[pid] = Place(place)
        before = set(self.inside) | set(new_ids)
        if set(out) | set(inside) != before or len(out) + len(inside) != len(before):
            raise SimulationError(f"throw {self.throws + 1}: pieces were lost in accounting")
        result = ThrowResult(
            index=self.throws,
            thrown=tuple(new_ids),
            out=tuple(sorted(out)),
            inside=dict(sorted(where.items())),
            pieces=tuple(self.pieces),
            sim_time=step * dt,
            steps=step,
            caught=tuple(caught),
        )
        self.inside = inside
        self.places = dict(sorted(where.items()))
        self.throws += 1
        return result

    # -- snapshots ------------------------------------------------------------------------

    def state_json(self) -> dict[str, Any]:
        """Everything needed to continue this tower exactly, as a JSON-ready dict.

        With :attr:`Numerics.rebuild_every` above 1 the pybullet world is built only every
        so many throws and carries Bullet's history in between; the snapshot then also
        holds the tower when the world was built (``world``) and the throws since
        (``since``), which :meth:`restore` replays.
        """
        data: dict[str, Any] = {
            "schema": SNAPSHOT_SCHEMA,
            "units": "cm, g, s (world units); orientation quaternion x, y, z, w",
            "spec_name": self.spec.name,
            "spec_toml": self.spec.to_toml(),
            "seed": self.seed,
            "throws": self.throws,
            "params": self.params.to_json(),
            "numerics": self.numerics.to_json(),
            "rng": self.rng.bit_generator.state,
            "pieces": [str(p) for p in self.pieces],
            "inside": _inside_json(self.inside, self.places),
        }
        if self._epoch is not None and self._since:
            # the world carries history since it was built: restore replays those throws
            data["world"] = self._epoch.to_json()
            data["since"] = [
                {"pieces": [str(p) for p in pieces], "retries": retries}
                for pieces, retries in self._since
            ]
        return data

    def snapshot(self, path: str | Path, *, force: bool = False) -> None:
        """Write :meth:`state_json` to ``path`` atomically (floats round-trip exactly); an
        existing file is replaced only with ``force``."""
        from tower.files.outputs import write_text

        write_text(path, json.dumps(self.state_json(), indent=1) + "\n", force=force)

    @classmethod
    def restore(
        cls, path: str | Path, spec: Any | None = None, *, geometry: TowerGeometry | None = None
    ) -> TowerSim:
        """Read a snapshot and return a tower that continues exactly where it was saved.

        Parameters
        ----------
        path : path
            A file written by :meth:`snapshot`.
        spec : TowerSpec, optional
            The tower; read from the snapshot's embedded TOML if omitted. It must resolve
            to the same TOML as the snapshot's.
        """
        from tower.files.inputs import load_json
        from tower.physics.snapshot_checks import check_snapshot

        path = str(path)
        try:
            data = load_json(path)
            if not isinstance(data, dict) or data.get("schema") not in SNAPSHOT_SCHEMAS:
                raise SnapshotError(path, f"expected schema {SNAPSHOT_SCHEMA!r}", field="schema")
            check_snapshot(data, path)
        except InputFileError as exc:
            if isinstance(exc, SnapshotError):
                raise
            raise SnapshotError(path, exc.reason, line=exc.line, field=exc.field) from None
        spec = spec if spec is not None else (geometry.spec if geometry else None)
        if spec is None:
            spec = _spec_from_toml(data.get("spec_toml"), path)
        if spec.to_toml() != data.get("spec_toml"):
            raise SnapshotError(
                path, "the tower spec differs from the snapshot's", field="spec_toml"
            )
        params = PhysicsParams.from_json(data.get("params"), path=path)
        try:
            numerics = Numerics.from_json(data["numerics"])
            sim = cls(spec, params, int(data["seed"]), numerics=numerics, geometry=geometry)
            sim.rng.bit_generator.state = data["rng"]
            sim.pieces = [Piece.parse(p) for p in data["pieces"]]
            sim.throws = int(data["throws"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(path, f"malformed: {exc}") from None
        sim.inside, sim.places = _read_inside(data.get("inside"), len(sim.pieces), path, "inside")
        if "since" in data:
            sim._replay(data, path)
        return sim

    def _replay(self, data: dict[str, Any], path: str) -> None:
        """Bring a freshly restored tower to the snapshot ``data`` by throwing again, from
        the tower as it was when the world was built, the throws made since; refuse the
        snapshot if that does not give its state to the bit."""
        target = (self.throws, self.rng.bit_generator.state, self.pieces, self.inside)
        target_places = self.places
        try:
            world = data["world"]
            count = int(world["pieces"])
            if not 0 <= count <= len(self.pieces):
                raise ValueError(f"pieces {count} outside 0..{len(self.pieces)}")
            self.throws = int(world["throws"])
            self.rng.bit_generator.state = world["rng"]
            since = [
                ([Piece.parse(p) for p in entry["pieces"]], int(entry["retries"]))
                for entry in data["since"]
            ]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(path, f"malformed: {exc}", field="world") from None
        self.pieces = target[2][:count]
        self.inside, self.places = _read_inside(world.get("inside"), count, path, "world.inside")
        try:
            for pieces, retries in since:
                self.throw(pieces, retries=retries)
        except SimulationError as exc:
            raise SnapshotError(path, f"throwing again failed: {exc}", field="since") from None
        if (self.throws, self.rng.bit_generator.state, self.pieces, self.inside) != target or (
            self.places != target_places
        ):
            raise SnapshotError(
                path,
                "throwing again the throws since the world was built does not give the "
                "snapshot's tower (another machine or pybullet build?)",
                field="since",
            )


def _spec_from_toml(text: Any, path: str) -> Any:
    """Load the tower spec embedded in a snapshot."""
    if not isinstance(text, str):
        raise SnapshotError(path, "no embedded tower spec", field="spec_toml")
    from tower.geometry import load_spec

    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.toml"
        spec_path.write_text(text, encoding="utf-8")
        return load_spec(spec_path)
