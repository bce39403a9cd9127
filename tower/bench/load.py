"""``tower bench load``: loading the shipped model against ``json.load`` of the same file.

Both are measured in this process, in turns (``json.load``, then
:func:`~tower.model.load_shipped`, ``rounds`` times after one untimed round that pays the
imports), as CPU time of this process (``time.process_time``). The ratio is taken pair by
pair and its median reported, so a change in the machine's load during the run affects
both sides alike.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any


def run(quick: bool = False) -> dict[str, Any]:
    """Measure and return the figures (see the module docstring)."""
    from tower.model.distilled import load_shipped, shipped_path

    path = shipped_path("marrakesh")
    rounds = 5 if quick else 15
    parsed, loaded = [], []
    for i in range(rounds + 1):
        start = time.process_time()
        with open(path, encoding="utf-8") as fh:
            json.load(fh)
        middle = time.process_time()
        load_shipped("marrakesh")
        if i:  # the first round pays the imports
            parsed.append(middle - start)
            loaded.append(time.process_time() - middle)
    return {
        "model_load_s": statistics.median(loaded),
        "json_load_s": statistics.median(parsed),
        "ratio_model_load_to_json_load": statistics.median(
            a / b for a, b in zip(loaded, parsed, strict=True)
        ),
        "file_bytes": path.stat().st_size,
        "rounds": rounds,
        "clock": "process CPU time, one core",
    }
