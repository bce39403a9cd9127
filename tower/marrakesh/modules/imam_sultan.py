"""Expansion 2, Imam & Sultan: two special pawns waiting on the staircases.

``state.pawns[name] = [holder, step]``: holder is the accompanied player (-1 while the pawn
waits on ``step``, -2 once it has left the game). The sultan (palace) makes each scroll
cost 1 date fewer; the imam (mosque) makes each luxury good cost 1 goods keshi fewer (both
read in :mod:`tower.marrakesh.sectors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tower.marrakesh.state import State

PAWN = {"palace": "sultan", "mosque": "imam"}


def setup(state: State) -> None:
    step = state.game.components["staircase"]["imam_sultan_step"]
    state.pawns = {"sultan": [-1, step], "imam": [-1, step]}


def after_move(state: State, p: int, which: str) -> None:
    """Update the pawn of staircase ``which`` after player ``p`` moved on it."""
    name = PAWN[which]
    holder, step = state.pawns[name]
    final = state.game.components["staircase"]["final"]
    pos = [getattr(pl, which) for pl in state.players]
    # Ruling: reaching or passing the waiting pawn's stair in one move picks it up.
    if (holder == -1 and pos[p] >= step) or (holder >= 0 and holder != p and pos[p] > pos[holder]):
        holder = p  # drawing level is not enough to take it from its companion
    if holder == p and pos[p] >= final:
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
