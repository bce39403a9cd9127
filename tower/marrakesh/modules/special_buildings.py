"""New Special Buildings (Walls & Guards, module 5): 8 buildings with special abilities.

Switched on by ``"special_buildings"`` in ``GameConfig.modules``; combinable with every
other module. Rulebook: *Walls & Guards*, "New Special
Buildings". The buildings, their starting combinations, the special necklace board and the
watchman tile are data (``data/special_buildings.toml``, ``rulebook`` or ``assumed``).

Which buildings are dealt
    The rulebook lets the new buildings be mixed with the special buildings of Expansion 1;
    this toolkit has no other special buildings, so **mixing is not possible here**: only
    these 8 exist. A building "only usable with" a module is dealt only when that module
    is on: the Watchtower and the Woodcutter with Walls & Guards, the University with the
    Experts; the Nomad Tent (Nomads) and the Betting Booth (Camels) need modules the
    toolkit does not have and are never dealt. The Jeweler (Gems) is not dealt either
    (:data:`NOT_DEALT`): its special necklace board is printed, not described (which two
    colours each upper space takes, its start spaces, lines and row points), so it is not
    implemented. The pool holds 2 buildings (Great Well, Flying Merchant), 3 with the
    Experts, 4 with Walls & Guards, 5 with both.

Setup (in turn order, after every other setup decision)
    1. Each player is dealt 2 buildings and keeps 1 (decision ``sb_building``).
       Ruling: the pool is too small for 2 each with 3-4 players (or 2 players without
       Walls & Guards). The rulebook's "the remaining buildings go back in the box" holds
       while the pool still has 2 for every player still to choose; otherwise the building
       not kept goes back into the pool, and a player who finds the pool empty plays
       without a building (with the usual starting resources).
    2. Instead of the usual starting resources each player with a building takes its
       keshi (deployed, with its deployment bonus), then its resources.
    3. All yellow scrolls go into the bag; each player draws 3 and keeps 1 (decision
       ``sb_scroll``), carrying out an instant scroll at once; the rest are shuffled into
       3 stacks of as equal a size as possible.

The abilities
    - Great Well: a supply space with 1 water, 1 date, 1 dinar and 1 wood (wood only with
      Walls & Guards). Each time a water vendor gives the owner water for an assistant in
      its sector, the owner also takes 1 resource of their choice from the space
      (decision ``sb_well``). At the end of the owner's turn an empty space is refilled.
    - Flying Merchant ("once per round" marker): once per round a luxury good may be
      paid with goods keshis of any colours, 1 fewer in total (decision ``sb_merchant``
      then one ``sb_merchant_pay`` per keshi); every luxury good the owner gains earns
      1 more point.
    - Watchtower (Walls & Guards): hiring a watchman costs exactly 1 resource of the
      player's choice; a watchman tile protects the first unrepaired wall section in each
      battle, and repelling a brigand there earns 2 extra points
      (:class:`tower.marrakesh.wall_battle.Wall` with ``watchtower=True``).
    - University (Experts, "once" marker): once per game, at the start of a phase-3 turn
      of the owner holding a used expert tile, the owner may flip 1 used tile back to its
      front side (decision ``sb_university``: ``choice:i`` the ``i``-th used tile of the
      player's tiles, or ``pass``); at the end of the game 2 points for each expert tile,
      used or unused.
      Ruling: "once per game, the player may flip" names no moment; the start of the
      owner's turn is the one moment before every ability of a tile can be used again
      in that turn.
    - Woodcutter (Walls & Guards, "once per round" marker): 1 or 2 wood received bring
      1 more, 3 or more bring 2 more; once per round 1 wood may be given up instead of 1
      resource of the player's choice where the engine asks for one (``choice:0`` in a
      ``pay_resource`` decision, e.g. scroll 44's provisions). Not offered in the
      battle's "return any 2 resources" malus, whose ways are listed whole (open).

Actions and views
    Every choice uses the core's action kinds (``choice``, ``colour``): the action space
    does not grow. Everyone sees each player's building, marker and Great Well space; the
    buildings dealt and the 3 scrolls drawn are seen only by the player choosing.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.actions import (
    COLOUR_INDEX,
    GOODS,
    RESOURCES,
    SCROLL_COLOURS,
    Action,
    action_id,
    action_ids,
)
from tower.marrakesh.hooks import Module, RuleSet, register
from tower.marrakesh.module_data import DATA, check_colours, read
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    order,
    push,
    score,
)

if TYPE_CHECKING:
    from tower.marrakesh.components import Components
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "special_buildings"
#: What the Great Well's supply space can hold, in the order its ``sb_well`` choices list.
WELL = (*RESOURCES, "wood")


#: The modules a building may require (of these the toolkit has only Walls & Guards).
KNOWN_MODULES = frozenset({"walls_guards", "gems", "experts", "nomads", "camels"})
MARKERS = frozenset({"", "round", "game"})


@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked data (``data/special_buildings.toml`` by default); raises
    :class:`tower.errors.InputFileError` naming the file and the field."""
    where = Path(path) if path is not None else DATA / "special_buildings.toml"
    data = read(where, entries={"building": (8, 1), "start": (8, 1)})
    for i, b in data["building"].items():
        field = f"building {i}"
        if b.get("requires") not in KNOWN_MODULES | {""}:
            raise InputFileError(str(where), f"unknown module {b.get('requires')!r}", field=field)
        if b.get("marker") not in MARKERS:
            raise InputFileError(
                str(where),
                f"marker {b.get('marker')!r} is not one of {sorted(MARKERS)}",
                field=field,
            )
    for i, s in data["start"].items():
        check_colours(where, f"start {i}.keshi", s.get("keshi"))
        bad = sorted(set(s.get("resources", {})) - set(WELL))
        if bad:
            raise InputFileError(str(where), f"unknown resources {bad}", field=f"start {i}")
    data["by_name"] = {b["name"]: i for i, b in data["building"].items()}
    if len(data["by_name"]) != len(data["building"]):
        raise InputFileError(str(where), "building names repeat", field="building")
    return data


