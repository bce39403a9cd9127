"""Season scoring (river evaluation, providing for citizens, preparing the next season)
and final scoring (filled sectors, the best oases and desert towns, resources).

Every score change goes through :func:`tower.marrakesh.rules.score` and is logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import GOODS, RESOURCES, VENDOR_SECTORS, Action, action_id
from tower.marrakesh.effects import board_keshis, run_effects
from tower.marrakesh.phases import refill_display
from tower.marrakesh.rules import (
    T,
    Task,
    ask,
    can_pay,
    has_mod,
    options,
    order,
    pay,
    pay_any,
    push,
    resolve,
    score,
    task,
    total_resources,
)
from tower.marrakesh.sectors import spectators
from tower.marrakesh.worth import filled, oasis_value
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


@task("season_end")
def _season_end(state: Board, t: Task) -> None:
    """The season scoring: the core's steps (``river``, ``provisions``, ``prepare``) with
    the modules' steps inserted at their anchors (``game.hooks.season``), then the next
    season's first round or the final scoring. Both close the list, so that every step,
    one anchored after ``prepare`` included, runs before the next round is played."""
    items: list[Task] = []
    for name, module_tasks in state.game.hooks.season:
        items += _CORE_STEPS[name](state) if module_tasks is None else module_tasks(state)
    push(state, *items, T("round") if state.season < 3 else T("final_scoring"))


def _river_step(state: Board) -> list[Task]:
    items = []
    for p in order(state):
        if 28 in state.players[p].scrolls:
            # Scroll 28: at the start of season scoring, one bonus from each crossed rapid.
            items.append(T("fx", p=p, e={"op": "special", "name": "each_rapid_bonus"}))
    return [*items, T("river_evaluation")]


def _provisions_step(state: Board) -> list[Task]:
    return [{"t": "provide", "p": p} for p in order(state)]


def _prepare_step(state: Board) -> list[Task]:
    if state.season < 3:
        return [*[ask("provision", p) for p in order(state)], T("next_season")]
    return []


#: The core's season-scoring steps (:data:`tower.marrakesh.hooks.SEASON_STEPS`).
_CORE_STEPS = {"river": _river_step, "provisions": _provisions_step, "prepare": _prepare_step}


def river_ranking(state: Board) -> list[int]:
    """Players from first to last on the river: farthest first; on a shared space the
    earlier arrival is ahead (later arrivals join the end of the line)."""
    return sorted(
        range(state.num_players),
        key=lambda p: (-state.players[p].river, state.players[p].river_tick),
    )


@task("river_evaluation")
def _river_evaluation(state: Board, t: Task) -> None:
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
def _river_pair_options(state: Board, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@resolve("river_pair")
def _river_pair(state: Board, t: Task, a: Action) -> None:
    tile = state.river_tiles[state.season - 1]
    pair = state.game.components.river_tiles[tile]["pair"]
    if t["other"] >= 0:
        run_effects(state, t["other"], pair[1 - a.arg], f"river tile {tile}")
    run_effects(state, t["p"], pair[a.arg], f"river tile {tile}")


@task("river_reset")
def _river_reset(state: Board, t: Task) -> None:
    """Discard the river tile; all fishermen back to the start (river tile 09: the
    crocodile space in the last season)."""
    if state.season == 3:
        # Ruling: the fishermen return to the start to prepare the next season; after the
        # third season's river evaluation there is none, so they stay where they are. Oasis
        # 30 ("7 points if your fisherman has reached a spot at the jetty at the end of the
        # game") then reads the jetty spot reached in the third season; resetting them
        # here too, as the text read literally asks, would make that oasis worthless.
        return
    croc = state.game.components["river"]["crocodile"]
    for pl in state.players:
        pl.river = croc if (pl.crocodile and state.season == 2) else 0
        pl.river_tick = 0
        pl.jetty = -1
    state.jetty_taken = [False] * len(state.jetty_taken)
    # Scrolls or goods taken by a river-tile bonus are replaced now, as at a turn's end.
    refill_display(state)


def provision_cost(state: Board, p: int) -> dict[str, int]:
    cost = dict.fromkeys(RESOURCES, 0)
    for tid, shown in state.players[p].provisions:
        if shown:
            for r, n in state.game.components.provisions[tid]["cost"].items():
                cost[r] += n
    return cost


@task("provide")
def _provide(state: Board, t: Task) -> None:
    p = t["p"]
    if has_mod(state, p, "provision_any_resource") and state.players[p].dinars >= 1:
        push(state, ask("provision_mode", p))
    else:
        _pay_provisions(state, p, alternative=False)


@options("provision_mode")
def _provision_mode_options(state: Board, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@resolve("provision_mode")
def _provision_mode(state: Board, t: Task, a: Action) -> None:
    _pay_provisions(state, t["p"], alternative=a.arg == 1)


def _pay_provisions(state: Board, p: int, alternative: bool) -> None:
    """Pay for the revealed provision tiles, or pay everything and lose their points.

    Scroll 44 (``alternative``): 1 dinar, then any 1 resource per tile.
    """
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
        # Ruling: the rulebook (*Marrakesh*) only says the
        # points are lost; the German summary of the *Marrakesh* rules
        # gives "4 / 8 / 12 Minuspunkte in Durchgang 1 / 2 / 3". One tile is revealed per
        # season, so that is each revealed tile's printed penalty (4, components
        # `provision.penalty`) summed: 4, 8, 12 with the base tiles.
        penalty = sum(state.game.components.provisions[tid]["penalty"] for tid in shown)
        score(state, p, -penalty, f"season {state.season}: citizens not provided for")


@task("next_season")
def _next_season(state: Board, t: Task) -> None:
    """Preparing the 2nd and 3rd season."""
    state.season += 1
    state.round = 1
    for pl in state.players:
        pl.screen = list(KESHI_COLOURS)
        for c in KESHI_COLOURS:
            state.issued[c] += 1
    state.season_start = (state.season_start + 1) % state.num_players
    state.start = state.season_start


# -- final scoring ----------------------------------------------------------------------
@task("final_scoring")
def _final_scoring(state: Board, t: Task) -> None:
    comps = state.game.components
    setup = comps["setup"]
    hooks = state.game.hooks
    for p in range(state.num_players):
        pl = state.players[p]
        # The modules' final scoring comes first (Edicts: "BEFORE all other final scoring
        # steps"), in the hook order.
        for final in hooks.final_scoring:
            final(state, p)
        # At the end, guards still on the watchtower stand on free gate keshi spaces; the
        # medina counts as filled with 8 guards and a vendor whatever the gates.
        for s in VENDOR_SECTORS:
            if filled(state, p, s):
                score(state, p, setup["filled_sector_points"], f"final: filled sector {s}")
        ranked = sorted(pl.claimed, key=lambda o: -oasis_value(state, p, o))[: setup["best_oases"]]
        for oid in ranked:
            score(state, p, oasis_value(state, p, oid, consume=True), f"final: oasis {oid}")
        # Ruling: the desert towns of every module (the paths' towns of expansion 5, the
        # wall board's town of Walls & Guards) score together: the best 2 of them all.
        towns = [x for hook in hooks.towns for x in hook(state, p)]
        values = sorted((town_value(state, p, x) for x in towns), reverse=True)
        for v in values[: setup["best_desert_towns"]]:
            score(state, p, v, "final: desert town")
        extra = sum(hook(state, p) for hook in hooks.remaining)
        goods = sum(pl.keshis[c] for c in GOODS)
        score(state, p, (total_resources(pl) + extra + goods) // 2, "final: resources and goods")


def town_value(state: Board, p: int, tid: int) -> int:
    """Final-scoring points of desert town ``tid`` for player ``p`` (0 for 10-12)."""
    kind = state.game.components.desert_towns[tid]["kind"]
    pl = state.players[p]
    if kind == "gates_all":
        return 2 * sum(g is not None for g in pl.gates)
    if kind == "luxuries":
        return 2 * len(pl.luxuries)
    if kind == "scrolls":
        return 2 * len(pl.scrolls)
    if kind == "stair_steps":
        which = state.game.components.desert_towns[tid]["which"]
        return min(getattr(pl, which), state.game.components["staircase"]["final"])
    if kind == "keshis_third":
        return board_keshis(state, p, goods=False) // 3
    if kind == "river_steps":
        return pl.river_total
    if kind == "sectors_four":
        return 2 * sum(pl.keshis[s] + (s in pl.vendors) >= 4 for s in VENDOR_SECTORS)
    if kind == "entertainers":
        return sum(spectators(state, p, i) for i in range(8) if pl.square[i])
    if kind == "instant":
        return 0
    raise AssertionError(f"unknown desert town kind {kind!r}")
