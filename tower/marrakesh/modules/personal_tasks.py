"""Personal Tasks (Walls & Guards): secret order cards of 6 sub-goals each.

Switched on by ``"personal_tasks"`` in ``GameConfig.modules``; combines with every other
module (with or without ``"walls_guards"``: the rulebook's high-score variant). The cards
are data (``data/personal_tasks.toml``). What the module does:

- setup: the 16 order cards are shuffled; each player is dealt 2 secret cards. A card with a
  condition that needs a module not in play (Nomads, Camels, Gems, Experts are never in
  play: the toolkit does not have them; brick tiles and wood need Walls & Guards) is
  discarded and replaced by the next card of the deck;
- season scoring: at the start of season 3's scoring it is noted who reached the landing
  space (jetty) during season 3, before the fishermen go back;
- after season 2's scoring every player keeps one card (decision ``task_keep``:
  ``choice:0`` or ``choice:1``, the index in the hand); the other is laid open with the
  player's colour marker. The choices are revealed together once all have chosen;
- final scoring (before the other final scoring steps, after the edicts): the kept card
  scores 1/3/7/13/21/32 points for 1-6 fulfilled conditions; every open card scores 1/3/7
  points for 1/2/3+ fulfilled conditions to each player but the one who laid it open.

The module's state is one JSON-able dict (:func:`mine`): ``deck`` and ``discarded`` card
ids, ``hands`` (per player), ``open`` (``[card, owner]`` pairs), ``chosen`` (per player, the
hand index chosen at the pending decision or -1) and ``jetty3`` (per player).

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

import numpy as np

from tower.errors import InputFileError
from tower.marrakesh.actions import Action, action_id
from tower.marrakesh.modules import tables
from tower.marrakesh.rules import T, Task, ask, options, order, resolve, score, task

if TYPE_CHECKING:
    from tower.marrakesh.state import State

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
    data, where = tables.read("personal_tasks.toml", schema=1, path=path)
    rules = tables.section(where, data, "rules")
    needs = tables.section(where, data, "needs")
    excluded = tables.section(where, data, "excluded_by")
    cards: dict[int, list[Condition]] = {}
    for cid, card in tables.entries(where, data, "card", 16).items():
        conds = card.get("conditions")
        if not isinstance(conds, list) or len(conds) != 6:
            raise InputFileError(where, "a card has 6 conditions", field=f"card {cid}")
        for i, c in enumerate(conds):
            _check_condition(where, f"card {cid}.conditions[{i}]", c)
        cards[cid] = conds
    if len(rules["kept_points"]) != 7 or len(rules["open_points"]) != 4:
        raise InputFileError(where, "7 kept and 4 open point values", field="rules")
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


def setup(state: State) -> None:
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
        "jetty3": [False] * n,
    }


# -- the conditions ---------------------------------------------------------------------
def sector_count(state: State, p: int, sector: str) -> int:
    """Keshis in a sector, its water vendor included.

    Ruling (the rulebook's note on conditions 1-3): with Walls & Guards all green and brown
    keshis standing in the date orchard count for the date orchard (green) and all those in
    the sahara for the sahara (brown).
    """
    pl = state.players[p]
    vendor = 1 if sector in pl.vendors else 0
    if state.game.has("walls_guards") and sector in ("green", "brown"):
        from tower.marrakesh.modules import walls_guards

        if sector == "green":
            return sum(walls_guards.orchard(pl)) + vendor
        return walls_guards.sahara_keshis(pl) + vendor
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
    from tower.marrakesh.scoring import filled

    return filled(state, p, c["sector"])


def _resources(state: State, p: int, c: Condition) -> bool:
    pl = state.players[p]
    return all(getattr(pl, r) >= c.get(r, 0) for r in RESOURCE_KEYS)


def _absent(state: State, p: int, c: Condition) -> bool:
    # Nomads, Camels, Gems, Experts: modules the toolkit does not have.
    return False


CHECKS: dict[str, Callable[[State, int, Condition], bool]] = {
    "sector_filled": _filled,
    "sector_at_least": lambda s, p, c: sector_count(s, p, c["sector"]) >= c["n"],
    "sector_at_most": lambda s, p, c: sector_count(s, p, c["sector"]) <= c["n"],
    "gates": lambda s, p, c: set(c["colours"]) <= set(s.players[p].gates),
    "wall_bricks": lambda s, p, c: len(s.players[p].wall) >= c["n"],
    "nomads": _absent,
    "jetty_season3": lambda s, p, c: mine(s)["jetty3"][p],
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
    "gems": _absent,
    "experts": _absent,
    "oases": lambda s, p, c: len(s.players[p].claimed) >= c["n"],
    "any": lambda s, p, c: any(fulfilled(s, p, alt) for alt in c["of"]),
    "resources": _resources,
}


def card_fulfilled(state: State, p: int, card: int) -> list[int]:
    """Indices (0-5) of the conditions of ``card`` that player ``p`` fulfils now."""
    conds = load()["cards"][card]
    return [i for i, c in enumerate(conds) if fulfilled(state, p, c)]


# -- season scoring ---------------------------------------------------------------------
def season_start(state: State) -> list[Task]:
    """Before season 3's river evaluation: who reached the jetty in season 3."""
    return [T("task_jetty")] if state.season == 3 else []


def season_end(state: State) -> list[Task]:
    """After season 2's providing for the citizens: each player keeps one card."""
    if state.season != load()["rules"]["decision_season"]:
        return []
    return [ask("task_keep", p) for p in order(state)] + [T("task_reveal")]


@task("task_jetty")
def _task_jetty(state: State, t: Task) -> None:
    # The fisherman still stands at the jetty until this season's river evaluation.
    mine(state)["jetty3"] = [pl.jetty >= 0 for pl in state.players]


@options("task_keep")
def _keep_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", i) for i in range(len(mine(state)["hands"][t["p"]]))]


@resolve("task_keep")
def _keep(state: State, t: Task, a: Action) -> None:
    mine(state)["chosen"][t["p"]] = a.arg


@task("task_reveal")
def _task_reveal(state: State, t: Task) -> None:
    """All players have chosen: each lays the other card open with their marker."""
    m = mine(state)
    for p in order(state):
        hand, k = m["hands"][p], m["chosen"][p]
        m["open"].append([hand[1 - k], p])
        m["hands"][p] = [hand[k]]
    m["chosen"] = [-1] * state.num_players


# -- final scoring ----------------------------------------------------------------------
def final_first(state: State) -> None:
    """Score every kept card and every open card (rulebook: before the other steps of the
    final scoring, possibly after the edicts)."""
    m = mine(state)
    for p in range(state.num_players):
        for card in m["hands"][p]:
            kept, _ = points_for(card_fulfilled(state, p, card))
            score(state, p, kept, f"final: personal task {card}")
    for card, owner in m["open"]:
        for p in range(state.num_players):
            if p != owner:
                _, got = points_for(card_fulfilled(state, p, card))
                score(state, p, got, f"final: open personal task {card}")


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


def view(state: State, viewer: int) -> dict[str, Any]:
    """What ``viewer`` sees: their own cards and pending choice, the open cards, and only
    the number of the other players' cards (they are secret) and of the deck."""
    m = mine(state)
    return {
        "hand": list(m["hands"][viewer]) if 0 <= viewer < state.num_players else [],
        "chosen": m["chosen"][viewer] if 0 <= viewer < state.num_players else -1,
        "hand_sizes": [len(h) for h in m["hands"]],
        "open": [list(x) for x in m["open"]],
        "deck": len(m["deck"]),
        "discarded": len(m["discarded"]),
        "jetty3": list(m["jetty3"]),
    }


def tensor_pieces(game: Any, players: int) -> dict[str, tuple[int, ...]]:
    """Shapes of this module's part of the observation tensor (``players`` seats)."""
    n = len(load()["cards"])
    return {
        "hand": (n,),
        "chosen": (2,),
        "hand_sizes": (players,),
        "open": (n, players),
        "deck": (1,),
        "jetty3": (players,),
    }


def encode(v: dict[str, Any], d: dict[str, np.ndarray]) -> None:
    """Write :func:`view`'s dict ``v`` into the zeroed arrays ``d`` of :func:`tensor_pieces`."""
    for card in v["hand"]:
        d["hand"][card - 1] = 1
    if v["chosen"] >= 0:
        d["chosen"][v["chosen"]] = 1
    d["hand_sizes"][: len(v["hand_sizes"])] = v["hand_sizes"]
    for card, owner in v["open"]:
        d["open"][card - 1, owner] = 1
    d["deck"][0] = v["deck"]
    d["jetty3"][: len(v["jetty3"])] = v["jetty3"]


# -- the terminal board -----------------------------------------------------------------
def describe(c: Condition) -> str:
    """A condition in words, e.g. ``"gray sector filled"``."""
    kind = c["kind"]
    if kind == "any":
        return " OR ".join(describe(alt) for alt in c["of"])
    if kind == "sector_filled":
        return f"{c['sector']} sector filled"
    if kind == "sector_at_least":
        return f"{c['sector']} sector >= {c['n']} keshis"
    if kind == "sector_at_most":
        return f"{c['sector']} sector <= {c['n']} keshis"
    if kind == "resources":
        return "keep " + " ".join(f"{c[r]} {r}" for r in RESOURCE_KEYS if c.get(r))
    params = ", ".join(f"{k} {c[k]}" for k in KINDS[kind])
    return f"{kind} ({params})" if params else kind


def board_lines(state: State, viewer: int) -> list[str]:
    """The viewer's cards with their fulfilled conditions marked, and the open cards."""
    v = view(state, viewer)
    cards = load()["cards"]
    lines = [f"Personal tasks: cards in hand {v['hand_sizes']}; deck {v['deck']}"]
    shown = [(c, "your card") for c in v["hand"]]
    shown += [(c, f"open card of P{o}") for c, o in v["open"]]
    for card, what in shown:
        done = (
            set(card_fulfilled(state, viewer, card)) if 0 <= viewer < state.num_players else set()
        )
        conds = "; ".join(
            f"{'[x]' if i in done else '[ ]'} {describe(c)}" for i, c in enumerate(cards[card])
        )
        lines.append(f"    #{card} ({what}): {conds}")
    return lines


def choice_lines(state: State, top: Task) -> list[str]:
    """What ``choice:i`` means at the decision ``top``."""
    if top["k"] != "task_keep":
        return []
    hand = mine(state)["hands"][top["p"]]
    return ["  keep which personal task (the other is laid open):"] + [
        f"    choice:{i} = #{card}" for i, card in enumerate(hand)
    ]
