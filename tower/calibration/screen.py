"""Clog screening: learn where the simulated tower clogs from cheap short replays.

Players report towers that let pieces through, so a tower that clogs is ruled out before
any recording is looked at: it is prior knowledge, not a design point worth a full replay.
The fit therefore starts with **short replays** (the first few throws of the training
plan) at points spread over the prior. A clogging tower fills up within a few throws and
the short replay aborts; a healthy one does not. A :class:`ClogClassifier` (logistic
regression on linear and square terms of the prior-scaled parameters, ridge-penalised) is
fitted to the outcomes, and to every full replay's outcome as the fit goes on. Design
points are then drawn only where the classifier expects the tower not to clog, and the
posterior is cut to that region, so the expensive replays go where a recording can be.

A tower can also clog later than the short replay reaches: it **fills up** (holds more and
more pieces) and is aborted only well into its full replay. A short replay that held at
least :data:`FILLING` of the clog limit (a physics simulator's ``max_inside``) counts as
filling up. Design points are drawn where a second classifier, fitted to clogged-or-filling
outcomes, expects neither; the posterior is still cut only where towers clog, because a
tower that holds many pieces is a tower someone may record.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> u = rng.random((200, 2))
>>> clf = ClogClassifier.fit(u, u[:, 0] < 0.3)
>>> clf.prob(np.array([[0.05, 0.5], [0.9, 0.5]])).round(2).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

#: Probability of clogging above which a point is treated as a clogging tower.
CLOG_THRESHOLD = 0.5
#: Share of the clog limit that a short screening replay may reach before it counts as
#: filling up. Measured on the design replays of four physics fits (seeds 1201-1203,
#: numerics v2-v4, limit 48): flagging a short replay of 25 throws that held 30 or more
#: would have kept 27 of the 44 clogging replays of the first design wave out, and 15 of
#: the 212 that did not clog.
FILLING = 0.625


def _features(u: np.ndarray) -> np.ndarray:
    z = 2 * np.atleast_2d(u) - 1
    return np.hstack([np.ones((len(z), 1)), z, z**2])


@dataclass(frozen=True)
class ClogClassifier:
    """``prob(u)``: chance that a tower at unit-cube coordinates ``u : (m, d)`` clogs."""

    coef: np.ndarray | None  # None: no clog seen, never clogs
    constant: float = 0.0

    @classmethod
    def fit(cls, u: np.ndarray, clogged: np.ndarray, penalty: float = 0.1) -> ClogClassifier:
        """Penalised logistic regression of ``clogged : (n,)`` on ``u : (n, d)``."""
        y = np.asarray(clogged, dtype=float)
        if len(y) == 0 or y.max() == 0:
            return cls(None, 0.0)
        if y.min() == 1:
            return cls(None, 1.0)
        x = _features(u)

        def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
            eta = x @ beta
            p = 1 / (1 + np.exp(-eta))
            value = np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * penalty * beta[1:] @ beta[1:]
            grad = x.T @ (p - y)
            grad[1:] += penalty * beta[1:]
            return float(value), grad

        beta = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x
        return cls(beta)

    def prob(self, u: np.ndarray) -> np.ndarray:
        if self.coef is None:
            return np.full(len(np.atleast_2d(u)), self.constant)
        return 1 / (1 + np.exp(-(_features(u) @ self.coef)))

    def ok(self, u: np.ndarray) -> np.ndarray:
        """Boolean mask: points expected not to clog."""
        return self.prob(u) < CLOG_THRESHOLD


def filling_up(results: list[dict | None], short: tuple, limit: int | None) -> np.ndarray:
    """``(n,) bool``: which short replays clogged (``None``) or held at least
    :data:`FILLING` ``* limit`` pieces at some point (``limit`` ``None``: the simulator has
    no clog limit, and only clogged replays count).

    >>> from tower.calibration.synthetic import synthetic_plan
    >>> short = short_plan(synthetic_plan(25, 12), 5)
    >>> kept = {"outs": [[{}] * 5]}  # nothing came out: 12, 24, ..., 60 inside
    >>> let_through = {"outs": [[dict(t) for t in short[0].throws]]}  # all out
    >>> filling_up([None, kept, let_through], short, 48).tolist()
    [True, True, False]
    """
    from tower.calibration.simulators import sessions_from_outs
    from tower.calibration.summaries import most_inside

    if limit is None:
        return np.array([res is None for res in results], bool)
    return np.array(
        [res is None or most_inside(sessions_from_outs(short, res["outs"])) >= FILLING * limit
         for res in results],
        bool,
    )  # fmt: skip


def short_plan(plan: tuple, throws: int) -> tuple:
    """The first ``throws`` throws of a plan (over its sessions in order), for screening."""
    from dataclasses import replace

    out, left = [], throws
    for p in plan:
        if left <= 0:
            break
        out.append(replace(p, throws=p.throws[:left]))
        left -= len(p.throws)
    return tuple(out)
