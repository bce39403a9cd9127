"""Where keshi towers lose keshis: `.venv/bin/python calibration/models/keshi_bias.py`.

Fits tables in memory from some of the committed trace batches (``traces/``), replays the
plans of the held-out 12, 9 or 6 keshi batches (``held-out/traces/``, four each) through
them, and prints the model's mean keshis out over a sequence against physics, with the
difference per throw and, with ``--places``, the number inside by place after each throw.
It is the measurement behind "Keshi towers: what the chain misses" in ``README.md``.

    python calibration/models/keshi_bias.py --train keshis12-6001@1000 --min-count 2
    python calibration/models/keshi_bias.py --train all --min-count 10 --min-count-makeup 20
    python calibration/models/keshi_bias.py --train all+new --min-count 10 --min-count-makeup 25 \
        --levels 'm,n,w,x,I,t,o;m,n,w,x,J,o;m,w,x,J;m,n;m'
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from itertools import islice
from pathlib import Path

import numpy as np

from tower.analysis.retention import model_records, trace_plan, trace_record
from tower.model.distilled import DistilledModel
from tower.model.fit import DEFAULT_LEVELS, FitSettings, fit_tables
from tower.model.interface import TowerState
from tower.pieces import INSIDE, Piece
from tower.traces import TraceSequence, TraceThrow, read_traces

HERE = Path(__file__).resolve().parent
#: The sixteen batches of the candidates of issue 32 (``held-out/candidate-m3b.md``).
ALL = [
    "keshis12-6001@1000",
    "experts-6004@1000",
    "keshis6-6002@300",
    "keshis9-6003@300",
    "mixed-6005@300",
    "battle-empty-6012@6000",
    "battle-warm-6013@4000",
    "battle-experts-6014@2000",
    "experts-6006@409",
    "experts-6007@1000",
    "battle-empty-6017@12000",
    "battle-warm-6018@4000",
    "wg12-6021@1000",
    "wg4-6022@1000",
    "keshis6-6023@1000",
    "wg12-6024@2000",
]
#: The pure-keshi batches made after them (``traces/README.md``), added by ``--train all+new``.
NEW = ["keshis9-6025@1000", "keshis12-6026@1000"]
#: The held-out batches of each keshi set already looked at (not the unopened 814x).
HELD = {
    "keshis12": (8104, 8114, 8124, 8134),
    "keshis9": (8105, 8115, 8125, 8135),
    "keshis6": (8106, 8116, 8126, 8136),
}


def batch(spec: str) -> list[TraceSequence]:
    """The first sequences of a committed training batch, ``name@count``."""
    name, count = spec.split("@")
    return list(islice(read_traces(HERE / "traces" / f"{name}.jsonl.gz"), int(count)))


def held_out(kind: str) -> list[TraceSequence]:
    """The four looked-at held-out batches of one keshi set."""
    path = HERE / "held-out" / "traces"
    return [s for seed in HELD[kind] for s in read_traces(path / f"{kind}-{seed}.jsonl.gz")]


def places_after(model: DistilledModel, held: list[TraceSequence], reps: int) -> np.ndarray:
    """Mean number inside by place (rows: throws) when ``model`` replays the plans."""
    rng, total = random.Random(3), np.zeros((len(held[0].throws), len(INSIDE)))
    for seq in held * reps:
        state = TowerState()
        for k, throw in enumerate(trace_plan(seq)):
            _, state = model.throw(state, throw, rng)
            found = Counter(r.place for r in state.residents)
            total[k] += [found[p] for p in INSIDE]
    return total / (len(held) * reps)


def physics_places(held: list[TraceSequence]) -> np.ndarray:
    """Mean number inside by place after each throw of the physics sequences."""
    total = np.zeros((len(held[0].throws), len(INSIDE)))
    for seq in held:
        for k, throw in enumerate(seq.throws):
            found = Counter(throw.inside.values())
            total[k] += [found[p] for p in INSIDE]
    return total / len(held)


def drawn(model: DistilledModel, plans: list[list[list[Piece]]], seed: int) -> list[TraceSequence]:
    """Sequences drawn from ``model`` on ``plans``, as traces (one piece object per id)."""
    rng, seqs = random.Random(seed), []
    for i, plan in enumerate(plans):
        throws = [[Piece(p.kind, f"{k}.{j}") for j, p in enumerate(t)] for k, t in enumerate(plan)]
        ids = {p: i for i, p in enumerate(p for t in throws for p in t)}
        state, records = TowerState(), []
        for throw in throws:
            out, state = model.throw(state, throw, rng)
            inside = {ids[r.piece]: r.place for r in state.residents}
            records.append(
                TraceThrow(tuple(ids[p] for p in throw), tuple(ids[p] for p in out), inside)
            )
        seqs.append(TraceSequence(i, seed, "model", tuple(ids), tuple(records)))
    return seqs


def refit_check(
    model: DistilledModel, settings: FitSettings, n: int, a: argparse.Namespace
) -> None:
    """Draw ``n`` 12-keshi sequences from ``model``, fit them again, compare the two."""
    plans = [trace_plan(s) for s in held_out("keshis12")]
    refit = DistilledModel.from_tables(fit_tables(drawn(model, plans[:n], a.seed + 7), settings))
    means = [
        np.mean([sum(r.out) for r in model_records(m, plans * a.replicates, a.seed + k)])
        for k, m in enumerate((model, refit))
    ]
    print(
        f"refit on {n} drawn sequences: {means[1]:.3f} against the drawing tables' {means[0]:.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="all", help="'all', 'all+new' or comma-separated name@count")
    ap.add_argument("--drop", default="", help="comma-separated name prefixes left out")
    ap.add_argument("--sets", default="keshis12,keshis9,keshis6")
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--min-count-makeup", type=int)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--levels", help="as tower distill --levels (default: the default levels)")
    ap.add_argument("--replicates", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", help="also write the fitted tables as a model file here")
    ap.add_argument("--places", action="store_true", help="also the number inside by place")
    ap.add_argument("--refit", type=int, default=0, help="check a refit on N drawn sequences")
    a = ap.parse_args()
    specs = {"all": ALL, "all+new": ALL + NEW}.get(a.train) or a.train.split(",")
    specs = [s for s in specs if not any(s.startswith(d) for d in a.drop.split(",") if d)]
    levels = DEFAULT_LEVELS
    if a.levels:
        levels = tuple(tuple(level.split(",")) for level in a.levels.split(";"))
    settings = FitSettings(
        levels=levels,
        alpha=a.alpha,
        min_count=a.min_count,
        min_count_makeup=a.min_count_makeup,
    )
    model = DistilledModel.from_tables(fit_tables((s for x in specs for s in batch(x)), settings))
    if a.save:
        model.save(a.save, force=True)
        print(f"wrote {a.save} ({Path(a.save).stat().st_size / 1e6:.2f} MB, {model.doc['schema']})")
    np.set_printoptions(precision=3, suppress=True)
    if a.refit:
        refit_check(model, settings, a.refit, a)
    print(f"trained on {len(specs)} batches: {' '.join(specs)}")
    for kind in a.sets.split(","):
        held = held_out(kind)
        phys = np.array([trace_record(s).out for s in held], dtype=float)
        recs = model_records(model, [trace_plan(s) for s in held] * a.replicates, a.seed)
        mod = np.array([r.out for r in recs], dtype=float)
        p, m = phys.sum(1), mod.sum(1)
        print(
            f"{kind}: out over a sequence, physics {p.mean():.3f} +- {p.std() / len(p) ** 0.5:.3f}"
            f", model {m.mean():.3f} +- {m.std() / len(m) ** 0.5:.3f}, "
            f"difference {m.mean() - p.mean():+.3f}\n  by throw {mod.mean(0) - phys.mean(0)}"
        )
        if a.places:
            print(f"  inside by place {[p.value for p in INSIDE]}, model - physics, by throw")
            print(places_after(model, held, a.replicates) - physics_places(held))


if __name__ == "__main__":
    main()
