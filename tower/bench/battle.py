"""``tower battle`` with its defaults against ``tower --help``, each a whole process.

The two commands run in turns (``--help``, then ``battle``, ``rounds`` times after one
untimed pair), each in a new Python process started as the ``tower`` command starts, so
both pay the interpreter's start and the CLI's imports. Figures are the medians of wall
time and of the child's CPU time (user + system, ``resource.RUSAGE_CHILDREN``); the ratios
are taken pair by pair and their medians reported. The battle writes its plot into a
temporary folder.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

#: How the ``tower`` command starts (the console script calls this).
TOWER = [sys.executable, "-c", "from tower.cli import main; main()"]


def _timed(argv: list[str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``argv``; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def run(quick: bool = False) -> dict[str, Any]:
    """Measure and return the figures (see the module docstring)."""
    rounds = 2 if quick else 5
    helps, battles = [], []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(rounds + 1):
            help_run = _timed([*TOWER, "--help"], folder)
            battle_run = _timed([*TOWER, "battle", "--plot", os.path.join(folder, "b.png")], folder)
            if i:  # the first pair fills the file caches
                helps.append(help_run)
                battles.append(battle_run)

    def median(runs: list[tuple[float, float]], k: int) -> float:
        return statistics.median(r[k] for r in runs)

    def ratio(k: int) -> float:
        return statistics.median(b[k] / h[k] for b, h in zip(battles, helps, strict=True))

    return {
        "battle_wall_s": median(battles, 0),
        "help_wall_s": median(helps, 0),
        "ratio_battle_to_help_wall": ratio(0),
        "battle_cpu_s": median(battles, 1),
        "help_cpu_s": median(helps, 1),
        "ratio_battle_to_help_cpu": ratio(1),
        "rounds": rounds,
    }
