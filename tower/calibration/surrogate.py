"""A likelihood for every recorded throw, learned once from the physics bank.

A recorded throw is a transition. From an empty start, the recording tells exactly how
many pieces of each colour are inside before the throw, and the protocol's colours tell
roughly how old they are. The outcome is the pieces out, split in two counts:

- ``same``: pieces out whose colour was thrown in this throw (the fresh ones, plus any old
  piece of the same colour still inside);
- ``other``: the rest, all of them older pieces.

The surrogate learns ``p(same, other | theta, x) = p(same | theta, x) p(other | theta, x,
same)``: each count is beta-binomial among the pieces that could come out, its chance a
logistic function of every square and product of the inputs (:class:`CountModel`, fitted
by scikit-learn's logistic regression; stored as plain JSON numbers). ``x``
(:data:`FEATURES`) is what the recording shows before the throw: pieces thrown, pieces
inside, how many of them share a colour with this throw, the residents by the age of their
colour (throws since that colour was last thrown), the last throw's outcome, and the time
since the tower was emptied. The arrangement inside the tower is hidden; these history
features stand in for it, and an ensemble over bootstrap resamples of bank points carries
the surrogate's own uncertainty into the posterior (a mixture of the members' posteriors).

The recording's log-likelihood at ``theta`` is the sum over its throws, tempered; the
posterior is sampled by MCMC (:mod:`tower.calibration.bankfit`). The sum is a *composite*
likelihood, and the raw sum is too sharp: the variance of the score at the truth (``J``)
exceeds the expected curvature (``H``). Each member's log-likelihood is therefore
multiplied by ``k = d / tr(H^-1 J)`` (the magnitude adjustment of Pauli, Racugno & Ventura,
Statistica Sinica 2011), estimated on bank sequences the member was not trained on
(:func:`godambe_temper`) and stored with the member, then scaled by one factor calibrated
on recordings as long as real ones (:mod:`tower.calibration.tempering`).

``J/H`` grows with a sequence's length: along ``H``'s best directions, at the truths of the
tempering recordings, the shipped members give 0.8-1.6 over 12 throws, 1.6-5.8 over 36
and 4.5-14 over 200. Most of that is not the hidden arrangement, which the features do not
show, but the learned conditional's own error at each truth, which every throw there
shares: the per-throw scores stay correlated at every lag up to 80 throws, and the score
of a recording's throws 36-100 correlates with that of the independent replay at the same
truth (0.45-0.86) as strongly as with its own throws 136-200 (0.42-0.67). That error is
smooth in ``theta`` but changes faster than the bank's points are spaced: three times the
points (582 to 1,756), a penalty, long training sequences or a neural net leave the
honestly tempered information of a 200-throw recording nearly where it is, and emptying
the tower between sessions does not reset it (``calibration/information`` in the
repository). Because ``J/H`` depends on the length, ``train`` can temper on a second bank
whose sequences are as long as recordings (``temper_bank``).

One number for every direction is a compromise; a direction-wise adjustment was measured
and is not used. Chandler & Bate's curvature adjustment (Biometrika 2007), ``l(theta_hat +
C (theta - theta_hat))`` about each member's composite mode with ``C' H C = H J^-1 H``
from the same held-out points, refitted on the 102 committed coverage recordings, held the
truth in 77.0 % of pinned directions (147/191; this scalar: 84.7 %), 88.4 % of parameters
and 95.7 % of key statistics, and narrowed pieces inside to 0.41 (0.26). The bank's
sequences are 36 throws long, and ``J/H`` grows with a sequence's length, by a different
factor in each direction. For the first member, along the three directions its ``H``
constrains best it is 1.3, 1.6, 1.4 over the held-out sequences' first 12 throws and 2.3,
3.7, 3.8 over all 36; at the coverage truths, 1.8, 2.1, 1.5 over a recording's first 36
throws and 8, 10, 6 over all 200. A matrix measured on the bank has the wrong shape for a
200-throw recording.

This is neural likelihood estimation per trial (Boelts et al., eLife 2022, MNLE; Gloeckler
et al., ICLR 2025, for Markov simulators), amortised over physics parameters as in
BayesSim (Ramos et al., RSS 2019). The bank's throws are painted with colours afterwards
(:func:`paint`): colours are labels the physics never sees, so one bank serves every
protocol that throws the bank's number of pieces at a time.

Examples
--------
>>> plan = paint([[0], [1, 0, 0]], size=2, group=1, seed=0)
>>> [(dict(i), dict(o)) for i, o in plan]
[({'green': 2}, {'green': 1}), ({'gray': 2}, {'green': 1, 'gray': 2})]
>>> X, y = transitions([{"green": 2}, {"gray": 2}], [{"green": 1}, {"gray": 2, "green": 1}])
>>> y.tolist()
[[1, 0], [2, 1]]
>>> X[1, :3].round(3).tolist()  # 2 thrown, 1 inside, 0 of the thrown colour
[0.167, 0.083, 0.0]
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tower.errors import InputFileError, TowerError

SCHEMA = "tower.surrogate/3"
#: Versions read: /2 also held a regression of the key statistics on ``theta`` (now played
#: forward, :mod:`tower.calibration.forward`), which is ignored.
SUPPORTED = ("tower.surrogate/2", SCHEMA)

#: The surrogate shipped with the package (trained on :data:`tower.calibration.bank.DEFAULT_BANK`).
DEFAULT_SURROGATE = Path(__file__).parent / "data" / "surrogate-marrakesh.json"

#: What the recording shows before a throw (all counts over 12).
FEATURES = (
    "thrown",
    "inside",
    "inside_same_colour",
    "inside_age_1",
    "inside_age_2",
    "inside_age_3",
    "inside_age_4_6",
    "inside_age_7_up",
    "last_out",
    "last_out_same",
    "time_since_empty",
)

SCALE = 12.0

#: Upper edges of the age buckets of :data:`FEATURES` (throws since a colour was last
#: thrown): 1 or less, 2, 3, 4-6, 7 and more.
AGE_EDGES = (1, 2, 3, 6)



class History:
    """What a recording shows of the tower before each throw, kept throw by throw."""

    def __init__(self) -> None:
        self.inside: dict[str, int] = {}
        self.last: dict[str, int] = {}
        self.prev = (0, 0)
        self.t = 0

    def features(self, cin: Mapping[str, int]) -> np.ndarray:
        """The row of :data:`FEATURES` before throwing ``cin``."""
        row = np.zeros(len(FEATURES))
        row[0] = sum(cin.values())
        row[1] = sum(self.inside.values())
        row[2] = sum(self.inside.get(k, 0) for k in cin)
        for k, n in self.inside.items():
            age = self.t - self.last.get(k, -99)
            row[3 + bisect_left(AGE_EDGES, age)] += n
        row[8], row[9] = sum(self.prev), self.prev[0]
        row[10] = min(self.t, 24) * SCALE / 24
        return row / SCALE

    def update(self, cin: Mapping[str, int], cout: Mapping[str, int]) -> tuple[int, int]:
        """Record the throw; returns its outcome ``(same, other)``."""
        same = sum(n for k, n in cout.items() if k in cin)
        self.prev = (same, sum(cout.values()) - same)
        for k, n in cin.items():
            self.inside[k] = self.inside.get(k, 0) + n
            self.last[k] = self.t
        for k, n in cout.items():
            self.inside[k] = self.inside.get(k, 0) - n
        self.t += 1
        return self.prev


def transitions(
    ins: Sequence[Mapping[str, int]], outs: Sequence[Mapping[str, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Features ``(T, len(FEATURES))`` and outcomes ``(T, 2)`` (same, other) of one
    session that started from an empty tower."""
    history = History()
    X = np.zeros((len(ins), len(FEATURES)))
    y = np.zeros((len(ins), 2), dtype=int)
    for t, (cin, cout) in enumerate(zip(ins, outs, strict=True)):
        X[t] = history.features(cin)
        y[t] = history.update(cin, cout)
    return X, y


