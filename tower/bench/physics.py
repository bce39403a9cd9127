"""``tower bench physics``: steady-state throws per second through the marrakesh tower.

One process, one core: a tower gets 20 warm-up throws of 12 keshis (so its inside reaches
the steady state), then timed throws. Rates are per second of this process's CPU time
(``time.process_time``), which is what one dedicated core would deliver and does not
depend on how many other jobs share the machine; the wall-clock figures are reported
beside them (``*_wall_*``). The baseline is the same tower and throws with
pybullet's default engine settings (:meth:`tower.physics.Numerics.pybullet_defaults`: time
step 1/240 s, 50 solver iterations, no CCD, no sleeping, no retiring, every throw run to the
time cap), measured in the same run. A throw that loses a piece (escape or NaN) is counted
in ``escapes`` and the tower is started afresh.
"""

from __future__ import annotations

import time
from typing import Any

from tower.geometry import load_preset
from tower.physics import Numerics, SimulationError, TowerGeometry, TowerSim
from tower.pieces import mixed_keshis

WARMUP = 20
PIECES = 12


def _measure(geometry: TowerGeometry, numerics: Numerics, warmup: int, throws: int) -> dict:
    """Throw ``warmup`` untimed and ``throws`` timed throws; return the figures."""
    seed = 0
    sim = TowerSim(geometry.spec, seed=seed, numerics=numerics, geometry=geometry)
    escapes = 0

    def one() -> Any:
        nonlocal sim, seed, escapes
        try:
            return sim.throw(mixed_keshis(PIECES))
        except SimulationError:
            escapes += 1
            sim.close()
            seed += 1
            sim = TowerSim(geometry.spec, seed=seed, numerics=numerics, geometry=geometry)
            return None

    for _ in range(warmup):
        one()
    warm_escapes, escapes = escapes, 0
    sim_time = 0.0
    steps = 0
    inside = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(throws):
        result = one()
        if result is not None:
            sim_time += result.sim_time
            steps += result.steps
            inside += len(result.inside)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    sim.close()
    return {
        "throws": throws,
        "wall_s": wall,
        "cpu_s": cpu,
        "sim_s": sim_time,
        "steps": steps,
        "mean_inside": inside / throws,
        "escapes": escapes,
        "warmup_escapes": warm_escapes,
    }


def run(quick: bool = False) -> dict[str, Any]:
    """Measure the tuned simulator and its pybullet-defaults baseline; see module doc."""
    geometry = TowerGeometry.from_spec(load_preset("marrakesh"))
    tuned = _measure(geometry, Numerics(), WARMUP, 30 if quick else 150)
    base = _measure(
        geometry, Numerics.pybullet_defaults(), 8 if quick else WARMUP, 4 if quick else 15
    )
    throws_per_s = tuned["throws"] / tuned["cpu_s"]
    baseline_throws_per_s = base["throws"] / base["cpu_s"]
    return {
        "throws_per_s": throws_per_s,
        "realtime_factor": tuned["sim_s"] / tuned["cpu_s"],
        "baseline_throws_per_s": baseline_throws_per_s,
        "speedup_vs_baseline": throws_per_s / baseline_throws_per_s,
        "escapes": tuned["escapes"] + tuned["warmup_escapes"],
        "baseline_realtime_factor": base["sim_s"] / base["cpu_s"],
        "baseline_escapes": base["escapes"] + base["warmup_escapes"],
        "throws_per_wall_s": tuned["throws"] / tuned["wall_s"],
        "baseline_throws_per_wall_s": base["throws"] / base["wall_s"],
        "pieces_per_throw": PIECES,
        "warmup_throws": WARMUP,
        "timed_throws": tuned["throws"],
        "baseline_timed_throws": base["throws"],
        "cpu_s": tuned["cpu_s"],
        "baseline_cpu_s": base["cpu_s"],
        "sim_s_per_throw": tuned["sim_s"] / tuned["throws"],
        "baseline_sim_s_per_throw": base["sim_s"] / base["throws"],
        "steps_per_s": tuned["steps"] / tuned["cpu_s"],
        "baseline_steps_per_s": base["steps"] / base["cpu_s"],
        "mean_inside": tuned["mean_inside"],
        "baseline_mean_inside": base["mean_inside"],
    }
