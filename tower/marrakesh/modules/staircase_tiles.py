"""Expansion 1, staircase tiles: 12 random tiles, random side up, cover the coverable
connection-bonus spaces between the staircases (not the dinar and points spaces beside the
staircases, the two topmost spaces or the lowermost one).

Rulebook: *Marrakesh* (expansion 1). The core reads a
covered space through ``state.covers`` (:func:`tower.marrakesh.sectors.space_effect`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tower.marrakesh.components import check_effects
from tower.marrakesh.hooks import Module, register

if TYPE_CHECKING:
    from tower.marrakesh.state import State


@register
class StaircaseTiles(Module):
    name = "staircase_tiles"
    title = "Expansion 1: Staircase tiles"
    rulebook = "Marrakesh"

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        for i, tile in enumerate(data["staircase_tiles"]["tiles"]):
            for side, eff in enumerate(tile):
                check_effects(path, f"staircase_tiles.tiles[{i}][{side}]", eff)
        return {}  # the tiles stay in the raw data, components["staircase_tiles"]

    def setup(self, state: State) -> None:
        comps = state.game.components
        spaces = [k for k, v in comps["staircase"]["spaces"].items() if v["coverable"]]
        tiles = list(comps["staircase_tiles"]["tiles"])
        state.rng.shuffle(tiles)
        # Placed from the bottom-left space on, in the data file's order of the spaces.
        for space, tile in zip(spaces, tiles, strict=False):
            state.covers[space] = tile[state.rng.randrange(2)]
