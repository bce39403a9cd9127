"""The modules: each file registers one :class:`~tower.marrakesh.hooks.Module` (how to
write one: ``README.md`` in this folder and :mod:`tower.marrakesh.hooks`).

Importing this package registers every module below, in this order; the action kinds a
module declares get their ids in that order, so add new modules at the end. The package
:mod:`tower.marrakesh` imports it, so ``GameConfig(modules=...)`` knows every module.
"""

from tower.marrakesh.hooks import REGISTRY
from tower.marrakesh.modules import (  # noqa: F401 (each registers its module)
    alms,
    chess,
    closed_madrasa,
    desert_towns,
    edicts,
    exchange_offices,
    experts,
    gems,
    gifts,
    imam_sultan,
    personal_tasks,
    second_hand_shop,
    special_buildings,
    spectators,
    staircase_tiles,
    statuettes,
    walls_guards,
)

#: Names of the registered modules (the names accepted in ``GameConfig.modules``).
MODULES: tuple[str, ...] = tuple(REGISTRY)

__all__ = ["MODULES"]
