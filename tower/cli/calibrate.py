"""``tower calibrate``: fit the simulator to recorded throws (``tower calibrate REC --out DIR``),
plan a recording (``tower calibrate plan``) and check the fit's coverage
(``tower calibrate coverage``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tower.calibration import DEFAULT_BUDGET, DEFAULT_CHECKS
from tower.cli.options import cluster_options, force_option, preset_option
from tower.files.outputs import OutputFolder

if TYPE_CHECKING:
    from tower.calibration.calibrate import Calibration
    from tower.calibration.plan import Protocol

#: What ``calibrate`` writes into --out (checked against the output policy before the fit).
OUTPUTS = (
    "params.json", "posterior.csv", "fit.json", "report.md", "out_by_n.png",
    "inside_over_time.png", "fresh_old.png", "colour_mixing.png", "posterior.png",
    "cache/replays.jsonl", "model.json",
)  # fmt: skip

SIMULATOR_CHOICE = click.Choice(["physics", "baseline"])


class _FitByDefault(click.Group):
    """``tower calibrate REC ...`` means ``tower calibrate fit REC ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["fit", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_FitByDefault)
def calibrate() -> None:
    """Calibrate the simulator against a recording (`tower calibrate REC --out DIR`),
    plan a recording (`plan`), or check the intervals' coverage (`coverage`)."""


def _out_option(help_text: str, required: bool = True) -> Callable:
    return click.option(
        "--out", "out_dir", required=required,
        type=click.Path(file_okay=False, path_type=Path), help=help_text,
    )  # fmt: skip


def _simulator_option(default: str) -> Callable:
    return click.option(
        "--simulator", "simulator_name", default=default, show_default=True,
        type=SIMULATOR_CHOICE,
        help="physics: the pybullet tower; baseline: the two-chance tower model.",
    )  # fmt: skip


_design_budget = click.option("--budget", type=click.IntRange(min=8), default=40,
                              show_default=True, help="Full design replays per fit.")  # fmt: skip


