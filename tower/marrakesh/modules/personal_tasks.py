"""Personal Tasks (Walls & Guards): secret order cards of 6 sub-goals each.

Switched on by ``"personal_tasks"`` in ``GameConfig.modules``; combines with every other
module (with or without ``"walls_guards"``: the rulebook's high-score variant). The cards
are data (``data/personal_tasks.toml``). What the module does:

- setup: the 16 order cards are shuffled; each player is dealt 2 secret cards. A card with a
  condition that needs a module not in play (Nomads and Camels are never in play: the
  toolkit does not have them; brick tiles and wood need Walls & Guards) is
  discarded and replaced by the next card of the deck;
- after season 2's scoring every player keeps one card (decision ``task_keep``:
  ``choice:0`` or ``choice:1``, the index in the hand); the other is laid open with the
  player's colour marker. The choices are revealed together once all have chosen;
- final scoring (its ``final_scoring`` hook, before every core step of the final scoring,
  after the edicts'): the kept card scores 1/3/7/13/21/32 points for 1-6 fulfilled
  conditions; every open card scores 1/3/7 points for 1/2/3+ fulfilled conditions to each
  player but the one who laid it open. The conditions are read at that moment: the
  resources a card shows are kept, not paid.

The module's state is one JSON-able dict (:func:`mine`): ``deck`` and ``discarded`` card
ids, ``hands`` (per player), ``open`` (``[card, owner]`` pairs) and ``chosen`` (per player,
the hand index chosen at the pending decision or -1).

Examples
--------
>>> cards = load()["cards"]
>>> len(cards), len(cards[1]), cards[1][4]
(16, 6, {'kind': 'stair', 'which': 'mosque', 'n': 15})
>>> possible(cards[2], frozenset()), possible(cards[2], frozenset({"walls_guards"}))
(False, True)
>>> points_for([1, 2, 3, 6])
(13, 7)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh import components, module_data
from tower.marrakesh.actions import Action, action_id
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.labels import a_an
from tower.marrakesh.rules import Label, T, Task, ask, order, score
from tower.marrakesh.worth import filled

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "personal_tasks"
Condition = dict[str, Any]

#: condition kind -> its parameters (besides ``kind``).
KINDS: dict[str, tuple[str, ...]] = {
    "sector_filled": ("sector",),
    "sector_at_least": ("sector", "n"),
    "sector_at_most": ("sector", "n"),
    "gates": ("colours",),
    "wall_bricks": ("n",),
    "nomads": ("n",),
    "jetty_season3": (),
    "stair": ("which", "n"),
    "stairs_total": ("n",),
    "camel": ("n",),
    "scrolls": ("n", "colours"),
    "luxuries": ("n", "types"),
    "scrolls_luxuries": ("scrolls", "luxuries"),
    "scroll_and_good": ("colour", "good"),
    "luxuries_same": ("n",),
    "luxury_types": ("n",),
    "scrolls_same": ("n",),
    "gems": ("n",),
    "experts": ("n",),
    "oases": ("n",),
    "any": ("of",),
    "resources": (),
}
RESOURCE_KEYS = ("water", "dates", "dinars", "wood")


# -- the data ---------------------------------------------------------------------------
@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked card file: ``rules``, ``needs``, ``excluded_by`` and ``cards`` (card id
    -> its 6 conditions). Raises :class:`InputFileError` naming the file and field."""
    return module_data.load("personal_tasks.toml", 1, _build, path)


def _build(where: str, data: dict[str, Any]) -> dict[str, Any]:
    rules = module_data.section(where, data, "rules")
    needs = module_data.section(where, data, "needs")
    excluded = module_data.section(where, data, "excluded_by")
    cards: dict[int, list[Condition]] = {}
    for cid, card in components.entries(where, data, "card", 16).items():
        conds = card.get("conditions")
        if not isinstance(conds, list) or len(conds) != 6:
            raise InputFileError(where, "a card has 6 conditions", field=f"card {cid}")
        for i, c in enumerate(conds):
            _check_condition(where, f"card {cid}.conditions[{i}]", c)
        cards[cid] = conds
    if len(rules["kept_points"]) != 7 or len(rules["open_points"]) != 4:
        raise InputFileError(where, "7 kept and 4 open point values", field="rules")
    for key in ("cards_per_player", "decision_season"):
        rules[key] = int(rules[key])
    return {
        "rules": rules,
        "needs": {k: v for k, v in needs.items() if k != "source"},
        "excluded_by": {k: v for k, v in excluded.items() if k != "source"},
        "cards": cards,
    }


