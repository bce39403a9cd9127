"""The one executor of effects from the component data.

:func:`run_effects` schedules an effect list; the ``fx`` task performs one effect of the
vocabulary documented at the top of ``data/components.toml``. Choices inside effects (a
keshi colour, a resource, palace or mosque, an option of ``choose``) are pending decisions.
Named one-off rules (``special``) are the functions in :data:`SPECIALS` (the core's) and
in the ``specials`` of a game's enabled modules (``Game.ruleset``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import GOODS, RESOURCES, SECTORS, STAIRS, Action, action_id, action_ids
from tower.marrakesh.rules import CORE, T, Task, add_wood, ask, options, push, resolve, score, task
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board

Effect = dict[str, Any]
PASS = action_id("pass")


def run_effects(state: Board, p: int, effects: list[Effect], why: str = "bonus") -> None:
    """Schedule ``effects`` for player ``p`` to run next, in order; ``why`` names the source
    in the score events."""
    # push(state, *[T("fx", ...) for e in effects]), spelt out (a loop, not a
    # comprehension: no function made per call): every bonus passes here.
    stack = state.stack
    for e in reversed(effects):
        stack.append({"t": "fx", "p": p, "e": e, "why": why})


@task("fx")
def _fx(state: Board, t: Task) -> None:
    p, e = t["p"], t["e"]
    op = e["op"]
    pl = state.players[p]
    # The tasks and decisions an effect schedules are literals (rather than made by T, ask
    # and push): every bonus of the game passes here.
    stack = state.stack
    if op == "gain":
        for r in RESOURCES:
            n = e.get(r)
            if n:  # most gains name one or two of the resources
                setattr(pl, r, getattr(pl, r) + n)
        wood = e.get("wood")
        if wood:  # Walls & Guards
            add_wood(state, p, wood)
    elif op == "points":
        score(state, p, e["n"], t.get("why", "bonus"))
    elif op == "keshi":
        colour, n = e["colour"], e.get("n", 1)
        if colour in KESHI_COLOURS:
            stack += [{"t": "deploy", "p": p, "c": colour, "src": "supply"} for _ in range(n)]
        elif colour == "any_each":
            stack += [
                {"t": "ask", "k": "keshi_colour", "p": p, "n": 1, "only": ""} for _ in range(n)
            ]
        else:  # "any" or "goods": n keshis of one colour of the player's choice
            only = "goods" if colour == "goods" else ""
            stack.append({"t": "ask", "k": "keshi_colour", "p": p, "n": n, "only": only})
    elif op == "resource":
        stack += [{"t": "ask", "k": "resource", "p": p} for _ in range(e["n"])]
    elif op == "river":
        if e["n"] > 0:
            stack.append({"t": "river", "p": p, "n": e["n"]})
    elif op == "stair":
        if e["which"] == "either":
            stack.append({"t": "ask", "k": "stair_choice", "p": p, "n": e["n"]})
        elif e["n"] > 0:
            stack.append({"t": "stair", "p": p, "w": e["which"], "n": e["n"]})
    elif op == "choose":
        why = t.get("why", "bonus")
        stack.append({"t": "ask", "k": "choose", "p": p, "options": e["options"], "why": why})
    elif op == "special":
        state.game.ruleset.specials[e["name"]](state, p, e)
    else:
        raise AssertionError(f"unknown effect op {op!r}")


@options("keshi_colour")
def _keshi_colour_options(state: Board, t: Task) -> list[int]:
    allowed = GOODS if t["only"] == "goods" else KESHI_COLOURS
    return action_ids("colour", map(KESHI_COLOURS.index, allowed))


@resolve("keshi_colour")
def _keshi_colour(state: Board, t: Task, a: Action) -> None:
    c = KESHI_COLOURS[a.arg]
    p, then = t["p"], t.get("then", False)
    # push(state, *[T("deploy", ...)]), spelt out: every keshi of a chosen colour.
    state.stack += [
        {"t": "deploy", "p": p, "c": c, "src": "supply", "then": then} for _ in range(t["n"])
    ]


@options("resource")
def _resource_options(state: Board, t: Task) -> list[int]:
    return action_ids("resource", range(3))


@resolve("resource")
def _resource(state: Board, t: Task, a: Action) -> None:
    pl = state.players[t["p"]]
    setattr(pl, RESOURCES[a.arg], getattr(pl, RESOURCES[a.arg]) + 1)


@options("stair_choice")
def _stair_choice_options(state: Board, t: Task) -> list[int]:
    return [action_id("stair", 0), action_id("stair", 1)]


@resolve("stair_choice")
def _stair_choice(state: Board, t: Task, a: Action) -> None:
    push(state, T("stair", p=t["p"], w=STAIRS[a.arg], n=t["n"]))


@options("choose")
def _choose_options(state: Board, t: Task) -> list[int]:
    return action_ids("choice", range(len(t["options"])))


@resolve("choose")
def _choose(state: Board, t: Task, a: Action) -> None:
    run_effects(state, t["p"], t["options"][a.arg], t["why"])


# -- specials ---------------------------------------------------------------------------
def _sector_action(state: Board, p: int, e: Effect) -> None:
    push(state, ask("any_action", p))


@options("any_action")
def _any_action_options(state: Board, t: Task) -> list[int]:
    return action_ids("sector", range(len(SECTORS)))


@resolve("any_action")
def _any_action(state: Board, t: Task, a: Action) -> None:
    push(state, T("action", p=t["p"], s=SECTORS[a.arg]))


def _keshi_then_action(state: Board, p: int, e: Effect) -> None:
    # Scroll 64: a keshi of any colour, then the action of the sector it went to.
    push(state, ask("keshi_colour", p, n=1, only="", then=True))


def _both_stairs(state: Board, p: int, e: Effect) -> None:
    push(state, ask("stair_first", p, n=e["n"]))


@options("stair_first")
def _stair_first_options(state: Board, t: Task) -> list[int]:
    return [action_id("stair", 0), action_id("stair", 1)]


@resolve("stair_first")
def _stair_first(state: Board, t: Task, a: Action) -> None:
    # Scroll 55: 3 steps on both staircases, in the order the player chooses.
    first, second = STAIRS[a.arg], STAIRS[1 - a.arg]
    push(state, T("stair", p=t["p"], w=first, n=t["n"]), T("stair", p=t["p"], w=second, n=t["n"]))


def _souk_vendor(state: Board, p: int, e: Effect) -> None:
    # Scroll 57: a water vendor next to the souk, watering from the next turn on.
    state.players[p].souk_vendor = 2
    state.issued["red"] += 1


def _resources_for_points(state: Board, p: int, e: Effect) -> None:
    push(state, *[ask("return_for_points", p, r=r, pts=e["points"]) for r in RESOURCES])


@options("return_for_points")
def _return_options(state: Board, t: Task) -> list[int]:
    have = getattr(state.players[t["p"]], t["r"])
    return action_ids("number", range(min(have, 40) + 1))


@resolve("return_for_points")
def _return(state: Board, t: Task, a: Action) -> None:
    # Scroll 72: 2 points for each returned resource.
    pl = state.players[t["p"]]
    setattr(pl, t["r"], getattr(pl, t["r"]) - a.arg)
    score(state, t["p"], t["pts"] * a.arg, "scroll 72: resources returned")


def _square_actions(state: Board, p: int, e: Effect) -> None:
    # River tile 16: the main-square action twice in a row.
    push(state, *[T("square_once", p=p) for _ in range(e["n"])])


def _keshi_exchange(state: Board, p: int, e: Effect) -> None:
    """The oasis track's keshi exchange, with its restrictions (a brick of Walls & Guards,
    an alms tile of Gems & Experts)."""
    push(state, ask("exchange_return", p))


def _crocodile(state: Board, p: int, e: Effect) -> None:
    state.players[p].crocodile = True


#: The core's counts of a ``per_count`` effect (a game's are its ``ruleset.counts``).
COUNTS: dict[str, Callable[[Board, int], int]] = {
    "gates": lambda s, p: sum(g is not None for g in s.players[p].gates),
    "green": lambda s, p: s.players[p].keshis["green"],
    "pink": lambda s, p: s.players[p].keshis["pink"],
    "red": lambda s, p: len(s.players[p].vendors) + (1 if s.players[p].souk_vendor else 0),
    "keshis_per_4": lambda s, p: board_keshis(s, p) // 4,
    "luxuries": lambda s, p: len(s.players[p].luxuries),
}
CORE.counts = COUNTS


def board_keshis(state: Board, p: int, goods: bool = True) -> int:
    """Keshis deployed on a player board (water vendors included)."""
    pl = state.players[p]
    n = sum(v for c, v in pl.keshis.items() if goods or c not in GOODS)
    return n + len(pl.vendors) + (1 if pl.souk_vendor else 0)


def _per_count(state: Board, p: int, e: Effect) -> None:
    k = state.game.ruleset.counts[e["count"]](state, p)
    pl = state.players[p]
    for r in RESOURCES:
        setattr(pl, r, getattr(pl, r) + k * e.get(r, 0))
    score(state, p, k * e.get("points", 0), f"river tile: per {e['count']}")


@task("deploy_held")
def _deploy_held(state: Board, t: Task) -> None:
    held = state.players[t["p"]].held[t.get("skip", 0) :]
    push(state, *[T("deploy", p=t["p"], c=c, src="held") for c in list(held)])


#: The core's named one-off effects (a game's are its ``ruleset.specials``).
SPECIALS: dict[str, Callable[[Board, int, Effect], None]] = {
    "sector_action": _sector_action,
    "keshi_then_action": _keshi_then_action,
    "both_stairs": _both_stairs,
    "souk_vendor": _souk_vendor,
    "resources_for_points": _resources_for_points,
    "square_actions": _square_actions,
    "crocodile": _crocodile,
    "per_count": _per_count,
    "keshi_exchange": _keshi_exchange,
}
CORE.specials = SPECIALS