#: Buildings never dealt: their printed board is not described by the rulebook text (the
#: Jeweler's special necklace), so the engine does not play them.
NOT_DEALT = frozenset({"jeweler"})


def usable(modules: frozenset[str]) -> list[int]:
    """Ids of the buildings that can be dealt with ``modules`` in play."""
    return [
        i
        for i, b in load()["building"].items()
        if (not b["requires"] or b["requires"] in modules) and b["name"] not in NOT_DEALT
    ]


# -- state ------------------------------------------------------------------------------
def ext(state: State) -> dict[str, Any]:
    """The module's global state: the pool of buildings still to deal, the scroll offers."""
    return state.ext[NAME]


def mine(state: State, p: int) -> dict[str, Any]:
    """Player ``p``'s part: ``building`` (0 none), ``marker`` (active), ``well``
    (resources on the Great Well's space)."""
    pl = state.players[p]
    return pl.ext[NAME]


def owns(state: State, p: int, name: str) -> bool:
    """Whether player ``p`` owns the building called ``name``."""
    # mine(state, p), read in place: the modules ask on most turns.
    if NAME not in state.game.config.modules:
        return False
    pl = state.players[p]
    return pl.ext[NAME]["building"] == load()["by_name"].get(name)


def building(state: State, p: int) -> dict[str, Any]:
    return load()["building"][mine(state, p)["building"]]


def _wood_in_play(state: State) -> bool:
    return "walls_guards" in state.game.config.modules


# -- setup ------------------------------------------------------------------------------
@ADDS.task("sb_deal")
def _deal(state: State, t: Task) -> None:
    pool = ext(state)["pool"]
    n = min(load()["special_buildings"]["dealt"], len(pool))
    offer, ext(state)["pool"] = pool[:n], pool[n:]
    if offer:
        push(state, ask("sb_building", t["p"], offer=offer, seat=t["seat"]))


@ADDS.option("sb_building")
def _building_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(len(t["offer"])))


