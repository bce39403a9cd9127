"""The ``tower`` command: the one place that wires the rooms together.

Subcommands live one module per topic in this package and are imported lazily, so
``tower --help`` stays fast and a command's heavy dependencies load only when it runs.
Every :class:`tower.errors.TowerError` becomes a one-line message and exit status 2.
"""

from __future__ import annotations

import importlib
import sys

import click

from tower.errors import TowerError

#: command name -> "module:attribute" of its click command or group.
COMMANDS: dict[str, str] = {
    "battle": "tower.cli.battle:battle",
    "bench": "tower.cli.bench:bench",
    "demo": "tower.cli.demo:demo",
    "distill": "tower.cli.distill:distill",
    "export": "tower.cli.export:export",
    "stats": "tower.cli.stats:stats",
    "validate-model": "tower.cli.validate_model:validate_model",
    "record": "tower.cli.record:record",
    "record-synthetic": "tower.cli.record_synthetic:record_synthetic",
    "calibrate": "tower.cli.calibrate:calibrate",
    "meshes": "tower.cli.meshes:meshes",
    "model": "tower.cli.model:model",
    "selfplay": "tower.cli.selfplay:selfplay",
    "play": "tower.cli.play:play",
    "throw": "tower.cli.throw:throw",
    "simulate": "tower.cli.simulate:simulate",
    "render": "tower.cli.render:render",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup)
@click.version_option(package_name="tower")
def cli() -> None:
    """Cube-tower simulator, calibration toolkit, tower models and Marrakesh engine."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, mapping user errors to exit status 2."""
    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except TowerError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
