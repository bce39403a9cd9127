"""The learned likelihood's tempering calibrated on recordings (tower.calibration.tempering)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tower.calibration.surrogate import DEFAULT_SURROGATE, load_surrogate
from tower.calibration.tempering import choose, run_temper, scaled

COVERAGE = Path(__file__).parents[1] / "calibration" / "coverage" / "recordings.jsonl"


def test_a_factor_scales_the_godambe_tempering_without_compounding():
    base = load_surrogate()
    godambe = base.provenance.get("godambe_temper", base.temper)
    half = scaled(base, 0.5)
    assert np.allclose(half.temper, [k * 0.5 for k in godambe])
    again = scaled(half, 0.8)
    assert np.allclose(again.temper, [k * 0.8 for k in godambe])
    assert again.provenance["temper_factor"] == 0.8
    with pytest.raises(ValueError, match="factor"):
        scaled(base, 1.5)


def test_the_rule_takes_the_sharpest_factor_that_covers():
    rows = [{"factor": 1.0, "parameters": 0.93, "pinned_directions": 0.86},
            {"factor": 0.7, "parameters": 0.95, "pinned_directions": 0.90},
            {"factor": 0.5, "parameters": 0.97, "pinned_directions": 0.97}]  # fmt: skip
    assert choose(rows) == 0.7
    short = [{**r, "pinned_directions": 0.8} for r in rows]
    assert choose(short) == 0.5


def test_a_smaller_factor_widens_every_fit(tmp_path):
    """Three committed coverage recordings fitted at two factors: the chosen surrogate is
    written with its table, and the smaller factor gives wider posteriors."""
    lines = COVERAGE.read_text().splitlines()
    ok = [line for line in lines[1:] if json.loads(line)["status"] == "ok"][:3]
    src = tmp_path / "recordings"
    src.mkdir()
    (src / "recordings.jsonl").write_text("\n".join([lines[0], *ok]) + "\n")
    out = tmp_path / "out"
    factor = run_temper(DEFAULT_SURROGATE, src, out, grid=(1.0, 0.5), workers=1,
                        progress=False)  # fmt: skip
    table = json.loads((out / "tempering.json").read_text())
    assert table["chosen"] == factor and [r["factor"] for r in table["rows"]] == [1.0, 0.5]
    chosen = load_surrogate(out / "surrogate.json")
    assert chosen.provenance["temper_factor"] == factor

    def widths(f: str) -> float:
        fits = [json.loads(x) for x in (out / f / "fits.jsonl").read_text().splitlines()[1:]]
        assert len(fits) == 3
        return float(np.mean([x["widths"][0] for x in fits]))

    # the best-pinned direction: half the tempering, about sqrt(2) times the width
    assert widths("factor-0.5") > 1.2 * widths("factor-1")
