"""Expansion 4, spectators: every audience disc is played on its purple side (one section
without spectators, one with 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tower.marrakesh.state import State


def disc(state: State) -> list[int]:
    """Spectators per section of the audience discs in this game."""
    side = "purple" if state.game.has("spectators") else "pink"
    return state.game.components["audience_disc"][side]
