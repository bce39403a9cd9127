"""Checks shared by the tests of the engine and of the Gems & Experts modules (not a test
file itself).

- :func:`with_module` is the Hypothesis decorator of a test ``f(seed, players, modules,
  picks)``: the module with a random set of the others that the rules allow with it;
- :func:`legal_sequence` plays the legal choices picked by the integers (distinct ids
  of the fixed action space), trying an
  illegal action before each one (refused, the state unchanged), checking the invariants
  after every action and the JSON round trip at the end;
- :func:`round_trip` plays a random game and checks that the replay from the seed and the
  state's JSON, restored at the first node where a predicate holds and played on,
  reproduce it exactly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tower.marrakesh import MODULES, Game, IllegalActionError, State
from tower.marrakesh.hooks import refusal
from tower.marrakesh.invariants import check


def with_module(module: str, examples: int = 15) -> Callable[[Callable], Callable]:
    others = st.sets(st.sampled_from([m for m in MODULES if m != module]))
    allowed = others.map(lambda s: frozenset(s | {module})).filter(lambda m: not refusal(4, m))

    def deco(f: Callable) -> Callable:
        return settings(
            max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        )(
            given(
                seed=st.integers(0, 10_000),
                players=st.integers(2, 4),
                modules=allowed,
                picks=st.lists(st.integers(0, 10_000), min_size=50, max_size=500),
            )(f)
        )

    return deco


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
        assert legal and len(set(legal)) == len(legal) and all(0 <= i < n for i in legal)
        before = state.to_json()
        wrong = next(i % n for i in range(k, k + n + 1) if i % n not in legal)
        with pytest.raises(IllegalActionError):
            state.apply(wrong)
        assert state.to_json() == before
        state.apply(legal[k % len(legal)])
        check(state)
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    return state


def round_trip(game: Game, seed: int, when: Callable[[State], bool]) -> State:
    rng = random.Random(seed)
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
        check(state)
    assert snap is not None, "the game never reached the node to snapshot"
    assert game.replay(seed, actions).to_json() == state.to_json()
    at, data = snap
    restored = State.from_json(game, data)
    for a in actions[at:]:
        while restored.is_chance_node():
            restored.sample_chance()
        restored.apply(a)
    while restored.is_chance_node():
        restored.sample_chance()
    assert restored.to_json() == state.to_json()
    return state
