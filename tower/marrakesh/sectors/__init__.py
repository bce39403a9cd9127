"""Deploying keshis and the eight sector actions: river, date orchard, souk, main square,
mosque and palace, madrasa, medina and sahara; plus the water vendors.

Movement on the river and the staircases lives here too, because bonuses, scrolls and
tiles all move pawns through the same two tasks (``river`` and ``stair``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import (
    COLOUR_INDEX,
    GOODS,
    SCROLL_COLOURS,
    SECTOR_INDEX,
    SECTORS,
    VENDOR_SECTORS,
    Action,
    action_id,
    sector_of,
)
from tower.marrakesh.effects import SPECIALS, Effect, run_effects
from tower.marrakesh.rules import (
    T,
    Task,
    ask,
    can_pay,
    has_mod,
    mod_values,
    options,
    pay,
    pay_any,
    push,
    resolve,
    score,
    task,
    total_resources,
)
from tower.marrakesh.worth import oasis_value
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board, Player

PASS = action_id("pass")
CAPACITY = 8


# -- where keshis can go ----------------------------------------------------------------
def brown_spaces(state: Board, p: int) -> list[int]:
    """Sahara spaces a caravan keshi may be deployed to now (no skipping along a path).

    Spaces: 0 start oasis right, 1 start oasis left (right first), 2-4 path A, 5-7 path B,
    8 and 9 the desert-town spaces at the ends of the paths. Which of them exist is the
    game's sahara layout (``game.hooks.layout``, set by the modules' ``sahara`` hooks):
    ``start`` (spaces 0 and 1) and ``towns`` (spaces 8 and 9).
    """
    sa = state.players[p].sahara
    layout = state.game.hooks.layout
    towns = layout["towns"]
    out = []
    if layout["start"]:
        if not sa[0]:
            out.append(0)
        elif not sa[1]:
            out.append(1)
    for first, town in ((2, 8), (5, 9)):
        nxt = next((i for i in range(first, first + 3) if not sa[i]), None)
        if nxt is not None:
            out.append(nxt)
        elif towns and not sa[town] and state.towns_display:
            out.append(town)
    return out


def room(state: Board, p: int, colour: str) -> int:
    """How many more keshis of ``colour`` player ``p`` could deploy (goods: unlimited)."""
    pl = state.players[p]
    if colour in GOODS:
        return 99
    if colour == "red":
        return sum(s not in pl.vendors for s in VENDOR_SECTORS)
    if colour == "pink":
        return pl.square.count(False)
    for hook in state.game.hooks.room:
        n = hook(state, p, colour)
        if n is not None:
            return n
    if colour == "brown":
        return brown_room(state, p)
    return CAPACITY - pl.keshis[colour]


def brown_room(state: Board, p: int) -> int:
    """Free sahara spaces a keshi could still reach."""
    pl = state.players[p]
    layout = state.game.hooks.layout
    free = pl.sahara[0 if layout["start"] else 2 : 8].count(False)
    if layout["towns"]:
        return free + min(pl.sahara[8:10].count(False), len(state.towns_display))
    return free


def take_keshi(state: Board, p: int, colour: str, src: str) -> None:
    """A keshi to be deployed leaves the player's held keshis or the common supply."""
    if src == "held":
        state.players[p].held.remove(colour)
    else:
        state.issued[colour] += 1


def reached(state: Board, p: int, what: str, where: Any) -> None:
    """Tell the modules (hook ``reached``) that player ``p`` just reached ``where`` on the
    board part ``what``."""
    for hook in state.game.hooks.reached:
        hook(state, p, what, where)


@task("deploy")
def _deploy(state: Board, t: Task) -> None:
    """Deploy one keshi (from the player's hand of claimed keshis, or the supply)."""
    p, c, src = t["p"], t["c"], t["src"]
    pl = state.players[p]
    if room(state, p, c) <= 0:
        # A keshi that fits nowhere goes back to the common supply.
        if src == "held":
            pl.held.remove(c)
            state.issued[c] -= 1
        if t.get("then") and c != "red":
            # Ruling (scroll 64): a keshi that fits nowhere still names its sector; a water
            # vendor that fits nowhere names none, so no action follows.
            push(state, T("action", p=p, s=sector_of(c)))
        return
    for hook in state.game.hooks.deploy:
        if hook(state, t):
            return
    if c in ("red", "pink", "brown"):
        push(state, ask("place_" + c, p, src=src, then=t.get("then", False)))
        return
    take_keshi(state, p, c, src)
    pl.keshis[c] += 1
    reached(state, p, "keshi", c)
    if c == "green":
        score(
            state, p, state.game.components["date_orchard"]["deploy_points"], "date picker deployed"
        )
    if t.get("then"):
        push(state, T("action", p=p, s=sector_of(c)))


