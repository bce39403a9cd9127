"""The river (*Marrakesh*, "River"): the fisherman's movement, with water for
extra steps, the jetty, and the rapids' bonuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import Action, action_ids
from tower.marrakesh.effects import SPECIALS, Effect, run_effects
from tower.marrakesh.rules import T, Task, has_mod, options, push, resolve, score, task
from tower.marrakesh.sectors.deploy import reached

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


def rapids_crossed(state: Board, p: int) -> int:
    pl = state.players[p]
    pos = pl.river
    n = 0
    for r in state.game.components.raw["river"]["rapids"]:  # (no comprehension made per call)
        if pos >= r:
            n += 1
    return n


@task("river")
def _river(state: Board, t: Task) -> None:
    """Any river movement: first the water for extra steps (1 water = 1 step)."""
    # The decision and the task as literals (not made by ask, T and push): every river
    # movement passes here.
    if state.players[t["p"]].water > 0:
        state.stack.append({"t": "ask", "k": "river_water", "p": t["p"], "n": t["n"]})
    else:
        state.stack.append({"t": "river_move", "p": t["p"], "n": t["n"]})


@options("river_water")
def _river_water_options(state: Board, t: Task) -> list[int]:
    return action_ids("number", range(min(state.players[t["p"]].water, 40) + 1))


@resolve("river_water")
def _river_water(state: Board, t: Task, a: Action) -> None:
    state.players[t["p"]].water -= a.arg
    state.stack.append({"t": "river_move", "p": t["p"], "n": t["n"] + a.arg})


@task("river_move")
def _river_move(state: Board, t: Task) -> None:
    p, n = t["p"], t["n"]
    pl = state.players[p]
    river = state.game.components["river"]
    extra = 0
    crossed: list[int] = []
    start = pl.river
    for _ in range(n):
        if pl.jetty >= 0:
            extra += 2 if has_mod(state, p, "jetty_double") else 1
            continue
        pl.river += 1
        pl.river_total += 1
        if pl.river in river["rapids"]:
            crossed.append(river["rapids"].index(pl.river))
        if pl.river == river["jetty"]:
            spot = state.jetty_taken.index(False)
            state.jetty_taken[spot] = True
            pl.jetty = spot
            score(state, p, river["jetty_spots"][spot], "river: jetty")
    if pl.river != start:
        state.tick += 1
        pl.river_tick = state.tick  # later arrivals queue behind earlier ones on a space
    score(state, p, extra, "river: steps beyond the jetty")
    if pl.river != start:
        reached(state, p, "river", pl.river)
    if has_mod(state, p, "rapid_crossing_bonus"):
        # Ruling: scroll 17's "depicted bonus" is the bonus of the rapid just crossed.
        push(state, *[T("rapid", p=p, i=i) for i in crossed])


@task("rapid")
def _rapid(state: Board, t: Task) -> None:
    times = 2 if has_mod(state, t["p"], "rapid_double") else 1  # scroll 60
    bonus = state.game.components["river"]["rapid_bonuses"][t["i"]]
    run_effects(state, t["p"], bonus * times, f"river: rapid {t['i'] + 1}")


def _each_rapid_bonus(state: Board, p: int, e: Effect) -> None:
    push(state, *[T("rapid", p=p, i=i) for i in range(rapids_crossed(state, p))])


SPECIALS["each_rapid_bonus"] = _each_rapid_bonus
