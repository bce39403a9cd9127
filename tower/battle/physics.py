"""Cross-checking the battle checker's model answers against the physics simulator.

Each physics replicate is one season of battles in a fresh simulated tower
(:class:`tower.physics.TowerSim`, pawns with their own shapes): the tower keeps its inside
between the battles, exactly like the model's state. The model side is the checker's own
answer for the same situation from an empty tower. Physics is imported lazily, so the
checker works without pybullet.

Replicates are appended one JSON line at a time to an optional log; a rerun with the same
situation and seed resumes after the last complete line.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tower.battle.checker import (
    Analysis,
    OutcomeTally,
    PlayerStats,
    Situation,
    ordinary_round,
)
from tower.errors import InputFileError
from tower.marrakesh.modules.battle import fight_season, resolve_battle
from tower.pieces import Piece

LOG_FORMAT = "tower.battle-physics/2"
#: Re-throws allowed for one throw that loses a piece.
RETRIES = 3


@dataclass(frozen=True)
class PhysicsRun:
    """Simulated seasons: per replicate, the pieces out of each battle in battle order,
    and how many throws had to be re-thrown because the simulation lost a piece."""

    seasons: list[list[tuple[Piece, ...]]]
    rethrows: int


@dataclass(frozen=True)
class Comparison:
    """Model against physics for one player: ``z`` is the difference of the means over
    their combined standard error."""

    player: str
    quantity: str
    model: float
    model_se: float
    physics: float
    physics_se: float

    @property
    def z(self) -> float:
        """Standardised difference (0 when both standard errors vanish and means agree)."""
        se = math.hypot(self.model_se, self.physics_se)
        diff = self.physics - self.model
        if se == 0.0:
            return 0.0 if diff == 0.0 else math.inf
        return diff / se

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "player": self.player,
            "quantity": self.quantity,
            "model": self.model,
            "model_se": self.model_se,
            "physics": self.physics,
            "physics_se": self.physics_se,
            "z": self.z,
        }


def log_header(
    situation: Situation, seed: int, preset: str, warmup: int = 0, physics: str = ""
) -> dict[str, Any]:
    """First line of a log: what its replicates are replicates of (``physics`` identifies
    the tower file and physical parameters, so a changed tower never resumes old runs)."""
    return {
        "format": LOG_FORMAT,
        "situation": situation.to_json(),
        "seed": seed,
        "preset": preset,
        "warmup_rounds": warmup,
        "physics": physics,
    }


def _physics_id(preset: str, params_file: Path | None) -> str:
    """SHA-256 of the preset file, the parameter file (if any), the default parameters and
    the source of the geometry and physics packages (a changed simulator starts afresh)."""
    import tower.geometry
    import tower.physics
    from tower.geometry.spec import preset_path
    from tower.physics import PhysicsParams

    h = hashlib.sha256(preset_path(preset).read_bytes())
    h.update(params_file.read_bytes() if params_file is not None else b"")
    h.update(json.dumps(PhysicsParams().to_json(), sort_keys=True).encode())
    for package in (tower.geometry, tower.physics):
        for source in sorted(Path(package.__file__).parent.glob("*.py")):
            h.update(source.name.encode() + source.read_bytes())
    return h.hexdigest()


def read_log(path: Path, header: dict[str, Any]) -> list[dict[str, Any]]:
    """Replicates already in ``path`` (dropping a torn last line); checks the header."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    if not lines:
        return []
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        raise InputFileError(str(path), "first line is not JSON", line=1) from None
    if first != header:
        raise InputFileError(
            str(path), "the log belongs to another situation, seed, preset or physics", line=1
        )
    done: list[dict[str, Any]] = []
    for i, line in enumerate(lines[1:], start=2):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines):  # torn by an interruption: redo that replicate
                break
            raise InputFileError(str(path), "not JSON", line=i) from None
        if rec.get("replicate") != len(done):
            raise InputFileError(
                str(path), f"expected replicate {len(done)}", line=i, field="replicate"
            )
        done.append(rec)
    return done


