"""Season scoring (river evaluation, providing for citizens, preparing the next season)
and final scoring (filled sectors, the best oases and desert towns, resources).

Every score change goes through :func:`tower.marrakesh.rules.score` and is logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import GOODS, RESOURCES, VENDOR_SECTORS, Action, action_id
from tower.marrakesh.effects import run_effects
from tower.marrakesh.phases import refill_display
from tower.marrakesh.rules import (
    T,
    Task,
    ask,
    has_mod,
    options,
    order,
    push,
    resolve,
    score,
    task,
    total_resources,
)
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.state import State


@task("season_end")
def _season_end(state: State, t: Task) -> None:
    turn = order(state)
    items: list[Task] = []
    for p in turn:
        if 28 in state.players[p].scrolls:
            # Scroll 28: at the start of season scoring, one bonus from each crossed rapid.
            items.append(T("fx", p=p, e={"op": "special", "name": "each_rapid_bonus"}))
    items.append(T("river_evaluation"))
    if state.game.has("walls_guards"):
        # Walls & Guards: river evaluation, the Battle at the Wall, providing for citizens.
        from tower.marrakesh.modules import walls_guards

        items += walls_guards.season_tasks(state)
    items += [T("provide", p=p) for p in turn]
    if state.season < 3:
        items += [ask("provision", p) for p in turn]
        items.append(T("next_season"))
    else:
        items.append(T("final_scoring"))
    push(state, *items)


def river_ranking(state: State) -> list[int]:
    """Players from first to last on the river: farthest first; on a shared space the
    earlier arrival is ahead (later arrivals join the end of the line)."""
    return sorted(
        range(state.num_players),
        key=lambda p: (-state.players[p].river, state.players[p].river_tick),
    )


@task("river_evaluation")
def _river_evaluation(state: State, t: Task) -> None:
    tile = state.game.components.river_tiles[state.river_tiles[state.season - 1]]
    # Ruling: a fisherman still on the start space is nowhere "down the river" and wins
    # nothing; with every fisherman there, the tile goes unused.
    ranked = [p for p in river_ranking(state) if state.players[p].river > 0]
    first = ranked[0] if ranked else -1
    # In a 2-player game second place is not rewarded.
    second = ranked[1] if len(ranked) > 1 and state.num_players > 2 else -1
    why = f"river tile {tile['id']}"
    items: list[Task] = []
    if first >= 0 and "pair" in tile:
        items.append(ask("river_pair", first, other=second))
    elif first >= 0:
        items += [T("fx", p=first, e=e, why=why) for e in tile["first"]]
        if second >= 0:
            items += [T("fx", p=second, e=e, why=why) for e in tile.get("second", [])]
    items.append(T("river_reset"))
    push(state, *items)


@options("river_pair")
def _river_pair_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@resolve("river_pair")
def _river_pair(state: State, t: Task, a: Action) -> None:
    tile = state.river_tiles[state.season - 1]
    pair = state.game.components.river_tiles[tile]["pair"]
    if t["other"] >= 0:
        run_effects(state, t["other"], pair[1 - a.arg], f"river tile {tile}")
    run_effects(state, t["p"], pair[a.arg], f"river tile {tile}")


@task("river_reset")
def _river_reset(state: State, t: Task) -> None:
    """Discard the river tile; all fishermen back to the start (river tile 09: the
    crocodile space in the last season)."""
    croc = state.game.components["river"]["crocodile"]
    for pl in state.players:
        pl.river = croc if (pl.crocodile and state.season == 2) else 0
        pl.river_tick = 0
        pl.jetty = -1
    state.jetty_taken = [False] * len(state.jetty_taken)
    # Scrolls or goods taken by a river-tile bonus are replaced now, as at a turn's end.
    refill_display(state)


def provision_cost(state: State, p: int) -> dict[str, int]:
    cost = dict.fromkeys(RESOURCES, 0)
    for tid, shown in state.players[p].provisions:
        if shown:
            for r, n in state.game.components.provisions[tid]["cost"].items():
                cost[r] += n
    return cost


@task("provide")
def _provide(state: State, t: Task) -> None:
    p = t["p"]
    if has_mod(state, p, "provision_any_resource") and state.players[p].dinars >= 1:
        push(state, ask("provision_mode", p))
    else:
        _pay_provisions(state, p, alternative=False)


@options("provision_mode")
def _provision_mode_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@resolve("provision_mode")
def _provision_mode(state: State, t: Task, a: Action) -> None:
    _pay_provisions(state, t["p"], alternative=a.arg == 1)


def _pay_provisions(state: State, p: int, alternative: bool) -> None:
    """Pay for the revealed provision tiles, or pay everything and lose their points.

    Scroll 44 (``alternative``): 1 dinar, then any 1 resource per tile.
    """
    from tower.marrakesh.rules import can_pay, pay, pay_any

    pl = state.players[p]
    shown = [tid for tid, s in pl.provisions if s]
    if alternative:
        pl.dinars -= 1
        ok = total_resources(pl) >= len(shown)
        if ok:
            pay_any(state, p, len(shown))
    else:
        cost = provision_cost(state, p)
        ok = can_pay(state, p, cost)
        if ok:
            pay(state, p, cost)
    if not ok:
        pl.water = pl.dates = pl.dinars = 0
        penalty = sum(state.game.components.provisions[tid]["penalty"] for tid in shown)
        score(state, p, -penalty, f"season {state.season}: citizens not provided for")


@task("next_season")
def _next_season(state: State, t: Task) -> None:
    """Preparing the 2nd and 3rd season."""
    state.season += 1
    state.round = 1
    for pl in state.players:
        pl.screen = list(KESHI_COLOURS)
        for c in KESHI_COLOURS:
            state.issued[c] += 1
    state.season_start = (state.season_start + 1) % state.num_players
    state.start = state.season_start
    state.stack.append(T("round"))


# -- final scoring ----------------------------------------------------------------------
def filled(state: State, p: int, sector: str) -> bool:
    """8 keshis of the sector's colour and a water vendor (the souk never counts)."""
    if sector in ("green", "brown") and state.game.has("walls_guards"):
        from tower.marrakesh.modules import walls_guards

        return walls_guards.filled(state, p, sector)
    pl = state.players[p]
    return pl.keshis[sector] >= 8 and sector in pl.vendors


