"""Simulators as the fit sees them: a parameter box and ``simulate(theta, plan, seed)``.

The fit never talks to pybullet or to a tower model directly. It sees a
:class:`Simulator`: a list of :class:`Parameter` (name and plausible range, the uniform
prior) and a function that replays a :data:`Plan` (what goes in, throw by throw, session by
session) at parameter values ``theta`` and returns recording-like sessions: per throw,
the counts in and out by colour, exactly what a person records at the table. Simulators
are small picklable values, so they travel to worker processes and Dask workers.

- :class:`PhysicsSimulator`: the pybullet tower; parameters are ``physics.<name>`` (every
  numeric :class:`~tower.physics.params.PhysicsParams` field) and ``geometry.<dotted>``
  (the preset's assumed numbers on hole sizes, floor tilt and ribs).
- :class:`BaselineSimulator`: the two-chance model of :mod:`tower.model.baseline`
  (``model.p_fresh``, ``model.p_old``), a fast simulator in its own right.

Examples
--------
>>> from tower.calibration.recording import Session, Throw
>>> sim = BaselineSimulator()
>>> [p.name for p in sim.parameters]
['model.p_fresh', 'model.p_old']
>>> plan = (PlanSession("s1", "empty", (), ({"red": 3},) * 4),)
>>> out = sim.simulate({"model.p_fresh": 1.0, "model.p_old": 0.0}, plan, seed=1)
>>> [t.pieces_out for t in out[0].throws][:2]
[{'red': 3}, {'red': 3}]
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tower.calibration.recording import (
    Counts,
    Session,
    Throw,
    canonical,
    key_piece,
    piece_key,
)
from tower.errors import TowerError
from tower.pieces import Piece

#: Default patterns of the preset assumptions that calibration fits (hole sizes, floor
#: tilt, rib size); the others (tube size, heights) are taken as they are.
GEOMETRY_FIT = ("hole", "tilt", "rib")


class ReplayAborted(TowerError):
    """A replay stopped early: the simulated tower clogged (far too many pieces inside)."""


@dataclass(frozen=True)
class Parameter:
    """One fitted parameter: its uniform prior on ``[low, high]``."""

    name: str
    low: float
    high: float
    unit: str = ""
    note: str = ""


@dataclass(frozen=True)
class PlanSession:
    """What goes into one simulated session: unrecorded warm-up throws, then the throws."""

    name: str
    start: str
    warmup: tuple[Counts, ...]
    throws: tuple[Counts, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "start": self.start,
            "warmup": list(self.warmup),
            "throws": list(self.throws),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlanSession:
        return cls(
            data["name"],
            data["start"],
            tuple(data["warmup"]),
            tuple(data["throws"]),
        )


#: A replay plan: sessions in order.
Plan = tuple[PlanSession, ...]


@dataclass(frozen=True)
class Replay:
    """A simulated replay: recording-like sessions, and what a recording cannot see.

    ``fresh[s][t]`` is how many of the pieces out of throw ``t`` of session ``s`` were
    thrown in that very throw (known exactly in a simulation; a recording only bounds it
    through the colours). It feeds the tower-behaviour statistics
    (:mod:`tower.calibration.behaviour`).
    """

    sessions: list[Session]
    fresh: list[list[int]]


def plan_of(sessions: Sequence[Session], warmup: int = 10) -> Plan:
    """The plan that replays ``sessions``.

    A session with an unknown start gets ``warmup`` unrecorded throws of its first throw's
    pieces first, so the simulated tower is not empty when recording starts.
    """
    return tuple(
        PlanSession(
            s.name,
            s.start,
            (s.throws[0].pieces_in,) * (warmup if s.start != "empty" and s.throws else 0),
            tuple(t.pieces_in for t in s.throws),
        )
        for s in sessions
    )


def sessions_from_outs(plan: Plan, outs: Sequence[Sequence[Counts]]) -> list[Session]:
    """Recording-like sessions from a plan and the simulated out counts per throw."""
    return [
        Session(
            p.name,
            "simulated",
            p.start,
            throws=tuple(Throw(i + 1, dict(p.throws[i]), dict(o)) for i, o in enumerate(outs_s)),
        )
        for p, outs_s in zip(plan, outs, strict=True)
    ]


def _pieces(counts: Counts) -> list[Piece]:
    return [key_piece(k) for k, n in counts.items() for _ in range(n)]


def _counts(pieces: Sequence[Piece]) -> Counts:
    out: dict[str, int] = {}
    for p in pieces:
        out[piece_key(p)] = out.get(piece_key(p), 0) + 1
    return canonical(out)


class Simulator(Protocol):
    """What the fit needs from a simulator."""

    name: str

    @property
    def parameters(self) -> tuple[Parameter, ...]: ...

    @property
    def source(self) -> str:
        """What makes the replays, versioned (a replay cache never mixes two sources)."""
        ...

    def simulate(self, theta: Mapping[str, float], plan: Plan, seed: int) -> list[Session]:
        """Replay ``plan`` at ``theta``; one recording-like session per plan session."""
        ...

    def base_theta(self) -> dict[str, float]:
        """Parameter values used when nothing is fitted (the defaults)."""
        ...


@dataclass(frozen=True)
class BaselineSimulator:
    """The two-chance tower model (:class:`tower.model.baseline.BaselineModel`)."""

    name: str = "baseline"

    @property
    def source(self) -> str:
        return "baseline"

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return (
            Parameter("model.p_fresh", 0.0, 1.0, "1", "chance a thrown piece comes out"),
            Parameter("model.p_old", 0.0, 1.0, "1", "chance a piece inside comes out"),
        )

    def base_theta(self) -> dict[str, float]:
        """The published two chances, 2/3 and 1/3."""
        return {"model.p_fresh": 2 / 3, "model.p_old": 1 / 3}

    def simulate(self, theta: Mapping[str, float], plan: Plan, seed: int) -> list[Session]:
        return self.replay(theta, plan, seed).sessions

    def replay(self, theta: Mapping[str, float], plan: Plan, seed: int) -> Replay:
        """Like :meth:`simulate`, also counting the pieces out that were just thrown.

        Same random stream as :meth:`tower.model.baseline.BaselineModel.throw`: each
        resident in order, then each thrown piece, one uniform draw apiece.
        """
        from tower.model.baseline import BaselineModel

        model = BaselineModel(theta["model.p_fresh"], theta["model.p_old"])
        rng = random.Random(seed)
        outs: list[list[Counts]] = []
        fresh: list[list[int]] = []
        for p in plan:
            inside: list[str] = []
            session_outs, session_fresh = [], []
            for k, counts in enumerate((*p.warmup, *p.throws)):
                out: dict[str, int] = {}
                stay = []
                for key in inside:
                    if rng.random() < model.p_old:
                        out[key] = out.get(key, 0) + 1
                    else:
                        stay.append(key)
                n_fresh = 0
                for key, n in counts.items():
                    for _ in range(n):
                        if rng.random() < model.p_fresh:
                            out[key] = out.get(key, 0) + 1
                            n_fresh += 1
                        else:
                            stay.append(key)
                inside = stay
                if k >= len(p.warmup):
                    session_outs.append(canonical(out))
                    session_fresh.append(n_fresh)
            outs.append(session_outs)
            fresh.append(session_fresh)
        return Replay(sessions_from_outs(plan, outs), fresh)


@functools.lru_cache(maxsize=4)
def _preset(name: str) -> Any:
    from tower.geometry import load_preset

    return load_preset(name)


def physics_parameters(
    preset: str, geometry_fit: Sequence[str] = GEOMETRY_FIT
) -> tuple[Parameter, ...]:
    """The physics simulator's parameters: numeric physics fields and fitted assumptions."""
    from tower.physics.params import PhysicsParams

    params = [
        Parameter(f"physics.{k}", d["low"], d["high"], d["unit"], d["note"])
        for k, d in PhysicsParams.describe().items()
    ]
    pattern = re.compile("|".join(map(re.escape, geometry_fit))) if geometry_fit else None
    for k, a in _preset(preset).assumptions().items():
        if pattern is not None and pattern.search(k) and a.high > a.low:
            params.append(Parameter(f"geometry.{k}", a.low, a.high, a.unit, a.note))
    return tuple(params)


