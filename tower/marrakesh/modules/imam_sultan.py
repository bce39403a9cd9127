"""Expansion 2, Imam & Sultan: two special pawns waiting on the staircases.

``state.pawns[name] = [holder, step]``: holder is the accompanied player (-1 while the pawn
waits on ``step``, -2 once it has left the game). The sultan (palace) makes each scroll
cost 1 date fewer; the imam (mosque) makes each luxury good cost 1 goods keshi fewer (the
``discount`` hook, read by :mod:`tower.marrakesh.sectors`).

Rulebook: *Marrakesh* (expansion 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.hooks import Module, register

if TYPE_CHECKING:
    from tower.marrakesh.state import State

PAWN = {"palace": "sultan", "mosque": "imam"}
#: discount -> the pawn that grants it
DISCOUNTS = {"scroll_dates": "sultan", "luxury_keshis": "imam"}


@register
class ImamSultan(Module):
    name = "imam_sultan"
    title = "Expansion 2: Imam & Sultan"
    rulebook = "Marrakesh"

    def setup(self, state: State) -> None:
        step = state.game.components["staircase"]["imam_sultan_step"]
        state.pawns = {"sultan": [-1, step], "imam": [-1, step]}

    def discount(self, state: State, p: int, what: str) -> int:
        pawn = DISCOUNTS.get(what)
        return 1 if pawn is not None and state.pawns[pawn][0] == p else 0

    def after_stair_move(self, state: State, p: int, which: str) -> None:
        after_move(state, p, which)


def after_move(state: State, p: int, which: str) -> None:
    """Update the pawn of staircase ``which`` after player ``p`` moved on it."""
    name = PAWN[which]
    holder, step = state.pawns[name]
    final = state.game.components.raw["staircase"]["final"]
    players = state.players
    mine = getattr(players[p], which)
    # Ruling: reaching or passing the waiting pawn's stair in one move picks it up.
    if (holder == -1 and mine >= step) or (
        holder >= 0 and holder != p and mine > getattr(players[holder], which)
    ):
        holder = p  # drawing level is not enough to take it from its companion
    if holder == p and mine >= final:
        # Every pawn's position, listed only here (after every move on the staircase).
        pos = [getattr(pl, which) for pl in players]
        # Passed on to the player in second position; if tied, one stair above them.
        # Ruling: players already on the final space are not considered; if none is left,
        # the pawn leaves the game.
        others = [q for q in range(len(pos)) if q != p and pos[q] < final]
        if not others:
            holder = -2
        else:
            best = max(pos[q] for q in others)
            tied = [q for q in others if pos[q] == best]
            holder, step = (tied[0], step) if len(tied) == 1 else (-1, best + 1)
    state.pawns[name] = [holder, step]
