"""``tower distill``: fit a distilled tower model from simulator traces.

Either from existing traces (``--traces FILE[@START:STOP]``, repeatable), or by running
(or resuming) simulations first (``--sims N [--mixed-sims M] --preset P [--params FILE]``)
through the physics command ``tower simulate``, whose trace files (next to ``--out``) are
completed, not repeated, on the next call.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path
from typing import Any

import click

from tower.cli.options import cluster_options, force_option
from tower.errors import TowerError
from tower.geometry.spec import PRESETS


def piece_classes(spec: Any) -> dict[str, str]:
    """Kind -> class for a tower spec: kinds whose piece specs are equal share a class.

    A class is named after its shape when no other class has that shape (``pawn`` for
    watchman and brigand), else after its first kind (``keshi``, ``expert``).
    """
    import dataclasses

    groups: list[list[Any]] = []
    for piece in spec.pieces.values():
        for group in groups:
            first = group[0]
            if type(first) is type(piece) and dataclasses.replace(piece, kind=first.kind) == first:
                group.append(piece)
                break
        else:
            groups.append([piece])
    shapes = [g[0].SHAPE for g in groups]
    classes = {}
    for group in groups:
        shape = group[0].SHAPE
        name = shape if len(group) > 1 and shapes.count(shape) == 1 else group[0].kind.value
        for piece in group:
            classes[piece.kind.value] = name
    return dict(sorted(classes.items()))


def _tower_fields(preset: str | None) -> tuple[dict[str, Any], dict[str, str] | None]:
    """The model file's ``tower`` field and the piece classes, from a geometry preset."""
    if not preset:
        return {"preset": None, "spec": None}, None
    from tower.geometry import load_preset

    spec = load_preset(preset)
    return {"preset": preset, "spec": spec.to_toml()}, piece_classes(spec)


def _params_field(params_file: Path | None) -> tuple[dict[str, Any] | None, str]:
    """The physics parameters the traces were made with, and where that claim comes from."""
    try:
        from tower.calibration.params_file import load_params
        from tower.physics.params import PhysicsParams
    except ImportError:
        return None, "unknown (tower.physics not importable)"
    if params_file is None:
        return PhysicsParams().to_json(), "PhysicsParams defaults (no --params given)"
    geometry, physics = load_params(params_file)
    where = f"--params {params_file.name}"
    if geometry:
        where += f" (geometry overrides: {json.dumps(geometry, sort_keys=True)})"
    return physics.to_json(), where