def _check_condition(where: str, field: str, c: Any) -> None:
    if not isinstance(c, dict) or c.get("kind") not in KINDS:
        raise InputFileError(
            where, f"unknown condition {c!r}; kinds are {sorted(KINDS)}", field=field
        )
    missing = [k for k in KINDS[c["kind"]] if k not in c]
    if missing:
        raise InputFileError(where, f"condition {c['kind']} needs {missing}", field=field)
    if c["kind"] == "resources" and not set(c) - {"kind"} <= set(RESOURCE_KEYS):
        raise InputFileError(where, f"resources are {list(RESOURCE_KEYS)}", field=field)
    for j, alt in enumerate(c.get("of", [])):
        _check_condition(where, f"{field}.of[{j}]", alt)


def possible(card: list[Condition], modules: frozenset[str]) -> bool:
    """Whether every condition of ``card`` can be fulfilled with ``modules`` in play."""
    return all(_possible(c, modules) for c in card)


def _possible(c: Condition, modules: frozenset[str]) -> bool:
    data = load()
    kind = c["kind"]
    if kind == "any":
        return any(_possible(alt, modules) for alt in c["of"])
    need = data["needs"].get(kind)
    if kind == "resources" and c.get("wood", 0) > 0:
        need = data["needs"]["wood"]
    if need is not None and need not in modules:
        return False
    return not set(data["excluded_by"].get(kind, [])) & modules


def points_for(fulfilled: list[int]) -> tuple[int, int]:
    """Points for ``len(fulfilled)`` fulfilled conditions: (kept card, open card)."""
    rules = load()["rules"]
    n = len(fulfilled)
    return rules["kept_points"][n], rules["open_points"][min(n, 3)]


# -- the module's state -----------------------------------------------------------------
def mine(state: State) -> dict[str, Any]:
    return state.ext[NAME]


# -- the conditions ---------------------------------------------------------------------
def sector_count(state: State, p: int, sector: str) -> int:
    """Keshis in a sector, its water vendor included.

    Ruling (the rulebook's note on conditions 1-3): with Walls & Guards all green and brown
    keshis standing in the date orchard count for the date orchard (green) and all those in
    the sahara for the sahara (brown).
    """
    pl = state.players[p]
    vendor = 1 if sector in pl.vendors else 0
    if sector in ("green", "brown"):
        # A module that lets keshis of both colours stand in either sector counts them.
        what = "orchard_keshis" if sector == "green" else "sahara_keshis"
        standing = state.game.hooks.counted(state, p, what)
        if standing is not None:
            return standing + vendor
    return pl.keshis[sector] + vendor


def _scroll_colours(state: State, p: int) -> Counter[str]:
    scrolls = state.game.components.scrolls
    return Counter(scrolls[s]["colour"] for s in state.players[p].scrolls)


def _goods(state: State, p: int) -> Counter[str]:
    lux = state.game.components.luxuries
    return Counter(lux[x]["good"] for x in state.players[p].luxuries)


def _most(c: Counter[str]) -> int:
    return max(c.values(), default=0)


def fulfilled(state: State, p: int, c: Condition) -> bool:
    """Whether player ``p`` fulfils condition ``c`` now."""
    return CHECKS[c["kind"]](state, p, c)


def _filled(state: State, p: int, c: Condition) -> bool:
    return filled(state, p, c["sector"])


def _resources(state: State, p: int, c: Condition) -> bool:
    pl = state.players[p]
    return all(getattr(pl, r) >= c.get(r, 0) for r in RESOURCE_KEYS)


def _absent(state: State, p: int, c: Condition) -> bool:
    # Nomads, Camels: modules the toolkit does not have.
    return False


def _counted(what: str) -> Callable[[State, int, Condition], bool]:
    """A condition "at least n" of what a module counts (hook ``count``: Gems counts the
    ``necklace_gems``, the Experts the ``expert_tiles``; 0 without the module)."""
    return lambda s, p, c: (s.game.hooks.counted(s, p, what) or 0) >= c["n"]


