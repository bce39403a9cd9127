"""``tower calibrate`` as a function: hold out, fit, check, and write everything into DIR.

Outputs (all written atomically; the replay cache makes a rerun resume):

- ``params.json``: posterior medians as a ``tower.params/1`` file, with every parameter's
  90% interval in its ``calibration`` block (:mod:`tower.physics.params_file`);
- ``posterior.csv``: the posterior samples, one column per parameter;
- ``fit.json``: intervals, identifiability and diagnostics;
- ``report.md`` and PNGs: the goodness-of-fit report (:mod:`tower.calibration.report`);
- ``cache/replays.jsonl``: every simulated replay, keyed by simulator, theta, seed and plan;
- ``model.json``, with ``Settings.model_sims``: the calibrated tower as a model file,
  distilled from physics sequences at the posterior medians (``cache/model*.jsonl``).
  The learned likelihood cannot be that file: it knows the pieces out of each throw, not
  where the others lie inside, which a model file carries.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tower.calibration import DEFAULT_BUDGET, DEFAULT_CHECKS
from tower.calibration.bankfit import BankFit
from tower.calibration.coverage import true_key_statistics
from tower.calibration.execute import ReplayRunner
from tower.calibration.fit import FitResult, derive_seed, fit, make_task
from tower.calibration.recording import (
    Recording,
    Session,
    atomic_write_text,
    key_piece,
    read_recording,
)
from tower.calibration.report import Check, write_report
from tower.calibration.simulators import (
    BaselineSimulator,
    PhysicsSimulator,
    Simulator,
    fit_names_for,
    physics_parameters,
    plan_of,
    sessions_from_outs,
    split_theta,
    with_clog_limit_for,
)
from tower.errors import TowerError
from tower.pieces import Kind

SIMULATORS = ("physics", "baseline")

#: The fit engines: ``bank`` scores every throw with the likelihood learned from the
#: committed physics bank (seconds, no physics); ``gp`` replays the recording by
#: simulation and emulates its summary statistics (an hour with physics).
ENGINES = ("bank", "gp")


@dataclass(frozen=True)
class Settings:
    """Knobs of a calibration run (the CLI's options)."""

    budget: int = DEFAULT_BUDGET
    holdout: float = 0.25
    seed: int = 0
    checks: int = DEFAULT_CHECKS
    waves: int = 2
    screen: int | None = None  # short clog-screening replays (None: see fit.fit)
    truth_replays: int = 4  # replays at the truth of a synthetic recording
    engine: str | None = None  # "bank" or "gp"; None: bank for physics, gp otherwise
    surrogate: str | None = None  # the bank engine's surrogate file (None: the shipped one)
    physics_checks: int = 0  # bank engine: physics replays at posterior draws (0: none)
    model_sims: int = 0  # physics sequences of keshis, and of mixes, for model.json (0: none)
    scheduler: str | None = None
    workers: int | None = None
    progress: bool = True


@dataclass
class Calibration:
    """What a run produced."""

    result: FitResult | BankFit
    checks: list[Check]
    out_dir: Path
    seconds: float
    truth_keys: dict[str, float] | None = None
    truth_theta: dict[str, float] | None = None


def split_holdout(recording: Recording, holdout: float) -> list[int]:
    """Number of training throws per session: the held-out part is each session's tail."""
    if not 0 <= holdout < 1:
        raise TowerError(f"--holdout must be in [0, 1), got {holdout}")
    return [len(s.throws) - math.floor(holdout * len(s.throws)) for s in recording.sessions]


def default_physics_fit(recording: Recording, preset: str) -> tuple[str, ...]:
    """The parameters fitted by default: the tower's and the pieces', not the hand's.

    Fitted: friction, restitution, rolling and spinning friction, the preset's hole sizes,
    floor tilts and ribs, and, when pawns were thrown, both densities.
    Not fitted: the ``release_*`` parameters (how a person throws; across their full
    ranges many simulated throws lose pieces over the funnel's rim), ``stream_interval``,
    and the densities of a recording without pawns. Its pieces are all of the one wood, and
    multiplying every mass by one factor changes no motion (gravity, friction, restitution
    and the solver's impulses all scale with it): such a recording cannot tell the density,
    and a fitted one would only add a dimension of noise to the design. (In Bullet the
    density reaches one place: rolling and spinning friction scale with the normal impulse
    capped at 1 g cm/s, so a heavier piece rolls a little more freely, as with a little less
    rolling friction, which is fitted. 16 towers of 60 throws of 12 keshis at 0.45 and 0.95
    g/cm³ kept 6.26 ± 0.17 and 6.42 ± 0.22 inside.)
    They keep their defaults or the values of ``--params FILE``; ``--fit`` overrides all this.
    """
    kinds = {key_piece(k).kind for s in recording.sessions for t in s.throws for k in t.pieces_in}
    return fit_names_for(preset, pawns=bool(kinds & {Kind.WATCHMAN, Kind.BRIGAND}))


def make_simulator(
    name: str,
    recording: Recording,
    *,
    preset: str = "marrakesh",
    fit_names: Sequence[str] | None = None,
    base_geometry: dict[str, float] | None = None,
    base_physics: dict[str, Any] | None = None,
) -> Simulator:
    """The simulator a calibration fits, by name (:data:`SIMULATORS`)."""
    if name == "baseline":
        return BaselineSimulator()
    if name != "physics":
        raise TowerError(f"unknown simulator {name!r}; expected one of {SIMULATORS}")
    base_physics = base_physics or {}
    every = {p.name for p in physics_parameters(preset)}
    chosen = tuple(fit_names) if fit_names else default_physics_fit(recording, preset)
    unknown = sorted(set(chosen) - every)
    if unknown:
        raise TowerError(f"unknown parameter(s) to fit {unknown}; known: {sorted(every)}")
    simulator = PhysicsSimulator(
        preset,
        chosen,
        tuple(sorted((base_geometry or {}).items())),
        tuple(sorted(base_physics.items())),
    )
    return with_clog_limit_for(simulator, recording.sessions)


def _samples_csv(result: FitResult) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([p.name for p in result.parameters])
    writer.writerows([[f"{v:.6g}" for v in row] for row in result.samples])
    return buf.getvalue()


def _save_params(
    path: Path, simulator: Simulator, result: FitResult, extra: dict[str, Any]
) -> None:
    from tower.physics.params import PhysicsParams
    from tower.physics.params_file import save_params

    medians = result.medians()
    calibration = {**extra, **result.to_json()}
    if isinstance(simulator, PhysicsSimulator):
        geometry, physics = split_theta(medians)
        save_params(
            path,
            preset=simulator.preset,
            geometry={**dict(simulator.base_geometry), **geometry},
            physics=PhysicsParams().with_values({**dict(simulator.base_physics), **physics}),
            calibration=calibration,
        )
    else:
        model = {k.removeprefix("model."): v for k, v in medians.items()}
        save_params(
            path, preset=extra.get("preset", "marrakesh"), model=model, calibration=calibration
        )


def _physics_checks(
    result: FitResult | BankFit, simulator: Simulator, recording: Recording,
    n_train: Sequence[int], runner: ReplayRunner, settings: Settings, count: int,
) -> list[list[Session]]:  # fmt: skip
    """Full replays of the recording by the simulator at ``count`` posterior draws (the
    held-out checks); none when nothing is held out."""
    if count <= 0 or not _held_out(recording, n_train):
        return []
    rng = np.random.default_rng(derive_seed(settings.seed, 5))
    rows = result.samples[rng.choice(len(result.samples), count, replace=False)]
    full_plan = plan_of(recording.sessions)
    tasks = [
        make_task(simulator, result.theta(row), derive_seed(settings.seed, 6, i), full_plan)
        for i, row in enumerate(rows)
    ]
    return [
        sessions_from_outs(full_plan, r["outs"])
        for r in runner(tasks, "predictive checks")
        if r is not None
    ]


def _surrogate_checks(
    result: BankFit, recording: Recording, n_train: Sequence[int], settings: Settings
) -> list[list[Session]]:
    """Full replays of the recording drawn from the learned likelihood (no physics) at
    ``settings.checks`` posterior draws, each by the member that drew it."""
    if not _held_out(recording, n_train):
        return []
    rng = np.random.default_rng(derive_seed(settings.seed, 5))
    picks = rng.choice(len(result.samples), settings.checks, replace=False)
    full_plan = plan_of(recording.sessions)
    u = result.samples_u
    member = result.member
    return [
        sessions_from_outs(
            full_plan,
            [result.surrogate.simulate(u[i], int(member[i]), p.throws, rng) for p in full_plan],
        )
        for i in picks
    ]


def _write_model(out_dir: Path, preset: str, settings: Settings) -> None:
    """``model.json``: the tower at the posterior medians (``params.json``), distilled from
    ``model_sims`` physics sequences of 12 keshis and as many of Walls & Guards mixes."""
    import hashlib

    from tower.model.pipeline import distill_to

    params = out_dir / "params.json"
    # The traces resume under a name of the values thrown with (not of the run's record,
    # which holds its time); other values start afresh beside.
    values = {k: v for k, v in json.loads(params.read_text()).items() if k != "calibration"}
    tag = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:12]
    cache = out_dir / "cache" / f"model-{tag}" / "model.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    distill_to(
        cache, sims=settings.model_sims, mixed_sims=settings.model_sims, preset=preset,
        params_file=params, scheduler=settings.scheduler, workers=settings.workers,
        progress=settings.progress,
    )  # fmt: skip
    atomic_write_text(out_dir / "model.json", cache.read_text())


