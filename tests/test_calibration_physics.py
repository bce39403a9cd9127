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


@pytest.fixture(scope="module")
def coverage(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The coverage run, once for the tests below: its summary, its report printed."""
    out = tmp_path_factory.mktemp("coverage")
    settings = CoverageSettings(recordings=116, throws=200, truth_throws=100, seed=7001)
    shutil.copy(COMMITTED / "recordings.jsonl", out / "recordings.jsonl")
    summary = run_bank_coverage(out, settings, DEFAULT_SURROGATE, progress=False)
    print("\n" + (out / "coverage.md").read_text())
    return summary


def test_bank_engine_intervals_hold_the_truth_for_parameters_and_directions(
    coverage: dict,
) -> None:
    assert coverage["recordings"] >= 100, coverage["truths_left_out"]
    for kind in ("parameters", "pinned_directions"):
        assert 0.85 <= coverage[kind]["coverage"] <= 0.95, (kind, coverage[kind])


# The key statistics' intervals are a little too wide (96.1 % on the committed run) and a
# 200-throw recording pins one direction, not three: the targets of "Calibration from
# every throw" (issue 30), which is blocked on them (calibration/information/README.md).
# Strict: the day these hold, this check fails until the marker goes.
@pytest.mark.xfail(
    strict=True,
    reason="issue 30 (blocked): key-statistic coverage and "
    "the information targets are above what a 200-throw recording holds",
)
def test_bank_engine_key_statistics_and_information_targets(coverage: dict) -> None:
    assert 0.85 <= coverage["key_statistics"]["coverage"] <= 0.95, coverage["key_statistics"]
    assert coverage["median_pinned"] >= 3
    assert coverage["median_narrowing_inside"] <= 0.15