CHECKS: dict[str, Callable[[State, int, Condition], bool]] = {
    "sector_filled": _filled,
    "sector_at_least": lambda s, p, c: sector_count(s, p, c["sector"]) >= c["n"],
    "sector_at_most": lambda s, p, c: sector_count(s, p, c["sector"]) <= c["n"],
    "gates": lambda s, p, c: set(c["colours"]) <= set(s.players[p].gates),
    "wall_bricks": lambda s, p, c: len(s.players[p].wall) >= c["n"],
    "nomads": _absent,
    # Ruling: "reached the landing space during season 3" reads the jetty in season 3: the
    # fishermen go back at the river evaluations of seasons 1 and 2, not of season 3 (the
    # core's ruling for oasis 30), so a fisherman at the jetty then reached it in season 3.
    "jetty_season3": lambda s, p, c: s.season == 3 and s.players[p].jetty >= 0,
    "stair": lambda s, p, c: getattr(s.players[p], c["which"]) >= c["n"],
    "stairs_total": lambda s, p, c: s.players[p].palace + s.players[p].mosque >= c["n"],
    "camel": _absent,
    "scrolls": lambda s, p, c: (
        len(s.players[p].scrolls) >= c["n"] and len(_scroll_colours(s, p)) >= c["colours"]
    ),
    "luxuries": lambda s, p, c: (
        len(s.players[p].luxuries) >= c["n"] and len(_goods(s, p)) >= c["types"]
    ),
    "scrolls_luxuries": lambda s, p, c: (
        len(s.players[p].scrolls) >= c["scrolls"] and len(s.players[p].luxuries) >= c["luxuries"]
    ),
    "scroll_and_good": lambda s, p, c: (
        _scroll_colours(s, p)[c["colour"]] >= 1 and _goods(s, p)[c["good"]] >= 1
    ),
    "luxuries_same": lambda s, p, c: _most(_goods(s, p)) >= c["n"],
    "luxury_types": lambda s, p, c: len(_goods(s, p)) >= c["n"],
    "scrolls_same": lambda s, p, c: _most(_scroll_colours(s, p)) >= c["n"],
    "gems": _counted("necklace_gems"),
    "experts": _counted("expert_tiles"),
    "oases": lambda s, p, c: len(s.players[p].claimed) >= c["n"],
    "any": lambda s, p, c: any(fulfilled(s, p, alt) for alt in c["of"]),
    "resources": _resources,
}


def card_fulfilled(state: State, p: int, card: int) -> list[int]:
    """Indices (0-5) of the conditions of ``card`` that player ``p`` fulfils now."""
    conds = load()["cards"][card]
    return [i for i, c in enumerate(conds) if fulfilled(state, p, c)]


# -- season scoring and the end --------------------------------------------------------
def season_tasks(state: State) -> list[Task]:
    """After season 2's providing for the citizens: each player keeps one card."""
    if state.season == load()["rules"]["decision_season"]:
        return [ask("task_keep", p) for p in order(state)] + [T("task_reveal")]
    return []


@ADDS.option("task_keep")
def _keep_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(len(mine(state)["hands"][t["p"]]))]


@ADDS.resolution("task_keep")
def _keep(state: State, t: Task, a: Action) -> None:
    # Ruling: the players choose in turn order, but a choice is only noted here (seen by
    # its player alone) and the cards are laid open together once all have chosen, as
    # at a table where everyone decides at the same time.
    mine(state)["chosen"][t["p"]] = a.arg


@ADDS.task("task_reveal")
def _task_reveal(state: State, t: Task) -> None:
    """All players have chosen: each lays the other card open with their marker."""
    m = mine(state)
    for p in order(state):
        hand, k = m["hands"][p], m["chosen"][p]
        m["open"].append([hand[1 - k], p])
        m["hands"][p] = [hand[k]]
    m["chosen"] = [-1] * state.num_players


