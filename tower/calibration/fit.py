"""The likelihood-free fit: simulation design, emulator, synthetic likelihood, posterior.

Why this method
---------------
A physics throw costs about 0.1 s of a core, and a full calibration must finish within an
hour on two cores: a few tens of thousands of simulated throws, that is a few hundred
replays of a recording. ABC rejection or ABC-SMC would need many thousands of replays to
accept enough of them; neural posterior estimation needs thousands of training
simulations and a deep-learning stack. An *emulator with a synthetic likelihood* makes
every replay count:

1. **Design.** A Latin hypercube design over the prior box (uniform on the plausible
   ranges); each point replays the recording's training throws once, with its own seed.
   Replays are cached on disk by (simulator, theta, seed, plan), so an interrupted fit
   resumes where it stopped, and run on the local pool or on a Dask cluster. Short
   screening replays first (:mod:`tower.calibration.screen`) keep design points away from
   towers that clog or fill up.
2. **Emulator.** Per summary statistic (:data:`tower.calibration.summaries.STAT_NAMES`), a
   Gaussian process in theta. The replay noise is measured, not fitted: every replay's
   statistics are also taken on the first and the second half of its throws
   (:func:`tower.calibration.summaries.summary_split`), and over the last wave's replays
   the covariance of their differences, over 4, is the noise covariance of one
   recording-sized replay (:func:`split_noise`). Each GP's white noise is fixed at it, so
   the GP neither chases the noise nor passes its own error off as noise.
3. **Synthetic likelihood.** ``s_obs ~ Normal(mu(theta), Sigma + V(theta))`` (Wood 2010):
   ``Sigma`` the measured noise, ``V`` the GP's own variance at theta, which grows away
   from the design points, so a sparse design cannot make the fit over-confident. (The
   covariance of the leave-one-out residuals would not do for ``Sigma``: far from the
   posterior these are many times the noise, and make every interval wide.) It costs
   microseconds, so the posterior can be sampled thoroughly.
4. **Posterior.** Population Monte Carlo: importance sampling from the prior, then three
   rounds with a kernel-mixture proposal around the weighted particles (plus a defensive
   prior component). The effective sample size is reported.
5. **Failures.** Replays that fail (a piece escapes the simulation, the tower clogs) are
   cached as failures; the posterior excludes the region where the nearest design point
   failed, instead of trusting the emulator's extrapolation there.
6. **Second wave.** Half the budget goes to a first design over the whole prior; the other
   half is drawn around the first posterior (history matching), where the emulator then
   is accurate. The final emulator is fitted on the second wave and on the first wave's
   points inside the second wave's 99% ellipsoid (:func:`_near_wave`, history matching's
   refocusing): the statistics change fastest far from the posterior, towards a clogging
   tower, and one stationary kernel fitted to both regions is too rough near the
   posterior. Its noise is measured on the second wave. (On the replays of two physics
   fits, seeds 1201 and 1202, this refocusing and the two split statistics took the best
   three directions from 0.14, 0.36, 0.54 to 0.13, 0.32, 0.48 of the prior's width, and
   from 0.26, 0.55, 0.68 to 0.22, 0.46, 0.67.)

The result is posterior samples and 90% credible intervals. A parameter whose 90%
interval is wider than 0.8 of its prior's 90% interval is flagged non-identifiable, with
the reason: either another parameter can compensate for it (posterior correlation of at
least 0.5), or the statistics barely move across its range (measured in noise standard
deviations at the posterior median).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import qmc

from tower.calibration.recording import Session
from tower.calibration.screen import CLOG_THRESHOLD, ClogClassifier
from tower.calibration.simulators import Parameter, Plan, Simulator
from tower.calibration.summaries import STAT_NAMES, summary_split, summary_vector
from tower.errors import FitError

if TYPE_CHECKING:
    from tower.calibration.behaviour import Predictive
    from tower.calibration.directions import Direction

#: Ratio of posterior to prior 90%-interval width above which a parameter is flagged.
NON_IDENTIFIABLE_RATIO = 0.8

#: Chi-square level of the ellipsoid around a later wave's design inside which earlier
#: design points still train the emulator (:func:`_near_wave`).
NEAR_LEVEL = 0.99

#: ``execute(tasks, label) -> results``: runs ``simulate_task`` on each task dict (cached,
#: possibly in parallel) and returns the result dicts in task order; ``None`` for a failure.
Executor = Callable[[list[dict[str, Any]], str], list[dict[str, Any] | None]]


# ---------------------------------------------------------------- simulation tasks


def plan_hash(plan: Plan) -> str:
    """Short stable hash of a plan (part of every cache key)."""
    text = json.dumps([p.to_json() for p in plan], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_key(simulator: Simulator, theta: Mapping[str, float], seed: int, plan: Plan) -> str:
    """Cache key of one replay: simulator (its settings and its versioned source), theta
    (exact floats), seed and plan."""
    text = json.dumps(
        {
            "simulator": repr(simulator),
            "source": simulator.source,
            "theta": {k: float(v).hex() for k, v in sorted(theta.items())},
            "seed": int(seed),
            "plan": plan_hash(plan),
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def make_task(simulator: Simulator, theta: Mapping[str, float], seed: int, plan: Plan) -> dict:
    """A self-contained, JSON-ready replay task."""
    return {
        "key": task_key(simulator, theta, seed, plan),
        "theta": {k: float(v) for k, v in theta.items()},
        "seed": int(seed),
        "plan": [p.to_json() for p in plan],
    }


def simulate_task(simulator: Simulator, task: Mapping[str, Any]) -> dict[str, Any]:
    """Run one replay task; the result holds the out counts per throw per session."""
    from tower.calibration.simulators import PlanSession

    plan = tuple(PlanSession.from_json(p) for p in task["plan"])
    replay = getattr(simulator, "replay", None)
    if replay is None:
        sessions, fresh = simulator.simulate(task["theta"], plan, task["seed"]), None
    else:
        done = replay(task["theta"], plan, task["seed"])
        sessions, fresh = done.sessions, done.fresh
    result: dict[str, Any] = {
        "key": task["key"],
        "outs": [[t.pieces_out for t in s.throws] for s in sessions],
    }
    if fresh is not None:
        result["fresh"] = fresh
    return result


def derive_seed(*parts: int) -> int:
    """A 31-bit seed derived from integers (stable across runs and machines)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] >> 1)


