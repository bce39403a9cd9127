"""Luxury Goods: Gifts (Gems & Experts): a stack of 10 gifts, one face up, won with a
luxury-good purchase that meets its condition.

Switched on by ``"gifts"`` in ``GameConfig.modules``; combinable with every other module.
Rulebook: *Gems & Experts*, section "Luxury Goods: Gifts". The
tiles are data (``data/gifts.toml``, each entry ``rulebook`` or ``assumed``). What the
module changes:

- setup: the gifts are shuffled into a stack (``state.ext["gifts"]["stack"]``, top = end of
  the list) and the top one is turned over;
- buying a luxury good from one of the 5 stacks (hooks ``luxury_buy``, then
  ``luxury_gained``): the buyer takes the face-up gift, at no cost, when the purchase meets
  its condition (:data:`CONDITIONS`), and receives its bonus (1 point and 1 date, water,
  dinar, mosque step or river step);
- the next gift is turned over only at the end of that player's turn (hook ``turn_tasks``);
- season scoring (step ``gifts`` after ``prepare``): the face-up gift goes back into the
  box and the next one is turned over. An empty stack gives no more gifts.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> state = Game(GameConfig(players=2, modules=frozenset({"gifts"}))).new_initial_state(1)
>>> g = state.ext["gifts"]
>>> len(g["stack"]), g["face_up"] is not None, g["box"]
(9, True, [])
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.effects import run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.module_data import DATA, read
from tower.marrakesh.rules import T, Task

if TYPE_CHECKING:
    from tower.marrakesh.components import Components
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "gifts"
PATH = DATA / "gifts.toml"


def _price(state: State, lux: int) -> int:
    """A good's price for the gift conditions: the goods keshis it shows."""
    return sum(state.game.components.luxuries[lux]["cost"].values())


def _tops(state: State) -> dict[int, int]:
    """The openly displayed goods of the 5 stacks: shop -> good."""
    return {i: s[-1] for i, s in enumerate(state.shops) if s and state.shop_open[i]}


#: The gift conditions: ``f(state, shop, gift) -> bool`` for a purchase from ``shop``,
#: asked before the good leaves the stack.
CONDITIONS: dict[str, Callable[[State, int, dict[str, Any]], bool]] = {
    "most_expensive": lambda state, shop, g: (
        _price(state, state.shops[shop][-1]) == max(_price(state, x) for x in _tops(state).values())
    ),
    "cheapest": lambda state, shop, g: (
        _price(state, state.shops[shop][-1]) == min(_price(state, x) for x in _tops(state).values())
    ),
    "shop": lambda state, shop, g: shop == g["shop"],
    "smallest": lambda state, shop, g: (
        len(state.shops[shop]) == min(len(s) for s in state.shops if s)
    ),
    "highest": lambda state, shop, g: (
        len(state.shops[shop]) == max(len(s) for s in state.shops if s)
    ),
}


@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked gift data (``data/gifts.toml`` by default); raises
    :class:`tower.errors.InputFileError` naming the file and the field."""
    where = Path(path) if path is not None else PATH
    data = read(where, entries={"gift": (10, 1)})
    for i, entry in data["gift"].items():
        if entry.get("condition") not in CONDITIONS:
            raise InputFileError(
                str(where),
                f"condition must be one of {sorted(CONDITIONS)}, not {entry.get('condition')!r}",
                field=f"gift {i}",
            )
        if entry["condition"] == "shop" and entry.get("shop") not in range(5):
            raise InputFileError(
                str(where), f"shop must be 0..4, not {entry.get('shop')!r}", field=f"gift {i}"
            )
    return data


def _g(state: State) -> dict[str, Any]:
    return state.ext[NAME]


def _turn_over(state: State) -> None:
    g = _g(state)
    if g["face_up"] is None and g["stack"]:
        g["face_up"] = g["stack"].pop()


@ADDS.task("gifts_turn_over")
def _turn_over_task(state: State, t: Task) -> None:
    _turn_over(state)


@ADDS.task("gifts_season")
def _season(state: State, t: Task) -> None:
    g = _g(state)
    if g["face_up"] is not None:
        g["box"].append(g["face_up"])
        g["face_up"] = None
    _turn_over(state)


def season_tasks(state: State) -> list[Task]:
    """The season-scoring step: the face-up gift into the box, the next one turned over."""
    return [T("gifts_season")]


def check(state: State) -> None:
    """Every gift is in exactly one place: the stack, face up, a player's, or the box."""
    g = _g(state)
    places = g["stack"] + g["box"] + [x for pl in state.players for x in pl.ext[NAME]]
    places += [g["face_up"]] if g["face_up"] is not None else []
    assert sorted(places) == sorted(load()["gift"]), f"gifts lost or doubled: {sorted(places)}"
    assert g["due"] is None or g["due"][1] == g["face_up"], f"gift due but gone: {g['due']}"


