"""``tower demo``: the main job on the embedded defaults, as run by ``make demo``.

Each capability of the toolkit adds one step to :data:`STEPS`; a step is a ``tower``
command line (relative output paths are placed under ``--out``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import click

from tower.cli.options import force_option

#: (title, argv builder) pairs run in order; ``out`` is the demo's output directory.
STEPS: list[tuple[str, Callable[[Path], list[str]]]] = [
    ("Build the tower meshes", lambda out: ["meshes", "build", "--out", str(out / "meshes")]),
    ("Render the towers", lambda out: ["meshes", "show", "--out", str(out / "geometry.png")]),
    (
        "Battle at the Wall",
        lambda out: [
            "battle", "--plot", str(out / "battle.png"), "--json", str(out / "battle.json")
        ],
    ),
    (
        "Synthetic recording: 60 physics throws of 12 keshis, one colour a throw",
        lambda out: [
            "record-synthetic", "--throws", "60", "--protocol", "one-colour",
            "--out", str(out / "recording.csv"),
        ],
    ),
    (
        "Calibrate the physics to it with the bank engine, no physics run (report.md + PNGs)",
        lambda out: [
            "calibrate", str(out / "recording.csv"), "--out", str(out / "calibration"),
            "--checks", "12", "--quiet",
        ],
    ),
    (
        "Physics: 4 towers, a game of 12 throws of 12 keshis each (trace + plot)",
        lambda out: [
            "simulate", "--sequences", "4", "--throws", "12", "--pieces", "12", "--seed", "1",
            "--out", str(out / "physics_traces.jsonl"),
            "--plot", str(out / "physics_inside.png"), "--quiet",
        ],
    ),
    ("Physics: film one throw", lambda out: ["render", "--out", str(out / "throw.gif")]),
    (
        "Distilled tower model: retention statistics of the shipped marrakesh model",
        lambda out: ["stats", "--sizes", "6,9,12", "--out", str(out / "model_stats")],
    ),
    # Kept last: `make demo` ends by playing one 4-player game between agents.
    (
        "Play one 4-player Marrakesh game between greedy agents",
        lambda out: ["selfplay", "1", "--players", "4", "--agents", "greedy"],
    ),
]


#: Files (and folders) the steps write directly into ``--out``.
FILES = (
    "meshes/", "geometry.png", "battle.png", "battle.json", "recording.csv", "calibration/",
    "physics_traces.jsonl", "physics_inside.png", "throw.gif", "model_stats/",
)  # fmt: skip


@click.command()
@click.option(
    "--out",
    "out_dir",
    default="out",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Directory for pictures, GIFs and reports.",
)
@force_option
def demo(out_dir: Path, force: bool) -> None:
    """Run every capability of the toolkit once on the reference tower.

    A rerun into the same --out replaces the demo's own files (listed in the folder's
    manifest, see tower.files.outputs.OutputFolder); a file there that the demo did not
    write is refused unless --force.
    """
    from tower.cli import cli
    from tower.files.outputs import OutputFolder

    folder = OutputFolder(out_dir, "demo", force=force)
    folder.claim(FILES)  # a demo killed half-way reruns over its own files
    for title, build in STEPS:
        argv = build(out_dir)
        if argv[0] != "selfplay":
            argv.append("--force")  # the demo's own files (checked above), or the user's say
        click.secho(f"\n== {title}: tower {' '.join(argv)}", bold=True)
        start = time.perf_counter()
        cli.main(args=argv, standalone_mode=False)
        click.echo(f"   ({time.perf_counter() - start:.1f} s)")
