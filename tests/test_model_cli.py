"""Tests of ``tower distill``, ``tower validate-model`` and ``tower stats`` on synthetic traces."""

import json

import pytest

from tower.cli import main
from tower.model import load_model
from tower.model.synthetic import SyntheticTower
from tower.runs.batch import read_records


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    path = tmp_path_factory.mktemp("traces") / "synthetic.jsonl"
    with path.open("w") as fh:
        for seq in SyntheticTower().traces(500, seed=4):
            fh.write(seq.to_line())
    return path


@pytest.fixture(scope="module")
def model_path(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "m.json"
    main(["distill", "--traces", f"{traces}@0:300", "--out", str(out), "--name", "synth"])
    return out


def run_error(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err


def test_distill_writes_a_model_with_provenance(model_path):
    model = load_model(model_path)
    prov = model.doc["provenance"]
    assert prov["counts"]["sequences"] == 300 and prov["traces"][0]["sequences"] == "0:300"
    assert prov["command"].startswith("tower distill --traces ")
    assert model.name == "synth"


def test_validate_model_writes_a_report(model_path, traces, tmp_path):
    main(
        [
            "validate-model",
            str(model_path),
            "--traces",
            str(traces),
            "--sequences",
            "300:",
            "--replicates",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    report = (tmp_path / "report.md").read_text()
    assert "| distilled |" in report and "| baseline |" in report
    data = json.loads((tmp_path / "validation.json").read_text())
    verdicts = {v["model"]: v for v in data["verdicts"]}
    assert verdicts["distilled"]["sequences"] == 200
    assert verdicts["baseline"]["passed"] is False  # it keeps pieces far too long
    # where the tested model differs, throw by throw, largest first
    assert "## Where distilled differs, throw by throw" in report
    z = [abs(d["z"]) for d in data["differences"]]
    assert z and z == sorted(z, reverse=True)
    assert (tmp_path / "statistics.png").is_file() and (tmp_path / "retention.png").is_file()


def test_distill_defaults_to_model_v2_levels(model_path):
    from tower.model.fit import DEFAULT_LEVELS

    model = load_model(model_path)
    assert model.doc["schema"] == "tower.model/2"
    assert [tuple(lv) for lv in model.doc["model"]["levels"]] == list(DEFAULT_LEVELS)
    source = model.doc["provenance"]["traces"][0]
    assert source["seq_ranges"] == [[0, 299]] and source["batch_seed"] is None


def test_distill_passes_min_count_makeup_to_the_fit(model_path, traces, tmp_path, capsys):
    assert "min_count_makeup" not in load_model(model_path).doc["provenance"]["fit"]
    out = tmp_path / "m.json"
    argv = ["distill", "--traces", f"{traces}@0:300", "--min-count", "3"]
    main([*argv, "--min-count-makeup", "40", "--out", str(out)])
    prov = load_model(out).doc["provenance"]
    assert prov["fit"]["min_count"] == 3 and prov["fit"]["min_count_makeup"] == 40
    assert "--min-count 3 --min-count-makeup 40 --piece-depth" in prov["command"]
    error = run_error([*argv, "--min-count-makeup", "0", "--out", str(out)], capsys)
    assert "'--min-count-makeup': 0 is not in the range" in error


def test_validate_model_refuses_fitted_sequences(model_path, traces, tmp_path, capsys):
    argv = ["validate-model", str(model_path), "--traces", str(traces), "--replicates", "1"]
    err = run_error([*argv, "--sequences", "290:400", "--out", str(tmp_path / "a")], capsys)
    assert "10 held-out sequences (seq 290..299" in err and "were fitted" in err
    assert not (tmp_path / "a").exists()
    main([*argv, "--sequences", "290:400", "--allow-overlap", "--out", str(tmp_path / "b")])
    assert "OVERLAP" in (tmp_path / "b" / "report.md").read_text()
    main([*argv, "--sequences", "300:400", "--out", str(tmp_path / "c")])
    assert (
        "no overlap with the 1 fitted trace sources" in (tmp_path / "c" / "report.md").read_text()
    )


def _with_header(path, seed, sequences):
    from tower.files.outputs import run_header

    with path.open("w") as fh:
        fh.write(json.dumps(run_header("simulate", {"seed": seed})) + "\n")
        for seq in sequences:
            fh.write(seq.to_line())
    return path


def test_validate_model_checks_batch_seeds_and_counts_out_by_kind(tmp_path, capsys):
    """Rounds with experts: a held-out file with the fitting batch seed and fitted seq
    numbers is refused, another seed is not; the report tests experts out separately."""
    from tower.pieces import Kind, Piece, mixed_keshis

    def plan(rng):
        return [
            mixed_keshis(rng.randint(6, 12)) + [Piece(Kind.EXPERT, "red")] * rng.randint(1, 5)
            for _ in range(8)
        ]

    tower = SyntheticTower(push=0.05)
    fit = _with_header(tmp_path / "fit.jsonl", 7, tower.traces(200, seed=1, throws=plan))
    model = tmp_path / "m.json"
    main(["distill", "--traces", str(fit), "--out", str(model)])
    assert load_model(model).doc["provenance"]["traces"][0]["batch_seed"] == 7
    held = tower.traces(300, seed=2, throws=plan)[150:]
    same = _with_header(tmp_path / "same.jsonl", 7, held)
    argv = ["validate-model", str(model), "--replicates", "1"]
    err = run_error([*argv, "--traces", str(same), "--out", str(tmp_path / "a")], capsys)
    assert "seq 150..199, batch seed 7) were fitted" in err
    other = _with_header(tmp_path / "other.jsonl", 8, held)
    main([*argv, "--traces", str(other), "--out", str(tmp_path / "b")])
    data = json.loads((tmp_path / "b" / "validation.json").read_text())
    tests = {t["name"]: t for t in data["verdicts"][0]["tests"]}
    assert {"out_total.expert", "out_total.keshi"} <= set(tests)
    assert 0 < tests["out_total.expert"]["reference_mean"] < 8 * 5


def test_stats_of_a_model_and_of_traces(model_path, traces, tmp_path, capsys):
    main(
        [
            "stats",
            "--model",
            str(model_path),
            "--sizes",
            "6,12",
            "--sequences",
            "100",
            "--out",
            str(tmp_path),
        ]
    )
    text = capsys.readouterr().out
    assert "throws of 6" in text and "throws of 12" in text
    data = json.loads((tmp_path / "stats.json").read_text())
    assert set(data["sizes"]) == {"6", "12"}
    main(["stats", "--physics", "--traces", str(traces), "--sizes", "12"])
    assert "equilibrium pieces inside" in capsys.readouterr().out


def test_cli_errors_are_clear(model_path, traces, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(model_path.read_text()[:100])
    err = run_error(["stats", "--model", str(bad)], capsys)
    assert "bad.json" in err and "truncated" in err
    err = run_error(
        ["distill", "--traces", f"{traces}@x", "--out", str(tmp_path / "o.json")], capsys
    )
    assert "START:STOP" in err and not (tmp_path / "o.json").exists()
    err = run_error(["stats", "--sizes", "0"], capsys)
    assert "--sizes" in err


@pytest.mark.slow
def test_distill_runs_and_resumes_simulations(tmp_path):
    out = tmp_path / "sim.json"
    argv = ["distill", "--sims", "2", "--preset", "marrakesh", "--workers", "1", "--out", str(out)]
    main(argv)
    traces = tmp_path / "sim.traces.jsonl"
    first = traces.read_bytes()
    assert len(read_records(traces)) == 2  # records after the run header
    model = out.read_bytes()
    more = [*argv[:2], "3", *argv[3:]]  # one more sequence: another command's model file
    with pytest.raises(SystemExit) as refused:
        main(more)
    assert refused.value.code == 2 and out.read_bytes() == model
    main([*more, "--force"])
    assert traces.read_bytes().startswith(first) and len(read_records(traces)) == 3
    assert load_model(out).doc["provenance"]["counts"]["sequences"] == 3
