"""The key tower statistics as the learned likelihood plays them forward.

The learned likelihood (:mod:`tower.calibration.surrogate`) is a generative model of a
recording: given what the recording shows before a throw, it draws the pieces out. Played
forward from an empty tower over the recording's own protocol, it gives the key tower
statistics (:mod:`tower.calibration.behaviour`) at any ``theta``, by the same law that
scores the recording. A posterior sample's statistics are therefore the ones its
likelihood implies, not a second regression's guess.

All chains advance together, one throw at a time, in numpy: state ``(N, K)`` pieces inside
by colour (``K`` colours of the protocol), features as
:class:`~tower.calibration.surrogate.History` computes them, the two counts drawn from the
member's beta-binomials, then which colours they are: ``same`` among the thrown colours'
pieces (fresh and inside) and ``other`` among the rest, uniformly (hypergeometric splits),
as :meth:`~tower.calibration.surrogate.Surrogate.simulate` does for one chain, except that
the pieces inside of a thrown colour come out at the chance of the other pieces inside (a
recording cannot tell them from the fresh ones, and the physics never sees colours), so
that the fresh share is the tower's.

Examples
--------
>>> from tower.calibration.surrogate import load_surrogate
>>> s = load_surrogate()
>>> u = np.full((3, len(s.parameters)), 0.5)
>>> keys = forward_keys(s, u, np.zeros(3, int), np.random.default_rng(0), throws=60)
>>> keys.shape, bool((keys[:, 0] >= 0).all())
((3, 5), True)
"""

from __future__ import annotations

import numpy as np

from tower.calibration.surrogate import (
    AGE_EDGES,
    FEATURES,
    FILL_THROWS,
    SCALE,
    CountModel,
    Surrogate,
)
from tower.calibration.synthetic import colour_throws

#: Throws played forward, and chains averaged per point: the key statistics are those of a
#: sequence as long as the coverage check's truth sequences.
THROWS, CHAINS = 100, 4



