"""Calibration: parameter recovery on a stand-in tower, caching and resume, Dask, the CLI."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tower.calibration.calibrate import Settings, calibrate, default_physics_fit
from tower.calibration.execute import ReplayRunner, read_cache
from tower.calibration.fit import Emulator, make_task, sample_posterior
from tower.calibration.recording import (
    Recording,
    Session,
    Throw,
    read_recording,
    write_recording,
)
from tower.calibration.simulators import (
    BaselineSimulator,
    Parameter,
    PhysicsSimulator,
    Plan,
    ReplayAborted,
    sessions_from_outs,
    with_clog_limit_for,
)
from tower.calibration.synthetic import synthetic_plan, synthetic_recording
from tower.cli import cli, main
from tower.errors import InputFileError
from tower.physics.params import PhysicsParams
from tower.physics.params_file import apply_params, load_params, save_params

BAD = Path(__file__).parent / "data" / "bad_recordings"
TRUTH = {"toy.pass": 0.7, "toy.leak": 0.25, "toy.paint": 0.4}
CALLS = {"n": 0}


@dataclass(frozen=True)
class ToyTower:
    """A stand-in tower with a known answer.

    A thrown piece falls straight through with chance ``pass``; otherwise it lodges. Each
    lodged piece leaks out with chance ``leak`` per throw. ``paint`` (the colour of the
    tower's inside) changes nothing: it is not identifiable, by construction. Below
    ``pass`` 0.36 the tower clogs and the replay fails, as physics replays can. With a
    ``max_inside``, the pieces inside jam: the leak falls linearly with the number inside,
    to nothing at three times ``max_inside``; where little leaks the tower fills up slowly, and a
    replay whose tower holds more than ``max_inside`` is aborted, late, as a physics replay
    is.
    """

    name: str = "toy"
    source: str = "toy"
    max_inside: int | None = None

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return (
            Parameter("toy.pass", 0.3, 0.95, "1", "straight-through chance"),
            Parameter("toy.leak", 0.05, 0.6, "1", "chance a lodged piece comes out"),
            Parameter("toy.paint", 0.0, 1.0, "1", "irrelevant"),
        )

    def base_theta(self) -> dict[str, float]:
        return dict(TRUTH)

    def simulate(self, theta: Mapping[str, float], plan: Plan, seed: int) -> list[Session]:
        CALLS["n"] += 1
        if theta["toy.pass"] < 0.36:
            raise ReplayAborted("clogged")
        rng = random.Random(seed)
        outs = []
        for p in plan:
            inside: list[str] = []
            session_outs = []
            for counts in (*p.warmup, *p.throws):
                out: dict[str, int] = {}
                stay = []
                leak = theta["toy.leak"]
                if self.max_inside is not None:
                    leak *= max(0.0, 1 - len(inside) / (3 * self.max_inside))
                for colour in inside:
                    if rng.random() < leak:
                        out[colour] = out.get(colour, 0) + 1
                    else:
                        stay.append(colour)
                for colour, n in counts.items():
                    for _ in range(n):
                        if rng.random() < theta["toy.pass"]:
                            out[colour] = out.get(colour, 0) + 1
                        else:
                            stay.append(colour)
                inside = stay
                if self.max_inside is not None and len(inside) > self.max_inside:
                    raise ReplayAborted(f"clogged: {len(inside)} inside")
                session_outs.append(out)
            outs.append(session_outs[len(p.warmup) :])
        return sessions_from_outs(plan, outs)


def _toy_recording(path: Path, throws: int = 200) -> Path:
    rec = synthetic_recording(ToyTower(), TRUTH, synthetic_plan(throws, 12), seed=11, tower="toy")
    write_recording(rec, path)
    return path


SMALL = Settings(budget=60, checks=12, workers=1, progress=False, seed=3)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("toy")
    rec = _toy_recording(tmp / "toy.jsonl")
    return rec, calibrate(rec, tmp / "out", settings=SMALL, simulator=ToyTower())


def test_parameter_recovery_on_the_stand_in(toy_run: tuple[Path, object]) -> None:
    _, done = toy_run
    fits = {f.parameter.name: f for f in done.result.fits}
    for name in ("toy.pass", "toy.leak"):
        f = fits[name]
        assert f.identifiable, (name, f.width_ratio)
        assert f.low <= TRUTH[name] <= f.high, (name, f.low, f.high)
        assert f.width_ratio < 0.5
    paint = fits["toy.paint"]
    assert not paint.identifiable
    # the clogged corner failed in the design and is cut out of the posterior
    assert done.result.failures > 0
    assert np.mean(done.result.samples[:, 0] < 0.36) < 0.01
    assert "barely depends on it" in paint.reason()


def test_outputs_and_report(toy_run: tuple[Path, object]) -> None:
    _, done = toy_run
    out = done.out_dir
    files = ["report.md", "params.json", "posterior.csv", "fit.json", "posterior.png"]
    files += ["out_by_n.png", "inside_over_time.png", "fresh_old.png", "colour_mixing.png"]
    for name in files:
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    assert "90% interval" in report and "## Not identifiable" in report
    assert "`toy.paint`: the recording barely depends on it" in report
    assert "| mean pieces inside |" in report and "| colour mixing" in report
    names = {c.name for c in done.checks}
    assert {"mean out per throw, 12 in", "share of out just thrown"} <= names
    assert all(0 < c.p_value <= 1 for c in done.checks)
    samples = np.loadtxt(out / "posterior.csv", delimiter=",", skiprows=1)
    assert samples.shape == (4000, 3)
    fit_json = json.loads((out / "fit.json").read_text())
    assert fit_json["parameters"]["toy.leak"]["identifiable"] is True
    # where the fit's time went, stage by stage, within the whole run's time
    stages = fit_json["seconds_by_stage"]
    assert list(stages) == ["screening", "wave 1", "wave 2", "emulators and sampling"]
    assert all(v >= 0 for v in stages.values()) and stages["emulators and sampling"] > 0
    assert sum(stages.values()) <= fit_json["seconds"] + 0.5
    assert "- time by stage: screening " in report


def test_resume_uses_the_cache_and_is_deterministic(
    toy_run: tuple[Path, object], tmp_path: Path
) -> None:
    rec, done = toy_run
    cache = done.out_dir / "cache" / "replays.jsonl"
    n_cached = len(read_cache(cache))
    # design, clog screening (half as many short replays), checks, replays at the truth
    assert n_cached == SMALL.budget + SMALL.budget // 2 + SMALL.checks + SMALL.truth_replays
    # an interrupted run: keep half the cache, with a torn last line
    lines = cache.read_text().splitlines(keepends=True)
    again = tmp_path / "again"
    (again / "cache").mkdir(parents=True)
    (again / "cache" / "replays.jsonl").write_text("".join(lines[:30]) + lines[30][:40])
    before = CALLS["n"]
    calibrate(rec, again, settings=SMALL, simulator=ToyTower())
    assert CALLS["n"] - before == n_cached - 29  # only the missing ones ran (line 1: header)
    assert len(read_cache(again / "cache" / "replays.jsonl")) == n_cached
    first = (done.out_dir / "posterior.csv").read_bytes()
    assert (again / "posterior.csv").read_bytes() == first  # bit for bit


def test_dask_local_cluster_gives_the_same_fit(
    toy_run: tuple[Path, object], tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    rec, done = toy_run
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        settings = Settings(**{**SMALL.__dict__, "scheduler": cluster.scheduler_address})
        dask_run = calibrate(rec, tmp_path / "dask", settings=settings, simulator=ToyTower())
    assert (tmp_path / "dask" / "posterior.csv").read_bytes() == (
        done.out_dir / "posterior.csv"
    ).read_bytes()
    assert [c.p_value for c in dask_run.checks] == [c.p_value for c in done.checks]


def test_local_process_pool(tmp_path: Path) -> None:
    plan = synthetic_plan(20, 6)
    tasks = [make_task(ToyTower(), TRUTH, seed, plan) for seed in range(4)]
    pooled = ReplayRunner(ToyTower(), tmp_path / "a.jsonl", workers=2, progress=False)(tasks, "x")
    serial = ReplayRunner(ToyTower(), tmp_path / "b.jsonl", workers=1, progress=False)(tasks, "x")
    assert pooled == serial


def test_emulator_and_sampler_recover_a_known_gaussian() -> None:
    rng = np.random.default_rng(0)
    u = rng.random((80, 2))
    mean = np.stack([u[:, 0] + 0.5 * u[:, 1] ** 2, u[:, 1] - u[:, 0] * u[:, 1]], axis=1)
    stats = mean + rng.normal(scale=0.01, size=mean.shape)
    em = Emulator.fit(u, stats)
    assert np.all(em.loo_r2 > 0.99)
    assert np.allclose(np.sqrt(np.diag(em.cov)), 0.01, rtol=0.4)
    target = np.array([0.3, 0.6])
    observed = np.array([0.3 + 0.5 * 0.36, 0.6 - 0.18])
    # learned noise (leave-one-out covariance), and measured noise (spread-checked GP)
    measured = Emulator.fit(u, stats, noise=np.eye(2) * 0.01**2)
    assert np.all(measured.spread >= 1) and np.allclose(np.diag(measured.cov), 0.01**2, rtol=0.01)
    for emulator in (em, measured):
        samples, ess = sample_posterior(lambda z, e=emulator: e.loglik(z, observed), 2, rng)
        assert ess > 1000
        lo, hi = np.quantile(samples, [0.05, 0.95], axis=0)
        assert np.all(lo <= target) and np.all(target <= hi)
        assert np.all(hi - lo < 0.2)


@pytest.mark.parametrize("name", sorted(p.name for p in BAD.iterdir()))
def test_cli_rejects_malformed_recordings_without_output(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as info:
        main(["calibrate", str(BAD / name), "--out", str(out), "--simulator", "baseline"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {BAD / name}:") and ": field " in err
    assert not out.exists()


def test_cli_end_to_end_with_the_baseline_model(tmp_path: Path) -> None:
    runner = CliRunner()
    rec = tmp_path / "syn.csv"
    result = runner.invoke(
        cli,
        ["record-synthetic", "--simulator", "baseline", "--throws", "120", "--pieces", "9",
         "--seed", "2", "--out", str(rec)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    recording = read_recording(rec)
    assert recording.synthetic and recording.n_throws == 120
    truth = recording.meta["truth"]["theta"]
    assert truth == {"model.p_fresh": 2 / 3, "model.p_old": 1 / 3}
    out = tmp_path / "out"
    result = runner.invoke(
        cli,
        ["calibrate", str(rec), "--out", str(out), "--simulator", "baseline", "--budget", "40",
         "--checks", "8", "--workers", "1", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "model.p_fresh" in result.output and "90% [" in result.output
    data = json.loads((out / "params.json").read_text())
    assert data["schema"] == "tower.params/1"
    intervals = data["calibration"]["parameters"]
    for name in truth:
        fitted = intervals[name]
        assert 0 <= fitted["q05"] <= fitted["median"] <= fitted["q95"] <= 1
        assert data["model"][name.removeprefix("model.")] == fitted["median"]
    # p_fresh is pinned down to about +-0.02 by 120 throws (see the slow coverage test)
    assert abs(data["model"]["p_fresh"] - 2 / 3) < 0.06


def test_params_file_formats_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    save_params(path, preset="marrakesh", geometry={"floors.0.tilt": 9.0},
                physics=PhysicsParams().with_values({"friction_piece": 0.5}))  # fmt: skip
    overrides, physics = load_params(path)
    assert overrides == {"floors.0.tilt": 9.0} and physics.friction_piece == 0.5
    bare = tmp_path / "bare.json"
    PhysicsParams().with_values({"restitution": 0.1}).dump(bare)
    assert load_params(bare) == ({}, PhysicsParams().with_values({"restitution": 0.1}))
    data = json.loads(path.read_text())
    data["geometry"]["floors.0.tilt"] = "steep"
    path.write_text(json.dumps(data))
    with pytest.raises(InputFileError) as info:
        load_params(path)
    assert info.value.field == "geometry.floors.0.tilt"
    path.write_text(json.dumps({"schema": "tower.params/9"}))
    with pytest.raises(InputFileError, match="wrong schema"):
        load_params(path)
    data = {"schema": "tower.params/1", "physics": {"restitution": -1}}
    path.write_text(json.dumps(data))
    with pytest.raises(InputFileError) as info:
        load_params(path)
    assert info.value.field == "restitution"


def test_apply_params_to_a_preset(tmp_path: Path) -> None:
    from tower.geometry import load_preset

    spec = load_preset("marrakesh")
    path = tmp_path / "p.json"
    tilt = spec.assumptions()["floors.0.tilt"]
    save_params(path, preset="marrakesh", geometry={"floors.0.tilt": tilt.low})
    fitted, physics = apply_params(spec, path)
    assert fitted.assumptions()["floors.0.tilt"].value == tilt.low
    assert physics == PhysicsParams()
    assert apply_params(spec, None) == (spec, PhysicsParams())
    save_params(path, preset="marrakesh", geometry={"floors.0.tilt": tilt.high + 50})
    with pytest.raises(InputFileError) as info:
        apply_params(spec, path)
    assert (info.value.path, info.value.field) == (str(path), "geometry.floors.0.tilt")


@pytest.mark.slow
def test_interval_coverage_on_the_baseline_model() -> None:
    """Frequentist check of the 90% intervals: 30 recordings at random true values."""
    from tower.calibration.fit import fit, simulate_task
    from tower.calibration.simulators import BaselineSimulator
    from tower.calibration.synthetic import draw_from_prior

    sim = BaselineSimulator()
    plan = synthetic_plan(150, 12)

    def execute(tasks: list[dict], label: str) -> list[dict]:
        return [simulate_task(sim, t) for t in tasks]

    hits = np.zeros(2)
    for rep in range(30):
        truth = {k: 0.1 + 0.8 * v for k, v in draw_from_prior(sim.parameters, rep + 100).items()}
        result = fit(sim, sim.simulate(truth, plan, rep + 7), plan, execute, budget=40, seed=rep)
        hits += [f.low <= truth[f.parameter.name] <= f.high for f in result.fits]
    assert np.all(hits / 30 >= 0.75), hits / 30


def test_densities_are_fitted_only_when_pawns_were_thrown() -> None:
    """Pieces all of one wood: a common density scales every mass and moves nothing."""

    def recording(*keys: str) -> Recording:
        throws = tuple(Throw(i + 1, {k: 2 for k in keys}, {}) for i in range(3))
        return Recording((Session("s", "marrakesh", throws=throws),))

    keshis = default_physics_fit(recording("red", "expert:blue"), "marrakesh")
    pawns = default_physics_fit(recording("red", "watchman:red"), "marrakesh")
    assert "physics.density_keshi" not in keshis and "physics.density_pawn" not in keshis
    assert {"physics.density_keshi", "physics.density_pawn"} <= set(pawns)
    assert set(keshis) == set(pawns) - {"physics.density_keshi", "physics.density_pawn"}
    assert "physics.restitution" in keshis and "geometry.floors.1.hole_scale" in keshis


def test_the_clog_limit_follows_the_recorded_tower() -> None:
    """A replay is aborted beyond twice what the recorded tower held (48 at least), so
    replays near a recording's truth are not aborted; the fit, `tower calibrate` and the
    coverage check all use it."""

    def holding(n: int) -> tuple[Session, ...]:  # n keshis in, none out: n inside
        return (Session("s", "marrakesh", throws=(Throw(1, {"red": n}, {}),)),)

    assert with_clog_limit_for(PhysicsSimulator(), holding(40)).max_inside == 80
    assert with_clog_limit_for(PhysicsSimulator(), holding(10)).max_inside == 48
    assert with_clog_limit_for(BaselineSimulator(), holding(40)) == BaselineSimulator()


@pytest.mark.slow
def test_physics_calibration_runs_end_to_end(tmp_path: Path) -> None:
    """A tiny physics calibration by the replaying engine: 3 parameters, 12 replays of 30
    throws, 4 checks."""
    runner = CliRunner()
    rec = tmp_path / "phys.jsonl"
    result = runner.invoke(
        cli, ["record-synthetic", "--throws", "30", "--seed", "4", "--out", str(rec)]
    )
    assert result.exit_code == 0, result.output
    fitted = "physics.restitution,geometry.floors.0.hole_scale,geometry.floors.1.tilt"
    out = tmp_path / "out"
    result = runner.invoke(
        cli,
        ["calibrate", str(rec), "--out", str(out), "--budget", "12", "--checks", "4",
         "--fit", fitted, "--engine", "gp", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    overrides, physics = load_params(out / "params.json")
    assert set(overrides) == {"floors.0.hole_scale", "floors.1.tilt"}
    from tower.geometry import load_preset

    load_preset("marrakesh").with_values(overrides)  # the fitted geometry is a valid tower
    assert 0.05 <= physics.restitution <= 0.6
    assert "## Goodness of fit on the held-out throws" in (out / "report.md").read_text()


def test_unknown_start_sessions_are_replayed_after_a_warm_up() -> None:
    from tower.calibration.recording import Throw
    from tower.calibration.simulators import plan_of

    throws = tuple(Throw(i + 1, {"red": 3}, {"red": 3}) for i in range(4))
    sessions = [
        Session("a", "toy", "empty", throws=throws),
        Session("b", "toy", "unknown", throws=throws),
    ]
    plan = plan_of(sessions, warmup=6)
    assert [len(p.warmup) for p in plan] == [0, 6]
    replay = ToyTower().simulate(TRUTH, plan, seed=5)
    assert [len(s.throws) for s in replay] == [4, 4]
    assert [s.start for s in replay] == ["empty", "unknown"]


def test_replay_cache_keys_name_the_physics_numerics(monkeypatch) -> None:
    """A replay cached under one physics numerics version is never reused under another."""
    pytest.importorskip("pybullet")
    import tower.physics.world as world
    from tower.calibration.simulators import PhysicsSimulator
    from tower.calibration.synthetic import synthetic_plan

    sim = PhysicsSimulator()
    plan = synthetic_plan(4, 6)
    key = make_task(sim, sim.base_theta(), 1, plan)["key"]
    assert sim.source == f"physics-v{world.NUMERICS_VERSION}:marrakesh"
    monkeypatch.setattr(world, "NUMERICS_VERSION", world.NUMERICS_VERSION - 1)
    assert make_task(sim, sim.base_theta(), 1, plan)["key"] != key


def test_summaries_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    """The colour-mixing sum runs over colours in a fixed order: two processes with other
    string hashing give the same bits (a set-ordered float sum once broke calibrate's
    determinism between runs)."""
    import os
    import subprocess
    import sys

    rec = tmp_path / "rec.csv"
    argv = ["record-synthetic", "--simulator", "baseline", "--throws", "40", "--seed", "3",
            "--out", str(rec)]  # fmt: skip
    assert CliRunner().invoke(cli, argv).exit_code == 0
    code = (
        "import sys; from tower.calibration.recording import read_recording; "
        "from tower.calibration.summaries import session_series; "
        "r = read_recording(sys.argv[1]); "
        "print([float(x).hex() for s in r.sessions for x in session_series(s).mix])"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code, str(rec)], capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(outs) == 1