def fit_names_for(preset: str, *, pawns: bool) -> tuple[str, ...]:
    """The default fitted parameters of a recording with or without pawns
    (:func:`tower.calibration.calibrate.default_physics_fit`)."""
    skip = {"physics.stream_interval"}
    if not pawns:
        skip |= {"physics.density_keshi", "physics.density_pawn"}
    return tuple(
        p.name
        for p in physics_parameters(preset)
        if p.name not in skip and not p.name.startswith("physics.release_")
    )


def keshi_fit_names(preset: str) -> tuple[str, ...]:
    """The parameters a keshi-only recording fits (those of the physics bank)."""
    return fit_names_for(preset, pawns=False)


def split_theta(theta: Mapping[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """``(geometry overrides, physics overrides)`` of a ``theta`` with prefixed names."""
    geometry = {
        k.removeprefix("geometry."): v for k, v in theta.items() if k.startswith("geometry.")
    }
    physics = {k.removeprefix("physics."): v for k, v in theta.items() if k.startswith("physics.")}
    return geometry, physics


#: The smallest clog limit (``max_inside``) of a physics fit.
MIN_CLOG_LIMIT = 48


def with_clog_limit_for(simulator: Simulator, sessions: Sequence[Session]) -> Simulator:
    """``simulator`` with the clog limit a fit of ``sessions`` uses: at least
    :data:`MIN_CLOG_LIMIT`, and twice the most pieces the recorded tower held. A simulator
    without a clog limit is returned as it is.

    A fixed limit would abort replays near the truth of a recording whose tower holds many
    pieces itself: the emulator, fitted on replays that did not abort, then has none there.
    """
    from dataclasses import replace

    from tower.calibration.summaries import most_inside

    if not isinstance(simulator, PhysicsSimulator):
        return simulator
    return replace(simulator, max_inside=max(MIN_CLOG_LIMIT, 2 * most_inside(sessions)))


@dataclass(frozen=True)
class PhysicsSimulator:
    """The pybullet tower of a preset; ``base`` holds values of parameters not fitted.

    A throw in which the simulation loses a piece (it bounces back out over the funnel's
    rim, or the state turns non-finite) is thrown again from the state before it, with the
    next random release, up to ``retries`` times: a person at the table re-throws a keshi
    that missed the funnel, and one lost piece must not void a whole replay.

    A replay whose tower holds more than ``max_inside`` pieces after a throw is aborted
    (:class:`ReplayAborted`): such a clogged tower is far from any recording that keeps far
    fewer inside, and every further throw would cost more as the pile grows.
    """

    preset: str = "marrakesh"
    fit: tuple[str, ...] | None = None
    base_geometry: tuple[tuple[str, float], ...] = ()
    base_physics: tuple[tuple[str, Any], ...] = ()
    max_inside: int = 60
    retries: int = 5
    name: str = "physics"

    @property
    def source(self) -> str:
        """``physics-v<numerics version>:<preset>``, as a trace's source names it."""
        from tower.physics.world import source_label

        return source_label(self.preset)

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        every = physics_parameters(self.preset)
        if self.fit is None:
            return every
        return tuple(p for p in every if p.name in self.fit)

    def base_theta(self) -> dict[str, float]:
        """Each fitted parameter's value without fitting: base overrides, else the defaults."""
        from tower.physics.params import PhysicsParams

        physics = PhysicsParams().with_values(dict(self.base_physics))
        assumed = {k: a.value for k, a in _preset(self.preset).assumptions().items()}
        assumed.update(dict(self.base_geometry))
        return {
            p.name: float(
                assumed[p.name.removeprefix("geometry.")]
                if p.name.startswith("geometry.")
                else getattr(physics, p.name.removeprefix("physics."))
            )
            for p in self.parameters
        }

    def simulate(self, theta: Mapping[str, float], plan: Plan, seed: int) -> list[Session]:
        return self.replay(theta, plan, seed).sessions

    def replay(self, theta: Mapping[str, float], plan: Plan, seed: int) -> Replay:
        """Like :meth:`simulate`, also counting the pieces out that were just thrown."""
        from tower.physics.params import PhysicsParams
        from tower.physics.sim import TowerSim

        geometry, physics = split_theta(theta)
        spec = _preset(self.preset).with_values({**dict(self.base_geometry), **geometry})
        params = PhysicsParams().with_values({**dict(self.base_physics), **physics})
        outs: list[list[Counts]] = []
        fresh: list[list[int]] = []
        for i, p in enumerate(plan):
            sim = TowerSim(spec, params, seed=seed * 1000 + i)
            try:
                session_outs, session_fresh = [], []
                for k, counts in enumerate((*p.warmup, *p.throws)):
                    result = sim.throw(_pieces(counts), retries=self.retries)
                    if len(result.inside) > self.max_inside:
                        raise ReplayAborted(
                            f"clogged: {len(result.inside)} pieces inside after throw {k + 1} "
                            f"(limit {self.max_inside})"
                        )
                    if k >= len(p.warmup):
                        session_outs.append(_counts(result.out_pieces))
                        session_fresh.append(len(set(result.out) & set(result.thrown)))
                outs.append(session_outs)
                fresh.append(session_fresh)
            finally:
                sim.close()
        return Replay(sessions_from_outs(plan, outs), fresh)
