"""Checks shared by the tests of the Marrakesh modules (not a test file itself).

- :func:`legal_sequence` plays a sequence of legal choices picked by integers (as drawn by
  Hypothesis), trying an illegal action before each one: it must be refused and change
  nothing; the invariants hold after every action; the state survives JSON.
- :func:`round_trip` plays a random game, keeps the state's JSON at the first node where a
  predicate holds, and checks that both the replay from the seed and the restored JSON
  played on reproduce the final state exactly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from tower.marrakesh import Game, IllegalActionError, State
from tower.marrakesh.invariants import check


def legal_sequence(game: Game, seed: int, picks: list[int]) -> State:
    state = game.new_initial_state(seed)
    n = game.num_distinct_actions
    for k in picks:
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.sample_chance()
            continue
        legal = state.legal_action_ids()
        before = state.to_json()
        wrong = next(i for i in range(k % n, k % n + n + 1) if i % n not in legal) % n
        with pytest.raises(IllegalActionError):
            state.apply(wrong)
        assert state.to_json() == before
        state.apply(legal[k % len(legal)])
        check(state)
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    return state


def _settle(state: State) -> None:
    while state.is_chance_node():
        state.sample_chance()


def round_trip(game: Game, seed: int, agent_seed: int, when: Callable[[State], bool]) -> State:
    """The final state of a random game; asserts that ``when`` held at some node and that
    replay and JSON restore reproduce the game from there."""
    rng = random.Random(agent_seed)
    state = game.new_initial_state(seed)
    actions, snap = [], None
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance()
            continue
        if snap is None and when(state):
            snap = (len(actions), json.loads(json.dumps(state.to_json())))
        a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply(a)
    assert snap is not None, "the game never reached the node to snapshot"
    assert game.replay(seed, actions).to_json() == state.to_json()
    at, data = snap
    restored = State.from_json(game, data)
    assert restored.to_json() == data
    for a in actions[at:]:
        _settle(restored)
        restored.apply(a)
    _settle(restored)
    assert restored.to_json() == state.to_json()
    return state