# -- invariants and views ---------------------------------------------------------------
def check(state: State) -> None:
    """Every card is in exactly one place; hands hold 2 cards before the decision and 1
    after; each open card belongs to one player; every dealt card can be fulfilled."""
    m = mine(state)
    data = load()
    places = m["deck"] + m["discarded"] + [c for h in m["hands"] for c in h]
    places += [c for c, _ in m["open"]]
    assert sorted(places) == sorted(data["cards"]), f"personal task cards: {places}"
    owners = [o for _, o in m["open"]]
    assert len(set(owners)) == len(owners), f"open personal tasks: {m['open']}"
    for p, hand in enumerate(m["hands"]):
        assert len(hand) == (1 if p in owners else 2), f"player {p}: personal tasks {hand}"
        for card in hand:
            assert possible(data["cards"][card], state.game.config.modules), (
                f"player {p} holds personal task {card}, which cannot be fulfilled"
            )


def _public(state: State) -> dict[str, Any]:
    m = mine(state)
    return {
        "hand_sizes": [len(h) for h in m["hands"]],
        "open": [list(x) for x in m["open"]],
        "deck": len(m["deck"]),
        "discarded": len(m["discarded"]),
    }


def _private(state: State, p: int) -> dict[str, Any]:
    m = mine(state)
    return {"hand": list(m["hands"][p]), "chosen": m["chosen"][p]}


# -- the terminal board -----------------------------------------------------------------
#: What "at least n" counts, for the conditions that have only ``n``.
_NOUNS = {
    "wall_bricks": "fired bricks in the wall",
    "nomads": "nomads",
    "stairs_total": "staircase steps in all",
    "camel": "camels",
    "luxuries_same": "luxury goods of one kind",
    "luxury_types": "kinds of luxury goods",
    "scrolls_same": "scrolls of one colour",
    "gems": "gems on the necklace",
    "experts": "expert tiles",
    "oases": "activated oases",
}
#: The conditions said by filling in their fields (``str.format`` on the condition).
_TEMPLATES = {
    "sector_filled": "{sector} sector filled",
    "sector_at_least": "at least {n} keshis in the {sector} sector",
    "sector_at_most": "at most {n} keshis in the {sector} sector",
    "stair": "at least {n} steps on the {which} staircase",
    "scrolls": "at least {n} scrolls of {colours} colours",
    "luxuries": "at least {n} luxury goods of {types} kinds",
    "scrolls_luxuries": "at least {scrolls} scrolls and {luxuries} luxury goods",
    **{kind: f"at least {{n}} {noun}" for kind, noun in _NOUNS.items()},
}


def describe(c: Condition) -> str:
    """A condition in words, e.g. ``"gray sector filled"``."""
    kind = c["kind"]
    if kind in _TEMPLATES:
        return _TEMPLATES[kind].format(**c)
    if kind == "any":
        return " or ".join(describe(alt) for alt in c["of"])
    if kind == "resources":
        return "keep " + ", ".join(f"{c[r]} {r}" for r in RESOURCE_KEYS if c.get(r))
    if kind == "scroll_and_good":
        return f"{a_an(c['colour'])} scroll and {a_an(c['good'].replace('_', ' '))}"
    if kind == "gates":
        return "city gates of " + ", ".join(c["colours"])
    return "the fisherman at the jetty in the third season"


def card_text(state: State, p: int | None, card: int) -> str:
    """Card ``card``'s conditions; with a player ``p``, those they fulfil now are marked
    ``[x]``, the others ``[ ]``."""
    conds = load()["cards"][card]
    if p is None:
        return "; ".join(describe(c) for c in conds)
    done = set(card_fulfilled(state, p, card))
    return "; ".join(f"{'[x]' if i in done else '[ ]'} {describe(c)}" for i, c in enumerate(conds))


@ADDS.label("task_keep", private=True)
def _keep_label(state: State, t: Task, a: Action) -> Label:
    card = mine(state)["hands"][t["p"]][a.arg]
    return f"keep the task card: {card_text(state, None, card)}"


# -- the module -------------------------------------------------------------------------
#: Seats in the observation tensor (the rulebook's 2-4 players).
SEATS = 4


