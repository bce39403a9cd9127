"""``tower.model.distill`` is the fit that ``tower distill`` runs: a script gets the same
model, provenance included, without the command line."""

from __future__ import annotations

import pytest

from tower.cli import main
from tower.errors import TowerError
from tower.model import distill, load_model
from tower.model.pipeline import TraceSource, distill_command, piece_classes
from tower.model.synthetic import SyntheticTower


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    path = tmp_path_factory.mktemp("traces") / "synthetic.jsonl"
    path.write_text("".join(seq.to_line() for seq in SyntheticTower().traces(80, seed=2)))
    return path


def test_the_library_fit_is_the_command_fit(traces, tmp_path):
    out = tmp_path / "m.json"
    main(["distill", "--traces", f"{traces}@10:60", "--out", str(out), "--min-count", "3"])
    command = distill_command([f"{traces}@10:60"], out, min_count=3)
    model = distill([f"{traces}@10:60"], command=command, min_count=3)
    assert model.doc == load_model(out).doc
    prov = model.doc["provenance"]
    assert prov["traces"][0]["seq_ranges"] == [[10, 59]] and prov["counts"]["sequences"] == 50
    assert prov["fit"]["min_count"] == 3
    default = distill([TraceSource(traces)])
    assert default.doc["provenance"]["command"] == f"tower distill --traces {traces}@: " + (
        "--alpha 1 --age-cap 7 --min-count 2 --piece-depth 2 --levels 'm,n,w,x,I,o;m,n,w,x,J,o;"
        "m,w,x,J;m,n;m'"
    )
    assert "backoff" not in default.doc["provenance"]["fit"]  # older provenance unchanged


def test_rest_backoff_is_a_command_option_recorded_in_the_provenance(traces, tmp_path):
    out = tmp_path / "rest.json"
    args = ["--traces", f"{traces}@0:60", "--min-count", "3"]
    main(["distill", *args, "--backoff", "rest", "--out", str(out)])
    model = load_model(out)
    assert model.doc["provenance"]["fit"]["backoff"] == "rest"
    assert model.doc["provenance"]["command"].endswith(f"--backoff rest --out {out}")
    every = distill([f"{traces}@0:60"], min_count=3)
    assert model.doc["model"]["tables"][1] != every.doc["model"]["tables"][1]
    with pytest.raises(TowerError, match="backoff"):
        distill([f"{traces}@0:60"], backoff="some")


def test_bad_requests_are_one_line_errors(traces, tmp_path):
    with pytest.raises(TowerError, match="no traces to fit"):
        distill([])
    with pytest.raises(TowerError, match="no such trace file"):
        distill([str(tmp_path / "none.jsonl")])
    with pytest.raises(TowerError, match="expected START:STOP"):
        distill([f"{traces}@5"])
    with pytest.raises(TowerError, match="bad fit settings"):
        distill([traces.as_posix()], levels="n")
    with pytest.raises(TowerError, match="no throws to fit"):
        distill([f"{traces}@0:0"])


def test_piece_classes_share_a_class_by_shape():
    from tower.geometry import load_preset

    classes = piece_classes(load_preset("marrakesh"))
    assert classes == {"brigand": "pawn", "expert": "expert", "keshi": "keshi",
                       "watchman": "pawn"}  # fmt: skip
