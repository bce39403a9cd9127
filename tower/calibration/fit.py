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
   resumes where it stopped, and run on the local pool or on a Dask cluster.
2. **Emulator.** Per summary statistic (:data:`tower.calibration.summaries.STAT_NAMES`), a
   ridge regression in theta on linear, linear + square, or full quadratic terms (with
   interactions); the terms and the ridge strength are chosen by exact leave-one-out error.
   The leave-one-out residuals give the covariance of the statistics around the emulated
   mean; it holds both the simulation noise of one recording-sized replay and the
   emulator's own error, so the likelihood is not over-confident.
3. **Synthetic likelihood.** ``s_obs ~ Normal(mu(theta), Sigma)`` (Wood 2010), evaluated on
   the emulator, costs microseconds, so the posterior can be sampled thoroughly.
4. **Posterior.** Population Monte Carlo: importance sampling from the prior, then three
   rounds with a kernel-mixture proposal around the weighted particles (plus a defensive
   prior component). The effective sample size is reported.
5. **Failures.** Replays that fail (a piece escapes the simulation, the tower clogs) are
   cached as failures; the posterior excludes the region where the nearest design point
   failed, instead of trusting the emulator's extrapolation there.
6. **Second wave.** Half the budget goes to a first design over the whole prior; the other
   half is drawn around the first posterior (history matching), where the emulator then
   is accurate. The final emulator uses both waves, its covariance the second wave's
   residuals.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import qmc

from tower.calibration.recording import Session
from tower.calibration.simulators import Parameter, Plan, Simulator
from tower.calibration.summaries import STAT_NAMES, summary_vector

#: Ratio of posterior to prior 90%-interval width above which a parameter is flagged.
NON_IDENTIFIABLE_RATIO = 0.8

#: ``execute(tasks, label) -> results``: runs ``simulate_task`` on each task dict (cached,
#: possibly in parallel) and returns the result dicts in task order; ``None`` for a failure.
Executor = Callable[[list[dict[str, Any]], str], list[dict[str, Any] | None]]


# ---------------------------------------------------------------- simulation tasks


