"""The five expansion modules of the base box and Walls & Guards, each switched on in
``GameConfig.modules``.

A module file holds what the module changes: its setup step (``setup(state)``, if any) and
the rules it adds, which the core calls only when ``game.has(name)``.
"""

from tower.marrakesh.modules import (
    chess,
    desert_towns,
    exchange_offices,
    imam_sultan,
    special_buildings,
    spectators,
    staircase_tiles,
    walls_guards,
)

#: Module names accepted in ``GameConfig.modules``.
MODULES: tuple[str, ...] = (
    "staircase_tiles",
    "imam_sultan",
    "exchange_offices",
    "spectators",
    "desert_towns",
    "walls_guards",
    "chess",
    "special_buildings",
)

__all__ = [
    "MODULES",
    "chess",
    "desert_towns",
    "exchange_offices",
    "imam_sultan",
    "special_buildings",
    "spectators",
    "staircase_tiles",
    "walls_guards",
]