def paint(
    ages: Sequence[Sequence[int]], size: int, group: int, seed: int
) -> list[tuple[dict[str, int], dict[str, int]]]:
    """A bank sequence as a recording of the protocol with ``group`` colours per throw.

    Throw ``t`` throws the colours :func:`tower.calibration.synthetic.colour_throws` gives;
    which of a throw's pieces carries which colour is drawn at random (the physics never
    sees colours), and a piece keeps its colour until it comes out.
    """
    from tower.calibration.synthetic import colour_throws

    rng = np.random.default_rng(seed)
    plan = colour_throws(len(ages), size, group)
    pools: list[list[str]] = []
    painted = []
    for t, out_ages in enumerate(ages):
        pool = [k for k, n in plan[t].items() for _ in range(n)]
        pools.append([pool[i] for i in rng.permutation(len(pool))])
        out: dict[str, int] = {}
        for a in out_ages:
            colour = pools[t - a].pop()
            out[colour] = out.get(colour, 0) + 1
        painted.append((dict(plan[t]), out))
    return painted


# ---------------------------------------------------------------- the count models


def _beta_binomial_logpmf(k: np.ndarray, n: np.ndarray, mu: np.ndarray, rho: float) -> np.ndarray:
    """log P(k) of a beta-binomial with ``n`` trials, mean ``mu`` and intra-class
    correlation ``rho`` (``rho`` -> 0: the binomial)."""
    from scipy.special import betaln, gammaln

    mu = np.clip(mu, 1e-6, 1 - 1e-6)
    c = (1 - rho) / rho
    a, b = mu * c, (1 - mu) * c
    return (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
            + betaln(k + a, n - k + b) - betaln(a, b))  # fmt: skip


