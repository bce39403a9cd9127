"""Calibration of the physics by the bank engine: coverage on fresh physics recordings (slow).

116 recordings of 200 throws by the recommended protocol, at truths drawn from the prior
(a Sobol design seed no bank uses), each fitted by the bank engine with the shipped
surrogate; the true key statistics come from an independent 100-throw physics sequence at
each truth. The recordings are physics that matters, so they are committed
(``calibration/coverage/recordings.jsonl``, made by ``tower calibrate coverage --out
calibration/coverage``): the test copies them and resumes, simulating only the recordings
not there yet (about 20 CPU seconds each), then fits all of them (seconds each): at least
100 fit (the others clogged).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tower.calibration.sbc import CoverageSettings, run_bank_coverage
from tower.calibration.surrogate import DEFAULT_SURROGATE

pytestmark = pytest.mark.slow

COMMITTED = Path(__file__).resolve().parent.parent / "calibration" / "coverage"


def test_bank_engine_coverage_on_fresh_physics_recordings(tmp_path: Path) -> None:
    settings = CoverageSettings(recordings=116, throws=200, truth_throws=100, seed=7001)
    shutil.copy(COMMITTED / "recordings.jsonl", tmp_path / "recordings.jsonl")
    summary = run_bank_coverage(tmp_path, settings, DEFAULT_SURROGATE, progress=False)
    print("\n" + (tmp_path / "coverage.md").read_text())
    assert summary["recordings"] >= 100, summary["truths_left_out"]
    for kind in ("parameters", "pinned_directions", "key_statistics"):
        assert 0.85 <= summary[kind]["coverage"] <= 0.95, (kind, summary[kind])
    assert summary["median_pinned"] >= 3
    assert summary["median_narrowing_inside"] <= 0.15