@ADDS.resolution("sb_building")
def _building(state: State, t: Task, a: Action) -> None:
    p, offer = t["p"], list(t["offer"])
    kept = offer.pop(a.arg)
    pool = ext(state)["pool"]
    still = state.num_players - t["seat"] - 1  # players still to be dealt buildings
    if len(pool) < load()["special_buildings"]["dealt"] * still:
        pool.extend(offer)  # Ruling (short pool): the other building goes back into the pool
        state.rng.shuffle(pool)
    me = mine(state, p)
    me["building"] = kept
    me["marker"] = bool(load()["building"][kept]["marker"])
    if "well" in load()["building"][kept]:
        _fill_well(state, p)


@ADDS.task("sb_start")
def _start(state: State, t: Task) -> None:
    """The building's keshi (with its deployment bonus), then its resources, instead of
    the usual starting resources."""
    p = t["p"]
    me = mine(state, p)
    if not me["building"]:
        return  # Ruling (short pool): no building, the usual starting resources
    pl = state.players[p]
    for r, n in state.game.components["setup"]["start_resources"].items():
        setattr(pl, r, getattr(pl, r) - n)
    start = load()["start"][me["building"]]
    push(state, T("deploy", p=p, c=start["keshi"], src="supply"), T("sb_resources", p=p))


@ADDS.task("sb_resources")
def _resources(state: State, t: Task) -> None:
    # Ruling: starting resources are set out, not "received": the Woodcutter adds none.
    pl = state.players[t["p"]]
    for r, n in load()["start"][mine(state, t["p"])["building"]]["resources"].items():
        if r != "wood" or _wood_in_play(state):
            # Ruling: wood in a combination is taken only with Walls & Guards.
            setattr(pl, r, getattr(pl, r) + n)


def _yellow_stacks() -> range:
    g = SCROLL_COLOURS.index(load()["special_buildings"]["scroll_colour"])
    return range(3 * g, 3 * g + 3)


@ADDS.task("sb_scrolls")
def _scrolls(state: State, t: Task) -> None:
    """All yellow scrolls into the bag; each player draws 3."""
    bag = sorted(sid for i in _yellow_stacks() for sid in state.stacks[i])
    for i in _yellow_stacks():
        state.stacks[i] = []
    state.rng.shuffle(bag)
    k = load()["special_buildings"]["scrolls_drawn"]
    offers = {str(p): bag[i * k : (i + 1) * k] for i, p in enumerate(order(state))}
    ext(state)["offers"] = offers
    ext(state)["bag"] = bag[state.num_players * k :]


@ADDS.option("sb_scroll")
def _scroll_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(len(ext(state)["offers"][str(t["p"])]))]


