"""The bank engine: the physics bank, the learned per-throw likelihood and the fit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tower.calibration.bank import (
    DEFAULT_BANK,
    Bank,
    BankError,
    BankSettings,
    ages_inside,
    build,
    read_bank,
)
from tower.calibration.bankfit import fit_bank, recording_rows
from tower.calibration.recording import Session, Throw
from tower.calibration.simulators import Parameter
from tower.calibration.surrogate import (
    DEFAULT_SURROGATE,
    SCALE,
    godambe_temper,
    load_surrogate,
    paint,
    train,
    transitions,
)
from tower.cli import cli
from tower.errors import InputFileError

TOY = (Parameter("toy.fresh", 0.0, 1.0), Parameter("toy.old", 0.0, 1.0))


def toy_ages(
    u: np.ndarray, throws: int, rng: np.random.Generator, sticky: bool = False
) -> list[list[int]]:
    """A two-chance tower: a thrown piece comes out with 0.4 + 0.5 u0, a piece inside with
    0.1 + 0.4 u1 (the hidden truth a bank stores: ages of the pieces out). ``sticky``: a
    hidden jam that lasts about ten throws at a time takes 0.35 off both chances, so
    successive throws depend on each other beyond what a recording shows."""
    inside: list[int] = []
    ages = []
    jam = False
    for t in range(throws):
        out, stay = [], []
        jam = jam if rng.random() < 0.9 else not jam
        for s in [*inside, *[t] * 12]:
            p = 0.4 + 0.5 * u[0] if s == t else 0.1 + 0.4 * u[1]
            p -= 0.35 if sticky and jam else 0.0
            (out if rng.random() < p else stay).append(t - s)
        inside = [t - a for a in stay]
        ages.append(sorted(out))
    return ages


def toy_bank(points: int = 160, throws: int = 30, seed: int = 0, sticky: bool = False) -> Bank:
    rng = np.random.default_rng(seed)
    u = rng.random((points, 2))
    return Bank({"size": 12, "schema": "tower.bank/1"}, TOY, u, ("ok",) * points,
                tuple(toy_ages(x, throws, rng, sticky) for x in u), 0,
                "toy-bank.jsonl")  # fmt: skip


@pytest.fixture(scope="module")
def toy_surrogate():
    return train(toy_bank(), members=2, progress=False)


def session_of(ages: list[list[int]], group: int = 1, start: str = "empty") -> Session:
    painted = paint(ages, 12, group, 5)
    throws = tuple(Throw(t + 1, i, o) for t, (i, o) in enumerate(painted))
    return Session("s", "synthetic", start, throws=throws)


def test_paint_keeps_the_hidden_history() -> None:
    """Painting a bank sequence gives a recording whose inside counts are the bank's."""
    ages = toy_ages(np.array([0.2, 0.3]), 40, np.random.default_rng(1))
    for group in (1, 3):
        painted = paint(ages, 12, group, 3)
        X, y = transitions([p[0] for p in painted], [p[1] for p in painted])
        inside = [len(a) for a in ages_inside(ages, 12)][:-1]
        assert np.allclose(X[:, 1] * SCALE, inside)
        assert (y.sum(axis=1) == [len(a) for a in ages]).all()
    # one colour per throw: a fresh piece is always of the thrown colour
    painted = paint(ages, 12, 1, 3)
    _, y = transitions([p[0] for p in painted], [p[1] for p in painted])
    fresh = np.array([a.count(0) for a in ages])
    assert (y[:, 0] >= fresh).all() and (y[:, 0] - fresh).sum() <= 0.05 * fresh.sum()


