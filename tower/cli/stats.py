"""``tower stats``: retention and dislodge statistics of a tower model or of physics traces."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from tower.cli.options import cluster_options, force_option, out_option
from tower.errors import TowerError
from tower.files.inputs import LIMITS
from tower.files.outputs import OutputFolder
from tower.geometry.spec import PRESETS


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise TowerError(f"--sizes: expected comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) < 1 or max(sizes) > LIMITS["pieces_per_throw"]:
        raise TowerError(
            f"--sizes: expected throw sizes 1 to pieces_per_throw = "
            f"{LIMITS['pieces_per_throw']}, got {text!r}"
        )
    return sizes


@click.command()
@click.option(
    "--model",
    "model_spec",
    default=None,
    metavar="FILE|shipped:NAME|baseline",
    help="Model to run (default: the shipped marrakesh model).",
)
@click.option(
    "--physics", is_flag=True,
    help="Statistics of the simulator (see --traces; with --experts: simulated rounds).",
)  # fmt: skip
@click.option(
    "--traces",
    "traces_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --physics: a trace file to use (grouped by throw size) instead of simulating.",
)
@click.option(
    "--sims",
    default=200,
    type=click.IntRange(1),
    show_default=True,
    help="With --physics and no --traces: sequences simulated (or resumed) per throw size.",
)
@click.option(
    "--preset", type=click.Choice(PRESETS), default="marrakesh", show_default=True,
    help="With --physics or --compare-physics.",
)  # fmt: skip
@click.option(
    "--params",
    "params_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --physics or --compare-physics: physics parameters (default: the built-in "
    "defaults).",
)
@click.option("--sizes", default="6,9,12", show_default=True, help="Keshis per throw.")
@click.option(
    "--sequences",
    default=2000,
    type=click.IntRange(1),
    show_default=True,
    help="Model sequences per size (with --experts: sequences of rounds; with --experts "
    "--physics: simulated sequences, default 100 there).",
)
@click.option(
    "--throws", default=12, type=click.IntRange(1, 1000), show_default=True,
    help="Throws per sequence.",
)  # fmt: skip
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--experts",
    "experts",
    type=click.IntRange(1, 5),
    default=None,
    metavar="K",
    help="The Experts: with K face-up expert tiles, the law of expert keshis out per "
    "round and how many rounds a stuck expert stays (--sequences sequences of --throws "
    "rounds, --keshis keshis a round); with --physics in simulated towers (--preset, "
    "--params), with --compare-physics N against them.",
)
@click.option(
    "--keshis",
    default=12,
    show_default=True,
    type=click.IntRange(0, 40),
    help="With --experts: players' keshis thrown each round.",
)
@click.option(
    "--compare-physics",
    "compare_n",
    type=click.IntRange(1),
    default=None,
    metavar="N",
    help="With --experts: also simulate N physics sequences and compare every expert "
    "statistic of the model (--sequences sequences) with physics, within Monte Carlo error.",
)
@cluster_options("physics expert sequences")
@out_option(
    "out_dir",
    "Write stats.json and retention.png here (with --experts: experts.json, the "
    "resumable physics-experts.jsonl and experts-compare.png).",
    folder=None,
)
@force_option
@click.pass_context
def stats(
    ctx: click.Context, model_spec: str | None, physics: bool, traces_path: Path | None,
    sims: int, preset: str, params_file: Path | None, sizes: str, sequences: int,
    throws: int, seed: int, experts: int | None, keshis: int, compare_n: int | None,
    workers: int | None, scheduler: str | None, out_dir: Path | None, force: bool,
) -> None:  # fmt: skip
    """Print (and plot) retention statistics for throws of 6, 9 and 12 keshis.

    The equilibrium number inside, pieces out per throw against pieces in, the fresh
    share among pieces out, how many throws a piece stays inside, and the chance that a
    thrown colour comes out in the same throw.

    With --experts K: expert keshis out per round and how long a stuck one stays, on the
    model, in simulated towers (--physics), or both compared statistic by statistic
    within Monte Carlo error (--compare-physics N; see docs/experts.md).
    """
    from tower.analysis.retention import format_summary, model_summaries

    wanted = _sizes(sizes)
    if physics and model_spec:
        raise TowerError("give either --model or --physics, not both")
    if experts is not None:
        run = ExpertRun(experts, keshis, throws, seed, preset, params_file, workers,
                        scheduler, force)  # fmt: skip
        return _experts(ctx, run, model_spec, physics, traces_path, sequences, compare_n, out_dir)
    if compare_n is not None:
        raise TowerError("--compare-physics compares expert statistics: add --experts K")
    folder = _stats_folder(out_dir, force)
    if physics:
        label, per_size = _physics_summaries(traces_path, sims, preset, params_file, wanted,
                                             out_dir)  # fmt: skip
    else:
        label, model = _opened(model_spec)
        per_size = model_summaries(model, wanted, sequences, throws, seed)
    click.echo("\n".join([f"retention statistics of {label}",
                          *(format_summary(n, s) for n, s in per_size.items())]))  # fmt: skip
    if folder is not None and per_size:
        _write_stats(folder, label, per_size)


def _stats_folder(out_dir: Path | None, force: bool) -> OutputFolder | None:
    if out_dir is None:
        return None
    folder = OutputFolder(out_dir, "stats", force=force)
    folder.check(["stats.json", "retention.png"])
    return folder


def _opened(model_spec: str | None) -> tuple[str, Any]:
    """``--model`` (default: the shipped marrakesh model) and its label."""
    from tower.model import open_model

    model_spec = model_spec or "shipped:marrakesh"
    return f"model {model_spec}", open_model(model_spec)


def _physics_summaries(
    traces_path: Path | None, sims: int, preset: str, params_file: Path | None,
    wanted: list[int], out_dir: Path | None,
) -> tuple[str, dict[int, dict[str, Any]]]:  # fmt: skip
    """Statistics of a trace file, else of ``sims`` simulated (or resumed) sequences per
    throw size, cached in ``out_dir`` (default ``out/stats``)."""
    from tower.analysis.retention import trace_summaries

    if traces_path is not None:
        files, label = [traces_path], f"physics ({traces_path.name})"
    else:
        from tower.model.pipeline import simulate_traces

        cache = out_dir or Path("out/stats")
        files = [cache / f"physics-{preset}-{n}.jsonl" for n in wanted]
        for n, path in zip(wanted, files, strict=True):
            simulate_traces(sims, preset, params_file, path, pieces=n)
        label = f"physics ({preset}, {sims} sequences per size)"
    per_size, missing = trace_summaries(files, wanted)
    if missing:
        click.echo(f"note: no physics sequences of constant throw size {missing}")
    return label, per_size


def _write_stats(folder: OutputFolder, label: str, per_size: dict[int, Any]) -> None:
    from tower.analysis.plots import plot_retention

    doc = {"source": label, "sizes": {str(n): s for n, s in per_size.items()}}
    folder.write_text("stats.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    with folder.path_for("retention.png") as tmp:
        plot_retention({label: per_size}, tmp, title=label)
    click.echo(f"wrote {folder.path / 'stats.json'} and {folder.path / 'retention.png'}")


#: Physics expert sequences when --sequences is not given (the model default, 2000, would
#: take hours of simulation).
PHYSICS_SEQUENCES = 100
#: Files of an expert run in its --out folder.
EXPERT_FILES = ("experts.json", "physics-experts.jsonl", "experts-compare.png")


@dataclass(frozen=True)
class ExpertRun:
    """The settings of an expert run that model and physics sides share."""

    k: int
    keshis: int
    rounds: int
    seed: int
    preset: str
    params_file: Path | None
    workers: int | None
    scheduler: str | None
    force: bool


def _experts(
    ctx: click.Context, run: ExpertRun, model_spec: str | None, physics: bool,
    traces_path: Path | None, sequences: int, compare_n: int | None, out_dir: Path | None,
) -> None:  # fmt: skip
    """``tower stats --experts K``: on the model, or with ``--physics`` in simulated towers."""
    _check_expert_options(ctx, physics, traces_path, compare_n)
    if physics:
        n = sequences if _given(ctx, "sequences") else PHYSICS_SEQUENCES
        return _expert_physics(run, n, out_dir)
    return _expert_stats(run, model_spec, sequences, compare_n, out_dir)


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT


def _check_expert_options(
    ctx: click.Context, physics: bool, traces: Path | None, compare_n: int | None
) -> None:
    """Refuse options that an expert run would silently ignore."""
    if traces is not None:
        raise TowerError("--experts simulates its own rounds: --traces is not used")
    if _given(ctx, "sims"):
        raise TowerError("--experts counts sequences with --sequences (or --compare-physics N)")
    if physics and compare_n is not None:
        raise TowerError("give either --physics or --compare-physics N, not both")
    if not (physics or compare_n) and any(
        _given(ctx, o) for o in ("preset", "params_file", "workers", "scheduler")
    ):
        raise TowerError("--preset, --params, --workers and --scheduler need --physics or "
                         "--compare-physics N")  # fmt: skip


def _expert_folder(run: ExpertRun, out_dir: Path | None, names: tuple[str, ...]) -> Any:
    if out_dir is None:
        return None
    folder = OutputFolder(out_dir, "stats", force=run.force)
    folder.check(names)
    return folder


def _write_doc(folder: Any, doc: dict[str, Any]) -> None:
    if folder is not None:
        folder.write_text("experts.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
        click.echo(f"wrote {folder.path / 'experts.json'}")


def _run_physics(run: ExpertRun, sequences: int, folder: Any) -> tuple[Any, dict[str, Any]]:
    """Simulate (or resume) the physics expert sequences; the result and its JSON part."""
    from tower.analysis.experts_physics import RETRIES, physics_expert_rounds
    from tower.cli.options import load_physics

    spec, params = load_physics(run.preset, None, run.params_file)
    log = None if folder is None else folder.path / "physics-experts.jsonl"

    def simulate() -> Any:
        return physics_expert_rounds(
            spec, params, run.k, keshis=run.keshis, rounds=run.rounds, sequences=sequences,
            seed=run.seed, log=log, workers=run.workers, scheduler=run.scheduler,
            force=run.force,
        )  # fmt: skip

    if folder is None:
        click.echo("note: no --out, so the physics log is not kept (give --out to resume)")
        result = simulate()
    else:
        with folder.claiming(["physics-experts.jsonl"]):
            result = simulate()
    source = f"physics {run.preset}" + (f" ({run.params_file.name})" if run.params_file else "")
    part = {
        "source": source,
        "sequences": sequences,
        "rounds": result.rounds,
        "retries": RETRIES,
        "rethrows": result.rethrows,
    }
    click.echo(
        f"{source}: {sequences} sequences ({result.simulated} simulated now, the others "
        f"from the log), {result.rounds} rounds, {result.rethrows} throws re-thrown after "
        f"the simulation lost a piece (at most {RETRIES} each)"
    )
    return result, part


def _expert_physics(run: ExpertRun, sequences: int, out_dir: Path | None) -> None:
    """``tower stats --experts K --physics``: the expert loop in simulated towers."""
    from tower.analysis.experts import format_experts, summarize_experts

    folder = _expert_folder(run, out_dir, EXPERT_FILES[:2])
    result, part = _run_physics(run, sequences, folder)
    summary = summarize_experts(result.records)
    click.echo(f"expert keshi statistics of {part['source']}, {run.keshis} keshis a round")
    click.echo(format_experts(run.k, summary))
    _write_doc(folder, {**_doc_head(run, part["source"]), "physics": part, "summary": summary})


def _doc_head(run: ExpertRun, source: str) -> dict[str, Any]:
    return {
        "schema": "tower.stats.experts/1",
        "source": source,
        "experts": run.k,
        "keshis": run.keshis,
        "seed": run.seed,
    }


def _expert_stats(
    run: ExpertRun,
    model_spec: str | None,
    sequences: int,
    compare_n: int | None,
    out_dir: Path | None,
) -> None:
    """``tower stats --experts K``: expert keshis through a model (``tower.analysis.experts``),
    and with ``--compare-physics N`` against N simulated sequences."""
    from tower.analysis.experts import expert_rounds, format_experts, summarize_experts
    from tower.model import open_model

    folder = _expert_folder(run, out_dir, EXPERT_FILES if compare_n else EXPERT_FILES[:1])
    model_spec = model_spec or "shipped:marrakesh"
    model = open_model(model_spec)
    records = expert_rounds(
        model, run.k, keshis=run.keshis, rounds=run.rounds, sequences=sequences, seed=run.seed
    )
    summary = summarize_experts(records)
    click.echo(f"expert keshi statistics of model {model_spec}, {run.keshis} keshis a round")
    click.echo(format_experts(run.k, summary))
    doc = {**_doc_head(run, f"model {model_spec}"), "summary": summary}
    if compare_n:
        from tower.analysis.experts import compare_experts, format_comparison
        from tower.analysis.plots import plot_expert_comparison

        physics, part = _run_physics(run, compare_n, folder)
        click.echo(format_experts(run.k, p_summary := summarize_experts(physics.records)))
        cmp = compare_experts(records, physics.records, run.k)
        click.echo(f"model {model_spec} ({sequences} sequences) against {part['source']}:")
        click.echo(format_comparison(cmp))
        doc["schema"] = "tower.stats.experts-compare/1"
        doc |= {"physics": {**part, "summary": p_summary}, "comparison": cmp.to_json()}
        if folder is not None:
            with folder.path_for("experts-compare.png") as tmp:
                plot_expert_comparison(cmp, tmp, title=f"model {model_spec} vs {part['source']}")
            click.echo(f"wrote {folder.path / 'experts-compare.png'}")
    _write_doc(folder, doc)
