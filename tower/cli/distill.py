"""``tower distill``: fit a distilled tower model from simulator traces.

Either from existing traces (``--traces FILE[@START:STOP]``, repeatable), or by running
(or resuming) simulations first (``--sims N [--mixed-sims M] --preset P [--params FILE]``),
whose trace files (next to ``--out``) are completed, not repeated, on the next call. The
work is :mod:`tower.model.pipeline`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tower.cli.options import cluster_options, force_option, out_option
from tower.errors import TowerError
from tower.geometry.spec import PRESETS
from tower.model.pipeline import FIT_DEFAULTS, parse_copula

#: Click types of the fit options whose default does not give one.
FIT_TYPES: dict[str, Any] = {"min_count_makeup": click.IntRange(1), "copula": str}
#: Parsers of the fit options given as text (to the library's values), and their metavars.
FIT_PARSERS: dict[str, Callable[[str], Any]] = {"copula": parse_copula}
FIT_METAVARS: dict[str, str] = {"copula": "THROW,ORIGIN[,GATE][;...]"}

#: Help of each fit option, one per :data:`FIT_DEFAULTS` key (``age_cap``: ``--age-cap``).
FIT_HELP = {
    "alpha": "Back-off strength.",
    "age_cap": "Oldest age bucket (throws).",
    "min_count": "Leave out keys seen fewer times (all levels but the last).",
    "min_count_makeup": "The same for the keys of throws with pawns or experts "
    "(default: --min-count).",
    "piece_depth": "Leave the finest contexts out of the per-piece counts.",
    "backoff": "What a back-off level but the last counts: all outcomes, or the rest "
    "(those no finer level keeps).",
    "copula": "Draw the groups of one throw jointly through a Gaussian copula with these "
    "loadings, only in throws with a piece of class GATE inside or thrown if given (classes "
    "joined by +: any of them; entries joined by ';': the first whose gate a throw meets; "
    "writes a tower.model/3 file; default: none, tower.model/2).",
    "levels": "Context fields of each back-off level, finest first (w, x: pawns and experts "
    "thrown; t: throws the tower has seen, which makes a tower.model/3 file; model v1 used "
    "m,n,I,o;m,n,J,o;m,n,J;m,n;m).",
}


def _parsed(parse: Callable[[str], Any]) -> Callable[..., Any]:
    """A click callback: the option's text through ``parse`` (``None`` stays), a
    :class:`~tower.errors.TowerError` as a usage error."""

    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
        if value is None:
            return None
        try:
            return parse(value)
        except TowerError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


def _fit_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The fit options of :data:`FIT_HELP`, in its order, defaults from the library."""
    for name, text in reversed(FIT_HELP.items()):
        flag = f"--{name.replace('_', '-')}"
        f = click.option(
            flag,
            name,
            default=FIT_DEFAULTS[name],
            type=FIT_TYPES.get(name),
            metavar=FIT_METAVARS.get(name),
            callback=_parsed(FIT_PARSERS[name]) if name in FIT_PARSERS else None,
            show_default=True,
            help=text,
        )(f)
    return f


@click.command()
@click.option(
    "--traces",
    "trace_args",
    multiple=True,
    metavar="FILE[@START:STOP]",
    help="Trace file (JSONL), optionally only sequences START:STOP. Repeatable.",
)
@click.option(
    "--sims",
    type=click.IntRange(0),
    default=0,
    help="Run (or resume) this many sequences of 12 of the tower's own pieces first (keshis; "
    "cubes for a cube tower; tower simulate).",
)
@click.option(
    "--mixed-sims",
    type=click.IntRange(0),
    default=0,
    help="Also this many walls-guards sequences (1..20 keshis, watchmen, brigands).",
)
@cluster_options("simulations")
@click.option(
    "--preset",
    type=click.Choice(PRESETS),
    default=None,
    help="Tower preset of the traces (e.g. marrakesh).",
)
@click.option(
    "--params",
    "params_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Physics parameters the traces used.",
)
@out_option("out_path", "Model file to write.", required=True)
@click.option("--name", default=None, help="Model name (default: the preset or 'distilled').")
@_fit_options
@force_option
def distill(
    trace_args: tuple[str, ...], sims: int, mixed_sims: int, scheduler: str | None,
    workers: int | None, preset: str | None, params_file: Path | None, out_path: Path,
    name: str | None, force: bool, **fit: Any,
) -> None:  # fmt: skip
    """Fit a distilled tower model from simulator traces and write it to --out."""
    from tower.model import pipeline

    pipeline.distill_to(
        out_path, trace_args, sims=sims, mixed_sims=mixed_sims, preset=preset,
        params_file=params_file, name=name, scheduler=scheduler, workers=workers, force=force,
        say=click.echo, **fit,
    )  # fmt: skip
