"""The bank engine: a calibration in seconds, with no physics, from the learned likelihood.

Every training throw of the recording is scored by the surrogate
(:mod:`tower.calibration.surrogate`); the recording's log-likelihood at ``theta`` is the
sum. The posterior over the unit cube of the prior (uniform, cut where towers clog, as the
bank's clogged sequences tell) is sampled by population Monte Carlo once per ensemble
member, and the members' samples are pooled: where the members disagree, the pooled
posterior is wider. The key tower statistics at a posterior sample are those the same
member's likelihood gives when it is played forward from an empty tower by the recommended
protocol (:mod:`tower.calibration.forward`); under the prior, at prior draws that do not
clog. They are the tower's statistics at equilibrium, after the first throws from an
empty tower (:func:`tower.calibration.surrogate.equilibrium_keys`).

The engine needs what the bank can answer: sessions that start from an empty tower and
throw the bank's number of keshis at a time, and the bank's parameters fitted. Anything
else raises :class:`~tower.calibration.bank.BankError` (use ``--engine gp``).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tower.calibration.bank import BankError
from tower.calibration.behaviour import Predictive, quantiles
from tower.calibration.fit import (
    NON_IDENTIFIABLE_RATIO,
    ParameterFit,
    derive_seed,
    from_unit,
    parameter_fits,
    sample_posterior,
    to_unit_rows,
)
from tower.calibration.recording import Session, key_piece
from tower.calibration.simulators import Parameter
from tower.calibration.surrogate import Surrogate, transitions
from tower.pieces import Kind

#: Posterior draws kept per ensemble member.
DRAWS = 1200

#: Prior draws and posterior samples whose key statistics are played forward.
KEY_DRAWS = 1200

#: emcee's walkers, and its steps: burn-in, then kept (every ``THIN``-th).
WALKERS, BURN, KEEP, THIN = 48, 150, 250, 10


def sample_member(
    loglik: Any, d: int, rng: np.random.Generator, draws: int = DRAWS
) -> tuple[np.ndarray, float]:
    """Posterior draws ``(draws, d)`` on the unit cube under a uniform prior, and the
    effective sample size per parameter (smallest, from emcee's autocorrelation times).

    A posterior from 200 throws is narrow in several directions at once, so importance
    sampling from the prior finds it with few particles. Two rounds of population Monte
    Carlo (:func:`tower.calibration.fit.sample_posterior`) place the walkers of emcee's
    affine-invariant ensemble sampler (Foreman-Mackey et al. 2013), which then explores
    it.
    """
    import emcee

    start, _ = sample_posterior(loglik, d, rng, particles=2000, rounds=2, centres=200,
                                draws=WALKERS)  # fmt: skip
    start = np.clip(start + 1e-3 * rng.standard_normal(start.shape), 1e-6, 1 - 1e-6)

    def log_prob(u: np.ndarray) -> np.ndarray:
        inside = np.all((u >= 0) & (u <= 1), axis=1)
        out = np.full(len(u), -np.inf)
        if inside.any():
            out[inside] = loglik(u[inside])
        return out

    sampler = emcee.EnsembleSampler(WALKERS, d, log_prob, vectorize=True)
    sampler.random_state = np.random.RandomState(int(rng.integers(2**31))).get_state()
    sampler.run_mcmc(start, BURN + KEEP, progress=False)
    chain = sampler.get_chain(discard=BURN, thin=THIN, flat=True)
    # a chain under 50 autocorrelation times gets a warning from emcee's logger; the
    # estimate is still what the effective sample size reports
    logging.getLogger("emcee").setLevel(logging.ERROR)
    tau = sampler.get_autocorr_time(discard=BURN, quiet=True)
    ess = float(KEEP * WALKERS / np.max(tau))
    idx = rng.choice(len(chain), size=draws, replace=len(chain) < draws)
    return chain[idx], ess


def recording_rows(
    sessions: Sequence[Session], size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The surrogate's features and outcomes of every throw of ``sessions``."""
    Xs, ys = [], []
    for s in sessions:
        if s.start != "empty":
            raise BankError(
                f"session {s.name!r} did not start from an empty tower; the bank engine needs "
                "that (use --engine gp)"
            )
        for t in s.throws:
            n = sum(t.pieces_in.values())
            kinds = {key_piece(k).kind for k in t.pieces_in}
            if n != size or kinds - {Kind.KESHI}:
                raise BankError(
                    f"session {s.name!r}, throw {t.number}: the bank throws {size} keshis at "
                    f"a time, this throw {n} pieces ({sorted(k.value for k in kinds)}); use "
                    "--engine gp"
                )
        X, y = transitions([t.pieces_in for t in s.throws], [t.pieces_out for t in s.throws])
        Xs.append(X)
        ys.append(y)
    return np.concatenate(Xs), np.concatenate(ys)


@dataclass
class BankFit:
    """What the bank engine produced: the same questions answered as
    :class:`tower.calibration.fit.FitResult` answers them, for the report."""

    parameters: tuple[Parameter, ...]
    samples: np.ndarray  # (m, d) natural units
    member: np.ndarray  # (m,) the ensemble member each sample came from
    fits: tuple[ParameterFit, ...]
    ess: float
    surrogate: Surrogate
    prior_u: np.ndarray  # (n, d) prior draws that do not clog
    throws: int
    info: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    @property
    def key_names(self) -> tuple[str, ...]:
        return self.surrogate.key_names

    @property
    def samples_u(self) -> np.ndarray:
        return to_unit_rows(self.parameters, self.samples)

    def theta(self, row: np.ndarray) -> dict[str, float]:
        return {p.name: float(v) for p, v in zip(self.parameters, row, strict=True)}

    def medians(self) -> dict[str, float]:
        return {f.parameter.name: f.median for f in self.fits}

    def predictive(
        self, truth: Mapping[str, float] | None = None, *, replay: int | None = None
    ) -> list[Predictive]:
        """Each key statistic under the prior and the posterior (``truth``: its true value),
        played forward by the learned likelihood at prior draws and posterior samples
        (:func:`tower.calibration.forward.forward_keys`, :data:`KEY_DRAWS` of each).

        The intervals are of the tower's expected statistics over
        :data:`~tower.calibration.forward.THROWS` throws (each draw the mean of several
        chains). ``replay=T`` gives the intervals of the statistics of one replay of ``T``
        throws instead (one chain per draw): what a truth measured on one replay is
        checked against.
        """
        from tower.calibration.forward import CHAINS, THROWS, forward_keys
        from tower.calibration.surrogate import key_names

        names = key_names(int(self.surrogate.provenance.get("bank", {}).get("size", 12)))
        if names != self.key_names:
            raise BankError(f"the learned likelihood's key statistics {list(self.key_names)} "
                            f"are not the ones played forward, {list(names)}")  # fmt: skip
        chains, throws = (CHAINS, THROWS) if replay is None else (1, replay)
        rng = np.random.default_rng(derive_seed(self.seed, 23))
        k = len(self.surrogate.members)
        prior_u = self.prior_u[:KEY_DRAWS]
        prior = forward_keys(self.surrogate, prior_u, np.arange(len(prior_u)) % k, rng,
                             chains=chains, throws=throws)  # fmt: skip
        pick = rng.choice(len(self.samples), min(KEY_DRAWS, len(self.samples)), replace=False)
        post = forward_keys(self.surrogate, self.samples_u[pick], self.member[pick], rng,
                            chains=chains, throws=throws)  # fmt: skip
        return [
            Predictive(n, quantiles(prior[:, j]), quantiles(post[:, j]),
                       None if truth is None or n not in truth else float(truth[n]))
            for j, n in enumerate(self.key_names)
        ]  # fmt: skip

    def directions(self, truth: Mapping[str, float] | None = None) -> list[Any]:
        """The posterior's principal directions, best-constrained first."""
        from tower.calibration.directions import principal_directions, truth_unit

        t = None if truth is None else truth_unit(self.parameters, truth)
        return principal_directions(self.parameters, self.samples_u, t)

    @property
    def key_scope(self) -> str:
        """What the key statistics are taken over, in words."""
        from tower.calibration.surrogate import FILL_THROWS

        return f"at equilibrium (after the first {FILL_THROWS} throws from an empty tower)"

    def method_lines(self) -> list[str]:
        """The report's lines on how the fit was made."""
        bank = self.surrogate.provenance.get("bank", {})
        return [
            f"- engine: bank (no physics): {self.throws} training throws scored by the learned "
            f"likelihood of `{bank.get('path', '?')}` ({bank.get('points', '?')} parameter "
            f"points, {bank.get('physics_throws', '?')} physics throws, numerics "
            f"v{bank.get('numerics', '?')}), {len(self.surrogate.members)} ensemble members; "
            f"posterior effective sample size {self.ess:.0f} (emcee, smallest member)",
            "",
            "Method: every recorded throw is scored by a classifier of its outcome (pieces "
            "out of the thrown colours, and of the others) given the tower's visible history "
            "and the parameters, learned once from the committed physics bank; the posterior "
            "is sampled by population Monte Carlo per ensemble member and pooled; the key "
            "statistics are those the same likelihood gives when played forward (see "
            "`tower/calibration/surrogate.py`, `forward.py` and `bankfit.py`). The likelihood "
            f"is tempered by {_temper_words(self.surrogate)}.",
        ]

    def diagnostic_lines(self) -> list[str]:
        """The report's section on the likelihood's own checks."""
        lines = [
            "## The learned likelihood",
            "",
            "Log-likelihood of the training throws at the posterior median, per ensemble "
            "member (members that disagree widen the pooled posterior):",
            "",
            "| member | log-likelihood | share of the pooled samples |",
            "|---|---|---|",
        ]
        for k, ll in enumerate(self.info.get("loglik_at_median", [])):
            share = float(np.mean(self.member == k))
            lines.append(f"| {k + 1} | {ll:.1f} | {share:.2f} |")
        return [*lines, ""]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "bank engine: learned per-throw likelihood (ensemble of MLP classifiers "
            "trained on the physics bank) + PMC per member, pooled",
            "engine": "bank",
            "surrogate": self.surrogate.provenance,
            "key_statistics": list(self.key_names),
            "training_throws": self.throws,
            "effective_sample_size": round(self.ess, 1),
            "parameters": {f.parameter.name: f.to_json() for f in self.fits},
            **self.info,
        }


