"""Synthetic recordings: what a person would record, simulated at known parameters.

The recording is in the ordinary format, marked ``"synthetic": true`` in its meta record,
with the true parameters under ``"truth"`` (``theta`` by fitted-parameter name), so that
``tower calibrate`` can report whether its intervals contain them.

Throws follow the recommended recording protocol (calibration/README.md): the 12 keshi
colours are used in four groups of three, one group per throw in turn, so a colour comes
back only every fourth throw and the colours tell fresh pieces from old ones.

Examples
--------
>>> plan = synthetic_plan(throws=3, pieces=6)
>>> [dict(c) for c in plan[0].throws]  # doctest: +NORMALIZE_WHITESPACE
[{'green': 2, 'gray': 2, 'white': 2}, {'black': 2, 'pink': 2, 'turquoise': 2},
 {'beige': 2, 'brown': 2, 'red': 2}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tower.calibration.recording import Recording, Session, canonical
from tower.calibration.simulators import Parameter, Plan, PlanSession, Simulator
from tower.pieces import KESHI_COLOURS

#: Colours per group in the synthetic protocol.
GROUP = 3


def synthetic_plan(
    throws: int, pieces: int, session: str = "synthetic", group: int = GROUP, first: int = 0
) -> Plan:
    """One session from an empty tower: ``throws`` throws of ``pieces`` keshis each.

    The colours are used in groups of ``group``, one group per throw in turn, starting
    with throw number ``first`` of the cycle.
    """
    return (PlanSession(session, "empty", (), colour_throws(throws, pieces, group, first)),)


def colour_throws(throws: int, pieces: int, group: int = GROUP, first: int = 0) -> tuple:
    """``throws`` throws of ``pieces`` keshis, colours in groups of ``group`` in turn."""
    groups = [KESHI_COLOURS[i : i + group] for i in range(0, len(KESHI_COLOURS), group)]
    plan = []
    for t in range(first, first + throws):
        colours = groups[t % len(groups)]
        counts: dict[str, int] = {}
        for i in range(pieces):
            counts[colours[i % group]] = counts.get(colours[i % group], 0) + 1
        plan.append(canonical(counts))
    return tuple(plan)


def draw_from_prior(params: tuple[Parameter, ...], seed: int) -> dict[str, float]:
    """Parameter values drawn uniformly from their plausible ranges."""
    rng = np.random.default_rng(seed)
    return {p.name: float(p.low + rng.random() * (p.high - p.low)) for p in params}


def synthetic_recording(
    simulator: Simulator,
    theta: Mapping[str, float],
    plan: Plan,
    seed: int,
    *,
    tower: str,
    truth_extra: Mapping[str, Any] | None = None,
) -> Recording:
    """Replay ``plan`` at ``theta`` and return it as a recording marked synthetic."""
    sessions = simulator.simulate(theta, plan, seed)
    described = tuple(
        Session(
            s.name,
            tower,
            s.start,
            f"synthetic: {simulator.name} simulator, seed {seed}",
            throws=s.throws,
        )
        for s in sessions
    )
    meta = {
        "synthetic": True,
        "generator": "tower record-synthetic",
        "truth": {
            "simulator": repr(simulator),
            "seed": seed,
            "theta": dict(theta),
            **(truth_extra or {}),
        },
    }
    return Recording(described, meta)