def _held_out(recording: Recording, n_train: Sequence[int]) -> bool:
    return any(len(s.throws) > n for s, n in zip(recording.sessions, n_train, strict=True))


def calibrate(
    recording_path: str | Path,
    out_dir: str | Path,
    simulator_name: str = "physics",
    settings: Settings | None = None,
    *,
    preset: str = "marrakesh",
    fit_names: Sequence[str] | None = None,
    params_path: str | Path | None = None,
    simulator: Simulator | None = None,
) -> Calibration:
    """Calibrate a simulator against a recording and write the outputs into ``out_dir``.

    The recording (and ``params_path``) are validated before anything is written.
    ``simulator`` overrides ``simulator_name`` (for other simulators, e.g. in tests).
    """
    settings = settings or Settings()
    recording_path, out_dir = Path(recording_path), Path(out_dir)
    recording = read_recording(recording_path)
    base_geometry: dict[str, float] = {}
    base_physics: dict[str, Any] = {}
    if params_path is not None:
        from tower.physics.params_file import load_params

        base_geometry, physics = load_params(params_path)
        base_physics = physics.to_json()
        base_physics.pop("schema")
    if simulator is None:
        simulator = make_simulator(
            simulator_name, recording, preset=preset, fit_names=fit_names,
            base_geometry=base_geometry, base_physics=base_physics,
        )  # fmt: skip
    n_train = split_holdout(recording, settings.holdout)
    training = [
        s.with_throws(s.throws[:n]) for s, n in zip(recording.sessions, n_train, strict=True)
    ]
    if sum(len(s.throws) for s in training) < 10:
        raise TowerError(f"{recording_path}: fewer than 10 training throws; record more throws")
    engine = settings.engine or ("bank" if isinstance(simulator, PhysicsSimulator) else "gp")
    if engine not in ENGINES:
        raise TowerError(f"unknown engine {engine!r}; expected one of {ENGINES}")
    surrogate = None
    if engine == "bank":
        if not isinstance(simulator, PhysicsSimulator):
            raise TowerError("--engine bank calibrates the physics; use --engine gp here")
        if params_path is not None:
            raise TowerError(
                "the physics bank was made at the default values of the parameters not "
                "fitted; to fit with other values (--params), use --engine gp"
            )
        from tower.calibration.surrogate import DEFAULT_SURROGATE, load_surrogate

        surrogate = load_surrogate(settings.surrogate or DEFAULT_SURROGATE)
    start = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = ReplayRunner(
        simulator,
        out_dir / "cache" / "replays.jsonl",
        scheduler=settings.scheduler,
        workers=settings.workers,
        progress=settings.progress,
    )
    truth = {k: float(v) for k, v in recording.meta.get("truth", {}).get("theta", {}).items()}
    has_truth = bool(truth) and all(p.name in truth for p in simulator.parameters)
    if surrogate is not None:
        from tower.calibration.bankfit import fit_bank

        result: FitResult | BankFit = fit_bank(
            training, surrogate, simulator.parameters, seed=settings.seed
        )
        reps_full = _surrogate_checks(result, recording, n_train, settings)
        physics = settings.physics_checks > 0
        if physics:
            reps_full = _physics_checks(result, simulator, recording, n_train, runner,
                                        settings, settings.physics_checks)  # fmt: skip
    else:
        result = fit(
            simulator,
            training,
            plan_of(training),
            runner,
            budget=settings.budget,
            seed=settings.seed,
            waves=settings.waves,
            screen=settings.screen,
        )
        reps_full = _physics_checks(result, simulator, recording, n_train, runner, settings,
                                    settings.checks)  # fmt: skip
        physics = True
    truth_keys = (
        true_key_statistics(simulator, truth, plan_of(training), derive_seed(settings.seed, 11),
                            settings.truth_replays, runner)
        if has_truth and physics
        else None
    )  # fmt: skip
    seconds = time.perf_counter() - start
    shown = {
        "simulator": f"`{simulator!r}`",
        "design budget": f"{settings.budget} replays in {settings.waves} waves",
        "seed": settings.seed,
        "run time": f"{seconds:.0f} s",
    }
    checks = write_report(
        out_dir,
        recording_path=recording_path,
        recording=recording,
        result=result,
        n_train=n_train,
        reps_full=reps_full,
        truth=truth,
        truth_keys=truth_keys,
        settings=shown,
        model_sims=settings.model_sims,
    )
    extra = {
        "recording": recording_path.name,
        "preset": preset,
        "holdout": settings.holdout,
        "seed": settings.seed,
        "seconds": round(seconds, 1),
        "checks": [asdict(c) for c in checks],
        "predictive": {p.name: p.to_json() for p in result.predictive(truth_keys)},
        "directions": [d.to_json() for d in result.directions(truth or None)],
    }
    atomic_write_text(out_dir / "posterior.csv", _samples_csv(result))
    atomic_write_text(
        out_dir / "fit.json", json.dumps({**extra, **result.to_json()}, indent=2) + "\n"
    )
    _save_params(out_dir / "params.json", simulator, result, extra)
    if settings.model_sims and isinstance(simulator, PhysicsSimulator):
        _write_model(out_dir, simulator.preset, settings)
    return Calibration(result, checks, out_dir, seconds, truth_keys, truth)
