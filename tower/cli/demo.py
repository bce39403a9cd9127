"""``tower demo``: the main job on the embedded defaults, as run by ``make demo``.

Each capability of the toolkit adds one :class:`Step` to :data:`STEPS`: the ``tower``
command line a user would type for it (shown, relative output paths placed under
``--out``) and the library calls that do the same work here, in this process, with the
command's summary lines. The demo never runs a command through the command line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import click

from tower.cli.options import force_option, out_option

#: The preset every step runs on (the default of each command).
PRESET = "marrakesh"


class Step(NamedTuple):
    """One capability: its title, the equivalent command line, and the run itself."""

    title: str
    command: str
    run: Callable[[Path], None]


def _meshes(out: Path) -> None:
    from tower.cli.meshes import build_all
    from tower.geometry.spec import PRESETS, load_preset

    for name, n in build_all([load_preset(p) for p in PRESETS], out / "meshes", True).items():
        click.echo(f"{name}: {n} files in {out / 'meshes' / name}")


def _geometry(out: Path) -> None:
    from tower.geometry.picture import render_png
    from tower.geometry.spec import PRESETS, load_preset

    specs = [load_preset(p) for p in PRESETS]
    path = render_png(specs, out / "geometry.png", force=True)
    click.echo(f"{', '.join(s.name for s in specs)}: picture in {path}")


def _battle(out: Path) -> None:
    from tower.battle import inputs
    from tower.battle.checker import analyse
    from tower.battle.report import plot, table
    from tower.files.outputs import write_text

    situation = inputs.situation_from_text(4, 2, "2", "2", "", None)
    model, note = inputs.choose_model("shipped")
    result = analyse(model, situation, inputs.choose_tower("steady", model, 4, 0), samples=2000)
    click.echo(f"{note}\n{table(result)}")
    click.echo(f"plot: {plot(result, out / 'battle.png', force=True)}")
    doc = {**result.to_json(), "note": note}
    write_text(out / "battle.json", json.dumps(doc, indent=2, sort_keys=True) + "\n", force=True)
    click.echo(f"json: {out / 'battle.json'}")


def _recording(out: Path) -> None:
    from tower.calibration.recording import write_recording
    from tower.calibration.synthetic_run import simulate_recording

    rec = simulate_recording(PRESET, throws=60, protocol="one-colour")
    write_recording(rec, out / "recording.csv")
    series = [t for s in rec.sessions for t in s.throws]
    n_in = sum(sum(t.pieces_in.values()) for t in series)
    n_out = sum(sum(t.pieces_out.values()) for t in series)
    click.echo(f"wrote {out / 'recording.csv'}: {len(series)} throws, {n_in} in, {n_out} out "
               "(synthetic)")  # fmt: skip


def _calibration(out: Path) -> None:
    from tower.calibration.calibrate import Settings, calibrate
    from tower.cli.calibrate import OUTPUTS, _echo_calibration
    from tower.files.outputs import OutputFolder

    folder = OutputFolder(out / "calibration", "calibrate", force=True)
    with folder.claiming(OUTPUTS):
        done = calibrate(out / "recording.csv", folder.path, "physics",
                         Settings(checks=12, progress=False), preset=PRESET)  # fmt: skip
    _echo_calibration(done)
    click.echo(f"wrote {folder.path / 'report.md'} and {folder.path / 'params.json'} "
               f"({done.seconds:.0f} s)")  # fmt: skip


def _physics(out: Path) -> None:
    from tower.geometry.spec import load_preset
    from tower.physics.params_file import apply_params
    from tower.physics.plots import plot_inside
    from tower.physics.sequences import own_mix, run_sequences
    from tower.traces import read_traces

    spec, params = apply_params(load_preset(PRESET), None)
    traces = out / "physics_traces.jsonl"
    summary = run_sequences(spec, params, traces, sequences=4, throws=12, pieces=12,
                            mix=own_mix(spec), seed=1, progress=False, force=True)  # fmt: skip
    click.echo(f"{traces}: {summary['done']} sequences simulated, {summary['skipped']} "
               "already there")  # fmt: skip
    plot = plot_inside(list(read_traces(traces)), out / "physics_inside.png", force=True)
    click.echo(f"wrote {plot}")


def _film(out: Path) -> None:
    from tower.geometry.spec import load_preset
    from tower.physics.params_file import apply_params
    from tower.physics.render import render_throw
    from tower.physics.sequences import own_mix, throw_pieces

    spec, params = apply_params(load_preset(PRESET), None)
    (batch,) = throw_pieces(own_mix(spec), 12, 1, 0)
    click.echo(render_throw(spec, params, out=out / "throw.gif", pieces=batch,
                            force=True).summary())  # fmt: skip
    click.echo(f"wrote {out / 'throw.gif'}")


def _stats(out: Path) -> None:
    from tower.analysis.plots import plot_retention
    from tower.analysis.retention import format_summary, model_summaries
    from tower.files.outputs import OutputFolder
    from tower.model import open_model

    label = f"model shipped:{PRESET}"
    per_size = model_summaries(open_model(f"shipped:{PRESET}"), [6, 9, 12], 2000, 12, 0)
    click.echo("\n".join([f"retention statistics of {label}",
                          *(format_summary(n, s) for n, s in per_size.items())]))  # fmt: skip
    folder = OutputFolder(out / "model_stats", "stats", force=True)
    doc = {"source": label, "sizes": {str(n): s for n, s in per_size.items()}}
    folder.write_text("stats.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    with folder.path_for("retention.png") as tmp:
        plot_retention({label: per_size}, tmp, title=label)
    click.echo(f"wrote {folder.path / 'stats.json'} and {folder.path / 'retention.png'}")


def _selfplay(out: Path) -> None:
    from tower.cli.selfplay import stats_text
    from tower.marrakesh.selfplay import selfplay

    click.echo(stats_text(selfplay(1, players=4, agents="greedy")))


#: The steps, run in order; ``{out}`` in a command stands for the demo's output directory.
STEPS: list[Step] = [
    Step("Build the tower meshes", "meshes build --out {out}/meshes", _meshes),
    Step("Render the towers", "meshes show --out {out}/geometry.png", _geometry),
    Step("Battle at the Wall", "battle --plot {out}/battle.png --json {out}/battle.json", _battle),
    Step(
        "Synthetic recording: 60 physics throws of 12 keshis, one colour a throw",
        "record-synthetic --throws 60 --protocol one-colour --out {out}/recording.csv",
        _recording,
    ),
    Step(
        "Calibrate the physics to it with the bank engine, no physics run (report.md + PNGs)",
        "calibrate {out}/recording.csv --out {out}/calibration --checks 12 --quiet",
        _calibration,
    ),
    Step(
        "Physics: 4 towers, a game of 12 throws of 12 keshis each (trace + plot)",
        "simulate --sequences 4 --throws 12 --pieces 12 --seed 1 --out "
        "{out}/physics_traces.jsonl --plot {out}/physics_inside.png --quiet",
        _physics,
    ),
    Step("Physics: film one throw", "render --out {out}/throw.gif", _film),
    Step(
        "Distilled tower model: retention statistics of the shipped marrakesh model",
        "stats --sizes 6,9,12 --out {out}/model_stats",
        _stats,
    ),
    # Kept last: `make demo` ends by playing one 4-player game between agents.
    Step(
        "Play one 4-player Marrakesh game between greedy agents",
        "selfplay 1 --players 4 --agents greedy",
        _selfplay,
    ),
]


#: Files (and folders) the steps write directly into ``--out``.
FILES = (
    "meshes/", "geometry.png", "battle.png", "battle.json", "recording.csv", "calibration/",
    "physics_traces.jsonl", "physics_inside.png", "throw.gif", "model_stats/",
)  # fmt: skip


@click.command()
@out_option("out_dir", "Directory for pictures, GIFs and reports.", folder=None, default="out")
@force_option
def demo(out_dir: Path, force: bool) -> None:
    """Run every capability of the toolkit once on the reference tower.

    A rerun into the same --out replaces the demo's own files (listed in the folder's
    manifest, see tower.files.outputs.OutputFolder); a file there that the demo did not
    write is refused unless --force.
    """
    from tower.files.outputs import OutputFolder

    folder = OutputFolder(out_dir, "demo", force=force)
    folder.claim(FILES)  # a demo killed half-way reruns over its own files
    for step in STEPS:
        click.secho(f"\n== {step.title}: tower {step.command.format(out=out_dir)}", bold=True)
        start = time.perf_counter()
        step.run(out_dir)
        click.echo(f"   ({time.perf_counter() - start:.1f} s)")
