"""A game's configuration and the engine's node ids: the low end of the engine's layers.

:class:`GameConfig` (players, modules, tower model), :class:`ConfigError`, and the
OpenSpiel player ids of the special nodes (:data:`CHANCE`, :data:`SIMULTANEOUS`,
:data:`TERMINAL`). A configuration is checked against the module registry
(:func:`tower.marrakesh.hooks.refusal`) when it is made. ``tower.marrakesh.game`` and
``tower.marrakesh.state`` re-export these names.

Examples
--------
>>> GameConfig(players=3).players, CHANCE, SIMULTANEOUS, TERMINAL
(3, -1, -2, -4)
>>> GameConfig(players=5)
Traceback (most recent call last):
...
tower.marrakesh.config.ConfigError: Marrakesh is played by 2 to 4 players, not 5
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tower.errors import TowerError
from tower.marrakesh.hooks import refusal
from tower.model.baseline import BaselineModel
from tower.model.interface import TowerModel

__all__ = ["CHANCE", "SIMULTANEOUS", "TERMINAL", "ConfigError", "GameConfig"]

#: OpenSpiel's player ids for the special nodes.
CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4


class ConfigError(TowerError, ValueError):
    """A game configuration that the rules do not allow."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Players (2-4), modules (names of registered modules, :data:`~tower.marrakesh.hooks.
    REGISTRY`; ``tower.marrakesh.MODULES`` lists them) and the tower model.

    ``ask_single``: by default a decision with a single legal option is taken by the
    engine without asking (:func:`tower.marrakesh.rules.advance`: e.g. the only colour a
    player can claim, the only resource left to pay with); with ``ask_single=True`` the
    player is asked anyway, and the single option is an action of the game's history.
    A decision with no option is skipped either way."""

    players: int = 4
    modules: frozenset[str] = frozenset()
    tower: TowerModel = field(default_factory=BaselineModel, compare=False)
    ask_single: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise ConfigError(f"Marrakesh is played by 2 to 4 players, not {self.players!r}")
        object.__setattr__(self, "modules", frozenset(self.modules))
        reason = refusal(self.players, self.modules)
        if reason:
            raise ConfigError(reason)