@options("place_red")
def _place_red_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    return [action_id("sector", SECTOR_INDEX[s]) for s in VENDOR_SECTORS if s not in pl.vendors]


@resolve("place_red")
def _place_red(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    take_keshi(state, p, "red", t["src"])
    s = SECTORS[a.arg]
    # A vendor waters only from the player's next turn on ("during a previous turn").
    state.players[p].vendors[s] = 2 if state.turn == p else 1
    if t.get("then"):
        push(state, T("action", p=p, s=s))


@options("place_pink")
def _place_pink_options(state: Board, t: Task) -> list[int]:
    sq = state.players[t["p"]].square
    return [action_id("slot", i) for i in range(8) if not sq[i]]


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


@options("place_brown")
def _place_brown_options(state: Board, t: Task) -> list[int]:
    return [action_id("slot", i) for i in sorted(brown_spaces(state, t["p"]))]


@resolve("place_brown")
def _place_brown(state: Board, t: Task, a: Action) -> None:
    p, s = t["p"], a.arg
    pl = state.players[p]
    sahara = state.game.components["sahara"]
    take_keshi(state, p, "brown", t["src"])
    pl.sahara[s] = True
    pl.keshis["brown"] += 1
    if t.get("then"):
        push(state, T("action", p=p, s="brown"))
    if s == 0:
        run_effects(state, p, sahara["start_right"], "sahara: start oasis")
    elif s == 1:
        run_effects(state, p, sahara["start_left"], "sahara: start oasis")
    elif s < 8:
        pl.revealed[s - 2] = True  # discovering the oasis
        reached(state, p, "sahara", s)
        if has_mod(state, p, "discover_scores"):
            oid = pl.oases[s - 2]
            score(state, p, oasis_value(state, p, oid), f"scroll 68: oasis {oid} discovered")
    else:
        push(state, ask("town_pick", p, path=s - 8))


@options("town_pick")
def _town_pick_options(state: Board, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(len(state.towns_display))]


@resolve("town_pick")
def _town_pick(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    state.players[p].towns[t["path"]] = state.towns_display.pop(a.arg)
    score(
        state,
        p,
        state.game.components["sahara"]["desert_town_deploy_points"],
        "desert town reached",
    )


@task("vendor_water")
def _vendor_water(state: Board, t: Task) -> None:
    p, s = t["p"], t["s"]
    pl = state.players[p]
    active = pl.souk_vendor == 1 if s == "souk" else pl.vendors.get(s) == 1
    if not active:
        return
    pl.water += 2 if has_mod(state, p, "vendor_double_water") else 1
    if t["action"] and has_mod(state, p, "vendor_points"):
        score(state, p, 2, "scroll 50: water vendor")
    for vendor_water in state.game.hooks.vendor_water:
        vendor_water(state, p)


@task("action")
def _action(state: Board, t: Task) -> None:
    """Perform the sector action of sector ``s``."""
    p, s = t["p"], t["s"]
    pl = state.players[p]
    for hook in state.game.hooks.sector_action:
        if hook(state, p, s):
            return
    if s == "green":
        pickers = state.game.hooks.first("count", state, p, "date_pickers")
        if pickers is None:
            pickers = pl.keshis["green"]
        alts = mod_values(state, p, "orchard_alternative")
        if not alts:
            pl.dates += pickers
        else:
            push(state, *[ask("orchard", p) for _ in range(pickers)])
    elif s == "turquoise":
        if pl.keshis["turquoise"]:
            push(state, T("river", p=p, n=pl.keshis["turquoise"]))
    elif s == "souk":
        push(state, ask("souk", p, ex=0, lux=0))
    elif s == "pink":
        push(state, T("square", p=p))
    elif s in ("white", "black"):
        if pl.keshis[s]:
            push(state, T("stair", p=p, w="palace" if s == "white" else "mosque", n=pl.keshis[s]))
    elif s == "gray":
        push(state, ask("madrasa", p, budget=pl.keshis["gray"], bought=0, forced=-1))
    elif s == "beige":
        push(state, ask("medina", p))
    elif s == "brown":
        push(state, ask("sahara", p))
    else:
        raise AssertionError(f"no sector action for {s!r}")


# -- date orchard -----------------------------------------------------------------------
@options("orchard")
def _orchard_options(state: Board, t: Task) -> list[int]:
    return [
        action_id("choice", i)
        for i in range(1 + len(mod_values(state, t["p"], "orchard_alternative")))
    ]


@resolve("orchard")
def _orchard(state: Board, t: Task, a: Action) -> None:
    # Scrolls 23-25: for each date picker, 1 date or the scroll's alternative.
    if a.arg == 0:
        state.players[t["p"]].dates += 1
    else:
        alternatives = mod_values(state, t["p"], "orchard_alternative")
        run_effects(state, t["p"], alternatives[a.arg - 1], "date orchard: scrolls 23-25")


# -- river ------------------------------------------------------------------------------
def rapids_crossed(state: Board, p: int) -> int:
    pos = state.players[p].river
    return sum(pos >= r for r in state.game.components["river"]["rapids"])


@task("river")
def _river(state: Board, t: Task) -> None:
    """Any river movement: first the water for extra steps (1 water = 1 step)."""
    if state.players[t["p"]].water > 0:
        push(state, ask("river_water", t["p"], n=t["n"]))
    else:
        push(state, T("river_move", p=t["p"], n=t["n"]))


@options("river_water")
def _river_water_options(state: Board, t: Task) -> list[int]:
    return [action_id("number", k) for k in range(min(state.players[t["p"]].water, 40) + 1)]


@resolve("river_water")
def _river_water(state: Board, t: Task, a: Action) -> None:
    state.players[t["p"]].water -= a.arg
    push(state, T("river_move", p=t["p"], n=t["n"] + a.arg))


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


# -- mosque and palace ------------------------------------------------------------------
def segment(state: Board, pos: int) -> int:
    return sum(pos >= th for th in state.game.components["staircase"]["thresholds"])


def line_spaces(state: Board, m: int, pal: int) -> list[str]:
    return state.game.components["staircase"]["lines"]["lines"][m][pal]


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
    buys = [r for r in mod_values(state, p, "stair_buy_steps") if getattr(pl, r) > 0]
    push(state, *[ask("stair_buy", p, r=r) for r in buys], T("stair_move", p=p, w=t["w"], n=n))


@options("stair_buy")
def _stair_buy_options(state: Board, t: Task) -> list[int]:
    have = getattr(state.players[t["p"]], t["r"])
    return [action_id("number", k) for k in range(min(have, 40) + 1)]


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
    score(state, p, extra, f"{which}: steps beyond the final space")
    for hook in state.game.hooks.after_stair_move:
        hook(state, p, which)
    push(state, *[T("threshold", p=p, line=ln) for ln in lines])


@task("threshold")
def _threshold(state: Board, t: Task) -> None:
    p = t["p"]
    state.players[p].dinars += state.game.components["staircase"]["threshold_dinars"]
    push(state, ask("connection", p, line=t["line"], skip=-1))
    reached(state, p, "connection", t["line"])
    for value in reversed(mod_values(state, p, "threshold_bonus")):  # scrolls 13-16
        run_effects(state, p, value, "staircase: threshold scroll")


@options("connection")
def _connection_options(state: Board, t: Task) -> list[int]:
    n = len(line_spaces(state, *t["line"]))
    return [action_id("choice", i) for i in range(n) if i != t["skip"]]


@resolve("connection")
def _connection(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    if t["skip"] < 0 and has_mod(state, p, "connection_two"):
        push(state, ask("connection", p, line=t["line"], skip=a.arg))  # scroll 63
    space = line_spaces(state, *t["line"])[a.arg]
    run_effects(state, p, space_effect(state, space), f"staircase: connection bonus {space}")


# -- souk -------------------------------------------------------------------------------
def luxury_cost(state: Board, p: int, lux: int) -> dict[str, int]:
    return dict(state.game.components.luxuries[lux]["cost"])


def discount(state: Board, p: int, what: str) -> int:
    """What the modules take off a price (``discount`` hook): ``"scroll_dates"``,
    ``"luxury_keshis"``."""
    return sum(hook(state, p, what) for hook in state.game.hooks.discount)


def can_buy_luxury(state: Board, p: int, lux: int) -> bool:
    """Whether player ``p`` can buy ``lux``: at its printed price, or in a way a module
    offers (hook ``luxury_affordable``)."""
    if not points_affordable(state, p, lux):
        return False
    return printed_affordable(state, p, lux) or any(
        fn(state, p, lux) for fn in state.game.hooks.luxury_affordable
    )


def printed_affordable(state: Board, p: int, lux: int) -> bool:
    """Whether player ``p`` has the goods keshis ``lux`` shows (less any discount)."""
    pl = state.players[p]
    short = sum(max(0, n - pl.keshis[c]) for c, n in luxury_cost(state, p, lux).items())
    return short == 0 or short <= discount(state, p, "luxury_keshis")


def points_affordable(state: Board, p: int, lux: int) -> bool:
    """Whether player ``p`` can pay the points a luxury good costs (Chess: 4 points).

    Ruling: a score is never paid below 0, so a price in points needs that many points
    (a good without one is bought whatever the score, negative included)."""
    price = state.game.components.luxuries[lux].get("points_cost", 0)
    return price == 0 or state.players[p].score >= price


@options("souk")
def _souk_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    out = [PASS]
    # Ruling: one assistant exchanges or buys, never both (the text says "or").
    if t["lux"] == 0 and (t["ex"] == 0 or has_mod(state, p, "souk_many_exchanges")):
        out += [action_id("colour", COLOUR_INDEX[c]) for c in GOODS if pl.keshis[c] > 0]
    if t["ex"] == 0 and (t["lux"] == 0 or has_mod(state, p, "souk_many_luxuries")):
        for i, shop in enumerate(state.shops):
            if state.shop_open[i] and shop and can_buy_luxury(state, p, shop[-1]):
                out.append(action_id("shop", i))
    return out


@resolve("souk")
def _souk(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "pass":
        return
    if a.kind == "colour":
        c = KESHI_COLOURS[a.arg]
        pl.keshis[c] -= 1
        state.issued[c] -= 1
        office = state.game.components.exchange_offices[state.offices[state.season - 1]]
        push(state, ask("souk", p, ex=t["ex"] + 1, lux=0))
        for value in mod_values(state, p, "exchange_extra"):  # scroll 18
            run_effects(state, p, value, "souk: scroll 18")
        run_effects(state, p, office[c], "souk: exchange office")
        return
    push(state, ask("souk", p, ex=0, lux=t["lux"] + 1))
    if not any(fn(state, p, a.arg) for fn in state.game.hooks.luxury_buy):
        pay_luxury(state, p, a.arg)


def pay_luxury(state: Board, p: int, shop: int) -> None:
    """Buy the top good of ``shop`` at its printed cost (less a ``luxury_keshis``
    discount: the imam waives 1 goods keshi)."""
    cost = luxury_cost(state, p, state.shops[shop][-1])
    waivable = [c for c, n in cost.items() if n > 0]
    if discount(state, p, "luxury_keshis") and waivable:
        push(state, ask("imam_waive", p, shop=shop))
    else:
        buy_luxury(state, p, shop, cost)


@options("imam_waive")
def _imam_waive_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    cost = luxury_cost(state, p, state.shops[t["shop"]][-1])
    out = []
    for c, n in cost.items():
        rest = dict(cost, **{c: n - 1})
        if n > 0 and all(pl.keshis[k] >= m for k, m in rest.items()):
            out.append(action_id("colour", COLOUR_INDEX[c]))
    return out


@resolve("imam_waive")
def _imam_waive(state: Board, t: Task, a: Action) -> None:
    # Imam (expansion 2): the luxury good costs any 1 goods keshi fewer.
    cost = luxury_cost(state, t["p"], state.shops[t["shop"]][-1])
    cost[KESHI_COLOURS[a.arg]] -= 1
    buy_luxury(state, t["p"], t["shop"], cost)


def buy_luxury(state: Board, p: int, shop: int, cost: dict[str, int]) -> None:
    pl = state.players[p]
    for c, n in cost.items():
        pl.keshis[c] -= n
        state.issued[c] -= n
    lux = state.shops[shop].pop()
    state.shop_open[shop] = False  # the next good is revealed at the end of the turn
    pl.luxuries.append(lux)
    entry = state.game.components.luxuries[lux]
    score(state, p, -entry.get("points_cost", 0), f"souk: luxury good {lux} costs points")
    for luxury_gained in state.game.hooks.luxury_gained:
        luxury_gained(state, p, lux)
    run_effects(state, p, entry["reward"], f"souk: luxury good {lux}")


# -- main square ------------------------------------------------------------------------
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


@task("square")
def _square(state: Board, t: Task) -> None:
    p = t["p"]
    times = 2 if has_mod(state, p, "square_twice") else 1  # scroll 65
    push(state, *[T("square_once", p=p) for _ in range(times)], T("square_extras", p=p))


@task("square_once")
def _square_once(state: Board, t: Task) -> None:
    pl = state.players[t["p"]]
    pl.disc = (pl.disc + 1) % 8  # rotate clockwise one section
    push(state, ask("square_space", t["p"]))


@options("square_space")
def _square_space_options(state: Board, t: Task) -> list[int]:
    sq = state.players[t["p"]].square
    return [action_id("slot", i) for i in range(8) if sq[i]]


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


# -- madrasa ----------------------------------------------------------------------------
def scroll_cost(state: Board, p: int, sid: int) -> int:
    dates = state.game.components.scrolls[sid]["dates"]
    return max(0, dates - discount(state, p, "scroll_dates"))


@options("madrasa")
def _madrasa_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    scrolls = state.game.components.scrolls
    out = []
    for i, st in enumerate(state.stacks):
        if not (state.stack_open[i] and st) or (t["forced"] >= 0 and i // 3 != t["forced"]):
            continue
        sid = st[-1]
        if scrolls[sid]["scholars"] <= t["budget"] and pl.dates >= scroll_cost(state, p, sid):
            out.append(action_id("scroll", i))
    if t["forced"] < 0 or not out:
        # Ruling: after a swap one of the new scrolls must be bought; if none is affordable
        # the obligation lapses (the dinar is spent all the same).
        out.append(PASS)
    if t["bought"] == 0 and t["forced"] < 0 and not pl.swapped and can_pay(state, p, {"dinars": 1}):
        out += [action_id("swap", g) for g in range(4) if all(state.stacks[3 * g : 3 * g + 3])]
    return sorted(out)


@resolve("madrasa")
def _madrasa(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "pass":
        return
    if a.kind == "swap":
        # Once per round, before the first purchase: 1 dinar, tops of one colour to the bottom.
        pl.swapped = True
        for i in range(3 * a.arg, 3 * a.arg + 3):
            st = state.stacks[i]
            st.insert(0, st.pop())
            state.stack_open[i] = True
        push(state, ask("madrasa", p, budget=t["budget"], bought=0, forced=a.arg))
        pay(state, p, {"dinars": 1})  # any choice of payment comes first
        return
    sid = state.stacks[a.arg][-1]
    pl.dates -= scroll_cost(state, p, sid)
    budget = t["budget"] - state.game.components.scrolls[sid]["scholars"]
    push(state, ask("madrasa", p, budget=budget, bought=t["bought"] + 1, forced=-1))
    take_scroll(state, p, a.arg)


def take_scroll(state: Board, p: int, stack: int) -> None:
    """Take the top scroll of ``stack``; instant scrolls act at once."""
    sid = state.stacks[stack].pop()
    state.stack_open[stack] = False  # the next scroll is revealed at the end of the turn
    state.players[p].scrolls.append(sid)
    entry = state.game.components.scrolls[sid]
    if entry["timing"] == "instant":
        run_effects(state, p, entry["effect"], f"scroll {sid}")


# -- medina -----------------------------------------------------------------------------
def gate_price(state: Board, p: int, w: int) -> int:
    price = state.game.components["medina"]["workshops"][w]["dinars"]
    return max(0, price - 1) if has_mod(state, p, "gate_discount") else price  # scroll 32


@options("medina")
def _medina_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    out = [PASS]
    if state.players[p].watchtower > 0:
        for w, gates in enumerate(state.workshops):
            if can_pay(state, p, {"dinars": gate_price(state, p, w)}):
                out += [action_id("gate", 12 * w + COLOUR_INDEX[c]) for c in sorted(set(gates))]
    return sorted(out)


@resolve("medina")
def _medina(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    if a.kind == "pass":
        # The gained keshis are deployed only after all gates are bought.
        held = state.players[p].held
        push(state, *[T("deploy", p=p, c=c, src="held") for c in list(held)])
        return
    w, colour = divmod(a.arg, 12)
    price = gate_price(state, p, w)
    push(state, *buy_gate(state, p, w, KESHI_COLOURS[colour], price), ask("medina", p))
    pay(state, p, {"dinars": price})  # any choice of payment comes first


def buy_gate(state: Board, p: int, w: int, colour: str, price: int) -> list[Task]:
    """Take a gate from workshop ``w`` and score it; returns the follow-up decisions."""
    points = state.game.components["medina"]["workshops"][w]["points"]
    if points < 0 and price == 0 and w == 0 and has_mod(state, p, "free_gate_no_loss"):
        points = 0  # scroll 22
    score(state, p, points, "medina: city gate")
    state.workshops[w].remove(colour)
    return [ask("gate_space", p, c=colour)]


@options("gate_space")
def _gate_space_options(state: Board, t: Task) -> list[int]:
    gates = state.players[t["p"]].gates
    return [action_id("slot", i) for i in range(8) if gates[i] is None]


@resolve("gate_space")
def _gate_space(state: Board, t: Task, a: Action) -> None:
    p, colour = t["p"], t["c"]
    pl = state.players[p]
    pl.gates[a.arg] = colour  # a guard from the watchtower is committed to it
    reached(state, p, "gate", a.arg)
    medina = state.game.components["medina"]
    if medina["gate_spaces"][a.arg] == colour:
        score(state, p, medina["matching_gate_points"], "medina: gate on its colour")
    n = 2 if has_mod(state, p, "gate_two_keshis") else 1  # scroll 66
    if has_mod(state, p, "gate_any_keshi"):
        push(state, *[ask("gate_keshi", p) for _ in range(n)])  # scroll 36
    else:
        pl.held += [colour] * n
        state.issued[colour] += n


@options("gate_keshi")
def _gate_keshi_options(state: Board, t: Task) -> list[int]:
    return [action_id("colour", i) for i in range(12)]


@resolve("gate_keshi")
def _gate_keshi(state: Board, t: Task, a: Action) -> None:
    c = KESHI_COLOURS[a.arg]
    state.players[t["p"]].held.append(c)
    state.issued[c] += 1


# -- sahara -----------------------------------------------------------------------------
def oasis_cost(state: Board, p: int, index: int) -> dict[str, int]:
    return dict(state.game.components["sahara"]["claim_costs"][index % 3])


def can_claim_oasis(state: Board, p: int, index: int) -> bool:
    if has_mod(state, p, "oasis_one_resource"):  # scroll 45
        return total_resources(state.players[p]) >= 1
    return can_pay(state, p, oasis_cost(state, p, index))


def _has_goods_set(pl: Player) -> bool:
    return all(pl.keshis[c] >= 1 for c in GOODS)


@options("sahara")
def _sahara_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    out = [PASS]
    for i in range(6):
        if pl.revealed[i] and not pl.claimed_at[i] and can_claim_oasis(state, p, i):
            out.append(action_id("slot", i + 2))
    for path in (0, 1):
        if pl.towns[path] and not pl.towns_claimed[path] and _has_goods_set(pl):
            out.append(action_id("slot", 8 + path))
    return out


@resolve("sahara")
def _sahara(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "pass":
        return
    push(state, ask("sahara", p))
    if a.arg >= 8:
        # Desert town (expansion 5): a set of the 3 goods keshis flips it to its day side.
        for c in GOODS:
            pl.keshis[c] -= 1
            state.issued[c] -= 1
        path = a.arg - 8
        pl.towns_claimed[path] = True
        town = state.game.components.desert_towns[pl.towns[path]]
        if town["kind"] == "instant":
            run_effects(state, p, town["effect"], f"desert town {pl.towns[path]}")
        return
    i = a.arg - 2
    pl.claimed_at[i] = True
    claim_oasis(state, p, pl.oases[i])
    if has_mod(state, p, "oasis_one_resource"):  # any choice of payment comes first
        pay_any(state, p, 1)
    else:
        pay(state, p, oasis_cost(state, p, i))


def claim_oasis(state: Board, p: int, oid: int) -> None:
    """Put a claimed oasis on the next track space and use what it covers."""
    pl = state.players[p]
    pl.claimed.append(oid)
    slot = state.game.hooks.first("track_slot", state, p)
    if slot is None:
        slot = len(pl.claimed) - 1
    track = state.game.components["sahara"]["track"]
    icon = track[slot] if slot < len(track) else "none"
    reached(state, p, "track", slot)
    if str(slot) in pl.track:
        colour = pl.track.pop(str(slot))
        pl.held.append(colour)
        push(state, ask("track_keshi", p, c=colour))
    elif icon == "exchange":
        push(state, ask("exchange_return", p))
    elif icon == "scroll":
        push(state, ask("track_scroll", p))


@options("track_keshi")
def _track_keshi_options(state: Board, t: Task) -> list[int]:
    out = [PASS]
    if room(state, t["p"], t["c"]) > 0:
        out.append(action_id("choice", 0))
    return out


@resolve("track_keshi")
def _track_keshi(state: Board, t: Task, a: Action) -> None:
    p, c = t["p"], t["c"]
    if a.kind == "pass":
        # Ruling: a covered keshi the player does not deploy goes back to the supply.
        state.players[p].held.remove(c)
        state.issued[c] -= 1
    else:
        push(state, T("deploy", p=p, c=c, src="held"))


def returnable(state: Board, p: int) -> list[str]:
    """Keshis the exchange icon may return: not caravans next to an oasis (with Walls &
    Guards: not the sahara's keshis), committed guards or goods."""
    pl = state.players[p]
    out = [c for c in ("green", "gray", "white", "black", "pink", "turquoise") if pl.keshis[c] > 0]
    for hook in state.game.hooks.returnable:
        out = hook(state, p, out)
    if pl.watchtower > 0:
        out.append("beige")
    if pl.vendors:
        out.append("red")
    return sorted(out, key=COLOUR_INDEX.get)


@options("exchange_return")
def _exchange_return_options(state: Board, t: Task) -> list[int]:
    return [PASS] + [action_id("colour", COLOUR_INDEX[c]) for c in returnable(state, t["p"])]


@resolve("exchange_return")
def _exchange_return(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "pass":
        return
    c = KESHI_COLOURS[a.arg]
    push(state, ask("exchange_take", p, c=c))
    if c in ("red", "pink"):
        push(state, ask("return_" + c, p))  # which vendor, which entertainer
        return
    for hook in state.game.hooks.return_keshi:
        if hook(state, p, c):
            return
    pl.keshis[c] -= 1
    state.issued[c] -= 1


@options("return_red")
def _return_red_options(state: Board, t: Task) -> list[int]:
    vendors = state.players[t["p"]].vendors
    return [action_id("sector", SECTOR_INDEX[s]) for s in VENDOR_SECTORS if s in vendors]


@resolve("return_red")
def _return_red(state: Board, t: Task, a: Action) -> None:
    del state.players[t["p"]].vendors[SECTORS[a.arg]]
    state.issued["red"] -= 1


@options("return_pink")
def _return_pink_options(state: Board, t: Task) -> list[int]:
    square = state.players[t["p"]].square
    return [action_id("slot", i) for i in range(8) if square[i]]


@resolve("return_pink")
def _return_pink(state: Board, t: Task, a: Action) -> None:
    pl = state.players[t["p"]]
    pl.square[a.arg] = False
    pl.keshis["pink"] -= 1
    state.issued["pink"] -= 1


@options("exchange_take")
def _exchange_take_options(state: Board, t: Task) -> list[int]:
    return [action_id("colour", i) for i, c in enumerate(KESHI_COLOURS) if c != t["c"]]


@resolve("exchange_take")
def _exchange_take(state: Board, t: Task, a: Action) -> None:
    push(state, T("deploy", p=t["p"], c=KESHI_COLOURS[a.arg], src="supply"))


@options("track_scroll")
def _track_scroll_options(state: Board, t: Task) -> list[int]:
    # A scroll that needs exactly 3 scholars (the yellow stacks), free of scholars and dates.
    return [PASS] + [
        action_id("scroll", i) for i in (3, 4, 5) if state.stack_open[i] and state.stacks[i]
    ]


@resolve("track_scroll")
def _track_scroll(state: Board, t: Task, a: Action) -> None:
    if a.kind != "pass":
        take_scroll(state, t["p"], a.arg)


# -- specials of the component data that act on the sectors ---------------------------
def _connection_all(state: Board, p: int, e: Effect) -> None:
    pl = state.players[p]
    line = (segment(state, pl.mosque), segment(state, pl.palace))
    for space in reversed(line_spaces(state, *line)):
        run_effects(state, p, space_effect(state, space), "scroll 59: connection line")


def _take_scroll_special(state: Board, p: int, e: Effect) -> None:
    push(state, ask("special_scroll", p, scholars=e["scholars"], dates=e["dates"]))


@options("special_scroll")
def _special_scroll_options(state: Board, t: Task) -> list[int]:
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
def _special_scroll(state: Board, t: Task, a: Action) -> None:
    # Scroll 58 (a 7-scholar scroll for 1 date) and desert town 10 (any scroll, free).
    if a.kind == "pass":
        return
    state.players[t["p"]].dates -= t["dates"]
    take_scroll(state, t["p"], a.arg)


def _claim_oases_free(state: Board, p: int, e: Effect) -> None:
    push(state, *[ask("free_oasis", p) for _ in range(e["n"])])


@options("free_oasis")
def _free_oasis_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    found = [action_id("slot", i + 2) for i in range(6) if pl.revealed[i] and not pl.claimed_at[i]]
    return [PASS, *found] if found else []


@resolve("free_oasis")
def _free_oasis(state: Board, t: Task, a: Action) -> None:
    if a.kind == "pass":
        return
    pl = state.players[t["p"]]
    pl.claimed_at[a.arg - 2] = True
    claim_oasis(state, t["p"], pl.oases[a.arg - 2])


def _score_oasis(state: Board, p: int, e: Effect) -> None:
    push(state, ask("score_oasis", p))


@options("score_oasis")
def _score_oasis_options(state: Board, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(min(16, len(state.players[t["p"]].claimed)))]


@resolve("score_oasis")
def _score_oasis_resolve(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    oid = state.players[p].claimed[a.arg]
    score(state, p, oasis_value(state, p, oid, consume=True), f"scroll 71: oasis {oid}")


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


def _each_rapid_bonus(state: Board, p: int, e: Effect) -> None:
    push(state, *[T("rapid", p=p, i=i) for i in range(rapids_crossed(state, p))])


def _claim_leftover_oasis(state: Board, p: int, e: Effect) -> None:
    push(state, ask("leftover_oasis", p))


@options("leftover_oasis")
def _leftover_options(state: Board, t: Task) -> list[int]:
    return [PASS] + [action_id("choice", i) for i in range(len(state.leftover_oases))]


@resolve("leftover_oasis")
def _leftover(state: Board, t: Task, a: Action) -> None:
    if a.kind != "pass":
        claim_oasis(state, t["p"], state.leftover_oases.pop(a.arg))


def _free_luxury(state: Board, p: int, e: Effect) -> None:
    push(state, ask("free_luxury", p))


@options("free_luxury")
def _free_luxury_options(state: Board, t: Task) -> list[int]:
    # Ruling: a free luxury good waives the goods keshis, not a price in points (Chess).
    return [
        action_id("shop", i)
        for i, s in enumerate(state.shops)
        if state.shop_open[i] and s and points_affordable(state, t["p"], s[-1])
    ]


@resolve("free_luxury")
def _free_luxury_resolve(state: Board, t: Task, a: Action) -> None:
    buy_luxury(state, t["p"], a.arg, {})


def _free_gate(state: Board, p: int, e: Effect) -> None:
    if state.players[p].watchtower > 0:
        push(state, ask("free_gate", p, ws=e.get("workshops", [0, 1, 2, 3])))


@options("free_gate")
def _free_gate_options(state: Board, t: Task) -> list[int]:
    # Walls & Guards (wall bonus, brick 11): only the two leftmost workshops.
    return [
        action_id("gate", 12 * w + KESHI_COLOURS.index(c))
        for w, g in enumerate(state.workshops)
        if w in t.get("ws", range(4))
        for c in sorted(set(g))
    ]


@resolve("free_gate")
def _free_gate_resolve(state: Board, t: Task, a: Action) -> None:
    # Desert town 12: a gate without paying; points, keshi and colour bonus as usual.
    p = t["p"]
    w, colour = divmod(a.arg, 12)
    already = len(state.players[p].held)  # keshis held before are deployed by their own task
    push(
        state,
        *buy_gate(state, p, w, KESHI_COLOURS[colour], 0),
        T("deploy_held", p=p, skip=already),
    )


SPECIALS.update(
    {
        "connection_all": _connection_all,
        "take_scroll": _take_scroll_special,
        "claim_oases_free": _claim_oases_free,
        "score_oasis": _score_oasis,
        "square_spectators": _square_spectators,
        "square_all": _square_all,
        "each_rapid_bonus": _each_rapid_bonus,
        "claim_leftover_oasis": _claim_leftover_oasis,
        "free_luxury": _free_luxury,
        "free_gate": _free_gate,
    }
)