@register
class Gifts(Module):
    """Gifts on the hooks (see the module docstring)."""

    name = NAME
    turn_times = frozenset({"end"})
    adds = ADDS
    title = "Gems & Experts: Luxury Goods: Gifts (10 gifts for luxury-good purchases)"
    rulebook = "Gems & Experts"
    season_steps = (SeasonStep("gifts", "prepare", season_tasks),)

    def setup(self, state: State) -> None:
        """Shuffle the gifts into a stack and turn over the top one."""
        stack = sorted(load()["gift"])
        state.rng.shuffle(stack)
        state.ext[NAME] = {"stack": stack, "face_up": None, "box": [], "due": None}
        for pl in state.players:
            pl.ext[NAME] = []
        _turn_over(state)

    def luxury_buy(self, state: State, p: int, shop: int) -> bool:
        """Note whether this purchase from ``shop`` wins the face-up gift (the good is still on
        its stack); the gift is handed over when the good is gained."""
        g = _g(state)
        gift = g["face_up"]
        if gift is not None:
            entry = load()["gift"][gift]
            g["due"] = [p, gift] if CONDITIONS[entry["condition"]](state, shop, entry) else None
        return False

    def luxury_gained(self, state: State, p: int, lux: int) -> None:
        """Hand over the gift a purchase won (:func:`luxury_buy`).

        Ruling: only a purchase in the souk from the 5 stacks wins a gift ("Purchase of ..."):
        a luxury good taken free by an effect, or a good of another module's stack, does not.
        """
        g = _g(state)
        due, g["due"] = g["due"], None
        if due is None or due[0] != p or due[1] != g["face_up"]:
            return
        gift = g["face_up"]
        g["face_up"] = None  # the next one is turned over at the end of the turn
        state.players[p].ext[NAME].append(gift)
        run_effects(state, p, load()["gift"][gift]["reward"], f"gift {gift}")

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        # A literal task rather than T(): asked at the end of every turn.
        return [{"t": "gifts_turn_over"}] if when == "end" else []

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        g = _g(state)
        v[NAME] = {
            "face_up": g["face_up"],
            "stack": len(g["stack"]),
            "box": list(g["box"]),
            "players": [list(pl.ext[NAME]) for pl in state.players],
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """The face-up gift (one-hot by id), the stack's height, each seat's gifts."""
        return {"gifts.face_up": (10,), "gifts.stack": (1,), "gifts.players": (4, 10)}

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        g = _g(state)
        if g["face_up"] is not None:
            views["gifts.face_up"][g["face_up"] - 1] = 1
        views["gifts.stack"][0] = len(g["stack"])
        for i, pl in enumerate(state.players):
            for gift in pl.ext[NAME]:
                views["gifts.players"][i, gift - 1] = 1

    def render_board(self, state: State) -> list[str]:
        g = _g(state)
        return [f"gifts: face up {g['face_up']}, {len(g['stack'])} in the stack"]
