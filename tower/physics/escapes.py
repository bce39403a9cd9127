"""The long physics checks: many towers of many throws, every lost piece counted and
replayable.

A throw in which the simulation loses a piece (it leaves the tower's bounds, ends nowhere
in the tower, or gets a NaN state) is caught by the guard in :meth:`TowerSim.throw` and
thrown again (``retries``); :attr:`TowerSim.lost` logs every such attempt.
:func:`check_tower` throws one tower of a check mix (:data:`CHECK_MIXES`) and returns its
counts with one entry per lost attempt naming the tower's seed and the throw;
:func:`replay_lost` throws that tower again up to that throw and records, step by step,
where the lost piece went and which parts of the tower it touched on its way out.

Examples
--------
>>> record = check_tower("keshis", seed=5, throws=2)  # doctest: +SKIP
>>> record["throws"], record["lost"]  # doctest: +SKIP
(2, [])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pybullet as pb

from tower.files.outputs import run_header
from tower.geometry import load_preset
from tower.physics.sequences import (
    PLAYER_COLOURS,
    ROUND_KESHIS,
    cached_geometry,
    expert_batch,
    sequence_seed,
)
from tower.physics.sim import (
    EscapeError,
    LostAttempt,
    NonFiniteStateError,
    SimulationError,
    TowerSim,
)
from tower.physics.world import LENGTH, Numerics
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece, mixed_keshis
from tower.runs import Task, read_records, run_tasks

#: Re-throws allowed per throw, as for traces (:func:`tower.physics.sequences.sequence_tasks`).
RETRIES = 3
CUBE_COLOURS = ("red", "yellow", "green", "blue", "white")


def mixed_throw(rng: np.random.Generator) -> list[Piece]:
    """1-12 keshis, 0-5 expert keshis, 0-3 watchmen and 0-2 brigands, in random order."""
    keshis, experts = int(rng.integers(1, 13)), int(rng.integers(0, 6))
    watchmen, brigands = int(rng.integers(0, 4)), int(rng.integers(0, 3))
    pieces = [Piece(Kind.KESHI, KESHI_COLOURS[c]) for c in rng.integers(12, size=keshis)]
    pieces += [Piece(Kind.EXPERT, KESHI_COLOURS[c]) for c in rng.integers(12, size=experts)]
    pieces += [Piece(Kind.WATCHMAN, PLAYER_COLOURS[c]) for c in rng.integers(4, size=watchmen)]
    pieces += [Piece(Kind.BRIGAND, NEUTRAL)] * brigands
    return [pieces[i] for i in rng.permutation(len(pieces))]


def cubes(rng: np.random.Generator) -> list[Piece]:
    """12 cubes in 5 colours, as in the Queen tower games (the ``queen-classic`` tower)."""
    return [Piece(Kind.CUBE, CUBE_COLOURS[c]) for c in rng.integers(5, size=12)]


def twelve_keshis(rng: np.random.Generator) -> list[Piece]:
    """12 keshis, one of each colour (a four-player Marrakesh round); draws nothing."""
    return mixed_keshis(12)


def expert_round(rng: np.random.Generator) -> list[Piece]:
    """A Gems & Experts round: 6, 9 or 12 keshis (2-4 players) and 1-5 expert keshis,
    colours random, in random order (the keshi count drawn per throw, unlike the
    ``"experts"`` sequences of :mod:`tower.physics.sequences`, which keep one per game)."""
    return expert_batch(rng, ROUND_KESHIS[int(rng.integers(len(ROUND_KESHIS)))])


@dataclass(frozen=True)
class CheckMix:
    """What a long check throws: the tower preset and one throw's pieces (drawn from the
    tower's piece generator, ``PCG64([seed, 1])``)."""

    preset: str
    pieces: Callable[[np.random.Generator], list[Piece]]


#: The long checks' mixes: 12 keshis, mixed Marrakesh pieces, expert rounds, and cubes in
#: the Queen tower.
CHECK_MIXES: dict[str, CheckMix] = {
    "keshis": CheckMix("marrakesh", twelve_keshis),
    "mixed": CheckMix("marrakesh", mixed_throw),
    "experts": CheckMix("marrakesh", expert_round),
    "cubes": CheckMix("queen-classic", cubes),
}


