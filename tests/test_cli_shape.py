"""The command line only parses arguments and calls the library: no function in
``tower/cli`` is over :data:`MAX_LINES` lines, and no command runs another through
``cli.main``. Read from the source with :mod:`ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import click
from click.testing import CliRunner

from tower.cli import cli

CLI = Path(__file__).resolve().parent.parent / "tower" / "cli"
#: Longest function (``def`` line to last line, signature included).
MAX_LINES = 40
#: Modules that run command lines by design: ``__init__`` is the entry point itself.
RUNS_COMMANDS = {"__init__.py"}


def long_functions(source: str, name: str, limit: int = MAX_LINES) -> set[tuple[str, str, int]]:
    return {
        (name, node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > limit
    }


def calls_main(source: str) -> list[int]:
    """Lines that call ``cli.main(...)`` or ``main(...)`` (the entry point)."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Attribute) and f.attr == "main") or (
                isinstance(f, ast.Name) and f.id == "main"
            ):
                hits.append(node.lineno)
    return hits


def test_the_checks_see_what_they_look_for():
    long = "def f(\n    a,\n):\n" + "    a += 1\n" * 40
    assert long_functions(long, "x.py") == {("x.py", "f", 43)}
    assert long_functions(long, "x.py", limit=43) == set()
    assert calls_main("from tower.cli import cli\ncli.main(args=['x'])\n") == [2]
    assert calls_main("main(['x'])\nmain2(1)\n") == [1]


def test_no_cli_function_is_over_40_lines():
    found = set()
    for path in sorted(CLI.glob("*.py")):
        found |= long_functions(path.read_text(encoding="utf-8"), path.name)
    assert found == set()


def test_no_command_runs_another_through_the_entry_point():
    found = {
        path.name: lines
        for path in sorted(CLI.glob("*.py"))
        if path.name not in RUNS_COMMANDS
        and (lines := calls_main(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def all_commands() -> list[tuple[str, click.Command]]:
    """Every command of ``tower``, subgroups walked, as (path, command)."""
    found, todo = [], [("tower", cli)]
    while todo:
        path, group = todo.pop()
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            todo += [(f"{path} {name}", command)] if isinstance(command, click.Group) else []
            found.append((f"{path} {name}", command))
    return found


def test_every_required_option_is_reported_when_missing():
    """A required option left out is a usage error, never ``None`` passed on (click 8.3+
    takes an explicit ``default=None`` as a value)."""
    unchecked = []
    for path, command in all_commands():
        ctx = click.Context(command)
        for param in command.params:
            required = isinstance(param, click.Option) and param.required
            if required and not param.value_is_missing(param.get_default(ctx)):
                unchecked.append((path, param.opts[0]))
    assert len(all_commands()) > 20
    assert unchecked == []


def test_a_command_without_its_out_says_so_on_one_line(tmp_path):
    traces = tmp_path / "t.jsonl"
    traces.write_text("")
    result = CliRunner().invoke(cli, ["validate-model", "shipped:marrakesh", "--traces",
                                      str(traces)])  # fmt: skip
    assert result.exit_code == 2
    assert "Missing option '--out'" in result.output
