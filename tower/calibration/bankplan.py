"""``tower calibrate plan`` with the bank engine: protocols compared in minutes, no physics.

For each protocol the bank can answer (12 keshis a throw from an empty tower, colours in
a grouping the likelihood was trained on, :data:`tower.calibration.surrogate.TRAIN_GROUPS`;
emptying the tower every N throws is fine) and for each of a few truths drawn from the
prior (screened for clogging), a recording of the protocol's throws is drawn from the
learned likelihood itself (:meth:`tower.calibration.surrogate.Surrogate.simulate`, one
ensemble member per truth in turn), and fitted by the bank engine as ``tower calibrate``
fits a real one. What the fit learned is measured as :mod:`tower.calibration.plan`
measures it: the narrowing of each key statistic (posterior 90% width over the prior's;
the truth is the member's expected statistic at the true parameters, played forward) and the
directions pinned down.

The recordings come from the learned tower, not the physics: the planner asks what a
protocol could teach if the likelihood were right; ``tower calibrate coverage`` checks on
physics recordings how far it is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tower.calibration.plan import Assessment, Protocol, protocol_plan
from tower.calibration.recording import Session, Throw
from tower.calibration.surrogate import TRAIN_GROUPS, Surrogate
from tower.errors import TowerError

#: Chains whose key statistics are averaged for a drawn truth's (its expected statistics).
TRUTH_CHAINS = 32


def bank_refusal(protocol: Protocol, size: int) -> str | None:
    """Why the bank cannot answer ``protocol`` (``None``: it can)."""
    p = protocol
    if p.size != size or p.singles or p.fill:
        return f"throws other than {size} keshis at a time"
    if p.watchmen or p.brigands:
        return "pawns among the keshis"
    if p.colours not in TRAIN_GROUPS:
        return f"{p.colours} colours per throw (the likelihood learned {list(TRAIN_GROUPS)})"
    return None


def assess_bank(
    surrogate: Surrogate, parameters: Sequence, protocol: Protocol, *, truths: int, seed: int,
    minutes: float,
) -> Assessment:  # fmt: skip
    """Draw and fit ``truths`` recordings of ``protocol`` from the learned likelihood."""
    from tower.calibration.bankfit import fit_bank
    from tower.calibration.forward import forward_keys

    plan = protocol_plan(protocol, minutes)
    rng = np.random.default_rng([seed, 41])
    members = len(surrogate.members)
    narrow: dict[str, list[float]] = {}
    pinned, words, hits = [], [], []
    for k in range(truths):
        u = rng.random(len(parameters))
        while not surrogate.clog.ok(u[None])[0]:
            u = rng.random(len(parameters))
        member = k % members
        sessions = []
        for s in plan:
            outs = surrogate.simulate(u, member, s.throws, rng)
            throws = tuple(Throw(i + 1, dict(c), o) for i, (c, o) in
                           enumerate(zip(s.throws, outs, strict=True)))  # fmt: skip
            sessions.append(Session(s.name, "drawn from the learned likelihood", "empty",
                                    throws=throws))  # fmt: skip
        result = fit_bank(sessions, surrogate, parameters, seed=int(rng.integers(2**31)))
        truth_keys = forward_keys(surrogate, u[None], np.array([member]), rng, chains=TRUTH_CHAINS)
        keys = dict(zip(surrogate.key_names, truth_keys[0].tolist(), strict=True))
        for p in result.predictive(keys):
            narrow.setdefault(p.name, []).append(p.narrowing)
            hits.append(bool(p.covers_truth))
        theta = {p.name: p.low + (p.high - p.low) * x for p, x in zip(parameters, u, strict=True)}
        found = [d for d in result.directions(theta) if d.pinned]
        pinned.append(len(found))
        words += [d.words() for d in found]
        hits += [bool(d.covers_truth) for d in found]
    return Assessment(
        protocol, sum(len(s.throws) for s in plan),
        {k: float(np.median(v)) for k, v in narrow.items()}, float(np.mean(pinned)),
        sorted(set(words)), float(np.mean(hits)) if hits else math.nan, 0.0,
    )  # fmt: skip


def run_bank_plan(
    protocols: Sequence[Protocol], out_dir: Path, surrogate_path: str | Path, *, preset: str,
    truths: int = 3, seed: int = 0, minutes: float = 45.0,
) -> tuple[list[Assessment], dict[str, str]]:  # fmt: skip
    """Assess every protocol the bank can answer; write ``plan.md`` and ``plan.json``.
    Returns the assessments and, by protocol name, why the others were left out."""
    from tower.calibration.plan import write_plan
    from tower.calibration.simulators import physics_parameters
    from tower.calibration.surrogate import load_surrogate

    surrogate = load_surrogate(surrogate_path)
    size = int(surrogate.provenance["bank"]["size"])
    params = sorted((p for p in physics_parameters(preset) if p.name in surrogate.parameters),
                    key=lambda p: surrogate.parameters.index(p.name))  # fmt: skip
    skipped = {p.name: why for p in protocols if (why := bank_refusal(p, size))}
    kept = [p for p in protocols if p.name not in skipped]
    if not kept:
        raise TowerError("the bank answers none of these protocols ("
                         + "; ".join(f"{k}: {v}" for k, v in skipped.items())
                         + "); use --engine gp")  # fmt: skip
    found = [assess_bank(surrogate, params, p, truths=truths, seed=seed, minutes=minutes)
             for p in kept]  # fmt: skip
    shown = {"engine": "bank: recordings drawn from the learned likelihood, fitted by it",
             "surrogate": Path(surrogate_path).name, "truths per protocol": truths,
             "minutes recording": minutes, "seed": seed,
             **{f"left out `{k}`": v for k, v in skipped.items()}}  # fmt: skip
    write_plan(out_dir, found, shown)
    return found, skipped
