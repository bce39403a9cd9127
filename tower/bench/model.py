"""``tower bench model``: distilled-model throws per second, against baseline and physics.

All figures are throws of 12 keshis, measured in this process on one core, as CPU time
(``time.process_time``), so that other work on a shared machine does not count:

- ``single_throws_per_s``: the shipped distilled model, one throw at a time as a game
  engine calls it (12-throw sequences from an empty tower);
- ``batch_throws_per_s``: the numpy fast path, 20 000 independent towers in lockstep
  (2 000 with ``--quick``), the fastest of 5 runs of 12 throws (each into new towers);
  ``batch_median_throws_per_s``: the median of those runs; ``batch_wide_throws_per_s``
  and ``batch_wide_median_throws_per_s``: the same with 100 000 towers and 3 runs (its
  fixed cost per lockstep throw, a few ms of numpy calls per group, spread wider);
- ``baseline_single_throws_per_s``: the baseline model, one throw at a time, measured in
  turns with the distilled model (10 blocks each), so both see the same load;
- ``physics_throws_per_s``: pybullet throws of the ``marrakesh`` preset (a short run);
- ``speedup_vs_physics``: single distilled throws against physics throws.

The benchmark may import physics (it is the benchmark, not the model room).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from tower.model import BaselineModel, TowerModel
from tower.model.batch import BatchTowers
from tower.pieces import mixed_keshis


def _single(models: list[TowerModel], throws: int, seed: int, blocks: int = 10) -> list[float]:
    """Throws per second of each model, one throw at a time.

    The models take turns in ``blocks`` blocks of 12-throw sequences, so that a change
    in the machine's load during the run affects each of them alike.
    """
    pieces = mixed_keshis(12)
    rngs = [random.Random(seed) for _ in models]
    spent = [0.0] * len(models)
    per_block = max(12, throws // blocks // 12 * 12)
    for _ in range(max(1, throws // per_block)):
        for k, model in enumerate(models):
            rng = rngs[k]
            start = time.process_time()
            for i in range(per_block):
                if i % 12 == 0:
                    state = model.new_state()
                _, state = model.throw(state, pieces, rng)
            spent[k] += time.process_time() - start
    done = max(1, throws // per_block) * per_block
    return [done / t for t in spent]


def _batch(model_section: dict[str, Any], towers: int, seed: int, runs: int) -> list[float]:
    """Throws per second of ``runs`` runs of 12 lockstep throws, fastest first.

    Each run throws into new towers (seeds ``seed``, ``seed + 1``, ...). A run takes
    0.1-0.6 s, so a burst of other work on a shared machine can slow one by tens of
    percent: the fastest run is the figure (the least disturbed, as ``timeit`` takes
    the minimum), and the median is reported beside it.
    """
    rates = []
    for k in range(runs):
        batch = BatchTowers(model_section, towers, seed + k)
        start = time.process_time()
        for _ in range(12):
            batch.throw({"keshi": 12})
        rates.append(12 * towers / (time.process_time() - start))
    return sorted(rates, reverse=True)


def _physics(throws: int, seed: int) -> tuple[float, str]:
    try:
        from tower.geometry import load_preset
        from tower.physics.sim import TowerSim
    except ImportError as exc:  # pragma: no cover - physics is a core dependency
        return float("nan"), f"physics not importable: {exc}"
    sim = TowerSim(load_preset("marrakesh"), seed=seed)
    try:
        start = time.process_time()
        for _ in range(throws):
            sim.throw(mixed_keshis(12))
        return throws / (time.process_time() - start), "marrakesh preset, default params"
    finally:
        sim.close()


def run(quick: bool = False) -> dict[str, Any]:
    """Measure and return the figures (see the module docstring)."""
    from tower.model import load_shipped

    model = load_shipped("marrakesh")
    single, baseline = _single([model, BaselineModel()], 12_000 if quick else 60_000, seed=1)
    batches = _batch(model.doc["model"], 2_000 if quick else 20_000, seed=1, runs=5)
    wides = _batch(model.doc["model"], 10_000 if quick else 100_000, seed=1, runs=3)
    batch, wide = batches[0], wides[0]
    physics, note = _physics(2 if quick else 6, seed=1)
    counts = model.doc["provenance"].get("counts", {})
    return {
        "single_throws_per_s": round(single, 1),
        "batch_throws_per_s": round(batch, 1),
        "batch_median_throws_per_s": round(statistics.median(batches), 1),
        "batch_wide_throws_per_s": round(wide, 1),
        "batch_wide_median_throws_per_s": round(statistics.median(wides), 1),
        "baseline_single_throws_per_s": round(baseline, 1),
        "physics_throws_per_s": round(physics, 4),
        "speedup_vs_physics": round(single / physics, 1),
        "batch_speedup_vs_physics": round(batch / physics, 1),
        "single_vs_baseline": round(single / baseline, 3),
        "batch_vs_single": round(batch / single, 2),
        "model": f"shipped {model.name} ({counts.get('sequences')} sequences, "
        f"{counts.get('throws')} throws fitted)",
        "physics": note,
        "clock": "process CPU time, one core",
    }
