"""`tower calibrate --model-sims N` writes the calibrated tower as a model file."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tower.cli import cli
from tower.model import open_model

REC = Path(__file__).parent.parent / "calibration" / "recordings" / "synthetic-200.csv"


def test_calibrate_writes_model_json_at_the_posterior_medians(tmp_path: Path) -> None:
    out = tmp_path / "cal"
    argv = ["calibrate", str(REC), "--out", str(out), "--quiet", "--checks", "4",
            "--model-sims", "2", "--workers", "1"]  # fmt: skip
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    model = open_model(str(out / "model.json"))
    provenance = json.loads((out / "model.json").read_text())["provenance"]
    assert provenance["counts"]["sequences"] == 4
    params = json.loads((out / "params.json").read_text())
    assert provenance["params_from"].startswith("--params params.json (geometry overrides")
    assert model.doc["params"]["friction_piece"] == params["physics"]["friction_piece"]
    assert "`model.json` is your tower at the posterior medians" in (out / "report.md").read_text()
    first = (out / "model.json").read_bytes()
    again = CliRunner().invoke(cli, argv)  # resumes its own traces: same medians, same file
    assert again.exit_code == 0, again.output
    assert (out / "model.json").read_bytes() == first
