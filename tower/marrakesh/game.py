"""The game: a configuration (players, modules, tower model) and the components.

:class:`Game` is immutable; it makes initial states, decodes action ids and replays games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tower.errors import TowerError
from tower.marrakesh.actions import ACTIONS, NUM_ACTIONS, Action
from tower.marrakesh.components import Components, load
from tower.model.baseline import BaselineModel
from tower.model.interface import TowerModel


class ConfigError(TowerError, ValueError):
    """A game configuration that the rules do not allow."""


@dataclass(frozen=True)
class GameConfig:
    """Players (2-4), expansion modules (names in ``MODULES``) and the tower model."""

    players: int = 4
    modules: frozenset[str] = frozenset()
    tower: TowerModel = field(default_factory=BaselineModel, compare=False)

    def __post_init__(self) -> None:
        from tower.marrakesh.modules import MODULES

        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise ConfigError(f"Marrakesh is played by 2 to 4 players, not {self.players!r}")
        object.__setattr__(self, "modules", frozenset(self.modules))
        unknown = sorted(set(self.modules) - set(MODULES))
        if unknown:
            raise ConfigError(f"unknown modules {unknown}; known: {list(MODULES)}")


class Game:
    """A Marrakesh game definition.

    Examples
    --------
    >>> g = Game(GameConfig(players=3, modules=frozenset({"spectators"})))
    >>> s = g.new_initial_state(seed=1)
    >>> g.num_distinct_actions == 407, s.current_player >= 0
    (True, True)
    """

    num_distinct_actions: int = NUM_ACTIONS

    def __init__(self, config: GameConfig | None = None, components: Components | None = None):
        from tower.marrakesh import effects, phases, scoring, sectors  # noqa: F401 (registers)

        self.config = config or GameConfig()
        self.components = components or load()
        from tower.marrakesh import modules

        # Each module's component data, in the order of MODULES.
        for name in modules.MODULES:
            extend = getattr(getattr(modules, name), "extend", None)
            if self.has(name) and extend is not None:
                self.components = extend(self.components)
        #: scroll id -> the modifier name of a permanent (or timed) enhancement
        self.modifiers: dict[int, str] = {
            sid: s["modifier"] for sid, s in self.components.scrolls.items() if "modifier" in s
        }

    def has(self, module: str) -> bool:
        return module in self.config.modules

    def new_initial_state(self, seed: int = 0):  # -> State
        """A game after setup; every random element is drawn from ``seed``."""
        from tower.marrakesh import phases, rules
        from tower.marrakesh.state import State

        state = State(self)
        phases.setup(state, seed)
        rules.advance(state)
        return state

    def action_from_id(self, i: int) -> Action:
        return ACTIONS[i]

    def replay(
        self, seed: int, actions: Iterable[Action | int | str | tuple[int, Any]]
    ):  # -> State
        """Replay a game from ``seed`` and its player actions; chance nodes draw from the
        state's own generator, so the result equals the original game exactly.

        Items are actions (an :class:`Action`, id or string), ``(player, action)`` pairs,
        or the lines of ``state.history`` (``"2 select:green+gray+red"``; ``"chance ..."``
        lines are skipped, the throw being drawn again).
        """
        state = self.new_initial_state(seed)
        for item in actions:
            player = None
            if isinstance(item, tuple):
                player, item = item
            elif isinstance(item, str):
                head, _, rest = item.partition(" ")
                if head == "chance":
                    continue
                if rest and head.isdigit():
                    player, item = int(head), rest
            while state.is_chance_node():
                state.sample_chance()
            state.apply(item, player=player)
        while state.is_chance_node():
            state.sample_chance()
        return state