def test_the_split_quadratic_form_is_the_plain_one(toy_surrogate) -> None:
    """The logit split into parts of u, of x and a cross term is the quadratic form of the
    standardised inputs, and the likelihood sums beta-binomial terms over the throws."""
    from tower.calibration.surrogate import _beta_binomial_logpmf, _limits

    ages = toy_ages(np.array([0.6, 0.4]), 30, np.random.default_rng(2))
    X, y = recording_rows([session_of(ages)], 12)
    u = np.random.default_rng(3).random((7, 2))
    model = toy_surrogate.members[1].same
    fast = model.logit(u, X)
    for i, row in enumerate(u):
        z = (np.hstack([np.repeat(row[None], len(X), 0), X]) - model.centre) / model.scale
        plain = model.c + z @ model.w + np.einsum("ti,ij,tj->t", z, model.A, z)
        assert np.allclose(fast[i], plain), i
    n_same, n_other = _limits(X)
    member = toy_surrogate.members[1]
    xo = np.hstack([X, y[:, :1] / SCALE])
    total = [
        _beta_binomial_logpmf(y[:, 0], n_same, 1 / (1 + np.exp(-member.same.logit(r[None], X)[0])),
                              member.same.rho).sum()
        + _beta_binomial_logpmf(y[:, 1], n_other,
                                1 / (1 + np.exp(-member.other.logit(r[None], xo)[0])),
                                member.other.rho).sum()
        for r in u
    ]  # fmt: skip
    assert np.allclose(toy_surrogate.loglik(u, X, y, 1, tempered=False), total)
    # a beta-binomial is a distribution: it sums to one over 0..n
    k = np.arange(13)
    assert np.isclose(np.exp(_beta_binomial_logpmf(k, 12, 0.3, 0.05)).sum(), 1.0)


