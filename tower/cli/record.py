"""``tower record FILE``: record real throws at the table, throw by throw."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def record(file: Path) -> None:
    """Record throws into FILE (.csv or .jsonl); resumes FILE if it exists.

    Each throw is saved the moment it is entered. Type 'help' at any prompt for the
    commands (undo, note, stats, new, quit) and the colour notation (r2 g1 k3).
    See calibration/README.md.
    """
    from tower.calibration.recorder import Recorder

    Recorder(file, ask=input, say=click.echo).run()
