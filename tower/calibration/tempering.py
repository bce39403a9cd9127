"""The learned likelihood's tempering, calibrated on recordings as long as real ones.

Each ensemble member's composite log-likelihood is tempered by ``k = d / tr(H^-1 J)``
(:func:`tower.calibration.surrogate.godambe_temper`), measured on the bank's 36-throw
sequences. ``J/H`` grows with a sequence's length (the numbers are in the surrogate's
docstring), so for a 200-throw recording that ``k`` is too sharp, and what keeps the
intervals near their nominal coverage is partly the pooling of the members. So the
tempering is calibrated as a whole, as Syring & Martin (Biometrika 2019, "Calibrating
general posterior credible regions") calibrate a general posterior's learning rate:

- every member's Godambe ``k`` is multiplied by one factor ``c`` (:func:`scaled`);
- ``c`` is the largest value of a grid for which, over physics recordings of the
  recommended protocol at truths drawn from the prior, nominal 90% intervals hold the truth
  in at least 90% of the parameters and of the pinned directions (:func:`choose`); if no
  value does, the smallest.

The recordings are made as the coverage check's are (:mod:`tower.calibration.sbc`), with
their own Sobol seed, so ``tower calibrate coverage`` stays a check on recordings that the
tempering never saw.

Examples
--------
>>> rows = [{"factor": 1.0, "parameters": 0.89, "pinned_directions": 0.84},
...         {"factor": 0.8, "parameters": 0.92, "pinned_directions": 0.91},
...         {"factor": 0.6, "parameters": 0.95, "pinned_directions": 0.96}]
>>> choose(rows)
0.8
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tower.calibration.surrogate import Surrogate, load_surrogate
from tower.errors import TowerError

#: Factors tried, largest (sharpest) first.
GRID: tuple[float, ...] = (1.0, 0.85, 0.7, 0.55)
#: Coverage that the chosen factor's intervals must reach on the tempering recordings.
TARGET = 0.9
#: The coverage counts the rule reads.
COUNTS = ("parameters", "pinned_directions")
#: What :func:`run_temper` writes into its folder (beside each factor's ``factor-<c>/``).
OUTPUTS = ("surrogate.json", "tempering.md", "tempering.json")


def scaled(surrogate: Surrogate, factor: float, calibration: dict[str, Any] | None = None
           ) -> Surrogate:  # fmt: skip
    """``surrogate`` with every member's Godambe tempering multiplied by ``factor``.

    The Godambe values are kept in the provenance, so scaling a scaled surrogate starts
    from them again rather than compounding.
    """
    if not 0 < factor <= 1:
        raise ValueError(f"a tempering factor lies in (0, 1], got {factor}")
    godambe = surrogate.provenance.get("godambe_temper", list(surrogate.temper))
    provenance = {**surrogate.provenance, "godambe_temper": godambe, "temper_factor": factor}
    if calibration is not None:
        provenance["temper_calibration"] = calibration
    return dataclasses.replace(
        surrogate, temper=tuple(k * factor for k in godambe), provenance=provenance
    )


def choose(rows: Sequence[dict[str, Any]]) -> float:
    """The largest factor whose coverage reaches :data:`TARGET` in every count of
    :data:`COUNTS`; if none does, the smallest factor tried."""
    good = [r["factor"] for r in rows if all(r[c] >= TARGET for c in COUNTS)]
    return max(good) if good else min(r["factor"] for r in rows)


def calibrate_temper(
    surrogate_path: str | Path, recordings_dir: Path, out_dir: Path, *,
    grid: Sequence[float] = GRID, workers: int | None = None, scheduler: Any = None,
    progress: bool = True,
) -> tuple[Surrogate, list[dict[str, Any]]]:  # fmt: skip
    """Fit the recordings of ``recordings_dir`` (``recordings.jsonl`` of a coverage run)
    with the surrogate tempered by each factor of ``grid``; returns the surrogate at the
    chosen factor and one row per factor. Each factor's fits are resumable files in
    ``out_dir/factor-<c>/``."""
    from tower.calibration.sbc import CoverageSettings, run_bank_coverage

    source = recordings_dir / "recordings.jsonl"
    if not source.is_file():
        raise TowerError(
            f"{source}: no recordings (make them with `tower calibrate coverage --seed S "
            "--out DIR`, at a seed the coverage check does not use)"
        )
    with source.open(encoding="utf-8") as fh:
        made = json.loads(fh.readline())["header"]["settings"]
    settings = CoverageSettings(seed=int(made["seed"]), throws=int(made["throws"]),
                                truth_throws=int(made["truth_throws"]),
                                preset=str(made["preset"]))  # fmt: skip
    base = load_surrogate(surrogate_path)
    rows = []
    for factor in sorted(set(grid), reverse=True):
        folder = out_dir / f"factor-{factor:g}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / "recordings.jsonl")
        candidate = folder / "surrogate.json"
        scaled(base, factor).save(candidate, force=True)
        summary = run_bank_coverage(folder, settings, candidate, workers=workers,
                                    scheduler=scheduler, progress=progress,
                                    new_recordings=False)  # fmt: skip
        rows.append({
            "factor": factor,
            **{c: summary[c]["coverage"] for c in ("parameters", "pinned_directions",
                                                   "key_statistics")},
            "recordings": summary["recordings"],
            "median_pinned": summary["median_pinned"],
            "median_narrowing_inside": summary["median_narrowing_inside"],
        })  # fmt: skip
    factor = choose(rows)
    calibration = {
        "recordings": f"{source} (Sobol seed {settings.seed}, {rows[0]['recordings']} fitted, "
        f"{settings.throws} throws each)",
        "rule": f"the largest factor of {sorted(set(grid), reverse=True)} whose nominal 90% "
        f"intervals hold the truth in at least {TARGET:.0%} of {' and of '.join(COUNTS)}",
        "table": rows,
    }
    return scaled(base, factor, calibration), rows


def run_temper(
    surrogate_path: str | Path, recordings_dir: Path, out_dir: Path, *,
    grid: Sequence[float] = GRID, workers: int | None = None, scheduler: Any = None,
    progress: bool = True,
) -> float:  # fmt: skip
    """:func:`calibrate_temper`, then write :data:`OUTPUTS` into ``out_dir``: the tempered
    surrogate and the table. Returns the factor chosen."""
    from tower.files.outputs import write_text

    chosen, rows = calibrate_temper(
        surrogate_path, recordings_dir, out_dir, grid=grid, workers=workers,
        scheduler=scheduler, progress=progress,
    )  # fmt: skip
    factor = float(chosen.provenance["temper_factor"])
    chosen.save(out_dir / "surrogate.json", force=True)
    write_text(out_dir / "tempering.md", markdown(rows, factor), checked=True)
    table = json.dumps({"chosen": factor, "rows": rows}, indent=2) + "\n"
    write_text(out_dir / "tempering.json", table, checked=True)
    return factor


def markdown(rows: Sequence[dict[str, Any]], chosen: float) -> str:
    """The table of :func:`calibrate_temper` and the factor chosen."""
    lines = [
        "# Tempering of the learned likelihood, calibrated on physics recordings",
        "",
        "| factor | parameters | pinned directions | key statistics | median pinned | "
        "median narrowing of pieces inside |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['factor']:g}{' (chosen)' if r['factor'] == chosen else ''} | "
            f"{r['parameters']:.1%} | {r['pinned_directions']:.1%} | {r['key_statistics']:.1%} "
            f"| {r['median_pinned']:g} | {r['median_narrowing_inside']:.3f} |"
        )
    return "\n".join([*lines, "", json.dumps({"chosen": chosen}), ""])