def test_the_surrogate_file_round_trips(toy_surrogate, tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    toy_surrogate.save(path)
    again = load_surrogate(path)
    ages = toy_ages(np.array([0.5, 0.5]), 20, np.random.default_rng(4))
    X, y = recording_rows([session_of(ages)], 12)
    u = np.random.default_rng(5).random((4, 2))
    assert np.allclose(again.loglik(u, X, y, 0), toy_surrogate.loglik(u, X, y, 0), atol=1e-3)
    with pytest.raises(Exception, match="exists"):
        toy_surrogate.save(path)  # never overwrites without force
    path.write_text('{"schema": "tower.surrogate/1", "features": []}')
    with pytest.raises(InputFileError, match="retrain"):
        load_surrogate(path)


def test_the_tempering_widens_only_a_likelihood_that_is_too_sharp(toy_surrogate) -> None:
    """Scored on fresh towers of the kind it learned (independent pieces), the per-throw
    likelihood is nearly the likelihood, and the measured tempering stays well above the
    one it gets on towers with a hidden jam lasting several throws, whose throws depend
    on each other beyond what a recording shows (there the product is far too sharp)."""
    fresh = godambe_temper(toy_surrogate, 0, toy_bank(80, seed=3), range(80))
    jammed = godambe_temper(toy_surrogate, 0, toy_bank(80, seed=3, sticky=True), range(80))
    assert fresh > 0.55 and jammed < 0.6 * fresh, (fresh, jammed)
    assert all(0.4 < k <= 1 for k in toy_surrogate.temper), toy_surrogate.temper
    ages = toy_ages(np.array([0.5, 0.5]), 20, np.random.default_rng(4))
    X, y = recording_rows([session_of(ages)], 12)
    u = np.random.default_rng(5).random((3, 2))
    raw = toy_surrogate.loglik(u, X, y, 1, tempered=False)
    assert np.allclose(toy_surrogate.loglik(u, X, y, 1), toy_surrogate.temper[1] * raw)


def test_one_member_learns_from_every_point_and_tempers_on_a_second_bank() -> None:
    """One member learns from all the training points (no bootstrap resample), and a
    second bank of longer sequences tempers it; where a hidden jam lasting about ten throws
    ties the throws together, the per-throw likelihood is far too sharp and the tempering
    it gets there is far smaller."""
    from tower.calibration.surrogate import bank_rows

    bank = toy_bank(100)
    long_fresh, long_jammed = toy_bank(45, 120, seed=7), toy_bank(45, 120, seed=7, sticky=True)
    surrogate = train(bank, members=1, progress=False, temper_bank=long_fresh)
    assert surrogate.provenance["train_points"] == 100
    _, X, _ = bank_rows(bank, range(100), 0)
    assert np.allclose(surrogate.members[0].same.centre[2:], X.mean(axis=0))
    assert "toy-bank.jsonl points 0-44 (120 throws each" in surrogate.provenance["temper"]
    assert surrogate.temper[0] == godambe_temper(surrogate, 0, long_fresh, range(45))
    jammed = godambe_temper(surrogate, 0, long_jammed, range(45))
    assert surrogate.temper[0] > 0.2 and jammed < 0.1 * surrogate.temper[0], (
        surrogate.temper, jammed)


def test_the_fit_recovers_toy_towers(toy_surrogate) -> None:
    """Eight recordings of 200 throws of known two-chance towers, truths drawn from the
    prior: each pins both chances down, and the 90% intervals hold the truth about nine
    times in ten (at least 12 of 16; a likelihood that ignored the older pieces, or a
    posterior that ignored the likelihood, misses far more or pins nothing)."""
    rng = np.random.default_rng(12)
    hits = 0
    for k in range(8):
        truth = 0.1 + 0.8 * rng.random(2)
        ages = toy_ages(truth, 200, np.random.default_rng(100 + k))
        result = fit_bank([session_of(ages)], toy_surrogate, TOY, seed=k)
        hits += sum(f.low <= t <= f.high for f, t in zip(result.fits, truth, strict=True))
        assert all(f.width_ratio < 0.3 for f in result.fits), (k, result.fits)
        assert result.ess > 50
    assert hits >= 12, hits


def test_the_bank_engine_refuses_what_the_bank_cannot_answer(toy_surrogate) -> None:
    ages = toy_ages(np.array([0.5, 0.5]), 10, np.random.default_rng(6))
    with pytest.raises(BankError, match="empty tower"):
        fit_bank([session_of(ages, start="unknown")], toy_surrogate, TOY)
    six = Session("s", "synthetic", "empty", throws=(Throw(1, {"red": 6}, {"red": 3}),))
    with pytest.raises(BankError, match="12 keshis"):
        fit_bank([six], toy_surrogate, TOY)
    with pytest.raises(BankError, match="--engine gp"):
        fit_bank([session_of(ages)], toy_surrogate, (TOY[1], TOY[0]))


def test_a_bank_resumes_and_extends_to_the_same_file(tmp_path: Path) -> None:
    """Two points, then three: the same lines as three at once, and the run header holds
    the provenance."""
    small = BankSettings(points=2, throws=2, design_seed=11)
    build(tmp_path / "a.jsonl", small, workers=1, progress=False)
    build(tmp_path / "a.jsonl", BankSettings(points=3, throws=2, design_seed=11), workers=1,
          progress=False)  # fmt: skip
    build(tmp_path / "b.jsonl", BankSettings(points=3, throws=2, design_seed=11), workers=1,
          progress=False)  # fmt: skip
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    bank = read_bank(tmp_path / "a.jsonl")
    assert len(bank.u) == 3 and all(len(a) == 2 for a in bank.ages)
    head = bank.provenance()
    assert head["numerics"] >= 4 and head["size"] == 12 and head["points"] == 3
    assert len(head["parameters"]) == 11
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"status"', '"stat"')
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError, match=r"a\.jsonl:3: bad bank line"):
        read_bank(tmp_path / "a.jsonl")


def test_the_shipped_bank_and_surrogate_agree() -> None:
    """The committed likelihood was learned from the committed bank (or a prefix of it),
    which is within its size budget."""
    bank = read_bank(DEFAULT_BANK)
    surrogate = load_surrogate(DEFAULT_SURROGATE)
    long = DEFAULT_BANK.with_name("bank-marrakesh-200.jsonl")
    assert DEFAULT_BANK.stat().st_size + long.stat().st_size < 30e6
    assert read_bank(long).settings["numerics"] == bank.settings["numerics"]
    assert surrogate.parameters == tuple(p.name for p in bank.parameters)
    made = surrogate.provenance["bank"]
    assert made["numerics"] == bank.settings["numerics"]
    assert made["points"] <= len(bank.u)


