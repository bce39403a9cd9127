"""``tower calibrate coverage``: are the 90% intervals honest? Checked, not assumed.

The whole fit runs on K synthetic recordings, each simulated at true parameters drawn from
the prior (a draw whose tower clogs or loses pieces is drawn again: players report towers
that let pieces through). For each recording it records whether the 90% interval of every
parameter, and of every key tower statistic (:mod:`tower.calibration.behaviour`),
contains the truth; for a statistic the truth is its expected value at the true
parameters, the mean over a few replays there. Nominal 90% intervals should contain the
truth about 90% of the time: far less means an over-confident fit, far more a wasteful one.

Everything goes through the same cached replay runner as ``tower calibrate``, so an
interrupted run resumes, on local processes or a Dask cluster.

Examples
--------
>>> import tempfile, pathlib
>>> from tower.calibration.simulators import BaselineSimulator
>>> from tower.calibration.synthetic import synthetic_plan
>>> with tempfile.TemporaryDirectory() as tmp:
...     out = run_coverage(BaselineSimulator(), synthetic_plan(60, 12), pathlib.Path(tmp),
...                        recordings=2, budget=24, progress=False)
>>> s = out.summary()
>>> s["recordings"], s["parameters"]["intervals"]  # two parameters in each recording
(2, 4)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tower.calibration.behaviour import key_names, key_statistics
from tower.calibration.execute import ReplayRunner
from tower.calibration.fit import derive_seed, fit, make_task
from tower.calibration.recording import atomic_write_text
from tower.calibration.simulators import (
    Plan,
    Simulator,
    sessions_from_outs,
    with_clog_limit_for,
)
from tower.calibration.synthetic import draw_from_prior
from tower.errors import TowerError

#: Replays at a truth whose mean gives the true key statistics.
TRUTH_REPLAYS = 8

#: Prior draws tried per recording before giving up (each may clog).
ATTEMPTS = 20


@dataclass
class Coverage:
    """Per-recording outcomes; :meth:`summary` pools them."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def pooled(kind: str) -> dict[str, Any]:
            hits = [h for r in self.rows for h in r[kind].values()]
            per: dict[str, list[bool]] = {}
            for r in self.rows:
                for k, h in r[kind].items():
                    per.setdefault(k, []).append(h)
            return {
                "intervals": len(hits),
                "contain_truth": int(sum(hits)),
                "coverage": float(np.mean(hits)) if hits else float("nan"),
                "by_name": {k: f"{sum(v)}/{len(v)}" for k, v in per.items()},
            }

        return {
            "recordings": len(self.rows),
            "parameters": pooled("parameters"),
            "key_statistics": pooled("key_statistics"),
            "pinned_directions_mean": float(np.mean([r["pinned"] for r in self.rows]))
            if self.rows
            else 0.0,
            "failed_replay_share": float(
                sum(r["failed"] for r in self.rows) / max(sum(r["replays"] for r in self.rows), 1)
            ),
            "seconds_per_fit": float(np.mean([r["seconds"] for r in self.rows]))
            if self.rows
            else 0.0,
        }

    def markdown(self, title: str) -> str:
        s = self.summary()
        lines = [
            f"# {title}",
            "",
            f"{s['recordings']} synthetic recordings at truths drawn from the prior.",
            "",
            "| intervals | contain the truth | coverage of nominal 90% |",
            "|---|---|---|",
        ]
        for kind in ("parameters", "key_statistics"):
            p = s[kind]
            lines.append(f"| {kind.replace('_', ' ')} | {p['contain_truth']}/{p['intervals']} "
                         f"| {p['coverage']:.1%} |")  # fmt: skip
        lines += ["", "| name | contain the truth |", "|---|---|"]
        for kind in ("parameters", "key_statistics"):
            lines += [f"| `{k}` | {v} |" for k, v in s[kind]["by_name"].items()]
        lines += [
            "",
            f"- mean directions pinned down (90% interval under half the prior's): "
            f"{s['pinned_directions_mean']:.2f}",
            f"- failed design replays: {s['failed_replay_share']:.1%}",
            f"- mean fit time: {s['seconds_per_fit']:.1f} s",
            "",
        ]
        return "\n".join(lines)


