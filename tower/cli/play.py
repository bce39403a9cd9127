"""``tower play``: a terminal game of Marrakesh, a human against agents."""

from __future__ import annotations

import sys

import click


@click.command()
@click.option("--players", type=click.IntRange(2, 4), default=4, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the game.")
@click.option("--seat", type=int, default=0, show_default=True, help="Your seat (0 = player 0).")
@click.option(
    "--agents",
    "agent_kind",
    type=click.Choice(["greedy", "random"]),
    default="greedy",
    show_default=True,
    help="The agents that play the other seats.",
)
@click.option(
    "--modules",
    default="",
    help=(
        "Comma-separated expansion modules, or 'all' (every compatible module; "
        "default: base game only)."
    ),
)
def play(players: int, seed: int, seat: int, agent_kind: str, modules: str) -> None:
    """Play Marrakesh in the terminal against agents.

    At each of your decisions the board is shown as your seat sees it, with the legal
    actions numbered: type a number or the action's text (e.g. colour:red); q quits.
    The tower is the baseline model; the game is reproducible from --seed and your moves.
    """
    from tower.marrakesh import Game, GameConfig, RandomAgent
    from tower.marrakesh.greedy import GreedyAgent
    from tower.marrakesh.hooks import everything
    from tower.marrakesh.ui import play_terminal

    if not 0 <= seat < players:
        raise click.BadParameter(f"must be between 0 and {players - 1}", param_hint="--seat")
    chosen = (
        everything(players) if modules == "all" else frozenset(filter(None, modules.split(",")))
    )
    game = Game(GameConfig(players=players, modules=chosen))
    make = GreedyAgent if agent_kind == "greedy" else RandomAgent
    agents = [None if k == seat else make(1000 * seed + k) for k in range(players)]
    stdin = sys.stdin

    def read() -> str | None:
        line = stdin.readline()
        return line if line else None

    click.echo(
        f"Marrakesh, {players} players, seed {seed}; you are player {seat}; "
        f"the others are {agent_kind} agents."
    )
    play_terminal(game.new_initial_state(seed), seat, agents, read, click.echo)
