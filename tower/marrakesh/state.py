"""The game state: a :class:`~tower.marrakesh.board.Board` (the plain data, written to
JSON and read back exactly) with the player-facing API, which delegates to
:mod:`tower.marrakesh.rules`.

The board holds the shared board, the players, the tower's state, the engine's random
generator and the *stack* of pending work (tasks and pending decisions);
:mod:`tower.marrakesh.rules` runs tasks until a decision, a chance node or the end of the
game is on top. :class:`Player`, ``CHANCE``, ``SIMULTANEOUS`` and ``TERMINAL`` are
re-exported here.

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2)).new_initial_state(seed=3)
>>> t = State.from_json(s.game, s.to_json())
>>> t.to_json() == s.to_json(), type(t.clone()) is State
(True, True)
"""

from __future__ import annotations

import random
from typing import Any, Self

from tower.errors import InputFileError
from tower.marrakesh import invariants, rules
from tower.marrakesh.actions import ACTIONS, Action
from tower.marrakesh.board import JSON_VERSION, Board, GameLike, Player
from tower.marrakesh.config import CHANCE, SIMULTANEOUS, TERMINAL
from tower.marrakesh.rules import Decision

__all__ = ["CHANCE", "JSON_VERSION", "SIMULTANEOUS", "TERMINAL", "Decision", "Player", "State"]


class State(Board):
    """A Marrakesh position. Build one with :meth:`Game.new_initial_state`.

    ``current_player`` is a player index, or :data:`CHANCE` (the tower throw: call
    :meth:`sample_chance`), :data:`SIMULTANEOUS` (phase 1: every player in
    :meth:`pending_players` picks 3 keshis) or :data:`TERMINAL`. The data, its JSON
    (:meth:`to_json`, :meth:`from_json`) and :meth:`clone` come from
    :class:`~tower.marrakesh.board.Board`.
    """

    __slots__ = ()

    @classmethod
    def from_json(cls, game: GameLike, data: dict[str, Any]) -> Self:
        """Read a state written by :meth:`to_json` for ``game``, and check that it is a
        position of the game (:func:`tower.marrakesh.invariants.check`). Raises
        :class:`tower.errors.InputFileError` if it does not fit or breaks an invariant
        (the message names the invariant: a wrong edit of a position is refused)."""
        state = super().from_json(game, data)
        try:
            invariants.check(state)
        except AssertionError as exc:
            raise InputFileError(
                "<state json>", f"not a position of this game: {exc}", field="<invariants>"
            ) from None
        return state

    # -- the core API -------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return rules.current_player(self)

    def is_terminal(self) -> bool:
        return not self.stack

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    def pending_players(self) -> list[int]:
        """Players who still have to choose at a simultaneous node (else empty)."""
        return rules.pending_players(self)

    def legal_action_ids(self, player: int | None = None) -> list[int]:
        """Ids of the legal actions of ``player`` (default: the player to move, or at a
        simultaneous node the first pending player)."""
        return list(rules.legal_ids(self, player))

    def legal_actions(self, player: int | None = None) -> list[Action]:
        return [ACTIONS[i] for i in rules.legal_ids(self, player)]

    def describe_action(self, action: Action | int | str, player: int | None = None) -> Decision:
        """A legal action in words: a :class:`~tower.marrakesh.rules.Decision` with its
        ``label`` (a sentence) and what it ``gives`` and ``costs``. Raises
        :class:`IllegalActionError` for an action that is not legal now."""
        return rules.describe(self, rules.as_action(action), player)

    def describe_actions(self, player: int | None = None) -> list[Decision]:
        """Every legal action of ``player`` in words, in the order of
        :meth:`legal_actions`."""
        return [rules.describe(self, a, player) for a in self.legal_actions(player)]

    def action_to_string(self, action: Action | int | str, player: int | None = None) -> str:
        """The label of a legal action (:meth:`describe_action`); any other action's
        stable string form (``"colour:red"``), which :meth:`apply` also reads."""
        a = rules.as_action(action)
        if a.id in rules.legal_ids(self, player):
            return rules.describe(self, a, player).label
        return str(a)

    def apply(self, action: Action | int | str, player: int | None = None) -> None:
        """Apply a legal action; raises :class:`IllegalActionError` and changes nothing
        if it is not legal. At a simultaneous node ``player`` says whose choice it is
        (default: the first pending player)."""
        rules.apply(self, action if type(action) is Action else rules.as_action(action), player)

    def chance_outcomes(self) -> list[tuple[tuple[str, ...], float]]:
        """Exact law of the keshis coming out of the tower at a chance node, as
        ``[(sorted piece strings, probability)]``. Raises ``NotImplementedError`` when the
        tower model has no exact distribution; :meth:`sample_chance` always works."""
        return rules.chance_outcomes(self)

    def sample_chance(self, rng: random.Random | None = None) -> list[str]:
        """Resolve the tower throw at a chance node; returns the keshis that came out.

        By default the state's own generator draws, so replaying from a seed and the
        player actions reproduces the game exactly."""
        return rules.sample_chance(self, rng)

    def scores(self) -> list[int]:
        return [p.score for p in self.players]

    def winners(self) -> list[int]:
        """The players with the most points after the rulebook's tie-breaks (palace, then
        mosque); several players share the victory if still tied."""

        def key(i: int) -> tuple[int, int, int]:
            p = self.players[i]
            return (p.score, p.palace, p.mosque)

        best = max(key(i) for i in range(self.num_players))
        return [i for i in range(self.num_players) if key(i) == best]
