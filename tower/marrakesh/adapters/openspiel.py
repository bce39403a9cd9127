"""Marrakesh as an OpenSpiel Python game, ``python_marrakesh``.

Importing this module registers the game with ``pyspiel.register_game``; then
``pyspiel.load_game("python_marrakesh", {"players": 3})`` works like any OpenSpiel game.

Game, state and observer are kept apart: :class:`MarrakeshGame` holds the engine game and
the parameters, :class:`MarrakeshState` wraps an engine :class:`tower.marrakesh.State`
(legal actions come from the engine, the one place they are computed), and
:class:`MarrakeshObserver` builds observations from
:mod:`tower.marrakesh.adapters.views`.

Dynamics: SIMULTANEOUS
    The phase-1 keshi selection is a true simultaneous node
    (``PlayerId.SIMULTANEOUS``): every player has legal ``select`` actions, or only
    ``pass`` (action 0) when the engine has already taken that player's only possible
    selection. All other decisions are turn-based nodes of the same game: the
    current player is a player id, and only that player has legal actions, which
    OpenSpiel allows in a simultaneous-dynamics game. This keeps the hidden selection
    hidden by construction (no player moves after seeing another's choice) instead of
    serialising it and hiding it in the information state, and keeps each turn-based
    decision a single-player node that sequential algorithms can read.

Chance: EXPLICIT_STOCHASTIC, as two kinds of chance node
    - *Setup*: the first node picks one of ``setup_seeds`` equiprobable seeds; the
      engine draws every random element of setup from it (scroll, luxury, oasis and
      provision orders, tiles, start player). The engine draws nothing else at random
      after setup except the tower throws, so the hidden orders of the stacks are fixed
      by this node, like a shuffle at the start of a card game.
    - *Tower throw*: the model's law of a 12-keshi throw, with the tower's state, has no
      tractable explicit list of outcomes (and a thrown multiset does not determine the
      tower's next state). So chance picks one of ``throw_seeds`` (K) equiprobable
      seeds, and seed ``k`` deterministically draws the throw from the tower model with
      ``random.Random(K * throws_so_far + k)``. Each throw's law is therefore the
      model's law seen through K fixed random streams: an approximation that
      converges to the model as K grows, stated here rather than hidden.

Utility: CONSTANT_SUM, terminal
    Each winner (after the rulebook's tie-breaks, see ``State.winners``) gets
    ``1 / number of winners``, everyone else 0; the returns sum to 1. Final scores are
    on ``state.marrakesh.scores()``.

Information: the information state string (perfect recall) is the viewer's first
observation followed, for each move, by the move as the viewer saw it (other players'
selections are hidden) and the parts of the observation that changed. Observation
strings and tensors hold the current view only (:mod:`~tower.marrakesh.adapters.views`).
No information state *tensor* is provided: a fixed-size perfect-recall encoding of a
500-move game would be mostly padding.

Parameters (``pyspiel.load_game("python_marrakesh", {...})``): ``players`` (2-4,
default 4), ``modules`` (module names separated by ``+`` or commas, or ``all``: every
compatible module; default none; a game string that is serialized needs ``+``),
``setup_seeds`` (default 1000), ``throw_seeds`` (default 64), ``tower`` (a model name
as :func:`tower.model.open_model` reads it: ``baseline``, the default, ``shipped`` for the
shipped distilled model, or a model file).

Examples
--------
>>> import pyspiel
>>> import tower.marrakesh.adapters.openspiel  # noqa: F401 (registers the game)
>>> game = pyspiel.load_game("python_marrakesh", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 1000)
>>> state.apply_action(7)
>>> state.current_player() >= 0
True
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from tower.marrakesh.actions import ACTIONS
from tower.marrakesh.adapters.views import TensorLayout, flat_view, view_text
from tower.marrakesh.game import ConfigError, Game, GameConfig
from tower.marrakesh.hooks import everything
from tower.marrakesh.state import CHANCE, SIMULTANEOUS, TERMINAL, State
from tower.model.opener import open_model

SHORT_NAME = "python_marrakesh"
#: Upper bound on the moves of one game (player decisions, simultaneous nodes and chance
#: nodes). Not proven: measured random 4-player games with all modules take about 500;
#: the bound leaves a factor of 6.
MAX_GAME_LENGTH = 3000
PASS = 0

_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "modules": "",
    "setup_seeds": 1000,
    "throw_seeds": 64,
    "tower": "baseline",
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Marrakesh (Stefan Feld, Queen Games 2022) with a modelled cube tower",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_DEFAULTS,
)


def _modules(text: str) -> frozenset[str]:
    if text == "all":
        return everything()  # every compatible module
    return frozenset(m.strip() for m in text.replace("+", ",").split(",") if m.strip())


class MarrakeshGame(pyspiel.Game):
    """The OpenSpiel game: parameters, the engine game, states and observers."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        self.setup_seeds = int(p["setup_seeds"])
        self.throw_seeds = int(p["throw_seeds"])
        if self.setup_seeds < 1 or self.throw_seeds < 1:
            raise ConfigError("setup_seeds and throw_seeds must be at least 1")
        config = GameConfig(
            players=int(p["players"]),
            modules=_modules(p["modules"]),
            tower=open_model(p["tower"]),
        )
        self.engine = Game(config)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_distinct_actions,
            max_chance_outcomes=max(self.setup_seeds, self.throw_seeds),
            num_players=config.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(GAME_TYPE, info, p)

    def new_initial_state(self) -> MarrakeshState:
        return MarrakeshState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> MarrakeshObserver:
        return MarrakeshObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Engine:
    """Holds the engine game and state; copying it clones the state and shares the game
    (OpenSpiel clones a Python state by deep-copying its attributes)."""

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: State | None) -> None:
        self.game = game
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.game, None if self.state is None else self.state.clone())


