"""The PettingZoo AEC environment: PettingZoo's API test, masks, seeding, hidden turns."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test

from tower.marrakesh import IllegalActionError
from tower.marrakesh.adapters.pettingzoo import MarrakeshEnv
from tower.marrakesh.hooks import maximal_sets


def _play(env: MarrakeshEnv, seed: int) -> list[int]:
    """Play a whole game with the lowest legal action; returns the actions."""
    env.reset(seed=seed)
    actions = []
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        if action is not None:
            actions.append(action)
        env.step(action)
    return actions


def test_api_test_four_players():
    # 200 cycles of 4 agents cover a whole game (about 450 decisions) and its end.
    env = MarrakeshEnv(players=4)
    api_test(env, num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("modules", maximal_sets(2), ids=lambda m: "+".join(sorted(m))[:40])
def test_api_test_two_players_all_modules(modules):
    """Every compatible module: each largest allowed combination."""
    api_test(MarrakeshEnv(players=2, modules=modules), num_cycles=40, verbose_progress=False)


def test_whole_game_rewards_and_seeding():
    env = MarrakeshEnv(players=3)
    first = _play(env, seed=5)
    assert env.agents == []
    assert _play(env, seed=5) == first
    assert _play(env, seed=6) != first
    env.reset(seed=5)
    for _agent in env.agent_iter():
        _, reward, terminated, _, info = env.last()
        if terminated:
            assert reward in (0.0, 1.0, 0.5, 1 / 3) and "score" in info
        env.step(None if terminated else int(np.flatnonzero(env.last()[0]["action_mask"])[0]))


def test_selection_is_a_sequence_of_hidden_turns():
    env = MarrakeshEnv(players=3)
    env.reset(seed=2)
    s = env.marrakesh
    while s.current_player != -2:  # play to the simultaneous selection
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    first = env.agent_selection
    before = {a: env.observe(a)["observation"].copy() for a in env.possible_agents}
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert env.agent_selection != first and s.current_player == -2
    after = {a: env.observe(a)["observation"] for a in env.possible_agents}
    views = env.layout.views(after[first].copy())
    assert views["own_selection"].sum() == 3
    for a in env.possible_agents:
        if a != first:
            other = env.layout.views(after[a].copy())
            assert other["own_selection"].sum() == 0
            # Only the public "who has chosen" and "who still chooses" flags change.
            changed = np.flatnonzero(after[a] != before[a])
            index = env.layout.views(np.arange(env.layout.size, dtype=np.float64))
            flags = np.concatenate([index["chosen"], index["to_move"]]).astype(int)
            assert len(changed) and set(changed) <= set(flags)


def test_illegal_action_raises_and_changes_nothing():
    env = MarrakeshEnv(players=2)
    env.reset(seed=3)
    obs = env.last()[0]
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.marrakesh.to_json()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.marrakesh.to_json() == before


def test_render_shows_the_agent_view():
    env = MarrakeshEnv(players=2, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert f"you are P{env.agent_selection[-1]} " in text and "hidden keshis" in text
