"""Gems & Experts, Alms: 12 alms tiles lie on the exchange office; one is face up each
round and offers two options, "cost -> gain", one of which a souk action may use in place
of the exchange office.

Rulebook: *Gems & Experts* ("Alms"). What the module changes:

- components: the tiles are the ``[[alms]]`` table of ``data/components.toml`` (with
  Walls & Guards on, its 2 ``[[wg_alms]]`` tiles join them as tiles 13 and 14);
- setup: tiles 7-12 shuffled face down, tiles 1-6 shuffled on top, the top one face up
  (``state.ext["alms"]``: ``deck``, top last, and ``up``, the face-up tile or ``None``);
- each round's end (``round_tasks``): the face-up tile goes back to the box and the next
  is turned over, so the 12 tiles serve the 12 rounds;
- the souk action (the core decision ``souk`` is redirected to ``alms_souk``): the
  exchange of a goods keshi at the exchange office is gone; instead ``choice:0`` (the
  upper option) or ``choice:1`` (the lower one) pays the option's cost and takes its gain,
  once per action; ``shop:i`` buys a luxury good as before, ``pass`` ends the action.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2, modules=frozenset({"alms"}))).new_initial_state(1)
>>> alms = s.ext["alms"]
>>> alms["up"] in range(1, 7), len(alms["deck"]), sorted(alms["deck"])[-6:]
(True, 11, [7, 8, 9, 10, 11, 12])
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.actions import ACTIONS, COLOUR_INDEX, GOODS, RESOURCES, Action, action_id
from tower.marrakesh.components import Components, check_effects, entries
from tower.marrakesh.effects import Effect, run_effects
from tower.marrakesh.hooks import Module, RuleSet, register
from tower.marrakesh.labels import a_an, amounts, describe_effects
from tower.marrakesh.rules import (
    LABELS,
    OPTIONS,
    RESOLVE,
    Label,
    T,
    Task,
    ask,
    can_pay,
    mod_values,
    pay,
    pay_any,
    push,
    score,
    total_resources,
)
from tower.marrakesh.sectors import returnable
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "alms"
#: The Walls & Guards tiles' ids among the alms: 12 + their own id.
WG_OFFSET = 12
COSTS = frozenset({"points", "water", "dates", "dinars", "wood", "goods", "resources", "workers"})
#: Keshis that are no goods ("worker keshis") and can be given up from the board.
WORKERS = ("green", "gray", "white", "black", "pink", "turquoise")


def _wg_rows(data: dict[str, Any]) -> dict[int, Any]:
    return {row["id"]: row for row in data.get("wg_alms", [])}


def tiles(state: State) -> dict[int, dict[str, Any]]:
    """Every alms tile of this game, by id (13 and 14: Walls & Guards')."""
    return state.game.components.tables["alms"]


def face_up(state: State) -> dict[str, Any] | None:
    up = state.ext[NAME]["up"]
    return None if up is None else tiles(state)[up]


# -- setup and the rounds ---------------------------------------------------------------
@ADDS.task("alms_next")
def _alms_next(state: State, t: Task) -> None:
    """The round's tile goes back to the box; the next one is turned face up."""
    alms = state.ext[NAME]
    alms["up"] = alms["deck"].pop() if alms["deck"] else None


# -- the souk action --------------------------------------------------------------------
def affordable(state: State, p: int, option: dict[str, Any]) -> bool:
    """Whether player ``p`` can use ``option`` (an upper or lower half) now.

    Ruling: points can be given up only as far as the player has them (the scoring track
    has no space below 0).
    """
    pl = state.players[p]
    cost = option["cost"]
    needs = option.get("needs")
    if needs == "guard" and pl.watchtower <= 0:
        return False
    if needs not in (None, "guard") and needs not in state.game.config.modules:
        return False
    return (
        pl.score >= cost.get("points", 0)
        and can_pay(state, p, {r: cost.get(r, 0) for r in RESOURCES})
        and pl.wood >= cost.get("wood", 0)
        and sum(pl.keshis[c] for c in GOODS) >= cost.get("goods", 0)
        and total_resources(pl) >= cost.get("resources", 0)
        and worker_keshis(state, p) >= cost.get("workers", 0)
    )


@ADDS.option("alms_souk")
def _alms_souk_options(state: State, t: Task) -> list[int]:
    # The core's souk options without the exchange office (goods keshis exchanged there).
    out = [i for i in OPTIONS["souk"](state, t) if ACTIONS[i].kind != "colour"]
    tile = face_up(state)
    if tile is not None and t["ex"] == 0 and t["lux"] == 0:
        for k, half in enumerate(("upper", "lower")):
            if affordable(state, t["p"], tile[half]):
                out.append(action_id("choice", k))
    return sorted(out)


@ADDS.resolution("alms_souk")
def _alms_souk(state: State, t: Task, a: Action) -> None:
    if a.kind != "choice":
        RESOLVE["souk"](state, t, a)
        return
    p = t["p"]
    up = state.ext[NAME]["up"]
    option = tiles(state)[up]["upper" if a.arg == 0 else "lower"]
    # Ruling: one option once per souk action, also with scroll 46 (repeated exchanges):
    # the alms text says "only ... once per action". Scroll 18's extra bonus for using the
    # exchange office comes with the alms, which now lie in its place.
    for value in mod_values(state, p, "exchange_extra"):
        run_effects(state, p, value, "souk: scroll 18")
    run_effects(state, p, option["gain"], f"alms tile {up}")
    pay_cost(state, p, option["cost"], f"alms tile {up}")  # the payment's choices first


def pay_cost(state: State, p: int, cost: dict[str, int], why: str) -> None:
    pl = state.players[p]
    score(state, p, -cost.get("points", 0), why)
    pl.wood -= cost.get("wood", 0)
    push(state, *[ask("alms_keshi", p, among="goods") for _ in range(cost.get("goods", 0))])
    push(state, *[ask("alms_keshi", p, among="workers") for _ in range(cost.get("workers", 0))])
    pay_any(state, p, cost.get("resources", 0))
    pay(state, p, {r: cost.get(r, 0) for r in RESOURCES})


def worker_keshis(state: State, p: int) -> int:
    """The worker keshis player ``p`` can give up: date pickers only from the date
    orchard (with Walls & Guards not those in the sahara: hook ``count``)."""
    pl = state.players[p]
    pickers = state.game.hooks.counted(state, p, "date_pickers")
    green = pl.keshis["green"] if pickers is None else pickers
    return green + sum(pl.keshis[c] for c in WORKERS if c != "green")


@ADDS.option("alms_keshi")
def _alms_keshi_options(state: State, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    if t["among"] == "goods":
        return [action_id("colour", COLOUR_INDEX[c]) for c in GOODS if pl.keshis[c] > 0]
    # The keshis the core lets a player give back (the exchange icon), as modules see it.
    among = [c for c in returnable(state, t["p"]) if c in WORKERS]
    return [action_id("colour", COLOUR_INDEX[c]) for c in among]


@ADDS.resolution("alms_keshi")
def _alms_keshi(state: State, t: Task, a: Action) -> None:
    # Ruling: a pink worker keshi given up leaves its main-square space (the rightmost
    # one taken), so the square and its keshis agree.
    c = KESHI_COLOURS[a.arg]
    pl = state.players[t["p"]]
    if any(hook(state, t["p"], c) for hook in state.game.hooks.return_keshi):
        return  # a module placed it (Walls & Guards: a date picker of the orchard)
    if c == "pink":
        pl.square[max(i for i, taken in enumerate(pl.square) if taken)] = False
    pl.keshis[c] -= 1
    state.issued[c] -= 1


# -- named decisions --------------------------------------------------------------------
@ADDS.label("alms_souk")
def _alms_souk_label(state: State, t: Task, a: Action) -> Label:
    if a.kind != "choice":
        return LABELS["souk"](state, t, a)
    option = tiles(state)[state.ext[NAME]["up"]]["upper" if a.arg == 0 else "lower"]
    half = ("upper", "lower")[a.arg]
    gain = describe_effects(option["gain"])
    return (
        f"give the {half} alms: pay {amounts(option['cost'])}, receive {gain}",
        {},
        dict(option["cost"]),
    )


@ADDS.label("alms_keshi")
def _alms_keshi_label(state: State, t: Task, a: Action) -> Label:
    c = KESHI_COLOURS[a.arg]
    return f"give up {a_an(c)} keshi", {}, {f"{c} keshis": 1}


ADDS.phrase("alms_gate", "take {} as a city gate (no points)")


# -- the free city gate -----------------------------------------------------------------
def _alms_gate(state: State, p: int, e: Effect) -> None:
    if state.players[p].watchtower > 0:
        push(state, ask("alms_gate", p))


@ADDS.option("alms_gate")
def _alms_gate_options(state: State, t: Task) -> list[int]:
    w = state.game.components["alms_setup"]["gate_workshop"]
    return [action_id("gate", 12 * w + COLOUR_INDEX[c]) for c in sorted(set(state.workshops[w]))]


@ADDS.resolution("alms_gate")
def _alms_gate_resolve(state: State, t: Task, a: Action) -> None:
    # "This city gate brings 0 points (instead of negative points) and only the keshi
    # itself." Ruling: the colour-matching bonus of the gate space is the space's, not
    # the gate's, and is paid as for every gate.
    p = t["p"]
    w, colour = divmod(a.arg, 12)
    state.workshops[w].remove(KESHI_COLOURS[colour])
    already = len(state.players[p].held)
    push(state, ask("gate_space", p, c=KESHI_COLOURS[colour]), T("deploy_held", p=p, skip=already))


ADDS.specials["alms_gate"] = _alms_gate


# -- invariants and views ---------------------------------------------------------------
def check(state: State) -> None:
    alms = state.ext[NAME]
    known = set(tiles(state))
    seen = alms["deck"] + ([alms["up"]] if alms["up"] is not None else [])
    assert len(set(seen)) == len(seen) and set(seen) <= known, f"alms: {alms}"
    used = 4 * (state.season - 1) + state.round - 1  # rounds finished before this one
    assert len(seen) <= len(known) - used, f"alms: {len(seen)} tiles left after {used} rounds"


def _text(option: dict[str, Any]) -> str:
    return str(option["text"])


@register
class Alms(Module):
    """Alms on the hooks (see the module docstring)."""

    name = NAME
    adds = ADDS
    title = "Gems & Experts: Alms"
    rulebook = "Gems & Experts"
    redirects = (("souk", "alms_souk"),)

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        tiles = entries(path, data, "alms", 12)
        for tid, tile in {**tiles, **{WG_OFFSET + k: t for k, t in _wg_rows(data).items()}}.items():
            for half in ("upper", "lower"):
                where = f"alms {tid}.{half}"
                option = tile.get(half)
                if not isinstance(option, dict) or not set(option.get("cost", {})) <= COSTS:
                    raise InputFileError(path, f"needs a cost of {sorted(COSTS)}", field=where)
                check_effects(path, f"{where}.gain", option.get("gain"))
        return {"alms": tiles}

    def components(self, comps: Components) -> Components:
        wg = {WG_OFFSET + k: t for k, t in _wg_rows(comps.raw).items()}
        return dataclasses.replace(
            comps, tables={**comps.tables, "alms": {**comps.tables["alms"], **wg}}
        )

    def setup(self, state: State) -> None:
        cfg = state.game.components["alms_setup"]
        bottom, top = list(cfg["bottom"]), list(cfg["top"])
        if "walls_guards" in state.game.config.modules:
            # Ruling: "the new ... alms tiles are shuffled into their corresponding stacks"
            # (Walls & Guards): each joins the pile whose tiles give up as many points as it
            # does (13: 3 points, the top pile; 14: 6 points, the bottom pile), so 14 tiles
            # serve the 12 rounds and the last 2 of the bottom pile stay unused.
            top.append(WG_OFFSET + 1)
            bottom.append(WG_OFFSET + 2)
        state.rng.shuffle(bottom)
        state.rng.shuffle(top)
        deck = bottom + top  # the top of the deck is the end of the list
        state.ext[NAME] = {"up": deck.pop(), "deck": deck}

    def round_tasks(self, state: State, when: str) -> list[Task]:
        return [{"t": "alms_next"}] if when == "end" else []

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        alms = state.ext[NAME]
        v["alms"] = {"up": alms["up"], "left": len(alms["deck"])}

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        return {"alms.up": (WG_OFFSET + 2,), "alms.left": (1,)}

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        alms = state.ext[NAME]
        if alms["up"] is not None:
            views["alms.up"][alms["up"] - 1] = 1
        views["alms.left"][0] = len(alms["deck"])

    def render_board(self, state: State) -> list[str]:
        tile = face_up(state)
        if tile is None:
            return ["Alms: none face up"]
        left = len(state.ext[NAME]["deck"])
        return [
            f"Alms tile {state.ext[NAME]['up']} ({left} face down): upper "
            f"{_text(tile['upper'])}; lower {_text(tile['lower'])}"
        ]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        tile = face_up(state)
        if top["k"] != "alms_souk" or tile is None:
            return []
        return [
            f"  alms tile {state.ext[NAME]['up']}:",
            f"    choice:0 = {_text(tile['upper'])}",
            f"    choice:1 = {_text(tile['lower'])}",
        ]