def true_key_statistics(
    simulator: Simulator, theta: dict[str, float], plan: Plan, seed: int, replays: int,
    execute: Callable[[list[dict], str], list[dict | None]],
) -> dict[str, float] | None:  # fmt: skip
    """Mean key statistics over ``replays`` replays at ``theta`` (None if all fail)."""
    tasks = [make_task(simulator, theta, derive_seed(seed, i), plan) for i in range(replays)]
    done = [r for r in execute(tasks, "replays at the truth") if r is not None]
    if not done:
        return None
    values = [
        key_statistics(plan, sessions_from_outs(plan, r["outs"]), r.get("fresh")) for r in done
    ]
    return {n: float(np.mean([v[n] for v in values])) for n in key_names(plan)}


def run_coverage(
    simulator: Simulator,
    plan: Plan,
    out_dir: Path,
    *,
    recordings: int = 30,
    budget: int = 40,
    waves: int = 2,
    seed: int = 0,
    truth_replays: int = TRUTH_REPLAYS,
    particles: int = 8000,
    scheduler: str | None = None,
    workers: int | None = 1,
    progress: bool = True,
    report: Callable[[int, dict[str, Any]], None] | None = None,
) -> Coverage:
    """Fit ``recordings`` synthetic recordings of ``plan``; write coverage.json and .md.

    ``report(k, row)`` is called after each recording (for progress output).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = ReplayRunner(simulator, out_dir / "cache" / "replays.jsonl", scheduler=scheduler,
                          workers=workers, progress=progress)  # fmt: skip
    coverage = Coverage()
    for k in range(recordings):
        truth, recording = None, None
        for attempt in range(ATTEMPTS):
            theta = draw_from_prior(simulator.parameters, derive_seed(seed, 20, k, attempt))
            task = make_task(simulator, theta, derive_seed(seed, 21, k, attempt), plan)
            done = runner([task], f"recording {k + 1}/{recordings}")[0]
            if done is not None:
                truth, recording = theta, sessions_from_outs(plan, done["outs"])
                break
        if truth is None or recording is None:
            raise TowerError(f"{ATTEMPTS} prior draws for recording {k + 1} all failed")
        # the fit's clog limit follows the recording, as in `tower calibrate`
        fitted = with_clog_limit_for(simulator, recording)
        replays = runner.using(fitted)
        start = time.perf_counter()
        result = fit(fitted, recording, plan, replays, budget=budget, waves=waves,
                     seed=derive_seed(seed, 22, k), particles=particles)  # fmt: skip
        seconds = time.perf_counter() - start
        keys = true_key_statistics(fitted, truth, plan, derive_seed(seed, 23, k),
                                   truth_replays, replays)  # fmt: skip
        row = {
            "recording": k,
            "truth": truth,
            "parameters": {f.parameter.name: bool(f.low <= truth[f.parameter.name] <= f.high)
                           for f in result.fits},
            "key_statistics": {p.name: bool(p.covers_truth)
                               for p in result.predictive(keys) if p.truth is not None},
            "pinned": sum(d.pinned for d in result.directions()),
            "pinned_covering": sum(d.pinned and bool(d.covers_truth)
                                   for d in result.directions(truth)),
            "failed": result.failures,
            "replays": result.replays,
            "seconds": round(seconds, 2),
        }  # fmt: skip
        coverage.rows.append(row)
        if report is not None:
            report(k, row)
    summary = coverage.summary()
    atomic_write_text(out_dir / "coverage.json",
                      json.dumps({"summary": summary, "rows": coverage.rows}, indent=2) + "\n")
    atomic_write_text(out_dir / "coverage.md",
                      coverage.markdown(f"Coverage: {simulator.name} simulator"))  # fmt: skip
    return coverage
