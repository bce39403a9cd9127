"""The physics bank: physics throws at many parameter points, made once and kept.

A calibration scores a recording throw by throw with a likelihood learned from simulated
throws (:mod:`tower.calibration.surrogate`). Those throws are made here, once, and kept in
a committed file, so that compute accumulates across machines instead of dying with a
cache.

**What a bank point is.** A parameter point ``theta`` (a scrambled Sobol point in the unit
cube of the prior box; the bank's parameters are those a keshi recording fits,
:func:`tower.calibration.calibrate.keshi_fit_names`), and one sequence of the recording
protocol at it: an empty tower, then ``throws`` throws of ``size`` keshis. Each throw is
stored as the **ages of the pieces that came out**: 0 for a piece thrown in that very
throw, ``k`` for one thrown ``k`` throws before. That is the whole hidden history (every
piece's entry and exit), so the view of *any* recording protocol that throws ``size``
pieces at a time follows by painting colours on the throws afterwards: colours are labels,
the physics never sees them.

A sequence whose tower holds more than ``max_inside`` pieces stops there (``status``
``clogged``); one whose simulation loses a piece in every retry stops too (``lost``). The
throws made before are kept: they are valid transitions at that ``theta``. Re-throws (the
guard of :meth:`tower.physics.TowerSim.throw`) are counted per point.

**The file** (``tower.bank/1``) is a resumable JSONL result file of
:func:`tower.runs.batch.run_tasks`: a run header whose settings are the provenance
(numerics version, preset, parameters and prior ranges, protocol, design seed), then one
line per point in point order. Building more points later appends to the same file;
a rebuild from the same settings gives the same lines.

Examples
--------
>>> settings = BankSettings(points=3, throws=2)
>>> [p.name for p in settings.parameters()][:2]
['physics.friction_cardboard', 'physics.friction_piece']
>>> u = design(settings, 0, 3)
>>> u.shape, bool((u >= 0).all() and (u < 1).all())
((3, 11), True)
>>> ages_inside([[0], [1, 0]], size=2)  # 2 in, 1 out; 2 in, the old one and 1 out
[[], [1], [1]]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tower.calibration.simulators import Parameter, split_theta
from tower.errors import InputFileError, TowerError

SCHEMA = "tower.bank/1"

#: The bank shipped with the package, for the ``marrakesh`` preset.
DEFAULT_BANK = Path(__file__).parent / "data" / "bank-marrakesh.jsonl"


class BankError(TowerError):
    """A bank file that cannot be used for the asked calibration."""


@dataclass(frozen=True)
class BankSettings:
    """What determines every line of a bank (its provenance)."""

    preset: str = "marrakesh"
    points: int = 2048
    throws: int = 36
    size: int = 12
    max_inside: int = 60
    retries: int = 5
    design_seed: int = 20261206

    def parameters(self) -> tuple[Parameter, ...]:
        from tower.calibration.simulators import keshi_fit_names, physics_parameters

        names = keshi_fit_names(self.preset)
        return tuple(p for p in physics_parameters(self.preset) if p.name in names)

    def header_settings(self) -> dict[str, Any]:
        """The run header's settings: everything but the number of points (more points
        extend the same file)."""
        from tower.physics.world import NUMERICS_VERSION

        settings = {k: v for k, v in asdict(self).items() if k != "points"}
        return {
            "schema": SCHEMA,
            **settings,
            "numerics": NUMERICS_VERSION,
            "protocol": f"empty tower, then {self.throws} throws of {self.size} keshis",
            "parameters": [[p.name, p.low, p.high] for p in self.parameters()],
            "design": "scipy.stats.qmc.Sobol(scramble=True, seed=design_seed)",
        }


def design(settings: BankSettings, start: int, stop: int) -> np.ndarray:
    """Unit-cube points ``start`` to ``stop`` of the bank's Sobol design, ``(stop-start, d)``."""
    from scipy.stats import qmc

    sobol = qmc.Sobol(len(settings.parameters()), scramble=True, seed=settings.design_seed)
    if start:
        sobol.fast_forward(start)
    with warnings.catch_warnings():  # a bank grows by any number of points, not 2**m
        warnings.filterwarnings("ignore", "The balance properties", UserWarning)
        return sobol.random(stop - start)


def point_seed(settings: BankSettings, index: int) -> int:
    """The physics seed of bank point ``index``."""
    return int(np.random.SeedSequence([settings.design_seed, index]).generate_state(1)[0])


def point_task(settings: BankSettings, index: int, u: np.ndarray) -> dict[str, Any]:
    """The self-contained task of one bank point."""
    params = settings.parameters()
    theta = {p.name: float(p.low + x * (p.high - p.low)) for p, x in zip(params, u, strict=True)}
    return {
        "key": index,
        "theta": theta,
        "seed": point_seed(settings, index),
        "preset": settings.preset,
        "throws": settings.throws,
        "size": settings.size,
        "max_inside": settings.max_inside,
        "retries": settings.retries,
    }


