"""Expansion 5, desert towns: the start oasis is covered, each path gains a fourth space
leading to a desert town (deployment bonus 4 points), towns are claimed with a set of the 3
goods keshis, and at most 2 claimed towns score at the end.

Rulebook: *Marrakesh* (expansion 5). The hooks: setup
draws the towns on display, ``sahara`` covers the start oasis and opens the town spaces,
``towns`` names the claimed towns that score (valued by
:func:`tower.marrakesh.scoring.town_value`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.hooks import Module, register

if TYPE_CHECKING:
    from tower.marrakesh.state import State


@register
class DesertTowns(Module):
    name = "desert_towns"
    title = "Expansion 5: Desert towns"
    rulebook = "Marrakesh"

    def setup(self, state: State) -> None:
        towns = sorted(state.game.components.desert_towns)
        state.rng.shuffle(towns)
        k = state.game.components["setup"]["desert_towns_drawn"][str(state.num_players)]
        state.towns_display = sorted(towns[:k])

    def sahara(self, layout: dict[str, bool]) -> None:
        layout["start"] = False  # the start oasis is covered
        layout["towns"] = True

    def towns(self, state: State, p: int) -> list[int]:
        pl = state.players[p]
        return [pl.towns[i] for i in (0, 1) if pl.towns_claimed[i]]
