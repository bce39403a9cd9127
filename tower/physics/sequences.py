"""Game-length throw sequences through independent towers, as trace records.

:func:`sequence_tasks` turns a batch request into :class:`tower.runs.Task` objects (plain,
picklable arguments) and :func:`simulate_sequence` runs one of them and returns one line of
the trace format (:mod:`tower.traces`). Each sequence gets its own seed, derived from the
batch seed and its index, so any sequence can be re-run alone with
``TowerSim(spec, params, seed)``.

Mixes (what is thrown each time):

- ``"keshis"``: ``pieces`` keshis cycling through the 12 colours (a Marrakesh round).
- ``"walls-guards"``: a random number of pieces, 1 to ``pieces``, each a keshi of a random
  colour, a watchman of a random player colour or a neutral brigand (Walls & Guards).
- ``"experts"``: Gems & Experts rounds (``../shared/seeds/003_c6ac3dd487abab3d.txt``: each
  round throws as many expert keshis as there are face-up expert tiles, 1 to 5, "together
  with the keshis of all players"). The keshi count is drawn once per sequence (one game,
  a fixed number of players) from 6, 9 and 12 (2-4 players x 3) up to ``pieces``
  (``pieces`` itself when it is under 6); every throw adds 1 to 5 experts. Colours are
  random, the order in the hand is shuffled.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tower.physics.params import PhysicsParams
from tower.physics.sim import TowerSim
from tower.physics.world import TowerGeometry
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece, mixed_keshis
from tower.runs import Task
from tower.traces import TraceSequence

MIXES: tuple[str, ...] = ("keshis", "walls-guards", "experts")

#: Keshis thrown per round by 2, 3 or 4 players (3 each).
ROUND_KESHIS: tuple[int, ...] = (6, 9, 12)
#: Expert keshis in the box (at most 5 face-up expert tiles, so 1 to 5 thrown per round).
MAX_EXPERTS = 5

#: Player colours for watchmen (their colour does not change the physics).
PLAYER_COLOURS: tuple[str, ...] = ("blue", "red", "white", "yellow")


def sequence_seed(seed: int, index: int) -> int:
    """The seed of sequence ``index`` in a batch seeded with ``seed`` (a 63-bit int)."""
    state = np.random.SeedSequence([int(seed), int(index)]).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def throw_pieces(mix: str, pieces: int, throws: int, seed: int) -> list[list[Piece]]:
    """What is thrown in each throw of one sequence (deterministic in ``seed``)."""
    if mix == "keshis":
        return [mixed_keshis(pieces) for _ in range(throws)]
    if mix == "experts":
        return expert_rounds(pieces, throws, seed)
    if mix != "walls-guards":
        raise ValueError(f"unknown mix {mix!r}; expected one of {MIXES}")
    rng = np.random.Generator(np.random.PCG64([int(seed), 7]))
    out = []
    for _ in range(throws):
        batch = []
        for _ in range(int(rng.integers(1, pieces + 1))):
            kind = int(rng.integers(3))
            if kind == 0:
                batch.append(Piece.keshi(KESHI_COLOURS[int(rng.integers(12))]))
            elif kind == 1:
                batch.append(Piece(Kind.WATCHMAN, PLAYER_COLOURS[int(rng.integers(4))]))
            else:
                batch.append(Piece(Kind.BRIGAND, NEUTRAL))
        out.append(batch)
    return out


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
    if mix not in MIXES:
        raise ValueError(f"unknown mix {mix!r}; expected one of {MIXES}")
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
