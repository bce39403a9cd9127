"""``tower play``: a terminal game of Marrakesh, a human against agents."""

from __future__ import annotations

import sys

import click

from tower.cli.options import modules_option


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
@modules_option
@click.option(
    "--model",
    "model_spec",
    default="shipped:marrakesh",
    show_default=True,
    metavar="FILE|shipped:NAME|baseline",
    help="The tower model that throws the keshis.",
)
def play(
    players: int, seed: int, seat: int, agent_kind: str, modules: str, model_spec: str
) -> None:
    """Play Marrakesh in the terminal against agents.

    The board is shown as your seat sees it, and each decision lists its options in the
    rulebook's words with what they give and cost: type a number. Choose the keshis for
    the tower by their colours ('red yellow purple' or the codes 'r y u'); 'help'
    explains the decision, 'board' shows the board again, q quits. Other players' moves,
    every score change and each season's scoring are announced. The tower is the shipped
    distilled model unless --model says otherwise; the game is reproducible from --seed
    and your moves.
    """
    from tower.marrakesh import Game, GameConfig, RandomAgent
    from tower.marrakesh.greedy import GreedyAgent
    from tower.marrakesh.hooks import everything
    from tower.marrakesh.ui import play_terminal
    from tower.model import open_model

    if not 0 <= seat < players:
        raise click.BadParameter(f"must be between 0 and {players - 1}", param_hint="--seat")
    chosen = (
        everything(players) if modules == "all" else frozenset(filter(None, modules.split(",")))
    )
    tower = open_model(model_spec)
    game = Game(GameConfig(players=players, modules=chosen, tower=tower, ask_single=True))
    make = GreedyAgent if agent_kind == "greedy" else RandomAgent
    agents = [None if k == seat else make(1000 * seed + k) for k in range(players)]
    stdin = sys.stdin

    def read() -> str | None:
        line = stdin.readline()
        return line if line else None

    click.echo(f"Marrakesh, {players} players, seed {seed}; you are player {seat}.")
    click.echo(f"The others are {agent_kind} agents; the tower model is {tower.name}.")
    play_terminal(game.new_initial_state(seed), seat, agents, read, click.echo)
