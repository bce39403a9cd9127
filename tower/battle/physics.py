"""Cross-checking the battle checker's model answers against the physics simulator.

Each physics replicate is one season of battles in a fresh simulated tower
(:class:`tower.physics.TowerSim`, pawns with their own shapes): the tower keeps its inside
between the battles, exactly like the model's state. The model side is the checker's own
answer for the same situation from the same start. Physics is imported lazily, so the
checker works without pybullet.

Replicates run through :func:`tower.runs.run_tasks`: local processes by default, a Dask
cluster with a scheduler address, one JSON line per finished season in a resumable log.
A replicate's key names everything it depends on (situation, seed, warm-up, preset and a
hash of the tower file, the parameters and the simulator's source), so one log can hold
several runs and a changed simulator never reuses old seasons.
"""

from __future__ import annotations

import hashlib
import json
import math
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
from tower.marrakesh.wall_battle import fight_season, resolve_battle
from tower.pieces import KESHI_COLOURS, Kind, Piece

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
    their combined standard error.

    A physics sample without spread (every season gave the same value, e.g. 0 breaches in
    all 400) estimates its own standard error as 0, which would make any small difference
    look huge. Its standard error is then the model's spread over the sample size,
    ``model_sd / sqrt(physics_n)``: what it is if the two agree, the hypothesis tested.

    >>> round(Comparison("red", "breaches", 0.004, 0.0, 0.0, 0.0, 0.063, 400).z, 2)
    -1.27
    """

    player: str
    quantity: str
    model: float
    model_se: float
    physics: float
    physics_se: float
    model_sd: float = 0.0
    physics_n: int = 0

    @property
    def z(self) -> float:
        """Standardised difference (0 when both standard errors vanish and means agree)."""
        physics_se = self.physics_se
        if physics_se == 0.0 and self.physics_n > 0:
            physics_se = self.model_sd / math.sqrt(self.physics_n)
        se = math.hypot(self.model_se, physics_se)
        diff = self.physics - self.model
        if se == 0.0:
            return 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
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
            "model_sd": self.model_sd,
            "physics_n": self.physics_n,
            "z": self.z,
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


def run_id(situation: Situation, seed: int, warmup: int, physics: str) -> str:
    """Short hash naming a run: replicate ``j`` of it has the key ``"<run_id>/<j>"``.

    >>> from tower.battle.checker import Situation
    >>> a = run_id(Situation.default(), 0, 0, "p")
    >>> a == run_id(Situation.default(), 0, 0, "p"), a == run_id(Situation.default(), 1, 0, "p")
    (True, False)
    """
    ident = {
        "situation": situation.to_json(),
        "seed": seed,
        "warmup_rounds": warmup,
        "physics": physics,
        "hand": "shuffled",
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]


def expert_keshis(rng: random.Random) -> list[Piece]:
    """The expert keshis thrown with a Gems & Experts round: one per face-up expert tile,
    1 to 5 (*Gems & Experts*), colours drawn at random."""
    return [Piece(Kind.EXPERT, rng.choice(KESHI_COLOURS)) for _ in range(rng.randint(1, 5))]


def season_task(args: dict[str, Any]) -> dict[str, Any]:
    """One simulated season (a :func:`tower.runs.run_tasks` task; plain data in and out).

    The simulator seed is ``seed * 1_000_003 + j``. The pieces of a battle leave the hand
    in a seeded random order (the simulator releases them in list order), so no kind is
    always on top. With a warm-up the tower first sees that many ordinary rounds
    (:func:`~tower.battle.checker.ordinary_round`), as
    :func:`~tower.battle.checker.warm_tower` does with the model. With ``args["trace"]``
    the record also holds every throw of the season, warm-up included, as a
    :mod:`tower.traces` sequence (``seq`` = ``j``). With ``args["experts"]`` every warm-up
    round also throws 1 to 5 expert keshis (:func:`expert_keshis`),
    drawn from their own stream, so the rounds' keshis are those of a run without them.
    """
    from tower.geometry import load_preset
    from tower.physics import TowerSim
    from tower.physics.params_file import apply_params
    from tower.physics.sequences import cached_geometry
    from tower.traces import TraceSequence

    situation = Situation.from_json(args["situation"])
    seed, j = args["seed"], args["replicate"]
    params_file = Path(args["params_file"]) if args["params_file"] else None
    spec, params = apply_params(load_preset(args["preset"]), params_file)
    geometry = cached_geometry(spec.to_toml())
    sim = TowerSim(geometry.spec, params, seed=seed * 1_000_003 + j, geometry=geometry)
    results = []

    def throw(pieces: list[Piece]) -> list[Piece]:
        results.append(sim.throw(pieces, retries=RETRIES))
        return results[-1].out_pieces

    try:
        rng = random.Random(f"warm/{seed}/{j}")
        experts = random.Random(f"experts/{seed}/{j}") if args.get("experts") else None
        for _ in range(args["warmup"]):
            pieces = ordinary_round(len(situation.order), rng)
            if experts is not None:  # Gems & Experts too: 1-5 experts with every round
                pieces += expert_keshis(experts)
                experts.shuffle(pieces)
            throw(pieces)
        hand = random.Random(f"hand/{seed}/{j}")
        season = fight_season(
            situation.season,
            situation.order,
            situation.recruited,
            situation.walls,
            lambda pieces: throw(hand.sample(pieces, len(pieces))),
        )
    finally:
        sim.close()
    record: dict[str, Any] = {
        "key": args["key"],
        "outs": [[str(p) for p in step.out] for step in season.steps],
        "rethrows": sum(r.rethrows for r in results),
    }
    if args.get("trace"):
        record["trace"] = TraceSequence(
            seq=j,
            seed=sim.seed,
            source=sim.source,
            pieces=tuple(sim.pieces),
            throws=tuple(r.to_trace() for r in results),
        ).to_json()
    return record


def physics_seasons(
    situation: Situation,
    replicates: int,
    *,
    seed: int = 0,
    preset: str = "marrakesh",
    warmup: int = 0,
    params_file: Path | None = None,
    log: Path | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    force: bool = False,
) -> PhysicsRun:
    """Run (or resume from ``log``) ``replicates`` simulated seasons of ``situation``.

    Without ``log`` the seasons go to a temporary file. ``workers`` and ``scheduler`` are
    those of :func:`tower.runs.run_tasks`. A throw in which the simulation loses a piece
    (it bounces out over the funnel's rim) is thrown again with the next random release,
    up to :data:`RETRIES` times, as a player re-throws a pawn that missed.
    """
    import tempfile

    from tower.files.outputs import run_header
    from tower.runs import Task, read_records, run_tasks

    rid = run_id(situation, seed, warmup, _physics_id(preset, params_file))
    base = {
        "situation": situation.to_json(),
        "seed": seed,
        "preset": preset,
        "warmup": warmup,
        "params_file": str(params_file) if params_file is not None else "",
    }
    tasks = [
        Task(f"{rid}/{j}", {**base, "replicate": j, "key": f"{rid}/{j}"}) for j in range(replicates)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = log if log is not None else Path(tmp) / "physics.jsonl"
        run_tasks(
            tasks,
            season_task,
            path,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            desc="physics seasons",
            header=run_header("battle --physics-log", {"schema": "keyed by situation"}),
            force=force,
        )
        found = {rec["key"]: rec for rec in read_records(path)}
    done = [found[t.key] for t in tasks]
    return PhysicsRun(
        [[tuple(Piece.parse(p) for p in out) for out in rec["outs"]] for rec in done],
        sum(int(rec["rethrows"]) for rec in done),
    )


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
    """Model against physics, per player, for expected points and expected breaches. The
    model's spread of breaches comes from its law; of points, from its Monte Carlo standard
    error, or for an exact result from the law of repelled attackers (a point each; a
    Watchtower's bonus is left out)."""
    rows: list[Comparison] = []
    for m, ph in zip(analysis.players, physics, strict=True):
        points_sd = m.points_se * math.sqrt(m.samples) if m.samples else _law_sd(m.repelled)
        rows.append(
            Comparison(
                m.player, "points", m.points, m.points_se, ph.points, ph.points_se,
                points_sd, ph.samples,
            )
        )  # fmt: skip
        rows.append(
            Comparison(
                m.player, "breaches", m.breaches_mean, m.breaches_se, ph.breaches_mean,
                ph.breaches_se, _law_sd(m.breaches), ph.samples,
            )
        )  # fmt: skip
    return rows


def _law_sd(law: dict[int, float]) -> float:
    """Standard deviation of a law ``{count: probability}``.

    >>> _law_sd({0: 0.5, 2: 0.5})
    1.0
    """
    mean = sum(k * p for k, p in law.items())
    return math.sqrt(max(sum(k * k * p for k, p in law.items()) - mean * mean, 0.0))