def _parse_trace_arg(text: str) -> tuple[Path, slice, str]:
    from tower.cli.validate_model import parse_range

    path, _, rng = text.partition("@")
    if Path(path).is_dir():
        raise TowerError(f"{path}: is a directory, expected a trace file")
    if not Path(path).is_file():
        raise TowerError(f"{path}: no such trace file")
    return Path(path), parse_range(rng, f"--traces {text}"), rng or ":"


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
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Model file to write.",
)
@click.option("--name", default=None, help="Model name (default: the preset or 'distilled').")
@click.option("--alpha", default=1.0, show_default=True, help="Back-off strength.")
@click.option("--age-cap", default=7, show_default=True, help="Oldest age bucket (throws).")
@click.option(
    "--min-count",
    default=2,
    show_default=True,
    help="Leave out keys seen fewer times (all levels but the last).",
)
@click.option(
    "--piece-depth",
    default=2,
    show_default=True,
    help="Leave the finest contexts out of the per-piece counts.",
)
@click.option(
    "--levels",
    default="m,n,w,x,I,o;m,n,w,x,J,o;m,w,x,J;m,n;m",  # tower.model.fit.DEFAULT_LEVELS
    show_default=True,
    help="Context fields of each back-off level, finest first (w, x: pawns and experts "
    "thrown; model v1 used m,n,I,o;m,n,J,o;m,n,J;m,n;m).",
)
@force_option
def distill(
    trace_args: tuple[str, ...],
    sims: int,
    mixed_sims: int,
    scheduler: str | None,
    workers: int | None,
    preset: str | None,
    params_file: Path | None,
    out_path: Path,
    name: str | None,
    alpha: float,
    age_cap: int,
    min_count: int,
    piece_depth: int,
    levels: str,
    force: bool,
) -> None:
    """Fit a distilled tower model from simulator traces and write it to --out."""
    from tqdm import tqdm

    from tower.cli.validate_model import batch_seed
    from tower.files.outputs import check_output
    from tower.model import DistilledModel
    from tower.model.fit import DEFAULT_CLASSES, FitSettings, Observations
    from tower.traces import read_traces

    if (sims or mixed_sims) and not preset:
        raise TowerError("--sims and --mixed-sims need --preset")
    stem = out_path.with_suffix("")
    planned = [  # (trace file, sequences, pieces per throw, mix; None: the tower's own)
        (Path(f"{stem}.traces.jsonl"), sims, 12, None),
        (Path(f"{stem}.mixed-traces.jsonl"), mixed_sims, 20, "walls-guards"),
    ]
    planned = [p for p in planned if p[1]]
    if planned:  # a tower that cannot throw a planned mix stops before any simulation
        from tower.cli.options import tower_mix
        from tower.geometry import load_preset

        for *_, mix in planned:
            tower_mix(load_preset(preset), mix)
    trace_args = (*trace_args, *(f"{path}@0:{n}" for path, n, _, _ in planned))
    if not trace_args:
        raise TowerError("give --traces FILE or --sims N --preset P")
    command = ["tower", "distill", *(f"--traces {shlex.quote(a)}" for a in trace_args)]
    if preset:
        command.append(f"--preset {preset}")
    if params_file:
        command.append(f"--params {shlex.quote(str(params_file))}")
    command += [
        f"--alpha {alpha:g}",
        f"--age-cap {age_cap}",
        f"--min-count {min_count}",
        f"--piece-depth {piece_depth}",
        f"--levels '{levels}'",
        f"--out {shlex.quote(str(out_path))}",
    ]
    if not _written_by(out_path, " ".join(command)):  # a rerun may replace its own model
        check_output(out_path, force=force)
    cluster = {"scheduler": scheduler, "workers": workers}
    for path, n, pieces, mix in planned:
        simulate_traces(n, preset, params_file, path, pieces=pieces, mix=mix, cluster=cluster,
                        force=force)  # fmt: skip
    tower, classes = _tower_fields(preset)
    try:
        settings = FitSettings(
            levels=tuple(tuple(lv.split(",")) for lv in levels.split(";")),
            alpha=alpha,
            age_cap=age_cap,
            classes=classes or dict(DEFAULT_CLASSES),
            min_count=min_count,
            piece_depth=piece_depth,
        )
    except ValueError as exc:
        raise TowerError(f"bad fit settings: {exc}") from None
    obs = Observations(settings)
    sources = []
    for arg in trace_args:
        path, rows, rng_text = _parse_trace_arg(arg)
        digest = hashlib.sha256()
        sequences = list(read_traces(path))[rows]
        before = obs.summary()
        kinds = set()
        for seq in tqdm(sequences, desc=f"fitting {path.name}", unit="seq"):
            digest.update(seq.to_line().encode("utf-8"))
            kinds.add(seq.source)
            try:
                obs.add_sequence(seq)
            except ValueError as exc:
                raise TowerError(f"{path}: {exc}") from None
        runs: list[list[int]] = []  # the fitted seq numbers as runs [first, last]
        for q in sorted({seq.seq for seq in sequences}):
            if runs and q == runs[-1][1] + 1:
                runs[-1][1] = q
            else:
                runs.append([q, q])
        sources.append(
            {
                "file": path.name,
                "sequences": rng_text,
                "count": obs.sequences - before["sequences"],
                "throws": obs.throws - before["throws"],
                "sources": sorted(kinds),
                "sha256_of_sequences": digest.hexdigest(),
                # for validate-model's check that held-out sequences were not fitted
                "batch_seed": batch_seed(path),
                "seq_ranges": runs,
            }
        )
    if obs.throws == 0:
        raise TowerError("no throws to fit: the selected traces are empty")
    params, params_from = _params_field(params_file)
    model = DistilledModel.from_tables(
        obs.tables(),
        name=name or preset or "distilled",
        tower=tower,
        params=params,
        provenance={
            "traces": sources,
            "counts": obs.summary(),
            "params_from": params_from,
            "fit": settings.to_json(),
            "command": " ".join(command),
        },
    )
    model.save(out_path)  # atomic (tower.model.fileformat.write_text_atomic)
    size = out_path.stat().st_size
    click.echo(
        f"wrote {out_path} ({size / 1e6:.2f} MB): {obs.sequences} sequences, {obs.throws} "
        f"throws, sizes {obs.summary()['throw_sizes']}"
    )


def _written_by(path: Path, command: str) -> bool:
    """Whether ``path`` is a model file that this very command wrote (its provenance)."""
    from tower.model.fileformat import read_model_file

    if not path.is_file():
        return False
    try:
        provenance = read_model_file(path).get("provenance")
    except TowerError:
        return False
    return isinstance(provenance, dict) and provenance.get("command") == command


def simulate_traces(
    sequences: int,
    preset: str,
    params_file: Path | None,
    traces: Path,
    *,
    pieces: int = 12,
    mix: str | None = None,
    cluster: dict[str, Any] | None = None,
    force: bool = False,
) -> Path:
    """Run, or resume, ``tower simulate`` into ``traces`` (physics' resumable runner);
    ``mix`` ``None`` throws the tower's own pieces; ``cluster`` may name a Dask
    ``scheduler`` or a number of local ``workers``."""
    from tower.cli import cli

    argv = [
        "simulate",
        "--preset",
        preset,
        "--sequences",
        str(sequences),
        "--pieces",
        str(pieces),
        *(["--mix", mix] if mix else []),
        "--out",
        str(traces),
    ]
    if params_file:
        argv += ["--params", str(params_file)]
    for option, value in (cluster or {}).items():
        if value:
            argv += [f"--{option}", str(value)]
    if force:
        argv.append("--force")
    click.echo(f"simulating: tower {' '.join(argv)}")
    cli.main(args=argv, standalone_mode=False)
    return traces
