"""The date orchard (*Marrakesh*, "Date orchard"): 1 date per date picker,
or the alternative a scroll offers (scrolls 23-25).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import Action, action_id
from tower.marrakesh.effects import run_effects
from tower.marrakesh.rules import Task, mod_values, options, resolve

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


@options("orchard")
def _orchard_options(state: Board, t: Task) -> list[int]:
    return [
        action_id("choice", i)
        for i in range(1 + len(mod_values(state, t["p"], "orchard_alternative")))
    ]


@resolve("orchard")
def _orchard(state: Board, t: Task, a: Action) -> None:
    # Scrolls 23-25: for each date picker, 1 date or the scroll's alternative.
    if a.arg == 0:
        state.players[t["p"]].dates += 1
    else:
        alternatives = mod_values(state, t["p"], "orchard_alternative")
        run_effects(state, t["p"], alternatives[a.arg - 1], "date orchard: scrolls 23-25")
