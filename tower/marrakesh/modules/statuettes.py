"""Luxury Goods: Statuettes (Gems & Experts): an extra luxury-good stack of 6 statuettes
that form 3 pairs; the second tile of a pair brings its pair bonus.

Switched on by ``"statuettes"`` in ``GameConfig.modules``; combinable with every other
module. Rulebook: *Gems & Experts*, section "Luxury Goods:
Statuettes". The tiles are data (``data/statuettes.toml``, each entry ``rulebook`` or
``assumed``; the ruling on the multipliers is written there). What the module changes:

- components (:func:`extend`): the statuettes join the luxury goods (ids 51-56, type
  ``"statuette"``, not dealt into the 5 stacks);
- setup: they are shuffled into a sixth stack (``state.ext["statuettes"]``, top = end of
  the list) whose top is turned over;
- the souk (hook ``sector_action``): while a statuette lies face up, a souk assistant's
  decision ``statuettes_souk`` offers the core's souk options plus ``choice:0``, buying
  the face-up statuette at its printed goods keshis; the next one is turned over at the end
  of the turn (hook ``turn_tasks``), like the 5 stacks;
- the pair bonus (hook ``luxury_gained``): a player who gains the second tile of a pair
  takes, ``times`` times, 1 date, 1 dinar, 1 water or 1 point (``choose``: ``choice:0-3``).

Rulings (besides the data file's):

- A souk assistant buys a statuette *or* exchanges *or* buys from the 5 stacks (the core's
  ruling that one assistant does one of them). With scroll "souk_many_luxuries" a further
  good after a statuette comes from the 5 stacks.
- The statuettes are "purchased normally": the Imam waives 1 goods keshi of a statuette too
  (decision ``statuettes_waive``, ``colour:*``, as the core's ``imam_waive``). The Flying
  Merchant's price (``special_buildings``), the free luxury goods of scrolls and tiles,
  and the gifts' conditions concern the 5 stacks only.
- A luxury-goods expert takes the face-up statuette for free like a good of the 5 stacks
  (The Experts: "You can also acquire a 'Luxury Good: Statuette' with such an expert";
  :data:`tower.marrakesh.modules.experts.STATUETTE`), when its goods keshis predominantly
  show the expert's colour.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> state = Game(GameConfig(players=2, modules=frozenset({"statuettes"}))).new_initial_state(1)
>>> sorted(state.ext["statuettes"]["stack"]), state.ext["statuettes"]["open"]
([51, 52, 53, 54, 55, 56], True)
>>> [x for s in state.shops for x in s if x > 50]
[]
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.actions import Action, action_id
from tower.marrakesh.components import check_effects
from tower.marrakesh.effects import run_effects
from tower.marrakesh.hooks import Module, RuleSet, register
from tower.marrakesh.module_data import DATA, read
from tower.marrakesh.rules import (
    LABELS,
    OPTIONS,
    RESOLVE,
    Label,
    Task,
    ask,
    push,
)
from tower.marrakesh.sectors import discount, printed_affordable
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.components import Components
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "statuettes"
PATH = DATA / "statuettes.toml"
BUY = action_id("choice", 0)


@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked statuette data (``data/statuettes.toml`` by default); raises
    :class:`tower.errors.InputFileError` naming the file and the field."""
    where = Path(path) if path is not None else PATH
    data = read(where, entries={"pair": (3, 1), "statuette": (6, 51)})
    for j, option in enumerate(data["statuettes"]["bonus_options"]):
        check_effects(str(where), f"statuettes.bonus_options[{j}]", option)
    for pid, pair in data["pair"].items():
        tiles = [i for i, e in data["statuette"].items() if e.get("pair_id") == pid]
        if len(tiles) != 2:
            raise InputFileError(
                str(where), f"a pair needs 2 tiles, has {tiles}", field=f"pair {pid}"
            )
        if not isinstance(pair.get("times"), int) or pair["times"] < 1:
            raise InputFileError(
                str(where),
                f"times must be a positive integer, not {pair.get('times')!r}",
                field=f"pair {pid}",
            )
    return data


