"""The physics commands accept the params file that `tower calibrate` writes, and
`tower simulate --as-recording` writes a synthetic recording."""

from click.testing import CliRunner

from tower.calibration.recording import read_recording
from tower.cli import cli
from tower.cli.options import load_physics
from tower.physics import PhysicsParams
from tower.physics.params_file import save_params


def test_calibrated_params_file_sets_geometry_and_physics(tmp_path):
    path = tmp_path / "params.json"
    save_params(
        path,
        preset="marrakesh",
        geometry={"floors.0.hole_scale": 0.9},
        physics=PhysicsParams().with_values({"restitution": 0.42}),
    )
    spec, params = load_physics("marrakesh", None, path)
    assert spec.assumptions()["floors.0.hole_scale"].value == 0.9
    assert params.restitution == 0.42
    default_spec, default_params = load_physics("marrakesh", None, None)
    assert default_spec.assumptions()["floors.0.hole_scale"].value != 0.9
    assert default_params == PhysicsParams()


def test_simulate_as_recording_writes_a_synthetic_recording(tmp_path):
    out = tmp_path / "rec.csv"
    result = CliRunner().invoke(
        cli,
        ["simulate", "--as-recording", "--throws", "3", "--pieces", "6", "--seed", "4",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rec = read_recording(out)
    assert rec.synthetic
    throws = [t for s in rec.sessions for t in s.throws]
    assert len(throws) == 3
    assert all(sum(t.pieces_in.values()) == 6 for t in throws)
