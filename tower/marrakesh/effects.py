"""The one executor of effects from the component data.

:func:`run_effects` schedules an effect list; the ``fx`` task performs one effect of the
vocabulary documented at the top of ``data/components.toml``. Choices inside effects (a
keshi colour, a resource, palace or mosque, an option of ``choose``) are pending decisions.
Named one-off rules (``special``) are the functions in :data:`SPECIALS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import GOODS, RESOURCES, SECTORS, STAIRS, Action, action_id
from tower.marrakesh.rules import T, Task, add_wood, ask, options, push, resolve, score, task
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.state import State

Effect = dict[str, Any]
PASS = action_id("pass")


def run_effects(state: State, p: int, effects: list[Effect], why: str = "bonus") -> None:
    """Schedule ``effects`` for player ``p`` to run next, in order; ``why`` names the source
    in the score events."""
    push(state, *[T("fx", p=p, e=e, why=why) for e in effects])


@task("fx")
def _fx(state: State, t: Task) -> None:
    p, e = t["p"], t["e"]
    op = e["op"]
    pl = state.players[p]
    if op == "gain":
        for r in RESOURCES:
            setattr(pl, r, getattr(pl, r) + e.get(r, 0))
        add_wood(state, p, e.get("wood", 0))  # Walls & Guards
    elif op == "points":
        score(state, p, e["n"], t.get("why", "bonus"))
    elif op == "keshi":
        colour, n = e["colour"], e.get("n", 1)
        if colour in KESHI_COLOURS:
            push(state, *[T("deploy", p=p, c=colour, src="supply") for _ in range(n)])
        elif colour == "any_each":
            push(state, *[ask("keshi_colour", p, n=1, only="") for _ in range(n)])
        else:  # "any" or "goods": n keshis of one colour of the player's choice
            push(state, ask("keshi_colour", p, n=n, only="goods" if colour == "goods" else ""))
    elif op == "resource":
        push(state, *[ask("resource", p) for _ in range(e["n"])])
    elif op == "river":
        if e["n"] > 0:
            push(state, T("river", p=p, n=e["n"]))
    elif op == "stair":
        if e["which"] == "either":
            push(state, ask("stair_choice", p, n=e["n"]))
        elif e["n"] > 0:
            push(state, T("stair", p=p, w=e["which"], n=e["n"]))
    elif op == "choose":
        push(state, ask("choose", p, options=e["options"], why=t.get("why", "bonus")))
    elif op == "special":
        SPECIALS[e["name"]](state, p, e)
    else:
        raise AssertionError(f"unknown effect op {op!r}")


@options("keshi_colour")
def _keshi_colour_options(state: State, t: Task) -> list[int]:
    allowed = GOODS if t["only"] == "goods" else KESHI_COLOURS
    return [action_id("colour", KESHI_COLOURS.index(c)) for c in allowed]


@resolve("keshi_colour")
def _keshi_colour(state: State, t: Task, a: Action) -> None:
    c = KESHI_COLOURS[a.arg]
    then = t.get("then", False)
    push(state, *[T("deploy", p=t["p"], c=c, src="supply", then=then) for _ in range(t["n"])])


@options("resource")
def _resource_options(state: State, t: Task) -> list[int]:
    return [action_id("resource", i) for i in range(3)]


@resolve("resource")
def _resource(state: State, t: Task, a: Action) -> None:
    pl = state.players[t["p"]]
    setattr(pl, RESOURCES[a.arg], getattr(pl, RESOURCES[a.arg]) + 1)


@options("stair_choice")
def _stair_choice_options(state: State, t: Task) -> list[int]:
    return [action_id("stair", 0), action_id("stair", 1)]


@resolve("stair_choice")
def _stair_choice(state: State, t: Task, a: Action) -> None:
    push(state, T("stair", p=t["p"], w=STAIRS[a.arg], n=t["n"]))


@options("choose")
def _choose_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(len(t["options"]))]


@resolve("choose")
def _choose(state: State, t: Task, a: Action) -> None:
    run_effects(state, t["p"], t["options"][a.arg], t["why"])


# -- specials ---------------------------------------------------------------------------
def _sector_action(state: State, p: int, e: Effect) -> None:
    push(state, ask("any_action", p))


@options("any_action")
def _any_action_options(state: State, t: Task) -> list[int]:
    return [action_id("sector", i) for i in range(len(SECTORS))]


@resolve("any_action")
def _any_action(state: State, t: Task, a: Action) -> None:
    push(state, T("action", p=t["p"], s=SECTORS[a.arg]))


def _keshi_then_action(state: State, p: int, e: Effect) -> None:
    # Scroll 64: a keshi of any colour, then the action of the sector it went to.
    push(state, ask("keshi_colour", p, n=1, only="", then=True))


def _both_stairs(state: State, p: int, e: Effect) -> None:
    push(state, ask("stair_first", p, n=e["n"]))


@options("stair_first")
def _stair_first_options(state: State, t: Task) -> list[int]:
    return [action_id("stair", 0), action_id("stair", 1)]


@resolve("stair_first")
def _stair_first(state: State, t: Task, a: Action) -> None:
    # Scroll 55: 3 steps on both staircases, in the order the player chooses.
    first, second = STAIRS[a.arg], STAIRS[1 - a.arg]
    push(state, T("stair", p=t["p"], w=first, n=t["n"]), T("stair", p=t["p"], w=second, n=t["n"]))


def _connection_all(state: State, p: int, e: Effect) -> None:
    from tower.marrakesh import sectors

    pl = state.players[p]
    line = (sectors.segment(state, pl.mosque), sectors.segment(state, pl.palace))
    for space in reversed(sectors.line_spaces(state, *line)):
        run_effects(state, p, sectors.space_effect(state, space), "scroll 59: connection line")


def _souk_vendor(state: State, p: int, e: Effect) -> None:
    # Scroll 57: a water vendor next to the souk, watering from the next turn on.
    state.players[p].souk_vendor = 2
    state.issued["red"] += 1


def _take_scroll_special(state: State, p: int, e: Effect) -> None:
    push(state, ask("special_scroll", p, scholars=e["scholars"], dates=e["dates"]))


@options("special_scroll")
def _special_scroll_options(state: State, t: Task) -> list[int]:
    from tower.marrakesh.actions import SCROLL_COLOURS

    pl = state.players[t["p"]]
    if pl.dates < t["dates"]:
        return []
    groups = range(4) if t["scholars"] == 0 else [SCROLL_COLOURS.index("orange")]
    return [PASS] + [
        action_id("scroll", i)
        for g in groups
        for i in range(3 * g, 3 * g + 3)
        if state.stack_open[i] and state.stacks[i]
    ]


@resolve("special_scroll")
def _special_scroll(state: State, t: Task, a: Action) -> None:
    # Scroll 58 (a 7-scholar scroll for 1 date) and desert town 10 (any scroll, free).
    from tower.marrakesh.sectors import take_scroll

    if a.kind == "pass":
        return
    state.players[t["p"]].dates -= t["dates"]
    take_scroll(state, t["p"], a.arg)


def _claim_oases_free(state: State, p: int, e: Effect) -> None:
    push(state, *[ask("free_oasis", p) for _ in range(e["n"])])


@options("free_oasis")
def _free_oasis_options(state: State, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    found = [action_id("slot", i + 2) for i in range(6) if pl.revealed[i] and not pl.claimed_at[i]]
    return [PASS, *found] if found else []


@resolve("free_oasis")
def _free_oasis(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.sectors import claim_oasis

    if a.kind == "pass":
        return
    pl = state.players[t["p"]]
    pl.claimed_at[a.arg - 2] = True
    claim_oasis(state, t["p"], pl.oases[a.arg - 2])


def _score_oasis(state: State, p: int, e: Effect) -> None:
    push(state, ask("score_oasis", p))


@options("score_oasis")
def _score_oasis_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(min(16, len(state.players[t["p"]].claimed)))]


@resolve("score_oasis")
def _score_oasis_resolve(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.scoring import oasis_value

    p = t["p"]
    oid = state.players[p].claimed[a.arg]
    score(state, p, oasis_value(state, p, oid, consume=True), f"scroll 71: oasis {oid}")


def _resources_for_points(state: State, p: int, e: Effect) -> None:
    push(state, *[ask("return_for_points", p, r=r, pts=e["points"]) for r in RESOURCES])


@options("return_for_points")
def _return_options(state: State, t: Task) -> list[int]:
    have = getattr(state.players[t["p"]], t["r"])
    return [action_id("number", k) for k in range(min(have, 40) + 1)]


@resolve("return_for_points")
def _return(state: State, t: Task, a: Action) -> None:
    # Scroll 72: 2 points for each returned resource.
    pl = state.players[t["p"]]
    setattr(pl, t["r"], getattr(pl, t["r"]) - a.arg)
    score(state, t["p"], t["pts"] * a.arg, "scroll 72: resources returned")


def _square_spectators(state: State, p: int, e: Effect) -> None:
    # Scroll 47: every space facing a section with 3 spectators, 3 times, no keshi needed.
    from tower.marrakesh.sectors import scaled, spectators

    spaces = state.game.components["main_square"]["spaces"]
    for i in reversed(range(8)):
        if spectators(state, p, i) == e["spectators"]:
            run_effects(state, p, scaled(spaces[i], e["times"]), "scroll 47: main square")


def _square_all(state: State, p: int, e: Effect) -> None:
    # Scroll 70: every entertainer's space, times its spectators.
    from tower.marrakesh.sectors import scaled, spectators

    pl = state.players[p]
    spaces = state.game.components["main_square"]["spaces"]
    for i in reversed(range(8)):
        if pl.square[i]:
            run_effects(
                state, p, scaled(spaces[i], spectators(state, p, i)), "scroll 70: main square"
            )


def _square_actions(state: State, p: int, e: Effect) -> None:
    # River tile 16: the main-square action twice in a row.
    push(state, *[T("square_once", p=p) for _ in range(e["n"])])


def _each_rapid_bonus(state: State, p: int, e: Effect) -> None:
    from tower.marrakesh.sectors import rapids_crossed

    push(state, *[T("rapid", p=p, i=i) for i in range(rapids_crossed(state, p))])


def _claim_leftover_oasis(state: State, p: int, e: Effect) -> None:
    push(state, ask("leftover_oasis", p))


@options("leftover_oasis")
def _leftover_options(state: State, t: Task) -> list[int]:
    return [PASS] + [action_id("choice", i) for i in range(len(state.leftover_oases))]


@resolve("leftover_oasis")
def _leftover(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.sectors import claim_oasis

    if a.kind != "pass":
        claim_oasis(state, t["p"], state.leftover_oases.pop(a.arg))


def _crocodile(state: State, p: int, e: Effect) -> None:
    state.players[p].crocodile = True


COUNTS: dict[str, Callable[[State, int], int]] = {
    "gates": lambda s, p: sum(g is not None for g in s.players[p].gates),
    "green": lambda s, p: s.players[p].keshis["green"],
    "pink": lambda s, p: s.players[p].keshis["pink"],
    "red": lambda s, p: len(s.players[p].vendors) + (1 if s.players[p].souk_vendor else 0),
    "keshis_per_4": lambda s, p: board_keshis(s, p) // 4,
    "luxuries": lambda s, p: len(s.players[p].luxuries),
}


def board_keshis(state: State, p: int, goods: bool = True) -> int:
    """Keshis deployed on a player board (water vendors included)."""
    pl = state.players[p]
    n = sum(v for c, v in pl.keshis.items() if goods or c not in GOODS)
    return n + len(pl.vendors) + (1 if pl.souk_vendor else 0)


def _per_count(state: State, p: int, e: Effect) -> None:
    k = COUNTS[e["count"]](state, p)
    pl = state.players[p]
    for r in RESOURCES:
        setattr(pl, r, getattr(pl, r) + k * e.get(r, 0))
    score(state, p, k * e.get("points", 0), f"river tile: per {e['count']}")


def _free_luxury(state: State, p: int, e: Effect) -> None:
    push(state, ask("free_luxury", p))


@options("free_luxury")
def _free_luxury_options(state: State, t: Task) -> list[int]:
    from tower.marrakesh.sectors import points_affordable

    # Ruling: a free luxury good waives the goods keshis, not a price in points (Chess).
    return [
        action_id("shop", i)
        for i, s in enumerate(state.shops)
        if state.shop_open[i] and s and points_affordable(state, t["p"], s[-1])
    ]


@resolve("free_luxury")
def _free_luxury_resolve(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.sectors import buy_luxury

    buy_luxury(state, t["p"], a.arg, {})


def _free_gate(state: State, p: int, e: Effect) -> None:
    if state.players[p].watchtower > 0:
        push(state, ask("free_gate", p, ws=e.get("workshops", [0, 1, 2, 3])))


@options("free_gate")
def _free_gate_options(state: State, t: Task) -> list[int]:
    # Walls & Guards (wall bonus, brick 11): only the two leftmost workshops.
    return [
        action_id("gate", 12 * w + KESHI_COLOURS.index(c))
        for w, g in enumerate(state.workshops)
        if w in t.get("ws", range(4))
        for c in sorted(set(g))
    ]


@resolve("free_gate")
def _free_gate_resolve(state: State, t: Task, a: Action) -> None:
    # Desert town 12: a gate without paying; points, keshi and colour bonus as usual.
    from tower.marrakesh.sectors import buy_gate

    p = t["p"]
    w, colour = divmod(a.arg, 12)
    already = len(state.players[p].held)  # keshis held before are deployed by their own task
    push(
        state,
        *buy_gate(state, p, w, KESHI_COLOURS[colour], 0),
        T("deploy_held", p=p, skip=already),
    )


@task("deploy_held")
def _deploy_held(state: State, t: Task) -> None:
    held = state.players[t["p"]].held[t.get("skip", 0) :]
    push(state, *[T("deploy", p=t["p"], c=c, src="held") for c in list(held)])


SPECIALS: dict[str, Callable[[State, int, Effect], None]] = {
    "sector_action": _sector_action,
    "keshi_then_action": _keshi_then_action,
    "both_stairs": _both_stairs,
    "connection_all": _connection_all,
    "souk_vendor": _souk_vendor,
    "take_scroll": _take_scroll_special,
    "claim_oases_free": _claim_oases_free,
    "score_oasis": _score_oasis,
    "resources_for_points": _resources_for_points,
    "square_spectators": _square_spectators,
    "square_all": _square_all,
    "square_actions": _square_actions,
    "each_rapid_bonus": _each_rapid_bonus,
    "claim_leftover_oasis": _claim_leftover_oasis,
    "crocodile": _crocodile,
    "per_count": _per_count,
    "free_luxury": _free_luxury,
    "free_gate": _free_gate,
}
