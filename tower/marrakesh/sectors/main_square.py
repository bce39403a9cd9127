"""The main square (*Marrakesh*, "Main Square (Jemaa el-Fnaa)"): the
entertainers, the audience disc and its spectators, and the bonuses they multiply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import Action, action_id
from tower.marrakesh.effects import SPECIALS, Effect, run_effects
from tower.marrakesh.rules import T, Task, has_mod, options, push, resolve, score, task
from tower.marrakesh.sectors.deploy import reached, take_keshi

if TYPE_CHECKING:
    from tower.marrakesh.board import Board

#: The id of ``slot:0``; the others follow in order.
_SLOT = action_id("slot")


def spectators(state: Board, p: int, space: int) -> int:
    """Spectators of player ``p``'s audience disc facing main-square ``space`` (the disc's
    side in play is ``audience_disc.side`` of the components)."""
    discs = state.game.components["audience_disc"]
    disc = discs[discs["side"]]
    pl = state.players[p]
    return disc[(space - pl.disc) % 8] + (1 if has_mod(state, p, "extra_spectator") else 0)


def scaled(effects: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """A bonus gained ``k`` times: amounts multiplied, so that k river steps are one move
    and k goods keshis are of one colour, as the rulebook asks."""
    out = []
    for e in effects:
        e = dict(e)
        for key in ("n", "water", "dates", "dinars", "wood"):
            if key in e:
                e[key] *= k
        out.append(e)
    return out if k > 0 else []


@options("place_pink")
def _place_pink_options(state: Board, t: Task) -> list[int]:
    sq = state.players[t["p"]].square
    return [_SLOT + i for i in range(8) if not sq[i]]


@resolve("place_pink")
def _place_pink(state: Board, t: Task, a: Action) -> None:
    p, s = t["p"], a.arg
    pl = state.players[p]
    take_keshi(state, p, "pink", t["src"])
    pl.square[s] = True
    pl.keshis["pink"] += 1
    spaces = state.game.components["main_square"]["spaces"]
    bonus = [s]
    if has_mod(state, p, "square_neighbours"):
        bonus += [(s - 1) % 8, (s + 1) % 8]  # scroll 54
    if t.get("then"):
        push(state, T("action", p=p, s="pink"))
    for i in reversed(bonus):
        run_effects(state, p, spaces[i], "main square: entertainer deployed")


@task("square")
def _square(state: Board, t: Task) -> None:
    p = t["p"]
    times = 2 if has_mod(state, p, "square_twice") else 1  # scroll 65
    push(state, *[T("square_once", p=p) for _ in range(times)], T("square_extras", p=p))


@task("square_once")
def _square_once(state: Board, t: Task) -> None:
    pl = state.players[t["p"]]
    pl.disc = (pl.disc + 1) % 8  # rotate clockwise one section
    state.stack.append({"t": "ask", "k": "square_space", "p": t["p"]})


def entertainer_slots(state: Board, p: int) -> list[int]:
    """The main-square spaces of player ``p`` with an entertainer, as ``slot`` actions."""
    sq = state.players[p].square
    return [action_id("slot", i) for i in range(8) if sq[i]]


@options("square_space")
def _square_space_options(state: Board, t: Task) -> list[int]:
    return entertainer_slots(state, t["p"])


@resolve("square_space")
def _square_space(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    effects = state.game.components["main_square"]["spaces"][a.arg]
    run_effects(state, p, scaled(effects, spectators(state, p, a.arg)), "main square")
    reached(state, p, "audience", (a.arg - state.players[p].disc) % 8)


@task("square_extras")
def _square_extras(state: Board, t: Task) -> None:
    p = t["p"]
    spaces = state.game.components["main_square"]["spaces"]
    if has_mod(state, p, "square_points_space"):
        # Scroll 29: the "2 points" space, times its spectators, without an entertainer.
        ps = state.game.components["main_square"]["points_space"]
        score(state, p, 2 * spectators(state, p, ps), "scroll 29: main square")
    if has_mod(state, p, "square_ones"):
        for i in reversed(range(8)):  # scroll 51
            if spectators(state, p, i) == 1:
                run_effects(state, p, spaces[i], "main square: scroll 51")


def _square_spectators(state: Board, p: int, e: Effect) -> None:
    # Scroll 47: every space facing a section with 3 spectators, 3 times, no keshi needed.
    spaces = state.game.components["main_square"]["spaces"]
    for i in reversed(range(8)):
        if spectators(state, p, i) == e["facing"]:
            run_effects(state, p, scaled(spaces[i], e["times"]), "scroll 47: main square")


def _square_all(state: Board, p: int, e: Effect) -> None:
    # Scroll 70: every entertainer's space, times its spectators.
    pl = state.players[p]
    spaces = state.game.components["main_square"]["spaces"]
    for i in reversed(range(8)):
        if pl.square[i]:
            run_effects(
                state, p, scaled(spaces[i], spectators(state, p, i)), "scroll 70: main square"
            )


SPECIALS.update(
    {
        "square_spectators": _square_spectators,
        "square_all": _square_all,
    }
)
