"""The Sahara (*Marrakesh*, "Sahara"): discovering oases by deploying
caravans, reaching desert towns, claiming oases and towns, and the specials that claim or
score oases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import GOODS, Action, action_id, action_ids
from tower.marrakesh.effects import PASS, SPECIALS, Effect, run_effects
from tower.marrakesh.rules import (
    T,
    Task,
    ask,
    can_pay,
    has_mod,
    options,
    pay,
    pay_any,
    push,
    resolve,
    score,
    total_resources,
)
from tower.marrakesh.sectors.deploy import brown_spaces, reached, take_keshi
from tower.marrakesh.sectors.oasis_track import claim_oasis
from tower.marrakesh.worth import oasis_value

if TYPE_CHECKING:
    from tower.marrakesh.board import Board, Player

#: The id of ``slot:0``; the others follow in order.
_SLOT = action_id("slot")


@options("place_brown")
def _place_brown_options(state: Board, t: Task) -> list[int]:
    return [_SLOT + i for i in sorted(brown_spaces(state, t["p"]))]


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
    return action_ids("choice", range(len(state.towns_display)))


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


@resolve("sahara", ignore_pass=True)
def _sahara(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
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


def _claim_oases_free(state: Board, p: int, e: Effect) -> None:
    push(state, *[ask("free_oasis", p) for _ in range(e["n"])])


@options("free_oasis")
def _free_oasis_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    found = [action_id("slot", i + 2) for i in range(6) if pl.revealed[i] and not pl.claimed_at[i]]
    return [PASS, *found] if found else []


@resolve("free_oasis", ignore_pass=True)
def _free_oasis(state: Board, t: Task, a: Action) -> None:
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


def _claim_leftover_oasis(state: Board, p: int, e: Effect) -> None:
    push(state, ask("leftover_oasis", p))


@options("leftover_oasis")
def _leftover_options(state: Board, t: Task) -> list[int]:
    return [PASS, *action_ids("choice", range(len(state.leftover_oases)))]


@resolve("leftover_oasis", ignore_pass=True)
def _leftover(state: Board, t: Task, a: Action) -> None:
    claim_oasis(state, t["p"], state.leftover_oases.pop(a.arg))


SPECIALS.update(
    {
        "claim_oases_free": _claim_oases_free,
        "score_oasis": _score_oasis,
        "claim_leftover_oasis": _claim_leftover_oasis,
    }
)
