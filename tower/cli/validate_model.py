"""``tower validate-model MODEL --traces HELDOUT.jsonl --out DIR``: model against physics."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from tower.cli.options import force_option
from tower.errors import TowerError
from tower.files.outputs import OutputFolder

#: The files ``validate-model`` writes into ``--out``.
REPORT_FILES = ("report.md", "validation.json", "statistics.png", "retention.png")


def open_model(spec: str):
    """A model from a file path, ``shipped:NAME``, ``baseline`` or ``no-retention``."""
    from tower.model import BaselineModel, NoRetentionModel, load_model, load_shipped

    if spec == "baseline":
        return BaselineModel()
    if spec == "no-retention":
        return NoRetentionModel()
    if spec.startswith("shipped:"):
        return load_shipped(spec.split(":", 1)[1])
    return load_model(spec)


def parse_range(text: str | None, what: str) -> slice:
    """``START:STOP`` (either may be empty) as a slice of sequences."""
    if not text:
        return slice(None)
    start, sep, stop = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return slice(int(start) if start else None, int(stop) if stop else None)
    except ValueError:
        raise TowerError(
            f"{what}: expected START:STOP (e.g. 1000: or 0:1000), got {text!r}"
        ) from None


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
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="Directory for report.md, validation.json and the PNGs.",
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
@force_option
def validate_model(
    model: str,
    traces_path: Path,
    seq_range: str | None,
    out_dir: Path,
    seed: int,
    level: float,
    replicates: int,
    force: bool,
) -> None:
    """Compare MODEL (a model file or shipped:NAME) with held-out simulator sequences.

    Runs one chi-square test per sequence statistic and a classifier two-sample test,
    for MODEL and for the baseline, and writes a report with plots to --out.
    """
    from tqdm import tqdm

    from tower.analysis.validation import validate, write_report
    from tower.model import BaselineModel
    from tower.traces import read_traces

    folder = OutputFolder(out_dir, "validate-model", force=force)
    folder.check(REPORT_FILES)
    tested = open_model(model)
    rows = parse_range(seq_range, "--sequences")
    reading = tqdm(read_traces(traces_path), desc="reading traces", unit="seq", leave=False,
                   disable=None)  # fmt: skip
    held = list(reading)[
        rows
    ]
    if not held:
        raise TowerError(f"{traces_path}: no sequences in range {seq_range or ':'}")
    click.echo(f"validating {model} on {len(held)} held-out sequences of {traces_path}")
    models = {tested.name if isinstance(tested, BaselineModel) else "distilled": tested}
    models.setdefault("baseline", BaselineModel())
    verdicts, samples = validate(models, held, seed=seed, level=level, replicates=replicates)
    header = {
        "model": model,
        "held-out traces": f"{traces_path.name}, sequences {seq_range or 'all'}",
        "seed": seed,
        "model sequences per held-out sequence": replicates,
    }
    with tempfile.TemporaryDirectory() as tmp:
        write_report(verdicts, samples, tmp, header=header, level=level)
        folder.copy_in(Path(tmp))
    report = out_dir / "report.md"
    for v in verdicts:
        rejected = [t.name for t in v.tests if t.rejected]
        click.echo(
            f"  {v.model:<10} rejected {len(rejected)}/{len(v.tests)} "
            f"{'(' + ', '.join(rejected) + ')' if rejected else ''} classifier accuracy "
            f"{v.accuracy:.3f}  {'PASS' if v.passed else 'FAIL'}"
        )
    click.echo(f"report: {report}")