class _Recall:
    """Per-player information-state logs and last flat views.

    Copying it copies the lists and dicts but shares their (immutable) strings, so
    cloning a state costs no deep copy of a long log."""

    __slots__ = ("last", "log")

    def __init__(self, n: int) -> None:
        self.log: list[list[str]] = [[] for _ in range(n)]
        self.last: list[dict[str, str]] = [{} for _ in range(n)]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Recall:
        other = _Recall(0)
        other.log = [list(entries) for entries in self.log]
        other.last = [dict(flat) for flat in self.last]
        return other


class MarrakeshState(pyspiel.State):
    """An OpenSpiel state around an engine state (``None`` before the setup node)."""

    def __init__(self, game: MarrakeshGame) -> None:
        super().__init__(game)
        self._setup_seeds = game.setup_seeds
        self._throw_seeds = game.throw_seeds
        self._inner = _Engine(game.engine, None)
        self._recall = _Recall(game.num_players())

    @property
    def marrakesh(self) -> State | None:
        """The engine state (``None`` until the setup chance node is resolved)."""
        return self._inner.state

    # -- nodes and legal actions ------------------------------------------------------
    def current_player(self) -> int:
        s = self._inner.state
        if s is None:
            return int(pyspiel.PlayerId.CHANCE)
        cp = s.current_player
        if cp == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if cp == SIMULTANEOUS:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        if cp == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return cp

    def _legal_actions(self, player: int) -> list[int]:
        s = self._inner.state
        if s is None or player < 0:
            return []
        cp = s.current_player
        if cp == SIMULTANEOUS:
            if player in s.pending_players():
                return sorted(s.legal_action_ids(player))
            return [PASS]
        if cp == player:
            return sorted(s.legal_action_ids(player))
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        k = self._setup_seeds if self._inner.state is None else self._throw_seeds
        return [(i, 1.0 / k) for i in range(k)]

    # -- moves ------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        s = self._inner.state
        if s is None:
            self._inner.state = self._inner.game.new_initial_state(seed=int(action))
            self._record(None, "setup")
            return
        if s.is_chance_node():
            rng = random.Random(self._throw_seeds * s.tower.throws + int(action))
            out = s.sample_chance(rng)
            self._record(None, "throw: " + ",".join(p.split(":")[-1] for p in out))
            return
        mover = s.current_player
        said = s.action_to_string(int(action))
        s.apply(int(action))
        # The mover reads the action's label; the others its plain form, which shows no
        # more than before of a hidden choice (a kept task card, a building dealt).
        self._record(None, f"{mover} {ACTIONS[action]}", own=(mover, f"{mover} {said}"))

    def _apply_actions(self, actions: list[int]) -> None:
        s = self._inner.state
        pending = s.pending_players()
        said = {p: s.action_to_string(int(actions[p]), player=p) for p in pending}
        for p in pending:
            s.apply(int(actions[p]), player=p)
        self._record(said, "")

    def _record(
        self,
        selections: dict[int, str] | None,
        move: str,
        own: tuple[int, str] | None = None,
    ) -> None:
        """Append the move as each player saw it (``own``: the mover and what they read)
        and what changed in their view."""
        s = self._inner.state
        logs, lasts = self._recall.log, self._recall.last
        shown = move
        for p in range(s.num_players):
            move = own[1] if own is not None and own[0] == p else shown
            if selections is not None:
                move = f"selected: own {selections.get(p, 'pass')}"
            now = flat_view(s, p)
            if not logs[p]:
                logs[p].append(f"p{p} {move} | " + view_text(s, p))
            else:
                last = lasts[p]
                changed = [f"{k}={v}" for k, v in now.items() if last.get(k) != v]
                changed += [f"{k}=-" for k in last if k not in now]
                logs[p].append(f"{move} | " + " ".join(changed))
            lasts[p] = now

    # -- strings and results ----------------------------------------------------------
    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind = "setup seed" if self._inner.state is None else "throw seed"
            return f"{kind} {action}"
        s = self._inner.state
        return s.action_to_string(int(action), None if player < 0 else player)

    def is_terminal(self) -> bool:
        s = self._inner.state
        return s is not None and s.is_terminal()

    def returns(self) -> list[float]:
        s = self._inner.state
        if s is None or not s.is_terminal():
            return [0.0] * self.num_players()
        winners = s.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(s.num_players)]

    def information_state_log(self, player: int) -> list[str]:
        """The perfect-recall log of ``player`` (see the module docstring)."""
        return list(self._recall.log[player])

    def __str__(self) -> str:
        s = self._inner.state
        if s is None:
            return "before setup"
        return (
            f"season {s.season} round {s.round}; scores {s.scores()}; "
            f"to move {self.current_player()}"
        )


class MarrakeshObserver:
    """Observations of a :class:`MarrakeshState` for one player (PyObserver interface).

    With ``perfect_recall`` the string is the information-state log and there is no
    tensor; otherwise the string is the current view and the tensor its fixed-size
    encoding (:class:`~tower.marrakesh.adapters.views.TensorLayout`).
    """

    def __init__(
        self, game: MarrakeshGame, iig_obs_type: pyspiel.IIGObservationType, params: Any
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.layout = TensorLayout(game.engine)
        self.tensor = np.zeros(0 if self.perfect_recall else self.layout.size, np.float32)
        self.dict = {} if self.perfect_recall else self.layout.views(self.tensor)

    def set_from(self, state: MarrakeshState, player: int) -> None:
        if self.perfect_recall:
            return
        if state.marrakesh is None:
            self.tensor.fill(0.0)
            return
        self.layout.encode(state.marrakesh, player, out=self.tensor, views=self.dict)

    def string_from(self, state: MarrakeshState, player: int) -> str:
        if state.marrakesh is None:
            return f"p{player} before setup"
        if self.perfect_recall:
            return "\n".join(state.information_state_log(player))
        return view_text(state.marrakesh, player)


pyspiel.register_game(GAME_TYPE, MarrakeshGame)
