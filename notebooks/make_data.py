"""Make the small cached physics trace sets the study notebooks read (notebooks/data/).

The notebooks never run long physics: they read these files. Each file is one
``tower.trace/1`` JSONL file of independent towers, each starting empty, written and
resumed by :func:`tower.runs.run_tasks` (rerunning completes a file without repeating a
sequence). Run from the repository root::

    .venv/bin/python notebooks/make_data.py [--sequences 60] [--workers 1]

which runs, for each set (N pieces a throw, T throws, S sequences): N = 6, 9, 12 with
T = 12 (a game's length) and S sequences, and N = 12 with T = 36 and S / 3 sequences
(file suffix ``-12x36``, to see the equilibrium from empty):

- ``tower simulate --preset marrakesh --pieces N --throws T --sequences S --seed 8
  --out notebooks/data/physics-marrakesh-N.jsonl`` (12 mixed keshi colours);
- the same for the ``queen-classic`` preset with N cubes a throw (``tower simulate`` throws
  keshis, which that tower has no shape for, so this script runs :func:`cube_sequence`):
  ``notebooks/data/physics-queen-classic-N.jsonl``.

Physics parameters are the built-in defaults of the checkout it runs in.

All files are physics numerics v4 (their run header and trace ``source`` say so). The
``queen-classic`` tower is simulated at 240 steps a second, which its preset asks for
(``steps_per_second``): at the default 150 its cubes sank through the courtyard board.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SIZES = (6, 9, 12)
THROWS = 12
SEED = 8
#: Cube colours of the queen-classic sequences: five player colours, cycling.
CUBE_COLOURS = ("red", "yellow", "green", "blue", "white")


#: A cube tower whose throw loses a piece over the courtyard wall is started again with
#: the next seed of its sequence (at most this many tries); the trace keeps the seed used.
TRIES = 5


def cube_sequence(args: dict[str, Any]) -> dict[str, Any]:
    """One queen-classic tower from empty: ``throws`` throws of ``pieces`` cubes."""
    from tower.geometry import load_preset
    from tower.physics import EscapeError, PhysicsParams, TowerSim
    from tower.physics.sequences import sequence_seed
    from tower.pieces import Kind, Piece
    from tower.traces import TraceSequence

    spec = load_preset(args["preset"])
    batch = [Piece(Kind.CUBE, CUBE_COLOURS[i % len(CUBE_COLOURS)]) for i in range(args["pieces"])]
    for attempt in range(TRIES):
        seed = sequence_seed(SEED + attempt, args["seq"])
        sim = TowerSim(spec, PhysicsParams(), seed)
        try:
            results = [sim.throw(batch) for _ in range(args["throws"])]
            break
        except EscapeError as exc:
            print(f"sequence {args['seq']}: {exc}; starting again with the next seed")
        finally:
            sim.close()
    else:
        raise RuntimeError(f"sequence {args['seq']}: every one of {TRIES} towers lost a piece")
    return TraceSequence(
        seq=args["seq"],
        seed=seed,
        source=sim.source,
        pieces=tuple(sim.pieces),
        throws=tuple(r.to_trace() for r in results),
    ).to_json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=60)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", choices=("marrakesh", "queen-classic"), default=None)
    opts = parser.parse_args()
    from tower.files.outputs import run_header
    from tower.physics.world import NUMERICS_VERSION
    from tower.runs import Task, run_tasks

    DATA.mkdir(parents=True, exist_ok=True)
    tower = str(Path(sys.executable).with_name("tower"))
    sets = [(n, THROWS, opts.sequences, str(n)) for n in SIZES]
    sets.append((12, 3 * THROWS, max(1, opts.sequences // 3), f"12x{3 * THROWS}"))
    for n, throws, sequences, suffix in sets:
        if opts.only in (None, "marrakesh"):
            cmd = [tower, "simulate", "--preset", "marrakesh", "--pieces", str(n)]
            cmd += ["--throws", str(throws), "--sequences", str(sequences)]
            cmd += ["--seed", str(SEED), "--workers", str(opts.workers)]
            cmd += ["--out", str(DATA / f"physics-marrakesh-{suffix}.jsonl")]
            print(" ".join(cmd[1:]), flush=True)
            subprocess.run(cmd, check=True)
        if opts.only in (None, "queen-classic"):
            args = {"preset": "queen-classic", "pieces": n, "throws": throws}
            tasks = [Task(i, {**args, "seq": i}) for i in range(sequences)]
            out = DATA / f"physics-queen-classic-{suffix}.jsonl"
            print(f"queen-classic: {throws} throws of {n} cubes -> {out}", flush=True)
            header = run_header("queen-classic cubes", {"numerics": NUMERICS_VERSION})
            run_tasks(
                tasks, cube_sequence, out, workers=opts.workers, key_field="seq",
                desc="sequences", header=header,
            )  # fmt: skip


if __name__ == "__main__":
    main()
