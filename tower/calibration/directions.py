"""What a recording pins down: the posterior's best-constrained directions in parameter space.

Per-parameter intervals hide combinations that the data do constrain: a larger hole and a
less bouncy piece can let the same share of pieces through, so neither is pinned down on
its own while their balance is. This module finds such combinations as the posterior's
**principal directions in prior-scaled units**: each parameter is centred and scaled to
unit prior standard deviation (uniform prior: ``z = (u - 1/2) * sqrt(12)``), the
posterior covariance of ``z`` is diagonalised, and its eigenvectors with the smallest
variance are the best-constrained directions. For each, the report gives the 90% interval
of the posterior projection next to the prior's, their width ratio, and the meaning in
words: which parameters load on it, and how they trade off.

Examples
--------
>>> import numpy as np
>>> from tower.calibration.simulators import Parameter
>>> params = (Parameter("a", 0, 1), Parameter("b", 0, 1), Parameter("c", 0, 1))
>>> rng = np.random.default_rng(0)
>>> t = rng.random(4000)
>>> u = np.stack([t, np.clip(1 - t + rng.normal(0, 0.02, 4000), 0, 1), rng.random(4000)], 1)
>>> best = principal_directions(params, u)[0]
>>> round(best.width_ratio, 2) < 0.1, best.words()
(True, '`a` together with `b` (+0.71 `a`, +0.71 `b`): their sum is what the recording fixes')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.calibration.simulators import Parameter

#: A loading at least this large (in absolute value) is named in the words.
NAMED_LOADING = 0.3

#: A direction is "pinned down" when its 90% interval is under this share of the prior's.
PINNED_RATIO = 0.5

_SQRT12 = float(np.sqrt(12.0))


@dataclass(frozen=True)
class Direction:
    """One principal direction: unit ``loadings : (d,)`` over the prior-scaled parameters."""

    names: tuple[str, ...]
    loadings: np.ndarray
    posterior: tuple[float, float, float]  # 5%, 50%, 95% of the projection
    prior: tuple[float, float]  # 5%, 95% under the prior
    truth: float | None = None

    @property
    def width_ratio(self) -> float:
        return (self.posterior[2] - self.posterior[0]) / (self.prior[1] - self.prior[0])

    @property
    def pinned(self) -> bool:
        return self.width_ratio < PINNED_RATIO

    @property
    def covers_truth(self) -> bool | None:
        if self.truth is None:
            return None
        return self.posterior[0] <= self.truth <= self.posterior[2]

    def terms(self) -> list[tuple[str, float]]:
        """``(name, loading)`` of the named parameters, largest first."""
        order = np.argsort(-np.abs(self.loadings))
        named = [(self.names[i], float(self.loadings[i])) for i in order]
        return [t for t in named if abs(t[1]) >= NAMED_LOADING][:4] or named[:1]

    def words(self) -> str:
        """The direction in words."""
        terms = self.terms()
        listed = ", ".join(f"{v:+.2f} `{n}`" for n, v in terms)
        if len(terms) == 1 or abs(terms[0][1]) >= 0.9:
            return f"mostly `{terms[0][0]}` ({listed})"
        (a, va), (b, vb) = terms[:2]
        if va * vb > 0:
            return f"`{a}` together with `{b}` ({listed}): their sum is what the recording fixes"
        return (
            f"`{a}` against `{b}` ({listed}): the recording fixes their balance; raising "
            f"one can be made up for by raising the other"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "loadings": {n: round(float(v), 4) for n, v in zip(self.names, self.loadings,
                                                                strict=True)},
            "posterior": list(self.posterior),
            "prior": list(self.prior),
            "width_ratio": round(self.width_ratio, 4),
            "words": self.words(),
            **({} if self.truth is None else {"truth": self.truth}),
        }  # fmt: skip


def prior_scaled(u: np.ndarray) -> np.ndarray:
    """Unit-cube coordinates to prior-scaled units (mean 0, sd 1 under the uniform prior)."""
    return (np.atleast_2d(u) - 0.5) * _SQRT12


def principal_directions(
    params: Sequence[Parameter],
    samples_u: np.ndarray,
    truth_u: np.ndarray | None = None,
    *,
    seed: int = 0,
) -> list[Direction]:
    """The posterior's principal directions, best-constrained first.

    Parameters
    ----------
    params : sequence of Parameter
        The fitted parameters (names only are used).
    samples_u : (m, d) array
        Posterior samples in unit-cube coordinates.
    truth_u : (d,) array, optional
        True values in unit-cube coordinates (synthetic recordings).
    seed : int
        Seeds the prior draws that give each direction's prior interval.
    """
    z = prior_scaled(samples_u)
    d = z.shape[1]
    cov = np.atleast_2d(np.cov(z, rowvar=False))
    values, vectors = np.linalg.eigh(cov)
    prior_z = prior_scaled(np.random.default_rng(seed).random((20000, d)))
    names = tuple(p.name for p in params)
    out = []
    for j in np.argsort(values):
        v = vectors[:, j]
        v = v * np.sign(v[np.argmax(np.abs(v))])
        proj = z @ v
        prior = np.quantile(prior_z @ v, [0.05, 0.95])
        q = np.quantile(proj, [0.05, 0.5, 0.95])
        truth = None if truth_u is None else float(prior_scaled(truth_u)[0] @ v)
        out.append(
            Direction(
                names,
                v,
                (float(q[0]), float(q[1]), float(q[2])),
                (float(prior[0]), float(prior[1])),
                truth,
            )
        )
    return out


def truth_unit(params: Sequence[Parameter], truth: Mapping[str, float]) -> np.ndarray | None:
    """True values in unit-cube coordinates, or None when some parameter has no truth."""
    if not all(p.name in truth for p in params):
        return None
    return np.array([(truth[p.name] - p.low) / (p.high - p.low) for p in params])
