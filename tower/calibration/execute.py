"""Running replay tasks: cached on disk, on local processes or on a Dask cluster.

Each finished replay is appended to a JSONL cache file (one line per task key, flushed and
fsynced), so an interrupted calibration resumes without redoing or duplicating work: a
task whose key is already in the cache is not run again. A replay that fails with a
:class:`tower.errors.TowerError` (a piece escaping the simulation, a geometry that breaks a
validation rule) is cached as a failure and left out of the fit; any other exception is a
bug and propagates.

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

import json
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tower.calibration.fit import simulate_task
from tower.calibration.recording import append_line, atomic_write_text
from tower.calibration.simulators import Simulator
from tower.errors import InputFileError, TowerError


def _replay(simulator: Simulator, task: dict[str, Any]) -> dict[str, Any]:
    """Run one task; a TowerError becomes a cached failure."""
    try:
        return simulate_task(simulator, task)
    except TowerError as exc:
        return {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}


def read_cache(path: Path) -> dict[str, dict[str, Any]]:
    """Finished results by key. A torn last line (killed mid-write) is ignored."""
    done: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return done
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for lineno, line in enumerate(lines, start=1):
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            if lineno == len(lines) and not line.endswith("\n"):
                break
            raise InputFileError(str(path), "corrupt cache line", line=lineno) from None
        done[item["key"]] = item
    return done


def _drop_torn_line(path: Path) -> None:
    """Cut a last line left half-written by a killed run (atomically)."""
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            atomic_write_text(path, text[: text.rfind("\n") + 1])


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
        done = read_cache(self.cache)
        todo = {t["key"]: t for t in tasks if t["key"] not in done}
        if todo:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            _drop_torn_line(self.cache)
            bar = _bar(len(todo), label, self.progress)
            for result in self._run(list(todo.values())):
                append_line(self.cache, json.dumps(result, separators=(",", ":")) + "\n")
                done[result["key"]] = result
                bar.update(1)
            bar.close()
        return [None if "error" in done[t["key"]] else done[t["key"]] for t in tasks]

    def failures(self, tasks: list[dict[str, Any]]) -> list[str]:
        """Error messages of the tasks that failed."""
        done = read_cache(self.cache)
        return [done[t["key"]]["error"] for t in tasks if "error" in done.get(t["key"], {})]

    def _run(self, tasks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        fn = partial(_replay, self.simulator)
        if self.scheduler:
            from distributed import Client
            from distributed import as_completed as dask_completed

            with Client(self.scheduler) as client:
                futures = client.map(fn, tasks, key=[f"replay-{t['key']}" for t in tasks])
                for future in dask_completed(futures):
                    yield future.result()
            return
        workers = self.workers or os.cpu_count() or 1
        if workers == 1 or len(tasks) == 1:
            yield from map(fn, tasks)
            return
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(fn, t) for t in tasks]
            for future in as_completed(futures):
                yield future.result()


def _bar(total: int, label: str, show: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="replay", leave=False, disable=not show)