def simulate_point(task: dict[str, Any]) -> dict[str, Any]:
    """Run one bank point's sequence; the bank line (module-level, so it pickles)."""
    from tower.calibration.simulators import _preset
    from tower.physics.params import PhysicsParams
    from tower.physics.sim import EscapeError, NonFiniteStateError, TowerSim
    from tower.pieces import Kind, Piece

    geometry, physics = split_theta(task["theta"])
    spec = _preset(task["preset"]).with_values(geometry)
    sim = TowerSim(spec, PhysicsParams().with_values(physics), seed=task["seed"])
    entered: dict[int, int] = {}
    ages: list[list[int]] = []
    status, rethrows = "ok", 0
    keshi = Piece(Kind.KESHI, "green")
    try:
        for t in range(task["throws"]):
            try:
                result = sim.throw([keshi] * task["size"], retries=task["retries"])
            except (EscapeError, NonFiniteStateError):
                status = "lost"
                break
            rethrows += result.rethrows
            for i in result.thrown:
                entered[i] = t
            ages.append(sorted(t - entered[i] for i in result.out))
            if len(result.inside) > task["max_inside"]:
                status = "clogged"
                break
    finally:
        sim.close()
    return {
        "key": task["key"],
        "theta": task["theta"],
        "seed": task["seed"],
        "status": status,
        "rethrows": rethrows,
        "ages": ages,
    }


def build(
    path: str | Path,
    settings: BankSettings,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    force: bool = False,
) -> dict[str, Any]:
    """Build (or extend, or resume) the bank at ``path`` to ``settings.points`` points."""
    from tower.files.outputs import run_header
    from tower.runs.batch import Task, run_tasks

    u = design(settings, 0, settings.points)
    tasks = [Task(i, point_task(settings, i, u[i])) for i in range(settings.points)]
    return run_tasks(
        tasks,
        simulate_point,
        path,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
        desc="bank points",
        header=run_header("calibrate bank", settings.header_settings()),
        force=force,
    )


def ages_inside(ages: Sequence[Sequence[int]], size: int) -> list[list[int]]:
    """The ages of the pieces inside *before* each throw, and after the last one.

    ``ages[t]`` are the ages of the pieces out of throw ``t``; every throw adds ``size``
    pieces of age 0. Returns ``len(ages) + 1`` lists, ages measured at that throw (a piece
    thrown at throw ``s`` has age ``t - s`` before throw ``t``).
    """
    entered: dict[int, int] = {}  # throw index -> pieces of it still inside
    before: list[list[int]] = []
    for t, out in enumerate([*ages, []]):
        before.append(sorted(t - s for s, n in entered.items() for _ in range(n)))
        if t == len(ages):
            break
        entered[t] = size
        for a in out:
            entered[t - a] -= 1
        entered = {s: n for s, n in entered.items() if n}
    return before


@dataclass(frozen=True)
class Bank:
    """A bank read from its file: settings, unit-cube points and each point's throws."""

    settings: dict[str, Any]
    parameters: tuple[Parameter, ...]
    u: np.ndarray  # (n, d)
    status: tuple[str, ...]
    ages: tuple[list[list[int]], ...]
    rethrows: int
    path: str

    @property
    def throws(self) -> int:
        return sum(len(a) for a in self.ages)

    def provenance(self) -> dict[str, Any]:
        return {
            "path": Path(self.path).name,
            "points": len(self.u),
            "physics_throws": self.throws,
            "clogged": self.status.count("clogged"),
            "lost": self.status.count("lost"),
            "rethrows": self.rethrows,
            **self.settings,
        }


def read_bank(path: str | Path = DEFAULT_BANK) -> Bank:
    """Read and check a bank file (never unpickled: JSON lines only)."""
    import json

    from tower.files.inputs import read_bytes

    path = Path(path)
    lines = read_bytes(path).split(b"\n")
    try:
        head = json.loads(lines[0])["header"]
        settings = head["settings"]
    except (ValueError, KeyError, TypeError):
        raise InputFileError(str(path), "no bank run header", line=1) from None
    if settings.get("schema") != SCHEMA:
        raise InputFileError(
            str(path), f"schema {settings.get('schema')!r}, expected {SCHEMA!r}", line=1,
            field="schema",
        )  # fmt: skip
    from tower.calibration.simulators import Parameter

    params = tuple(Parameter(n, float(lo), float(hi)) for n, lo, hi in settings["parameters"])
    lo = np.array([p.low for p in params])
    span = np.array([p.high - p.low for p in params])
    us, status, ages, rethrows = [], [], [], 0
    for lineno, raw in enumerate(lines[1:-1], start=2):
        try:
            rec = json.loads(raw)
            theta = [float(rec["theta"][p.name]) for p in params]
            st, ag = str(rec["status"]), [[int(a) for a in row] for row in rec["ages"]]
            rethrows += int(rec["rethrows"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputFileError(str(path), f"bad bank line ({exc})", line=lineno) from None
        us.append((np.array(theta) - lo) / span)
        status.append(st)
        ages.append(ag)
    return Bank(
        settings, params, np.array(us).reshape(-1, len(params)), tuple(status), tuple(ages),
        rethrows, str(path),
    )  # fmt: skip
