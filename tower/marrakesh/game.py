"""The game: a configuration (players, modules, tower model) and the components.

:class:`Game` is immutable; it makes initial states, decodes action ids and replays games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tower.errors import TowerError
from tower.marrakesh import actions
from tower.marrakesh.actions import ACTIONS, Action
from tower.marrakesh.components import Components, load
from tower.marrakesh.hooks import Hooks, refusal
from tower.model.baseline import BaselineModel
from tower.model.interface import TowerModel


class ConfigError(TowerError, ValueError):
    """A game configuration that the rules do not allow."""


@dataclass(frozen=True)
class GameConfig:
    """Players (2-4), modules (names of registered modules, :data:`~tower.marrakesh.hooks.
    REGISTRY`; ``tower.marrakesh.MODULES`` lists them) and the tower model."""

    players: int = 4
    modules: frozenset[str] = frozenset()
    tower: TowerModel = field(default_factory=BaselineModel, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise ConfigError(f"Marrakesh is played by 2 to 4 players, not {self.players!r}")
        object.__setattr__(self, "modules", frozenset(self.modules))
        reason = refusal(self.players, self.modules)
        if reason:
            raise ConfigError(reason)


#: (id of the base components, modules) -> (base components, assembled components).
_ASSEMBLED: dict[tuple[int, frozenset[str]], tuple[Components, Components]] = {}


def _assembled(base: Components, modules: frozenset[str], hooks: Hooks) -> Components:
    """The components after every enabled module's ``components`` hook (cached)."""
    key = (id(base), modules)
    hit = _ASSEMBLED.get(key)
    if hit is not None and hit[0] is base:
        return hit[1]
    comps = base
    for extend in hooks.components:
        comps = extend(comps)
    _ASSEMBLED[key] = (base, comps)
    return comps


class Game:
    """A Marrakesh game definition.

    Examples
    --------
    >>> g = Game(GameConfig(players=3, modules=frozenset({"spectators"})))
    >>> s = g.new_initial_state(seed=1)
    >>> g.num_distinct_actions >= 407, s.current_player >= 0
    (True, True)
    """

    def __init__(self, config: GameConfig | None = None, components: Components | None = None):
        from tower.marrakesh import effects, phases, scoring, sectors  # noqa: F401 (registers)

        self.config = config or GameConfig()
        #: The enabled modules' hooks, in the documented order (:mod:`~tower.marrakesh.hooks`).
        self.hooks = Hooks(self.config.modules)
        #: Size of the fixed action space (the core's kinds and every known module's).
        self.num_distinct_actions: int = actions.freeze()
        self.components = _assembled(components or load(), self.config.modules, self.hooks)
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