def plan_hash(plan: Plan) -> str:
    """Short stable hash of a plan (part of every cache key)."""
    text = json.dumps([p.to_json() for p in plan], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_key(simulator: Simulator, theta: Mapping[str, float], seed: int, plan: Plan) -> str:
    """Cache key of one replay: simulator, theta (exact floats), seed and plan."""
    text = json.dumps(
        {
            "simulator": repr(simulator),
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
    sessions = simulator.simulate(task["theta"], plan, task["seed"])
    return {
        "key": task["key"],
        "outs": [[t.pieces_out for t in s.throws] for s in sessions],
    }


def derive_seed(*parts: int) -> int:
    """A 31-bit seed derived from integers (stable across runs and machines)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] >> 1)


# ---------------------------------------------------------------- emulator


def quadratic_features(z: np.ndarray) -> np.ndarray:
    """Linear, square and interaction terms (no intercept) of ``z``, shape ``(n, d + d(d+1)/2)``."""
    d = z.shape[1]
    iu = np.triu_indices(d)
    quad = (z[:, :, None] * z[:, None, :])[:, iu[0], iu[1]]
    return np.hstack([z, quad])


@dataclass
class Emulator:
    """Ridge-quadratic emulator of the summary statistics' mean, with a residual covariance.

    ``predict(u)`` takes unit-cube coordinates ``u : (m, d)`` and returns ``(m, k)`` means.
    """

    x_mean: np.ndarray
    y_mean: np.ndarray
    y_scale: np.ndarray
    coef: np.ndarray  # (p, k) on standardised statistics
    cov: np.ndarray  # (k, k) residual covariance, natural units
    loo_r2: np.ndarray  # (k,)
    lambdas: np.ndarray  # (k,)

    @classmethod
    def fit(cls, u: np.ndarray, stats: np.ndarray, cov_rows: np.ndarray | None = None) -> Emulator:
        """Fit on design ``u : (n, d)`` and statistics ``stats : (n, k)``.

        ``cov_rows`` (boolean mask over the n points) selects the points whose leave-one-out
        residuals estimate the covariance (default: all).
        """
        x = quadratic_features(2 * u - 1)
        x_mean = x.mean(axis=0)
        xc = x - x_mean
        y_mean = stats.mean(axis=0)
        y_scale = stats.std(axis=0)
        y_scale[y_scale == 0] = 1.0
        yc = (stats - y_mean) / y_scale
        n, k = yc.shape
        d = u.shape[1]
        square = np.cumsum(np.arange(d, 0, -1)) - np.arange(d, 0, -1) + d  # columns of z_i^2
        candidates = [np.arange(d), np.concatenate([np.arange(d), square]), np.arange(x.shape[1])]
        coef = np.zeros((x.shape[1], k))
        resid = np.zeros_like(yc)
        lambdas = np.zeros(k)
        best: list[tuple[float, float, np.ndarray, np.ndarray] | None] = [None] * k
        for cols in candidates:
            uu, s, vt = np.linalg.svd(xc[:, cols], full_matrices=False)
            s2 = s**2
            grid = np.logspace(-4, 4, 33) * max(float(s2.max()), 1e-12) / max(n, 1)
            uty = uu.T @ yc
            for lam in grid:
                shrink = s2 / (s2 + lam)
                h = (uu**2) @ shrink + 1.0 / n
                fitted = uu @ (shrink[:, None] * uty)
                loo = (yc - fitted) / np.maximum(1 - h, 1e-6)[:, None]
                scores = np.mean(loo**2, axis=0)
                for j in range(k):
                    if best[j] is None or scores[j] < best[j][0]:
                        beta = np.zeros(x.shape[1])
                        beta[cols] = vt.T @ (s / (s2 + lam) * uty[:, j])
                        best[j] = (float(scores[j]), float(lam), loo[:, j].copy(), beta)
        for j, (_, lam, loo, beta) in enumerate(b for b in best if b is not None):
            lambdas[j] = lam
            coef[:, j] = beta
            resid[:, j] = loo
        rows = np.ones(n, bool) if cov_rows is None else cov_rows
        r = resid[rows] * y_scale
        cov = np.atleast_2d(np.cov(r, rowvar=False)) + np.diag((1e-6 * y_scale) ** 2)
        ss_tot = np.maximum(np.sum(yc**2, axis=0), 1e-12)
        loo_r2 = 1 - np.sum(resid**2, axis=0) / ss_tot
        return cls(x_mean, y_mean, y_scale, coef, cov, loo_r2, lambdas)

    def predict(self, u: np.ndarray) -> np.ndarray:
        x = quadratic_features(2 * np.atleast_2d(u) - 1) - self.x_mean
        return self.y_mean + (x @ self.coef) * self.y_scale

    def loglik(self, u: np.ndarray, observed: np.ndarray) -> np.ndarray:
        """Gaussian synthetic log-likelihood of ``observed`` at each row of ``u``, ``(m,)``."""
        chol = np.linalg.cholesky(self.cov)
        r = np.linalg.solve(chol, (observed - self.predict(u)).T)
        return -0.5 * np.sum(r**2, axis=0)


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
            f"the statistics barely depend on it: across its whole range they move by at most "
            f"{self.sensitivity:.1f} noise standard deviations (emulated at the posterior "
            f"median), too little for this recording to pin it down"
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
    info: dict[str, Any] = field(default_factory=dict)

    def theta(self, row: np.ndarray) -> dict[str, float]:
        return {p.name: float(v) for p, v in zip(self.parameters, row, strict=True)}

    def medians(self) -> dict[str, float]:
        return {f.parameter.name: f.median for f in self.fits}

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "emulator (ridge quadratic) + Gaussian synthetic likelihood + PMC",
            "statistics": list(STAT_NAMES),
            "observed": [float(x) for x in self.observed],
            "emulator_loo_r2": [round(float(x), 4) for x in self.emulator.loo_r2],
            "design_points": len(self.design_u),
            "failed_simulations": self.failures,
            "effective_sample_size": round(self.ess, 1),
            "parameters": {f.parameter.name: f.to_json() for f in self.fits},
            **self.info,
        }


def to_unit(params: Sequence[Parameter], theta: Mapping[str, float]) -> np.ndarray:
    """Natural values to unit-cube coordinates, shape ``(d,)``."""
    return np.array([(theta[p.name] - p.low) / (p.high - p.low) for p in params])


def from_unit(params: Sequence[Parameter], u: np.ndarray) -> np.ndarray:
    """Unit-cube coordinates ``(m, d)`` to natural values ``(m, d)``."""
    lo = np.array([p.low for p in params])
    hi = np.array([p.high for p in params])
    return lo + np.atleast_2d(u) * (hi - lo)


def _parameter_fits(
    params: Sequence[Parameter], u_samples: np.ndarray, emulator: Emulator
) -> tuple[ParameterFit, ...]:
    natural = from_unit(params, u_samples)
    med_u = np.median(u_samples, axis=0)
    sd = np.sqrt(np.diag(emulator.cov))
    d = len(params)
    corr = np.corrcoef(u_samples, rowvar=False) if d > 1 else np.ones((1, 1))
    corr = np.nan_to_num(np.atleast_2d(corr))
    fits = []
    for j, p in enumerate(params):
        lo_u, hi_u = med_u.copy(), med_u.copy()
        lo_u[j], hi_u[j] = 0.0, 1.0
        effect = np.abs(emulator.predict(hi_u) - emulator.predict(lo_u))[0] / sd
        q05, q50, q95 = np.quantile(natural[:, j], [0.05, 0.5, 0.95])
        others = [(abs(corr[j, i]), i) for i in range(d) if i != j]
        partner_i = max(others)[1] if others else j
        fits.append(
            ParameterFit(
                p,
                float(q50),
                float(q05),
                float(q95),
                float((q95 - q05) / (0.9 * (p.high - p.low))),
                float(effect.max()),
                params[partner_i].name if others else "",
                float(corr[j, partner_i]) if others else 0.0,
            )
        )
    return tuple(fits)


def _design_stats(
    simulator: Simulator,
    plan: Plan,
    params: Sequence[Parameter],
    u: np.ndarray,
    seeds: Sequence[int],
    execute: Executor,
    label: str,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Replay the plan at each design point; rows that failed are dropped."""
    from tower.calibration.simulators import sessions_from_outs

    natural = from_unit(params, u)
    tasks = [
        make_task(simulator, {p.name: float(v) for p, v in zip(params, row, strict=True)}, s, plan)
        for row, s in zip(natural, seeds, strict=True)
    ]
    results = execute(tasks, label)
    keep, stats = [], []
    for i, res in enumerate(results):
        if res is None:
            continue
        keep.append(i)
        stats.append(summary_vector(sessions_from_outs(plan, res["outs"])))
    failed = np.setdiff1d(np.arange(len(u)), keep)
    return u[keep], np.array(stats).reshape(len(keep), len(STAT_NAMES)), u[failed]


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
        Number of replays in the design, over all waves (at least ``4 * waves``).
    seed : int
        Seeds the design, the replays and the sampler.
    """
    params = simulator.parameters
    d = len(params)
    observed = summary_vector(training)
    per_wave = [budget // waves + (1 if w < budget % waves else 0) for w in range(waves)]
    if min(per_wave) < 4:
        raise ValueError(f"budget {budget} too small for {waves} waves (need >= {4 * waves})")
    rng = np.random.default_rng(derive_seed(seed, 1))
    design_u = np.zeros((0, d))
    design_s = np.zeros((0, len(STAT_NAMES)))
    wave_of = np.zeros(0, int)
    failed_u = np.zeros((0, d))
    samples_u = None
    ess = 0.0
    emulator = None
    for w, n_w in enumerate(per_wave):
        if w == 0:
            u = qmc.LatinHypercube(d, seed=derive_seed(seed, 2)).random(n_w)
        else:
            u = _around(samples_u, n_w, rng)
        seeds = [derive_seed(seed, 3, w, i) for i in range(n_w)]
        u_ok, s_ok, u_failed = _design_stats(
            simulator, plan, params, u, seeds, execute, f"design wave {w + 1}/{waves}"
        )
        failed_u = np.vstack([failed_u, u_failed])
        design_u = np.vstack([design_u, u_ok])
        design_s = np.vstack([design_s, s_ok])
        wave_of = np.concatenate([wave_of, np.full(len(u_ok), w)])
        if len(design_u) < 3:
            raise RuntimeError(f"only {len(design_u)} replays succeeded; cannot fit")
        emulator = Emulator.fit(design_u, design_s, cov_rows=wave_of == w)
        loglik = _excluding_failures(emulator, observed, design_u, failed_u)
        samples_u, ess = sample_posterior(loglik, d, rng, draws=draws)
    assert emulator is not None and samples_u is not None
    return FitResult(
        parameters=params,
        samples=from_unit(params, samples_u),
        fits=_parameter_fits(params, samples_u, emulator),
        observed=observed,
        emulator=emulator,
        design_u=design_u,
        design_stats=design_s,
        ess=ess,
        failures=len(failed_u),
        info={"waves": waves, "budget_replays": budget},
    )


def _excluding_failures(
    emulator: Emulator, observed: np.ndarray, ok_u: np.ndarray, failed_u: np.ndarray
) -> Callable[[np.ndarray], np.ndarray]:
    """The synthetic log-likelihood, minus infinity where the nearest design point failed.

    Replays fail where the simulator cannot reproduce a recording at all (pieces escape,
    the tower clogs); the emulator, fitted on the successful ones only, would extrapolate
    there, so that region is cut out of the posterior (nearest-neighbour classification).
    """

    def loglik(z: np.ndarray) -> np.ndarray:
        out = emulator.loglik(z, observed)
        if len(failed_u):
            both = np.vstack([ok_u, failed_u])
            for start in range(0, len(z), 4096):
                chunk = z[start : start + 4096]
                d2 = (chunk**2).sum(1)[:, None] + (both**2).sum(1)[None, :] - 2 * chunk @ both.T
                bad = np.argmin(d2, axis=1) >= len(ok_u)
                out[start : start + 4096][bad] = -np.inf
        return out

    return loglik


def _around(samples_u: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` design points around posterior samples: 80% jittered draws, 20% prior."""
    n_prior = max(1, n // 5)
    pick = samples_u[rng.integers(0, len(samples_u), n - n_prior)]
    sd = np.maximum(samples_u.std(axis=0), 0.02)
    jitter = pick + rng.standard_normal(pick.shape) * sd * 0.5
    jitter = np.abs(jitter)  # reflect into the unit cube
    jitter = np.where(jitter > 1, 2 - jitter, jitter)
    return np.vstack([np.clip(jitter, 0, 1), rng.random((n_prior, samples_u.shape[1]))])
