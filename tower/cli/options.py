"""Command-line options that several ``tower`` commands share, declared once, and what
the physics options load.

Examples
--------
>>> import click
>>> @click.command()
... @cluster_options("simulations")
... def run(scheduler, workers): ...
>>> sorted(p.name for p in run.params)
['scheduler', 'workers']
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

#: Mixes of pieces a throw can hold (see :mod:`tower.physics.sequences`).
MIX_HELP = (
    "keshis: N keshis of cycling colours; walls-guards: 1..N keshis, watchmen, brigands "
    "(at most the box's 3 brigands and 3 watchmen a colour); experts: Gems & Experts "
    "rounds, 6, 9 or 12 keshis (at most N, drawn per sequence) and 1-5 expert keshis; "
    "cubes: N cubes. Default: the tower's own pieces (keshis; cubes for a cube tower)."
)

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def cluster_options(what: str = "work") -> Decorator:
    """``--workers K`` (local processes, default: all cores; 1 = this process) and
    ``--scheduler ADDRESS`` (a Dask scheduler instead), for the ``what`` they run."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option(
            "--scheduler",
            default=None,
            help=f"Dask scheduler address for the {what} (default: local processes).",
        )(f)
        return click.option(
            "--workers",
            type=click.IntRange(1),
            default=None,
            help=f"Local processes for the {what} (default: all cores; 1 = this process).",
        )(f)

    return decorate


def throw_shape_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--throws``, ``--pieces`` and ``--mix``: what a sequence of throws holds (``mix``
    is ``None`` when not given: the tower's own, :func:`tower.physics.sequences.own_mix`)."""
    from tower.physics.sequences import MIXES

    f = click.option("--mix", type=click.Choice(MIXES), default=None, help=MIX_HELP)(f)
    f = click.option(
        "--pieces",
        type=click.IntRange(1),
        default=12,
        show_default=True,
        help="Pieces per throw (the most per throw for walls-guards, most keshis for experts).",
    )(f)
    return click.option(
        "--throws",
        type=click.IntRange(1),
        default=12,
        show_default=True,
        help="Throws per sequence (12 in a Marrakesh game).",
    )(f)


def out_option(
    dest: str, help_text: str, *, folder: bool | None = False, required: bool = False,
    default: str | None = None,
) -> Decorator:  # fmt: skip
    """``--out``: where a command writes, passed as ``dest``: a file (``folder=False``), a
    folder (``True``) or either (``None``); its ``default`` is shown in ``--help``."""
    kind = {False: {"dir_okay": False}, True: {"file_okay": False}, None: {}}[folder]
    # Click 8.3+ takes an explicit ``default=None`` as a value, which satisfies
    # ``required``; so a default is passed only when there is one.
    defaults = {} if default is None else {"default": default, "show_default": True}
    return click.option(
        "--out", dest, required=required, type=click.Path(path_type=Path, **kind),
        help=help_text, **defaults,
    )  # fmt: skip


def modules_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--modules``: the Marrakesh expansion modules of a game, by name or ``all``."""
    return click.option(
        "--modules",
        default="",
        help=(
            "Comma-separated expansion modules, or 'all' (every compatible module; "
            "default: base game only)."
        ),
    )(f)


def force_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--force``: replace outputs this command did not write (see :mod:`tower.files`)."""
    return click.option(
        "--force",
        is_flag=True,
        help="Replace existing output files (by default a command refuses to overwrite a "
        "file it did not write, and resumes only its own run with the same settings).",
    )(f)


def preset_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--preset``: one of the shipped tower presets (default ``marrakesh``)."""
    from tower.geometry import PRESETS  # trimesh: only for the commands that take --preset

    return click.option(
        "--preset",
        type=click.Choice(PRESETS),
        default="marrakesh",
        show_default=True,
        help="A shipped tower preset.",
    )(f)


def params_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--params``: a physical parameter file (read with :func:`load_physics`)."""
    return click.option(
        "--params",
        "params_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="A params file: PhysicsParams JSON, or the tower.params/1 file that "
        "`tower calibrate` writes (geometry overrides + physics). Default: built-in defaults.",
    )(f)


def physics_options(f):
    """Add ``--preset``, ``--spec`` and ``--params`` to a command."""
    f = params_option(f)
    f = click.option(
        "--spec",
        "spec_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="A tower spec TOML file instead of a preset.",
    )(f)
    return preset_option(f)


def load_physics(preset: str, spec_file: Path | None, params_file: Path | None) -> tuple[Any, Any]:
    """The (spec, params) named by :func:`physics_options`."""
    from tower.geometry import load_preset, load_spec
    from tower.physics.params_file import apply_params

    spec = load_spec(spec_file) if spec_file else load_preset(preset)
    return apply_params(spec, params_file)


def tower_mix(spec: Any, mix: str | None) -> str:
    """The mix to throw into ``spec``: ``mix``, or the tower's own when not given; a
    :class:`~tower.physics.sequences.MixError` if the tower cannot throw it."""
    from tower.physics.sequences import check_mix, own_mix

    mix = mix or own_mix(spec)
    check_mix(spec, mix)
    return mix


def check_pieces(pieces: int, option: str = "--pieces") -> int:
    """Refuse a throw larger than the named limit ``pieces_per_throw`` (see tower.files)."""
    from tower.files.inputs import LIMITS

    if pieces > LIMITS["pieces_per_throw"]:
        raise click.BadParameter(
            f"{pieces} is over the limit pieces_per_throw = {LIMITS['pieces_per_throw']}",
            param_hint=option,
        )
    return pieces
