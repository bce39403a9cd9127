"""A synthetic recording simulated at known parameters, as ``tower record-synthetic``
writes it: the throws a recording protocol (or ``pieces`` keshis a throw) would make,
through the physics tower or the two-chance model, with the true values inside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tower.calibration.recording import Recording
from tower.calibration.simulators import Plan

#: Draws from the prior tried by ``from_prior`` before giving up (a draw is rejected when
#: its simulation fails: pieces escape, or the tower clogs).
ATTEMPTS = 40


def simulate_recording(
    preset: str, *, params_path: Path | None = None, from_prior: bool = False,
    simulator_name: str = "physics", throws: int = 200, pieces: int = 12,
    protocol: str | None = None, seed: int = 0,
    rejected: Callable[[int, Exception], None] | None = None,
) -> Recording:  # fmt: skip
    """The synthetic recording of ``throws`` throws at the values of ``params_path`` (the
    preset's and physics defaults if none), or with ``from_prior`` at a draw from the
    prior of the fitted parameters (up to :data:`ATTEMPTS` draws; ``rejected`` hears of
    each that failed to simulate)."""
    from tower.calibration.calibrate import make_simulator
    from tower.calibration.fit import derive_seed
    from tower.calibration.simulators import ReplayAborted
    from tower.calibration.synthetic import draw_from_prior, synthetic_recording
    from tower.errors import TowerError
    from tower.physics.sim import SimulationError

    simulator = make_simulator(simulator_name, Recording(()), preset=preset,
                               **_base_values(params_path))  # fmt: skip
    plan = _plan(throws, pieces, protocol)
    for attempt in range(ATTEMPTS if from_prior else 1):
        theta = (
            draw_from_prior(simulator.parameters, derive_seed(seed, 7, attempt))
            if from_prior
            else simulator.base_theta()
        )
        try:
            return synthetic_recording(
                simulator, theta, plan, derive_seed(seed, 8), tower=preset,
                truth_extra={"preset": preset, "prior_draws_rejected": attempt},
            )  # fmt: skip
        except (SimulationError, ReplayAborted) as exc:
            if not from_prior:
                raise
            if rejected is not None:
                rejected(attempt, exc)
    raise TowerError(f"{ATTEMPTS} draws from the prior all failed to simulate; try another --seed")


def _base_values(params_path: Path | None) -> dict[str, dict[str, float]]:
    """The simulator's base geometry and physics values from a params file."""
    if params_path is None:
        return {"base_geometry": {}, "base_physics": {}}
    from tower.physics.params_file import load_params

    geometry, physics = load_params(params_path)
    values = {k: v for k, v in physics.to_json().items() if k != "schema"}
    return {"base_geometry": geometry, "base_physics": values}


def _plan(throws: int, pieces: int, protocol: str | None) -> Plan:
    """The throws of a recording protocol, else ``throws`` throws of ``pieces`` keshis."""
    if protocol is None:
        from tower.calibration.synthetic import synthetic_plan

        return synthetic_plan(throws, pieces)
    from tower.calibration.plan import protocol_named, protocol_plan

    return protocol_plan(protocol_named(protocol), throws=throws)
