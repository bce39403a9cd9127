"""Summary statistics of recordings and of simulations, computed from counts alone.

A real recording only says, per throw, how many pieces of each colour went in and came
out. Every statistic here is a function of exactly that, so a simulation (turned into the
same recording-like :class:`~tower.calibration.recording.Session`) is summarised by the same
code as the data: the fit compares like with like.

Per throw (:class:`SessionSeries`):

- ``inside``: pieces inside after the throw. Exact when the session starts empty
  (in minus out so far); with an unknown start, the lower bound (in minus out so far,
  shifted so that its minimum is zero).
- ``fresh_lo``/``fresh_hi``: bounds on how many pieces out were thrown in this very throw,
  colour by colour: of ``out_c`` pieces of colour c, at most ``min(out_c, in_c)`` are fresh
  and at least ``out_c - old_c`` (``old_c``: pieces of colour c inside before the throw).
  Throwing colours that are not inside makes both bounds meet.
- ``mix``: colour mixing, the total-variation distance between the colour mix that came out
  and the mix that went in (0: pieces come out as thrown; near 1: out is other colours).
- ``young_in``/``young_out``: pieces of the previous throw still inside before this throw,
  and how many of them come out now, colour by colour (pieces out are taken as this throw's
  own first, then the previous throw's). Exact when neighbouring throws share no colour, as
  in the one-colour protocol; a consistent estimate otherwise.

The fit's summary vector (:data:`STAT_NAMES`) pools them over all throws of all sessions.
:func:`summary_split` also gives the difference between the first and the second half of
the throws, from which the fit measures how noisy each statistic is at one recording's
length, without replaying anything twice.

Examples
--------
>>> from tower.calibration.recording import Session, Throw
>>> s = Session(
...     "s",
...     "marrakesh",
...     "empty",
...     throws=(Throw(1, {"red": 3}, {"red": 2}), Throw(2, {"green": 3}, {"green": 2, "red": 1})),
... )
>>> series = session_series(s)
>>> series.inside.tolist(), series.fresh_lo.tolist(), series.fresh_hi.tolist()
([1.0, 1.0], [2.0, 2.0], [2.0, 2.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tower.calibration.recording import Session, total

#: Names of the summary statistics the fit uses, in vector order. Each is a ratio that
#: a few hundred throws estimate with little noise, and that the two chances of the
#: baseline model map to directly (a lag-1 autocorrelation of pieces out, used before,
#: was mostly noise: its emulator explained 7% of its variance on a physics fit).
STAT_NAMES: tuple[str, ...] = (
    "inside_log",  # log(1 + mean pieces inside after a throw / mean pieces in per throw)
    "out_sd",  # sd of (out - in) per throw / mean pieces in
    "fresh_rate",  # pieces out thrown that very throw (midpoint of bounds) / pieces in
    "resident_rate",  # older pieces out / pieces inside before the throw
    "mix_tv",  # mean colour-mixing distance between out and in
    "young_rate",  # pieces of the previous throw out now / those still inside before
    "fresh_sd",  # sd of the pieces out thrown that very throw / mean pieces in
    "old_rate",  # older pieces out (neither this throw's nor the previous') / those inside
    "resident_slope",  # slope of residents out (not thrown now) on pieces inside before
)


@dataclass(frozen=True)
class SessionSeries:
    """Per-throw series of one session; every array has shape ``(n_throws,)``."""

    n_in: np.ndarray
    n_out: np.ndarray
    inside: np.ndarray
    fresh_lo: np.ndarray
    fresh_hi: np.ndarray
    mix: np.ndarray
    exact_inside: bool
    young_in: np.ndarray
    young_out: np.ndarray

    def tail(self, start: int) -> SessionSeries:
        """The series from throw ``start`` on (inferred from the whole session)."""
        cut = {k: v[start:] for k, v in self.__dict__.items() if isinstance(v, np.ndarray)}
        return SessionSeries(**cut, exact_inside=self.exact_inside)


def session_series(session: Session) -> SessionSeries:
    """Per-throw series of one session, inferred from its counts (see module docstring)."""
    n = len(session.throws)
    n_in, n_out = np.zeros(n), np.zeros(n)
    balance: dict[str, int] = {}
    trail: list[dict[str, int]] = []  # balance per colour before each throw
    for i, t in enumerate(session.throws):
        trail.append(dict(balance))
        for k, v in t.pieces_in.items():
            balance[k] = balance.get(k, 0) + v
        for k, v in t.pieces_out.items():
            balance[k] = balance.get(k, 0) - v
        n_in[i], n_out[i] = total(t.pieces_in), total(t.pieces_out)
    shift: dict[str, int] = {}
    if session.start != "empty":  # the smallest start consistent with the counts
        for b in [*trail[1:], balance]:
            for k, v in b.items():
                shift[k] = max(shift.get(k, 0), -v)
    fresh_lo, fresh_hi, mix = np.zeros(n), np.zeros(n), np.zeros(n)
    young_in, young_out = np.zeros(n), np.zeros(n)
    left: dict[str, int] = {}  # pieces of the previous throw still inside, by colour
    for i, t in enumerate(session.throws):
        old = {k: trail[i].get(k, 0) + shift.get(k, 0) for k in set(trail[i]) | set(shift)}
        lo = hi = 0
        for k, out_c in t.pieces_out.items():
            in_c = t.pieces_in.get(k, 0)
            hi += min(out_c, in_c)
            lo += max(0, out_c - old.get(k, 0))
            young_out[i] += min(out_c - min(out_c, in_c), left.get(k, 0))
        fresh_lo[i], fresh_hi[i] = lo, hi
        young_in[i] = sum(left.values())
        left = {k: v - min(t.pieces_out.get(k, 0), v) for k, v in t.pieces_in.items()}
        if n_out[i] > 0:
            keys = set(t.pieces_in) | set(t.pieces_out)
            mix[i] = 0.5 * sum(
                abs(t.pieces_out.get(k, 0) / n_out[i] - t.pieces_in.get(k, 0) / n_in[i])
                for k in sorted(keys)
            )
        else:
            mix[i] = np.nan
    inside = np.cumsum(n_in - n_out) + sum(shift.values())
    return SessionSeries(
        n_in, n_out, inside, fresh_lo, fresh_hi, mix, session.start == "empty", young_in, young_out
    )


def most_inside(sessions: Sequence[Session]) -> int:
    """The most pieces inside after any throw of ``sessions`` (0 without throws); for a
    session not started empty, the smallest count consistent with its record."""
    return max((int(session_series(s).inside.max()) for s in sessions if s.throws), default=0)


def summary_vector(sessions: Sequence[Session]) -> np.ndarray:
    """The fit's summary statistics (:data:`STAT_NAMES`) of some sessions, shape ``(k,)``.

    Sessions are pooled: sums and means over all throws of all sessions.
    """
    columns = _columns(sessions)
    return _pooled(columns, np.ones(len(columns["n_in"]), bool))


def summary_split(sessions: Sequence[Session]) -> tuple[np.ndarray, np.ndarray]:
    """The summary statistics, and their difference between the two halves of the throws.

    Returns ``(full : (k,), first - second : (k,))``: the statistics of all throws, and
    those of the first half of the throws (all sessions' throws in order) minus those of
    the second half. Each half has the noise of a recording half as long, so over many
    replays the covariance of the differences, over 4, estimates the noise covariance of
    the full statistics (:func:`tower.calibration.fit.split_noise`). Contiguous halves keep
    the two nearly independent when pieces stay inside for many throws: on the baseline
    simulator, 204 throws, dwell times of 2 to 20 throws, the estimate is 0.74 to 1.14 of
    the variance over 300 replays; on 60 throws with dwells of 7 to 20 throws it falls to
    0.33 to 0.6 for pieces inside, which neighbouring halves share.

    >>> from tower.calibration.simulators import BaselineSimulator
    >>> from tower.calibration.synthetic import synthetic_plan
    >>> theta = {"model.p_fresh": 0.6, "model.p_old": 0.3}
    >>> sessions = BaselineSimulator().simulate(theta, synthetic_plan(48, 12), seed=1)
    >>> full, diff = summary_split(sessions)
    >>> full.shape == diff.shape == (len(STAT_NAMES),)
    True
    """
    columns = _columns(sessions)
    n = len(columns["n_in"])
    full = _pooled(columns, np.ones(n, bool))
    if n < 2:
        return full, np.zeros(len(STAT_NAMES))
    first = np.arange(n) < n // 2
    return full, _pooled(columns, first) - _pooled(columns, ~first)


def _columns(sessions: Sequence[Session]) -> dict[str, np.ndarray]:
    """Every per-throw series of the sessions with throws, concatenated in throw order."""
    series = [session_series(s) for s in sessions if s.throws]
    if not series:
        raise ValueError("no throws to summarise")
    names = [k for k, v in series[0].__dict__.items() if isinstance(v, np.ndarray)]
    columns = {k: np.concatenate([getattr(s, k) for s in series]) for k in names}
    columns["before"] = np.concatenate([inside_before(s) for s in series])
    return columns


def _pooled(columns: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """:data:`STAT_NAMES` over the throws ``rows`` (bool, over :func:`_columns`' throws)."""

    def cat(name: str) -> np.ndarray:
        return columns[name][rows]

    n_in, n_out, mix = cat("n_in"), cat("n_out"), cat("mix")
    scale = float(n_in.mean())
    before = cat("before")
    fresh = (cat("fresh_lo") + cat("fresh_hi")) / 2
    resident = n_out - fresh
    young_in, young_out = cat("young_in"), cat("young_out")
    return np.array(
        [
            np.log1p(cat("inside").mean() / scale),
            float(np.std(n_out - n_in)) / scale,
            float(fresh.sum() / max(n_in.sum(), 1.0)),
            float(resident.sum() / max(before.sum(), 1.0)),
            float(np.nanmean(mix)) if np.isfinite(mix).any() else 0.0,
            float(young_out.sum() / max(young_in.sum(), 1.0)),
            float(np.std(fresh)) / scale,
            float((resident - young_out).sum() / max((before - young_in).sum(), 1.0)),
            _slope(before, resident),
        ]
    )


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of ``y`` on ``x`` (both ``(n,)``); 0 when ``x`` does not vary."""
    var = float(np.var(x))
    return float(np.mean((x - x.mean()) * (y - y.mean())) / var) if var > 0 else 0.0


def inside_before(series: SessionSeries) -> np.ndarray:
    """Pieces inside before each throw, shape ``(n_throws,)``."""
    start = series.inside[0] - series.n_in[0] + series.n_out[0]
    return np.concatenate([[start], series.inside[:-1]])