def check_mix(mix: str) -> CheckMix:
    """The :data:`CHECK_MIXES` entry ``mix``, or a ``ValueError`` naming the known ones."""
    if mix not in CHECK_MIXES:
        raise ValueError(f"unknown check mix {mix!r}; expected one of {sorted(CHECK_MIXES)}")
    return CHECK_MIXES[mix]


def _throw_tower(
    mix: str,
    seed: int,
    throws: int,
    spec_toml: str | None,
    numerics: Numerics | None,
    throw_one: Callable[[TowerSim, list[Piece]], bool],
) -> None:
    """Throw one tower of ``mix`` up to ``throws`` times: ``throw_one(sim, pieces)`` throws
    and returns False to stop. When it raises :class:`SimulationError` (every attempt lost
    a piece) a fresh tower seeded ``seed + restarts`` takes over."""
    entry = check_mix(mix)
    if spec_toml is None:
        spec_toml = load_preset(entry.preset).to_toml()
    geometry = cached_geometry(spec_toml)
    rng = np.random.Generator(np.random.PCG64([seed, 1]))
    restarts = 0
    sim = TowerSim(geometry.spec, seed=seed, numerics=numerics, geometry=geometry)
    try:
        for _ in range(throws):
            try:
                if not throw_one(sim, entry.pieces(rng)):
                    return
            except SimulationError:
                restarts += 1
                sim.close()
                sim = TowerSim(
                    geometry.spec, seed=seed + restarts, numerics=numerics, geometry=geometry
                )
    finally:
        sim.close()


def check_tower(
    mix: str,
    seed: int,
    throws: int = 100,
    *,
    retries: int = RETRIES,
    spec_toml: str | None = None,
    numerics: Numerics | None = None,
) -> dict[str, Any]:
    """Throw one tower of the check mix ``mix`` ``throws`` times and count what was lost.

    Parameters
    ----------
    mix : str
        A :data:`CHECK_MIXES` key.
    seed : int
        The tower's seed (release randomness) and its piece generator's.
    throws : int
        Throws into the tower.
    retries : int
        Re-throws allowed per throw (:meth:`TowerSim.throw`). A throw lost in every
        attempt counts as an escape or a NaN, and a fresh tower seeded ``seed + restarts``
        takes over for the remaining throws.
    spec_toml : str, optional
        The tower; the mix's preset if omitted.
    numerics : Numerics, optional
        Numerical settings; the tower's defaults (:meth:`Numerics.for_spec`) if omitted.

    Returns
    -------
    dict
        ``throws``, ``escapes`` and ``nans`` (throws lost in every attempt), ``rethrows``
        (attempts thrown again), ``caught`` (pieces found behind a funnel panel and pushed
        back, in the throws that kept every piece) and ``caught_at`` (per such throw the
        tower's seed, the throw and the pieces), ``inside`` (pieces inside after each throw that
        succeeded), ``pieces`` (pieces thrown, every attempt counted) and ``lost``: per lost
        attempt the seed of the tower it happened in, the throw (its number in that
        tower), the attempt, ``"escape"`` or ``"nan"``, the piece's id and the guard's
        message; :func:`replay_lost` replays one.
    """
    record: dict[str, Any] = {"throws": 0, "escapes": 0, "nans": 0, "rethrows": 0,
                              "caught": 0, "caught_at": [], "inside": [], "pieces": 0,
                              "lost": []}  # fmt: skip

    def throw_one(sim: TowerSim, pieces: list[Piece]) -> bool:
        start = len(sim.lost)
        record["throws"] += 1
        try:
            result = sim.throw(pieces, retries=retries)
        except SimulationError as exc:
            record["escapes"] += isinstance(exc, EscapeError)
            record["nans"] += isinstance(exc, NonFiniteStateError)
            kept = 0
            raise
        else:
            record["rethrows"] += result.rethrows
            record["caught"] += len(result.caught)
            if result.caught:
                record["caught_at"].append(
                    {"seed": sim.seed, "throw": result.index, "pieces": list(result.caught)}
                )
            record["inside"].append(len(result.inside))
            kept = 1
        finally:
            record["lost"] += [_lost_entry(sim, lost) for lost in sim.lost[start:]]
            # every attempt: the lost ones, and the one that kept every piece
            record["pieces"] += len(pieces) * (len(sim.lost) - start + kept)
        return True

    _throw_tower(mix, seed, throws, spec_toml, numerics, throw_one)
    return record