# ---------------------------------------------------------------- emulator


@dataclass
class Emulator:
    """Gaussian-process emulator of statistics' means, with their noise covariance.

    One GP per statistic (scikit-learn; constant x anisotropic RBF kernel plus white noise,
    hyperparameters by maximum marginal likelihood) on unit-cube coordinates. The white
    noise is the simulation noise of one replay: measured (``noise`` in :meth:`fit`) or
    else learned. The GP's own posterior variance is the emulator's uncertainty, which
    grows away from the design points and is added to the synthetic likelihood's
    covariance, so a sparse design cannot make the fit over-confident. (A ridge-quadratic
    emulator, used before, could not follow the statistics towards a clogging tower, where
    they change fastest.)

    ``predict(u)`` takes ``u : (m, d)`` and returns ``(m, k)`` means;
    ``predict_with_var(u)`` also their ``(m, k)`` emulator variances; ``cov`` is the
    ``(k, k)`` noise covariance (see :meth:`fit`); ``loo_r2`` the exact leave-one-out R² per
    statistic, ``noise_r2`` its ceiling.
    """

    models: list[Any]
    cov: np.ndarray  # (k, k) noise covariance of one replay's statistics
    loo_r2: np.ndarray  # (k,)
    noise_r2: np.ndarray  # (k,) share of variance that is not simulation noise (R² ceiling)
    spread: np.ndarray  # (k,) factor (>= 1) on the GP's own variance, from its LOO check

    @classmethod
    def fit(
        cls,
        u: np.ndarray,
        stats: np.ndarray,
        seed: int = 0,
        noise: np.ndarray | None = None,
    ) -> Emulator:
        """Fit one GP per column of ``stats : (n, k)`` on ``u : (n, d)``.

        ``noise : (k, k)``, if given, is the measured noise covariance of one replay's
        statistics: each GP's white noise is fixed at its diagonal, and ``cov`` is it. The
        GP's own variance is then checked against its exact leave-one-out residuals: where
        they are larger than the GP expects (noise plus its variance at each left-out
        point), its variance is scaled up by their ratio (``spread``), so the likelihood
        trusts the emulator no more than its errors allow. Otherwise the white noise is
        learned, and ``cov`` is the covariance of the exact leave-one-out residuals: noise
        plus the emulator's typical error.
        """
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

        n, k = stats.shape
        d = u.shape[1]
        models, loo, learned = [], np.zeros((n, k)), np.zeros(k)
        spread = np.ones(k)
        for j in range(k):
            y = stats[:, j]
            if noise is None:
                white = WhiteKernel(0.05, (1e-6, 2.0))
            else:  # in the GP's normalised units, floored so its matrix stays invertible
                white = WhiteKernel(max(noise[j, j] / max(y.var(), 1e-300), 1e-6), "fixed")
            kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.full(d, 0.5), (1e-2, 1e2)) + white
            gp = GaussianProcessRegressor(kernel, normalize_y=True, random_state=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # hyperparameters at their bounds
                gp.fit(u, y)
            scale = float(gp._y_train_std)
            kmat = gp.kernel_(u)
            inv = np.linalg.inv(kmat)
            yn = (y - gp._y_train_mean) / scale
            loo[:, j] = (inv @ yn) / np.diag(inv) * scale
            learned[j] = float(gp.kernel_.k2.noise_level) * scale**2
            if noise is not None:  # the left-out points' own GP variance, noise-free
                own = np.maximum(scale**2 / np.diag(inv) - learned[j], 1e-300)
                excess = float(np.mean(loo[:, j] ** 2)) - learned[j]
                spread[j] = max(1.0, excess / float(np.mean(own)))
            models.append(gp)
        centred = stats - stats.mean(axis=0)
        ss_tot = np.maximum(np.sum(centred**2, axis=0), 1e-300)
        loo_r2 = 1 - np.sum(loo**2, axis=0) / ss_tot
        noise_r2 = 1 - learned * n / ss_tot
        if noise is None:
            # the inverse of a sample covariance of n residuals overstates the precision by
            # (n - 1) / (n - k - 2) (inverse Wishart mean): scaled so it is unbiased
            cov = np.atleast_2d(np.cov(loo, rowvar=False)) * (n - 1) / max(n - k - 2, 1)
        else:
            cov = np.array(noise, dtype=float)
        cov = cov + np.diag(np.maximum(1e-6 * ss_tot / n, 1e-300))
        return cls(models, cov, loo_r2, noise_r2, spread)

    def predict(self, u: np.ndarray) -> np.ndarray:
        u = np.atleast_2d(u)
        return np.stack([m.predict(u) for m in self.models], axis=1)

    def predict_with_var(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means ``(m, k)`` and emulator (latent, noise-free) variances ``(m, k)``, the
        latter scaled by ``spread``."""
        u = np.atleast_2d(u)
        means, var = [], []
        for m, factor in zip(self.models, self.spread, strict=True):
            mu, sd = m.predict(u, return_std=True)
            noise = float(m.kernel_.k2.noise_level) * float(m._y_train_std) ** 2
            means.append(mu)
            var.append(np.maximum(sd**2 - noise, 0.0) * factor)
        return np.stack(means, axis=1), np.stack(var, axis=1)

    def loglik(self, u: np.ndarray, observed: np.ndarray) -> np.ndarray:
        """Gaussian synthetic log-likelihood of ``observed`` at each row of ``u``, ``(m,)``.

        Covariance: ``cov`` plus the emulator's own variance at ``u``.
        """
        out = np.empty(len(np.atleast_2d(u)))
        for start in range(0, len(out), 4096):
            mu, var = self.predict_with_var(np.atleast_2d(u)[start : start + 4096])
            cov = self.cov[None, :, :] + var[:, :, None] * np.eye(len(self.cov))[None]
            chol = np.linalg.cholesky(cov)
            r = np.linalg.solve(chol, (observed - mu)[:, :, None])[:, :, 0]
            logdet = 2 * np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1)
            out[start : start + 4096] = -0.5 * (np.sum(r**2, axis=1) + logdet)
        return out


# ---------------------------------------------------------------- posterior sampling


def _log_kernel_mixture(points: np.ndarray, centres: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """log of the mean over ``centres`` of Normal(points; centre, L L^T), shape ``(m,)``."""
    d = points.shape[1]
    a = np.linalg.solve(chol, points.T).T
    b = np.linalg.solve(chol, centres.T).T
    out = np.empty(len(points))
    log_norm = -0.5 * d * math.log(2 * math.pi) - float(np.sum(np.log(np.diag(chol))))
    for start in range(0, len(points), 2048):
        chunk = a[start : start + 2048]
        d2 = (chunk**2).sum(1)[:, None] + (b**2).sum(1)[None, :] - 2 * chunk @ b.T
        m = -0.5 * d2
        top = m.max(axis=1)
        out[start : start + 2048] = top + np.log(np.exp(m - top[:, None]).mean(axis=1))
    return out + log_norm


def _weighted(u: np.ndarray, logw: np.ndarray) -> tuple[np.ndarray, float]:
    w = np.exp(logw - logw.max())
    w /= w.sum()
    return w, float(1.0 / np.sum(w**2))


def sample_posterior(
    loglik: Callable[[np.ndarray], np.ndarray],
    d: int,
    rng: np.random.Generator,
    *,
    particles: int = 20000,
    rounds: int = 3,
    centres: int = 400,
    draws: int = 4000,
) -> tuple[np.ndarray, float]:
    """Posterior samples on the unit cube under a uniform prior, by population Monte Carlo.

    Returns ``(samples : (draws, d), effective sample size of the last round)``.
    """
    u = rng.random((particles, d))
    logw = loglik(u)
    w, ess = _weighted(u, logw)
    for _ in range(rounds):
        idx = rng.choice(len(u), size=min(centres, len(u)), p=w)
        c = u[idx]
        mean = w @ u
        cov = ((u - mean) * w[:, None]).T @ (u - mean) + 1e-8 * np.eye(d)
        bw = (4 / (d + 2)) ** (2 / (d + 4)) * len(c) ** (-2 / (d + 4))
        chol = np.linalg.cholesky(cov * bw + 1e-10 * np.eye(d))
        n_prior = particles // 10
        pick = rng.integers(0, len(c), particles - n_prior)
        fresh = c[pick] + rng.standard_normal((len(pick), d)) @ chol.T
        u = np.vstack([rng.random((n_prior, d)), fresh])
        inside = np.all((u >= 0) & (u <= 1), axis=1)
        log_q = np.logaddexp(math.log(0.1), math.log(0.9) + _log_kernel_mixture(u, c, chol))
        logw = np.full(len(u), -np.inf)
        logw[inside] = loglik(u[inside]) - log_q[inside]
        w, ess = _weighted(u, logw)
    # systematic resampling: low variance, deterministic given rng
    positions = (rng.random() + np.arange(draws)) / draws
    idx = np.minimum(np.searchsorted(np.cumsum(w), positions), len(u) - 1)
    return u[idx], ess


# ---------------------------------------------------------------- the fit


@dataclass(frozen=True)
class ParameterFit:
    """The posterior of one parameter."""

    parameter: Parameter
    median: float
    low: float  # 5% quantile
    high: float  # 95% quantile
    width_ratio: float  # posterior / prior 90%-interval width
    sensitivity: float  # max effect on a statistic across the range, in noise SDs
    partner: str  # most correlated other parameter
    partner_corr: float
    sensitivity_unit: str = "noise standard deviations (emulated at the posterior median)"

    @property
    def identifiable(self) -> bool:
        return self.width_ratio <= NON_IDENTIFIABLE_RATIO

    def reason(self) -> str:
        """Why the recording cannot pin the parameter down ('' when it can)."""
        if self.identifiable:
            return ""
        if abs(self.partner_corr) >= 0.5:
            return (
                f"its effect on the statistics can be compensated by `{self.partner}` "
                f"(posterior correlation r = {self.partner_corr:+.2f})"
            )
        return (
            f"the recording barely depends on it: across its whole range it moves by at most "
            f"{self.sensitivity:.1f} {self.sensitivity_unit}, too little for this recording "
            "to pin it down"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "q05": self.low,
            "q95": self.high,
            "prior": [self.parameter.low, self.parameter.high],
            "unit": self.parameter.unit,
            "width_ratio": round(self.width_ratio, 4),
            "identifiable": self.identifiable,
            "reason": self.reason(),
        }


@dataclass
class FitResult:
    """Everything the fit produced: posterior samples, intervals and diagnostics."""

    parameters: tuple[Parameter, ...]
    samples: np.ndarray  # (m, d) natural units
    fits: tuple[ParameterFit, ...]
    observed: np.ndarray  # (k,)
    emulator: Emulator
    design_u: np.ndarray  # (n, d) unit coordinates
    design_stats: np.ndarray  # (n, k)
    ess: float
    failures: int
    key_names: tuple[str, ...] = ()
    key_emulator: Emulator | None = None
    design_keys: np.ndarray | None = None  # (n, q) key statistics of each design replay
    prior_u: np.ndarray | None = None  # (m, d) prior draws, clogging towers excluded
    screening: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def theta(self, row: np.ndarray) -> dict[str, float]:
        return {p.name: float(v) for p, v in zip(self.parameters, row, strict=True)}

    def medians(self) -> dict[str, float]:
        return {f.parameter.name: f.median for f in self.fits}

    @property
    def samples_u(self) -> np.ndarray:
        return to_unit_rows(self.parameters, self.samples)

    @property
    def replays(self) -> int:
        """Full design replays run (succeeded and failed)."""
        return len(self.design_u) + self.failures

    def key_values(self, u: np.ndarray, seed: int = 0) -> np.ndarray:
        """Expected key statistics at unit-cube points ``u : (m, d)``, ``(m, q)``.

        Each row is a draw from the emulator: its mean plus its own uncertainty there, so
        an interval over many points carries the emulator's error too.
        """
        from tower.calibration.behaviour import from_emulated

        assert self.key_emulator is not None
        mu, var = self.key_emulator.predict_with_var(u)
        noise = np.random.default_rng(seed).standard_normal(mu.shape)
        return from_emulated(self.key_names, mu + np.sqrt(var) * noise)

    def predictive(self, truth: Mapping[str, float] | None = None) -> list[Predictive]:
        """Each key statistic under the prior and the posterior (``truth``: its true value)."""
        from tower.calibration.behaviour import Predictive, quantiles

        if self.key_emulator is None or self.prior_u is None:
            return []
        prior = self.key_values(self.prior_u, seed=1)
        post = self.key_values(self.samples_u, seed=2)
        return [
            Predictive(n, quantiles(prior[:, j]), quantiles(post[:, j]),
                       None if truth is None or n not in truth else float(truth[n]))
            for j, n in enumerate(self.key_names)
        ]  # fmt: skip

    def directions(self, truth: Mapping[str, float] | None = None) -> list[Direction]:
        """The posterior's principal directions, best-constrained first."""
        from tower.calibration.directions import principal_directions, truth_unit

        t = None if truth is None else truth_unit(self.parameters, truth)
        return principal_directions(self.parameters, self.samples_u, t)

    @property
    def key_scope(self) -> str:
        """What the key statistics are taken over, in words."""
        return "on this recording's throws"

    def method_lines(self) -> list[str]:
        """The report's lines on how the fit was made."""
        return [
            f"- clog screening: {self.screening.get('replays', 0)} short replays of "
            f"{self.screening.get('throws', 0)} throws, {self.screening.get('clogged', 0)} "
            f"clogged and {self.screening.get('filling', 0)} more filling up (a clogging "
            "tower is ruled out before the full replays; no design replay is spent where "
            "towers fill up)",
            f"- design replays: {len(self.design_u)} succeeded, {self.failures} failed "
            f"({self.failures / max(self.replays, 1):.0%}; failed replays are left out); "
            f"posterior effective sample size {self.ess:.0f}",
            "",
            "Method: clog screening, then a Gaussian-process emulator of the summary "
            "statistics (replay noise measured from each replay's two halves; sequential "
            "design waves), Gaussian synthetic likelihood, population Monte Carlo (see "
            "`tower/calibration/fit.py` for why).",
        ]

    def diagnostic_lines(self) -> list[str]:
        """The report's section on the emulator's own checks."""
        lines = [
            "## Summary statistics (training throws)",
            "",
            "Leave-one-out R²: the share of a statistic's variance over the design that the "
            "emulator predicts for a replay it did not see. It cannot exceed the *ceiling*, "
            "the share that is not simulation noise of one replay (a statistic that one "
            "recording measures noisily has a low ceiling, however good the emulator).",
            "",
            "| statistic | observed | emulator at posterior median | leave-one-out R² | "
            "ceiling |",
            "|---|---|---|---|---|",
        ]
        pred = self.emulator.predict(np.median(self.samples_u, axis=0))[0]
        for name, o, m, r2, top in zip(
            STAT_NAMES, self.observed, pred, self.emulator.loo_r2, self.emulator.noise_r2,
            strict=True,
        ):
            lines.append(f"| {name} | {o:.3f} | {m:.3f} | {r2:.2f} | {top:.2f} |")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "clog screening + GP emulator with split-half measured noise + "
            "Gaussian synthetic likelihood + PMC, in sequential waves",
            "statistics": list(STAT_NAMES),
            "observed": [float(x) for x in self.observed],
            "emulator_loo_r2": [round(float(x), 4) for x in self.emulator.loo_r2],
            "emulator_noise_ceiling_r2": [round(float(x), 4) for x in self.emulator.noise_r2],
            "emulator_spread": [round(float(x), 4) for x in self.emulator.spread],
            "key_statistics": list(self.key_names),
            "key_emulator_loo_r2": []
            if self.key_emulator is None
            else [round(float(x), 4) for x in self.key_emulator.loo_r2],
            "design_points": len(self.design_u),
            "failed_simulations": self.failures,
            "failed_share": round(self.failures / max(self.replays, 1), 4),
            "screening": self.screening,
            "effective_sample_size": round(self.ess, 1),
            "parameters": {f.parameter.name: f.to_json() for f in self.fits},
            **self.info,
        }


def to_unit(params: Sequence[Parameter], theta: Mapping[str, float]) -> np.ndarray:
    """Natural values to unit-cube coordinates, shape ``(d,)``."""
    return np.array([(theta[p.name] - p.low) / (p.high - p.low) for p in params])


def to_unit_rows(params: Sequence[Parameter], natural: np.ndarray) -> np.ndarray:
    """Natural values ``(m, d)`` to unit-cube coordinates ``(m, d)``."""
    lo = np.array([p.low for p in params])
    hi = np.array([p.high for p in params])
    return (np.atleast_2d(natural) - lo) / (hi - lo)


def from_unit(params: Sequence[Parameter], u: np.ndarray) -> np.ndarray:
    """Unit-cube coordinates ``(m, d)`` to natural values ``(m, d)``."""
    lo = np.array([p.low for p in params])
    hi = np.array([p.high for p in params])
    return lo + np.atleast_2d(u) * (hi - lo)


def parameter_fits(
    params: Sequence[Parameter],
    u_samples: np.ndarray,
    sensitivity: Callable[[np.ndarray], np.ndarray],
    unit: str = ParameterFit.sensitivity_unit,
) -> tuple[ParameterFit, ...]:
    """Each parameter's posterior: quantiles, width over the prior's, its most correlated
    partner, and how much the fit's target moves across its range at the posterior median.

    ``sensitivity(ends)`` takes ``(2d, d)`` unit-cube points, pairs that move parameter
    ``j`` from 0 to 1 at the posterior median, and returns the ``(d,)`` effect of each, in
    ``unit``.
    """
    natural = from_unit(params, u_samples)
    med_u = np.median(u_samples, axis=0)
    d = len(params)
    corr = np.corrcoef(u_samples, rowvar=False) if d > 1 else np.ones((1, 1))
    corr = np.nan_to_num(np.atleast_2d(corr))
    ends = np.repeat(med_u[None], 2 * d, axis=0)
    for j in range(d):
        ends[2 * j, j], ends[2 * j + 1, j] = 0.0, 1.0
    effects = sensitivity(ends)
    fits = []
    for j, p in enumerate(params):
        q05, q50, q95 = np.quantile(natural[:, j], [0.05, 0.5, 0.95])
        others = [(abs(corr[j, i]), i) for i in range(d) if i != j]
        partner_i = max(others)[1] if others else j
        fits.append(
            ParameterFit(
                p, float(q50), float(q05), float(q95),
                float((q95 - q05) / (0.9 * (p.high - p.low))), float(effects[j]),
                params[partner_i].name if others else "",
                float(corr[j, partner_i]) if others else 0.0, unit,
            )
        )  # fmt: skip
    return tuple(fits)


def _emulated_effects(emulator: Emulator) -> Callable[[np.ndarray], np.ndarray]:
    """The largest change of an emulated statistic in noise standard deviations."""
    sd = np.sqrt(np.diag(emulator.cov))

    def effects(ends: np.ndarray) -> np.ndarray:
        pred = emulator.predict(ends)
        return (np.abs(pred[1::2] - pred[0::2]) / sd).max(axis=1)

    return effects


def _design_stats(
    simulator: Simulator,
    plan: Plan,
    params: Sequence[Parameter],
    u: np.ndarray,
    seeds: Sequence[int],
    execute: Executor,
    label: str,
    reference: Plan | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replay the plan at each design point (and ``reference``, for the key statistics).

    Returns ``(ok : (n,) bool, summaries : (n_ok, k), their half differences : (n_ok, k)
    (:func:`~tower.calibration.summaries.summary_split`), key statistics : (n_ok, q),
    u of the failed points)``.
    """
    from tower.calibration.behaviour import key_names, key_statistics
    from tower.calibration.simulators import sessions_from_outs

    natural = from_unit(params, u)
    thetas = [{p.name: float(v) for p, v in zip(params, row, strict=True)} for row in natural]
    tasks = [make_task(simulator, t, s, plan) for t, s in zip(thetas, seeds, strict=True)]
    key_plan = plan if reference is None else reference
    if reference is not None:
        tasks += [make_task(simulator, t, s, reference) for t, s in zip(thetas, seeds, strict=True)]
    results = execute(tasks, label)
    fitted, for_keys = results[: len(u)], results[len(u) :] if reference is not None else results
    names = key_names(key_plan)
    ok = np.array([a is not None and b is not None for a, b in zip(fitted, for_keys, strict=True)])
    stats, diffs, keys = [], [], []
    for res, res_k in zip(fitted, for_keys, strict=True):
        if res is None or res_k is None:
            continue
        full, diff = summary_split(sessions_from_outs(plan, res["outs"]))
        stats.append(full)
        diffs.append(diff)
        sessions = sessions_from_outs(key_plan, res_k["outs"])
        found = key_statistics(key_plan, sessions, res_k.get("fresh"))
        keys.append([found[n] for n in names])
    k = len(STAT_NAMES)
    return (
        ok,
        np.array(stats).reshape(len(stats), k),
        np.array(diffs).reshape(len(diffs), k),
        np.array(keys).reshape(len(keys), len(names)),
        u[~ok],
    )


def screen_clogs(
    simulator: Simulator,
    plan: Plan,
    params: Sequence[Parameter],
    execute: Executor,
    *,
    n: int,
    throws: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Short replays (the first ``throws`` throws) at ``n`` points over the prior.

    Returns ``(u : (n, d), clogged : (n,) bool, filling : (n,) bool)``: which towers failed
    within those throws, and which failed or filled up
    (:func:`~tower.calibration.screen.filling_up`).
    """
    from tower.calibration.screen import filling_up, short_plan

    u = qmc.LatinHypercube(len(params), seed=derive_seed(seed, 9)).random(n)
    natural = from_unit(params, u)
    short = short_plan(plan, throws)
    tasks = [
        make_task(simulator, {p.name: float(v) for p, v in zip(params, row, strict=True)},
                  derive_seed(seed, 10, i), short)
        for i, row in enumerate(natural)
    ]  # fmt: skip
    results = execute(tasks, f"clog screening ({throws} throws)")
    limit = getattr(simulator, "max_inside", None)
    return u, np.array([r is None for r in results], bool), filling_up(results, short, limit)


def fit(
    simulator: Simulator,
    training: Sequence[Session],
    plan: Plan,
    execute: Executor,
    *,
    budget: int,
    seed: int = 0,
    waves: int = 2,
    draws: int = 4000,
    screen: int | None = None,
    screen_throws: int = 25,
    particles: int = 20000,
    reference: Plan | None = None,
) -> FitResult:
    """Fit ``simulator``'s parameters to the training sessions.

    Parameters
    ----------
    simulator : Simulator
        Its ``parameters`` define the prior box.
    training : sequence of Session
        The recorded sessions the fit sees.
    plan : Plan
        Their replay plan (:func:`tower.calibration.simulators.plan_of`).
    execute : Executor
        Runs replay tasks (cached; local pool or Dask).
    budget : int
        Number of full replays in the design, over all waves (at least ``4 * waves``).
    seed : int
        Seeds the design, the replays and the sampler.
    waves : int
        Design waves: the first over the (non-clogging) prior, the others around the
        posterior so far.
    screen : int, optional
        Short screening replays before the first wave (default ``budget // 2``, at least
        ``8 d`` so the clog classifier has enough points in ``d`` dimensions; 0: none).
    screen_throws : int
        Throws in a screening replay (the first ones of the plan).
    particles : int
        Population size of the posterior sampler.
    reference : Plan, optional
        Replayed too at every design point, for the key tower statistics
        (:mod:`tower.calibration.behaviour`); default: the key statistics of ``plan``.
    """
    from threadpoolctl import threadpool_limits

    # the emulator's matrices are small: one BLAS thread is faster, and does not fight
    # the replay workers for the cores
    with threadpool_limits(limits=1):
        return _fit(simulator, training, plan, execute, budget=budget, seed=seed, waves=waves,
                    draws=draws, screen=screen, screen_throws=screen_throws,
                    particles=particles, reference=reference)  # fmt: skip


def _fit(
    simulator: Simulator,
    training: Sequence[Session],
    plan: Plan,
    execute: Executor,
    *,
    budget: int,
    seed: int,
    waves: int,
    draws: int,
    screen: int | None,
    screen_throws: int,
    particles: int,
    reference: Plan | None,
) -> FitResult:
    from tower.calibration.behaviour import key_names, to_emulated

    params = simulator.parameters
    d = len(params)
    observed = summary_vector(training)
    per_wave = [budget // waves + (1 if w < budget % waves else 0) for w in range(waves)]
    if min(per_wave) < 4:
        raise FitError(f"budget {budget} too small for {waves} waves (need >= {4 * waves})")
    n_screen = max(budget // 2, 8 * d) if screen is None else screen
    # wall-clock seconds by stage, for the report: where a fit's time goes
    stages = {"screening": 0.0, **{f"wave {w + 1}": 0.0 for w in range(waves)},
              "emulators and sampling": 0.0}  # fmt: skip
    if n_screen > 0:
        with _stopwatch(stages, "screening"):
            seen_u, seen_bad, seen_full = screen_clogs(
                simulator, plan, params, execute, n=n_screen, throws=screen_throws, seed=seed
            )
    else:
        seen_u, seen_bad, seen_full = np.zeros((0, d)), np.zeros(0, bool), np.zeros(0, bool)
    screening = {"replays": int(n_screen), "throws": int(screen_throws),
                 "clogged": int(seen_bad.sum()),
                 "filling": int((seen_full & ~seen_bad).sum())}  # fmt: skip
    clog = ClogClassifier.fit(seen_u, seen_bad)
    # design points avoid towers that clog or fill up; the posterior only those that clog
    fills = ClogClassifier.fit(seen_u, seen_full)
    rng = np.random.default_rng(derive_seed(seed, 1))
    names = key_names(plan if reference is None else reference)
    design_u = np.zeros((0, d))
    design_s = np.zeros((0, len(STAT_NAMES)))
    design_d = np.zeros((0, len(STAT_NAMES)))
    design_k = np.zeros((0, len(names)))
    failed_u = np.zeros((0, d))
    samples_u = None
    ess = 0.0
    emulator = None
    wave_of = np.zeros(0, int)
    for w, n_w in enumerate(per_wave):
        if w == 0:
            pool = qmc.LatinHypercube(d, seed=derive_seed(seed, 2)).random(8 * n_w)
        else:
            pool = _around(samples_u, 8 * n_w, rng)
        u = _pick_healthy(pool, fills, n_w)
        seeds = [derive_seed(seed, 3, w, i) for i in range(n_w)]
        with _stopwatch(stages, f"wave {w + 1}"):
            ok, s_ok, d_ok, k_ok, u_failed = _design_stats(
                simulator, plan, params, u, seeds, execute, f"design wave {w + 1}/{waves}",
                reference,
            )  # fmt: skip
        failed_u = np.vstack([failed_u, u_failed])
        design_u = np.vstack([design_u, u[ok]])
        design_s = np.vstack([design_s, s_ok])
        design_d = np.vstack([design_d, d_ok])
        design_k = np.vstack([design_k, k_ok])
        wave_of = np.concatenate([wave_of, np.full(int(ok.sum()), w)])
        if len(design_u) < 3:
            raise FitError(f"only {len(design_u)} replays succeeded; cannot fit")
        seen_u = np.vstack([seen_u, u])
        seen_bad = np.concatenate([seen_bad, ~ok])
        seen_full = np.concatenate([seen_full, ~ok])
        clog = ClogClassifier.fit(seen_u, seen_bad)
        fills = ClogClassifier.fit(seen_u, seen_full)
        noise = split_noise(design_d[wave_of == w])
        near = _near_wave(design_u, wave_of == w)  # the first wave: every row
        with _stopwatch(stages, "emulators and sampling"):
            emulator = Emulator.fit(design_u[near], design_s[near], seed=seed, noise=noise)
            loglik = _excluding_clogs(emulator, observed, clog)
            samples_u, ess = sample_posterior(loglik, d, rng, particles=particles, draws=draws)
    assert emulator is not None and samples_u is not None
    prior_u = rng.random((4 * draws, d))
    prior_u = prior_u[clog.ok(prior_u)][:draws]
    return FitResult(
        parameters=params,
        samples=from_unit(params, samples_u),
        fits=parameter_fits(params, samples_u, _emulated_effects(emulator)),
        observed=observed,
        emulator=emulator,
        design_u=design_u,
        design_stats=design_s,
        ess=ess,
        failures=len(failed_u),
        key_names=names,
        key_emulator=Emulator.fit(design_u[near], to_emulated(names, design_k[near]), seed=seed),
        design_keys=design_k,
        prior_u=prior_u if len(prior_u) else None,
        screening=screening,
        info={
            "waves": waves,
            "budget_replays": budget,
            "seconds_by_stage": {k: round(v, 1) for k, v in stages.items()},
        },
    )


@contextmanager
def _stopwatch(stages: dict[str, float], stage: str) -> Iterator[None]:
    """Add the wall-clock seconds of the ``with`` block to ``stages[stage]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        stages[stage] += time.perf_counter() - start


def split_noise(diffs: np.ndarray) -> np.ndarray:
    """Noise covariance ``(k, k)`` of one replay's statistics from half differences.

    ``diffs : (m, k)``: :func:`~tower.calibration.summaries.summary_split` differences of
    ``m`` replays. Each half is as noisy as twice the whole, so a difference is twice a
    noise draw, plus what the halves differ by in every replay (the first starts from an
    empty tower): the covariance of the differences about their mean, over 4, is the noise
    covariance. Scaled by ``(m - 1) / (m - k - 2)`` so that its inverse, the precision the
    likelihood uses, is unbiased (inverse Wishart mean).
    """
    m, k = diffs.shape
    if m < 2:
        return np.zeros((k, k))
    return np.atleast_2d(np.cov(diffs, rowvar=False)) / 4 * (m - 1) / max(m - k - 2, 1)


def _near_wave(u: np.ndarray, last: np.ndarray, level: float = NEAR_LEVEL) -> np.ndarray:
    """Rows of ``u : (n, d)`` the later-wave emulator is fitted on, ``(n,)`` bool.

    The rows of the last wave (``last``), drawn around the posterior so far, and the earlier
    rows inside the ``level`` ellipsoid of the last wave's points (their mean and covariance,
    chi-square quantile): history matching's refocusing. Far from the posterior the
    statistics change fastest (towards a clogging tower), and one stationary kernel fitted
    to both regions is too rough where the posterior is. Outside the ellipsoid the GP falls
    back on its mean with its full variance, which keeps the likelihood honest there.
    """
    from scipy.stats import chi2

    points = u[last]
    if len(points) <= u.shape[1]:  # too few for a covariance: keep everything
        return np.ones(len(u), bool)
    centred = u - points.mean(axis=0)
    cov = np.cov(points, rowvar=False) + 1e-6 * np.eye(u.shape[1])
    dist2 = np.einsum("ij,jk,ik->i", centred, np.linalg.inv(cov), centred)
    return last | (dist2 <= chi2.ppf(level, u.shape[1]))


def _pick_healthy(pool: np.ndarray, fills: ClogClassifier, n: int) -> np.ndarray:
    """``n`` points of ``pool`` in order, the ones expected neither to clog nor to fill up
    first (``fills``: fitted to clogged-or-filling outcomes)."""
    order = np.argsort(fills.prob(pool) >= CLOG_THRESHOLD, kind="stable")
    return pool[order[:n]]


def _excluding_clogs(
    emulator: Emulator, observed: np.ndarray, clog: ClogClassifier
) -> Callable[[np.ndarray], np.ndarray]:
    """The synthetic log-likelihood, minus infinity where the tower is expected to clog.

    Replays fail where the simulator cannot reproduce a recording at all (the tower clogs,
    pieces escape); the emulator, fitted on the successful ones only, would extrapolate
    there, so that region is cut out of the posterior.
    """

    def loglik(z: np.ndarray) -> np.ndarray:
        out = emulator.loglik(z, observed)
        out[~clog.ok(z)] = -np.inf
        return out

    return loglik


def _around(samples_u: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` candidate points around posterior samples: 80% jittered draws, 20% prior."""
    n_prior = max(1, n // 5)
    pick = samples_u[rng.integers(0, len(samples_u), n - n_prior)]
    sd = np.maximum(samples_u.std(axis=0), 0.02)
    jitter = pick + rng.standard_normal(pick.shape) * sd * 0.5
    jitter = np.abs(jitter)  # reflect into the unit cube
    jitter = np.where(jitter > 1, 2 - jitter, jitter)
    out = np.vstack([np.clip(jitter, 0, 1), rng.random((n_prior, samples_u.shape[1]))])
    return out[rng.permutation(len(out))]
