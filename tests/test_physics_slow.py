"""Long physics checks (``pytest -m slow``): thousands of throws lose nothing; towers settle.

Two runs of 100 towers x 100 throws in the Marrakesh tower: 12 keshis a throw, and mixed
throws of keshis, expert keshis (Gems & Experts), watchmen and brigands (Walls & Guards).
A third of 20 towers x 100 throws of 12 cubes in the ``queen-classic`` tower. Every throw
may be thrown again if the simulation loses a piece (as traces are made); each run must
need no re-throw and lose nothing. Before physics v2 the keshi run lost one keshi (tower
50, throw 5): it crossed the courtyard in one hop, climbed the front wall and flew out
over the side wall; pieces that are out and clear of the tube are now retired before they
reach the walls. Under numerics v3 the mixed run re-threw twice: a brigand left through the
tube's back wall (towers 33 and 49); numerics v4 backs the tube's walls with slabs and
gave 0 escapes, NaNs and re-throws in all three runs (keshis: mean inside 6.33 over throws
21-60, 6.46 over 61-100, max 17; mixed: 9.15, 9.31, max 54; cubes: 15.62, 16.05, max 28).
At 150 steps a second the cubes sank through the courtyard board; that tower asks for 240
(its preset's ``steps_per_second``).
Run with ``.venv/bin/pytest -m slow tests/test_physics_slow.py -s`` to see the counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from tower.geometry import load_preset
from tower.physics import NonFiniteStateError, SimulationError, TowerSim
from tower.physics.sequences import PLAYER_COLOURS, cached_geometry, sequence_seed
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece, mixed_keshis
from tower.runs import Task, run_tasks
from tower.runs.batch import read_records

TOWERS, THROWS = 100, 100
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


#: mix -> (preset, towers, seed base, one throw's pieces)
RUNS = {
    "keshis": ("marrakesh", TOWERS, 2026, lambda rng: mixed_keshis(12)),
    "mixed": ("marrakesh", TOWERS, 2027, mixed_throw),
    "cubes": ("queen-classic", 20, 2028, cubes),
}


def tower_record(args: dict) -> dict:
    """Throw THROWS times into one tower; count re-throws, escapes and NaNs instead of
    stopping at one (a tower that loses a piece in every attempt is replaced by a fresh one
    for the remaining throws)."""
    geometry = cached_geometry(args["spec_toml"])
    seed = args["seed"]
    rng = np.random.Generator(np.random.PCG64([seed, 1]))
    escapes = nans = rethrows = done = 0
    inside: list[int] = []
    restarts = 0
    sim = TowerSim(geometry.spec, seed=seed, geometry=geometry)
    while done < THROWS:
        pieces = RUNS[args["mix"]][3](rng)
        try:
            result = sim.throw(pieces, retries=RETRIES)
        except NonFiniteStateError:
            nans += 1
        except SimulationError:
            escapes += 1
        else:
            done += 1
            rethrows += result.rethrows
            inside.append(len(result.inside))
            continue
        done += 1
        restarts += 1
        sim.close()
        sim = TowerSim(geometry.spec, seed=seed + restarts, geometry=geometry)
    sim.close()
    return {"key": args["key"], "throws": done, "escapes": escapes, "nans": nans,
            "rethrows": rethrows, "inside": inside}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("mix", sorted(RUNS))
def test_ten_thousand_throws_lose_nothing_and_settle(tmp_path, mix):
    """10,000 throws each of keshis and of mixed pieces (Marrakesh tower), and 2,000 of
    cubes in the ``queen-classic`` tower (simulated at its own finer time step)."""
    preset, towers, base, _ = RUNS[mix]
    spec = load_preset(preset)
    tasks = [
        Task(k, {"key": k, "spec_toml": spec.to_toml(), "seed": sequence_seed(base, k), "mix": mix})
        for k in range(towers)
    ]
    out = tmp_path / "towers.jsonl"
    run_tasks(tasks, tower_record, out, workers=2, progress=False)
    records = read_records(out)
    throws = sum(r["throws"] for r in records)
    escapes = sum(r["escapes"] for r in records)
    nans = sum(r["nans"] for r in records)
    rethrows = sum(r["rethrows"] for r in records)
    full = np.array([r["inside"] for r in records if len(r["inside"]) == THROWS], dtype=float)
    early, late = full[:, 20:60].mean(), full[:, 60:].mean()
    print(
        f"\n{throws} throws ({mix}): {escapes} escapes, {nans} NaNs, {rethrows} re-throws; "
        f"mean inside throws 21-60: {early:.2f}, 61-100: {late:.2f}, max {full.max():.0f}"
    )
    assert throws == towers * THROWS
    assert escapes == 0 and nans == 0 and rethrows == 0
    if mix == "keshis":
        # an equilibrium in the range players report, not a pile growing for ever (mixed
        # throws of bigger pieces fill the tower more slowly: printed, not asserted)
        assert 3 <= late <= 15
        assert late - early < 1.5
