"""The souk (*Marrakesh*, "Souk"): the exchange office and the luxury goods,
with the price discounts the modules offer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import COLOUR_INDEX, GOODS, Action, action_id
from tower.marrakesh.effects import PASS, SPECIALS, Effect, run_effects
from tower.marrakesh.rules import Task, ask, has_mod, mod_values, options, push, resolve, score
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board

#: The ids of ``colour:<first colour>`` and ``shop:0``; the others follow in order.
_COLOUR = action_id("colour")
_SHOP = action_id("shop")


def luxury_cost(state: Board, p: int, lux: int) -> dict[str, int]:
    return dict(state.game.components.luxuries[lux]["cost"])


def discount(state: Board, p: int, what: str) -> int:
    """What the modules take off a price (``discount`` hook): ``"scroll_dates"``,
    ``"luxury_keshis"``."""
    # A loop, not sum() over a generator: asked for most luxury goods of every souk visit.
    total = 0
    for hook in state.game.hooks.discount:
        total += hook(state, p, what)
    return total


def can_buy_luxury(state: Board, p: int, lux: int, less: int | None = None) -> bool:
    """Whether player ``p`` can buy ``lux``: at its printed price, or in a way a module
    offers (hook ``luxury_affordable``). ``less``: the player's ``luxury_keshis``
    discount, when the caller has asked for it already."""
    if not points_affordable(state, p, lux):
        return False
    if printed_affordable(state, p, lux, less):
        return True
    # The hooks change nothing: all are asked (in a loop: no comprehension made per call).
    out = False
    for fn in state.game.hooks.luxury_affordable:
        if fn(state, p, lux):
            out = True
    return out


def printed_affordable(state: Board, p: int, lux: int, less: int | None = None) -> bool:
    """Whether player ``p`` has the goods keshis ``lux`` shows (less any discount;
    ``less``: the ``luxury_keshis`` discount, when the caller has asked for it already)."""
    pl = state.players[p]
    keshis = pl.keshis
    short = 0
    for c, n in state.game.components.luxuries[lux]["cost"].items():
        if n > keshis[c]:
            short += n - keshis[c]
    if short == 0:
        return True
    return short <= (discount(state, p, "luxury_keshis") if less is None else less)


def points_affordable(state: Board, p: int, lux: int) -> bool:
    """Whether player ``p`` can pay the points a luxury good costs (Chess: 4 points).

    Ruling: a score is never paid below 0, so a price in points needs that many points
    (a good without one is bought whatever the score, negative included)."""
    price = state.game.components.luxuries[lux].get("points_cost", 0)
    pl = state.players[p]
    return price == 0 or pl.score >= price


@options("souk")
def _souk_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    out = [PASS]
    # Ruling: one assistant exchanges or buys, never both (the text says "or").
    if t["lux"] == 0 and (t["ex"] == 0 or has_mod(state, p, "souk_many_exchanges")):
        out += [_COLOUR + COLOUR_INDEX[c] for c in GOODS if pl.keshis[c] > 0]
    if t["ex"] == 0 and (t["lux"] == 0 or has_mod(state, p, "souk_many_luxuries")):
        less = discount(state, p, "luxury_keshis")  # asked once for every shop
        for i, shop in enumerate(state.shops):
            if state.shop_open[i] and shop and can_buy_luxury(state, p, shop[-1], less):
                out.append(_SHOP + i)
    return out


@resolve("souk", ignore_pass=True)
def _souk(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "colour":
        c = KESHI_COLOURS[a.arg]
        pl.keshis[c] -= 1
        state.issued[c] -= 1
        office = state.game.components.exchange_offices[state.offices[state.season - 1]]
        state.stack.append({"t": "ask", "k": "souk", "p": p, "ex": t["ex"] + 1, "lux": 0})
        for value in mod_values(state, p, "exchange_extra"):  # scroll 18
            run_effects(state, p, value, "souk: scroll 18")
        run_effects(state, p, office[c], "souk: exchange office")
        return
    state.stack.append({"t": "ask", "k": "souk", "p": p, "ex": 0, "lux": t["lux"] + 1})
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


SPECIALS["free_luxury"] = _free_luxury
