"""Two-sample tests: are two sets of sequences drawn from the same law?

- :func:`binned_chi2`: chi-square test of homogeneity of one statistic, on bins of the
  pooled values merged until every bin expects enough counts (works for small integer
  statistics with many ties as well as for continuous ones).
- :func:`classifier_test`: an L2-regularised logistic regression (features and their
  squares, standardised; fitted by Newton's method) tries to tell the samples apart;
  its cross-validated accuracy on balanced samples is about 0.5 when it cannot.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> a, b = rng.poisson(5, 500), rng.poisson(5, 500)
>>> binned_chi2(a, b).pvalue > 0.01
True
>>> X, Y = rng.normal(size=(400, 3)), rng.normal(size=(400, 3))
>>> classifier_test(X, Y, seed=1).accuracy < 0.56
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Chi2Result:
    """Chi-square homogeneity test of one statistic."""

    statistic: float
    dof: int
    pvalue: float
    bins: int


def binned_chi2(
    a: np.ndarray, b: np.ndarray, min_expected: float = 5.0, max_bins: int = 12
) -> Chi2Result:
    """Chi-square test that samples ``a`` and ``b`` share one distribution.

    Parameters
    ----------
    a, b : (n,), (k,) float
        The two samples of one statistic.
    min_expected : float
        Each bin is widened until both samples expect at least this many values in it.
    max_bins : int
        At most this many bins (of about equal pooled mass).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    pooled = np.concatenate([a, b])
    values, counts = np.unique(pooled, return_counts=True)
    share = min(len(a), len(b)) / len(pooled)
    need = max(min_expected / share, len(pooled) / max_bins)
    uppers, acc = [], 0
    for v, c in zip(values, counts, strict=True):
        acc += c
        if acc >= need:
            uppers.append(v)
            acc = 0
    if acc and uppers:  # fold the thin tail into the last bin
        uppers[-1] = values[-1]
    if len(uppers) < 2:
        return Chi2Result(0.0, 0, 1.0, len(uppers))
    edges = np.asarray(uppers[:-1])
    ia = np.bincount(np.searchsorted(edges, a, side="left"), minlength=len(uppers))
    ib = np.bincount(np.searchsorted(edges, b, side="left"), minlength=len(uppers))
    res = stats.chi2_contingency(np.vstack([ia, ib]), correction=False)
    return Chi2Result(float(res.statistic), int(res.dof), float(res.pvalue), len(uppers))


@dataclass(frozen=True)
class ClassifierResult:
    """Cross-validated accuracy of telling two samples apart."""

    accuracy: float
    pvalue: float  # one-sided binomial test against 0.5
    n: int  # sequences per sample used (balanced)
    folds: int


def _logistic_fit(X: np.ndarray, y: np.ndarray, l2: float, iters: int = 30) -> np.ndarray:
    """Weights (bias last) of an L2-regularised logistic regression, by Newton's method."""
    Xb = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(Xb.shape[1])
    reg = np.full(Xb.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(Xb @ w, -30, 30)))
        grad = Xb.T @ (p - y) + reg * w
        hess = (Xb * (p * (1 - p))[:, None]).T @ Xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def classifier_test(
    X: np.ndarray, Y: np.ndarray, *, folds: int = 5, l2: float = 1.0, seed: int = 0
) -> ClassifierResult:
    """Cross-validated accuracy of a logistic regression that separates ``X`` from ``Y``.

    Parameters
    ----------
    X, Y : (n, d), (k, d) float
        Feature vectors of the two samples; the larger is subsampled to the smaller.
    folds : int
        Cross-validation folds.
    l2 : float
        Ridge penalty on the standardised weights.
    seed : int
        Seed of the subsampling and the fold split.
    """
    rng = np.random.default_rng(seed)
    n = min(len(X), len(Y))
    X = X[rng.permutation(len(X))[:n]]
    Y = Y[rng.permutation(len(Y))[:n]]
    data = np.vstack([X, Y]).astype(float)
    data = np.hstack([data, data**2])
    labels = np.concatenate([np.zeros(n), np.ones(n)])
    fold = rng.permutation(2 * n) % folds
    correct = 0
    for k in range(folds):
        train, test = fold != k, fold == k
        mu = data[train].mean(axis=0)
        sd = data[train].std(axis=0)
        sd[sd == 0] = 1.0
        w = _logistic_fit((data[train] - mu) / sd, labels[train], l2)
        z = np.hstack([(data[test] - mu) / sd, np.ones((test.sum(), 1))]) @ w
        correct += int(((z > 0) == (labels[test] == 1)).sum())
    accuracy = correct / (2 * n)
    pvalue = float(stats.binomtest(correct, 2 * n, 0.5, alternative="greater").pvalue)
    return ClassifierResult(accuracy, pvalue, n, folds)
