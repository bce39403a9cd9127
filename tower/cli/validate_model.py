"""``tower validate-model MODEL --traces HELDOUT.jsonl --out DIR``: model against physics."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click

from tower.cli.options import force_option, out_option
from tower.errors import TowerError
from tower.files.outputs import OutputFolder
from tower.model.pipeline import parse_range, seed_overlap

#: The files ``validate-model`` writes into ``--out``.
REPORT_FILES = ("report.md", "validation.json", "statistics.png", "retention.png")


@click.command("validate-model")
@click.argument("model")
@click.option(
    "--traces",
    "traces_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Held-out simulator traces (JSONL).",
)
@click.option(
    "--sequences",
    "seq_range",
    default=None,
    metavar="START:STOP",
    help="Use only these sequences of the file (e.g. 1000: for the held-out part).",
)
@out_option(
    "out_dir", "Directory for report.md, validation.json and the PNGs.", folder=None, required=True
)
@click.option("--seed", default=0, show_default=True, help="Seed of the model draws.")
@click.option(
    "--level", default=0.01, type=click.FloatRange(0, 1, min_open=True, max_open=True),
    show_default=True, help="Rejection level per test.",
)  # fmt: skip
@click.option(
    "--replicates",
    default=4,
    type=click.IntRange(1, 1000),
    show_default=True,
    help="Model sequences per held-out sequence (for the per-statistic tests).",
)
@click.option(
    "--allow-overlap",
    is_flag=True,
    help="Validate even if held-out sequences were fitted (reported, not refused).",
)
@force_option
def validate_model(
    model: str, traces_path: Path, seq_range: str | None, out_dir: Path, seed: int,
    level: float, replicates: int, allow_overlap: bool, force: bool,
) -> None:  # fmt: skip
    """Compare MODEL (a model file or shipped:NAME) with held-out simulator sequences.

    Runs one chi-square test per sequence statistic (and per kind thrown, when the
    sequences throw several kinds) and a classifier two-sample test, for MODEL and for the
    baseline, and writes a report with plots to --out, with the throw contexts (pieces and
    pawns thrown, pieces inside) where MODEL differs most. Held-out sequences that the model
    was fitted on (same batch seed and seq, from the model's provenance) are refused.
    """
    from tower.analysis.makeup import makeup_differences
    from tower.analysis.onestep import one_step_differences
    from tower.analysis.validation import validate, write_report
    from tower.model import BaselineModel, open_model

    folder = OutputFolder(out_dir, "validate-model", force=force)
    folder.check(REPORT_FILES)
    tested = open_model(model)
    held = _held_out(traces_path, seq_range)
    seeds_line = _no_overlap(tested, traces_path, held, allow_overlap)
    click.echo(f"validating {model} on {len(held)} held-out sequences of {traces_path}")
    click.echo(f"  {seeds_line}")
    models = {tested.name if isinstance(tested, BaselineModel) else "distilled": tested}
    models.setdefault("baseline", BaselineModel())
    verdicts, samples = validate(models, held, seed=seed, level=level, replicates=replicates)
    found = makeup_differences(tested, held, seed=seed, replicates=replicates)
    one_step = one_step_differences(tested, held)
    header = {
        "model": model, "held-out traces": f"{traces_path.name}, sequences {seq_range or 'all'}",
        "seed": seed, "model sequences per held-out sequence": replicates, "seeds": seeds_line,
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        write_report(verdicts, samples, tmp, header=header, level=level, differences=found,
                     one_step=one_step)  # fmt: skip
        folder.copy_in(Path(tmp))
    for v in verdicts:
        click.echo(_verdict_line(v))
    click.echo(f"report: {out_dir / 'report.md'}")


def _no_overlap(tested: Any, traces_path: Path, held: list[Any], allow_overlap: bool) -> str:
    """The seeds line of the report; refuses held-out sequences the model was fitted on
    (unless ``allow_overlap``)."""
    provenance = getattr(tested, "doc", {}).get("provenance") or {}
    overlap, seeds_line = seed_overlap(provenance, traces_path, held)
    if overlap and not allow_overlap:
        raise TowerError(f"{traces_path}: {overlap}")
    return seeds_line


def _held_out(traces_path: Path, seq_range: str | None) -> list[Any]:
    """The sequences ``--sequences`` selects of the trace file."""
    from tqdm import tqdm

    from tower.traces import read_traces

    rows = parse_range(seq_range, "--sequences")
    reading = tqdm(read_traces(traces_path), desc="reading traces", unit="seq", leave=False,
                   disable=None)  # fmt: skip
    held = list(reading)[rows]
    if not held:
        raise TowerError(f"{traces_path}: no sequences in range {seq_range or ':'}")
    return held


def _verdict_line(v: Any) -> str:
    rejected = [t.name for t in v.tests if t.rejected]
    return (
        f"  {v.model:<10} rejected {len(rejected)}/{len(v.tests)} "
        f"{'(' + ', '.join(rejected) + ')' if rejected else ''} classifier accuracy "
        f"{v.accuracy:.3f}  {'PASS' if v.passed else 'FAIL'}"
    )
