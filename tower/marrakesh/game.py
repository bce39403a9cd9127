"""The game: a configuration (players, modules, tower model) and the components.

:class:`Game` is immutable; it makes initial states, decodes action ids and replays games.
It is the top of the engine's core: it imports the state and the rule files (which
register their tasks), and none of them imports it. :class:`GameConfig` and
:class:`ConfigError` live in :mod:`tower.marrakesh.config` and are re-exported here.
"""

from __future__ import annotations

import copyreg
from collections.abc import Iterable
from typing import Any

# effects, labels, scoring and sectors are imported so that their tasks, decisions and
# labels register.
from tower.marrakesh import actions, effects, labels, phases, rules, scoring, sectors  # noqa: F401
from tower.marrakesh.actions import ACTIONS, Action
from tower.marrakesh.board import GAME_FIELDS, GameLike
from tower.marrakesh.components import Components, load
from tower.marrakesh.config import ConfigError, GameConfig
from tower.marrakesh.hooks import Hooks, RuleSet
from tower.marrakesh.state import State

__all__ = ["ConfigError", "Game", "GameConfig"]


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


def _ruleset(hooks: Hooks) -> RuleSet:
    """The core's rule set merged with those of the enabled modules."""
    return rules.CORE.merged(
        *(m.adds for m in hooks.modules), where=[m.name for m in hooks.modules]
    )


class Game(GameLike):
    """A Marrakesh game definition.

    Examples
    --------
    >>> g = Game(GameConfig(players=3, modules=frozenset({"spectators"})))
    >>> s = g.new_initial_state(seed=1)
    >>> g.num_distinct_actions >= 407, s.current_player >= 0
    (True, True)
    """

    # Slots (as on the board): the rules read the game's tables on most moves. Those of
    # its base (GAME_FIELDS) are C struct members in the compiled build (board.pxd).
    __slots__ = ("num_distinct_actions",)

    def __init__(self, config: GameConfig | None = None, components: Components | None = None):
        self.config = config or GameConfig()
        #: The enabled modules' hooks, in the documented order (:mod:`~tower.marrakesh.hooks`).
        self.hooks = Hooks(self.config.modules)
        #: The core's tasks, decisions, labels and effects, with those of the enabled
        #: modules (a module's entries exist only in games that switch it on).
        self.ruleset = _ruleset(self.hooks)
        #: keshi colour -> how room is answered for it in this game (asked on most moves).
        self.rooms = sectors.room_rules(self.hooks)
        #: The colours whose room is the sector's plain capacity, ``CAPACITY`` less the
        #: player's keshis there: read inline where many colours are asked at once.
        self.plain_rooms = sectors.plain_rooms(self.hooks)
        #: Size of the fixed action space (the core's kinds and every known module's).
        self.num_distinct_actions: int = actions.freeze()
        self.components = _assembled(components or load(), self.config.modules, self.hooks)
        #: scroll id -> the modifier name of a permanent (or timed) enhancement
        self.modifiers: dict[int, str] = {
            sid: s["modifier"] for sid, s in self.components.scrolls.items() if "modifier" in s
        }
        #: modifier name -> the ids of the scrolls that have it (asked on most moves)
        self.with_modifier: dict[str, frozenset[int]] = {
            name: frozenset(sid for sid, m in self.modifiers.items() if m == name)
            for name in set(self.modifiers.values())
        }

    def __getstate__(self) -> dict[str, Any]:
        # The rule set and the room rules hold plain functions, lambdas and closures: a
        # pickled game rebuilds them.
        fields = (*GAME_FIELDS, *Game.__slots__)
        return {k: getattr(self, k) for k in fields if k not in ("ruleset", "rooms")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.ruleset = _ruleset(self.hooks)
        self.rooms = sectors.room_rules(self.hooks)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as a plain object (its class, then __setstate__): the compiled build's
        # extension type GameLike would otherwise pickle its own fields only.
        return copyreg.__newobj__, (type(self),), self.__getstate__()

    def new_initial_state(self, seed: int = 0) -> State:
        """A game after setup; every random element is drawn from ``seed``."""
        state = State(self)
        phases.setup(state, seed)
        rules.advance(state)
        return state

    def action_from_id(self, i: int) -> Action:
        return ACTIONS[i]

    def replay(self, seed: int, actions: Iterable[Action | int | str | tuple[int, Any]]) -> State:
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
