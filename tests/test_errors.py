"""Errors a user can cause derive from :class:`tower.errors.TowerError`, so the CLI turns
each into a one-line message; the same condition raises the same error everywhere."""

from __future__ import annotations

import pytest

from tower.calibration.recording import CountsError, parse_counts
from tower.errors import FitError, TowerError
from tower.marrakesh import Game, GameConfig, IllegalActionError
from tower.marrakesh.components import load
from tower.marrakesh.hooks import Module, RegistryError, register
from tower.marrakesh.modules.closed_madrasa import MadrasaSidesError, with_sides


@pytest.mark.parametrize(
    "error", [CountsError, FitError, IllegalActionError, MadrasaSidesError, RegistryError]
)
def test_user_errors_are_tower_errors(error):
    assert issubclass(error, TowerError) and issubclass(error, ValueError)


def test_raised_user_errors_are_tower_errors():
    with pytest.raises(TowerError, match="negative count"):
        parse_counts("red=-1")
    with pytest.raises(TowerError, match="4 letters"):
        with_sides(load(), "ABC")

    class Nameless(Module):
        name = "not an identifier"

    with pytest.raises(TowerError, match="identifier"):
        register(Nameless)


def test_asking_a_chance_law_off_a_chance_node_is_the_illegal_action_of_sampling_one():
    state = Game(GameConfig(players=2)).new_initial_state(0)
    assert state.current_player >= 0  # a setup decision, not a throw
    with pytest.raises(IllegalActionError, match="not a chance node"):
        state.chance_outcomes()
    with pytest.raises(IllegalActionError, match="not a chance node"):
        state.sample_chance()
