"""The OpenSpiel game ``python_marrakesh``: OpenSpiel's own random simulation test,
chance nodes, the simultaneous selection, and what observations hide."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import tower.marrakesh.adapters.openspiel  # noqa: E402, F401 (registers the game)
from tower.marrakesh.adapters.openspiel import PASS  # noqa: E402
from tower.marrakesh.hooks import maximal_sets  # noqa: E402


def _to_selection(state, rng):
    """Play random moves until the first simultaneous node."""
    while state.current_player() != pyspiel.PlayerId.SIMULTANEOUS:
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_random_sim_test_two_players():
    game = pyspiel.load_game("python_marrakesh", {"players": 2})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.slow
def test_random_sim_test_four_players_all_modules_with_serialization():
    game = pyspiel.load_game("python_marrakesh", {"players": 4, "modules": "all"})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("modules", maximal_sets(2), ids=lambda m: "+".join(sorted(m))[:40])
def test_random_sim_test_with_every_compatible_module(modules):
    """Each largest allowed combination (one with the Closed Madrasa, one with the
    Second-Hand Shop, which exclude each other), serialization included."""
    params = {"players": 2, "modules": "+".join(sorted(modules))}
    game = pyspiel.load_game("python_marrakesh", params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_chance_nodes_are_explicit_equiprobable_lists():
    game = pyspiel.load_game("python_marrakesh", {"players": 3, "throw_seeds": 5})
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 1000 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(3)
    rng = np.random.default_rng(0)
    while not state.is_chance_node():
        if state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(3)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert [o for o, _ in state.chance_outcomes()] == list(range(5))
    # The same seed gives the same throw; the state is a function of the history.
    a, b = state.clone(), state.clone()
    a.apply_action(2)
    b.apply_action(2)
    assert a.marrakesh.to_json() == b.marrakesh.to_json()
    assert a.marrakesh.history[-1].startswith("chance")


def test_selection_is_simultaneous_and_hidden():
    game = pyspiel.load_game("python_marrakesh", {"players": 2})
    state = _to_selection(game.new_initial_state(), np.random.default_rng(1))
    # The setup chance node is the first move.
    legal = [state.legal_actions(p) for p in range(2)]
    assert all(legal) and all(a != [PASS] for a in legal)
    picks = [legal[0][0], legal[1][-1]]
    own = [state.action_to_string(p, a) for p, a in enumerate(picks)]
    assert own[0].startswith("put ") and own[0].endswith(" keshis into the tower")
    state.apply_actions(picks)
    info = [state.information_state_string(p) for p in range(2)]
    assert f"selected: own {own[0]}" in info[0] and own[1] not in info[0].splitlines()[-1]
    assert f"selected: own {own[1]}" in info[1]


def test_observation_hides_other_screens_and_fits_the_tensor():
    game = pyspiel.load_game("python_marrakesh", {"players": 2})
    state = _to_selection(game.new_initial_state(), np.random.default_rng(2))
    text = state.observation_string(0)
    assert '"screen":' in text and text.count('"screen":') == 1
    tensor = np.asarray(state.observation_tensor(0))
    assert tensor.shape == (game.observation_tensor_size(),)
    assert tensor.sum() > 0
    # Different viewers, different observations (the viewer and the own screen differ).
    assert state.observation_tensor(0) != state.observation_tensor(1)


def test_returns_split_the_win():
    game = pyspiel.load_game("python_marrakesh", {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    winners = state.marrakesh.winners()
    assert sum(state.returns()) == pytest.approx(1.0)
    assert [r > 0 for r in state.returns()] == [p in winners for p in range(2)]
