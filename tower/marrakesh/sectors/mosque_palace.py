"""Mosque and palace (*Marrakesh*, "Mosque and palace"): the two staircases,
their thresholds and the connection bonuses on the line between the pawns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import Action, action_ids
from tower.marrakesh.effects import SPECIALS, Effect, run_effects
from tower.marrakesh.rules import (
    Task,
    ask,
    has_mod,
    mod_values,
    options,
    push,
    resolve,
    score,
    task,
)
from tower.marrakesh.sectors.deploy import reached

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


def segment(state: Board, pos: int) -> int:
    n = 0
    for th in state.game.components.raw["staircase"]["thresholds"]:  # (no generator made)
        if pos >= th:
            n += 1
    return n


def line_spaces(state: Board, m: int, pal: int) -> list[str]:
    return state.game.components.raw["staircase"]["lines"]["lines"][m][pal]


def space_effect(state: Board, space: str) -> list[dict[str, Any]]:
    """A connection-bonus space, or the staircase tile covering it (expansion 1)."""
    if space in state.covers:
        return state.covers[space]
    return state.game.components["staircase"]["spaces"][space]["effect"]


@task("stair")
def _stair(state: Board, t: Task) -> None:
    p = t["p"]
    n = t["n"] + (1 if has_mod(state, p, "stair_extra_step") else 0)  # scroll 48
    pl = state.players[p]
    values = mod_values(state, p, "stair_buy_steps")  # mostly none
    buys = [r for r in values if getattr(pl, r) > 0] if values else values
    # The move is a literal task, pushed after the (rare) purchases are asked.
    state.stack.append({"t": "stair_move", "p": p, "w": t["w"], "n": n})
    if buys:
        push(state, *[ask("stair_buy", p, r=r) for r in buys])


@options("stair_buy")
def _stair_buy_options(state: Board, t: Task) -> list[int]:
    have = getattr(state.players[t["p"]], t["r"])
    return action_ids("number", range(min(have, 40) + 1))


@resolve("stair_buy")
def _stair_buy(state: Board, t: Task, a: Action) -> None:
    # Scrolls 26-27: 1 date (or water) = 1 further step of this movement.
    pl = state.players[t["p"]]
    setattr(pl, t["r"], getattr(pl, t["r"]) - a.arg)
    move = next(x for x in reversed(state.stack) if x["t"] == "stair_move")
    move["n"] += a.arg


@task("stair_move")
def _stair_move(state: Board, t: Task) -> None:
    p, which, n = t["p"], t["w"], t["n"]
    pl = state.players[p]
    stairs = state.game.components["staircase"]
    double = has_mod(state, p, "palace_top_double" if which == "palace" else "mosque_top_double")
    extra = 0
    lines = []
    for _ in range(n):
        pos = getattr(pl, which)
        if pos >= stairs["final"]:
            extra += 2 if double else 1
            continue
        setattr(pl, which, pos + 1)
        if pos + 1 in stairs["thresholds"]:
            # Ruling: each crossing pays the line joining the pawns at the moment of crossing.
            lines.append([segment(state, pl.mosque), segment(state, pl.palace)])
    if extra:  # the reason is written only for a score that changes
        score(state, p, extra, f"{which}: steps beyond the final space")
    for hook in state.game.hooks.after_stair_move:
        hook(state, p, which)
    if lines:  # most moves cross no threshold
        state.stack += [{"t": "threshold", "p": p, "line": ln} for ln in reversed(lines)]


@task("threshold")
def _threshold(state: Board, t: Task) -> None:
    p = t["p"]
    state.players[p].dinars += state.game.components["staircase"]["threshold_dinars"]
    state.stack.append({"t": "ask", "k": "connection", "p": p, "line": t["line"], "skip": -1})
    reached(state, p, "connection", t["line"])
    for value in reversed(mod_values(state, p, "threshold_bonus")):  # scrolls 13-16
        run_effects(state, p, value, "staircase: threshold scroll")


@options("connection")
def _connection_options(state: Board, t: Task) -> list[int]:
    n = len(line_spaces(state, *t["line"]))
    skip = t["skip"]
    return action_ids("choice", [i for i in range(n) if i != skip])


@resolve("connection")
def _connection(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    if t["skip"] < 0 and has_mod(state, p, "connection_two"):
        push(state, ask("connection", p, line=t["line"], skip=a.arg))  # scroll 63
    space = line_spaces(state, *t["line"])[a.arg]
    run_effects(state, p, space_effect(state, space), f"staircase: connection bonus {space}")


def _connection_all(state: Board, p: int, e: Effect) -> None:
    pl = state.players[p]
    line = (segment(state, pl.mosque), segment(state, pl.palace))
    for space in reversed(line_spaces(state, *line)):
        run_effects(state, p, space_effect(state, space), "scroll 59: connection line")


SPECIALS["connection_all"] = _connection_all