@register
class PersonalTasks(Module):
    """Personal Tasks on the hooks (see the module docstring)."""

    name = NAME
    adds = ADDS
    title = "Walls & Guards: Personal Tasks"
    rulebook = "Walls & Guards"
    season_steps = (SeasonStep("personal_tasks", after="provisions", tasks=season_tasks),)

    def check_config(self, players: int, modules: frozenset[str]) -> str | None:
        data = load()
        n = sum(possible(card, modules) for card in data["cards"].values())
        need = players * data["rules"]["cards_per_player"]
        if n < need:
            return f"only {n} order cards can be fulfilled with these modules, {need} needed"
        return None

    def setup(self, state: State) -> None:
        """Deal 2 secret cards to each player, replacing cards that cannot be fulfilled."""
        data = load()
        modules = state.game.config.modules
        deck = sorted(data["cards"])
        state.rng.shuffle(deck)
        discarded: list[int] = []
        hands: list[list[int]] = [[] for _ in state.players]
        for p in order(state):
            while len(hands[p]) < data["rules"]["cards_per_player"]:
                card = deck.pop()
                # Rulebook: a card whose conditions cannot all be fulfilled is discarded and a
                # new one drawn in its place.
                (hands[p] if possible(data["cards"][card], modules) else discarded).append(card)
        n = state.num_players
        state.ext[NAME] = {
            "deck": deck,
            "discarded": discarded,
            "hands": hands,
            "open": [],
            "chosen": [-1] * n,
        }

    def final_scoring(self, state: State, p: int) -> None:
        """Player ``p``'s kept card and the other players' open cards.

        Rulebook: "Order cards are scored at the end of the game BEFORE all other steps of the
        final scoring (but possibly after the Edicts scoring)": the modules' ``final_scoring``
        hooks come before the core's final steps, in name order (edicts first), so resources
        shown on a card still count for the oases and the remaining resources afterwards.
        """
        m = mine(state)
        for card in m["hands"][p]:
            kept, _ = points_for(card_fulfilled(state, p, card))
            score(state, p, kept, f"final: personal task {card}")
        for card, owner in m["open"]:
            if p != owner:
                _, got = points_for(card_fulfilled(state, p, card))
                score(state, p, got, f"final: open personal task {card}")

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        """Public: the open cards, how many cards each player holds, the deck. Private: the
        viewer's own cards and pending choice (the others' cards are secret)."""
        v[NAME] = _public(state)
        if 0 <= viewer < state.num_players:
            v["players"][viewer][NAME] = _private(state, viewer)

    def tensor_pieces(self, comps: Any) -> dict[str, tuple[int, ...]]:
        n = len(load()["cards"])
        return {
            "personal_tasks.own_hand": (n,),
            "personal_tasks.own_chosen": (2,),
            "personal_tasks.hand_sizes": (SEATS,),
            "personal_tasks.open": (n, SEATS),
            "personal_tasks.deck": (1,),
        }

    def encode(self, state: State, viewer: int, d: dict[str, Any]) -> None:
        pub = _public(state)
        own = _private(state, viewer)
        for card in own["hand"]:
            d["personal_tasks.own_hand"][card - 1] = 1
        if own["chosen"] >= 0:
            d["personal_tasks.own_chosen"][own["chosen"]] = 1
        d["personal_tasks.hand_sizes"][: state.num_players] = pub["hand_sizes"]
        for card, owner in pub["open"]:
            d["personal_tasks.open"][card - 1, owner] = 1
        d["personal_tasks.deck"][0] = pub["deck"]

    def render_board(self, state: State) -> list[str]:
        pub = _public(state)
        lines = [f"Personal tasks: cards held {pub['hand_sizes']}; deck {pub['deck']}"]
        return lines + [
            f"    open #{c} of P{o}: {card_text(state, None, c)}" for c, o in pub["open"]
        ]

    def render_player(self, state: State, i: int, pv: dict[str, Any]) -> list[str]:
        own = pv.get(NAME)
        if own is None:
            return [f"    personal tasks: {len(mine(state)['hands'][i])} secret"]
        return [f"    personal task #{c}: {card_text(state, i, c)}" for c in own["hand"]]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] != "task_keep":
            return []
        hand = mine(state)["hands"][top["p"]]
        return ["  keep which personal task (the other is laid open):"] + [
            f"    choice:{i} = #{card}" for i, card in enumerate(hand)
        ]