def _lost_entry(sim: TowerSim, lost: LostAttempt) -> dict[str, Any]:
    """One lost attempt of ``sim`` as a JSON entry."""
    return {
        "seed": sim.seed,
        "throw": lost.throw,
        "attempt": lost.attempt,
        "kind": "nan" if isinstance(lost.error, NonFiniteStateError) else "escape",
        "piece": lost.error.piece,
        "message": str(lost.error),
    }


def check_task(args: dict[str, Any]) -> dict[str, Any]:
    """One tower of :func:`check_batch` (a picklable task function): ``args`` holds the
    ``key``, ``mix``, ``seed``, ``throws`` and ``spec_toml``."""
    record = check_tower(args["mix"], args["seed"], args["throws"], spec_toml=args["spec_toml"])
    return {"key": args["key"], "tower_seed": args["seed"], **record}


def check_batch(
    mix: str,
    batch_seed: int,
    towers: int,
    out: str | Path,
    *,
    throws: int = 100,
    workers: int | None = 1,
) -> dict[str, Any]:
    """Throw ``towers`` check towers of ``mix`` (tower ``k`` seeded
    ``sequence_seed(batch_seed, k)``), one JSON line per tower in ``out``; a killed run
    resumes where it stopped (:func:`tower.runs.run_tasks`). Returns the totals
    (:func:`batch_totals`)."""
    spec_toml = load_preset(check_mix(mix).preset).to_toml()
    base = {"mix": mix, "throws": throws, "spec_toml": spec_toml}
    tasks = [
        Task(k, {**base, "key": k, "seed": sequence_seed(batch_seed, k)}) for k in range(towers)
    ]
    header = run_header("physics-check", {"mix": mix, "batch_seed": batch_seed,
                                          "towers": towers, "throws": throws})  # fmt: skip
    run_tasks(tasks, check_task, out, workers=workers, progress=False, header=header)
    return batch_totals(read_records(out))


def batch_totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums over :func:`check_task` records: towers, throws, pieces, escapes, NaNs,
    re-throws, pieces caught behind a funnel panel, lost pieces (every lost attempt), both
    per million pieces thrown, and each lost attempt and each throw that caught a piece
    with its tower's key."""
    lost = [{"tower": r["key"], **entry} for r in records for entry in r["lost"]]
    pieces = sum(r["pieces"] for r in records)
    return {
        "towers": len(records),
        "throws": sum(r["throws"] for r in records),
        "pieces": pieces,
        "escapes": sum(r["escapes"] for r in records),
        "nans": sum(r["nans"] for r in records),
        "rethrows": sum(r["rethrows"] for r in records),
        "caught": sum(r["caught"] for r in records),
        "lost_pieces": len(lost),
        "lost_per_million": 1e6 * len(lost) / pieces if pieces else 0.0,
        "caught_per_million": 1e6 * sum(r["caught"] for r in records) / pieces if pieces else 0.0,
        "lost": lost,
        "caught_at": [{"tower": r["key"], **e} for r in records for e in r.get("caught_at", [])],
    }


#: Steps of the lost piece's path kept by :func:`replay_lost`.
PATH_STEPS = 40