def physics_seasons(
    situation: Situation,
    replicates: int,
    *,
    seed: int = 0,
    preset: str = "marrakesh",
    warmup: int = 0,
    params_file: Path | None = None,
    log: Path | None = None,
    progress: bool = True,
) -> PhysicsRun:
    """Run ``replicates`` seasons of battles in the simulator.

    Replicate ``j`` uses simulator seed ``seed * 1_000_003 + j``, so a replicate is the same
    whenever it runs. The pieces of a battle leave the hand in a random order (the
    simulator releases them in list order), so no kind is always on top. With ``warmup``
    the tower first sees that many ordinary rounds
    (:func:`~tower.battle.checker.ordinary_round`, colours from a seeded generator), as
    :func:`~tower.battle.checker.warm_tower` does with the model. A throw in which the
    simulation loses a piece (it bounces out over the funnel's rim) is thrown again from
    the state before it with the next random release, up to :data:`RETRIES` times, as a
    player re-throws a pawn that missed.
    """
    from tqdm import tqdm

    from tower.calibration.params_file import apply_params
    from tower.geometry import load_preset
    from tower.physics import TowerGeometry, TowerSim

    spec, params = apply_params(load_preset(preset), params_file)
    geometry = TowerGeometry.from_spec(spec)
    header = log_header(situation, seed, preset, warmup, _physics_id(preset, params_file))
    records = read_log(log, header) if log is not None else []
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        # rewrite the header and the complete records (drops a torn last line)
        tmp = log.with_name(log.name + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in [header, *records]))
        tmp.replace(log)
    with tqdm(
        total=replicates,
        initial=min(len(records), replicates),
        disable=not progress,
        desc="physics seasons",
    ) as bar:
        for j in range(len(records), replicates):
            sim = TowerSim(spec, params, seed=seed * 1_000_003 + j, geometry=geometry)
            rethrows = [0]
            try:
                rng = random.Random(f"warm/{seed}/{j}")
                for _ in range(warmup):
                    _throw(sim, ordinary_round(len(situation.order), rng), rethrows)
                hand = random.Random(f"hand/{seed}/{j}")
                season = fight_season(
                    situation.season,
                    situation.order,
                    situation.recruited,
                    situation.walls,
                    lambda pieces, sim=sim, n=rethrows, hand=hand: _throw(
                        sim, hand.sample(pieces, len(pieces)), n
                    ),
                )
            finally:
                sim.close()
            rec = {
                "replicate": j,
                "outs": [[str(p) for p in s.out] for s in season.steps],
                "rethrows": rethrows[0],
            }
            records.append(rec)
            if log is not None:
                with log.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            bar.update(1)
    done = records[:replicates]
    return PhysicsRun(
        [[tuple(Piece.parse(p) for p in out) for out in rec["outs"]] for rec in done],
        sum(int(rec.get("rethrows", 0)) for rec in done),
    )


def _throw(sim: Any, pieces: list[Piece], rethrows: list[int]) -> list[Piece]:
    """``sim.throw(pieces).out_pieces``, thrown again if the simulation loses a piece.

    A failed throw leaves the simulator as it was, random generator included, so one draw
    from the generator moves the re-throw to the next random release.
    """
    from tower.physics import EscapeError, NonFiniteStateError

    for attempt in range(RETRIES + 1):
        try:
            return sim.throw(pieces).out_pieces
        except (EscapeError, NonFiniteStateError):
            if attempt == RETRIES:
                raise
            rethrows[0] += 1
            sim.rng.random()
    raise AssertionError("unreachable")


def physics_stats(
    situation: Situation, seasons: list[list[tuple[Piece, ...]]]
) -> list[PlayerStats]:
    """Each player's battle statistics from simulated seasons (Monte Carlo)."""
    tallies = {p: OutcomeTally() for p in situation.order}
    for outs in seasons:
        for player, out in zip(situation.order, outs, strict=True):
            tallies[player].add(resolve_battle(player, out, situation.walls[player]))
    return [
        tallies[p].stats(p, situation.recruited.get(p, 0), "monte carlo") for p in situation.order
    ]


def compare(analysis: Analysis, physics: list[PlayerStats]) -> list[Comparison]:
    """Model against physics, per player, for expected points and expected breaches."""
    rows: list[Comparison] = []
    for m, ph in zip(analysis.players, physics, strict=True):
        rows.append(Comparison(m.player, "points", m.points, m.points_se, ph.points, ph.points_se))
        rows.append(
            Comparison(
                m.player,
                "breaches",
                m.breaches_mean,
                m.breaches_se,
                ph.breaches_mean,
                ph.breaches_se,
            )
        )
    return rows
