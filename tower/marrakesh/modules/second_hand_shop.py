"""Gems & Experts, Second-Hand Shop: players offer their scrolls and activated oases for
sale at the price of one of their offer tiles, and buy what the others offer.

Rulebook: *Gems & Experts* ("Second-Hand-Shop"). What the
module changes:

- components: the shop (``[shop]``), the 5 offer tiles of each player (``[[shop_offer]]``)
  and oases 39 and 40 (``[[shop_oasis]]``, mixed with the base game's);
- a player with at least 1 assistant in the souk may, at the start of their turn (Ruling:
  the shop is visited once per turn, before the assistants, selling first), offer 1
  scroll or activated oasis (decision ``shop_sell``: ``shop_sell:<scroll id>`` or
  ``shop_sell:<100 + oasis id>``, then ``shop_price``: which offer tile) and buy 1
  (decision ``shop_buy``: ``shop_buy:<item>``, the same numbering);
- a bought item gets a used tile and cannot be offered again; a bought scroll costs no
  dates and needs 1 gray scholar keshi; a bought oasis goes onto the buyer's oasis track
  like any activated oasis;
- a sold oasis leaves a gap on the seller's oasis track that the next activated oasis
  fills (the ``track_slot`` hook), its bonus usable again (the keshi bonus is gone);
- season scoring (step ``shop_clearance``, after the provisions): unsold gray scrolls
  slide onto the clearance space (their offer tiles go back); they sell for 1 dinar to
  the supply and 1 point;
- oases 39 (2 points per used tile) and 40 (5 points per used scroll and used oasis).

``state.ext["second_hand_shop"]``: ``offers`` (``[item, seller, offer tile]``),
``clearance`` (scroll ids), ``used`` (items with a used tile); each player's
``players[i].ext["second_hand_shop"]``: ``tiles`` (offer tiles in their supply),
``slots`` (oasis id -> track space), ``gaps`` (free track spaces).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=4, modules=frozenset({"second_hand_shop"}))).new_initial_state(0)
>>> capacity(s, "gray"), capacity(s, "orange"), capacity(s, "oasis")
(3, 1, 2)
>>> sorted(set(s.game.components.oases) - set(range(1, 31)))
[39, 40]
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.actions import Action, action_id, action_ids
from tower.marrakesh.components import Components, entries
from tower.marrakesh.effects import run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.labels import amount, oasis_text, scroll_text
from tower.marrakesh.rules import Label, T, Task, ask, push, score
from tower.marrakesh.sectors import claim_oasis

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "second_hand_shop"
PASS = action_id("pass")
#: Items: a scroll is its id, an oasis 100 + its id.
OASIS = 100
ITEMS = 150


def _cfg(state: State) -> dict[str, Any]:
    return state.game.components["shop"]


def _ext(state: State) -> dict[str, Any]:
    return state.ext[NAME]


def _mine(state: State, p: int) -> dict[str, Any]:
    return state.players[p].ext[NAME]


def capacity(state: State, shelf: str) -> int:
    """Spaces of a shelf (a scroll colour or ``"oasis"``)."""
    cfg = _cfg(state)
    extra = state.num_players == 4 and shelf in cfg["four_player_extra"]
    return cfg["spaces"][shelf] + int(extra)


def shelf(state: State, item: int) -> str:
    return "oasis" if item >= OASIS else state.game.components.scrolls[item]["colour"]


def _tiles(state: State) -> dict[int, dict[str, Any]]:
    return state.game.components.tables["shop_offer"]


def free_tiles(state: State, p: int, kind: str) -> list[int]:
    return [k for k in _mine(state, p)["tiles"] if _tiles(state)[k]["kind"] == kind]


# -- selling ----------------------------------------------------------------------------
def sellable(state: State, p: int) -> list[int]:
    """Items player ``p`` may offer now: own scrolls and activated oases without a used
    tile, with a free space on their shelf and a free offer tile of their kind."""
    pl = state.players[p]
    used = set(_ext(state)["used"])
    taken: dict[str, int] = {}
    for item, _, _ in _ext(state)["offers"]:
        taken[shelf(state, item)] = taken.get(shelf(state, item), 0) + 1
    out = []
    for item in [*pl.scrolls, *(OASIS + o for o in pl.claimed)]:
        kind = "oasis" if item >= OASIS else "scroll"
        room = capacity(state, shelf(state, item)) - taken.get(shelf(state, item), 0)
        if item not in used and room > 0 and free_tiles(state, p, kind):
            out.append(item)
    return sorted(out)


@ADDS.option("shop_sell")
def _sell_options(state: State, t: Task) -> list[int]:
    return [PASS, *action_ids("shop_sell", sellable(state, t["p"]))]


@ADDS.resolution("shop_sell", ignore_pass=True)
def _sell(state: State, t: Task, a: Action) -> None:
    push(state, ask("shop_price", t["p"], item=a.arg))


@ADDS.option("shop_price")
def _price_options(state: State, t: Task) -> list[int]:
    kind = "oasis" if t["item"] >= OASIS else "scroll"
    return action_ids("choice", range(len(free_tiles(state, t["p"], kind))))


@ADDS.resolution("shop_price")
def _price(state: State, t: Task, a: Action) -> None:
    p, item = t["p"], t["item"]
    tile = free_tiles(state, p, "oasis" if item >= OASIS else "scroll")[a.arg]
    mine = _mine(state, p)
    mine["tiles"].remove(tile)
    _ext(state)["offers"].append([item, p, tile])
    pl = state.players[p]
    if item >= OASIS:
        # The oasis leaves its track space free; the others stay where they are.
        pl.claimed.remove(item - OASIS)
        mine["gaps"] = sorted([*mine["gaps"], mine["slots"].pop(str(item - OASIS))])
    else:
        pl.scrolls.remove(item)


# -- buying -----------------------------------------------------------------------------
def price(state: State, item: int) -> tuple[int, int, int]:
    """(dinars, points, seller or -1) of an item for sale (clearance: no seller)."""
    for it, seller, tile in _ext(state)["offers"]:
        if it == item:
            pr = _tiles(state)[tile]["price"]
            return pr.get("dinars", 0), pr.get("points", 0), seller
    cl = _cfg(state)["clearance"]
    return cl["dinars"], cl["points"], -1


def buyable(state: State, p: int) -> list[int]:
    """Items player ``p`` may buy now.

    Ruling: the price is paid in dinars (the seller receives them), and points only as
    far as the buyer has them; a player does not buy back their own offer.
    """
    pl = state.players[p]
    ext = _ext(state)
    if len(ext["used"]) >= _cfg(state)["used_tiles"]:
        return []
    items = [it for it, seller, _ in ext["offers"] if seller != p] + ext["clearance"]
    out = []
    for item in items:
        dinars, points, _ = price(state, item)
        scholars = item >= OASIS or pl.keshis["gray"] >= _cfg(state)["buyer_scholars"]
        if scholars and pl.dinars >= dinars and pl.score >= points:
            out.append(item)
    return sorted(out)


@ADDS.option("shop_buy")
def _buy_options(state: State, t: Task) -> list[int]:
    return [PASS, *action_ids("shop_buy", buyable(state, t["p"]))]


@ADDS.resolution("shop_buy", ignore_pass=True)
def _buy(state: State, t: Task, a: Action) -> None:
    p, item = t["p"], a.arg
    ext = _ext(state)
    dinars, points, seller = price(state, item)
    state.players[p].dinars -= dinars
    score(state, p, -points, "second-hand shop: bought")
    if seller >= 0:
        offer = next(o for o in ext["offers"] if o[0] == item)
        ext["offers"].remove(offer)
        _mine(state, seller)["tiles"] = sorted([*_mine(state, seller)["tiles"], offer[2]])
        state.players[seller].dinars += dinars
        score(state, seller, points, "second-hand shop: sold")
    else:
        ext["clearance"].remove(item)  # the dinar goes to the supply, nobody scores
    ext["used"].append(item)
    if item >= OASIS:
        claim_oasis(state, p, item - OASIS)
        return
    state.players[p].scrolls.append(item)
    entry = state.game.components.scrolls[item]
    if entry["timing"] == "instant":
        # Ruling: "Otherwise, these scrolls ... function the same as any other scroll":
        # a bought instant scroll acts at once for its buyer, as when taken in the Madrasa.
        run_effects(state, p, entry["effect"], f"scroll {item} (second-hand)")


# -- named decisions --------------------------------------------------------------------
def item_text(state: State, p: int, item: int) -> str:
    """A scroll or oasis of the shop in words (an oasis by its worth to ``p``)."""
    if item >= OASIS:
        return oasis_text(state, p, item - OASIS)
    return scroll_text(state.game.components, item)


@ADDS.label("shop_sell", passing="offer nothing at the second-hand shop")
def _sell_label(state: State, t: Task, a: Action) -> Label:
    return f"offer {item_text(state, t['p'], a.arg)} at the second-hand shop"


@ADDS.label("shop_price")
def _price_label(state: State, t: Task, a: Action) -> Label:
    kind = "oasis" if t["item"] >= OASIS else "scroll"
    pr = _tiles(state)[free_tiles(state, t["p"], kind)[a.arg]]["price"]
    dinars, points = pr.get("dinars", 0), pr.get("points", 0)
    return f"ask {amount(dinars, 'dinars')} and {amount(points, 'points')} for it"


@ADDS.label("shop_buy", passing="buy nothing at the second-hand shop")
def _buy_label(state: State, t: Task, a: Action) -> Label:
    dinars, points, _ = price(state, a.arg)
    text = f"buy {item_text(state, t['p'], a.arg)} for {amount(dinars, 'dinars')}"
    text += f" and {amount(points, 'points')}" if points else ""
    return text, {}, {"dinars": dinars, "points": points}


# -- the oasis track and the season's end -----------------------------------------------
def _clearance_tasks(state: State) -> list[Task]:
    return [T("shop_clearance")]


@ADDS.task("shop_clearance")
def _clearance(state: State, t: Task) -> None:
    """Unsold gray scrolls slide onto the clearance space; their offer tiles go back."""
    ext = _ext(state)
    for offer in [o for o in ext["offers"] if shelf(state, o[0]) == "gray"]:
        item, seller, tile = offer
        ext["offers"].remove(offer)
        ext["clearance"].append(item)
        _mine(state, seller)["tiles"] = sorted([*_mine(state, seller)["tiles"], tile])


def used_owned(state: State, p: int) -> tuple[int, int]:
    """(used scrolls, used oases) player ``p`` owns."""
    used = set(_ext(state)["used"])
    pl = state.players[p]
    return sum(s in used for s in pl.scrolls), sum(OASIS + o in used for o in pl.claimed)


ADDS.oasis_kinds["used_tiles"] = lambda s, p, o: o["points"] * sum(used_owned(s, p))
ADDS.oasis_kinds["used_pairs"] = lambda s, p, o: o["points"] * min(used_owned(s, p))


# -- invariants and views ---------------------------------------------------------------
def check(state: State) -> None:
    ext = _ext(state)
    offers = ext["offers"]
    for p, pl in enumerate(state.players):
        mine = _mine(state, p)
        out = [tile for _, seller, tile in offers if seller == p]
        assert sorted(mine["tiles"] + out) == sorted(_tiles(state)), f"player {p} offer tiles"
        slots = sorted(mine["slots"].values())
        assert sorted(map(int, mine["slots"])) == sorted(pl.claimed), f"player {p}: track"
        assert sorted(slots + mine["gaps"]) == list(range(len(slots) + len(mine["gaps"]))), (
            f"player {p}: oasis track spaces {mine}"
        )
    shelves: dict[str, int] = {}
    for item, _, _ in offers:
        shelves[shelf(state, item)] = shelves.get(shelf(state, item), 0) + 1
    assert all(n <= capacity(state, s) for s, n in shelves.items()), f"shop shelves {shelves}"
    scrolls = [s for st in state.stacks for s in st] + [
        s for pl in state.players for s in pl.scrolls
    ]
    scrolls += [it for it, _, _ in offers if it < OASIS] + ext["clearance"]
    # No scroll in two places (other modules may hold scrolls for a
    # while, e.g. New Special Buildings' setup draw, so not every scroll is counted here).
    assert len(set(scrolls)) == len(scrolls), f"a scroll in two places: {sorted(scrolls)}"
    assert set(scrolls) <= set(state.game.components.scrolls), "an unknown scroll"
    assert all(shelf(state, s) == "gray" for s in ext["clearance"]), ext["clearance"]
    oases = [o for pl in state.players for o in pl.claimed] + [
        it - OASIS for it, _, _ in offers if it >= OASIS
    ]
    assert len(set(oases)) == len(oases), f"an oasis in two places: {sorted(oases)}"
    assert len(set(ext["used"])) == len(ext["used"]) <= _cfg(state)["used_tiles"], ext["used"]


@register
class SecondHandShop(Module):
    """The Second-Hand Shop on the hooks (see the module docstring)."""

    name = NAME
    turn_times = frozenset({"start"})
    adds = ADDS
    title = "Gems & Experts: Second-Hand Shop"
    rulebook = "Gems & Experts"
    excludes = frozenset({"closed_madrasa"})
    action_kinds = (("shop_sell", ITEMS), ("shop_buy", ITEMS))
    season_steps = (SeasonStep("shop_clearance", after="provisions", tasks=_clearance_tasks),)

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        offers = entries(path, data, "shop_offer", 5)
        for oid, o in offers.items():
            price = o.get("price", {})
            if o.get("kind") not in ("scroll", "oasis") or set(price) - {"dinars", "points"}:
                raise InputFileError(path, "needs a kind and a price", field=f"shop_offer {oid}")
        return {"shop_offer": offers, "shop_oasis": entries(path, data, "shop_oasis", 2, first=39)}

    def components(self, comps: Components) -> Components:
        return dataclasses.replace(comps, oases={**comps.oases, **comps.tables["shop_oasis"]})

    def setup(self, state: State) -> None:
        state.ext[NAME] = {"offers": [], "clearance": [], "used": []}
        for pl in state.players:
            pl.ext[NAME] = {"tiles": sorted(_tiles(state)), "slots": {}, "gaps": []}

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        if when != "start" or state.players[p].assistants.get("souk", 0) < 1:
            return []
        return [ask("shop_sell", p), ask("shop_buy", p)]

    def track_slot(self, state: State, p: int) -> int:
        """The track space of the oasis just activated: the leftmost gap, else the next one."""
        pl = state.players[p]
        mine = _mine(state, p)
        slot = mine["gaps"].pop(0) if mine["gaps"] else len(pl.claimed) - 1
        mine["slots"][str(pl.claimed[-1])] = slot
        return slot

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        ext = _ext(state)
        v[NAME] = {
            "offers": [list(o) for o in ext["offers"]],
            "clearance": list(ext["clearance"]),
            "used": list(ext["used"]),
            "tiles": [list(_mine(state, p)["tiles"]) for p in range(state.num_players)],
            "gaps": [list(_mine(state, p)["gaps"]) for p in range(state.num_players)],
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        return {
            "shop.offer_tile": (ITEMS,),
            "shop.seller": (ITEMS,),
            "shop.clearance": (ITEMS,),
            "shop.used": (ITEMS,),
            "shop.tiles": (4, len(comps.tables["shop_offer"])),
            "shop.gaps": (4, 8),
        }

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        ext = _ext(state)
        for item, seller, tile in ext["offers"]:
            views["shop.offer_tile"][item] = tile
            views["shop.seller"][item] = seller + 1
        for item in ext["clearance"]:
            views["shop.clearance"][item] = 1
        for item in ext["used"]:
            views["shop.used"][item] = 1
        for p in range(state.num_players):
            for tile in _mine(state, p)["tiles"]:
                views["shop.tiles"][p, tile - 1] = 1
            for gap in _mine(state, p)["gaps"]:
                views["shop.gaps"][p, min(gap, 7)] = 1

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] != "shop_price":
            return []
        kind = "oasis" if top["item"] >= OASIS else "scroll"
        lines = ["  offer tile (price the buyer pays you):"]
        for i, tile in enumerate(free_tiles(state, top["p"], kind)):
            pr = _tiles(state)[tile]["price"]
            lines.append(
                f"    choice:{i} = tile {tile}: {pr['dinars']} dinars, {pr['points']} points"
            )
        return lines

    def render_board(self, state: State) -> list[str]:
        ext = _ext(state)

        def name(item: int) -> str:
            return f"oasis {item - OASIS}" if item >= OASIS else f"scroll {item}"

        offers = ", ".join(
            f"{name(it)} by player {seller} ({price(state, it)[0]} dinars, "
            f"{price(state, it)[1]} points)"
            for it, seller, _ in ext["offers"]
        )
        clearance = ", ".join(name(it) for it in ext["clearance"]) or "-"
        return [
            f"Second-hand shop: {offers or 'nothing offered'}; clearance {clearance}; "
            f"used tiles left {_cfg(state)['used_tiles'] - len(ext['used'])}"
        ]
