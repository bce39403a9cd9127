"""A library engine beside the hand-written fit: sbi's neural posterior estimation.

The comparison in ``docs/calibration-engines.md`` fits the same synthetic recordings with
both engines at the same simulation budget and scores what they recover:

- **hand-written** (:func:`tower.calibration.fit.fit`): clog screening, Gaussian-process
  emulator, synthetic likelihood, population Monte Carlo, sequential design waves;
- **sbi NPE** (Tejero-Cantero et al. 2020, the ``sbi`` package, a normalising flow trained
  on (parameters, summary statistics) pairs): the same summary statistics
  (:func:`tower.calibration.summaries.summary_vector`) of the same number of full replays
  at parameters drawn from the prior (one round: amortised NPE; sequential rounds
  collapsed on a few dozen simulations).

Scores per engine over the recordings: coverage of the 90% intervals, their mean width
over the prior's, and the error of the posterior median (in prior widths).

``sbi`` and ``torch`` are an optional extra (``pip install -e '.[sbi]'``); run the
comparison with ``python -m tower.calibration.engines --recordings 20 --budget 60``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from tower.calibration.fit import Executor, derive_seed, fit, from_unit, make_task, to_unit_rows
from tower.calibration.recording import Session
from tower.calibration.simulators import Plan, Simulator, sessions_from_outs
from tower.calibration.summaries import summary_vector


def sbi_samples(
    simulator: Simulator,
    training: Sequence[Session],
    plan: Plan,
    execute: Executor,
    *,
    budget: int,
    seed: int = 0,
    rounds: int = 1,
    draws: int = 4000,
) -> np.ndarray:
    """Posterior samples ``(draws, d)`` in natural units by (sequential) NPE (sbi).

    The flow may put most of its mass outside the prior box when trained on few
    simulations, where sbi's rejection sampling stalls; samples are drawn without it, those
    inside the box kept, and only if too few are inside the rest clipped into the box.
    """
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="sbi-logs-") as logs:  # sbi logs to ./sbi-logs
        return _sbi_samples(simulator, training, plan, execute, budget=budget, seed=seed,
                            rounds=rounds, draws=draws, logs=logs)  # fmt: skip


def _sbi_samples(
    simulator: Simulator,
    training: Sequence[Session],
    plan: Plan,
    execute: Executor,
    *,
    budget: int,
    seed: int,
    rounds: int,
    draws: int,
    logs: str,
) -> np.ndarray:
    import torch
    from sbi.inference import NPE
    from sbi.utils import BoxUniform
    from torch.utils.tensorboard import SummaryWriter

    params = simulator.parameters
    d = len(params)
    prior = BoxUniform(torch.zeros(d), torch.ones(d))
    observed = torch.tensor(summary_vector(training), dtype=torch.float32)
    inference = NPE(prior=prior, show_progress_bars=False, summary_writer=SummaryWriter(logs))
    proposal: Any = prior
    per_round = [budget // rounds + (1 if r < budget % rounds else 0) for r in range(rounds)]
    posterior = None
    for r, n in enumerate(per_round):
        u = proposal.sample((n,)).numpy().astype(float)
        tasks = [
            make_task(simulator, dict(zip([p.name for p in params], row, strict=True)),
                      derive_seed(seed, 40, r, i), plan)
            for i, row in enumerate(from_unit(params, u))
        ]  # fmt: skip
        results = execute(tasks, f"sbi round {r + 1}/{rounds}")
        ok = [i for i, res in enumerate(results) if res is not None]
        x = np.array([summary_vector(sessions_from_outs(plan, results[i]["outs"])) for i in ok])
        inference.append_simulations(
            torch.tensor(u[ok], dtype=torch.float32),
            torch.tensor(x, dtype=torch.float32),
            proposal=proposal,
        )
        density = inference.train(training_batch_size=min(50, max(len(ok) // 4, 4)))
        posterior = inference.build_posterior(density).set_default_x(observed)
        proposal = posterior
    assert posterior is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the share outside the prior is handled here
        u = posterior.sample((8 * draws,), show_progress_bars=False, reject_outside_prior=False)
    u = u.detach().numpy().astype(float)
    inside = np.all((u >= 0) & (u <= 1), axis=1)
    u = np.vstack([u[inside], np.clip(u[~inside], 0, 1)])[:draws]
    return from_unit(params, u)


def _score(params: Sequence[Any], samples: np.ndarray, truth: dict[str, float]) -> dict:
    u = to_unit_rows(params, samples)
    t = to_unit_rows(params, np.array([[truth[p.name] for p in params]]))[0]
    lo, med, hi = np.quantile(u, [0.05, 0.5, 0.95], axis=0)
    return {
        "hits": [bool(a <= b <= c) for a, b, c in zip(lo, t, hi, strict=True)],
        "width": [float((c - a) / 0.9) for a, c in zip(lo, hi, strict=True)],
        "error": [float(abs(m - b)) for m, b in zip(med, t, strict=True)],
    }


def compare(
    simulator: Simulator, plan: Plan, *, recordings: int, budget: int, seed: int = 0
) -> dict[str, Any]:
    """Both engines on ``recordings`` synthetic recordings; scores per engine."""
    from tower.calibration.synthetic import draw_from_prior

    def execute(tasks: list[dict], label: str) -> list[dict | None]:
        from tower.calibration.fit import simulate_task

        return [simulate_task(simulator, t) for t in tasks]

    rows: dict[str, list[dict]] = {"hand-written": [], "sbi-npe": []}
    seconds = {k: 0.0 for k in rows}
    for k in range(recordings):
        truth = draw_from_prior(simulator.parameters, derive_seed(seed, 41, k))
        recording = simulator.simulate(truth, plan, derive_seed(seed, 42, k))
        start = time.perf_counter()
        result = fit(simulator, recording, plan, execute, budget=budget,
                     seed=derive_seed(seed, 43, k), screen=0)  # fmt: skip
        seconds["hand-written"] += time.perf_counter() - start
        rows["hand-written"].append(_score(simulator.parameters, result.samples, truth))
        start = time.perf_counter()
        samples = sbi_samples(simulator, recording, plan, execute, budget=budget,
                              seed=derive_seed(seed, 44, k))  # fmt: skip
        seconds["sbi-npe"] += time.perf_counter() - start
        rows["sbi-npe"].append(_score(simulator.parameters, samples, truth))
    out = {}
    for name, found in rows.items():
        hits = np.array([r["hits"] for r in found])
        out[name] = {
            "coverage": float(hits.mean()),
            "intervals": int(hits.size),
            "mean_width_over_prior": float(np.mean([r["width"] for r in found])),
            "mean_abs_error_prior_units": float(np.mean([r["error"] for r in found])),
            "seconds_per_fit": seconds[name] / recordings,
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=20)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--throws", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from tower.calibration.simulators import BaselineSimulator
    from tower.calibration.synthetic import synthetic_plan

    found = compare(BaselineSimulator(), synthetic_plan(args.throws, 12),
                    recordings=args.recordings, budget=args.budget, seed=args.seed)  # fmt: skip
    print(json.dumps({"settings": vars(args), "engines": found}, indent=2))


if __name__ == "__main__":
    main()