def paired_logit(model: CountModel, u: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Logits ``(N,)`` of ``N`` pairs: point ``u[i] : (d,)`` with features ``x[i]``."""
    z = (np.hstack([u, x]) - model.centre) / model.scale
    return model.c + z @ model.w + np.einsum("ni,ij,nj->n", z, model.A, z)


def _chance(logit: np.ndarray) -> np.ndarray:
    return np.clip(1 / (1 + np.exp(-logit)), 1e-6, 1 - 1e-6)


def _beta_binomial(
    model: CountModel, n: np.ndarray, mu: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One draw per chain of :meth:`CountModel.draw` (``mu``: its chance)."""
    c = (1 - model.rho) / model.rho
    return rng.binomial(n.astype(np.int64), rng.beta(mu * c, (1 - mu) * c))


def _split(pools: np.ndarray, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``k[i]`` pieces drawn uniformly without replacement from pools ``(N, P)``: how many
    from each pool ``(N, P)`` (sequential hypergeometric draws)."""
    taken = np.zeros_like(pools)
    left, rest = k.copy(), pools.sum(axis=1)
    for j in range(pools.shape[1]):
        rest = rest - pools[:, j]
        taken[:, j] = rng.hypergeometric(pools[:, j], rest, left)
        left = left - taken[:, j]
    return taken


def play(
    surrogate: Surrogate, u: np.ndarray, member: np.ndarray, rng: np.random.Generator, *,
    size: int = 12, group: int = 1, throws: int = THROWS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Play ``N`` chains forward from an empty tower: chain ``i`` at ``u[i] : (d,)`` by
    ensemble member ``member[i]``, ``throws`` throws of ``size`` keshis in colour groups of
    ``group`` (:func:`tower.calibration.synthetic.colour_throws`).

    Returns ``(before, out, fresh)``, each ``(N, throws)``: pieces inside before each
    throw, pieces out of it, and how many of those were just thrown.
    """
    plan = colour_throws(throws, size, group)
    colours = sorted({c for throw in plan for c in throw})
    index = {c: i for i, c in enumerate(colours)}
    n, k = len(u), len(colours)
    inside = np.zeros((n, k), np.int64)
    last = np.full(k, -99)
    prev = np.zeros((n, 2), np.int64)
    before, out, fresh = (np.zeros((n, throws), np.int64) for _ in range(3))
    x = np.zeros((n, len(FEATURES)))
    for t, throw in enumerate(plan):
        cols = [index[c] for c in throw]
        counts = np.array([throw[c] for c in throw], np.int64)
        others = [j for j in range(k) if j not in cols]
        bucket = np.searchsorted(AGE_EDGES, t - last)
        total = inside.sum(axis=1)
        same_in = inside[:, cols].sum(axis=1)
        x[:, 0], x[:, 1], x[:, 2] = size, total, same_in
        for b in range(5):
            x[:, 3 + b] = inside[:, bucket == b].sum(axis=1)
        x[:, 8], x[:, 9] = prev.sum(axis=1), prev[:, 0]
        x[:, 10] = min(t, 24) * SCALE / 24
        x /= SCALE
        n_same, n_other = size + same_in, total - same_in
        same, other = np.zeros(n, np.int64), np.zeros(n, np.int64)
        old_chance = np.zeros(n)
        for m in np.unique(member):
            rows = member == m
            mem = surrogate.members[int(m)]
            ur, xr = u[rows], x[rows]
            same[rows] = _beta_binomial(
                mem.same, n_same[rows], _chance(paired_logit(mem.same, ur, xr)), rng
            )
            xo = np.hstack([xr, same[rows, None] / SCALE])
            old_chance[rows] = _chance(paired_logit(mem.other, ur, xo))
            other[rows] = _beta_binomial(mem.other, n_other[rows], old_chance[rows], rng)
        # which of ``same`` were inside: the physics never sees colours, so an old piece
        # of a thrown colour comes out at the chance of the other old pieces
        old_same = np.clip(
            rng.binomial(same_in, old_chance), same - size, np.minimum(same, same_in)
        )
        fresh_out = _split(np.broadcast_to(counts, (n, len(cols))), same - old_same, rng)
        inside[:, cols] += counts - fresh_out - _split(inside[:, cols], old_same, rng)
        if others:
            inside[:, others] -= _split(inside[:, others], other, rng)
        before[:, t], out[:, t], fresh[:, t] = total, same + other, fresh_out.sum(axis=1)
        last[cols] = t
        prev = np.stack([same, other], axis=1)
    return before, out, fresh


def forward_keys(
    surrogate: Surrogate, u: np.ndarray, member: np.ndarray, rng: np.random.Generator, *,
    size: int = 12, group: int = 1, throws: int = THROWS, chains: int = CHAINS,
) -> np.ndarray:  # fmt: skip
    """The key statistics ``(N, 5)`` (:func:`~tower.calibration.surrogate.key_names`, as
    :func:`~tower.calibration.surrogate.equilibrium_keys` takes them: over the throws after
    the first :data:`FILL_THROWS`) of chains played forward by :func:`play`, each the mean
    of ``chains`` chains at the same point (the expected statistics of a sequence of
    ``throws`` throws, not one sequence's)."""
    before, out, fresh = play(
        surrogate, np.repeat(u, chains, axis=0), np.repeat(member, chains), rng,
        size=size, group=group, throws=throws,
    )  # fmt: skip
    b, o, f = before[:, FILL_THROWS:], out[:, FILL_THROWS:], fresh[:, FILL_THROWS:]
    a = b + size - o
    steps = b.shape[1]
    keys = np.stack(
        [
            a.mean(axis=1),
            f.sum(axis=1) / (size * steps),
            (o - f).sum(axis=1) / np.maximum(b.sum(axis=1), 1),
            o.mean(axis=1),
            a.sum(axis=1) / np.maximum(size * steps - f.sum(axis=1), 1),
        ],
        axis=1,
    )
    return keys.reshape(len(u), chains, -1).mean(axis=1)