def replay_lost(
    mix: str,
    seed: int,
    throw: int,
    attempt: int = 0,
    *,
    tower_seed: int | None = None,
    throws: int = 100,
    spec_toml: str | None = None,
    numerics: Numerics | None = None,
) -> dict[str, Any]:
    """Throw a check tower again up to one lost attempt and follow the lost piece.

    The throws before ``throw`` are thrown as :func:`check_tower` throws them; throw
    ``throw`` is thrown with ``attempt`` re-throws allowed while every step is watched
    (reading the pybullet state, which changes nothing), so on the machine the loss was
    found on the same attempt loses the same piece.

    Parameters
    ----------
    mix, seed : str, int
        The check mix and the seed :func:`check_tower` was called with.
    throw : int
        The throw, numbered in the tower of ``tower_seed``.
    attempt : int
        Which attempt lost the piece (0: the first).
    tower_seed : int, optional
        The seed of the tower the loss happened in (``seed`` of the ``lost`` entry):
        ``seed`` unless a restart replaced the first tower.
    throws, spec_toml, numerics : optional
        As for :func:`check_tower`.

    Returns
    -------
    dict
        ``lost`` (False if the attempt kept every piece on this machine, with ``caught``:
        the pieces found behind a funnel panel and pushed back); when lost also
        ``message``, ``piece`` (its id and kind), ``exit_step`` (from this step on its
        centre was in no place of the tower), ``path``: its steps up to :data:`PATH_STEPS`
        either side of that (step number, position in mm, speed in mm/s, place),
        ``contacts``: the tower parts it touched on those steps (name: deepest
        penetration in mm) and ``last_part``, the last part it touched before it left.
    """
    target = seed if tower_seed is None else tower_seed
    report: dict[str, Any] = {}

    def throw_one(sim: TowerSim, pieces: list[Piece]) -> bool:
        if (sim.seed, sim.throws) != (target, throw):
            sim.throw(pieces, retries=RETRIES)
            return True
        watch = _Watch(sim)
        order = [*sorted(sim.inside), *range(len(sim.pieces), len(sim.pieces) + len(pieces))]
        kinds = [*sim.pieces, *pieces]  # a throw that raises forgets its new pieces
        try:
            result = sim.throw(pieces, retries=attempt)
        except SimulationError as exc:
            if exc.piece is None:
                raise
            body = sim.world.piece_ids[order.index(exc.piece)]
            piece = {"id": exc.piece, "kind": str(kinds[exc.piece])}
            report.update(lost=True, message=str(exc), piece=piece, **watch.report(body))
        else:
            report.update(lost=False, caught=list(result.caught))
        finally:
            watch.stop()
        return False

    _throw_tower(mix, seed, throws, spec_toml, numerics, throw_one)
    if not report:
        raise ValueError(f"check tower {seed} ({mix}) has no throw {throw} in tower {target}")
    return report


class _Watch:
    """Records every step of a tower's throw: each piece body's position and velocity and
    the tower parts it touches (read from pybullet after the step; nothing is changed)."""

    def __init__(self, sim: TowerSim) -> None:
        self.sim, self.world = sim, sim.world
        self._step = self.world.step
        self.steps = 0
        self.history: dict[int, list[tuple[int, tuple, tuple, dict[str, float]]]] = {}
        self.world.step = self._record  # type: ignore[method-assign]

    def stop(self) -> None:
        del self.world.step

    def _record(self) -> None:
        self._step()
        self.steps += 1
        c = self.world.client
        names = self.world.static_names
        for body in self.world.piece_ids:
            pos, _ = pb.getBasePositionAndOrientation(body, physicsClientId=c)
            vel, _ = pb.getBaseVelocity(body, physicsClientId=c)
            touched: dict[str, float] = {}
            for point in pb.getContactPoints(bodyA=body, physicsClientId=c):
                name = names.get(point[2])
                if name is not None:
                    depth = round(-point[8] / LENGTH, 3)
                    touched[name] = max(touched.get(name, -np.inf), depth)
            self.history.setdefault(body, []).append((self.steps, pos, vel, touched))

    def report(self, body: int) -> dict[str, Any]:
        """Where the piece of pybullet body ``body`` left the tower: the step from which
        its centre was in no place of the tower (``exit_step``, or the last step if it
        ended in one), its path :data:`PATH_STEPS` steps either side, the tower parts it
        touched on those steps and the last part touched before it left."""
        path = self.history.get(body, [])
        if not path:
            return {"exit_step": None, "path": [], "contacts": [], "last_part": None}
        where = self.sim.spec.place_of(np.array([p for _, p, _, _ in path]) / LENGTH)
        exit_at = len(path) - 1
        while exit_at > 0 and where[exit_at - 1] is None:
            exit_at -= 1
        shown = path[max(0, exit_at - PATH_STEPS) : exit_at + PATH_STEPS + 1]
        before = [name for _, _, _, touched in path[: exit_at + 1] for name in touched]
        return {
            "exit_step": path[exit_at][0],
            "path": [
                {
                    "step": s,
                    "position": [round(v / LENGTH, 2) for v in pos],
                    "speed": round(float(np.linalg.norm(vel)) / LENGTH, 1),
                    "place": str(where[k + max(0, exit_at - PATH_STEPS)]),
                }
                for k, (s, pos, vel, _) in enumerate(shown)
            ],
            "contacts": [{"step": s, "parts": touched} for s, _, _, touched in shown if touched],
            "last_part": before[-1] if before else None,
        }