def partner(lux: int) -> int:
    """The other tile of statuette ``lux``'s pair.

    >>> partner(51), partner(56)
    (52, 55)
    """
    tiles = load()["statuette"]
    return next(i for i, e in tiles.items() if e["pair_id"] == tiles[lux]["pair_id"] and i != lux)


def extend(comps: Components) -> Components:
    """The components with the statuettes among the luxury goods (not dealt)."""
    data = load()
    good = data["statuettes"]["good"]
    tiles = {i: {**e, "good": good, "dealt": False} for i, e in data["statuette"].items()}
    return dataclasses.replace(comps, luxuries={**comps.luxuries, **tiles})


def _s(state: State) -> dict[str, Any]:
    return state.ext[NAME]


def top(state: State) -> int | None:
    """The face-up statuette, if any."""
    s = _s(state)
    return s["stack"][-1] if s["open"] and s["stack"] else None


def affordable(state: State, p: int) -> bool:
    """Whether player ``p`` can pay the face-up statuette's goods keshis (less a
    ``luxury_keshis`` discount: the imam waives 1 goods keshi): the statuettes are
    luxury goods of the game's components (:func:`extend`)."""
    lux = top(state)
    return lux is not None and printed_affordable(state, p, lux)


def _cost(state: State) -> dict[str, int]:
    return dict(load()["statuette"][top(state)]["cost"])


def _souk_task(p: int) -> Task:
    # ask("souk", p, ex=0, lux=0), spelt out: every souk visit with a statuette makes one.
    return {"t": "ask", "k": "souk", "p": p, "ex": 0, "lux": 0}


@ADDS.option("statuettes_souk")
def _souk_options(state: State, t: Task) -> list[int]:
    core = OPTIONS["souk"](state, _souk_task(t["p"]))
    return [*core, BUY] if affordable(state, t["p"]) else core


@ADDS.resolution("statuettes_souk")
def _souk(state: State, t: Task, a: Action) -> None:
    p = t["p"]
    if a.kind != "choice":
        RESOLVE["souk"](state, _souk_task(p), a)
        return
    push(state, ask("souk", p, ex=0, lux=1))
    if discount(state, p, "luxury_keshis"):
        push(state, ask("statuettes_waive", p))
    else:
        buy(state, p, _cost(state))


@ADDS.option("statuettes_waive")
def _waive_options(state: State, t: Task) -> list[int]:
    keshis = state.players[t["p"]].keshis
    cost = _cost(state)
    return [
        action_id("colour", KESHI_COLOURS.index(c))
        for c, n in cost.items()
        if n > 0 and all(keshis[k] >= m - (k == c) for k, m in cost.items())
    ]


@ADDS.resolution("statuettes_waive")
def _waive(state: State, t: Task, a: Action) -> None:
    # Imam (base game expansion 2): the luxury good costs any 1 goods keshi fewer.
    cost = _cost(state)
    cost[KESHI_COLOURS[a.arg]] -= 1
    buy(state, t["p"], cost)


@ADDS.label("statuettes_souk")
def _souk_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import luxury_text

    if a.kind != "choice":
        return LABELS["souk"](state, _souk_task(t["p"]), a)
    cost = _cost(state)
    text = f"buy {luxury_text(state.game.components, top(state) or 0, cost)}, the face-up statuette"
    return text, {}, {f"{c} keshis": n for c, n in cost.items() if n}


ADDS.phrase("statuettes_waive", "the Imam waives {} of the statuette's price")


