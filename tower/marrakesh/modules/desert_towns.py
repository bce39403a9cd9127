"""Expansion 5, desert towns: the start oasis is covered, each path gains a fourth space
leading to a desert town (deployment bonus 4 points), towns are claimed with a set of the 3
goods keshis, and at most 2 claimed towns score at the end.

The sahara spaces themselves live in :func:`tower.marrakesh.sectors.brown_spaces`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import VENDOR_SECTORS

if TYPE_CHECKING:
    from tower.marrakesh.state import State


def setup(state: State) -> None:
    towns = sorted(state.game.components.desert_towns)
    state.rng.shuffle(towns)
    k = state.game.components["setup"]["desert_towns_drawn"][str(state.num_players)]
    state.towns_display = sorted(towns[:k])


def town_value(state: State, p: int, tid: int) -> int:
    """Final-scoring points of desert town ``tid`` for player ``p`` (0 for 10-12)."""
    from tower.marrakesh.effects import board_keshis
    from tower.marrakesh.sectors import spectators

    kind = state.game.components.desert_towns[tid]["kind"]
    pl = state.players[p]
    if kind == "gates_all":
        return 2 * sum(g is not None for g in pl.gates)
    if kind == "luxuries":
        return 2 * len(pl.luxuries)
    if kind == "scrolls":
        return 2 * len(pl.scrolls)
    if kind == "stair_steps":
        which = state.game.components.desert_towns[tid]["which"]
        return min(getattr(pl, which), state.game.components["staircase"]["final"])
    if kind == "keshis_third":
        return board_keshis(state, p, goods=False) // 3
    if kind == "river_steps":
        return pl.river_total
    if kind == "sectors_four":
        return 2 * sum(pl.keshis[s] + (s in pl.vendors) >= 4 for s in VENDOR_SECTORS)
    if kind == "entertainers":
        return sum(spectators(state, p, i) for i in range(8) if pl.square[i])
    if kind == "instant":
        return 0
    raise AssertionError(f"unknown desert town kind {kind!r}")
