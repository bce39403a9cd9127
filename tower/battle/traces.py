"""Battle seasons simulated as traces, for distilling how pawns leave the tower.

A distilled model learns its pawn laws from the traces it is fitted on. Ordinary throws of
keshis say nothing about pawns, and throws of random mixtures rarely look like a battle
(a few pawns, then everything that fell out so far thrown again). :func:`trace_tasks`
draws battle situations at random from a :class:`SeasonMix` and simulates each as a whole
season in one physics tower (:func:`tower.battle.physics.season_task`, the same code as the
cross-check), warm-up rounds included; :func:`trace_task` returns the season as one
:mod:`tower.traces` sequence, so ``tower distill`` can fit on it.

Examples
--------
>>> tasks = trace_tasks(3, seed=1)
>>> [t.key for t in tasks], tasks[0].args["trace"]
([0, 1, 2], True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tower.battle.checker import Situation
from tower.battle.physics import season_task
from tower.marrakesh.wall_battle import PLAYER_COLOURS, Wall
from tower.runs import Task


@dataclass(frozen=True)
class SeasonMix:
    """The battle situations a trace batch draws from, each choice uniform over its tuple.

    The defaults are an assumption about which battles the checker is asked about: any
    number of players, any season, 0 to 3 recruits each, and a tower that is empty (half
    of the seasons: the checker's ``--tower empty`` asks about it, small handfuls into a
    near-empty tower are where the pawn laws were weakest, and such seasons cost little)
    or has seen 1 to 12 ordinary rounds (12 is past the tower's equilibrium, reached after
    about 9 throws).
    Walls do not change what is thrown, so every wall is left unrepaired.
    """

    players: tuple[int, ...] = (1, 2, 3, 4)
    seasons: tuple[int, ...] = (1, 2, 3)
    recruits: tuple[int, ...] = (0, 1, 2, 3)
    warmups: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 6, 8, 12)

    def draw(self, rng: random.Random) -> tuple[Situation, int]:
        """One situation and its number of warm-up rounds."""
        order = PLAYER_COLOURS[: rng.choice(self.players)]
        season = rng.choice(self.seasons)
        recruited = {p: rng.choice(self.recruits) for p in order}
        situation = Situation(season, order, recruited, {p: Wall(0) for p in order})
        return situation, rng.choice(self.warmups)

    @classmethod
    def with_warmups(cls, text: str | None) -> SeasonMix:
        """The default mix, or one drawing warm-up rounds from the comma list ``text``
        (repeats weigh a value more).

        >>> SeasonMix.with_warmups("0,0,4").warmups
        (0, 0, 4)
        """
        from tower.battle.inputs import BadNotation

        if text is None:
            return cls()
        try:
            drawn = tuple(int(w) for w in text.split(","))
        except ValueError:
            raise BadNotation(f"--warmups must be a comma list, got {text!r}") from None
        if not drawn or min(drawn) < 0:
            raise BadNotation(f"--warmups needs rounds >= 0, got {text!r}")
        return cls(warmups=drawn)


def trace_tasks(
    seasons: int,
    *,
    seed: int = 0,
    preset: str = "marrakesh",
    params_file: Path | None = None,
    mix: SeasonMix | None = None,
    experts: bool = False,
) -> list[Task]:
    """One task per season, keyed by its index (the trace's ``seq``); season ``j``'s
    situation comes from ``random.Random(f"situation/{seed}/{j}")``.

    With ``experts`` the game also has Gems & Experts: every warm-up round throws 1 to 5
    expert keshis with its keshis (:func:`tower.battle.physics.expert_keshis`). Battles
    throw only pawns and keshis, as without. Off, the tasks are those of earlier batches.
    """
    mix = mix or SeasonMix()
    tasks = []
    for j in range(seasons):
        situation, warmup = mix.draw(random.Random(f"situation/{seed}/{j}"))
        args = {
            "situation": situation.to_json(),
            "seed": seed,
            "replicate": j,
            "key": j,
            "preset": preset,
            "warmup": warmup,
            "params_file": str(params_file) if params_file is not None else "",
            "trace": True,
        }
        if experts:
            args["experts"] = True
        tasks.append(Task(j, args))
    return tasks


def trace_task(args: dict[str, Any]) -> dict[str, Any]:
    """Simulate one task of :func:`trace_tasks`; return its trace record."""
    return season_task(args)["trace"]


def run_traces(
    seasons: int, out: str | Path, *, seed: int = 0, preset: str = "marrakesh",
    params_file: Path | None = None, mix: SeasonMix | None = None, experts: bool = False,
    workers: int | None = None, scheduler: str | None = None, progress: bool = True,
    force: bool = False,
) -> dict[str, int]:  # fmt: skip
    """Run, or resume, ``seasons`` seasons of :func:`trace_tasks` into the trace file
    ``out`` (:func:`tower.runs.run_tasks`: this process, ``workers`` local processes or the
    Dask cluster at ``scheduler``). Returns the run summary (``done``, ``skipped``)."""
    from tower.files.outputs import run_header
    from tower.geometry import load_preset
    from tower.physics.params_file import apply_params
    from tower.physics.world import NUMERICS_VERSION
    from tower.runs import run_tasks

    mix = mix or SeasonMix()
    spec, params = apply_params(load_preset(preset), params_file)  # a bad file fails once
    tasks = trace_tasks(
        seasons, seed=seed, preset=preset, params_file=params_file, mix=mix, experts=experts
    )
    settings = {"seed": seed, "spec_toml": spec.to_toml(), "params": params.to_json(),
                "warmups": list(mix.warmups), "numerics": NUMERICS_VERSION}  # fmt: skip
    if experts:  # absent when off, so earlier batches keep their header
        settings["experts"] = True
    return run_tasks(
        tasks, trace_task, out, scheduler=scheduler, workers=workers, progress=progress,
        key_field="seq", desc="battle seasons", header=run_header("battle traces", settings),
        force=force,
    )  # fmt: skip
