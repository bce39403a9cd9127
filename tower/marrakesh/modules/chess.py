"""Chess (Walls & Guards, module 3): 5 chess-set luxury goods.

Switched on by ``"chess"`` in ``GameConfig.modules``; combinable with every other module.
Rulebook: *Walls & Guards*, section "Chess". The tiles are data
(``data/chess.toml``, each entry ``rulebook`` or ``assumed``). What the module changes:

- components (:func:`extend`): the 5 chess sets join the luxury goods (ids 26-30, type
  ``"chess"``), each with a price of 4 points (``points_cost``, read by the souk like the
  goods keshis) and a reward: its two keshis, deployed at once from the supply with their
  deployment bonus (a keshi shown as a choice of two colours is a ``choose`` decision; the
  red tile has none), and 2 dinars;
- setup (:func:`setup`): 1 random chess set is shuffled into each of the 5 luxury-good
  stacks.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> state = Game(GameConfig(players=2, modules=frozenset({"chess"}))).new_initial_state(1)
>>> [len(s) for s in state.shops], sorted(x for s in state.shops for x in s if x > 25)
([6, 6, 6, 6, 6], [26, 27, 28, 29, 30])
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh.hooks import Module, register
from tower.marrakesh.module_data import DATA, check_colours, read

if TYPE_CHECKING:
    from tower.marrakesh.components import Components
    from tower.marrakesh.state import State

NAME = "chess"


@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked chess data (``data/chess.toml`` by default); raises
    :class:`tower.errors.InputFileError` naming the file and the field."""
    where = Path(path) if path is not None else DATA / "chess.toml"
    data = read(where, entries={"chess_set": (5, 26)})
    for i, entry in data["chess_set"].items():
        shown = entry.get("keshis")
        if not isinstance(shown, list) or len(shown) != 2:
            raise InputFileError(
                str(where), f"2 keshis shown, not {shown!r}", field=f"chess_set {i}"
            )
        for k, colours in enumerate(shown):
            check_colours(where, f"chess_set {i}.keshis[{k}]", colours)
    return data


def _keshi(shown: str | list[str]) -> dict[str, Any]:
    """The effect deploying one shown keshi: a colour, or a choice between colours."""
    if isinstance(shown, str):
        return {"op": "keshi", "colour": shown, "n": 1}
    options = [[{"op": "keshi", "colour": c, "n": 1}] for c in shown]
    return {"op": "choose", "options": options}


def luxury(entry: dict[str, Any], rules: dict[str, Any]) -> dict[str, Any]:
    """A chess set as a luxury-good entry of the components."""
    reward = [_keshi(k) for k in entry["keshis"]] + [{"op": "gain", "dinars": rules["dinars"]}]
    return {
        **entry,
        "good": rules["good"],
        "points_cost": rules["points_cost"],
        "reward": reward,
        "dealt": False,  # not dealt with the base goods: setup shuffles one into each stack
    }


def extend(comps: Components) -> Components:
    """The components with the chess sets among the luxury goods."""
    data = load()
    sets = {i: luxury(e, data["chess"]) for i, e in data["chess_set"].items()}
    return dataclasses.replace(comps, luxuries={**comps.luxuries, **sets})


def check(state: State) -> None:
    """Every chess set is in one place at most (a shop or a player's goods; lost ones are in
    the box), and each one a player owns was paid for with its points."""
    sets = load()["chess_set"]
    places = [x for shop in state.shops for x in shop] + [
        x for pl in state.players for x in pl.luxuries
    ]
    found = [x for x in places if x in sets]
    assert len(set(found)) == len(found), f"a chess set is in two places: {sorted(found)}"
    for p, pl in enumerate(state.players):
        owned = [x for x in pl.luxuries if x in sets]
        paid = [e for e in state.score_events if e[0] == p and "costs points" in e[2]]
        assert len(paid) >= len(owned), f"player {p} owns chess sets {owned}, paid {len(paid)}"


@register
class Chess(Module):
    """Chess on the hooks: component data and setup (see the module docstring)."""

    name = NAME
    title = "Walls & Guards: Chess (5 chess-set luxury goods)"
    rulebook = "Walls & Guards"

    def components(self, comps: Components) -> Components:
        return extend(comps)

    def setup(self, state: State) -> None:
        """Shuffle 1 random chess set into each luxury-good stack (top = end of the list)."""
        data = load()
        sets = sorted(data["chess_set"])
        state.rng.shuffle(sets)
        per = data["chess"]["per_shop"]
        for i, shop in enumerate(state.shops):
            shop.extend(sets[i * per : (i + 1) * per])
            state.rng.shuffle(shop)

    def invariants(self, state: State) -> None:
        check(state)
