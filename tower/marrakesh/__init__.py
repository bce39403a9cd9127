"""The Marrakesh rules engine: the whole base game, the five modules of the base box and
the *Walls & Guards* module (``"walls_guards"``: wood, brick tiles, the city wall,
watchmen and the Battle at the Wall, whose throws are chance nodes of the same model).

The tower throw is a chance node drawn from a :class:`tower.model.TowerModel`; the engine
knows nothing else about the tower. Components are data (``data/components.toml``, each
entry marked ``rulebook`` or ``assumed``), effects are run by one executor, and every
sub-decision is a pending decision, so every choice a player makes is an action.

Core API
--------
- ``GameConfig(players=2..4, modules=frozenset(MODULES subset), tower=TowerModel)``;
  a module is a plug-in (:mod:`tower.marrakesh.hooks`, ``modules/README.md``)
- ``game = Game(config)``; ``game.num_distinct_actions`` (fixed size: the core's 407
  actions and every registered module's action kinds);
  ``game.action_from_id(i)``; ``game.new_initial_state(seed)``;
  ``game.replay(seed, actions)`` (actions, ``(player, action)`` pairs or ``state.history``)
- ``state.current_player``: a player index, or ``CHANCE`` (tower throw:
  ``state.sample_chance()``), ``SIMULTANEOUS`` (phase-1 selection: every player in
  ``state.pending_players()`` applies one ``select`` action, ``state.apply(a, player=p)``)
  or ``TERMINAL``
- ``state.legal_actions(player=None)`` / ``state.legal_action_ids(player=None)``,
  ``state.apply(action)`` (an :class:`Action`, its id or its string form),
  ``state.clone()``, ``state.to_json()`` / ``State.from_json(game, data)``,
  ``state.is_terminal()``, ``state.scores()``, ``state.winners()``,
  ``state.score_events`` (``[player, delta, reason]``), ``state.history`` (``"p action"``
  and ``"chance ..."`` lines), ``state.chance_outcomes()`` (exact law of the throw where
  the model has one)
- an illegal action raises :class:`IllegalActionError` naming the action and the reason,
  and leaves the state unchanged.
- named decisions: ``state.describe_action(a)`` is a ``Decision`` (``label``, a sentence;
  ``gives`` and ``costs``; ``kind``, ``player``, ``private``), ``state.describe_actions()``
  those of every legal action, ``state.action_to_string(a)`` the label; the action ids
  stay as they are.
- a decision with a single legal option is taken by the engine without asking (and is
  not in ``state.history``); ``GameConfig(ask_single=True)`` asks it anyway.
- ``State.from_json`` checks the invariants and refuses a broken position.

Layers
------
The engine's files import one way: a file imports only files of its own layer or of
an earlier layer in this list (``tests/test_imports.py`` checks it, and that no import
loops at all, type-only imports and imports inside functions included):

1. ``actions``, ``component_data``, ``tasks``: plain data (the action space, the component
   tables, the fields of a task);
   ``wall_battle``: the *Walls & Guards* Battle at the Wall as data and pure functions.
2. ``hooks``: the module interface (:class:`~tower.marrakesh.hooks.Module`, generic over
   the state it receives, so it names no state class), the registry and ``Hooks``.
3. ``config`` (``GameConfig``, ``ConfigError``, ``CHANCE``/``SIMULTANEOUS``/``TERMINAL``),
   ``components`` (the component file's loader), ``module_data`` (the reader of a
   module's own component file).
4. ``board``: a position's data (``Player``, ``Board``: fields, ``clone``, JSON); it knows
   its game only through ``GameLike``, the game's base class.
5. ``rules``: the task machine; it works on a ``Board``.
6. ``worth``, ``effects``, ``sectors`` (a package, one file per sector of the player
   board), ``phases``, ``scoring``: the rules of the game, registered as tasks and
   decisions; ``labels``: those decisions in words; ``invariants``: what holds in every
   position.
7. ``state``: ``State``, the ``Board`` with the player-facing API (delegates to ``rules``).
8. ``game``: ``Game`` makes states and imports the rule files so that they register.
9. ``agents``, ``greedy``, ``ui``, ``state_file``, ``adapters``: what plays, shows and
   stores games.
10. ``modules/``: the plug-ins; they may import any layer above, and no core file imports
    them (nor names them).
11. this package (``tower.marrakesh``): assembles the game and registers every module.
12. ``selfplay`` and ``catalogue``: command-line tools that import this package
    (so that every module is registered, in worker processes too).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig, RandomAgent, play
>>> state = play(Game(GameConfig(players=2)), [RandomAgent(1), RandomAgent(2)], seed=5)
>>> state.is_terminal(), len(state.scores())
(True, 2)
"""

from tower.marrakesh.actions import ACTIONS, Action, num_actions
from tower.marrakesh.agents import RandomAgent, play
from tower.marrakesh.game import ConfigError, Game, GameConfig
from tower.marrakesh.modules import MODULES  # registers every module and its action kinds
from tower.marrakesh.rules import IllegalActionError
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, TERMINAL, State

#: Size of the fixed action space, with every registered module's action kinds.
NUM_ACTIONS: int = num_actions()

__all__ = [
    "ACTIONS",
    "CHANCE",
    "MODULES",
    "NUM_ACTIONS",
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "ConfigError",
    "Game",
    "GameConfig",
    "IllegalActionError",
    "RandomAgent",
    "State",
    "play",
]
