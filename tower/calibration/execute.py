"""Running replay tasks: cached on disk, on local processes or on a Dask cluster.

A thin layer over :func:`tower.runs.run_tasks`: each finished replay is appended to a
JSONL cache file (one line per task key, fsynced), so an interrupted calibration resumes
without redoing or duplicating work, and a task whose key is already in the cache is not
run again. A replay that fails with a :class:`tower.errors.TowerError` (pieces lost on
every retry, a clogged tower, a geometry that breaks a validation rule) is cached as a
failure and left out of the fit; any other exception is a bug and propagates.

Examples
--------
>>> from tower.calibration.simulators import BaselineSimulator, PlanSession
>>> from tower.calibration.fit import make_task
>>> import tempfile, pathlib
>>> plan = (PlanSession("s", "empty", (), ({"red": 2},)),)
>>> task = make_task(BaselineSimulator(), {"model.p_fresh": 1.0, "model.p_old": 0.0}, 1, plan)
>>> with tempfile.TemporaryDirectory() as tmp:
...     run = ReplayRunner(BaselineSimulator(), pathlib.Path(tmp) / "c.jsonl", progress=False)
...     run([task], "demo")[0]["outs"]
[[{'red': 2}]]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from tower.calibration.fit import simulate_task
from tower.calibration.simulators import Simulator
from tower.errors import TowerError
from tower.files.outputs import run_header
from tower.runs import Task, read_records, run_tasks


def _replay(simulator: Simulator, task: dict[str, Any]) -> dict[str, Any]:
    """Run one task; a TowerError becomes a cached failure."""
    try:
        return simulate_task(simulator, task)
    except TowerError as exc:
        return {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}


def read_cache(path: Path) -> dict[str, dict[str, Any]]:
    """Finished results by key (the run header and a torn last line are skipped)."""
    if not path.exists():
        return {}
    return {item["key"]: item for item in read_records(path)}


@dataclass
class ReplayRunner:
    """An :data:`tower.calibration.fit.Executor`: cache file plus local pool or Dask.

    Parameters
    ----------
    simulator : Simulator
        Runs every task.
    cache : Path
        JSONL cache of finished replays (created if missing).
    scheduler : str, optional
        Dask scheduler address; local processes if omitted.
    workers : int, optional
        Local processes (default: CPU count); 1 runs in this process.
    progress : bool
        Show a tqdm progress bar.
    """

    simulator: Simulator
    cache: Path
    scheduler: str | None = None
    workers: int | None = None
    progress: bool = True

    def __call__(self, tasks: list[dict[str, Any]], label: str) -> list[dict[str, Any] | None]:
        run_tasks(
            [Task(t["key"], t) for t in tasks],
            partial(_replay, self.simulator),
            self.cache,
            scheduler=self.scheduler,
            workers=self.workers,
            progress=self.progress,
            desc=label,
            header=run_header("calibrate", {"cache": "replays keyed by simulator and theta"}),
        )
        done = read_cache(self.cache)
        return [None if "error" in done[t["key"]] else done[t["key"]] for t in tasks]

    def using(self, simulator: Simulator) -> ReplayRunner:
        """The same runner and cache, running ``simulator`` (its tasks have their own keys)."""
        return replace(self, simulator=simulator)