@calibrate.command("fit")
@click.argument("recording", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_out_option("Directory for params.json, posterior.csv, fit.json, report.md and PNGs.")
@preset_option
@_simulator_option("physics")
@click.option(
    "--budget",
    type=click.IntRange(min=8),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Full design replays of the training throws (clog screening adds half as many "
    "short ones, at least 8 per fitted parameter).",
)
@click.option("--waves", type=click.IntRange(min=1), default=2, show_default=True,
              help="Design waves: the first over the prior, the others around the posterior.")
@click.option(
    "--checks",
    type=click.IntRange(min=2),
    default=DEFAULT_CHECKS,
    show_default=True,
    help="Posterior predictive replays for the report.",
)
@cluster_options("replays")
@click.option(
    "--holdout",
    type=click.FloatRange(0, 0.9),
    default=0.25,
    show_default=True,
    help="Share of each session's throws (its tail) held out of the fit.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--fit",
    "fit_names",
    default=None,
    help="Comma-separated parameters to fit (default: see calibration/README.md).",
)
@click.option(
    "--params",
    "params_path",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Params file giving the values of the parameters not fitted.",
)
@click.option(
    "--engine", type=click.Choice(["bank", "gp"]), default=None,
    help="bank: score every throw with the likelihood learned from the committed physics "
    "bank (seconds, no physics; the default for the physics); gp: replay the recording by "
    "simulation and emulate its statistics (an hour with physics; the baseline's engine).",
)  # fmt: skip
@click.option(
    "--surrogate", "surrogate_path", default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The bank engine's learned likelihood (default: the shipped one).",
)  # fmt: skip
@click.option(
    "--physics-checks", type=click.IntRange(min=0), default=0, show_default=True,
    help="Bank engine: also replay the physics at this many posterior draws and check the "
    "held-out throws against them (minutes; 0: the checks draw from the learned likelihood).",
)  # fmt: skip
@click.option(
    "--model-sims", type=click.IntRange(min=0), default=0, show_default=True,
    help="Also write model.json, your tower as a model file: distilled from this many "
    "physics sequences of 12 keshis and as many Walls & Guards mixes at the posterior "
    "medians (minutes per hundred; resumable). 0: the report says how.",
)  # fmt: skip
@click.option("--quiet", is_flag=True, help="No progress bars.")
@force_option
def fit_command(
    recording: Path, out_dir: Path, preset: str, simulator_name: str, budget: int, waves: int,
    checks: int, scheduler: str | None, workers: int | None, holdout: float, seed: int,
    fit_names: str | None, params_path: Path | None, engine: str | None,
    surrogate_path: Path | None, physics_checks: int, model_sims: int, quiet: bool,
    force: bool = False,
) -> None:  # fmt: skip
    """Calibrate the simulator against RECORDING (.csv or .jsonl) and report the fit.

    Prints what the tower does before and after the recording (key statistics), the
    parameter directions the recording pins down and each parameter's 90% interval; writes
    params.json (usable as --params), posterior.csv, fit.json and report.md into --out.
    """
    from tower.calibration.calibrate import Settings
    from tower.calibration.calibrate import calibrate as run

    settings = Settings(
        budget=budget, holdout=holdout, seed=seed, checks=checks, waves=waves,
        engine=engine, surrogate=None if surrogate_path is None else str(surrogate_path),
        physics_checks=physics_checks, model_sims=model_sims, scheduler=scheduler,
        workers=workers, progress=not quiet,
    )  # fmt: skip
    from tower.calibration.recording import read_recording

    folder = OutputFolder(out_dir, "calibrate", force=force)
    folder.check(OUTPUTS)
    read_recording(recording)  # a bad recording or params file fails before any write
    if params_path is not None:
        from tower.physics.params_file import load_params

        load_params(params_path)

    names = [n.strip() for n in fit_names.split(",") if n.strip()] if fit_names else None
    with folder.claiming(OUTPUTS):
        done = run(recording, out_dir, simulator_name, settings, preset=preset,
                   fit_names=names, params_path=params_path)  # fmt: skip
    _echo_calibration(done)
    click.echo(
        f"wrote {out_dir / 'report.md'} and {out_dir / 'params.json'} ({done.seconds:.0f} s)"
    )


def _echo_calibration(done: Calibration) -> None:
    """The fit in a few lines: the headline statistics, each parameter's 90% interval, the
    method and the held-out checks."""
    from tower.calibration.report import headline

    truth = {k: float(v) for k, v in done.truth_theta.items()} if done.truth_theta else None
    click.echo("\n".join(headline(done.result, done.truth_keys, truth)))
    width = max(len(f.parameter.name) for f in done.result.fits)
    for f in done.result.fits:
        flag = "" if f.identifiable else "  (not identifiable)"
        click.echo(
            f"{f.parameter.name:<{width}}  {f.median:10.4g}  90% [{f.low:.4g}, {f.high:.4g}]{flag}"
        )
    for line in done.result.method_lines():
        if line.startswith("- "):
            click.echo(line.removeprefix("- "))
    poor = [c.name for c in done.checks if c.p_value < 0.05]
    click.echo(f"held-out checks: {len(done.checks)} run, poor fit on: {', '.join(poor) or 'none'}")


@calibrate.command("plan")
@_out_option("Directory for plan.md and plan.json (and the replay cache); not needed with "
             "--list.", required=False)
@_simulator_option("physics")
@preset_option
@click.option("--protocols", default=None,
              help="Comma-separated protocol names (default: all; see --list).")  # fmt: skip
@click.option("--list", "list_only", is_flag=True, help="List the protocols and exit.")
@click.option("--engine", type=click.Choice(["bank", "gp"]), default=None,
              help="bank (the default for the physics): recordings drawn from the learned "
              "likelihood and fitted by it, minutes, no physics; only protocols of 12 keshis "
              "a throw. gp (the default for the baseline): simulate and fit by replaying.")
@click.option("--surrogate", "surrogate_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Bank engine: the learned likelihood (default: the shipped one).")
@click.option("--truths", type=click.IntRange(min=1), default=3, show_default=True,
              help="True parameter values drawn from the prior, per protocol.")  # fmt: skip
@_design_budget
@click.option("--minutes", type=click.FloatRange(min=1), default=45.0, show_default=True,
              help="Minutes of recording (an hour at the table, less setting up).")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
@cluster_options("replays")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@force_option
def plan_command(
    out_dir: Path | None, simulator_name: str, preset: str, protocols: str | None, list_only: bool,
    engine: str | None, surrogate_path: Path | None, truths: int, budget: int, minutes: float,
    seed: int, scheduler: str | None, workers: int | None, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Compare recording protocols by simulation and recommend one.

    For each protocol: simulated recordings at truths drawn from the prior, each fitted;
    reports how much the key tower statistics narrow and which parameter directions get
    pinned down.
    """
    from tower.calibration.calibrate import make_simulator
    from tower.calibration.execute import ReplayRunner
    from tower.calibration.plan import load_protocols, plan_markdown, protocol_plan, run_plan
    from tower.calibration.recording import Recording

    known = load_protocols()
    if list_only:
        for p in known:
            n = sum(len(s.throws) for s in protocol_plan(p, minutes))
            click.echo(f"{p.name:<20} {n:4d} throws  {p.text}")
        return
    chosen = _chosen_protocols(known, protocols)
    if out_dir is None:
        raise click.UsageError("Missing option '--out' (needed unless --list).")
    if (engine or ("bank" if simulator_name == "physics" else "gp")) == "bank":
        _bank_plan(chosen, out_dir, surrogate_path, preset, truths, seed, minutes, force)
        return
    simulator = make_simulator(simulator_name, Recording(()), preset=preset)
    outputs = ("plan.md", "plan.json", "cache/replays.jsonl")
    folder = OutputFolder(out_dir, "calibrate plan", force=force)
    folder.check(outputs)
    with folder.claiming(outputs):
        runner = ReplayRunner(simulator, out_dir / "cache" / "replays.jsonl",
                              scheduler=scheduler, workers=workers, progress=not quiet)
        found = run_plan(simulator, chosen, out_dir, runner, truths=truths, budget=budget,
                         seed=seed, minutes=minutes)  # fmt: skip
    click.echo(plan_markdown(found, {}))
    click.echo(f"wrote {out_dir / 'plan.md'} and {out_dir / 'plan.json'}")


def _bank_plan(
    chosen: list[Protocol], out_dir: Path, surrogate_path: Path | None, preset: str, truths: int,
    seed: int, minutes: float, force: bool,
) -> None:  # fmt: skip
    """``plan`` by the bank engine: no physics, minutes."""
    from tower.calibration.bankplan import run_bank_plan
    from tower.calibration.plan import plan_markdown
    from tower.calibration.surrogate import DEFAULT_SURROGATE

    folder = OutputFolder(out_dir, "calibrate plan", force=force)
    folder.check(("plan.md", "plan.json"))
    with folder.claiming(("plan.md", "plan.json")):
        found, skipped = run_bank_plan(chosen, out_dir, surrogate_path or DEFAULT_SURROGATE,
                                       preset=preset, truths=truths, seed=seed,
                                       minutes=minutes)  # fmt: skip
    click.echo(plan_markdown(found, {f"left out {k}": v for k, v in skipped.items()}))
    click.echo(f"wrote {out_dir / 'plan.md'} and {out_dir / 'plan.json'}")


def _chosen_protocols(known: list[Protocol], protocols: str | None) -> list[Protocol]:
    """The protocols named in the comma-separated ``protocols`` (all ``known`` if none)."""
    from tower.errors import TowerError

    if not protocols:
        return known
    wanted = [n.strip() for n in protocols.split(",") if n.strip()]
    unknown = sorted(set(wanted) - {p.name for p in known})
    if unknown:
        raise TowerError(f"unknown protocol(s) {unknown}; known: {[p.name for p in known]}")
    return [p for p in known if p.name in wanted]


@calibrate.command("coverage")
@_out_option("Directory for coverage.md and coverage.json (and what resumes the run).")
@click.option(
    "--engine", type=click.Choice(["bank", "gp"]), default=None,
    help="bank (the default for the physics): fresh physics recordings fitted by the bank "
    "engine, with rank histograms; gp (the default for the baseline): the replaying engine.",
)  # fmt: skip
@_simulator_option("physics")
@preset_option
@click.option("--recordings", type=click.IntRange(min=1), default=100, show_default=True,
              help="Recordings at truths drawn from the prior.")  # fmt: skip
@click.option("--throws", type=click.IntRange(min=10), default=200, show_default=True,
              help="Throws per recording.")  # fmt: skip
@click.option("--pieces", type=click.IntRange(min=1), default=12, show_default=True,
              help="GP engine: keshis per throw (colours in groups of three).")  # fmt: skip
@click.option("--colours", type=click.IntRange(min=1, max=12), default=1, show_default=True,
              help="Bank engine: colours per throw (1: the recommended protocol).")
@click.option("--truth-throws", type=click.IntRange(min=10), default=100, show_default=True,
              help="Bank engine: throws of the independent replay that gives the true key "
              "statistics.")  # fmt: skip
@click.option("--surrogate", "surrogate_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Bank engine: the learned likelihood (default: the shipped one).")
@click.option("--fits-only", is_flag=True,
              help="Bank engine: fit the recordings already in --out (such as the committed "
              "calibration/coverage), making no new ones: minutes, no physics.")
@_design_budget
@click.option("--fit", "fit_names", default=None,
              help="GP engine: comma-separated physics parameters to fit.")
@click.option("--seed", type=int, default=None,
              help="Seed of the truths (default: 7001 for the bank engine, 0 for gp).")
@cluster_options("replays")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@force_option
def coverage_command(
    out_dir: Path, engine: str | None, simulator_name: str, preset: str, recordings: int,
    throws: int,
    pieces: int, colours: int, truth_throws: int, surrogate_path: Path | None, fits_only: bool,
    budget: int, fit_names: str | None, seed: int | None, scheduler: str | None,
    workers: int | None, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Coverage of the 90% intervals over recordings at truths from the prior.

    Bank engine (default): fresh physics recordings (not in the bank), each fitted in
    seconds; counts parameters, pinned directions and key statistics whose interval holds
    the truth, and draws rank histograms. Resumable. GP engine: synthetic recordings by
    --simulator, each fitted by replaying (slow with the physics).
    """
    if (engine or ("bank" if simulator_name == "physics" else "gp")) == "bank":
        if simulator_name != "physics":
            raise click.UsageError("--engine bank checks the physics; use --engine gp")
        _bank_coverage(out_dir, preset, recordings, throws, colours, truth_throws,
                       surrogate_path, 7001 if seed is None else seed, scheduler, workers,
                       quiet, force, fits_only)  # fmt: skip
    else:
        _gp_coverage(out_dir, simulator_name, preset, recordings, throws, pieces, budget,
                     fit_names, seed or 0, scheduler, workers, quiet, force)  # fmt: skip


def _gp_coverage(
    out_dir: Path, simulator_name: str, preset: str, recordings: int, throws: int,
    pieces: int, budget: int, fit_names: str | None, seed: int, scheduler: str | None,
    workers: int | None, quiet: bool, force: bool,
) -> None:  # fmt: skip
    from tower.calibration.calibrate import make_simulator
    from tower.calibration.coverage import run_coverage
    from tower.calibration.recording import Recording
    from tower.calibration.synthetic import synthetic_plan

    names = [n.strip() for n in fit_names.split(",") if n.strip()] if fit_names else None
    simulator = make_simulator(simulator_name, Recording(()), preset=preset, fit_names=names)

    def progress(k: int, row: dict) -> None:
        if not quiet:
            hits = sum(row["parameters"].values()) + sum(row["key_statistics"].values())
            total = len(row["parameters"]) + len(row["key_statistics"])
            click.echo(f"recording {k + 1}/{recordings}: {hits}/{total} intervals hold the "
                       f"truth, {row['pinned']} directions pinned ({row['seconds']:.0f} s)",
                       err=True)  # fmt: skip

    outputs = ("coverage.md", "coverage.json", "cache/replays.jsonl")
    folder = OutputFolder(out_dir, "calibrate coverage", force=force)
    folder.check(outputs)
    with folder.claiming(outputs):
        found = run_coverage(simulator, synthetic_plan(throws, pieces), out_dir,
                             recordings=recordings, budget=budget, seed=seed,
                             scheduler=scheduler, workers=workers, progress=not quiet,
                             report=progress)  # fmt: skip
    click.echo(found.markdown(f"Coverage: {simulator.name} simulator"))
    click.echo(f"wrote {out_dir / 'coverage.md'} and {out_dir / 'coverage.json'}")


def _bank_coverage(
    out_dir: Path, preset: str, recordings: int, throws: int, colours: int, truth_throws: int,
    surrogate_path: Path | None, seed: int, scheduler: str | None, workers: int | None,
    quiet: bool, force: bool, fits_only: bool,
) -> None:  # fmt: skip
    from tower.calibration.sbc import CoverageSettings, run_bank_coverage
    from tower.calibration.surrogate import DEFAULT_SURROGATE

    settings = CoverageSettings(recordings, throws, truth_throws, colours, seed, preset)
    outputs = ("coverage.md", "coverage.json", "coverage_ranks.png", "recordings.jsonl",
               "fits.jsonl")  # fmt: skip
    folder = OutputFolder(out_dir, "calibrate coverage", force=force)
    folder.check(outputs)
    with folder.claiming(outputs):
        run_bank_coverage(out_dir, settings, surrogate_path or DEFAULT_SURROGATE,
                          workers=workers, scheduler=scheduler, progress=not quiet,
                          new_recordings=not fits_only)  # fmt: skip
    click.echo((out_dir / "coverage.md").read_text())


@calibrate.group("bank")
def bank_group() -> None:
    """The physics bank and the likelihood learned from it (`build`, `train`)."""


@bank_group.command("build")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Bank file (default: the shipped one, extended in place).")
@click.option("--points", type=click.IntRange(min=1), default=2048, show_default=True,
              help="Parameter points; more than the file holds extends it, a rerun resumes.")
@click.option("--throws", type=click.IntRange(min=2), default=36, show_default=True,
              help="Throws per point, from an empty tower.")
@click.option("--design-seed", type=int, default=20261206, show_default=True,
              help="Seed of the scrambled Sobol design (and of each point's physics).")
@preset_option
@cluster_options("bank points")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@force_option
def bank_build_command(
    out_path: Path | None, points: int, throws: int, design_seed: int, preset: str,
    scheduler: str | None, workers: int | None, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Make (or extend, or resume) the physics bank: POINTS parameter points over the
    prior, one sequence of the recording protocol at each, written point by point."""
    from tower.calibration.bank import DEFAULT_BANK, BankSettings, build

    settings = BankSettings(preset=preset, points=points, throws=throws, design_seed=design_seed)
    done = build(out_path or DEFAULT_BANK, settings, workers=workers, scheduler=scheduler,
                 progress=not quiet, force=force)  # fmt: skip
    click.echo(f"{done['path']}: {done['done']} points made, {done['skipped']} already there")


@bank_group.command("train")
@click.option("--bank", "bank_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Bank file (default: the shipped one).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="The surrogate file to write (JSON).")
@click.option("--members", type=click.IntRange(min=1), default=4, show_default=True,
              help="Ensemble members: one learns from all the training points, more each "
              "from a bootstrap resample of them.")
@click.option("--train-points", type=click.IntRange(min=20), default=None,
              help="Train on the bank's first N points and temper on the rest (default: "
              "three quarters; all with --temper-bank).")
@click.option("--temper-bank", "temper_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Temper on this bank's sequences instead (such as the long one, "
              "as long as real recordings).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@force_option
def bank_train_command(
    bank_path: Path | None, out_path: Path, members: int, train_points: int | None,
    temper_path: Path | None, seed: int, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Learn the per-throw likelihood from the bank (minutes; the fit then takes seconds)."""
    from tower.calibration.bank import DEFAULT_BANK, read_bank
    from tower.calibration.surrogate import train
    from tower.files.outputs import check_output

    check_output(out_path, force=force)
    bank = read_bank(bank_path or DEFAULT_BANK)
    temper_bank = read_bank(temper_path) if temper_path else None
    surrogate = train(bank, members=members, seed=seed, progress=not quiet,
                      train_points=train_points, temper_bank=temper_bank)  # fmt: skip
    surrogate.save(out_path, force=force)
    click.echo(f"wrote {out_path}: {members} members from the first "
               f"{surrogate.provenance['train_points']} of {len(bank.u)} points, tempered by "
               f"{', '.join(f'{k:.3f}' for k in surrogate.temper)} "
               f"({surrogate.provenance['temper']})")  # fmt: skip


@bank_group.command("temper")
@click.option("--recordings", "recordings_dir", required=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A coverage run's folder (recordings.jsonl) made at a seed the coverage "
              "check does not use, such as calibration/tempering.")  # fmt: skip
@_out_option("Directory for surrogate.json (the chosen tempering), tempering.md, "
             "tempering.json and each factor's fits (what resumes the run).")
@click.option("--surrogate", "surrogate_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The learned likelihood to temper (default: the shipped one).")
@click.option("--grid", default=None,
              help="Comma-separated factors in (0, 1] (default: 1,0.85,0.7,0.55).")
@cluster_options("fits")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@force_option
def bank_temper_command(
    recordings_dir: Path, out_dir: Path, surrogate_path: Path | None, grid: str | None,
    scheduler: str | None, workers: int | None, quiet: bool, force: bool = False,
) -> None:  # fmt: skip
    """Calibrate the likelihood's tempering on physics recordings as long as real ones:
    the largest factor of the Godambe tempering whose 90% intervals hold the truth in at
    least 90% of parameters and of pinned directions."""
    from tower.calibration.surrogate import DEFAULT_SURROGATE
    from tower.calibration.tempering import GRID, OUTPUTS, run_temper

    try:
        factors = [float(g) for g in grid.split(",")] if grid else list(GRID)
    except ValueError:
        raise click.BadParameter(f"not a list of numbers: {grid!r}", param_hint="--grid") from None
    if not factors or not all(0 < f <= 1 for f in factors):
        raise click.BadParameter(f"factors must lie in (0, 1], got {grid!r}", param_hint="--grid")
    folder = OutputFolder(out_dir, "calibrate bank temper", force=force)
    folder.check(OUTPUTS)
    with folder.claiming(OUTPUTS):
        factor = run_temper(surrogate_path or DEFAULT_SURROGATE, recordings_dir, out_dir,
                            grid=factors, workers=workers, scheduler=scheduler,
                            progress=not quiet)  # fmt: skip
    click.echo((out_dir / "tempering.md").read_text())
    click.echo(f"wrote {out_dir / 'surrogate.json'} (tempering factor {factor:g})")