def buy(state: State, p: int, cost: dict[str, int]) -> None:
    """Player ``p`` buys the face-up statuette for the goods keshis ``cost``."""
    s = _s(state)
    pl = state.players[p]
    lux = s["stack"].pop()
    s["open"] = False  # the next one is turned over at the end of the turn
    entry = state.game.components.luxuries[lux]
    for c, n in cost.items():
        pl.keshis[c] -= n
        state.issued[c] -= n
    pl.luxuries.append(lux)
    for luxury_gained in state.game.hooks.luxury_gained:
        luxury_gained(state, p, lux)
    run_effects(state, p, entry["reward"], f"souk: statuette {lux}")


@ADDS.task("statuettes_turn_over")
def _turn_over(state: State, t: Task) -> None:
    s = _s(state)
    s["open"] = bool(s["stack"])


def check(state: State) -> None:
    """Every statuette is in exactly one place: the stack, a player's goods, or the box (a
    statuette given up in a Walls & Guards battle, logged as "battle: luxury good N
    returned"); a face-up statuette lies on a stack that is not empty."""
    tiles = load()["statuette"]
    s = _s(state)
    owned = [x for pl in state.players for x in pl.luxuries if x in tiles]
    boxed = [
        int(e[2].split()[3])
        for e in state.score_events
        if e[2].startswith("battle: luxury good ") and int(e[2].split()[3]) in tiles
    ]
    places = sorted(s["stack"] + owned + boxed)
    assert places == sorted(tiles), f"statuettes lost or doubled: {places}"
    assert not s["open"] or s["stack"], "a statuette face up on an empty stack"


@register
class Statuettes(Module):
    """Statuettes on the hooks (see the module docstring)."""

    name = NAME
    turn_times = frozenset({"end"})
    action_sectors = frozenset({"souk"})
    adds = ADDS
    title = "Gems & Experts: Luxury Goods: Statuettes (6 statuettes in 3 pairs)"
    rulebook = "Gems & Experts"

    def components(self, comps: Components) -> Components:
        return extend(comps)

    def setup(self, state: State) -> None:
        """Shuffle the statuettes into their stack and turn over the top one."""
        stack = sorted(load()["statuette"])
        state.rng.shuffle(stack)
        state.ext[NAME] = {"stack": stack, "open": True}

    def sector_action(self, state: State, p: int, sector: str) -> bool:
        """A souk action while a statuette lies face up: decision ``statuettes_souk``."""
        if sector != "souk" or top(state) is None:
            return False
        state.stack.append({"t": "ask", "k": "statuettes_souk", "p": p})
        return True

    def luxury_gained(self, state: State, p: int, lux: int) -> None:
        """The pair bonus when ``lux`` completes a pair of statuettes."""
        data = load()
        if lux not in data["statuette"] or partner(lux) not in state.players[p].luxuries:
            return
        pair = data["pair"][data["statuette"][lux]["pair_id"]]
        choice = {"op": "choose", "options": data["statuettes"]["bonus_options"]}
        run_effects(state, p, [choice] * pair["times"], f"statuettes: pair bonus {pair['name']}")

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        # A literal task rather than T(): asked at the end of every turn.
        return [{"t": "statuettes_turn_over"}] if when == "end" else []

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        v[NAME] = {"face_up": top(state), "stack": len(_s(state)["stack"])}

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """The face-up statuette (one-hot, ids 51-56) and the stack's height (owned
        statuettes are in the core's ``luxuries``)."""
        return {"statuettes.face_up": (6,), "statuettes.stack": (1,)}

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        lux = top(state)
        if lux is not None:
            views["statuettes.face_up"][lux - min(load()["statuette"])] = 1
        views["statuettes.stack"][0] = len(_s(state)["stack"])

    def render_board(self, state: State) -> list[str]:
        return [f"statuettes: face up {top(state)}, {len(_s(state)['stack'])} in the stack"]

    def describe_choices(self, state: State, top_task: Task) -> list[str]:
        if top_task.get("k") == "statuettes_souk" and affordable(state, top_task["p"]):
            return [f"choice:0 buys statuette {top(state)}"]
        return []
