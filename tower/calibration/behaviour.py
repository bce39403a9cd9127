"""What users need from a calibration: the tower's behaviour, before and after the recording.

Parameters matter less than what the tower does. This module defines the **key tower
statistics** of a replay, each a plain function of its throws:

- ``inside``: equilibrium pieces inside, the mean over the second half of each session;
- ``p_fresh_out``: the chance a thrown piece comes out at once (pieces out that were just
  thrown, over pieces thrown);
- ``p_resident_out``: the chance a piece inside comes out in a throw (older pieces out over
  pieces inside before the throw);
- ``out_<n>``: pieces out of a throw of ``n`` pieces (mean), per throw size of the plan;
- ``dwell``: throws a lodged piece stays inside (mean, by Little's law: pieces inside per
  throw over pieces lodged per throw).

In a simulation the pieces out that were just thrown are known exactly
(:class:`~tower.calibration.simulators.Replay`); for a simulator that does not say, the
midpoint of the bounds from the colours is used.

The fit emulates each statistic's expected value as a function of the parameters, from the
very replays of its design, and reports it under the **prior** (parameters drawn from the
prior, clogging towers excluded) and under the **posterior**: the narrowing is the ratio
of the two 90% intervals' widths.

Examples
--------
>>> from tower.calibration.simulators import BaselineSimulator, PlanSession
>>> plan = (PlanSession("s", "empty", (), ({"red": 12},) * 400),)
>>> rep = BaselineSimulator().replay({"model.p_fresh": 0.6, "model.p_old": 0.4}, plan, 1)
>>> stats = key_statistics(plan, rep.sessions, rep.fresh)
>>> sorted(stats)
['dwell', 'inside', 'out_12', 'p_fresh_out', 'p_resident_out']
>>> round(stats["p_fresh_out"], 1), round(stats["p_resident_out"], 1), round(stats["inside"])
(0.6, 0.4, 12)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.calibration.recording import Session
from tower.calibration.simulators import Plan
from tower.calibration.summaries import inside_before, session_series

#: Statistics emulated on a log scale (positive, growing fast towards a clogging tower).
LOG_SCALE = ("inside", "dwell")


def throw_sizes(plan: Plan) -> list[int]:
    """Throw sizes of a plan that make up at least a tenth of its throws."""
    sizes = [sum(c.values()) for p in plan for c in p.throws]
    return sorted(n for n in set(sizes) if sizes.count(n) >= max(1, len(sizes) // 10))


def key_names(plan: Plan) -> tuple[str, ...]:
    """Names of the key statistics of replays of ``plan``, in vector order."""
    return ("inside", "p_fresh_out", "p_resident_out", *[f"out_{n}" for n in throw_sizes(plan)],
            "dwell")  # fmt: skip


def meaning(name: str) -> str:
    """The statistic in words."""
    fixed = {
        "inside": "pieces inside at equilibrium",
        "p_fresh_out": "chance a thrown piece comes out at once",
        "p_resident_out": "chance a piece inside comes out in a throw",
        "dwell": "throws a lodged piece stays inside",
    }
    return fixed.get(name) or f"pieces out of a throw of {name.removeprefix('out_')}"


def key_statistics(
    plan: Plan, sessions: Sequence[Session], fresh: Sequence[Sequence[int]] | None = None
) -> dict[str, float]:
    """The key statistics (:func:`key_names`) of one replay (or recording) of ``plan``."""
    inside_eq, n_in, n_out, n_fresh, before = [], [], [], [], []
    for i, s in enumerate(sessions):
        if not s.throws:
            continue
        series = session_series(s)
        f = (
            np.asarray(fresh[i], float)
            if fresh is not None
            else (series.fresh_lo + series.fresh_hi) / 2
        )
        inside_eq.append(series.inside[len(series.inside) // 2 :])
        n_in.append(series.n_in)
        n_out.append(series.n_out)
        n_fresh.append(f)
        before.append(inside_before(series))
    n_in_all, n_out_all = np.concatenate(n_in), np.concatenate(n_out)
    fresh_all, before_all = np.concatenate(n_fresh), np.concatenate(before)
    lodged = max(float((n_in_all - fresh_all).sum()), 1.0)
    stats = {
        "inside": float(np.concatenate(inside_eq).mean()),
        "p_fresh_out": float(fresh_all.sum() / max(n_in_all.sum(), 1.0)),
        "p_resident_out": float((n_out_all - fresh_all).sum() / max(before_all.sum(), 1.0)),
    }
    for n in throw_sizes(plan):
        hit = n_in_all == n
        stats[f"out_{n}"] = float(n_out_all[hit].mean()) if hit.any() else float("nan")
    after = before_all + n_in_all - n_out_all
    stats["dwell"] = float(after.sum() / lodged)
    return stats


@dataclass(frozen=True)
class Predictive:
    """One key statistic under the prior and under the posterior (5%, 50%, 95%)."""

    name: str
    prior: tuple[float, float, float]
    posterior: tuple[float, float, float]
    truth: float | None = None

    @property
    def narrowing(self) -> float:
        """Posterior 90% width over prior 90% width (small: the recording taught a lot)."""
        return (self.posterior[2] - self.posterior[0]) / max(self.prior[2] - self.prior[0], 1e-12)

    @property
    def covers_truth(self) -> bool | None:
        if self.truth is None:
            return None
        return self.posterior[0] <= self.truth <= self.posterior[2]

    def to_json(self) -> dict[str, Any]:
        return {
            "meaning": meaning(self.name),
            "prior": list(self.prior),
            "posterior": list(self.posterior),
            "narrowing": round(self.narrowing, 4),
            **({} if self.truth is None else {"truth": self.truth}),
        }


def to_emulated(names: Sequence[str], values: np.ndarray) -> np.ndarray:
    """Key statistics ``(n, k)`` on the scale the emulator works on (log for some)."""
    out = np.array(values, float, copy=True)
    for j, name in enumerate(names):
        if name in LOG_SCALE:
            out[:, j] = np.log(np.maximum(out[:, j], 0) + 1)
    return out


def bounds(name: str) -> tuple[float, float]:
    """The values a key statistic can take: a count is not negative, a chance lies in
    [0, 1], and a piece that lodges stays at least one throw."""
    if name.startswith("p_"):
        return 0.0, 1.0
    return (1.0 if name == "dwell" else 0.0), np.inf


def from_emulated(names: Sequence[str], values: np.ndarray) -> np.ndarray:
    """Inverse of :func:`to_emulated`, clipped to each statistic's :func:`bounds` (an
    emulator's or a regression's error may carry a prediction past them)."""
    out = np.array(values, float, copy=True)
    for j, name in enumerate(names):
        if name in LOG_SCALE:
            out[:, j] = np.exp(out[:, j]) - 1
        out[:, j] = np.clip(out[:, j], *bounds(name))
    return out


def quantiles(x: np.ndarray) -> tuple[float, float, float]:
    q = np.quantile(x, [0.05, 0.5, 0.95])
    return float(q[0]), float(q[1]), float(q[2])