@dataclass(frozen=True)
class CountModel:
    """The count of pieces out among ``n`` that could come out: beta-binomial, with the
    chance a logistic function of a quadratic form in the standardised inputs
    ``z = ([u, x] - centre) / scale`` (every square and every product of two inputs), and
    one overdispersion ``rho`` (pieces leave together: one dislodged piece takes others).

    ``logit = c + w . z + z' A z`` with ``A`` symmetric. The form splits into a part of
    ``u``, a part of ``x`` and a cross term, so scoring ``m`` parameter points against
    ``T`` throws costs ``O(m T)`` (:meth:`logit`), not ``O(m T p)``.
    """

    centre: np.ndarray  # (q,)
    scale: np.ndarray  # (q,)
    c: float
    w: np.ndarray  # (q,)
    A: np.ndarray  # (q, q)
    rho: float

    def logit(self, u: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``(m, T)`` logits at points ``u : (m, d)`` for throws ``x : (T, q - d)``."""
        d = u.shape[1]
        zu = (u - self.centre[:d]) / self.scale[:d]
        zx = (x - self.centre[d:]) / self.scale[d:]
        Auu, Aux, Axx = self.A[:d, :d], self.A[:d, d:], self.A[d:, d:]
        pu = zu @ self.w[:d] + np.einsum("mi,ij,mj->m", zu, Auu, zu)
        px = self.c + zx @ self.w[d:] + np.einsum("ti,ij,tj->t", zx, Axx, zx)
        return pu[:, None] + px[None, :] + 2 * (zu @ Aux) @ zx.T

    def logpmf(self, k: np.ndarray, n: np.ndarray, logit: np.ndarray) -> np.ndarray:
        """log P(k of n) given logits (broadcast over leading axes)."""
        return _beta_binomial_logpmf(k, n, 1 / (1 + np.exp(-logit)), self.rho)

    def draw(self, n: int, logit: float, rng: np.random.Generator) -> int:
        if n <= 0:
            return 0
        mu = float(np.clip(1 / (1 + np.exp(-logit)), 1e-6, 1 - 1e-6))
        c = (1 - self.rho) / self.rho
        return int(rng.binomial(n, rng.beta(mu * c, (1 - mu) * c)))

    def to_json(self) -> dict[str, Any]:
        # full precision: JSON floats read back exactly, and the file is small
        return {
            "centre": self.centre.tolist(),
            "scale": self.scale.tolist(),
            "c": float(self.c),
            "w": self.w.tolist(),
            "A": self.A.tolist(),
            "rho": float(self.rho),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CountModel:
        return cls(
            np.array(data["centre"], float), np.array(data["scale"], float), float(data["c"]),
            np.array(data["w"], float), np.array(data["A"], float), float(data["rho"]),
        )  # fmt: skip

    @classmethod
    def fit(cls, z: np.ndarray, k: np.ndarray, n: np.ndarray, penalty: float) -> CountModel:
        """Fit the chance by L2-penalised binomial maximum likelihood (scikit-learn's
        logistic regression on the counts as weights), then ``rho`` by the method of
        moments on the residuals."""
        from sklearn.linear_model import LogisticRegression

        centre, scale = z.mean(axis=0), z.std(axis=0) + 1e-9
        zs = (z - centre) / scale
        q = z.shape[1]
        iu = np.triu_indices(q)
        phi = np.hstack([zs, zs[:, iu[0]] * zs[:, iu[1]]])
        keep = n > 0
        X2 = np.vstack([phi[keep], phi[keep]])
        y2 = np.r_[np.ones(keep.sum()), np.zeros(keep.sum())]
        w2 = np.r_[k[keep], n[keep] - k[keep]].astype(float)
        nz = w2 > 0
        lr = LogisticRegression(C=1.0 / penalty, max_iter=2000, tol=1e-6)
        lr.fit(X2[nz], y2[nz], sample_weight=w2[nz])
        coef = lr.coef_[0]
        A = np.zeros((q, q))
        A[iu] = coef[q:]
        A = (A + A.T) / 2  # squares stay on the diagonal, products split in two
        model = cls(centre, scale, float(lr.intercept_[0]), coef[:q], A, 0.01)
        mu = 1 / (1 + np.exp(-(phi @ coef + lr.intercept_[0])))
        many = n >= 2
        var = n * mu * (1 - mu)
        excess = ((k - n * mu) ** 2 - var)[many].sum()
        rho = excess / max((var * (n - 1))[many].sum(), 1e-9)
        return cls(model.centre, model.scale, model.c, model.w, model.A,
                   float(np.clip(rho, 1e-4, 0.5)))  # fmt: skip


@dataclass(frozen=True)
class Member:
    """One ensemble member: the count models of a throw's outcome."""

    same: CountModel
    other: CountModel


def _limits(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pieces that could come out as ``same`` (thrown, or inside of a thrown colour) and as
    ``other`` (inside, of other colours), per throw."""
    same = np.rint((X[:, 0] + X[:, 2]) * SCALE)
    return same, np.rint((X[:, 1] - X[:, 2]) * SCALE)


@dataclass(frozen=True)
class Surrogate:
    """The learned per-throw likelihood: an ensemble of :class:`Member`, the names of the
    key statistics a fit reports (played forward, :mod:`tower.calibration.forward`), and
    where towers clog (a logistic classifier on the bank's
    clogged sequences, :class:`tower.calibration.screen.ClogClassifier`)."""

    parameters: tuple[str, ...]
    members: tuple[Member, ...]
    key_names: tuple[str, ...]
    clog_coef: tuple[float, ...] | None
    provenance: dict[str, Any]
    #: Each member's tempering of its composite log-likelihood (:func:`godambe_temper`).
    temper: tuple[float, ...]

    @property
    def clog(self) -> Any:
        from tower.calibration.screen import ClogClassifier

        return ClogClassifier(None if self.clog_coef is None else np.array(self.clog_coef))

    def loglik(
        self, u: np.ndarray, X: np.ndarray, y: np.ndarray, member: int, *, tempered: bool = True
    ) -> np.ndarray:
        """Log-likelihood ``(m,)`` of throws ``X : (T, f)``, ``y : (T, 2)`` at unit-cube
        points ``u : (m, d)``, by ensemble member ``member``, tempered by its
        :attr:`temper` (``tempered=False``: the raw sum over throws); in blocks of about
        200,000 (point, throw) pairs."""
        mem = self.members[member]
        n_same, n_other = _limits(X)
        xo = np.hstack([X, y[:, :1] / SCALE])
        out = np.zeros(len(u))
        block = max(1, 200000 // max(len(X), 1))
        for start in range(0, len(u), block):
            ub = u[start : start + block]
            score = mem.same.logpmf(y[:, 0], n_same, mem.same.logit(ub, X)).sum(axis=1)
            score += mem.other.logpmf(y[:, 1], n_other, mem.other.logit(ub, xo)).sum(axis=1)
            out[start : start + block] = score
        return out * self.temper[member] if tempered else out

    def simulate(
        self, u: np.ndarray, member: int, ins: Sequence[Mapping[str, int]],
        rng: np.random.Generator,
    ) -> list[dict[str, int]]:  # fmt: skip
        """A recording-like session from an empty tower at ``u : (d,)``: the out counts by
        colour of throwing ``ins`` in turn, drawn from member ``member``.

        The two counts are drawn from the count models; which pieces they are is drawn at
        random: ``same`` among the pieces of the thrown colours (fresh or inside), ``other``
        among the other pieces inside.
        """
        mem = self.members[member]
        history = History()
        outs = []
        for cin in ins:
            x = history.features(cin)[None]
            n_same, n_other = (int(v[0]) for v in _limits(x))
            same = mem.same.draw(n_same, float(mem.same.logit(u[None], x)[0, 0]), rng)
            xo = np.hstack([x, [[same / SCALE]]])
            other = mem.other.draw(n_other, float(mem.other.logit(u[None], xo)[0, 0]), rng)
            pool_same = {k: history.inside.get(k, 0) + n for k, n in cin.items()}
            pool_other = {k: n for k, n in history.inside.items() if k not in cin and n}
            out: dict[str, int] = {}
            for pool, n in ((pool_same, same), (pool_other, other)):
                keys = [k for k, c in pool.items() for _ in range(c)]
                for i in rng.choice(len(keys), size=min(n, len(keys)), replace=False):
                    out[keys[i]] = out.get(keys[i], 0) + 1
            history.update(cin, out)
            outs.append(out)
        return outs

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "parameters": list(self.parameters),
            "features": list(FEATURES),
            "key_statistics": list(self.key_names),
            "clog_coef": None if self.clog_coef is None else list(self.clog_coef),
            "temper": list(self.temper),
            "provenance": self.provenance,
            "members": [
                {"same": m.same.to_json(), "other": m.other.to_json()} for m in self.members
            ],
        }

    def save(self, path: str | Path, *, force: bool = False) -> None:
        """Write the surrogate file atomically (an existing file only with ``force``)."""
        from tower.files.outputs import write_text

        text = json.dumps(self.to_json(), separators=(",", ":")) + "\n"
        write_text(Path(path), text, force=force)


def load_surrogate(path: str | Path = DEFAULT_SURROGATE) -> Surrogate:
    """Read a surrogate file (plain JSON numbers; never unpickled)."""
    from tower.files.inputs import read_text

    path = Path(path)
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise InputFileError(str(path), f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") not in SUPPORTED:
        raise InputFileError(
            str(path), f"schema {data.get('schema') if isinstance(data, dict) else None!r}, "
            f"expected {SCHEMA!r} (retrain it: tower calibrate bank train)", field="schema",
        )  # fmt: skip
    if data.get("features") != list(FEATURES):
        raise InputFileError(str(path), "made with other features; retrain it", field="features")
    try:
        members = tuple(
            Member(CountModel.from_json(m["same"]), CountModel.from_json(m["other"]))
            for m in data["members"]
        )  # fmt: skip
        clog = data["clog_coef"]
        temper = tuple(float(k) for k in data["temper"])
        if len(temper) != len(members) or not all(0 < k <= 1 for k in temper):
            raise ValueError(f"temper must be one number in (0, 1] per member, got {temper}")
        return Surrogate(
            tuple(data["parameters"]), members, tuple(data["key_statistics"]),
            None if clog is None else tuple(float(c) for c in clog),
            dict(data.get("provenance", {})), temper,
        )  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise InputFileError(str(path), f"bad surrogate ({exc})", field="members") from None


# ---------------------------------------------------------------- training


#: Colour groups the bank is painted with for training: one colour per throw (the
#: recommended protocol) and three (the older advice and ``record-synthetic``'s default).
TRAIN_GROUPS = (1, 3)


def bank_rows(bank: Any, points: Sequence[int], seed: int) -> tuple[np.ndarray, ...]:
    """Training rows ``(u, X, y)`` of the given bank points, painted with every
    :data:`TRAIN_GROUPS`."""
    size = int(bank.settings["size"])
    us, Xs, ys = [], [], []
    for i in points:
        for group in TRAIN_GROUPS:
            painted = paint(bank.ages[i], size, group, seed + 7919 * int(i) + group)
            X, y = transitions([p[0] for p in painted], [p[1] for p in painted])
            us.append(np.repeat(bank.u[i][None], len(X), axis=0))
            Xs.append(X)
            ys.append(y)
    return np.concatenate(us), np.concatenate(Xs), np.concatenate(ys)


#: Throws from an empty tower left out of the key statistics: the tower fills during them,
#: and a statistic over them depends on how long the sequence is.
FILL_THROWS = 12


def key_names(size: int) -> tuple[str, ...]:
    """The key statistics of a protocol of ``size`` keshis a throw, in the order fits and
    :func:`tower.calibration.forward.forward_keys` give them."""
    return ("inside", "p_fresh_out", "p_resident_out", f"out_{size}", "dwell")


def equilibrium_keys(ages: Sequence[Sequence[int]], size: int) -> dict[str, float]:
    """The key statistics (:mod:`tower.calibration.behaviour`) of one physics sequence
    from its hidden history, over its throws after the first :data:`FILL_THROWS`: pieces
    inside after a throw, the chance a thrown piece comes out at once, the chance a piece
    inside comes out, pieces out of a throw of ``size``, and the dwell time (Little's law).

    Ten of twelve come out at once, the two that stay come out in the next throw:

    >>> keys = equilibrium_keys([[0] * 10] + [[0] * 10 + [1] * 2] * 13, size=12)
    >>> {k: round(v, 3) for k, v in keys.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'inside': 2.0, 'p_fresh_out': 0.833, 'p_resident_out': 1.0, 'out_12': 12.0,
     'dwell': 1.0}
    """
    from tower.calibration.bank import ages_inside

    before = [len(a) for a in ages_inside(ages, size)]
    t = range(FILL_THROWS, len(ages))
    out = sum(len(ages[i]) for i in t)
    fresh = sum(list(ages[i]).count(0) for i in t)
    after = sum(before[i + 1] for i in t)
    return {
        "inside": after / max(len(t), 1),
        "p_fresh_out": fresh / max(size * len(t), 1),
        "p_resident_out": (out - fresh) / max(sum(before[i] for i in t), 1),
        f"out_{size}": out / max(len(t), 1),
        "dwell": after / max(size * len(t) - fresh, 1),
    }


def godambe_temper(
    surrogate: Surrogate, member: int, bank: Any, points: Sequence[int], seed: int = 0,
    step: float = 0.01,
) -> float:
    """The tempering ``k = d / tr(H^-1 J)`` of one member's composite log-likelihood,
    measured on bank ``points`` the member was not trained on (Pauli, Racugno & Ventura
    2011): ``J`` is the mean outer product of the raw log-likelihood's gradient at each
    point's truth, ``H`` the mean negative Hessian there (central differences of ``step``
    in the unit cube; each sequence painted with one colour per throw, the recommended
    protocol). A correct likelihood gives ``J = H`` and ``k = 1``; the result is capped
    at 1, so a tempering never sharpens."""
    d = len(surrogate.parameters)
    eye = np.eye(d)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    offsets = np.vstack([np.zeros(d), *[s * step * eye[i] for i in range(d) for s in (1, -1)],
                         *[step * (a * eye[i] + b * eye[j]) for i, j in pairs
                           for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))]])  # fmt: skip
    size = int(bank.settings["size"])
    J, H, n = np.zeros((d, d)), np.zeros((d, d)), 0
    for i in points:
        if bank.status[i] != "ok":
            continue
        painted = paint(bank.ages[i], size, 1, seed + 7919 * int(i))
        X, y = transitions([p[0] for p in painted], [p[1] for p in painted])
        ll = surrogate.loglik(bank.u[i][None] + offsets, X, y, member, tempered=False)
        plus, minus = ll[1 : 2 * d + 1 : 2], ll[2 : 2 * d + 1 : 2]
        g = (plus - minus) / (2 * step)
        hess = np.diag((plus - 2 * ll[0] + minus) / step**2)
        corners = ll[2 * d + 1 :].reshape(-1, 4) @ np.array([1, -1, -1, 1]) / (4 * step**2)
        for (a, b), v in zip(pairs, corners, strict=True):
            hess[a, b] = hess[b, a] = v
        J += np.outer(g, g)
        H -= hess
        n += 1
    if n < 2 * d:
        raise TowerError(f"{n} held-out bank sequences; at least {2 * d} are needed to temper")
    return float(min(1.0, d / np.trace(np.linalg.solve(H / n, J / n))))


def train(
    bank: Any, *, members: int = 4, penalty: float = 1.0, seed: int = 0, progress: bool = True,
    train_points: int | None = None, temper_bank: Any = None,
) -> Surrogate:
    """Train the ensemble on ``bank`` (:class:`tower.calibration.bank.Bank`) and temper each
    member (:func:`godambe_temper`).

    The members learn from the bank's first ``train_points`` points: one member from all of
    them, more each from a bootstrap resample (which sees about 63% of the points, so
    its likelihood is the noisier). They are tempered on the sequences of ``temper_bank``
    (default: none; then on the rest of ``bank``, and ``train_points`` defaults to three
    quarters of it, otherwise to all of it).
    """
    import dataclasses

    from tqdm import tqdm

    from tower.calibration.screen import ClogClassifier

    n_train = train_points or (len(bank.u) if temper_bank else round(0.75 * len(bank.u)))
    held = temper_bank or bank
    held_out = range(0 if temper_bank else n_train, len(held.u))
    if n_train < 20 or len(held_out) < 40:
        raise TowerError(
            f"{bank.path}: {n_train} bank points to train on and {len(held_out)} sequences "
            f"of {held.path} to temper on; at least 20 and 40 are needed"
        )  # fmt: skip
    clog = ClogClassifier.fit(bank.u, np.array([s == "clogged" for s in bank.status]))
    rng = np.random.default_rng(seed)
    out = []
    for k in tqdm(range(members), desc="surrogate members", disable=not progress):
        points = np.sort(rng.integers(0, n_train, n_train)) if members > 1 else range(n_train)
        u, X, y = bank_rows(bank, points, seed + k)
        n_same, n_other = _limits(X)
        z = np.concatenate([u, X], axis=1)
        same = CountModel.fit(z, y[:, 0], n_same, penalty)
        z2 = np.concatenate([z, y[:, :1] / SCALE], axis=1)
        other = CountModel.fit(z2, y[:, 1], n_other, penalty)
        out.append(Member(same, other))
    where = Path(held.path).name
    provenance = {
        "bank": bank.provenance(),
        "train_points": n_train,
        "members": members,
        "penalty": penalty,
        "seed": seed,
        "groups": list(TRAIN_GROUPS),
        "temper": f"d / tr(H^-1 J) on {where} points {held_out.start}-{held_out.stop - 1} "
        f"({max(len(a) for a in held.ages)} throws each; Pauli, Racugno & Ventura 2011)",
    }
    if temper_bank is not None:
        provenance["temper_bank"] = temper_bank.provenance()
    coef = None if clog.coef is None else tuple(float(c) for c in clog.coef)
    names = key_names(int(bank.settings["size"]))
    raw = Surrogate(tuple(p.name for p in bank.parameters), tuple(out), names, coef, provenance,
                    (1.0,) * members)  # fmt: skip
    temper = tuple(godambe_temper(raw, k, held, held_out, seed) for k in range(members))
    return dataclasses.replace(raw, temper=temper)
