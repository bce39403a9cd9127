"""Expert keshis through simulated towers: the loop of :mod:`tower.analysis.experts` in physics.

The same :func:`~tower.analysis.experts.expert_record` runs unchanged on a
:class:`~tower.physics.adapter.PhysicsTowerModel`: each sequence is one fresh simulated
tower whose seed comes from the sequence's own generator, seeded with
:func:`tower.physics.sequences.sequence_seed` of the batch seed and the sequence index,
so a sequence is reproducible alone and the records do not depend on how the batch was
split over processes.

Sequences run through :func:`tower.runs.run_tasks`: local processes by default, a Dask
cluster with a scheduler address, one JSON line per finished sequence in a resumable log
that starts with a run header of every setting the records depend on (tower, parameters,
``k``, keshis, rounds, seed, retries). Asking for more sequences later extends the log;
other settings are refused unless forced (:mod:`tower.files.outputs`).

A throw in which the simulation loses a piece is thrown again from the same tower, up to
:data:`RETRIES` times, as a player re-throws a piece that missed; the records count these
re-throws, and a sequence that still loses one stops the batch loudly.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tower.analysis.experts import ExpertRecord, expert_record
from tower.runs import Task

#: Re-throws allowed for one throw that loses a piece.
RETRIES = 3
#: The command named in the log's run header.
COMMAND = "stats --experts --physics"


@dataclass(frozen=True)
class PhysicsExperts:
    """Simulated expert sequences, the re-throws they needed, and how many of the
    sequences this run simulated (the others came from the log)."""

    records: list[ExpertRecord]
    rethrows: int
    simulated: int

    @property
    def rounds(self) -> int:
        """Rounds (throws) simulated in all."""
        return sum(len(r.out) for r in self.records)


def expert_tasks(
    spec: Any,
    params: Any,
    *,
    k: int,
    keshis: int,
    rounds: int,
    sequences: int,
    seed: int,
    retries: int = RETRIES,
) -> list[Task]:
    """One task per sequence, keyed by its index ``seq`` (plain, picklable arguments)."""
    from tower.physics.sequences import sequence_seed

    base = {
        "spec_toml": spec.to_toml(),
        "params": params.to_json(),
        "k": k,
        "keshis": keshis,
        "rounds": rounds,
        "retries": retries,
    }
    return [Task(i, {**base, "seq": i, "seed": sequence_seed(seed, i)}) for i in range(sequences)]


def expert_task(args: dict[str, Any]) -> dict[str, Any]:
    """Run one task of :func:`expert_tasks`: one sequence in a fresh simulated tower."""
    from tower.physics.adapter import PhysicsTowerModel
    from tower.physics.params import PhysicsParams
    from tower.physics.sequences import cached_geometry

    geometry = cached_geometry(args["spec_toml"])
    params = PhysicsParams.from_json(args["params"])
    with PhysicsTowerModel(
        geometry.spec, params, geometry=geometry, retries=int(args["retries"])
    ) as model:
        rec = expert_record(
            model, args["k"], args["keshis"], args["rounds"], random.Random(args["seed"])
        )
        sim_seed = model.sim.seed if model.sim is not None else None
    return {
        "seq": args["seq"],
        "seed": args["seed"],
        "sim_seed": sim_seed,
        "thrown": list(rec.thrown),
        "out": list(rec.out),
        "stays": list(rec.stays),
        "stuck_at_end": list(rec.stuck_at_end),
        "rethrows": model.rethrows,
    }


def record_from_json(rec: dict[str, Any]) -> ExpertRecord:
    """The :class:`ExpertRecord` of one log line."""
    return ExpertRecord(
        tuple(rec["thrown"]), tuple(rec["out"]), tuple(rec["stays"]), tuple(rec["stuck_at_end"])
    )


def physics_expert_rounds(
    spec: Any,
    params: Any,
    k: int,
    *,
    keshis: int = 12,
    rounds: int = 12,
    sequences: int = 100,
    seed: int = 0,
    retries: int = RETRIES,
    log: Path | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    force: bool = False,
) -> PhysicsExperts:
    """Run (or resume from ``log``) ``sequences`` simulated expert sequences.

    Parameters
    ----------
    spec, params : TowerSpec, PhysicsParams
        The simulated tower.
    k, keshis, rounds, seed
        As :func:`~tower.analysis.experts.expert_rounds` (sequence ``i`` is seeded with
        ``sequence_seed(seed, i)``).
    log : path, optional
        Resumable JSONL log of the sequences; a temporary file if omitted.
    workers, scheduler
        Those of :func:`tower.runs.run_tasks`.
    force : bool
        Replace a log written with other settings.
    """
    from tower.files.outputs import run_header
    from tower.physics.world import NUMERICS_VERSION
    from tower.runs import read_records, run_tasks

    tasks = expert_tasks(
        spec, params, k=k, keshis=keshis, rounds=rounds, sequences=sequences, seed=seed,
        retries=retries,
    )  # fmt: skip
    settings = {key: tasks[0].args[key] for key in ("spec_toml", "params", "k", "keshis")}
    settings |= {"rounds": rounds, "retries": retries, "seed": seed, "numerics": NUMERICS_VERSION}
    with tempfile.TemporaryDirectory() as tmp:
        path = log if log is not None else Path(tmp) / "physics-experts.jsonl"
        summary = run_tasks(
            tasks,
            expert_task,
            path,
            scheduler=scheduler,
            workers=workers,
            progress=progress,
            key_field="seq",
            desc="expert sequences",
            header=run_header(COMMAND, settings),
            force=force,
        )
        found = {rec["seq"]: rec for rec in read_records(path)}
    done = [found[t.key] for t in tasks]
    return PhysicsExperts(
        [record_from_json(rec) for rec in done],
        sum(int(rec["rethrows"]) for rec in done),
        summary["done"],
    )