def _temper_words(surrogate: Surrogate) -> str:
    """How the likelihood is tempered, in words, for the report."""
    k = ", ".join(f"{t:.2f}" for t in surrogate.temper)
    factor = surrogate.provenance.get("temper_factor")
    if factor is None:
        return f"k = {k} (Godambe, measured on bank sequences)"
    return (f"k = {k}: the Godambe values measured on bank sequences times {factor:g}, "
            "calibrated on physics recordings as long as real ones (`tempering.py`)")  # fmt: skip


def fit_bank(
    sessions: Sequence[Session],
    surrogate: Surrogate,
    parameters: Sequence[Parameter],
    *,
    seed: int = 0,
    draws: int = DRAWS,
) -> BankFit:
    """Fit ``parameters`` (those of the surrogate, in its order) to ``sessions``."""
    names = tuple(p.name for p in parameters)
    if names != surrogate.parameters:
        raise BankError(
            f"the bank fits {list(surrogate.parameters)}, this calibration {list(names)}; use "
            "--engine gp for other parameters"
        )
    start = time.perf_counter()
    size = int(surrogate.provenance.get("bank", {}).get("size", 12))
    X, y = recording_rows(sessions, size)
    clog = surrogate.clog
    d = len(parameters)
    rng = np.random.default_rng(derive_seed(seed, 21))
    samples, members, ess, at_median = [], [], [], []

    def cut(u: np.ndarray) -> np.ndarray:
        return np.where(clog.ok(u), 0.0, -np.inf)

    for k in range(len(surrogate.members)):
        def loglik(u: np.ndarray, k: int = k) -> np.ndarray:
            return surrogate.loglik(u, X, y, k) + cut(u)

        s, e = sample_member(loglik, d, rng, draws)
        samples.append(s)
        members.append(np.full(len(s), k))
        ess.append(e)
    u = np.concatenate(samples)
    member = np.concatenate(members)
    med = np.median(u, axis=0)[None]
    at_median = [float(surrogate.loglik(med, X, y, k)[0]) for k in range(len(members))]
    prior = rng.random((20000, d))
    prior = prior[clog.ok(prior)][:8000]
    def loglik_change(ends: np.ndarray) -> np.ndarray:
        ll = surrogate.loglik(ends, X, y, 0)
        return np.abs(ll[1::2] - ll[0::2])

    fits = parameter_fits(parameters, u, loglik_change,
                          "nats of the recording's log-likelihood (at the posterior median)")
    info = {
        "loglik_at_median": at_median,
        "seconds_by_stage": {"posterior sampling": round(time.perf_counter() - start, 1)},
        "non_identifiable_ratio": NON_IDENTIFIABLE_RATIO,
    }
    return BankFit(
        tuple(parameters), from_unit(parameters, u), member, fits,
        float(min(ess)) if ess else math.nan, surrogate, prior, len(X), info, seed,
    )  # fmt: skip
