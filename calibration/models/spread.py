"""Why model sequences spread less than physics: `.venv/bin/python calibration/models/spread.py`.

Measures, on the Walls & Guards 1-12 traces (fit 6024, test 6021), for the shipped model:
the spread over sequences when the model replays the physics throws; the one-step law at
the physics state (variance of the pieces out and of the number inside, the covariance
between the groups of one throw); and the spread of an empirical Markov chain on the number
inside alone, built from physics transitions.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import numpy as np

from tower.model.reference import ReferenceSampler, groups
from tower.traces import read_traces

HERE = Path(__file__).resolve().parent

MODEL = json.loads((HERE / "marrakesh.json").read_text())["model"]
#: a throw: (fresh [(class, id)], inside after {id: (class, place, since)}, ids out)
Throw = tuple[list[tuple[str, int]], dict[int, tuple[str, str, int]], set[int]]


def load(name: str) -> list[list[Throw]]:
    """The sequences of one trace file of ``traces/``."""
    seqs = []
    for trace in read_traces(HERE / "traces" / name):
        cls = [MODEL["classes"][p.kind.value] for p in trace.pieces]
        since: dict[int, int] = {}
        seq = []
        for t, th in enumerate(trace.throws):
            since.update((i, t) for i in th.thrown)
            after = {i: (cls[i], place.value, since[i]) for i, place in th.inside.items()}
            seq.append(([(cls[i], i) for i in th.thrown], after, set(th.out)))
        seqs.append(seq)
    return seqs


def residents(before: dict[int, tuple[str, str, int]]) -> list[tuple[str, str, int, int]]:
    return [(c, place, since, i) for i, (c, place, since) in before.items()]


def replay(sampler: ReferenceSampler, seqs: list[list[Throw]], seed: int) -> list[list[Throw]]:
    """The model run on the same thrown pieces, from an empty tower."""
    master, found = random.Random(seed), []
    for seq in seqs:
        rng, state, run = random.Random(master.getrandbits(64)), [], []
        for t, (fresh, _, _) in enumerate(seq):
            out, state = sampler.throw(state, fresh, t, rng)
            run.append((fresh, {p: (c, pl, s) for c, pl, s, p in state}, set(out)))
        found.append(run)
    return found


def spread(seqs: list[list[Throw]]) -> tuple[float, float]:
    """SD over sequences of ``stay_mean`` and of ``inside_mean`` (second half)."""
    rows = []
    for seq in seqs:
        since: dict[int, int] = {}
        stays = []
        for t, (fresh, _, out) in enumerate(seq):
            since.update((i, t) for _, i in fresh)
            stays += [t - since[i] for i in out]
        inside = [len(after) for _, after, _ in seq[len(seq) // 2 :]]
        rows.append((np.mean(stays) if stays else 0.0, np.mean(inside)))
    a = np.array(rows)
    return float(a[:, 0].std()), float(a[:, 1].std())


def one_step(sampler: ReferenceSampler, seqs: list[list[Throw]], k: int = 20) -> None:
    """At each physics state, ``k`` model draws of the same throw: variance of the number
    inside after it (by number inside before), and the covariance between groups."""
    rng = random.Random(5)
    by_i: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    pairs: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for seq in seqs:
        before: dict[int, tuple[str, str, int]] = {}
        for t, (fresh, after, out) in enumerate(seq):
            res = residents(before)
            drawn = groups(res, fresh, t, MODEL["age_cap"])
            gs = [(name, {p for _, p in m}) for name, _, _, m in drawn]
            sims = np.empty((k, len(gs) + 1))
            for j in range(k):
                o, a = sampler.throw(res, list(fresh), t, rng)
                sims[j] = [len(set(o) & m) for _, m in gs] + [len(a)]
            e = np.array([len(out & m) for _, m in gs] + [len(after)]) - sims.mean(0)
            cov = np.cov(sims.T) * (1 + 1 / k)
            row = by_i["0-3" if len(res) < 4 else "4-7" if len(res) < 8 else "8+"]
            row[0] += 1
            row[1] += e[-1] ** 2
            row[2] += cov[-1, -1]
            for a in range(len(gs)):
                for b in range(a + 1, len(gs)):
                    kinds = [gs[c][0].split(".")[0] for c in (a, b)]
                    key = (
                        "fresh-resident"
                        if (kinds[0] == "fresh") != (kinds[1] == "fresh")
                        else "same place"
                        if kinds[0] == kinds[1]
                        else "other place"
                    )
                    pairs[key][0] += e[a] * e[b]
                    pairs[key][1] += cov[a, b]
            before = after
    throws = sum(row[0] for row in by_i.values())
    for key, (n, phys, model) in sorted(by_i.items()):
        print(
            f"  inside before {key:>3}: {n:5d} throws, var of inside after: physics "
            f"{phys / n:.2f}, model {model / n:.2f}"
        )
    for key, (phys, model) in pairs.items():
        print(
            f"  covariance between groups, {key:>14}, per throw: physics "
            f"{phys / throws:+.3f}, model {model / throws:+.3f}"
        )


def inside_chain(fit: list[list[Throw]], test: list[list[Throw]]) -> float:
    """SD of ``inside_mean`` for a Markov chain on the number inside whose transitions,
    given (inside, pieces thrown, pawns thrown), are drawn from the physics throws ``fit``."""
    moves: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for seq in fit:
        inside = 0
        for fresh, after, _ in seq:
            w = sum(c == "pawn" for c, _ in fresh)
            moves[(inside, len(fresh), w)].append(len(after))
            moves[(inside, len(fresh))].append(len(after))
            inside = len(after)
    rng, means = random.Random(3), []
    for seq in test:
        inside, path = 0, []
        for fresh, _, _ in seq:
            w = sum(c == "pawn" for c, _ in fresh)
            options = moves.get((inside, len(fresh), w)) or moves.get((inside, len(fresh)))
            if not options:  # an unseen state: the nearest seen one with this throw size
                near = min(
                    (key for key in moves if len(key) == 2 and key[1] == len(fresh)),
                    key=lambda key: abs(key[0] - inside),
                )
                options = moves[near]
            inside = rng.choice(options)
            path.append(inside)
        means.append(np.mean(path[len(path) // 2 :]))
    return float(np.std(means))


def main() -> None:
    sampler = ReferenceSampler(MODEL)
    fit, test = load("wg12-6024.jsonl.gz"), load("wg12-6021.jsonl.gz")
    print("SD over sequences (stay_mean, inside_mean), 6021 plans:")
    print("  physics {:.3f} {:.2f}".format(*spread(test)))
    model = replay(sampler, test, 1) + replay(sampler, test, 2)
    print("  model   {:.3f} {:.2f}".format(*spread(model)))
    chain = inside_chain(fit, test)
    print(f"  chain on the number inside, from 6024 physics: inside_mean {chain:.2f}")
    print("One step at the physics states of 6021:")
    one_step(sampler, test)


if __name__ == "__main__":
    main()
