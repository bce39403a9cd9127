"""``tower stats``: retention and dislodge statistics of a tower model or of physics traces."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tower.cli.options import force_option
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
@click.option("--physics", is_flag=True, help="Statistics of the simulator (see --traces).")
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
    help="With --physics.",
)  # fmt: skip
@click.option(
    "--params",
    "params_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --physics: physics parameters (default: the built-in defaults).",
)
@click.option("--sizes", default="6,9,12", show_default=True, help="Keshis per throw.")
@click.option(
    "--sequences", default=2000, type=click.IntRange(1), show_default=True,
    help="Model sequences per size.",
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
    "rounds, --keshis keshis a round).",
)
@click.option(
    "--keshis",
    default=12,
    show_default=True,
    type=click.IntRange(0, 40),
    help="With --experts: players' keshis thrown each round.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Write stats.json and retention.png here.",
)
@force_option
def stats(
    model_spec: str | None,
    physics: bool,
    traces_path: Path | None,
    sims: int,
    preset: str,
    params_file: Path | None,
    sizes: str,
    sequences: int,
    throws: int,
    seed: int,
    experts: int | None,
    keshis: int,
    out_dir: Path | None,
    force: bool,
) -> None:
    """Print (and plot) retention statistics for throws of 6, 9 and 12 keshis.

    The equilibrium number inside, pieces out per throw against pieces in, the fresh
    share among pieces out, how many throws a piece stays inside, and the chance that a
    thrown colour comes out in the same throw.
    """
    from tower.analysis.plots import plot_retention
    from tower.analysis.retention import (
        format_summary,
        keshi_plans,
        model_records,
        summarize,
        trace_record,
    )

    wanted = _sizes(sizes)
    folder = None
    if out_dir is not None:
        folder = OutputFolder(out_dir, "stats", force=force)
        folder.check(["experts.json"] if experts else ["stats.json", "retention.png"])
    if physics and model_spec:
        raise TowerError("give either --model or --physics, not both")
    if experts is not None:
        if physics:
            raise TowerError("--experts runs a model; physics traces with experts: not yet")
        _expert_stats(model_spec, experts, keshis, sequences, throws, seed, folder)
        return
    per_size = {}
    if physics:
        from tower.traces import read_traces

        if traces_path is not None:
            files = [traces_path]
            label = f"physics ({traces_path.name})"
        else:  # simulate (or resume) one trace file per throw size
            from tower.cli.distill import simulate_traces

            cache = out_dir or Path("out/stats")
            files = [
                simulate_traces(
                    sims, preset, params_file, cache / f"physics-{preset}-{n}.jsonl", pieces=n
                )
                for n in wanted
            ]
            label = f"physics ({preset}, {sims} sequences per size)"
        grouped: dict[int, list] = {}
        for path in files:
            for seq in read_traces(path):
                counts = {len(t.thrown) for t in seq.throws}
                if len(counts) == 1 and (n := counts.pop()) in wanted:
                    grouped.setdefault(n, []).append(trace_record(seq))
        missing = [n for n in wanted if n not in grouped]
        if missing:
            click.echo(f"note: no physics sequences of constant throw size {missing}")
        per_size = {n: summarize(recs) for n, recs in sorted(grouped.items())}
    else:
        from tower.cli.validate_model import open_model

        model_spec = model_spec or "shipped:marrakesh"
        model = open_model(model_spec)
        label = f"model {model_spec}"
        for n in wanted:
            recs = model_records(model, keshi_plans(sequences, n, throws), seed=seed + n)
            per_size[n] = summarize(recs)
    click.echo(f"retention statistics of {label}")
    for n, s in per_size.items():
        click.echo(format_summary(n, s))
    if folder is not None and per_size:
        doc = {"source": label, "sizes": {str(n): s for n, s in per_size.items()}}
        folder.write_text("stats.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
        with folder.path_for("retention.png") as tmp:
            plot_retention({label: per_size}, tmp, title=label)
        click.echo(f"wrote {folder.path / 'stats.json'} and {folder.path / 'retention.png'}")


def _expert_stats(
    model_spec: str | None,
    k: int,
    keshis: int,
    sequences: int,
    rounds: int,
    seed: int,
    folder: OutputFolder | None,
) -> None:
    """``tower stats --experts K``: expert keshis through a model (``tower.analysis.experts``)."""
    from tower.analysis.experts import expert_rounds, format_experts, summarize_experts
    from tower.cli.validate_model import open_model

    model_spec = model_spec or "shipped:marrakesh"
    model = open_model(model_spec)
    summary = summarize_experts(
        expert_rounds(model, k, keshis=keshis, rounds=rounds, sequences=sequences, seed=seed)
    )
    click.echo(f"expert keshi statistics of model {model_spec}, {keshis} keshis a round")
    click.echo(format_experts(k, summary))
    if folder is not None:
        doc = {
            "schema": "tower.stats.experts/1",
            "source": f"model {model_spec}",
            "experts": k,
            "keshis": keshis,
            "seed": seed,
            "summary": summary,
        }
        folder.write_text("experts.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
        click.echo(f"wrote {folder.path / 'experts.json'}")
