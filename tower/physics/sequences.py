"""Game-length throw sequences through independent towers, as trace records.

:func:`sequence_tasks` turns a batch request into :class:`tower.runs.Task` objects (plain,
picklable arguments) and :func:`simulate_sequence` runs one of them and returns one line of
the trace format (:mod:`tower.traces`). Each sequence gets its own seed, derived from the
batch seed and its index, so any sequence can be re-run alone with
``TowerSim(spec, params, seed)``.

Mixes (what is thrown each time):

- ``"keshis"``: ``pieces`` keshis cycling through the 12 colours (a Marrakesh round).
- ``"walls-guards"``: a random number of pieces, 1 to ``pieces``, each a keshi of a random
  colour, a watchman of a random player colour or a neutral brigand (Walls & Guards), with
  no more of a kind than the box holds (Walls & Guards, components: 3 watchmen in each of
  red, yellow, green and blue, 3 brigands): once a throw holds all of one, the next piece
  is drawn from what is left. Until a throw reaches a limit it throws what the mix threw
  before the limits (mix version 1; watchmen then blue, red, white, yellow), with the
  watchmen's colours renamed (blue, red, white, yellow become red, yellow, green, blue).
- ``"experts"``: Gems & Experts rounds (*Gems & Experts*, "The Experts": each
  round throws as many expert keshis as there are face-up expert tiles, 1 to 5, "together
  with the keshis of all players"). The keshi count is drawn once per sequence (one game,
  a fixed number of players) from 6, 9 and 12 (2-4 players x 3) up to ``pieces``
  (``pieces`` itself when it is under 6); every throw adds 1 to 5 experts. Colours are
  random, the order in the hand is shuffled.
- ``"cubes"``: ``pieces`` cubes cycling through :data:`CUBE_COLOURS` (the older Queen
  towers' games; the only mix a cube tower such as ``queen-classic`` can throw).

A tower can throw a mix only if it has a shape for every kind the mix holds
(:func:`check_mix`); :func:`own_mix` names the mix of the tower's own pieces.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from tower.errors import TowerError
from tower.physics.params import PhysicsParams
from tower.physics.sim import TowerSim
from tower.physics.world import TowerGeometry
from tower.pieces import KESHI_COLOURS, NEUTRAL, PLAYER_COLOURS, Kind, Piece, mixed_keshis
from tower.runs import Task
from tower.traces import TraceSequence

MIXES: tuple[str, ...] = ("keshis", "walls-guards", "experts", "cubes")
#: The kinds of piece each mix throws.
MIX_KINDS: dict[str, frozenset[Kind]] = {
    "keshis": frozenset({Kind.KESHI}),
    "walls-guards": frozenset({Kind.KESHI, Kind.WATCHMAN, Kind.BRIGAND}),
    "experts": frozenset({Kind.KESHI, Kind.EXPERT}),
    "cubes": frozenset({Kind.CUBE}),
}
#: Mixes whose draws have changed, with their current version (1 if absent). A run of
#: ``tower simulate`` names it in its run header, so a trace file of an earlier version is
#: not completed with throws of the new one.
MIX_VERSIONS: dict[str, int] = {"walls-guards": 2}

#: Keshis thrown per round by 2, 3 or 4 players (3 each).
ROUND_KESHIS: tuple[int, ...] = (6, 9, 12)
#: Expert keshis in the box (at most 5 face-up expert tiles, so 1 to 5 thrown per round).
MAX_EXPERTS = 5

#: Brigands in the Walls & Guards box, and watchmen of each player colour
#: (:data:`tower.pieces.PLAYER_COLOURS`; a watchman's colour does not change the physics).
BRIGANDS, WATCHMEN_PER_COLOUR = 3, 3
#: Cube colours of the ``"cubes"`` mix, cycling (the colour does not change the physics).
CUBE_COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "white")


class MixError(TowerError):
    """A tower asked to throw a mix with a kind of piece it has no shape for."""


def own_mix(spec: Any) -> str:
    """The mix of the tower's own pieces: ``"keshis"``, or ``"cubes"`` for a tower whose
    spec has no keshi (a Queen cube tower)."""
    return "keshis" if Kind.KESHI in spec.pieces else "cubes"


def check_mix(spec: Any, mix: str) -> None:
    """Raise :class:`MixError` (one line, naming the mixes that fit) unless the tower
    ``spec`` has a shape for every kind of piece ``mix`` throws."""
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; expected one of {MIXES}")
    missing = MIX_KINDS[mix] - set(spec.pieces)
    if missing:
        fits = [m for m in MIXES if MIX_KINDS[m] <= set(spec.pieces)]
        raise MixError(
            f"tower {spec.name!r} has no {' or '.join(sorted(missing))} pieces for the "
            f"{mix} mix (its pieces: {', '.join(sorted(spec.pieces))}); mixes it can "
            f"throw: {', '.join(fits)}"
        )


def sequence_seed(seed: int, index: int) -> int:
    """The seed of sequence ``index`` in a batch seeded with ``seed`` (a 63-bit int)."""
    state = np.random.SeedSequence([int(seed), int(index)]).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def throw_pieces(mix: str, pieces: int, throws: int, seed: int) -> list[list[Piece]]:
    """What is thrown in each throw of one sequence (deterministic in ``seed``)."""
    if mix == "keshis":
        return [mixed_keshis(pieces) for _ in range(throws)]
    if mix == "cubes":
        batch = [Piece(Kind.CUBE, CUBE_COLOURS[i % len(CUBE_COLOURS)]) for i in range(pieces)]
        return [list(batch) for _ in range(throws)]
    if mix == "experts":
        return expert_rounds(pieces, throws, seed)
    if mix != "walls-guards":
        raise ValueError(f"unknown mix {mix!r}; expected one of {MIXES}")
    rng = np.random.Generator(np.random.PCG64([int(seed), 7]))
    return [walls_guards_throw(rng, pieces) for _ in range(throws)]


def walls_guards_throw(rng: np.random.Generator, pieces: int) -> list[Piece]:
    """One throw of the ``"walls-guards"`` mix: 1 to ``pieces`` pieces, each a keshi, a
    watchman or a brigand with equal chances among the kinds (and watchmen's colours) of
    which the box still holds one.

    >>> from collections import Counter
    >>> batch = walls_guards_throw(np.random.Generator(np.random.PCG64(1)), 60)
    >>> Counter(p.kind for p in batch)[Kind.BRIGAND] <= BRIGANDS
    True
    """
    brigands = BRIGANDS
    watchmen = dict.fromkeys(PLAYER_COLOURS, WATCHMEN_PER_COLOUR)
    batch = []
    for _ in range(int(rng.integers(1, pieces + 1))):
        colours = [c for c, left in watchmen.items() if left]
        kinds = [Kind.KESHI]
        if colours:
            kinds.append(Kind.WATCHMAN)
        if brigands:
            kinds.append(Kind.BRIGAND)
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind is Kind.KESHI:
            batch.append(Piece.keshi(KESHI_COLOURS[int(rng.integers(12))]))
        elif kind is Kind.WATCHMAN:
            colour = colours[int(rng.integers(len(colours)))]
            watchmen[colour] -= 1
            batch.append(Piece(Kind.WATCHMAN, colour))
        else:
            brigands -= 1
            batch.append(Piece(Kind.BRIGAND, NEUTRAL))
    return batch


def expert_rounds(pieces: int, throws: int, seed: int) -> list[list[Piece]]:
    """The throws of the ``"experts"`` mix: one keshi count for the whole sequence (from
    :data:`ROUND_KESHIS` up to ``pieces``), 1 to :data:`MAX_EXPERTS` experts a throw.

    >>> rounds = expert_rounds(12, 3, seed=4)
    >>> len({sum(p.kind is Kind.KESHI for p in r) for r in rounds})
    1
    >>> all(1 <= sum(p.kind is Kind.EXPERT for p in r) <= 5 for r in rounds)
    True
    """
    rng = np.random.Generator(np.random.PCG64([int(seed), 11]))
    counts = [n for n in ROUND_KESHIS if n <= pieces] or [pieces]
    keshis = counts[int(rng.integers(len(counts)))]
    return [expert_batch(rng, keshis) for _ in range(throws)]


def expert_batch(rng: np.random.Generator, keshis: int) -> list[Piece]:
    """One Gems & Experts throw: ``keshis`` keshis and 1 to :data:`MAX_EXPERTS` expert
    keshis, colours random, in random order (drawn from ``rng``: the expert count, the
    colours, the order)."""
    colours = rng.integers(12, size=keshis + int(rng.integers(1, MAX_EXPERTS + 1)))
    batch = [
        Piece(Kind.KESHI if i < keshis else Kind.EXPERT, KESHI_COLOURS[int(c)])
        for i, c in enumerate(colours)
    ]
    return [batch[int(i)] for i in rng.permutation(len(batch))]


def sequence_tasks(
    spec: Any,
    params: PhysicsParams,
    *,
    sequences: int,
    throws: int,
    pieces: int,
    seed: int,
    mix: str = "keshis",
    retries: int = 3,
) -> list[Task]:
    """One task per sequence, keyed by its index ``seq`` (the trace's key field).

    A throw in which the simulation loses a piece is thrown again up to ``retries`` times
    (:meth:`TowerSim.throw`; the trace records ``rethrows``), so one such throw does not
    stop a batch; a sequence that still fails stops it loudly."""
    check_mix(spec, mix)
    base = {
        "spec_toml": spec.to_toml(),
        "params": params.to_json(),
        "throws": throws,
        "pieces": pieces,
        "mix": mix,
        "retries": retries,
    }
    return [Task(i, {**base, "seq": i, "seed": sequence_seed(seed, i)}) for i in range(sequences)]


@functools.lru_cache(maxsize=4)
def cached_geometry(spec_toml: str) -> TowerGeometry:
    """Mesh a spec once per process (workers run many sequences of the same tower)."""
    from tower.physics.sim import _spec_from_toml

    return TowerGeometry.from_spec(_spec_from_toml(spec_toml, "<task>"))


def simulate_sequence(args: dict[str, Any]) -> dict[str, Any]:
    """Run one task of :func:`sequence_tasks`; return its trace record (a JSON dict)."""
    geometry = cached_geometry(args["spec_toml"])
    params = PhysicsParams.from_json(args["params"])
    seed = int(args["seed"])
    sim = TowerSim(geometry.spec, params, seed, geometry=geometry)
    retries = int(args.get("retries", 0))
    try:
        results = [
            sim.throw(batch, retries=retries)
            for batch in throw_pieces(args["mix"], args["pieces"], args["throws"], seed)
        ]
    finally:
        sim.close()
    seq = TraceSequence(
        seq=int(args["seq"]),
        seed=seed,
        source=sim.source,
        pieces=tuple(sim.pieces),
        throws=tuple(r.to_trace() for r in results),
    )
    return seq.to_json()


def run_sequences(
    spec: Any, params: PhysicsParams, out: str | Path, *, sequences: int, throws: int = 12,
    pieces: int = 12, mix: str | None = None, seed: int = 0, retries: int = 3,
    scheduler: str | None = None, workers: int | None = None, progress: bool = True,
    force: bool = False,
) -> dict[str, int]:  # fmt: skip
    """Run, or resume, ``sequences`` independent towers into the trace file ``out``.

    Sequences run in this process, on ``workers`` local processes or on the Dask cluster
    at ``scheduler`` (:func:`tower.runs.run_tasks`); each finished one is appended at once,
    and a second call completes the file without repeating or losing a sequence. The run
    header records the settings, so a file of other settings is refused, not completed.
    ``mix`` ``None`` throws the tower's own pieces (:func:`own_mix`). Returns the run
    summary (``done``, ``skipped``).
    """
    from tower.files.outputs import run_header
    from tower.physics.world import NUMERICS_VERSION
    from tower.runs import run_tasks

    mix = mix or own_mix(spec)
    tasks = sequence_tasks(
        spec, params, sequences=sequences, throws=throws, pieces=pieces, seed=seed, mix=mix,
        retries=retries,
    )  # fmt: skip
    settings = {key: tasks[0].args[key] for key in ("throws", "pieces", "mix", "retries")}
    settings |= {"spec_toml": spec.to_toml(), "params": params.to_json(), "seed": seed}
    settings["numerics"] = NUMERICS_VERSION
    if mix in MIX_VERSIONS:  # a trace file of the mix's earlier draws is not completed
        settings["mix_version"] = MIX_VERSIONS[mix]
    return run_tasks(
        tasks, simulate_sequence, out, scheduler=scheduler, workers=workers,
        progress=progress, key_field="seq", desc="sequences",
        header=run_header("simulate", settings), force=force,
    )  # fmt: skip
