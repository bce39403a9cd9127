"""Calibration with the physics simulator: the issue's Done-when checks (slow)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tower.calibration import DEFAULT_BUDGET
from tower.calibration.calibrate import make_simulator
from tower.calibration.coverage import true_key_statistics
from tower.calibration.execute import ReplayRunner
from tower.calibration.fit import derive_seed, fit, make_task
from tower.calibration.plan import RECOMMENDED, load_protocols, protocol_plan
from tower.calibration.recording import Recording
from tower.calibration.simulators import sessions_from_outs
from tower.calibration.synthetic import draw_from_prior
from tower.cli import cli

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("seed", [1201, 1202, 1203])
def test_recommended_protocol_pins_down_three_directions(seed: int, tmp_path: Path) -> None:
    """A recording by the recommended protocol (<= 300 throws) at a truth from the prior."""
    sim = make_simulator("physics", Recording(()))
    protocol = next(p for p in load_protocols() if p.name == RECOMMENDED)
    # the planner's 45 minutes: 204 throws. 300 throws (70 minutes) did no better on seed
    # 1201 (0.15, 0.39, 0.54 of the prior's width against 0.14, 0.36, 0.54) at 1.5x the time
    plan = protocol_plan(protocol)
    assert sum(len(s.throws) for s in plan) <= 300
    runner = ReplayRunner(sim, tmp_path / "cache.jsonl", progress=False)
    for attempt in range(20):  # a clogging draw is not a tower anyone records
        truth = draw_from_prior(sim.parameters, derive_seed(seed, attempt))
        done = runner([make_task(sim, truth, derive_seed(seed, 99, attempt), plan)], "truth")[0]
        if done is not None:
            break
    assert done is not None
    recording = sessions_from_outs(plan, done["outs"])
    # as `tower calibrate` does: the clog limit follows the recording (with_clog_limit_for)
    sim = make_simulator("physics", Recording(tuple(recording)))
    runner = runner.using(sim)
    start = time.perf_counter()
    result = fit(sim, recording, plan, runner, budget=DEFAULT_BUDGET, seed=seed)
    minutes = (time.perf_counter() - start) / 60
    directions = result.directions(truth)
    pinned = [d for d in directions if d.pinned]
    # the numbers for the record: pytest -s shows them
    print(f"\nseed {seed}: fit {minutes:.1f} min, {result.failures}/{result.replays} failed")
    for d in directions[:4]:
        print(f"  width {d.width_ratio:.2f} covers {d.covers_truth}: {d.words()}")
    assert len(pinned) >= 3, [d.words() for d in directions[:4]]
    assert all(d.covers_truth for d in pinned)
    keys = true_key_statistics(sim, truth, plan, derive_seed(seed, 98), 3, runner)
    inside = next(p for p in result.predictive(keys) if p.name == "inside")
    print(f"  inside: narrowing {inside.narrowing:.2f}, covers {inside.covers_truth}")
    assert inside.narrowing <= 0.5 and inside.covers_truth, inside
    assert result.failures <= 0.1 * result.replays


def test_coverage_with_physics(tmp_path: Path) -> None:
    """90% intervals hold the truth 80-97% of the time over 10 physics recordings.

    80 throws each and a design budget of 48 (the baseline's check uses 40): about 80
    minutes on two cores. At the default budget and 150 throws it would take 4-5 hours.
    Stop 18 measured parameters 97/120 (81%), key statistics 50/50 (100%): it fails on the
    key statistics (calibration/README.md)."""
    out = tmp_path / "cov"
    args = ["calibrate", "coverage", "--simulator", "physics", "--recordings", "10",
            "--throws", "80", "--budget", "48", "--out", str(out), "--quiet"]
    result = CliRunner().invoke(cli, args)  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "coverage.json").read_text())["summary"]
    for kind in ("parameters", "key_statistics"):
        assert 0.80 <= summary[kind]["coverage"] <= 0.97, (kind, summary[kind])
