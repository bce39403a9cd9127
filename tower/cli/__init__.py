"""The ``tower`` command: the one place that wires the rooms together.

Subcommands live one module per topic in this package and are imported lazily, so
``tower --help`` stays fast and a command's heavy dependencies load only when it runs.
Every :class:`tower.errors.TowerError` becomes a one-line message and exit status 2, and
every :class:`tower.errors.ImplausibleValueWarning` a one-line ``warning:``. The policies for
input and output files live in :mod:`tower.files`.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import ClassVar

import click

from tower.errors import ImplausibleValueWarning, TowerError

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
    """A click group whose subcommands are imported on first use: ``lazy`` maps a name to
    ``"module:attribute"`` (:data:`COMMANDS` for ``tower``); commands added as usual
    come too."""

    lazy: ClassVar[dict[str, str]] = COMMANDS

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.lazy, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None:
            return self.commands.get(cmd_name)
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup)
@click.version_option(package_name="tower")
def cli() -> None:
    """Cube-tower simulator, calibration toolkit, tower models and Marrakesh engine."""


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, ImplausibleValueWarning):
        click.echo(f"warning: {message}", err=True)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


_default_showwarning = warnings.showwarning


def _one_line(text: str) -> str:
    """A message as one line: a user error is reported on exactly one line."""
    return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, mapping user errors to exit status 2."""
    warnings.showwarning = _show_warning
    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see {exc.ctx.command_path} --help)"
        click.echo(f"error: {_one_line(exc.format_message())}{hint}", err=True)
        sys.exit(exc.exit_code)
    except TowerError as exc:
        click.echo(f"error: {_one_line(str(exc))}", err=True)
        sys.exit(2)
    finally:
        warnings.showwarning = _default_showwarning