def test_calibrate_runs_no_physics_by_default(tmp_path: Path, monkeypatch) -> None:
    """`tower calibrate REC` on a 200-throw physics recording: the bank engine, no physics."""
    import tower.physics.sim as sim

    def no_physics(*args, **kwargs):
        raise AssertionError("the bank engine ran the physics")

    monkeypatch.setattr(sim.TowerSim, "__init__", no_physics)
    rec = Path(__file__).parent.parent / "calibration" / "recordings" / "synthetic-200.csv"
    out = tmp_path / "cal"
    result = CliRunner().invoke(cli, ["calibrate", str(rec), "--out", str(out), "--quiet",
                                      "--checks", "4"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "engine: bank (no physics)" in result.output
    fit = json.loads((out / "fit.json").read_text())
    assert fit["engine"] == "bank" and len(fit["parameters"]) == 11
    report = (out / "report.md").read_text()
    assert "pieces inside at equilibrium" in report
    assert "tower distill --preset marrakesh --params params.json" in report


def test_record_synthetic_takes_a_protocol(tmp_path: Path) -> None:
    """The recommended protocol can be recorded synthetically: 12 of one colour per throw,
    the colours in turn; an unknown name is one line listing the known ones."""
    from tower.calibration.recording import read_recording

    out = tmp_path / "r.csv"
    args = ["record-synthetic", "--simulator", "baseline", "--protocol", "one-colour",
            "--throws", "14", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    throws = read_recording(out).sessions[0].throws
    assert len(throws) == 14
    assert [len(t.pieces_in) for t in throws] == [1] * 14
    assert throws[0].pieces_in == throws[12].pieces_in == {"green": 12}
    bad = CliRunner().invoke(cli, [*args[:4], "nope", *args[5:-1], str(tmp_path / "x.csv")])
    assert bad.exit_code != 0 and "known: size-1" in str(bad.exception)
    assert not (tmp_path / "x.csv").exists()


def test_plan_list_needs_no_out() -> None:
    result = CliRunner().invoke(cli, ["calibrate", "plan", "--list"])
    assert result.exit_code == 0, result.output
    assert "one-colour" in result.output
    result = CliRunner().invoke(cli, ["calibrate", "plan"])
    assert result.exit_code != 0 and "--out" in result.output


def test_key_statistics_stay_possible() -> None:
    """A regression's error cannot show a negative count of pieces inside, a chance over
    one, or a dwell time under one throw."""
    from tower.calibration.behaviour import from_emulated, to_emulated

    names = ("inside", "p_fresh_out", "dwell", "out_12")
    raw = np.array([[-0.5, 1.2, 0.3, -1.0], [6.0, 0.8, 2.5, 11.0]])
    got = from_emulated(names, to_emulated(names, np.array([[0, 0, 1, 0], [6, 0.8, 2.5, 11]]))
                        + np.array([[-0.4, 1.2, -1.0, -1.0], [0, 0, 0, 0]]))  # fmt: skip
    assert got[0].tolist() == [0.0, 1.0, 1.0, 0.0]
    assert np.allclose(got[1], raw[1])


def test_the_headline_shows_why_an_interval_misses() -> None:
    """A narrow interval that misses its truth prints with the digits that show it."""
    from tower.calibration.behaviour import Predictive
    from tower.calibration.report import headline

    class Stub:
        key_scope = "at equilibrium"

        def predictive(self, truth):
            return [Predictive("out_12", (11.0, 11.5, 12.4), (11.981, 11.99, 11.998), 12.0)]

        def directions(self, truth):
            return []

    row = next(line for line in headline(Stub(), {"out_12": 12.0}) if "pieces out" in line)
    assert "11.99 [11.981, 11.998]" in row and "| 12 | NO |" in row, row


def test_the_plan_warns_when_nothing_was_learned() -> None:
    from tower.calibration.plan import Assessment, load_protocols, plan_markdown

    protocol = load_protocols()[0]
    wide = Assessment(protocol, 100, {"inside": 1.3, "dwell": 1.1}, 0.0, [], 1.0, 0.0)
    assert "no protocol taught anything" in plan_markdown([wide], {})
    narrow = Assessment(protocol, 100, {"inside": 0.3, "dwell": 0.4}, 2.0, [], 1.0, 0.0)
    assert "Warning" not in plan_markdown([narrow], {})


def test_the_plan_compares_protocols_by_the_bank_without_physics(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """`tower calibrate plan` with the physics uses the bank engine: a protocol the bank
    cannot throw is left out by name, the others are fitted from recordings drawn from
    the learned likelihood, and no physics runs."""
    import tower.physics.sim as sim

    def no_physics(*args, **kwargs):
        raise AssertionError("the bank planner ran the physics")

    monkeypatch.setattr(sim.TowerSim, "__init__", no_physics)
    out = tmp_path / "plan"
    result = CliRunner().invoke(cli, ["calibrate", "plan", "--out", str(out), "--truths", "1",
                                      "--protocols", "one-colour,size-1", "--minutes", "20"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "plan.json").read_text())
    assert plan["recommended"] == "one-colour" and list(plan["protocols"]) == ["one-colour"]
    assert "size-1" in result.output and "12 keshis" in result.output
    learned = plan["protocols"]["one-colour"]
    assert learned["narrowing"]["p_fresh_out"] < 0.9, learned
    refused = CliRunner().invoke(cli, ["calibrate", "plan", "--out", str(tmp_path / "p2"),
                                       "--protocols", "size-1"])
    assert refused.exit_code != 0 and "--engine gp" in str(refused.exception)


def test_coverage_refits_the_recordings_it_has_without_physics(tmp_path: Path,
                                                               monkeypatch) -> None:
    """`--fits-only` fits the recordings already there (a committed set) with the given
    likelihood, runs no physics and leaves the recordings untouched; with no recordings
    it says so."""

    import tower.physics.sim as sim
    from tower.calibration.sbc import CoverageSettings, recording_tasks, run_bank_coverage
    from tower.files.outputs import run_header
    from tower.runs.batch import encode

    def no_physics(*args, **kwargs):
        raise AssertionError("a fits-only coverage run ran the physics")

    monkeypatch.setattr(sim.TowerSim, "__init__", no_physics)
    bank = read_bank(DEFAULT_BANK)
    settings = CoverageSettings(recordings=1, throws=36, truth_throws=36)
    task = recording_tasks(settings)[0]["recording"]
    theta = {p.name: p.low + (p.high - p.low) * x
             for p, x in zip(bank.parameters, bank.u[0], strict=True)}  # fmt: skip
    record = {"key": task["key"], "theta": theta, "status": "ok", "rethrows": 0,
              "ages": bank.ages[0], "replay_ages": bank.ages[0]}  # fmt: skip
    rec = tmp_path / "recordings.jsonl"
    rec.write_text(encode(run_header("calibrate coverage", settings.recording_settings()))
                   + encode(record))
    before = rec.read_text()
    summary = run_bank_coverage(tmp_path, settings, DEFAULT_SURROGATE, workers=1,
                                progress=False, new_recordings=False)  # fmt: skip
    assert summary["recordings"] == 1 and rec.read_text() == before
    assert (tmp_path / "coverage.md").is_file() and (tmp_path / "fits.jsonl").is_file()
    with pytest.raises(Exception, match="no recordings"):
        run_bank_coverage(tmp_path / "empty", settings, DEFAULT_SURROGATE, workers=1,
                          progress=False, new_recordings=False)  # fmt: skip


def test_coverage_grows_its_recordings_without_remaking_them(tmp_path: Path,
                                                             monkeypatch) -> None:
    """More recordings extend the same file, as a bank grows: the recordings there are
    kept as they are (not remade, not duplicated) and only the missing ones run; the
    colours of the fit are not part of what makes a recording."""
    import tower.calibration.sbc as sbc
    from tower.runs.batch import read_records

    made: list[int] = []

    def clogged(task: dict) -> dict:  # stands in for the physics
        made.append(task["recording"]["key"])
        return {"key": task["recording"]["key"], "theta": task["recording"]["theta"],
                "status": "clogged", "rethrows": 0, "ages": [], "replay_ages": []}  # fmt: skip

    monkeypatch.setattr(sbc, "recording_point", clogged)
    for n, group in ((2, 1), (4, 3)):
        settings = sbc.CoverageSettings(recordings=n, throws=36, truth_throws=36, group=group)
        sbc.run_bank_coverage(tmp_path, settings, DEFAULT_SURROGATE, workers=1, progress=False)
    assert made == [0, 1, 2, 3]
    assert [r["key"] for r in read_records(tmp_path / "recordings.jsonl")] == [0, 1, 2, 3]