@ADDS.resolution("sb_scroll")
def _scroll(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.effects import run_effects

    p = t["p"]
    offer = ext(state)["offers"].pop(str(p))
    sid = offer.pop(a.arg)
    ext(state)["bag"] += offer
    state.players[p].scrolls.append(sid)
    entry = state.game.components.scrolls[sid]
    if entry["timing"] == "instant":
        run_effects(state, p, entry["effect"], f"scroll {sid}")


@ADDS.task("sb_restack")
def _restack(state: State, t: Task) -> None:
    """The remaining yellow scrolls, shuffled, in 3 stacks of as equal a size as possible."""
    bag = sorted(ext(state).pop("bag"))
    state.rng.shuffle(bag)
    stacks = _yellow_stacks()
    k = len(stacks)
    for j, i in enumerate(stacks):
        state.stacks[i] = bag[j * len(bag) // k : (j + 1) * len(bag) // k]
        state.stack_open[i] = bool(state.stacks[i])
    ext(state)["offers"] = {}


# -- markers ----------------------------------------------------------------------------
def round_start(state: State) -> None:
    """The "once per round" markers flip back to their active side ("at the start of the
    next round")."""
    for p in range(state.num_players):
        me = mine(state, p)
        if me["building"] and building(state, p)["marker"] == "round":
            me["marker"] = True


def use_marker(state: State, p: int) -> None:
    mine(state, p)["marker"] = False


# -- the Great Well ---------------------------------------------------------------------
def _fill_well(state: State, p: int) -> None:
    well = building(state, p)["well"]
    mine(state, p)["well"] = {r: n for r, n in well.items() if r != "wood" or _wood_in_play(state)}


@ADDS.option("sb_well")
def _well_options(state: State, t: Task) -> list[int]:
    well = mine(state, t["p"])["well"]
    return [action_id("choice", i) for i, r in enumerate(WELL) if well.get(r, 0) > 0]


@ADDS.resolution("sb_well")
def _well(state: State, t: Task, a: Action) -> None:
    r = WELL[a.arg]
    mine(state, t["p"])["well"][r] -= 1
    pl = state.players[t["p"]]
    setattr(pl, r, getattr(pl, r) + 1)


def turn_end(state: State, p: int) -> None:
    """An empty Great Well space is refilled at the end of its owner's turn."""
    if owns(state, p, "great_well") and not any(mine(state, p)["well"].values()):
        _fill_well(state, p)


@ADDS.task("sb_turn_end")
def _turn_end(state: State, t: Task) -> None:
    turn_end(state, t["p"])


# -- the Flying Merchant ----------------------------------------------------------------
def merchant_ready(state: State, p: int) -> bool:
    return owns(state, p, "flying_merchant") and mine(state, p)["marker"]


def merchant_price(state: State, p: int, cost: dict[str, int]) -> int:
    """Goods keshis of any colours the Flying Merchant pays for a good costing ``cost``.

    Ruling: the merchant's "1 keshi fewer in total" and other discounts on the goods
    keshis (the imam's "any 1 goods keshi fewer") add up."""
    from tower.marrakesh.sectors import discount

    less = building(state, p)["discount"] + discount(state, p, "luxury_keshis")
    return max(0, sum(cost.values()) - less)


@ADDS.option("sb_merchant")
def _merchant_options(state: State, t: Task) -> list[int]:
    # lists, not tuples: Cython (setup.py) refuses a choice between tuples of two lengths
    return [action_id("choice", i) for i in ([0, 1] if t["printed"] else [1])]


@ADDS.resolution("sb_merchant")
def _merchant(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.sectors import pay_luxury

    p, shop = t["p"], t["shop"]
    if a.arg == 0:
        pay_luxury(state, p, shop)
        return
    use_marker(state, p)
    cost = state.game.components.luxuries[state.shops[shop][-1]]["cost"]
    n = merchant_price(state, p, cost)
    push(
        state, *[ask("sb_merchant_pay", p) for _ in range(n)], T("sb_merchant_buy", p=p, shop=shop)
    )


@ADDS.option("sb_merchant_pay")
def _merchant_pay_options(state: State, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    return [action_id("colour", COLOUR_INDEX[c]) for c in GOODS if pl.keshis[c] > 0]


@ADDS.resolution("sb_merchant_pay")
def _merchant_pay(state: State, t: Task, a: Action) -> None:
    from tower.pieces import KESHI_COLOURS

    c = KESHI_COLOURS[a.arg]
    state.players[t["p"]].keshis[c] -= 1
    state.issued[c] -= 1


@ADDS.task("sb_merchant_buy")
def _merchant_buy(state: State, t: Task) -> None:
    from tower.marrakesh.sectors import buy_luxury

    buy_luxury(state, t["p"], t["shop"], {})  # the goods keshis are paid already


# -- the Woodcutter ---------------------------------------------------------------------
def wood_for_resource(state: State, p: int) -> bool:
    """Whether player ``p`` may now give up 1 wood instead of 1 resource of their choice."""
    return owns(state, p, "woodcutter") and mine(state, p)["marker"] and state.players[p].wood > 0


#: The Woodcutter's wood instead of a resource of choice, in a ``pay_resource`` decision.
WOOD_FOR_RESOURCE = action_id("choice", 0)


# -- the University ---------------------------------------------------------------------
def _used_tiles(state: State, p: int) -> list[int]:
    """Indices (into the player's expert tiles) of the used ones."""
    from tower.marrakesh.modules import experts

    return [i for i, (_, used) in enumerate(experts.mine(state, p)["tiles"]) if used]


def university_offer(state: State, p: int) -> list[Task]:
    """The University's flip, offered at the start of the owner's turn while its marker is
    active and a used expert tile lies in front of them."""
    if owns(state, p, "university") and mine(state, p)["marker"] and _used_tiles(state, p):
        return [ask("sb_university", p)]
    return []


@ADDS.option("sb_university")
def _university_options(state: State, t: Task) -> list[int]:
    return [action_id("pass")] + [
        action_id("choice", i) for i in range(len(_used_tiles(state, t["p"])))
    ]


@ADDS.resolution("sb_university", ignore_pass=True)
def _university(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.modules import experts

    p = t["p"]
    experts.mine(state, p)["tiles"][_used_tiles(state, p)[a.arg]][1] = False
    use_marker(state, p)


def university_points(state: State, p: int) -> None:
    """2 points for each expert tile of the University's owner, used or unused."""
    if owns(state, p, "university"):
        tiles = state.game.hooks.counted(state, p, "expert_tiles") or 0
        per = building(state, p)["end_points_per_expert"]
        score(state, p, per * tiles, "university: expert tiles")


# -- the Watchtower ---------------------------------------------------------------------
# Walls & Guards asks ``count(state, p, "watchtower")``; the rules of the tile and of the
# hiring cost are battle.py's (``Wall(watchtower=True)``, ``hiring_cost(watchtower=True)``).


# -- named decisions --------------------------------------------------------------------
def _building_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import amounts

    b = t["offer"][a.arg]
    start = load()["start"][b]
    name = load()["building"][b]["name"].replace("_", " ")
    return f"keep the {name} (start: a {start['keshi']} keshi, {amounts(start['resources'])})"


def _scroll_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import scroll_text

    sid = ext(state)["offers"][str(t["p"])][a.arg]
    return f"keep {scroll_text(state.game.components, sid)}"


def _well_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import amount

    r = WELL[a.arg]
    return f"take {amount(1, r)} from the Great Well", {r: 1}, {}


def _merchant_label(state: State, t: Task, a: Action) -> Label:
    if a.arg == 0:
        return "pay the printed goods keshis"
    return "pay any goods keshis, 1 fewer (Flying Merchant, once per round)"


def _university_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.modules import experts

    tid = experts.mine(state, t["p"])["tiles"][_used_tiles(state, t["p"])[a.arg]][0]
    return f"flip {experts.tile_words(state, tid)} back to its unused side"


def _wood_label(state: State, t: Task, a: Action) -> Label:
    return "give up 1 wood instead (Woodcutter, once per round)", {}, {"wood": 1}


ADDS.label("sb_building", private=True)(_building_label)
ADDS.label("sb_scroll", private=True)(_scroll_label)
ADDS.label("sb_well")(_well_label)
ADDS.label("sb_merchant")(_merchant_label)
ADDS.label("sb_university", passing="keep the University's flip for later")(_university_label)
ADDS.label("pay_resource/choice")(_wood_label)
ADDS.phrase("sb_merchant_pay", "pay {}")


# -- the module -------------------------------------------------------------------------
@register
class SpecialBuildings(Module):
    """New Special Buildings on the hooks (see the module docstring)."""

    name = NAME
    counts = frozenset({"watchtower"})
    adds = ADDS
    title = "Walls & Guards: New Special Buildings"
    rulebook = "Walls & Guards"
    # A building's keshi is deployed at setup: after the other modules' setup decisions
    # (Walls & Guards' brick tiles must lie in the sahara first).
    setup_last = True

    def setup(self, state: State) -> None:
        pool = usable(state.game.config.modules)
        state.rng.shuffle(pool)
        state.ext[NAME] = {"pool": pool, "offers": {}}
        for pl in state.players:
            pl.ext[NAME] = {"building": 0, "marker": False, "well": {}}

    def setup_asks(self, state: State) -> list[Task]:
        turn = order(state)
        return [
            *[T("sb_deal", p=p, seat=k) for k, p in enumerate(turn)],
            *[T("sb_start", p=p) for p in turn],
            T("sb_scrolls"),
            *[ask("sb_scroll", p) for p in turn],
            T("sb_restack"),
        ]

    def count(self, state: State, p: int, what: str) -> int | None:
        # Ruling (Walls & Guards meets the Watchtower): the Watchtower's hiring cost and
        # watchman tile are applied by Walls & Guards where it hires and fights.
        return int(owns(state, p, "watchtower")) if what == "watchtower" else None

    def round_tasks(self, state: State, when: str) -> list[Task]:
        if when == "start":
            round_start(state)  # a reset, no decision
        return []

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        if when == "start":
            return university_offer(state, p)
        return [{"t": "sb_turn_end", "p": p}] if owns(state, p, "great_well") else []

    def final_scoring(self, state: State, p: int) -> None:
        university_points(state, p)

    def vendor_water(self, state: State, p: int) -> None:
        """A water vendor gave player ``p`` water for an assistant: the Great Well adds 1
        resource of the player's choice from its space."""
        # Ruling: "receives 1 water while using a district action (for 1 water vendor keshi in
        # the district)" is the vendor's water, which the base rules pay for either use of an
        # assistant there (a new keshi or the action); scroll 35's 2 water still bring 1.
        if owns(state, p, "great_well") and any(mine(state, p)["well"].values()):
            push(state, ask("sb_well", p))

    def extra_wood(self, state: State, p: int, received: int) -> int:
        """Wood the Woodcutter adds when player ``p`` receives ``received`` wood at once."""
        if received <= 0 or not owns(state, p, "woodcutter"):
            return 0
        table = building(state, p)["extra_wood"]
        return table[min(received, len(table) - 1)]

    def pay_options(self, state: State, t: Task) -> list[int]:
        # Ruling: only where any resource may be given up (not scroll 33's water or dates for
        # a missing dinar).
        anything = set(t["among"]) == set(RESOURCES)
        return [WOOD_FOR_RESOURCE] if anything and wood_for_resource(state, t["p"]) else []

    def pay_resolve(self, state: State, t: Task, a: Action) -> bool:
        if a.id != WOOD_FOR_RESOURCE:
            return False
        use_marker(state, t["p"])
        state.players[t["p"]].wood -= 1
        return True

    def luxury_affordable(self, state: State, p: int, lux: int) -> bool:
        """Whether the Flying Merchant lets player ``p`` pay for luxury good ``lux``."""
        if not merchant_ready(state, p):
            return False
        cost = state.game.components.luxuries[lux]["cost"]
        return sum(state.players[p].keshis[c] for c in GOODS) >= merchant_price(state, p, cost)

    def luxury_buy(self, state: State, p: int, shop: int) -> bool:
        """Player ``p`` buys the top good of ``shop``: with the Flying Merchant's marker active
        they choose between the printed price (``choice:0``) and the merchant's
        (``choice:1``); True when this module took the purchase over."""
        from tower.marrakesh.sectors import printed_affordable

        lux = state.shops[shop][-1]
        if not self.luxury_affordable(state, p, lux):
            return False
        push(state, ask("sb_merchant", p, shop=shop, printed=printed_affordable(state, p, lux)))
        return True

    def luxury_gained(self, state: State, p: int, lux: int) -> None:
        """Every luxury good earns the Flying Merchant's owner 1 more point."""
        if owns(state, p, "flying_merchant"):
            score(
                state, p, building(state, p)["extra_points"], f"flying merchant: luxury good {lux}"
            )

    def invariants(self, state: State) -> None:
        """Each building belongs to one player at most and is usable in this game; a marker is
        active only on a building that has one; the Great Well's space holds at most what is
        printed; no scroll is in two places (stacks, boards, the setup bag and offers)."""
        data = load()
        owned = [mine(state, p)["building"] for p in range(state.num_players)]
        held = [b for b in owned if b]
        assert len(set(held)) == len(held), f"special buildings owned twice: {owned}"
        allowed = usable(state.game.config.modules)
        assert all(b in allowed for b in held), f"special buildings {held} not usable here"
        for p, b in enumerate(owned):
            me = mine(state, p)
            assert not me["marker"] or (b and data["building"][b]["marker"]), (
                f"player {p}: active marker without a building that has one"
            )
            well = data["building"][b].get("well", {}) if b else {}
            for r, n in me["well"].items():
                assert 0 <= n <= well.get(r, 0), f"player {p}: Great Well holds {n} {r}"
            if not _wood_in_play(state):
                assert not me["well"].get("wood"), f"player {p}: wood in the well without wood"
        g = ext(state)
        places = [s for st in state.stacks for s in st] + [
            s for pl in state.players for s in pl.scrolls
        ]
        places += g.get("bag", []) + [s for o in g["offers"].values() for s in o]
        assert len(set(places)) == len(places), "a scroll is in two places"

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        """Everyone's building, marker and Great Well space; the viewer's own offers (the
        buildings dealt to choose from, the 3 yellow scrolls drawn) while they choose."""
        top = state.stack[-1] if state.stack else {}
        offer = top.get("offer") if top.get("k") == "sb_building" and top["p"] == viewer else None
        v[NAME] = {
            "players": [
                {k: mine(state, p)[k] for k in ("building", "marker", "well")}
                for p in range(state.num_players)
            ],
            "building_offer": offer,
            "scroll_offer": ext(state)["offers"].get(str(viewer)),
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """The observation tensor's pieces: per seat the building (one-hot, 0 none), the
        marker and the Great Well's space; the viewer's offers while they choose."""
        seats, n = 4, len(load()["building"]) + 1
        return {
            f"{NAME}.building": (seats, n),
            f"{NAME}.marker": (seats,),
            f"{NAME}.well": (seats, len(WELL)),
            f"{NAME}.building_offer": (n,),
            f"{NAME}.scroll_offer": (max(comps.scrolls) + 1,),
        }

    def encode(self, state: State, viewer: int, d: dict[str, Any]) -> None:
        """Fill this module's tensor pieces from the viewer's view."""
        v: dict[str, Any] = {}
        self.view(state, viewer, v)
        mine_v = v[NAME]
        for p, pv in enumerate(mine_v["players"]):
            d[f"{NAME}.building"][p, pv["building"]] = 1
            d[f"{NAME}.marker"][p] = float(pv["marker"])
            for r, k in pv["well"].items():
                d[f"{NAME}.well"][p, WELL.index(r)] = k
        for b in mine_v["building_offer"] or []:
            d[f"{NAME}.building_offer"][b] = 1
        for sid in mine_v["scroll_offer"] or []:
            d[f"{NAME}.scroll_offer"][sid] = 1

    def render_player(self, state: State, i: int, pv: dict[str, Any]) -> list[str]:
        me = mine(state, i)
        if not me["building"]:
            return ["    special building: none"]
        b = building(state, i)
        marker = {"": "", "round": "once per round", "game": "once"}[b["marker"]]
        marker = f"; marker ({marker}) {'active' if me['marker'] else 'used'}" if marker else ""
        well = " ".join(f"{r} {n}" for r, n in me["well"].items() if n)
        well = f"; well: {well or 'empty'}" if "well" in b else ""
        return [f"    special building: {b['name'].replace('_', ' ')}{marker}{well}"]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        """What the ``choice:i`` actions of this module's decisions mean."""
        data = load()
        k = top["k"]
        if k == "sb_building":
            head = "  special building to keep (start: keshi, resources):"
            ways = []
            for b in top["offer"]:
                start = data["start"][b]
                res = " ".join(f"{n} {r}" for r, n in start["resources"].items())
                ways.append(f"{data['building'][b]['name']} ({start['keshi']}; {res})")
        elif k == "sb_scroll":
            head = "  yellow scroll to keep:"
            scrolls = state.game.components.scrolls
            offer = ext(state)["offers"].get(str(top["p"]), [])
            ways = [f"scroll {sid} ({scrolls[sid]['timing'].replace('_', ' ')})" for sid in offer]
        elif k == "sb_well":
            head = "  Great Well: take"
            ways = list(WELL)
        elif k == "sb_merchant":
            head = "  luxury good: pay"
            ways = ["the printed goods keshis", "any goods keshis, fewer (Flying Merchant)"]
        elif k == "sb_university":
            from tower.marrakesh.modules import experts

            tiles = experts.mine(state, top["p"])["tiles"]
            head = "  University (once per game): flip back to its front side"
            ways = [experts.tile_text(state, tiles[i][0]) for i in _used_tiles(state, top["p"])]
        elif k == "pay_resource" and self.pay_options(state, top):
            return ["  choice:0 = 1 wood instead (Woodcutter, once per round)"]
        else:
            return []
        return [head] + [f"    choice:{i} = {w}" for i, w in enumerate(ways)]