def oasis_value(state: State, p: int, oid: int, consume: bool = False) -> int:
    """Points oasis ``oid`` is worth to player ``p`` now. With ``consume`` the resources
    an oasis 19-21 asks for are returned to the supply.

    Ruling: for oases 19-21 the player returns as many resources as allowed (12 at most);
    each is worth 1 point there and only half a point as a remaining resource.
    """
    o = state.game.components.oases[oid]
    pl = state.players[p]
    kind = o["kind"]
    if kind == "gates":
        return o["points"] * sum(g in o["colours"] for g in pl.gates if g is not None)
    if kind == "keshis":
        n = (
            len(pl.vendors) + (1 if pl.souk_vendor else 0)
            if o["colour"] == "red"
            else pl.keshis[o["colour"]]
        )
        return 3 + n
    if kind == "luxury":
        goods = [state.game.components.luxuries[x]["good"] for x in pl.luxuries]
        return o["points"] * goods.count(o["good"])
    if kind == "resource":
        n = min(12, getattr(pl, o["resource"]))
        if consume:
            setattr(pl, o["resource"], getattr(pl, o["resource"]) - n)
        return 3 + n
    if kind == "per_luxury":
        return 3 + len(pl.luxuries)
    if kind == "per_scroll":
        return 3 + len(pl.scrolls)
    if kind == "sparse_sectors":
        return 4 * sum(pl.keshis[s] <= 3 for s in VENDOR_SECTORS)
    if kind == "full_sectors":
        return 4 * sum(filled(state, p, s) for s in VENDOR_SECTORS)
    if kind == "claimed_oases":
        return 3 * len(pl.claimed)
    if kind == "stair_top":
        return 7 if getattr(pl, o["which"]) >= state.game.components["staircase"]["final"] else 0
    if kind == "thresholds":
        th = state.game.components["staircase"]["thresholds"]
        crossed = sum(pl.mosque >= x for x in th) + sum(pl.palace >= x for x in th)
        return 7 if crossed >= 5 else 0
    if kind == "jetty":
        return 7 if pl.jetty >= 0 else 0
    raise AssertionError(f"unknown oasis kind {kind!r}")


@task("final_scoring")
def _final_scoring(state: State, t: Task) -> None:
    comps = state.game.components
    setup = comps["setup"]
    for p in range(state.num_players):
        pl = state.players[p]
        # At the end, guards still on the watchtower stand on free gate keshi spaces; the
        # medina counts as filled with 8 guards and a vendor whatever the gates.
        for s in VENDOR_SECTORS:
            if filled(state, p, s):
                score(state, p, setup["filled_sector_points"], f"final: filled sector {s}")
        ranked = sorted(pl.claimed, key=lambda o: -oasis_value(state, p, o))[: setup["best_oases"]]
        for oid in ranked:
            score(state, p, oasis_value(state, p, oid, consume=True), f"final: oasis {oid}")
        towns = [pl.towns[i] for i in (0, 1) if pl.towns_claimed[i]]
        wood = 0
        if state.game.has("walls_guards"):
            from tower.marrakesh.modules import walls_guards

            walls_guards.final_scoring(state, p)
            towns += walls_guards.wall_towns(state, p)
            # Ruling: wood counts as a remaining resource (Personal Tasks: "resources and/or
            # wood ... remain available for ... 'Remaining resources' in the final scoring").
            wood = pl.wood
        if towns:
            from tower.marrakesh.modules.desert_towns import town_value

            values = sorted((town_value(state, p, x) for x in towns), reverse=True)
            for v in values[: setup["best_desert_towns"]]:
                score(state, p, v, "final: desert town")
        goods = sum(pl.keshis[c] for c in GOODS)
        score(state, p, (total_resources(pl) + wood + goods) // 2, "final: resources and goods")
