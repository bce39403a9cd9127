"""Every validation rule of tower specs, fed a failing spec file (tests/data/bad_specs/).

Each file is the marrakesh preset with one fault. The rule must raise its own narrow
exception naming the file, the field and the value, and ``tower meshes build --spec``
must exit with status 2, print one line, and write nothing.
"""

from pathlib import Path

import pytest

from tower.cli import main
from tower.geometry import (
    ExitUnreachableError,
    HoleError,
    HoleInWallError,
    HoleTooSmallError,
    NonPositiveError,
    OutOfBoundsError,
    PlacementError,
    SolidError,
    SpecError,
    SpecFormatError,
    load_preset,
    load_spec,
)
from tower.geometry.spec import parse_raw

BAD = Path(__file__).parent / "data" / "bad_specs"

#: file stem -> (exception, field, a piece of the message showing the value)
CASES = {
    "solid_sliver": (SolidError, "floors.0.holes.1", "0.001 mm wide"),
    "hole_too_small": (HoleTooSmallError, "floors.1.holes.0", "[-30.0, -24.0]"),
    "exit_unreachable": (ExitUnreachableError, "floors.1.holes", "value []"),
    "exit_too_low": (ExitUnreachableError, "ramp.exit_height", "value 27.0"),
    "floor_outside_tube": (PlacementError, "floors.0.z", "value 190.0"),
    "ramp_outside": (PlacementError, "ramp.angle", "value 45.0"),
    "hole_in_wall": (HoleInWallError, "floors.0.holes.0", "[37.0, 12.0]"),
    "hole_overlap": (HoleError, "floors.0.holes.1", "[14.0, 2.0]"),
    "non_positive": (NonPositiveError, "tube.wall", "-2.0"),
    "out_of_bounds": (OutOfBoundsError, "tube.width", "120.0"),
    "unknown_field": (SpecFormatError, "tube.colour", "'red'"),
    "wrong_type": (SpecFormatError, "tube.height.value", "'tall'"),
    "bare_number": (SpecFormatError, "tube.depth", "72.0"),
    "not_toml": (SpecFormatError, None, "line 11"),
    "steps_not_whole": (SpecFormatError, "steps_per_second", "got 2.5"),
}


def test_every_bad_spec_file_has_a_case():
    assert sorted(p.stem for p in BAD.glob("*.toml")) == sorted(CASES)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_rule_raises_its_narrow_error(stem):
    error, field, value = CASES[stem]
    path = BAD / f"{stem}.toml"
    with pytest.raises(error) as info:
        load_spec(path)
    exc = info.value
    assert isinstance(exc, SpecError)
    assert exc.path == str(path)
    assert exc.field == field
    message = str(exc)
    assert str(path) in message and value in message
    if field is not None:
        assert f"field {field}:" in message


@pytest.mark.parametrize("stem", sorted(CASES))
def test_cli_exits_2_with_one_line_and_writes_nothing(stem, tmp_path, capsys):
    _, field, value = CASES[stem]
    path = BAD / f"{stem}.toml"
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as info:
        main(["meshes", "build", "--spec", str(path), "--out", str(out)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert str(path) in err and value in err and (field is None or field in err)
    assert not out.exists()
    png = tmp_path / "tower.png"
    with pytest.raises(SystemExit) as info:
        main(["meshes", "show", "--spec", str(path), "--out", str(png)])
    assert info.value.code == 2
    assert list(tmp_path.iterdir()) == []


def test_with_values_rechecks_the_rules():
    spec = load_preset("marrakesh")
    with pytest.raises(OutOfBoundsError, match=r"field floors\.0\.hole_scale: value 2\.0"):
        spec.with_values({"floors.0.hole_scale": 2.0})
    with pytest.raises(PlacementError, match=r"field floors\.1\.z: value 102\.0"):
        spec.with_values({"floors.0.z": 142.0, "floors.1.z": 102.0})  # each alone is fine
    with pytest.raises(SpecFormatError, match=r"field tube\.colour"):
        spec.with_values({"tube.colour": 1.0})
    assert spec.floors[0].hole_scale == 1.0  # the original is untouched


def test_unknown_preset_is_rejected(tmp_path):
    with pytest.raises(SpecFormatError, match="wallenstein"):
        load_preset("wallenstein")
    with pytest.raises(SystemExit) as info:
        main(["meshes", "build", "--preset", "wallenstein", "--out", str(tmp_path / "m")])
    assert info.value.code == 2  # click's usage error for a bad choice
    assert list(tmp_path.iterdir()) == []


def test_a_tower_may_ask_for_a_finer_time_step_and_keeps_it():
    queen, marrakesh = load_preset("queen-classic"), load_preset("marrakesh")
    assert queen.steps_per_second == 240 and marrakesh.steps_per_second is None
    assert "steps_per_second = 240" in queen.to_toml()
    assert "steps_per_second" not in marrakesh.to_toml()  # absent: the file is unchanged
    assert queen.with_values({"tube.width": 85.0}).steps_per_second == 240
    raw = queen.to_raw()
    for bad in (0, 59, 2001, True, "fast"):
        with pytest.raises(SpecFormatError, match=f"field steps_per_second.*got {bad!r}"):
            parse_raw({**raw, "steps_per_second": bad}, "t.toml")
